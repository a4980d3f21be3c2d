// How sure a prediction is (docs/model.md#ranges): the model's cross-
// validated error on published end-to-end rows of the same task, scenario,
// workload family and vendor, as an 80 % range around each throughput and
// latency. `rooftop calibrate --bands-out` (or `validate --cv --bands`)
// computes the bands; the shipped table (data/validation/error-bands.csv) is
// what predictions carry. A band of few rows is shrunk toward the whole
// corpus (calibration.h, shrunk_range); a combination no row covers gets
// the corpus-wide band of its task, marked unvalidated. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/calibration.h"
#include "model/validate.h"

namespace rooftop::model {

// The 80 % range of measured / predicted speed (time rows inverted) of the
// rows of one (task, scenario, family, vendor), over `rows` rows checked in
// `precisions`. family and vendor "*": every row of the task (the fallback).
struct ErrorBand {
  std::string task, scenario, family, vendor;
  int rows = 0;
  double ratio_low = 1, ratio_high = 1;
  std::vector<std::string> precisions;   // compute precisions of those rows, sorted
};

// Bands of the cross-validated rows (`cv_ratio`: each row's calibrated
// speed ratio with its own system left out), sorted by task, scenario,
// family, vendor, plus one "*" band per task; each shrunk toward every row
// of its task by `shrink` rows' weight.
std::vector<ErrorBand> error_bands(const std::vector<CalRow>& rows, const std::vector<double>& cv_ratio,
                                   double shrink = 10);

// The CSV form (header task,scenario,family,vendor,rows,ratio_low,ratio_high,precisions)
// and its parser (errors name the line).
std::string error_bands_csv(const std::vector<ErrorBand>& bands);
Result<std::vector<ErrorBand>> parse_error_bands(std::string_view text, const std::string& name);

// A throughput or latency with its likely range.
struct Range {
  double low = 0, high = 0;
  std::string basis;       // "7 published inference rows of nvidia cnn workloads (measured / predicted 0.74-1.13)"
};
struct Sureness {
  std::optional<Range> throughput, latency_s;   // empty when no band covers the prediction
  bool unvalidated = true;
  std::string note;        // why unvalidated ("no published train row of amd decoder_llm workloads")
};
// The range of `throughput` and `latency_s` predicted for (task, scenario,
// family, vendor) at `precision`: throughput x [ratio_low, ratio_high],
// latency / [ratio_high, ratio_low]. Falls back to the band of another
// scenario of the same family and vendor (the one with most rows), then to
// the task's "*" band; both fallbacks, and a band none of whose rows was
// checked in `precision`, are unvalidated (the range is still given).
Sureness sureness(const std::vector<ErrorBand>& bands, std::string_view task, std::string_view scenario,
                  std::string_view family, std::string_view vendor, std::string_view precision, double throughput,
                  double latency_s);

}  // namespace rooftop::model

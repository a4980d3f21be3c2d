// How sure a prediction is (docs/model.md#ranges): the model's own measured
// error on published end-to-end rows of the same task, workload family and
// vendor, as a band around each throughput and latency. `rooftop validate
// --bands` computes the bands from measurement CSVs; the shipped table
// (data/validation/error-bands.csv) is what predictions carry. A combination
// no published row covers is marked unvalidated. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/validate.h"

namespace rooftop::model {

// The error of the predicted rows of one (task, family, vendor), as the
// ratio of the measured to the predicted throughput (time rows inverted:
// predicted / measured time), over `rows` rows at `precisions`.
struct ErrorBand {
  std::string task, family, vendor;
  int rows = 0;
  double ratio_low = 1, ratio_high = 1;
  std::vector<std::string> precisions;   // compute precisions of those rows, sorted
};

// Bands of the predicted end-to-end rows, sorted by task, family, vendor.
std::vector<ErrorBand> error_bands(const Validation& v);

// The CSV form (header task,family,vendor,rows,ratio_low,ratio_high,precisions)
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
// The range of `throughput` and `latency_s` predicted for (task, family,
// vendor) at `precision`: value x [min(ratio, 1), max(ratio, 1)] for
// throughput, the inverse for latency. Unvalidated when no band matches,
// or when none of the band's rows was checked in `precision` (the range is
// still given).
Sureness sureness(const std::vector<ErrorBand>& bands, std::string_view task, std::string_view family,
                  std::string_view vendor, std::string_view precision, double throughput, double latency_s);

}  // namespace rooftop::model

// Small text helpers shared by every module: "did you mean", splitting,
// number formatting with SI prefixes, and parsing of durations and sizes
// given on the command line ("7d", "500ms", "2GiB").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rooftop {

// Levenshtein edit distance (case-insensitive).
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `max` candidates closest to `query`: substring matches first, then
// by edit distance, dropping those too far away to be a plausible typo.
std::vector<std::string> closest_matches(std::string_view query,
                                         const std::vector<std::string>& candidates,
                                         std::size_t max = 3);

// "unknown accelerator 'h10'; did you mean: nvidia-h100-sxm5-80gb, ...?"
std::string did_you_mean(std::string_view what, std::string_view query,
                         const std::vector<std::string>& candidates);

std::vector<std::string> split(std::string_view s, char sep);
std::string trim(std::string_view s);
std::string to_lower(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);

// 1234567 -> "1.23 M" (SI, 3 significant digits); unit appended when given.
std::string si(double value, std::string_view unit = "");
// A bare number for tables, never in exponent notation: `digits`
// significant digits, whole numbers from 10^digits up (10210, 9378, 0.0123).
std::string plain(double value, int digits = 4);
// Money, one style everywhere: 30678 -> "$30.7 k", 950 -> "$950" (SI prefix,
// 3 significant digits); hourly rates 4.096 -> "$4.10/h" (cents below $100/h).
std::string usd(double value);
std::string usd_per_hour(double value);
// 1536 -> "1.50 KiB"
std::string iec_bytes(double bytes);
// 0.000123 -> "123 us"
std::string human_seconds(double seconds);

// "500ms", "1s", "2.5m", "6h", "7d", "1w" -> seconds. Bare numbers are seconds.
Result<double> parse_duration(std::string_view text);
// "2GiB", "512MiB", "1.5GB", "4096" -> bytes.
Result<double> parse_bytes(std::string_view text);
// Strict whole-number / real parsing (no trailing garbage).
std::optional<long long> parse_int(std::string_view text);
std::optional<double> parse_double(std::string_view text);

}  // namespace rooftop

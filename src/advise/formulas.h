// The advisor's formulas as small pure functions, so each one is unit-tested
// with hand-computed values: queueing (request batching, p99), stragglers
// (expected slowest of N workers), cost over a horizon, the Pareto front and
// the precision risk table. Derivations and sources: docs/advise.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/precision.h"
#include "workload/workload.h"

namespace rooftop::advise {

// Standard normal quantile, Acklam's rational approximation (|error| < 1.2e-9).
double normal_quantile(double p);

// Quantile q of an Erlang(k, rate) time (sum of k exponential gaps), by the
// Wilson-Hilferty approximation of chi-square(2k) / (2 rate). k = 0 gives 0.
double erlang_quantile(int k, double rate_per_s, double q);

// Serving one model replica that computes a batch of `batch_requests`
// requests in `service_s` (dynamic request batching, Poisson arrivals at
// `arrival_per_s`). docs/advise.md#queueing.
struct ServingLatency {
  double utilisation = 0;  // rho = arrival / capacity; >= 1 means unstable
  double fill_p99_s = 0;   // waiting for the batch to fill (0 with continuous batching)
  double queue_p99_s = 0;  // M/D/1 wait for the server, exponential-tail p99
  double p99_s = 0;        // fill + queue + service; infinity when rho >= 1
};
ServingLatency serving_latency(double batch_requests, double service_s, double arrival_per_s,
                               bool continuous_batching);

// Expected maximum of n iid standard normals (Blom's approximation
// Phi^-1((n - 0.375) / (n + 0.25))); 0 for n = 1.
double expected_max_normal(int n);
// Step-time multiplier when every step waits for the slowest of n workers
// whose step times have coefficient of variation `cv`: 1 + cv * E[max].
double straggler_factor(int n, double cv);

// Total cost of ownership over the horizon. Unknown inputs give unknown outputs.
struct TcoInput {
  int count = 1;
  std::optional<double> unit_price_usd;        // on-prem list price per device
  std::optional<double> cloud_usd_per_hour;    // per device
  std::optional<double> power_w;               // per device (TDP)
  bool cloud = false;
  double horizon_years = 3;
  double utilisation = 0.5;                    // fraction of the horizon busy (and rented, on cloud)
  double pue = 1.58;
  double energy_usd_per_kwh = 0.128;
  std::optional<double> amortisation_years;
};
struct TcoOutput {
  std::optional<double> capex_usd, energy_usd, cloud_usd, tco_usd, energy_kwh;
};
inline constexpr double kHoursPerYear = 8766;  // 365.25 days
TcoOutput tco(const TcoInput& in);

// The inverse of tco() for an unpriced part: the per-device price at which
// its TCO is `target_usd` (`in`'s own price is ignored): a list price in USD
// on-prem, a rate in USD per device-hour when `in.cloud`. Empty when no
// price gets there: energy alone costs more, or the TDP is unknown on-prem.
std::optional<double> price_for_tco(TcoInput in, double target_usd);

// Rent vs buy: the utilisation at which buying (capex + energy, both from
// `in`) costs what renting the same devices for the busy hours costs. Above
// it buying is cheaper. Empty when a price or the TDP is unknown, or when
// renting is cheaper at any utilisation (the hourly rate does not exceed the
// energy it saves). May exceed 1: buying never pays within the horizon.
std::optional<double> break_even_utilisation(TcoInput in);

// Pareto front of points to minimise in every coordinate: true where no
// other point is <= in all coordinates and < in one. Order-independent.
std::vector<bool> pareto_front(const std::vector<std::vector<double>>& points);

// What a precision risks for accuracy, and its score (1 = reference).
struct PrecisionRisk {
  double score = 1;
  std::string text;
};
PrecisionRisk precision_risk(Precision p, workload::Task task);

}  // namespace rooftop::advise

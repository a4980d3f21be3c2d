// The advisor's formulas (see formulas.h and docs/advise.md for sources).
#include "advise/formulas.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/model.h"

namespace rooftop::advise {

double normal_quantile(double p) {
  if (p <= 0) return -std::numeric_limits<double>::infinity();
  if (p >= 1) return std::numeric_limits<double>::infinity();
  return model::inverse_normal_cdf(p);
}

double erlang_quantile(int k, double rate_per_s, double q) {
  if (k <= 0) return 0;
  if (rate_per_s <= 0) return std::numeric_limits<double>::infinity();
  // Erlang(k, rate) = chi-square(2k) / (2 rate); Wilson-Hilferty (1931):
  // chi2_q(v) ~ v (1 - 2/(9v) + z_q sqrt(2/(9v)))^3.
  const double v = 2.0 * k;
  const double h = 2.0 / (9.0 * v);
  const double cube = 1 - h + normal_quantile(q) * std::sqrt(h);
  const double chi2 = v * std::max(0.0, cube * cube * cube);
  return chi2 / (2 * rate_per_s);
}

ServingLatency serving_latency(double batch_requests, double service_s, double arrival_per_s,
                               bool continuous_batching) {
  ServingLatency out;
  const double inf = std::numeric_limits<double>::infinity();
  if (batch_requests <= 0 || service_s <= 0) {
    out.p99_s = inf;
    return out;
  }
  const double capacity_per_s = batch_requests / service_s;
  out.utilisation = arrival_per_s / capacity_per_s;
  if (out.utilisation >= 1) {
    out.queue_p99_s = inf;
    out.p99_s = inf;
    return out;
  }
  const double rho = out.utilisation;
  // M/D/1 with one batch as the customer (continuous batching: one request
  // per slot, the server being batch_requests times faster per request).
  const double d = continuous_batching ? service_s / batch_requests : service_s;
  const double mean_wait_s = rho * d / (2 * (1 - rho));
  // P(W > 0) = rho; the conditional wait is about exponential with mean
  // E[W] / rho (Kingman's exponential tail), so P(W > t) = rho exp(-rho t / E[W]).
  out.queue_p99_s = rho > 0.01 ? mean_wait_s / rho * std::log(rho / 0.01) : 0;
  // The first request of a static batch waits for batch - 1 more arrivals.
  if (!continuous_batching && arrival_per_s > 0) {
    const int others = static_cast<int>(std::ceil(batch_requests - 1e-9)) - 1;
    out.fill_p99_s = erlang_quantile(others, arrival_per_s, 0.99);
  }
  out.p99_s = service_s + out.fill_p99_s + out.queue_p99_s;
  return out;
}

double expected_max_normal(int n) { return model::expected_max_standard_normal(n); }

double straggler_factor(int n, double cv) { return 1 + std::max(0.0, cv) * expected_max_normal(n); }

TcoOutput tco(const TcoInput& in) {
  TcoOutput out;
  const double hours = in.horizon_years * kHoursPerYear;
  if (in.power_w) {
    out.energy_kwh = *in.power_w * in.count * in.utilisation * hours * in.pue / 1000.0;
  }
  if (in.cloud) {
    if (in.cloud_usd_per_hour) {
      out.cloud_usd = *in.cloud_usd_per_hour * in.count * hours * in.utilisation;
      out.tco_usd = out.cloud_usd;
    }
    return out;
  }
  if (in.unit_price_usd) {
    double share = 1;
    if (in.amortisation_years && *in.amortisation_years > 0) {
      share = std::min(1.0, in.horizon_years / *in.amortisation_years);
    }
    out.capex_usd = *in.unit_price_usd * in.count * share;
  }
  if (out.energy_kwh) out.energy_usd = *out.energy_kwh * in.energy_usd_per_kwh;
  if (out.capex_usd && out.energy_usd) out.tco_usd = *out.capex_usd + *out.energy_usd;
  return out;
}

std::optional<double> price_for_tco(TcoInput in, double target_usd) {
  if (in.cloud) {
    in.cloud_usd_per_hour = 1;
    const std::optional<double> per_unit = tco(in).cloud_usd;  // the TCO of $1/h
    if (!per_unit || *per_unit <= 0) return std::nullopt;
    return target_usd / *per_unit;
  }
  in.unit_price_usd = 1;
  const TcoOutput at_one = tco(in);  // capex of $1 a device, and the energy
  if (!at_one.energy_usd || !at_one.capex_usd || *at_one.capex_usd <= 0) return std::nullopt;
  const double left = target_usd - *at_one.energy_usd;
  if (left <= 0) return std::nullopt;
  return left / *at_one.capex_usd;
}

std::optional<double> break_even_utilisation(TcoInput in) {
  if (!in.unit_price_usd || !in.cloud_usd_per_hour || !in.power_w) return std::nullopt;
  in.utilisation = 1;
  in.cloud = false;
  const TcoOutput buy = tco(in);   // capex, and the energy of a fully busy horizon
  in.cloud = true;
  const TcoOutput rent = tco(in);  // renting for the whole horizon
  const double saved = *rent.cloud_usd - *buy.energy_usd;  // per unit of utilisation
  if (saved <= 0) return std::nullopt;
  return *buy.capex_usd / saved;
}

std::vector<bool> pareto_front(const std::vector<std::vector<double>>& points) {
  std::vector<bool> front(points.size(), true);
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t j = 0; j < points.size() && front[i]; ++j) {
      if (i == j) continue;
      bool all_le = true, one_lt = false;
      for (std::size_t k = 0; k < points[i].size(); ++k) {
        if (points[j][k] > points[i][k]) all_le = false;
        if (points[j][k] < points[i][k]) one_lt = true;
      }
      if (all_le && one_lt) front[i] = false;
    }
  }
  return front;
}

PrecisionRisk precision_risk(Precision p, workload::Task task) {
  const bool train = task == workload::Task::train;
  switch (p) {
    case Precision::fp64:
    case Precision::fp32: return {1.0, "reference precision: no accuracy risk"};
    case Precision::tf32:
      return {0.95, "tf32 rounds matmul inputs to a 10-bit mantissa; accumulates in fp32 (matches fp32 "
                    "accuracy in NVIDIA's A100 studies)"};
    case Precision::bf16:
      return {0.9, train ? "bf16 keeps fp32's range (no loss scaling) with an 8-bit mantissa; keep "
                           "LayerNorm/softmax and the master weights in fp32"
                         : "bf16 has an 8-bit mantissa; keep LayerNorm/softmax in fp32"};
    case Precision::fp16:
      return {train ? 0.8 : 0.9,
              train ? "fp16 overflows above 65504: train with dynamic loss scaling (initial scale 2^16), "
                      "keep LayerNorm/softmax and master weights in fp32"
                    : "fp16 overflows above 65504: keep LayerNorm/softmax in fp32 and compare the accuracy "
                      "with fp32 on your own validation data"};
    case Precision::fp8:
      return {0.7, "fp8 needs per-tensor scaling (e.g. Transformer Engine) and calibration; validate "
                   "accuracy on held-out data"};
    case Precision::int8:
      return {0.7, "int8 post-training quantisation needs calibration data; validate accuracy (keep "
                   "LayerNorm/softmax in higher precision)"};
    case Precision::int4:
    case Precision::fp4:
      return {0.4, "4-bit formats need quantisation-aware methods (GPTQ/AWQ-style); expect measurable "
                   "accuracy loss"};
  }
  return {0.5, "unknown precision"};
}

}  // namespace rooftop::advise

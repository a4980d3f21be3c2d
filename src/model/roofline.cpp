// The per-operator roofline, collectives (ring all-reduce, bus bandwidth,
// the usual eta), straggler order statistics, and single kernels priced on
// their own (GEMM, STREAM, all-reduce, copy) for `rooftop validate`.
// Formulas and sources: docs/model.md.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/text.h"
#include "model/efficiency.h"
#include "model/internal.h"

namespace rooftop::model {

namespace detail {

OpCost op_cost(const workload::Operator& op, double batch, const PrecisionMix& p, const catalog::Accelerator& a,
               const Efficiency& e, double shard, bool fused) {
  const Precision math = p.math(op.kind == workload::OpKind::matmul || op.kind == workload::OpKind::conv);
  const double peak = a.peak(math).or_else(0);
  const double bw = a.memory_bytes_per_s.or_else(0);
  ROOFTOP_ASSERT(peak > 0 && bw > 0 && e.compute > 0 && e.memory > 0 && shard >= 1);
  // Per-operator efficiency: GEMM shape, fused attention, gathers (efficiency.h).
  const OpEfficiency oe = op_efficiency(op, batch, shard, math, a, e);
  OpCost c;
  c.flops = workload::op_flops(op, batch) * op.repeat / shard;
  c.bytes = fused ? 0 : workload::op_bytes(op, batch, p.weights, p.compute, p.kv) * op.repeat / shard;
  if (!fused && op.batch_statistics && e.batch_norm_reread) {
    // The normalizing pass reads the input again; from DRAM unless one
    // instance's input fits the last-level cache (docs/model.md#batch-norm).
    const double input = batch * op.in_elems * bytes_per_element(p.compute) / shard;
    if (input > a.sram_bytes.or_else(0)) c.bytes += input * op.repeat;
  }
  c.compute_s = c.flops / (peak * oe.compute);
  c.memory_s = c.bytes / (bw * oe.memory);
  c.overhead_s = fused ? 0 : op.repeat * e.op_overhead_s;
  const double roof_s = std::max(c.compute_s, c.memory_s);
  c.time_s = roof_s + c.overhead_s;
  c.bound = c.overhead_s > roof_s ? Bound::overhead : c.compute_s >= c.memory_s ? Bound::compute : Bound::memory;
  return c;
}

bool fused_in_inference(const workload::Operator& op, workload::Family family) {
  return (op.kind == workload::OpKind::elementwise && !op.own_kernel) ||
         workload::is_batch_norm(op, family);
}

Result<LinkChoice> collective_link(const catalog::Accelerator& a) {
  LinkChoice c;
  if (a.scale_up.bytes_per_s_per_direction.known() && *a.scale_up.bytes_per_s_per_direction.value > 0) {
    c.name = a.scale_up.name.empty() ? "scale-up link" : a.scale_up.name;
    c.peak_bytes_per_s = *a.scale_up.bytes_per_s_per_direction.value;
    // A full mesh (AMD Infinity Fabric boards, Gaudi's RoCE ports, Ascend
    // HCCS): the catalog's figure is the sum over `peers` direct links.
    if (a.domain.topology == catalog::Topology::full_mesh) c.peers = std::max(1.0, a.domain.peers.or_else(1));
    return c;
  }
  if (a.host.bytes_per_s_per_direction.known() && *a.host.bytes_per_s_per_direction.value > 0) {
    c.name = a.host.name.empty() ? "host link" : a.host.name;
    c.peak_bytes_per_s = *a.host.bytes_per_s_per_direction.value;
    return c;
  }
  return make_error(Errc::unsupported,
                    "the catalog knows neither a scale-up nor a host link bandwidth for '" + a.id +
                        "', so communication between devices cannot be priced",
                    a.id);
}

double ring_bytes_per_s(const LinkChoice& link, int n) {
  if (link.peers <= 1) return link.peak_bytes_per_s;
  return link.peak_bytes_per_s * std::min<double>(n - 1, link.peers) / link.peers;
}

Result<Fabric> fabric_for(const catalog::Accelerator& a, const Efficiency& e) {
  Result<LinkChoice> up = collective_link(a);
  if (!up) return make_error(up.error());
  Fabric f;
  f.up = *up;
  f.link_efficiency = e.link;
  f.up_latency_s = a.domain.latency_s.known() ? *a.domain.latency_s.value : e.link_latency_s;
  if (a.domain.topology == catalog::Topology::torus_2d) f.torus_dims = 2;
  if (a.domain.topology == catalog::Topology::torus_3d) f.torus_dims = 3;
  if (a.scale_up.bytes_per_s_per_direction.known()) f.domain = static_cast<int>(a.domain.devices.or_else(0));
  else f.domain = static_cast<int>(a.devices_per_node.or_else(0));  // PCIe-only parts: one server
  if (a.scale_out.bytes_per_s_per_direction.known() && *a.scale_out.bytes_per_s_per_direction.value > 0) {
    f.out_name = a.scale_out.name.empty() ? "scale-out network" : a.scale_out.name;
    f.out_bytes_per_s = *a.scale_out.bytes_per_s_per_direction.value;
    f.out_latency_s = a.scale_out_latency_s.or_else(kNetworkLatencyS);
  }
  return f;
}

int ranks_per_domain(int n, int stride, const Fabric& f) {
  if (f.domain <= 0) return n;                  // one domain holds everything
  if (stride >= f.domain) return 1;
  return std::max(1, std::min(n, f.domain / std::max(1, stride)));
}

namespace {
// Latency steps of one ring pass over n ranks: n - 1, or on a torus of
// `dims` dimensions, one ring per dimension of k = ceil(n^(1/dims)) ranks
// each, dims x (k - 1) (docs/model.md#collectives).
double ring_steps(int n, int dims) {
  const double flat = n - 1.0;
  if (dims <= 1) return flat;
  const double k = std::ceil(std::pow(double(n), 1.0 / dims) - 1e-9);
  return std::min(flat, dims * (k - 1));
}

// One flat collective over n ranks at `bw` bytes/s per rank and `lat` per step.
double flat_s(Collective c, double bytes, int n, double bw, double lat, bool tree_ok, int torus_dims = 0) {
  if (n <= 1 || bytes <= 0) return 0;
  const double frac = double(n - 1) / n;
  const double steps = ring_steps(n, torus_dims);
  switch (c) {
    case Collective::all_reduce: {
      // Ring: 2 (n-1)/n S / B + 2 (n-1) alpha. NCCL switches to a (double
      // binary) tree when the latency term dominates: 2 log2(n) alpha.
      double ar_steps = 2.0 * steps;
      if (tree_ok) ar_steps = std::min(ar_steps, 2.0 * std::ceil(std::log2(n)));
      return 2 * frac * bytes / bw + ar_steps * lat;
    }
    case Collective::reduce_scatter:
    case Collective::all_gather: return frac * bytes / bw + steps * lat;
    case Collective::all_to_all: return frac * bytes / bw + (n - 1) * lat;  // every pair, no per-dimension rings
    case Collective::p2p: return bytes / bw + lat;
  }
  return 0;
}
}  // namespace

double collective_s(Collective c, double bytes, int n, int stride, const Fabric& f) {
  if (n <= 1 || bytes <= 0) return 0;
  const int local = ranks_per_domain(n, stride, f);
  const double up_bw = ring_bytes_per_s(f.up, local) * f.link_efficiency;
  if (local >= n) return flat_s(c, bytes, n, up_bw, f.up_latency_s, false, f.torus_dims);
  // Across domains. Without a known scale-out network the scale-up figures
  // stand in (docs/model.md#collectives says so in the prediction's notes).
  const double out_bw = (f.out_bytes_per_s > 0 ? f.out_bytes_per_s : f.up.peak_bytes_per_s) * f.link_efficiency;
  const double out_lat = f.out_bytes_per_s > 0 ? f.out_latency_s : f.up_latency_s;
  const int across = n / local;
  if (c == Collective::p2p) return flat_s(c, bytes, 2, out_bw, out_lat, false);
  if (c == Collective::all_to_all) {
    // Each rank sends 1/n of its buffer to every other rank: (local - 1) of
    // those parts stay inside the domain, (n - local) cross it.
    return bytes * (local - 1.0) / n / up_bw + (local - 1) * f.up_latency_s + bytes * double(n - local) / n / out_bw +
           (across - 1) * out_lat;
  }
  // Hierarchical: reduce-scatter inside the domain, the collective across
  // domains on 1/local of the buffer (each local rank on its own NIC), then
  // all-gather inside. NCCL and HCCL pipeline the two levels (chunks move
  // across while the next ones are reduced inside), so the slower level sets
  // the time; each level's latency is paid once.
  double inside = 0;
  if (c == Collective::all_reduce)
    inside = flat_s(Collective::reduce_scatter, bytes, local, up_bw, f.up_latency_s, false) +
             flat_s(Collective::all_gather, bytes, local, up_bw, f.up_latency_s, false);
  else
    inside = flat_s(c, bytes, local, up_bw, f.up_latency_s, false);
  const double across_s = flat_s(c, bytes / local, across, out_bw, out_lat, true);
  return std::max(inside, across_s);
}

std::string precision_list(const catalog::Accelerator& a) {
  std::string s;
  for (Precision p : a.precisions()) s += (s.empty() ? "" : ", ") + std::string(to_string(p));
  return s.empty() ? "none known" : s;
}

Result<void> check_device(const catalog::Accelerator& a, Precision p) {
  if (!a.supports(p)) {
    // The entry's own reason when it gives one ("NVIDIA publishes no FP16 rate for ...").
    const std::string& why = a.peak(p).missing_reason;
    return make_error(Errc::unsupported,
                      "'" + a.id + "' has no " + std::string(to_string(p)) + " peak in the catalog" +
                          (why.empty() ? "" : " (" + why + ")") + "; it has: " + precision_list(a),
                      "--precision");
  }
  if (!a.memory_bytes_per_s.known() || *a.memory_bytes_per_s.value <= 0) {
    return make_error(Errc::unsupported,
                      "the memory bandwidth of '" + a.id + "' is unknown in the catalog; the roofline needs it",
                      a.id);
  }
  if (!a.memory_bytes.known() || *a.memory_bytes.value <= 0) {
    return make_error(Errc::unsupported,
                      "the memory capacity of '" + a.id + "' is unknown in the catalog; cannot check the fit",
                      a.id);
  }
  return {};
}

}  // namespace detail

OpPrediction roofline(const workload::Operator& op, double batch, Precision p, const catalog::Accelerator& a,
                      const Efficiency& e) {
  detail::OpCost c = detail::op_cost(op, batch, p, a, e, 1);
  OpPrediction out;
  out.name = op.name;
  out.kind = op.kind;
  out.phase = op.phase;
  out.flops = c.flops;
  out.bytes = c.bytes;
  out.intensity = c.bytes > 0 ? c.flops / c.bytes : 0;
  out.time_s = c.time_s;
  out.bound = c.bound;
  out.share = 1;
  return out;
}

double ring_allreduce_s(double bytes, int n, double link_bytes_per_s, double latency_s) {
  if (n <= 1 || bytes <= 0) return 0;
  return 2.0 * (n - 1) / n * bytes / link_bytes_per_s + 2.0 * (n - 1) * latency_s;
}

double bandwidth_utilisation(int n, double effective_bytes_per_s, double max_bytes_per_s) {
  if (n <= 1 || max_bytes_per_s <= 0) return 0;
  return static_cast<double>(n - 1) / n * effective_bytes_per_s / max_bytes_per_s;
}

double allreduce_busbw(double bytes, int n, double time_s) {
  if (n <= 1 || time_s <= 0) return 0;
  return bytes / time_s * 2.0 * (n - 1) / n;
}

double inverse_normal_cdf(double q) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  if (q < lo) {
    double t = std::sqrt(-2 * std::log(q));
    return (((((c[0] * t + c[1]) * t + c[2]) * t + c[3]) * t + c[4]) * t + c[5]) /
           ((((d[0] * t + d[1]) * t + d[2]) * t + d[3]) * t + 1);
  }
  if (q > 1 - lo) return -inverse_normal_cdf(1 - q);
  double r = q - 0.5, s = r * r;
  return (((((a[0] * s + a[1]) * s + a[2]) * s + a[3]) * s + a[4]) * s + a[5]) * r /
         (((((b[0] * s + b[1]) * s + b[2]) * s + b[3]) * s + b[4]) * s + 1);
}

double expected_max_standard_normal(int n) {
  if (n <= 1) return 0;
  return inverse_normal_cdf((n - 0.375) / (n + 0.25));
}

double straggler_factor(int n, double cv) { return 1 + std::max(0.0, cv) * expected_max_standard_normal(n); }

Result<double> gemm_flop_per_s(const catalog::Accelerator& a, Precision p, double m, double n, double k) {
  if (!a.supports(p)) {
    return make_error(Errc::unsupported, "'" + a.id + "' has no " + std::string(to_string(p)) +
                                             " peak in the catalog; it has: " + detail::precision_list(a));
  }
  if (!a.memory_bytes_per_s.known()) {
    return make_error(Errc::unsupported, "the memory bandwidth of '" + a.id + "' is unknown in the catalog");
  }
  workload::Operator op;
  op.kind = workload::OpKind::matmul;
  op.flops = 2 * m * n * k;
  op.weight_elems = k * n;
  op.in_elems = m * k;
  op.out_elems = m * n;
  OpPrediction r = roofline(op, 1, p, a, efficiency_for(a));
  return r.flops / r.time_s;
}

Result<double> stream_bytes_per_s(const catalog::Accelerator& a, double bytes) {
  if (!a.memory_bytes_per_s.known()) {
    return make_error(Errc::unsupported, "the memory bandwidth of '" + a.id + "' is unknown in the catalog");
  }
  Efficiency e = efficiency_for(a);
  double time_s = bytes / (*a.memory_bytes_per_s.value * e.memory) + e.op_overhead_s;
  return bytes / time_s;
}

Result<double> allreduce_busbw_bytes_per_s(const catalog::Accelerator& a, int n, double bytes) {
  if (n < 2) return make_error(Errc::invalid_input, "an all-reduce needs at least 2 devices");
  Result<detail::Fabric> f = detail::fabric_for(a, efficiency_for(a));
  if (!f) return make_error(f.error());
  return allreduce_busbw(bytes, n, detail::collective_s(detail::Collective::all_reduce, bytes, n, 1, *f));
}

Result<double> copy_bytes_per_s(const catalog::Accelerator& a, bool bidirectional) {
  Result<detail::LinkChoice> link = detail::collective_link(a);
  if (!link) return make_error(link.error());
  double one_way = detail::ring_bytes_per_s(*link, 2) * efficiency_for(a).link;
  return bidirectional ? 2 * one_way : one_way;
}

RooflineAnalysis analyse_roofline(const std::vector<workload::Operator>& ops, double batch, Precision p,
                                  const catalog::Accelerator& a, const Efficiency& e) {
  RooflineAnalysis r;
  for (const workload::Operator& op : ops) {
    OpPrediction pr = roofline(op, batch, p, a, e);
    r.total_s += pr.time_s;
    r.flops += pr.flops;
    r.bytes += pr.bytes;
    r.bound_s[static_cast<std::size_t>(pr.bound)] += pr.time_s;
    r.ops.push_back(std::move(pr));
  }
  for (OpPrediction& pr : r.ops) pr.share = r.total_s > 0 ? pr.time_s / r.total_s : 0;
  return r;
}

std::vector<bool> RooflineAnalysis::memory_bound() const {
  std::vector<bool> out;
  for (const OpPrediction& op : ops) out.push_back(op.bound != Bound::compute);
  return out;
}

void price_fusions(RooflineAnalysis& r, std::vector<FusionOption> options, double batch, Precision p,
                   const catalog::Accelerator& a, const Efficiency& e) {
  for (FusionOption& c : options) {
    if (c.anchor >= r.ops.size()) continue;
    PricedFusion f;
    f.before_s = r.ops[c.anchor].time_s;
    for (std::size_t j : c.chain)
      if (j < r.ops.size()) f.before_s += r.ops[j].time_s;
    f.after_s = roofline(c.fused, batch, p, a, e).time_s;
    if (f.after_s >= f.before_s) continue;
    r.saved_s += f.before_s - f.after_s;
    f.option = std::move(c);
    r.fusions.push_back(std::move(f));
  }
  std::sort(r.fusions.begin(), r.fusions.end(), [](const PricedFusion& x, const PricedFusion& y) {
    return x.before_s - x.after_s > y.before_s - y.after_s;
  });
}

}  // namespace rooftop::model

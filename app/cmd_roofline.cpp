// `rooftop roofline`: every operator of a model on one accelerator's
// roofline (model::roofline): its arithmetic intensity, whether compute,
// memory or launch overhead bounds it, and its share of the time; the
// fusion candidates (memory-bound element-wise/normalisation chains after a
// GEMM or convolution, onnx::find_fusions) with the time fusing would save;
// and, with --svg, the roofline chart with one point per operator.
// ONNX files keep their real graph edges for fusion; zoo and YAML models
// are chained in operator order.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "command.h"
#include "core/text.h"
#include "inputs.h"
#include "model/model.h"
#include "onnx/onnx.h"
#include "report/report.h"

namespace rooftop::app {
namespace {

using nlohmann::json;

struct RooflineOptions {
  std::string model, accelerator, precision, svg;
  std::optional<int> batch, seq;
  std::vector<std::string> inputs;
  int top = 20;
  bool json = false;
};

// A model with its graph: real edges for ONNX, operator order otherwise.
struct Graph {
  workload::Workload workload;
  std::vector<std::string> op_types;
  onnx::Adjacency adjacency;
  std::int64_t batch = 1;
};

using Analysis = model::RooflineAnalysis;
using Fusion = model::PricedFusion;

Result<Graph> load_graph(const RooflineOptions& o) {
  WorkloadInputs in;
  in.onnx_inputs = o.inputs;
  in.onnx_batch = o.batch;
  in.build.seq_len = o.seq;
  Graph gr;
  if (o.model.size() > 5 && to_lower(o.model.substr(o.model.size() - 5)) == ".onnx") {
    Result<onnx::ImportOptions> opts = onnx_options(in);
    if (!opts) return make_error(opts.error());
    Result<onnx::ImportedModel> m = onnx::import_file(o.model, *opts);
    if (!m) return make_error(m.error());
    gr.workload = std::move(m->workload);
    gr.op_types = std::move(m->op_types);
    gr.adjacency = {std::move(m->producers), std::move(m->consumer_count)};
    gr.batch = m->batch;
    return gr;
  }
  if (!o.inputs.empty()) return make_error(Errc::invalid_input, "input shapes apply to ONNX models only", "--input");
  Result<workload::Workload> w = load_workload(o.model, in);
  if (!w) return make_error(w.error());
  gr.workload = std::move(*w);
  for (const workload::Operator& op : gr.workload.ops) gr.op_types.emplace_back(workload::to_string(op.kind));
  gr.adjacency = onnx::sequential_graph(gr.workload.ops.size());
  gr.batch = o.batch.value_or(1);
  return gr;
}

// The model's roofline of the graph, and the fusions the graph allows
// (onnx::find_fusions) priced by it.
Analysis analyse(const Graph& gr, double batch, Precision p, const catalog::Accelerator& a, const model::Efficiency& e) {
  Analysis r = model::analyse_roofline(gr.workload.ops, batch, p, a, e);
  std::vector<model::FusionOption> options;
  for (onnx::FusionCandidate& c :
       onnx::find_fusions(gr.workload.ops, gr.adjacency.producers, gr.adjacency.consumer_count, r.memory_bound()))
    options.push_back({c.anchor, std::move(c.chain), std::move(c.fused)});
  model::price_fusions(r, std::move(options), batch, p, a, e);
  return r;
}

std::string svg_chart(const Graph& gr, const Analysis& r, Precision p, const catalog::Accelerator& a,
                      const model::Efficiency& e) {
  const double peak = *a.peak(p).value, bw = *a.memory_bytes_per_s.value;
  report::RooflineChart c;
  c.title = fmt::format("{} on {} ({}): one point per operator", gr.workload.name, a.id, to_string(p));
  c.ceilings.push_back({fmt::format("achievable: {} x {:.2f}, {} x {:.2f}", si(peak, "FLOP/s"), e.compute,
                                    si(bw, "B/s"), e.memory), peak * e.compute, bw * e.memory});
  c.ceilings.push_back({fmt::format("{} peak {}, memory {}", to_string(p), si(peak, "FLOP/s"), si(bw, "B/s")), peak, bw});
  std::vector<bool> fused(r.ops.size(), false);
  for (const Fusion& f : r.fusions) {
    for (std::size_t j : f.option.chain) fused[j] = true;
  }
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const model::OpPrediction& o = r.ops[i];
    if (o.flops <= 0 || o.time_s <= 0 || o.bytes <= 0) continue;
    c.points.push_back({o.name, o.intensity, o.flops / o.time_s, fused[i]});
  }
  return report::svg_roofline(c);
}

json analysis_json(const Graph& gr, const Analysis& r, const RooflineOptions& o, double batch, Precision p,
                   const catalog::Accelerator& a, const model::Efficiency& e) {
  const double peak = *a.peak(p).value, bw = *a.memory_bytes_per_s.value;
  json ops = json::array();
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const model::OpPrediction& x = r.ops[i];
    ops.push_back({{"name", x.name}, {"op_type", gr.op_types[i]}, {"kind", std::string(workload::to_string(x.kind))},
                   {"phase", std::string(workload::to_string(x.phase))}, {"flops", x.flops}, {"bytes", x.bytes},
                   {"intensity_flop_per_byte", x.intensity}, {"bound", std::string(model::to_string(x.bound))},
                   {"time_s", x.time_s}, {"share", x.share}});
  }
  json fusions = json::array();
  for (const Fusion& f : r.fusions) {
    json chain = json::array();
    for (std::size_t j : f.option.chain) chain.push_back(r.ops[j].name);
    fusions.push_back({{"anchor", r.ops[f.option.anchor].name}, {"chain", chain}, {"time_before_s", f.before_s},
                       {"time_after_s", f.after_s}, {"time_saved_s", f.before_s - f.after_s},
                       {"share_saved", r.total_s > 0 ? (f.before_s - f.after_s) / r.total_s : 0}});
  }
  return {{"model", gr.workload.id},
          {"accelerator", a.id},
          {"precision", std::string(to_string(p))},
          {"batch", batch},
          {"peak_flop_per_s", peak},
          {"memory_bytes_per_s", bw},
          {"ridge_flop_per_byte", peak / bw},
          {"efficiency", {{"compute", e.compute}, {"memory", e.memory}, {"op_overhead_s", e.op_overhead_s}, {"source", e.source}}},
          {"total", {{"time_s", r.total_s}, {"flops", r.flops}, {"bytes", r.bytes},
                     {"intensity_flop_per_byte", r.bytes > 0 ? r.flops / r.bytes : 0}}},
          {"time_by_bound_s", {{"compute", r.bound_s[0]}, {"memory", r.bound_s[1]}, {"overhead", r.bound_s[2]}}},
          {"ops", ops},
          {"fusion", {{"candidates", fusions}, {"time_saved_s", r.saved_s}}},
          {"unsupported_ops", gr.workload.unsupported_ops},
          {"svg", o.svg.empty() ? json(nullptr) : json(o.svg)}};
}

std::string analysis_text(const Graph& gr, const Analysis& r, int top, double batch, Precision p,
                          const catalog::Accelerator& a, const model::Efficiency& e) {
  const double peak = *a.peak(p).value, bw = *a.memory_bytes_per_s.value;
  auto pct = [&](double s) { return fmt::format("{:.1f} %", r.total_s > 0 ? 100 * s / r.total_s : 0); };
  std::string out = fmt::format("roofline of {} on {}, {}, batch {}\n", gr.workload.id, a.id, to_string(p), plain(batch));
  out += fmt::format("peak {}, memory {}: ridge point {} FLOP/byte; efficiency compute {:.2f}, memory {:.2f}, "
                     "{} per operator ({})\n",
                     si(peak, "FLOP/s"), si(bw, "B/s"), plain(peak / bw), e.compute, e.memory, human_seconds(e.op_overhead_s),
                     e.source);
  out += fmt::format("total {} for {}, {}, {} FLOP/byte; time compute-bound {}, memory-bound {}, overhead-bound {}\n",
                     human_seconds(r.total_s), si(r.flops, "FLOP"), si(r.bytes, "B"), plain(r.bytes > 0 ? r.flops / r.bytes : 0),
                     pct(r.bound_s[0]), pct(r.bound_s[1]), pct(r.bound_s[2]));
  std::vector<std::size_t> order(r.ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return r.ops[x].time_s > r.ops[y].time_s; });
  report::Table t;
  t.headers = {"op", "type", "kind", "FLOPs", "bytes", "FLOP/byte", "bound", "time", "share"};
  t.align = {report::Align::left, report::Align::left, report::Align::left, report::Align::right, report::Align::right,
             report::Align::right, report::Align::left, report::Align::right, report::Align::right};
  std::size_t shown = top <= 0 ? order.size() : std::min<std::size_t>(order.size(), static_cast<std::size_t>(top));
  for (std::size_t k = 0; k < shown; ++k) {
    const model::OpPrediction& x = r.ops[order[k]];
    t.rows.push_back({x.name, gr.op_types[order[k]], std::string(workload::to_string(x.kind)), si(x.flops), si(x.bytes),
                      plain(x.intensity), std::string(model::to_string(x.bound)), human_seconds(x.time_s), pct(x.time_s)});
  }
  out += fmt::format("\ntop {} of {} operators by time:\n", shown, r.ops.size()) + t.render_text();
  if (r.fusions.empty()) {
    out += "\nfusion: no memory-bound element-wise/normalisation chain follows a GEMM or convolution\n";
  } else {
    report::Table f;
    f.headers = {"anchor", "fused into its epilogue", "before", "after", "saves"};
    f.align = {report::Align::left, report::Align::left, report::Align::right, report::Align::right, report::Align::right};
    for (std::size_t k = 0; k < r.fusions.size() && (top <= 0 || k < static_cast<std::size_t>(top)); ++k) {
      const Fusion& x = r.fusions[k];
      std::string chain;
      for (std::size_t j : x.option.chain) chain += (chain.empty() ? "" : ", ") + r.ops[j].name;
      f.rows.push_back({r.ops[x.option.anchor].name, chain, human_seconds(x.before_s), human_seconds(x.after_s),
                        human_seconds(x.before_s - x.after_s)});
    }
    out += fmt::format("\nfusion: {} candidates would save {} ({} of the time):\n", r.fusions.size(),
                       human_seconds(r.saved_s), pct(r.saved_s)) + f.render_text();
  }
  if (!gr.workload.unsupported_ops.empty()) {
    out += "\nnot priced (listed, not counted as zero):\n";
    for (const std::string& u : gr.workload.unsupported_ops) out += "  " + u + "\n";
  }
  return out;
}

int run_roofline(const RooflineOptions& o, const GlobalOptions& global) {
  if (o.batch && *o.batch <= 0) return report_error({Errc::invalid_input, "must be a positive whole number", "--batch"});
  Result<catalog::Catalog> cat = load_catalog(global);
  if (!cat) return report_error(cat.error());
  Result<const catalog::Accelerator*> acc = cat->get(o.accelerator);
  if (!acc) {
    Error e = acc.error();
    if (e.context.empty()) e.context = "--accelerator";
    return report_error(e);
  }
  const catalog::Accelerator& a = **acc;
  Precision p = Precision::fp16;
  if (!o.precision.empty()) {
    std::optional<Precision> parsed = parse_precision(o.precision);
    if (!parsed) return report_error({Errc::invalid_input, "unknown precision '" + o.precision + "'", "--precision"});
    p = *parsed;
  } else {
    Result<Precision> d = model::default_precision(a, workload::Task::infer);
    if (!d) return report_error(d.error());
    p = *d;
  }
  if (!a.supports(p)) {
    std::string have;
    for (Precision x : a.precisions()) have += (have.empty() ? "" : ", ") + std::string(to_string(x));
    return report_error({Errc::unsupported, fmt::format("'{}' has no {} peak in the catalog; it has: {}", a.id,
                                                        to_string(p), have.empty() ? "none known" : have), "--precision"});
  }
  if (!a.memory_bytes_per_s.known() || *a.memory_bytes_per_s.value <= 0) {
    return report_error({Errc::unsupported, "its memory bandwidth is unknown in the catalog; the roofline needs it", a.id});
  }
  Result<Graph> gr = load_graph(o);
  if (!gr) {
    Error e = gr.error();
    if (e.context.empty()) e.context = o.model;
    return report_error(e);
  }
  const double batch = static_cast<double>(o.batch.value_or(static_cast<int>(gr->batch)));
  const model::Efficiency e = model::efficiency_for(a);
  Analysis r = analyse(*gr, batch, p, a, e);
  if (!o.svg.empty()) {
    std::ofstream f(o.svg, std::ios::binary);
    f << svg_chart(*gr, r, p, a, e);
    if (!f) return report_error({Errc::io, "cannot write the chart", o.svg});
  }
  std::string text = o.json ? analysis_json(*gr, r, o, batch, p, a, e).dump(2) + "\n"
                            : analysis_text(*gr, r, o.top, batch, p, a, e);
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

}  // namespace

Command add_roofline_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<RooflineOptions>();
  CLI::App* sub = app.add_subcommand(
      "roofline",
      "Per-operator roofline of a model on one accelerator: each operator's arithmetic intensity\n"
      "(FLOP/byte), its bound (compute, memory or launch overhead) and share of the time, plus the\n"
      "fusion candidates - memory-bound element-wise/normalisation chains after a GEMM or convolution -\n"
      "with the time fusing them would save. MODEL is a zoo id, a model YAML or an ONNX file; ONNX\n"
      "graphs are shaped with --input/--batch and fused along their real edges (docs/onnx.md).");
  sub->add_option("model", o->model, "Zoo id, model YAML or ONNX file")->required();
  sub->add_option("--accelerator", o->accelerator, "Catalog id or alias (see `rooftop catalog list`)")->required();
  sub->add_option("--precision", o->precision, "fp32, tf32, fp16, bf16, fp8, int8, ... (default: fastest for inference)");
  sub->add_option("--batch", o->batch, "Batch size (ONNX: also the symbolic batch dimension; default: the model's, or 1)");
  sub->add_option("--input", o->inputs, "ONNX input shape NAME=DIMxDIM... (repeatable), e.g. input=1x3x224x224")
      ->type_name("NAME=SHAPE");
  sub->add_option("--seq", o->seq, "Sequence length (zoo encoders)");
  sub->add_option("--svg", o->svg, "Write the roofline chart (one point per operator) to FILE")->type_name("FILE");
  sub->add_option("--top", o->top, "Operators and fusion candidates listed (default 20, 0 = all)");
  sub->add_flag("--json", o->json, "Machine-readable output (every operator, fusion candidates, totals)");
  sub->footer(
      "Examples:\n"
      "  rooftop roofline resnet50 --accelerator nvidia-t4 --svg resnet50-t4.svg\n"
      "  rooftop roofline model.onnx --accelerator h100 --input input_ids=1x384 --precision fp16\n"
      "  rooftop roofline bert-base --accelerator nvidia-a10 --batch 8 --json");
  return {sub, [o, &global] { return run_roofline(*o, global); }};
}

}  // namespace rooftop::app

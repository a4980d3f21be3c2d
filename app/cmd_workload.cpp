// `rooftop workload list|show`: the model zoo and custom models as the
// performance model sees them — parameters, FLOPs and bytes per sample (per
// generated token for LLM decode, per prompt for prefill), arithmetic
// intensity, memory footprint and the per-operator breakdown at a shape,
// batch, precision and task. Counting rules: docs/workloads.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "command.h"
#include "core/text.h"
#include "inputs.h"
#include "jobs.h"
#include "model/model.h"
#include "report/report.h"
#include "workload/workload.h"

namespace rooftop::app {
namespace {

using nlohmann::json;
using workload::Operator;
using workload::Phase;
using workload::Workload;

using ShowOptions = WorkloadShowOptions;

// What one unit of a phase is.
std::string per_unit(Phase p, const Workload& w) {
  if (p == Phase::decode) return "token";
  if (p == Phase::prefill) return "prompt";
  return workload::generates_tokens(w) ? "sequence" : "sample";
}

struct PhaseTotals {
  Phase phase;
  workload::Totals per_sample;  // at the batch, divided by it
};

std::vector<PhaseTotals> phase_totals(const std::vector<Operator>& ops, double batch, Precision p) {
  std::vector<PhaseTotals> out;
  for (Phase ph : {Phase::forward, Phase::prefill, Phase::decode, Phase::backward, Phase::optimizer}) {
    std::vector<Operator> sel;
    for (const Operator& op : ops)
      if (op.phase == ph) sel.push_back(op);
    if (sel.empty()) continue;
    workload::Totals t = workload::totals(sel, batch, p);
    t.flops /= batch;
    t.bytes /= batch;
    out.push_back({ph, t});
  }
  return out;
}

// Headline figures: LLM inference reports decode per generated token (the
// throughput unit); training sums every phase per sample.
workload::Totals headline(const std::vector<PhaseTotals>& phases, bool llm_infer) {
  workload::Totals t;
  for (const PhaseTotals& p : phases) {
    if (llm_infer && p.phase != Phase::decode) continue;
    t.flops += p.per_sample.flops;
    t.bytes += p.per_sample.bytes;
  }
  t.intensity = t.bytes > 0 ? t.flops / t.bytes : 0;
  return t;
}

std::string ratio(double v) { return fmt::format("{:.1f}", v); }

// One model at a shape, as `workload show` reports it.
struct ShowView {
  Workload w;
  Precision p = Precision::fp16;
  workload::Task task = workload::Task::infer;
  std::vector<Operator> ops;
  std::vector<PhaseTotals> phases;
  bool llm_infer = false;
  workload::Totals head;
  model::Memory mem;
  std::string per;
};

Result<ShowView> show_view(const ShowOptions& o) {
  if (o.batch < 1) return make_error({Errc::invalid_input, "must be >= 1 (got " + std::to_string(o.batch) + ")", "--batch"});
  std::optional<Precision> prec = parse_precision(o.precision);
  if (!prec) {
    return make_error({Errc::invalid_input,
                         "unknown precision '" + o.precision + "'; use one of: fp64, fp32, tf32, fp16, bf16, fp8, int8, int4, fp4",
                         "--precision"});
  }
  std::optional<workload::Task> task = workload::parse_task(o.task);
  if (!task) return make_error({Errc::invalid_input, "unknown task '" + o.task + "'; use infer or train", "--task"});
  WorkloadInputs in;
  in.build = {o.seq, o.input_tokens, o.output_tokens, o.image_size};
  in.onnx_inputs = o.onnx_inputs;
  Result<Workload> loaded = load_workload(o.model, in);
  if (!loaded) return make_error(loaded.error());
  ShowView v;
  v.w = std::move(*loaded);
  const Workload& w = v.w;
  v.p = *prec;
  v.task = *task;
  v.ops = *task == workload::Task::train ? workload::training_ops(w) : w.ops;
  v.phases = phase_totals(v.ops, o.batch, v.p);
  const bool llm = workload::generates_tokens(w);
  v.llm_infer = *task == workload::Task::infer && llm;
  v.head = headline(v.phases, v.llm_infer);
  model::Plan one;
  one.mb = o.batch;
  v.mem = model::memory_footprint(w, *task, v.p, one, nullptr);
  v.per = v.llm_infer ? "token" : (llm ? "sequence" : "sample");
  return v;
}

json show_json(const ShowOptions& o, const ShowView& v) {
  const Workload& w = v.w;
  const double batch = o.batch;
  const Precision p = v.p;
  const workload::Totals& head = v.head;
  const model::Memory& mem = v.mem;
  const std::string& per = v.per;

  json jp = json::array();
  for (const PhaseTotals& ph : v.phases) {
    jp.push_back({{"phase", std::string(to_string(ph.phase))}, {"per", per_unit(ph.phase, w)},
                  {"flops", ph.per_sample.flops}, {"bytes", ph.per_sample.bytes},
                  {"intensity_flop_per_byte", ph.per_sample.intensity}});
  }
  json jo = json::array();
  for (const Operator& op : v.ops) {
    double bytes = op.repeat * workload::op_bytes(op, batch, p) / batch;
    double flops = op.repeat * op.flops;
    jo.push_back({{"name", op.name}, {"kind", std::string(to_string(op.kind))}, {"role", std::string(to_string(op.role))},
                  {"phase", std::string(to_string(op.phase))}, {"repeat", op.repeat}, {"params", op.params},
                  {"flops", flops}, {"bytes", bytes}, {"intensity_flop_per_byte", bytes > 0 ? flops / bytes : 0.0},
                  {"weight_elems", op.weight_elems}, {"in_elems", op.in_elems}, {"out_elems", op.out_elems}});
  }
  json out = {
      {"model", w.id}, {"name", w.name}, {"family", std::string(to_string(w.family))}, {"sample", w.sample},
      {"task", std::string(to_string(v.task))}, {"precision", std::string(to_string(p))}, {"batch", o.batch},
      {"shape", {{"seq_len", w.seq_len}, {"input_tokens", w.input_tokens}, {"output_tokens", w.output_tokens}}},
      {"params", w.params}, {"active_params", w.active_params}, {"per", per},
      {"flops", head.flops}, {"bytes", head.bytes}, {"intensity_flop_per_byte", head.intensity},
      {"throughput_unit", w.throughput_unit}, {"kv_elems_per_token", w.kv_elems_per_token},
      {"kv_window", {{"tokens", w.kv_window}, {"elems_per_token", w.kv_window_elems_per_token},
                     {"chunked", w.kv_window_chunked}}},
      {"moe", {{"experts", w.experts}, {"top_k", w.top_k}, {"shared_experts", w.shared_experts},
               {"layers", w.moe_layers}}},
      {"mtp_layers", w.mtp_layers}, {"quantization", w.quantization},
      {"phases", jp},
      {"memory", {{"weights_bytes", mem.weights_bytes}, {"kv_cache_bytes", mem.kv_cache_bytes},
                  {"activations_bytes", mem.activations_bytes}, {"gradients_bytes", mem.gradients_bytes},
                  {"optimizer_bytes", mem.optimizer_bytes}, {"total_bytes", mem.required_bytes}}},
      {"ops", jo}, {"references", w.references}, {"unsupported_ops", w.unsupported_ops}};
  return out;
}

int show(const ShowOptions& o) {
  Result<ShowView> view = show_view(o);
  if (!view) return report_error(view.error());
  if (o.json) {
    std::printf("%s\n", show_json(o, *view).dump(2).c_str());
    return kExitOk;
  }
  const ShowView& v = *view;
  const Workload& w = v.w;
  const double batch = o.batch;
  const Precision p = v.p;
  const std::vector<Operator>& ops = v.ops;
  const std::vector<PhaseTotals>& phases = v.phases;
  const bool llm_infer = v.llm_infer;
  const workload::Totals& head = v.head;
  const model::Memory& mem = v.mem;
  const std::string& per = v.per;

  std::printf("%s: %s (%s)\n", w.id.c_str(), w.name.c_str(), std::string(to_string(w.family)).c_str());
  std::printf("sample:      %s\n", w.sample.c_str());
  std::printf("setting:     %s, %s, batch %d\n", std::string(to_string(v.task)).c_str(), std::string(to_string(p)).c_str(), o.batch);
  std::printf("parameters:  %s", si(w.params).c_str());
  if (w.active_params != w.params) std::printf(" (%s active per token)", si(w.active_params).c_str());
  std::printf("\n");
  if (!w.quantization.empty()) std::printf("checkpoint:  %s\n", w.quantization.c_str());
  if (w.kv_window > 0)
    std::printf("windows:     %s of the KV cache per token on layers reaching %s positions (%s)\n",
                si(w.kv_window_elems_per_token).c_str(), si(w.kv_window).c_str(),
                w.kv_window_chunked ? "chunked" : "sliding");
  if (w.mtp_layers > 0)
    std::printf("mtp:         %d multi-token prediction module%s shipped (not in the operators)\n", w.mtp_layers,
                w.mtp_layers > 1 ? "s" : "");
  std::printf("\n");
  using report::Align;
  report::Table pt;
  pt.headers = {"PHASE", "PER", "FLOP", "BYTES", "FLOP/BYTE"};
  pt.align = {Align::left, Align::left, Align::right, Align::right, Align::right};
  for (const PhaseTotals& ph : phases) {
    pt.rows.push_back({std::string(to_string(ph.phase)), per_unit(ph.phase, w), si(ph.per_sample.flops),
                       iec_bytes(ph.per_sample.bytes), ratio(ph.per_sample.intensity)});
  }
  if (phases.size() > 1 && !llm_infer) {
    pt.rows.push_back({"total", per, si(head.flops), iec_bytes(head.bytes), ratio(head.intensity)});
  }
  std::printf("%s", pt.render_text().c_str());
  // An LLM's prefill row is per prompt and its decode row per generated token.
  const std::string per_row = llm_infer ? "prompt for prefill, per generated token for decode" : per;
  std::printf("(bytes per %s at batch %d: weights read once per batch are shared by its samples)\n\n", per_row.c_str(),
              o.batch);

  std::printf("memory at batch %d, %s:\n", o.batch, std::string(to_string(p)).c_str());
  auto line = [](const char* what, double bytes) {
    if (bytes > 0) std::printf("  %-13s %12s\n", what, iec_bytes(bytes).c_str());
  };
  line("weights", mem.weights_bytes);
  line("kv cache", mem.kv_cache_bytes);
  line("activations", mem.activations_bytes);
  line("gradients", mem.gradients_bytes);
  line("optimizer", mem.optimizer_bytes);
  line("total", mem.required_bytes);
  std::printf("\n");

  std::vector<const Operator*> order;
  for (const Operator& op : ops) order.push_back(&op);
  std::stable_sort(order.begin(), order.end(),
                   [](const Operator* a, const Operator* b) { return a->repeat * a->flops > b->repeat * b->flops; });
  std::size_t shown = o.top > 0 ? std::min<std::size_t>(std::size_t(o.top), order.size()) : order.size();
  report::Table ot;
  ot.headers = {"OPERATOR", "KIND", "PHASE", "REPEAT", "PARAMS", "FLOP", "BYTES", "FLOP/BYTE"};
  ot.align = {Align::left, Align::left, Align::left, Align::right, Align::right, Align::right, Align::right, Align::right};
  for (std::size_t i = 0; i < shown; ++i) {
    const Operator& op = *order[i];
    double bytes = op.repeat * workload::op_bytes(op, batch, p) / batch;
    double flops = op.repeat * op.flops;
    ot.rows.push_back({op.name, std::string(to_string(op.kind)), std::string(to_string(op.phase)), fmt::format("{:g}", op.repeat),
                       si(op.params * op.repeat), si(flops), iec_bytes(bytes), ratio(bytes > 0 ? flops / bytes : 0)});
  }
  std::printf("operators (per %s, all repeats; heaviest first):\n%s", per_row.c_str(), ot.render_text().c_str());
  if (shown < order.size()) std::printf("... %zu more (--top 0 shows all)\n", order.size() - shown);
  if (!w.references.empty()) {
    std::printf("\nreferences:\n");
    for (const std::string& r : w.references) std::printf("  - %s\n", r.c_str());
  }
  return kExitOk;
}

}  // namespace

Result<json> workload_list_json() {
  json arr = json::array();
  for (const std::string& id : workload::zoo_ids()) {
    Result<Workload> w = workload::build_zoo(id, {});
    if (!w) return make_error(w.error());
    std::vector<PhaseTotals> phases = phase_totals(w->ops, 1, Precision::fp16);
    bool llm = workload::generates_tokens(*w);
    workload::Totals head = headline(phases, llm);
    std::string per = llm ? "token" : "sample";
    arr.push_back({{"id", w->id}, {"name", w->name}, {"family", std::string(to_string(w->family))},
                   {"params", w->params}, {"active_params", w->active_params}, {"flops", head.flops}, {"per", per},
                   {"sample", w->sample}, {"throughput_unit", w->throughput_unit}});
  }
  return json{{"models", arr}};
}

Result<json> workload_show_json(const WorkloadShowOptions& o) {
  Result<ShowView> view = show_view(o);
  if (!view) return make_error(view.error());
  return show_json(o, *view);
}

namespace {

int list(bool as_json) {
  Result<json> models = workload_list_json();
  if (!models) return report_error(models.error());
  if (as_json) {
    std::printf("%s\n", models->dump(2).c_str());
    return kExitOk;
  }
  report::Table t;
  using report::Align;
  t.headers = {"ID", "FAMILY", "PARAMS", "FLOP", "PER", "NAME"};
  t.align = {Align::left, Align::left, Align::right, Align::right, Align::left, Align::left};
  for (const json& m : (*models)["models"])
    t.rows.push_back({m["id"].get<std::string>(), m["family"].get<std::string>(), si(m["params"].get<double>()),
                      si(m["flops"].get<double>()), m["per"].get<std::string>(), m["name"].get<std::string>()});
  std::printf("%s", t.render_text().c_str());
  std::printf("%zu models; FLOP per sample at the default shape (LLMs: per generated token). Details: rooftop workload show ID\n",
              t.rows.size());
  return kExitOk;
}

}  // namespace

Command add_workload_command(CLI::App& app, const GlobalOptions& /*global*/) {
  CLI::App* sub = app.add_subcommand("workload", "Inspect models: parameters, FLOPs, bytes, memory, operators");
  sub->require_subcommand(1);
  auto list_opts = std::make_shared<bool>(false);
  CLI::App* ls = sub->add_subcommand("list", "List the model zoo (embedded data/models/*.yaml)");
  ls->add_flag("--json", *list_opts, "Machine-readable output");
  auto o = std::make_shared<ShowOptions>();
  CLI::App* sh = sub->add_subcommand("show", "Show one model at a shape: FLOPs, bytes, intensity, memory, per-op breakdown");
  sh->add_option("model", o->model,
                 "Zoo id (rooftop workload list), custom model YAML file, ONNX file, or Hugging Face config.json (or its folder)")
      ->required();
  sh->add_option("--batch", o->batch, "Samples per batch (LLMs: concurrent sequences); weights are read once per batch");
  sh->add_option("--seq", o->seq, "Sequence length (encoders; decoder LLMs: training sequence)");
  sh->add_option("--input-tokens", o->input_tokens, "LLM prompt length in tokens");
  sh->add_option("--output-tokens", o->output_tokens, "LLM generated tokens");
  sh->add_option("--image-size", o->image_size, "Square image side in pixels (CNNs, ViT, diffusion)");
  sh->add_option("--precision", o->precision, "Element type for bytes and memory (fp32, fp16, bf16, fp8, int8, ...)")
      ->capture_default_str();
  sh->add_option("--task", o->task, "infer, or train (forward + backward + Adam, mixed precision)")->capture_default_str();
  sh->add_option("--input", o->onnx_inputs, "ONNX only: input shape NAME=1x3x224x224 (repeatable)");
  sh->add_option("--top", o->top, "Operators listed in the text table, heaviest first (0 = all)")->capture_default_str();
  sh->add_flag("--json", o->json, "Machine-readable output (all operators)");
  sub->footer(
      "Examples:\n"
      "  rooftop workload list\n"
      "  rooftop workload show llama-2-70b --batch 16 --input-tokens 2048 --output-tokens 256\n"
      "  rooftop workload show resnet50 --task train --batch 256 --precision bf16\n"
      "  rooftop workload show my-model.yaml --json     (schema: docs/workloads.md)\n"
      "  rooftop workload show path/to/config.json       (a Hugging Face config; docs/workloads.md#hugging-face)");
  return {sub, [=]() { return ls->parsed() ? list(*list_opts) : show(*o); }};
}

}  // namespace rooftop::app

// `rooftop predict`: one model on one accelerator type (x count) through the
// roofline model (src/model): throughput, latency, memory fit, the bound,
// the most expensive operators and every assumption behind the numbers.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "command.h"
#include "core/text.h"
#include "inputs.h"
#include "jobs.h"
#include "embedded/embedded.h"
#include "model/model.h"
#include "model/serve_sim.h"
#include "core/yaml.h"
#include "model/ranges.h"
#include "report/report.h"

namespace rooftop::app {
namespace {

using nlohmann::json;



// Time to train to the MLPerf quality target (predict --to-target).
using ToTarget = model::TimeToTarget;

json range_json(const std::optional<model::Range>& r) {
  if (!r) return nullptr;
  return {{"low", r->low}, {"high", r->high}, {"basis", r->basis}};
}

json prediction_json(const model::Prediction& p, const std::optional<ToTarget>& tt, const model::Sureness& sure) {
  json per_op = json::array();
  for (const model::OpPrediction& o : p.per_op) {
    per_op.push_back({{"name", o.name},
                      {"kind", std::string(workload::to_string(o.kind))},
                      {"phase", std::string(workload::to_string(o.phase))},
                      {"flops", o.flops},
                      {"bytes", o.bytes},
                      {"intensity_flop_per_byte", o.intensity},
                      {"time_s", o.time_s},
                      {"bound", std::string(model::to_string(o.bound))},
                      {"share", o.share}});
  }
  json assumptions = json::object();
  for (const model::Assumption& a : p.assumptions) assumptions[a.name] = {{"value", a.value}, {"source", a.source}};
  const model::Memory& m = p.memory;
  json j = {{"accelerator", p.accelerator},
            {"count", p.count},
            {"model", p.model},
            {"task", std::string(workload::to_string(p.task))},
            {"precision", std::string(to_string(p.precision))},
            {"precisions",
             {{"weights", std::string(to_string(p.precisions.weights))},
              {"activations", std::string(to_string(p.precisions.compute))},
              {"kv_cache", std::string(to_string(p.precisions.kv))},
              {"matmuls", std::string(to_string(p.precisions.math(true)))}}},
            {"batch", p.batch},
            {"throughput", {{"value", p.throughput}, {"unit", p.throughput_unit}, {"range", range_json(sure.throughput)}}},
            {"latency_s", p.latency_s},
            {"latency_range_s", range_json(sure.latency_s)},
            {"unvalidated", sure.unvalidated},
            {"validation", sure.note.empty() ? json(nullptr) : json(sure.note)},
            {"memory",
             {{"required_bytes", m.required_bytes},
              {"capacity_bytes", m.capacity_bytes},
              {"usable_bytes", m.usable_bytes},
              {"fits", m.fits},
              {"weights_bytes", m.weights_bytes},
              {"kv_cache_bytes", m.kv_cache_bytes},
              {"activations_bytes", m.activations_bytes},
              {"gradients_bytes", m.gradients_bytes},
              {"optimizer_bytes", m.optimizer_bytes}}},
            {"bound", std::string(model::to_string(p.bound))},
            {"plan", model::to_string(p.plan)},
            {"parallelism",
             {{"data", p.parallelism.data},
              {"tensor", p.parallelism.tensor},
              {"pipeline", p.parallelism.pipeline},
              {"expert", p.parallelism.expert},
              {"micro_batch", p.plan.mb},
              {"grad_accumulation", p.plan.ga},
              {"zero", p.plan.zero},
              {"recompute", std::string(model::to_string(p.plan.recompute))},
              {"sequence_parallel", p.plan.sp},
              {"interleave", p.plan.vp}}},
            {"communication",
             {{"time_s", p.communication.time_s},
              {"bytes", p.communication.bytes},
              {"eta", p.communication.eta},
              {"link", p.communication.link.empty() ? json(nullptr) : json(p.communication.link)},
              {"scale_out", p.communication.scale_out.empty() ? json(nullptr) : json(p.communication.scale_out)},
              {"tensor_s", p.communication.tensor_s},
              {"pipeline_s", p.communication.pipeline_s},
              {"data_s", p.communication.data_s},
              {"expert_s", p.communication.expert_s},
              {"exposed_s", p.communication.exposed_s}}},
            {"per_op", per_op},
            {"assumptions", assumptions}};
  if (p.tpot_s > 0) j["ttft_s"] = p.ttft_s, j["tpot_s"] = p.tpot_s;
  if (p.task == workload::Task::train) j["bubble_fraction"] = p.bubble_fraction;
  if (tt)
    j["time_to_train"] = {{"minutes", tt->minutes}, {"samples", tt->samples}, {"global_batch", tt->global_batch},
                          {"train_s", tt->train_s}, {"evaluations", tt->evals}, {"eval_s", tt->eval_s},
                          {"how", tt->how}};
  return j;
}

json stats_json(const model::ServeStats& s) {
  auto pct = [](const model::Percentiles& p) { return json{{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}}; };
  return {{"requests", s.requests},         {"duration_s", s.duration_s},
          {"tokens_per_s", s.tokens_per_s}, {"requests_per_s", s.requests_per_s},
          {"ttft_s", pct(s.ttft_s)},        {"itl_s", pct(s.itl_s)},
          {"tpot_s", pct(s.tpot_s)},        {"tpot_with_first_s", pct(s.tpot_with_first_s)},
          {"latency_s", pct(s.latency_s)},  {"iterations", s.iterations},
          {"preemptions", s.preemptions}};
}

json serving_json(const model::ServePrediction& v) {
  const model::ServeBounds& b = v.bounds;
  json j = {{"kind", v.llm ? "llm" : "one-pass"},
            {"plan", model::to_string(v.plan)},
            {"max_sequences", v.scheduler.max_seqs},
            {"kv_blocks", v.scheduler.kv_blocks},
            {"block_tokens", v.scheduler.block_tokens},
            {"chunk_tokens", v.scheduler.chunk_tokens},
            {"bounds", {{"ttft_p99_s", b.ttft_s > 0 ? json(b.ttft_s) : json(nullptr)},
                        {"tpot_p99_s", b.tpot_s > 0 ? json(b.tpot_s) : json(nullptr)},
                        {"latency_p99_s", b.latency_s > 0 ? json(b.latency_s) : json(nullptr)},
                        {"source", b.source}}},
            {"max_rate_per_s", v.max_rate_per_s},
            {"max_tokens_per_s", v.max_tokens_per_s},
            {"at_max_rate", stats_json(v.at_max)}};
  if (v.at_rate.requests > 0) {
    j["rate_per_s"] = v.rate_per_s ? json(*v.rate_per_s) : json(nullptr);
    j["at_rate"] = stats_json(v.at_rate);
  }
  return j;
}

std::string serving_text(const model::ServePrediction& v) {
  auto pct = [](const model::Percentiles& p) {
    return fmt::format("{} / {} / {}", human_seconds(p.p50), human_seconds(p.p90), human_seconds(p.p99));
  };
  auto rows = [&](report::Table& t, const model::ServeStats& s) {
    if (!v.llm) {
      t.rows.push_back({"  latency p50 / p90 / p99", pct(s.latency_s)});
      t.rows.push_back({"  simulated", fmt::format("{} requests in {} batches over {}", s.requests, s.iterations,
                                                   human_seconds(s.duration_s))});
      return;
    }
    t.rows.push_back({"  TTFT p50 / p90 / p99", pct(s.ttft_s)});
    t.rows.push_back({"  inter-token latency", pct(s.itl_s)});
    t.rows.push_back({"  TPOT (after the first token)", pct(s.tpot_s)});
    t.rows.push_back({"  TPOT (with the first token)", pct(s.tpot_with_first_s)});
    t.rows.push_back({"  request latency", pct(s.latency_s)});
    t.rows.push_back({"  simulated", fmt::format("{} requests, {} iterations, {} preemptions over {}", s.requests,
                                                 s.iterations, s.preemptions, human_seconds(s.duration_s))});
  };
  const model::ServeBounds& b = v.bounds;
  std::string bounds;
  if (b.ttft_s > 0) bounds += "TTFT p99 <= " + human_seconds(b.ttft_s);
  if (b.tpot_s > 0) bounds += (bounds.empty() ? "" : ", ") + std::string("TPOT p99 <= ") + human_seconds(b.tpot_s);
  if (b.latency_s > 0) bounds += (bounds.empty() ? "" : ", ") + std::string("latency p99 <= ") + human_seconds(b.latency_s);
  report::Table t;
  t.headers = {"server simulation", "value"};
  const std::string unit = v.llm ? "tokens/s" : "samples/s";
  if (v.llm)
    t.rows.push_back({"scheduler", fmt::format("continuous batching, up to {} sequences per replica, {} KV blocks of {} tokens, {}",
                                               v.scheduler.max_seqs, plain(v.scheduler.kv_blocks), v.scheduler.block_tokens,
                                               v.scheduler.chunk_tokens > 0 ? fmt::format("prefill chunks of {} tokens", plain(v.scheduler.chunk_tokens))
                                                                            : std::string("whole prompts"))});
  else
    t.rows.push_back({"scheduler", fmt::format("queued requests run together, up to {} per batch per replica", v.scheduler.max_seqs)});
  if (v.at_rate.requests > 0) {
    t.rows.push_back({v.rate_per_s ? fmt::format("at {} requests/s", plain(*v.rate_per_s)) : std::string("at the trace's arrivals"),
                      si(v.at_rate.tokens_per_s, unit)});
    rows(t, v.at_rate);
  }
  if (v.max_rate_per_s > 0)
    t.rows.push_back({"highest rate within bounds", fmt::format("{} requests/s = {} ({}; {})", plain(v.max_rate_per_s),
                                                                si(v.max_tokens_per_s, unit), bounds, b.source)});
  else
    t.rows.push_back({"highest rate within bounds", fmt::format("none: even a light load misses {} ({})", bounds, b.source)});
  if (v.at_max.requests > 0) rows(t, v.at_max);
  return "\n" + t.render_text();
}

// "(likely 2.50 k-3.50 k)" after a value.
std::string likely(const std::optional<model::Range>& r, const std::string& unit, bool seconds) {
  if (!r) return {};
  return seconds ? fmt::format(" (likely {} to {})", human_seconds(r->low), human_seconds(r->high))
                 : fmt::format(" (likely {} to {})", si(r->low, unit), si(r->high, unit));
}

std::string text_output(const model::Prediction& p, const std::optional<ToTarget>& tt, int top,
                        const model::Sureness& sure) {
  std::string split = fmt::format("data {} x tensor {}", p.parallelism.data, p.parallelism.tensor);
  if (p.parallelism.pipeline > 1) split += fmt::format(" x pipeline {}", p.parallelism.pipeline);
  std::string out = fmt::format("{} on {} x {}: {} {}, {}, batch {} per device\nplan: {}\n", p.model, p.count,
                                p.accelerator, workload::to_string(p.task), to_string(p.precisions), split, p.batch,
                                model::to_string(p.plan));
  report::Table t;
  t.headers = {"metric", "value"};
  t.rows.push_back({"throughput", si(p.throughput, p.throughput_unit) + likely(sure.throughput, p.throughput_unit, false)});
  t.rows.push_back({p.task == workload::Task::train ? "step time" : "latency",
                    human_seconds(p.latency_s) + likely(sure.latency_s, "", true)});
  if (sure.throughput) t.rows.push_back({"range basis", sure.throughput->basis});
  if (sure.unvalidated) t.rows.push_back({"validation", "unvalidated: " + sure.note});
  if (tt)
    t.rows.push_back({"time to MLPerf target",
                      fmt::format("{:.4g} min ({} samples at global batch {}, {} evaluations taking {}; {})", tt->minutes,
                                  si(tt->samples), tt->global_batch, plain(tt->evals), human_seconds(tt->eval_s),
                                  tt->how)});
  if (p.tpot_s > 0) {
    t.rows.push_back({"time to first token", human_seconds(p.ttft_s)});
    t.rows.push_back({"time per output token", human_seconds(p.tpot_s)});
  }
  const model::Memory& m = p.memory;
  t.rows.push_back({"memory per device", fmt::format("{} of {} usable ({} capacity), {}", iec_bytes(m.required_bytes),
                                                     iec_bytes(m.usable_bytes), iec_bytes(m.capacity_bytes),
                                                     m.fits ? "fits" : "does not fit")});
  t.rows.push_back({"  weights / kv / activations", fmt::format("{} / {} / {}", iec_bytes(m.weights_bytes),
                                                                iec_bytes(m.kv_cache_bytes), iec_bytes(m.activations_bytes))});
  if (p.task == workload::Task::train)
    t.rows.push_back({"  gradients / optimizer", fmt::format("{} / {}", iec_bytes(m.gradients_bytes), iec_bytes(m.optimizer_bytes))});
  t.rows.push_back({"bound", std::string(model::to_string(p.bound))});
  if (!p.communication.link.empty())
    t.rows.push_back({"communication", fmt::format("{} per {} over {}, eta {}", human_seconds(p.communication.time_s),
                                                   p.task == workload::Task::train ? "step" : "pass",
                                                   p.communication.link, plain(p.communication.eta))});
  if (p.task == workload::Task::train && !p.communication.link.empty()) {
    const model::Communication& c = p.communication;
    t.rows.push_back({"  tensor / pipeline / data / expert",
                      fmt::format("{} / {} / {} / {} ({} not hidden)", human_seconds(c.tensor_s), human_seconds(c.pipeline_s),
                                  human_seconds(c.data_s), human_seconds(c.expert_s), human_seconds(c.exposed_s))});
  }
  if (p.parallelism.pipeline > 1) t.rows.push_back({"pipeline bubble", fmt::format("{:.1f} %", p.bubble_fraction * 100)});
  out += t.render_text();

  std::vector<const model::OpPrediction*> ops;
  for (const model::OpPrediction& o : p.per_op) ops.push_back(&o);
  std::sort(ops.begin(), ops.end(), [](auto* a, auto* b) { return a->time_s > b->time_s; });
  if (!ops.empty() && top > 0) {
    report::Table o;
    o.headers = {"op", "phase", "kind", "time", "share", "FLOP/byte", "bound"};
    o.align = {report::Align::left, report::Align::left, report::Align::left, report::Align::right,
               report::Align::right, report::Align::right, report::Align::left};
    for (std::size_t i = 0; i < ops.size() && i < static_cast<std::size_t>(top); ++i) {
      const model::OpPrediction& x = *ops[i];
      o.rows.push_back({x.name, std::string(workload::to_string(x.phase)), std::string(workload::to_string(x.kind)),
                        human_seconds(x.time_s), fmt::format("{:.1f} %", x.share * 100), plain(x.intensity),
                        std::string(model::to_string(x.bound))});
    }
    out += fmt::format("\ntop {} of {} operators by time:\n", o.rows.size(), ops.size()) + o.render_text();
  }
  out += "\nassumptions:\n";
  for (const model::Assumption& a : p.assumptions) out += fmt::format("  {} = {}  ({})\n", a.name, a.value, a.source);
  return out;
}

}  // namespace

Result<PredictOutcome> run_prediction(const PredictOptions& o, const GlobalOptions& global) {
  Result<catalog::Catalog> cat = load_catalog(global);
  if (!cat) return make_error(cat.error());
  Result<const catalog::Accelerator*> acc = cat->get(o.accelerator);
  if (!acc) {
    Error e = acc.error();
    if (e.context.empty()) e.context = "--accelerator";
    return make_error(e);
  }
  std::optional<workload::Task> task = workload::parse_task(o.task);
  if (!task) return make_error({Errc::invalid_input, "unknown task '" + o.task + "' (infer or train)", "--task"});
  const bool simulate = o.rate || !o.trace.empty();
  std::optional<model::Scenario> scenario = model::parse_scenario(simulate && !o.scenario_given ? "server" : o.scenario);
  if (!scenario)
    return make_error({Errc::invalid_input, "unknown scenario '" + o.scenario + "' (offline, server, single-stream)", "--scenario"});
  if (simulate && *scenario != model::Scenario::server)
    return make_error({Errc::invalid_input, "--rate and --trace simulate the server scenario, not '" + o.scenario + "'", "--scenario"});
  model::ServeOptions serve;
  serve.rate_per_s = o.rate;
  serve.chunk_tokens = o.chunk_tokens;
  if (o.requests && *o.requests < 1) return make_error({Errc::invalid_input, "must be a whole number of requests >= 1", "--requests"});
  if (o.requests) serve.requests = *o.requests;
  if (o.rate && !(*o.rate > 0)) return make_error({Errc::invalid_input, "must be a positive number of requests per second", "--rate"});
  if (o.chunk_tokens < 0) return make_error({Errc::invalid_input, "must not be negative", "--chunk-tokens"});
  if (!o.trace.empty()) {
    Result<std::string> text = read_file(o.trace);
    if (!text) return make_error({Errc::invalid_input, text.error().message, "--trace " + o.trace});
    Result<std::vector<model::ServeRequest>> trace = model::parse_serve_trace(*text, o.trace, &serve.trace_has_arrivals);
    if (!trace) return make_error(trace.error());
    if (serve.trace_has_arrivals && o.rate)
      return make_error({Errc::invalid_input, "the trace gives its own arrivals (arrival_s); drop --rate or the column", "--rate"});
    serve.trace = std::move(*trace);
  }
  model::Request req;
  req.accelerator = *acc;
  req.count = o.count;
  req.task = *task;
  req.scenario = *scenario;
  req.batch = o.batch;
  req.grad_accumulation = o.grad_accumulation;
  req.straggler_cv = o.straggler_cv;
  Result<std::string> stack = resolve_stack(o.stack, **acc, *task);
  if (!stack) return make_error(stack.error());
  Result<std::optional<model::Calibration>> calibration = load_calibration(global);
  if (!calibration) return make_error(calibration.error());
  if (*calibration) req.calibrated = model::calibrated_for(**calibration, *stack, (*acc)->vendor, *task);
  if (!o.plan.empty()) {
    Result<model::PlanSpec> spec = model::parse_plan(o.plan);
    if (!spec) return make_error(spec.error());
    req.plan = *spec;
  }
  if (!o.precision.empty()) {
    std::optional<PrecisionSpec> spec = parse_precision_spec(o.precision);
    if (!spec)
      return make_error({Errc::invalid_input, "unknown precision '" + o.precision + "'; accepted: " +
                                                    std::string(kPrecisionForms), "--precision"});
    req.precision = spec->compute;
    req.weight_precision = spec->weights;
    req.kv_precision = spec->kv;
  }
  if (!o.latency_target.empty()) {
    Result<double> t = parse_duration(o.latency_target);
    if (!t) return make_error({Errc::invalid_input, t.error().message, "--latency-target"});
    req.latency_target_s = *t;
  }
  WorkloadInputs in;
  in.build.input_tokens = o.input_tokens;
  in.build.output_tokens = o.output_tokens;
  in.build.seq_len = o.seq;
  if (o.kv_cache != "paged" && o.kv_cache != "static")
    return make_error({Errc::invalid_input, "'" + o.kv_cache + "' is not a KV cache layout (paged or static)", "--kv-cache"});
  in.build.static_kv = o.kv_cache == "static";
  in.onnx_batch = o.batch;
  if (o.lora && req.task != workload::Task::train)
    return make_error({Errc::invalid_input, "--lora fine-tunes adapters: it needs --task train", "--lora"});
  // Time to the MLPerf target prices the benchmark's own recipe (its
  // sequence length, LoRA for llama2_70b_lora) unless the flags set one.
  std::string recipe;
  Result<workload::Workload> w = o.to_target && req.task == workload::Task::train
                                     ? load_benchmark_workload(o.model, in, &recipe)
                                     : load_workload(o.model, in);
  if (!w) {
    Error e = w.error();
    if (e.context.empty()) e.context = "--model";
    return make_error(e);
  }
  if (o.lora && o.to_target) {
    const model::Benchmark* b = model::mlperf_benchmark(w->id);
    if (b && !b->lora)
      return make_error({Errc::invalid_input,
                           "MLPerf's " + std::string(b->benchmark) +
                               " benchmark trains every weight: its convergence points do not apply to LoRA fine-tuning",
                           "--lora"});
  }
  const bool lora_already = std::any_of(w->ops.begin(), w->ops.end(), [](const workload::Operator& op) { return op.adapter_only; });
  if (o.lora && !lora_already) *w = workload::with_lora(std::move(*w));
  req.workload = &*w;
  req.global_batch = o.global_batch;
  if (o.to_target && req.task != workload::Task::train)
    return make_error({Errc::invalid_input, "--to-target needs --task train", "--to-target"});
  Result<model::Prediction> p = model::predict(req);
  if (!p) return make_error(p.error());
  if (!recipe.empty()) p->assumptions.push_back({"training_recipe", recipe, "docs/model.md#time-to-train"});
  else if (o.lora)
    p->assumptions.push_back({"training_recipe", "LoRA adapters on frozen weights", "docs/model.md#lora"});
  std::optional<ToTarget> tt;
  if (o.to_target) {
    Result<std::vector<model::ConvergencePoint>> rcps = load_rcps();
    if (!rcps) return make_error(rcps.error());
    Result<model::TimeToTarget> t = model::time_to_target(*rcps, w->id, *p);
    if (!t) return make_error({t.error().code, t.error().message, "--to-target"});
    tt = *t;
  }
  Result<std::vector<model::ErrorBand>> bands = load_error_bands();
  if (!bands) return make_error(bands.error());
  const std::string band_scenario =
      req.task == workload::Task::train ? std::string("train") : std::string(model::to_string(*scenario));
  model::Sureness sure = model::sureness(*bands, workload::to_string(p->task), band_scenario,
                                         workload::to_string(w->family), (*acc)->vendor, to_string(p->precision),
                                         p->throughput, p->latency_s);
  // The Server scenario is simulated (docs/model.md#serving).
  std::optional<model::ServePrediction> served;
  if (req.task == workload::Task::infer && *scenario == model::Scenario::server) {
    Result<model::ServePrediction> v = model::simulate_server(req, serve);
    if (!v) return make_error(v.error());
    served = std::move(*v);
  }
  return PredictOutcome{std::move(*p), tt, sure, std::move(served)};
}

json prediction_json(const PredictOutcome& r) {
  json j = prediction_json(r.prediction, r.to_target, r.sure);
  if (r.served) j["serving"] = serving_json(*r.served);
  return j;
}

namespace {

int run_predict(const PredictOptions& o, const GlobalOptions& global) {
  Result<PredictOutcome> r = run_prediction(o, global);
  if (!r) return report_error(r.error());
  std::string text;
  if (o.json) {
    text = prediction_json(*r).dump(2) + "\n";
  } else {
    text = text_output(r->prediction, r->to_target, o.top, r->sure);
    if (r->served) {
      // The table is the offline figure at the full batch; say so before it,
      // since the simulation's latencies at the arrival rate differ from it.
      if (const std::size_t plan = text.find("\nplan: "); plan != std::string::npos) {
        text.insert(text.find('\n', plan + 1) + 1,
                    "metrics: offline, at the full batch; the server simulation below is at the arrival rate\n");
      }
      text += serving_text(*r->served);
    }
  }
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

}  // namespace

Command add_predict_command(CLI::App& app, const GlobalOptions& global) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* sub = app.add_subcommand(
      "predict",
      "Predict throughput, latency and memory of a model on an accelerator (roofline per operator).\n"
      "Each operator takes max(FLOPs / (peak x compute efficiency), bytes / (bandwidth x memory\n"
      "efficiency)) + a fixed overhead; LLMs run prefill + decode under continuous batching; several\n"
      "devices serve data parallel, or tensor parallel when one cannot hold the model; training\n"
      "searches the parallel plan (data, tensor, pipeline, expert; ZeRO; recompute) unless --plan\n"
      "fixes it. Formulas, efficiency factors and their sources: docs/model.md.");
  sub->add_option("--model", o->model,
                  "Zoo id (resnet50, bert-large, llama-2-70b, ...) or a custom model YAML file (docs/workloads.md)")
      ->required();
  sub->add_option("--accelerator", o->accelerator, "Catalog id or alias (see `rooftop catalog list`)")->required();
  sub->add_option("--count", o->count, "Number of devices (default 1)");
  sub->add_option("--task", o->task, "infer or train (default infer)");
  sub->add_option("--precision", o->precision,
                  "fp32, tf32, fp16, bf16, fp8, int8, int4, fp4, or weights/activations/KV apart: w4a16, w8a8, "
                  "bf16+fp8-kv, w4a16+fp8-kv (default: fastest suited)");
  sub->add_option("--batch", o->batch, "Per-device batch (micro-batch when training); default chosen per scenario");
  sub->add_option("--input-tokens", o->input_tokens, "LLM prompt tokens (default: the model's MLPerf mean)");
  sub->add_option("--output-tokens", o->output_tokens, "LLM generated tokens (default: the model's MLPerf mean)");
  sub->add_option("--seq", o->seq, "Sequence length (encoders, LLM training)");
  sub->add_option("--kv-cache", o->kv_cache,
                  "LLM KV cache: paged (vLLM, TensorRT-LLM, SGLang; default) or static: a slot of the longest "
                  "prompt + generation per sequence, read whole at every decode step (stacks without paged "
                  "attention, e.g. TGI on Gaudi with HPU graphs, SAX on TPU; offline and single-stream)");
  sub->add_option("--scenario", o->scenario, "offline, server or single-stream (default offline)");
  sub->add_option("--stack", o->stack,
                  "Software stack family the fitted efficiencies of data/calibration.yaml are taken for: tensorrt, "
                  "vllm, sglang, synapse, xla, ngc, pytorch, ... (default: what the vendor's MLPerf submissions run; "
                  "`rooftop calibrate --show` lists the fitted ones)")
      ->type_name("FAMILY");
  sub->add_option("--latency-target", o->latency_target, "Server latency budget (\"100ms\"; LLMs: time per output token)");
  sub->add_option("--rate", o->rate,
                  "Server: simulate Poisson arrivals at this many requests/s (all devices); implies --scenario server");
  sub->add_option("--trace", o->trace,
                  "LLM server: CSV of requests with columns input_tokens,output_tokens[,arrival_s] to simulate");
  sub->add_option("--requests", o->requests,
                  "Server: Poisson requests simulated per replica (default: ten minutes of traffic, 500 to 5,000 for an LLM)");
  sub->add_option("--chunk-tokens", o->chunk_tokens,
                  "LLM server: tokens per scheduler iteration, prefill chunks plus decodes (default 2048; 0: whole prompts)");
  sub->add_option("--grad-accumulation", o->grad_accumulation, "Training: micro-batches per optimizer step (default 1)");
  sub->add_option("--straggler-cv", o->straggler_cv, "Training: coefficient of variation of per-worker step time (default 0)");
  sub->add_option("--plan", o->plan,
                  "Parallel plan, any subset of dp=, tp=, pp=, ep=, vp=, mb=, ga=, zero=0..3|fsdp, recompute=none|selective|full, "
                  "sp=0|1 (e.g. dp=8,tp=4,pp=2,mb=1,zero=1,recompute=selective); the rest is searched");
  sub->add_option("--global-batch", o->global_batch,
                  "Training: global batch (dp x micro-batch x grad accumulation); the plan search keeps it");
  sub->add_flag("--to-target", o->to_target,
                "Training: minutes to the MLPerf Training quality target (MLCommons reference convergence points "
                "at the global batch; " + model::mlperf_benchmark_models() + ")");
  sub->add_flag("--lora", o->lora,
                "Training: fine-tune LoRA adapters on frozen weights (input gradients only through the base "
                "weights, no optimizer state for them); --to-target on llama-2-70b implies it, as MLPerf trains it");
  sub->add_option("--top", o->top, "Operators listed in the table (default 10)");
  sub->add_flag("--json", o->json, "Machine-readable output (contract in docs/model.md#json)");
  sub->footer(
      "Examples:\n"
      "  rooftop predict --model resnet50 --accelerator nvidia-t4\n"
      "  rooftop predict --model llama-2-70b --accelerator h100 --count 8 --precision fp8 --json\n"
      "  rooftop predict --model llama-2-70b --accelerator h100 --count 8 --precision fp8 --scenario server --rate 20\n"
      "  rooftop predict --model llama-2-7b --accelerator nvidia-a100-sxm4-80gb --count 8 --task train --batch 4 \\\n"
      "      --grad-accumulation 8 --straggler-cv 0.05\n"
      "  rooftop predict --model gpt-3-175b --accelerator h100 --count 1024 --task train --plan tp=8,pp=8,ga=16\n"
      "  rooftop predict --model bert-large --accelerator a100-80gb --count 8 --task train --seq 512 --global-batch 448 --to-target\n"
      "  rooftop predict --model llama-2-70b --accelerator h100 --count 8 --task train --global-batch 8 --to-target");
  return {sub, [o, &global, sub] {
            o->scenario_given = sub->count("--scenario") > 0;
            return run_predict(*o, global);
          }};
}

}  // namespace rooftop::app

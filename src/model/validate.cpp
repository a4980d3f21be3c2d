// `rooftop validate`: measurement CSV rows -> predictions in each row's own
// metric and unit, and the median absolute percentage error. How each
// category is predicted is documented in docs/model.md#validation.
#include "model/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>

#include "core/text.h"
#include "model/model.h"
#include "model/serve_sim.h"

namespace rooftop::model {

namespace {

const char* const kRequired[] = {"id",        "accelerator_id", "model_id",          "category",
                                 "workload",  "precision",      "batch_size",        "accelerator_count",
                                 "scenario",  "metric",         "metric_value",      "unit"};

// RFC 4180 records; each record remembers the line it starts on.
struct Record {
  int line = 0;
  std::vector<std::string> fields;
};

std::vector<Record> split_records(std::string_view text) {
  std::vector<Record> out;
  Record rec;
  std::string field;
  bool quoted = false, any = false;
  int line = 1;
  rec.line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c, line += c == '\n';
      continue;
    }
    if (c == '"') quoted = true, any = true;
    else if (c == ',') rec.fields.push_back(std::move(field)), field.clear(), any = true;
    else if (c == '\r') continue;
    else if (c == '\n') {
      if (any || !field.empty()) rec.fields.push_back(std::move(field)), out.push_back(std::move(rec));
      field.clear(), rec = Record{}, any = false;
      rec.line = ++line;
    } else field += c, any = true;
  }
  if (any || !field.empty()) rec.fields.push_back(std::move(field)), out.push_back(std::move(rec));
  return out;
}

// Leading number of a cell like "32 (class name BS32)"; nullopt when none.
std::optional<double> leading_number(const std::string& s) {
  std::smatch m;
  static const std::regex re(R"(^\s*([0-9]+(?:\.[0-9]+)?))");
  if (!std::regex_search(s, m, re)) return std::nullopt;
  return std::stod(m[1]);
}


constexpr const char* kUnits =
    "TFLOP/s, TOPS, GFLOP/s, GB/s, TB/s, samples/s, queries/s, images/s, FPS, tokens/s, s, ms, us, minutes";
constexpr const char* kScenarios =
    "Offline, Server, Interactive, SingleStream, MultiStream, latency, single-stream LLM decode tokens/s";

// A precision cell in the spellings of published results (text before any
// parenthesis): "FP8 (e4m3fn)", "FP64 data", "w4a16", "BF16 + FP8 KV",
// "INT4 weights" (weights only), "FP8/FP16 mixed UNet" (the first format
// named is the compute one), "quantized" or empty (the default). The error
// names the column and the value.
Result<PrecisionSpec> row_precision(const std::string& cell) {
  std::string head = to_lower(trim(cell.substr(0, cell.find('('))));
  if (head.empty()) return PrecisionSpec{};
  if (std::optional<PrecisionSpec> s = parse_precision_spec(head)) return *s;
  std::vector<std::string> words;
  std::string word;
  for (char c : head + " ") {
    if (c == ' ' || c == '/' || c == ',' || c == '+' || c == ';') {
      if (!word.empty()) words.push_back(word), word.clear();
    } else {
      word += c;
    }
  }
  PrecisionSpec out;
  bool understood = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::optional<Precision> p = parse_precision(words[i]);
    const std::string next = i + 1 < words.size() ? words[i + 1] : "";
    if (!p) {
      if (words[i] == "quantized" || words[i] == "quantised") understood = true;  // the default: int8/fp8
      continue;
    }
    understood = true;
    if (next.rfind("weight", 0) == 0) out.weights = out.weights.value_or(*p);
    else if (next == "kv" || next.rfind("kv-", 0) == 0 || next == "cache") out.kv = out.kv.value_or(*p);
    else if (!out.compute) out.compute = p;
  }
  if (!understood)
    return make_error(Errc::invalid_input, "column precision: '" + cell + "' is not understood; accepted: " +
                                               std::string(kPrecisionForms) + ", or MLPerf-style text such as "
                                               "'FP8', 'INT4 weights', 'FP8/FP16 mixed', 'quantized'");
  return out;
}

// A published row's math format that the part has no peak for is how its
// submitter spelled a format the part does run: 4-bit without 4-bit math is
// weight-only quantization (AWQ/GPTQ: the math at 16 bits), and int8 / fp8
// or fp16 / bf16 name the other format of the same width. Returns what was
// substituted ("int4 weights, fp16 math: no int4 peak"), empty when nothing was.
std::string fit_row_precision(PrecisionSpec& spec, const catalog::Accelerator& a) {
  if (!spec.compute || a.peak(*spec.compute).known()) return "";
  const Precision named = *spec.compute;
  auto first_known = [&](std::initializer_list<Precision> ps) -> std::optional<Precision> {
    for (Precision p : ps)
      if (a.peak(p).known()) return p;
    return std::nullopt;
  };
  std::optional<Precision> math;
  if (named == Precision::int4 || named == Precision::fp4) {
    math = first_known({Precision::fp16, Precision::bf16});
    if (math) spec.weights = spec.weights.value_or(named);
  } else if (named == Precision::int8) {
    math = first_known({Precision::fp8});
  } else if (named == Precision::fp8) {
    math = first_known({Precision::int8});
  } else if (named == Precision::fp16) {
    math = first_known({Precision::bf16});
  } else if (named == Precision::bf16) {
    math = first_known({Precision::fp16});
  }
  if (!math) return "";
  spec.compute = math;
  return std::string(to_string(named)) + " read as " +
         (spec.weights == named ? std::string(to_string(named)) + " weights with " : std::string()) +
         std::string(to_string(*math)) + " math (no " + std::string(to_string(named)) + " peak in the catalog)";
}

// The compute precision a kernel row names (GEMM, STREAM): required.
Result<Precision> kernel_precision(const std::string& cell) {
  Result<PrecisionSpec> s = row_precision(cell);
  if (!s) return make_error(s.error());
  if (!s->compute) return make_error(Errc::invalid_input, "column precision: '" + cell + "' names no compute precision");
  return *s->compute;
}

// Factor from base units (FLOP/s, bytes/s, samples/s, seconds) to the row's unit.
std::optional<double> unit_scale(const std::string& unit) {
  std::string u = to_lower(trim(unit));
  if (u == "tflop/s" || u == "tflops" || u == "tops") return 1e-12;
  if (u == "gflop/s" || u == "gflops") return 1e-9;
  if (u == "gb/s") return 1e-9;
  if (u == "tb/s") return 1e-12;
  if (u == "samples/s" || u == "tokens/s" || u == "queries/s" || u == "images/s" || u == "fps" || u == "qps" ||
      u == "frames/s")
    return 1;
  if (u == "s") return 1;
  if (u == "minutes" || u == "min") return 1;  // training rows are predicted in minutes
  if (u == "ms") return 1e3;
  if (u == "us") return 1e6;
  return std::nullopt;
}

bool is_latency_unit(const std::string& unit) {
  std::string u = to_lower(trim(unit));
  return u == "ms" || u == "s" || u == "us";
}

// How an inference row was run: MLPerf scenario names and the spellings of
// vendor tables ("latency", "single-stream LLM decode tokens/s").
struct RowScenario {
  Scenario scenario = Scenario::offline;
  bool interactive = false;  // MLPerf Interactive: a Server run at tighter TTFT/TPOT bounds
  int batch = 0;          // MultiStream: 8 samples per query
  bool decode = false;    // LLM decode rate: 1 / time per output token
};
std::optional<RowScenario> row_scenario(const std::string& cell) {
  std::string t = to_lower(trim(cell));
  std::string squashed;
  for (char c : t)
    if (c != ' ' && c != '-' && c != '_') squashed += c;
  RowScenario r;
  if (squashed.empty() || squashed.find("offline") != std::string::npos) return r;
  if (squashed.find("interactive") != std::string::npos) return r.scenario = Scenario::server, r.interactive = true, r;
  if (squashed.find("server") != std::string::npos) return r.scenario = Scenario::server, r;
  if (squashed.find("multistream") != std::string::npos) return r.batch = 8, r;
  if (squashed.find("singlestream") != std::string::npos || squashed.find("latency") != std::string::npos ||
      squashed.find("batch1") != std::string::npos) {
    r.scenario = Scenario::single_stream;
    r.decode = squashed.find("decode") != std::string::npos;
    return r;
  }
  return std::nullopt;
}

Result<double> predict_gemm(const MeasurementRow& r, const catalog::Accelerator& a, std::string& method) {
  std::smatch m;
  static const std::regex re(R"(([0-9]+)\s*x\s*([0-9]+)\s*x\s*([0-9]+))");
  if (!std::regex_search(r.workload, m, re))
    return make_error(Errc::invalid_input, "no MxNxK shape in the workload text");
  Result<Precision> p = kernel_precision(r.precision);
  if (!p) return make_error(p.error());
  method = "gemm " + m[1].str() + "x" + m[2].str() + "x" + m[3].str() + " " + std::string(to_string(*p));
  return gemm_flop_per_s(a, *p, std::stod(m[1]), std::stod(m[2]), std::stod(m[3]));
}

Result<double> predict_stream(const MeasurementRow& r, const catalog::Accelerator& a, std::string& method) {
  // STREAM triad moves three arrays; "128Mi-element" fp64 buffers -> 3 x 1 GiB.
  double bytes = 3.0 * (1 << 30);
  std::smatch m;
  static const std::regex re(R"(([0-9]+)\s*Mi-element)");
  if (std::regex_search(r.workload, m, re)) {
    Result<Precision> p = kernel_precision(r.precision);
    double bpe = p ? bytes_per_element(*p) : 8;
    bytes = 3 * std::stod(m[1]) * (1 << 20) * bpe;
  }
  method = "stream kernel, " + iec_bytes(bytes);
  return stream_bytes_per_s(a, bytes);
}

Result<double> predict_interconnect(const MeasurementRow& r, const catalog::Accelerator& a, std::string& method) {
  std::string text = to_lower(r.workload + " " + r.model_id);
  std::smatch m;
  static const std::regex nodes_re(R"(\b([0-9]+)\s*nodes?\b)");
  catalog::Accelerator system = a;
  std::string over;
  if (std::regex_search(text, m, nodes_re) && std::stoi(m[1]) > 1) {
    // Several nodes: the collective is hierarchical over the catalog's
    // scale-out network, with count / nodes devices per scale-up domain.
    const int nodes = std::stoi(m[1]);
    if (!a.scale_out.bytes_per_s_per_direction.known())
      return make_error(Errc::unsupported, "spans " + m[1].str() + " nodes: the catalog has no scale-out network for '" +
                                               a.id + "'");
    if (r.count % nodes != 0) return make_error(Errc::invalid_input, "accelerator_count is not a multiple of the nodes");
    system.domain.devices = catalog::Sourced{double(r.count / nodes), "the row's nodes"};
    over = " over " + std::to_string(nodes) + " nodes (" + a.scale_out.name + ")";
  }
  if (text.find("all-reduce") != std::string::npos || text.find("allreduce") != std::string::npos) {
    if (to_lower(r.metric).find("busbw") == std::string::npos)
      return make_error(Errc::unsupported, "only all-reduce bus bandwidth (busbw) is predicted");
    double bytes = double(1 << 30);
    static const std::regex size_re(R"(([0-9]+(?:\.[0-9]+)?)\s*([kmgt])(i?)b\b)");
    if (std::regex_search(text, m, size_re)) {
      int power = static_cast<int>(std::string("kmgt").find(m[2].str()[0])) + 1;
      bytes = std::stod(m[1]) * std::pow(m[3].length() ? 1024.0 : 1000.0, power);
    }
    method = "all-reduce busbw, " + iec_bytes(bytes) + " over " + std::to_string(r.count) + over;
    return allreduce_busbw_bytes_per_s(system, r.count, bytes);
  }
  if (text.find("copy") != std::string::npos || text.find("memcpy") != std::string::npos) {
    bool both = text.find("bidirectional") != std::string::npos;
    method = both ? "device-to-device copy, both directions" : "device-to-device copy";
    return copy_bytes_per_s(a, both);
  }
  return make_error(Errc::unsupported, "interconnect workload not recognised (all-reduce or device copy)");
}

// Serving stacks that keep a static KV cache (a slot of the longest prompt +
// generation per sequence, read whole at every decode step), as a row's
// software_stack names them: SAX on TPU (XLA's fixed shapes; the MLPerf
// GPT-J servable pads prompts to buckets and decodes static batches) and TGI
// on Gaudi (HPU graphs; its CausalLMBatch pads the cache to MAX_TOTAL_TOKENS).
constexpr std::string_view kStaticKvStacks[] = {"SAX", "TGI-gaudi"};

bool static_kv_stack(const std::string& software) {
  for (std::string_view s : kStaticKvStacks)
    if (software.find(s) != std::string::npos) return true;
  return false;
}

// The calibration a row's prediction uses: the parameters of the row's
// stack family for its part's vendor (none without a calibration).
void calibrate_request(Request& req, const MeasurementRow& r, const catalog::Accelerator& a, const ValidateOptions& opts,
                       RowResult& band) {
  // A row naming no software ran what the vendor's submissions usually
  // run, as a prediction without --stack assumes.
  band.stack = stack_family(r.software);
  if (band.stack.empty()) band.stack = default_stack(a, req.task);
  if (!opts.calibration) return;
  req.calibrated = calibrated_for(*opts.calibration, band.stack, a.vendor, req.task);
  for (const Assumption& x : req.calibrated.assumptions) band.parameters.push_back(x.name.substr(x.name.find('.') + 1));
}

Result<double> predict_mlperf(const MeasurementRow& r, const catalog::Accelerator& a, const WorkloadLoader& load,
                              const ValidateOptions& opts, std::string& method, RowResult& band) {
  std::optional<RowScenario> sc = row_scenario(r.scenario);
  if (!sc)
    return make_error(Errc::invalid_input, "column scenario: '" + r.scenario + "' is not understood; accepted: " + kScenarios);
  // The server simulation schedules paged blocks only: a Server row of a
  // static-cache stack is simulated as paged (an optimistic bound).
  workload::BuildOptions shape;
  shape.static_kv = static_kv_stack(r.software) && sc->scenario != Scenario::server;
  Result<workload::Workload> w = load(r.model_id, shape);
  if (!w) return make_error(Errc::invalid_input, "column model_id: " + w.error().message);
  Request req;
  req.accelerator = &a;
  req.workload = &*w;
  req.count = r.count;
  Result<PrecisionSpec> spec = row_precision(r.precision);
  if (!spec) return make_error(spec.error());
  const std::string substituted = fit_row_precision(*spec, a);
  req.precision = spec->compute;
  req.weight_precision = spec->weights;
  req.kv_precision = spec->kv;
  req.scenario = sc->scenario;
  if (sc->batch > 0) req.batch = sc->batch;
  if (std::optional<double> b = leading_number(r.batch); b && *b >= 1) req.batch = static_cast<int>(*b);
  // MLPerf recommender harnesses batch user-item pairs; a sample aggregates
  // pairs_per_sample of them (dlrm-v2: 270), so the row's batch in samples is
  // batch / pairs (docs/model.md#validation).
  if (req.batch && w->pairs_per_sample > 1)
    req.batch = std::max(1, static_cast<int>(std::lround(*req.batch / w->pairs_per_sample)));
  req.detail = false;
  calibrate_request(req, r, a, opts, band);
  // A Server row serves the plan predict chooses offline (simulate_server);
  // the search runs once for both.
  const bool server = sc->scenario == Scenario::server;
  if (server) req.scenario = Scenario::offline;
  Result<Evaluator> ev = Evaluator::make(req);
  if (!ev) return make_error(ev.error());
  Result<Prediction> p = ev->search();
  if (!p) return make_error(p.error());
  if (opts.shares) {
    band.shares = class_shares(*ev, p->plan);
    if (server) (*band.shares)[static_cast<std::size_t>(OpClass::serving)] = 1;
  }
  method = "predict " + w->id + " " + to_string(p->precisions) + " batch " + std::to_string(p->batch) + " " +
           std::string(to_string(sc->scenario)) + (sc->batch > 0 ? " (multi-stream query)" : "") +
           (w->kv_slot_tokens > 0 ? ", static KV cache (" + trim(r.software) + ")" : "") +
           (substituted.empty() ? "" : "; " + substituted);
  std::string unit = to_lower(trim(r.unit));
  band.task = "infer";
  band.scenario = std::string(to_string(sc->scenario));
  band.family = std::string(workload::to_string(w->family));
  band.vendor = a.vendor;
  band.precision = std::string(to_string(p->precision));
  band.time_metric = is_latency_unit(unit);
  if (is_latency_unit(unit)) return p->latency_s;
  if (sc->decode) {
    if (p->tpot_s <= 0) return make_error(Errc::invalid_input, "column scenario: '" + r.scenario + "' asks for a decode rate but '" + w->id + "' is not an LLM");
    return 1 / p->tpot_s;
  }
  double per_device = p->throughput / r.count;
  // A Server row: the highest Poisson rate within the MLPerf bounds, from
  // the scheduler simulation (docs/model.md#serving).
  if (server) {
    ServeOptions so;
    // MLPerf names the Interactive runs in the scenario or in the benchmark
    // ("llama2-70b-interactive-99").
    if (sc->interactive || to_lower(r.workload).find("interactive") != std::string::npos) {
      Result<ServeBounds> b = interactive_bounds(*w);
      if (!b) return make_error(b.error().code, "column scenario: " + b.error().message);
      so.bounds = *b;
    }
    Result<ServePrediction> v = simulate_server(*ev, *p, so);
    if (!v) return make_error(v.error());
    method += ", server simulation " + plain(v->max_rate_per_s) + " requests/s within " + v->bounds.source;
    per_device = v->max_tokens_per_s / r.count;
  }
  if (unit != "tokens/s" && p->throughput_unit == "tokens/s") return per_device / std::max(1, w->output_tokens);
  if (unit == "tokens/s" && p->throughput_unit != "tokens/s")
    return make_error(Errc::unsupported, "row is in tokens/s but '" + w->id + "' is measured in " + p->throughput_unit);
  return per_device;
}

// MLPerf Training (time to train, minutes) and vendor training throughput
// (tokens/s) rows: predict() searches the plan under the row's device count
// and global batch; time to train = RCP samples to the target / samples/s.
Result<double> predict_training(const MeasurementRow& r, const catalog::Accelerator& a, const WorkloadLoader& load,
                                const std::vector<ConvergencePoint>& rcps, const ValidateOptions& opts,
                                std::string& method, RowResult& band) {
  const Benchmark* bench = mlperf_benchmark(r.model_id);
  workload::BuildOptions shape;
  if (bench) apply_training_shape(*bench, 0, shape);
  Result<workload::Workload> w = load(r.model_id, shape);
  if (!w) return make_error(Errc::invalid_input, "column model_id: " + w.error().message);
  if (bench && bench->lora) *w = workload::with_lora(std::move(*w));
  Request req;
  req.accelerator = &a;
  req.workload = &*w;
  req.count = r.count;
  req.task = workload::Task::train;
  req.detail = false;
  Result<PrecisionSpec> spec = row_precision(r.precision);
  if (!spec) return make_error(spec.error());
  req.precision = spec->compute;
  std::optional<double> g = leading_number(r.batch);
  if (g && *g >= 1) req.global_batch = static_cast<int>(*g);
  calibrate_request(req, r, a, opts, band);
  Result<Evaluator> ev = Evaluator::make(req);
  if (!ev) return make_error(ev.error());
  Result<Prediction> p = ev->search();
  if (!p) return make_error(p.error());
  if (opts.shares) band.shares = class_shares(*ev, p->plan);
  method = "predict train " + w->id + " " + std::string(to_string(p->precision)) + " plan " + to_string(p->plan);
  std::string unit = to_lower(trim(r.unit));
  band.task = "train";
  band.scenario = "train";
  band.family = std::string(workload::to_string(w->family));
  band.vendor = a.vendor;
  band.precision = std::string(to_string(p->precision));
  band.time_metric = unit == "minutes" || unit == "min";
  if (unit == "minutes" || unit == "min") {
    if (!req.global_batch) return make_error(Errc::invalid_input, "time to train needs the global batch (batch_size)");
    Result<TimeToTarget> t = time_to_target(rcps, r.model_id, *p);
    if (!t) return make_error(t.error());
    method += "; " + plain(t->samples) + " samples, " + t->how + "; " + plain(t->evals) + " evaluations, " +
              plain(t->eval_s) + " s";
    return t->minutes;
  }
  if (unit == "tokens/s") {
    if (p->throughput_unit != "tokens/s") return make_error(Errc::unsupported, "'" + w->id + "' is not measured in tokens");
    return p->throughput / r.count;
  }
  if (unit == "samples/s") return p->samples_per_s / r.count;
  return make_error(Errc::unsupported, "training rows are predicted in minutes, tokens/s or samples/s");
}

}  // namespace

Result<std::vector<MeasurementRow>> parse_measurements(std::string_view text, const std::string& name) {
  std::vector<Record> recs = split_records(text);
  if (recs.empty()) return make_error(Errc::invalid_input, "empty file, expected a header row", name + ":1");
  const std::vector<std::string>& header = recs[0].fields;
  std::vector<int> col;
  std::string missing;
  for (const char* want : kRequired) {
    auto it = std::find_if(header.begin(), header.end(), [&](const std::string& h) { return trim(h) == want; });
    if (it == header.end()) missing += (missing.empty() ? "" : ", ") + std::string(want);
    col.push_back(static_cast<int>(it - header.begin()));
  }
  if (!missing.empty()) return make_error(Errc::invalid_input, "missing column(s): " + missing, name + ":1");
  const auto software_col = std::find_if(header.begin(), header.end(), [](const std::string& h) { return trim(h) == "software_stack"; });
  std::vector<MeasurementRow> rows;
  for (std::size_t i = 1; i < recs.size(); ++i) {
    const Record& rec = recs[i];
    std::string where = name + ":" + std::to_string(rec.line);
    if (rec.fields.size() != header.size())
      return make_error(Errc::invalid_input, "expected " + std::to_string(header.size()) + " fields, got " +
                                                 std::to_string(rec.fields.size()), where);
    auto cell = [&](int k) { return rec.fields[col[k]]; };
    MeasurementRow r;
    r.line = rec.line;
    r.id = cell(0), r.accelerator_id = cell(1), r.model_id = cell(2), r.category = cell(3);
    r.workload = cell(4), r.precision = cell(5), r.batch = cell(6), r.scenario = cell(8);
    r.metric = cell(9), r.unit = cell(11);
    if (software_col != header.end()) r.software = rec.fields[software_col - header.begin()];
    for (std::size_t k = 0; k < header.size(); ++k) r.columns.emplace_back(trim(header[k]), trim(rec.fields[k]));
    std::optional<double> v = parse_double(trim(cell(10)));
    if (!v || !std::isfinite(*v) || *v <= 0)
      return make_error(Errc::invalid_input, "metric_value '" + cell(10) + "' is not a positive number", where);
    r.measured = *v;
    std::string n = trim(cell(7));
    if (!n.empty()) {
      std::optional<long long> c = parse_int(n);
      if (!c || *c < 1 || *c > 1000000)
        return make_error(Errc::invalid_input, "accelerator_count '" + n + "' is not a whole number >= 1", where);
      r.count = static_cast<int>(*c);
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string system_of(const MeasurementRow& r) {
  std::string source;
  for (const auto& [k, v] : r.columns)
    if (k == "source") source = v;
  // ".../closed/<Submitter>/results/<system>/..." or "<Submitter>/results/<system>/...".
  const std::size_t at = source.find("/results/");
  if (at != std::string::npos && at > 0) {
    std::size_t start = source.find_last_of("/ ", at - 1);
    start = start == std::string::npos ? 0 : start + 1;
    const std::size_t sys = at + 9, end = source.find('/', sys);
    return source.substr(start, at - start) + "/" +
           source.substr(sys, end == std::string::npos ? std::string::npos : end - sys);
  }
  std::string key;
  for (const auto& [k, v] : r.columns)
    if (k == "accelerator_key") key = v;
  return (key.empty() ? r.accelerator_id : key) + " x" + std::to_string(r.count);
}

RowResult predict_row(const MeasurementRow& r, const catalog::Catalog& cat, const WorkloadLoader& load,
                      const std::vector<ConvergencePoint>& rcps, const ValidateOptions& opts) {
  RowResult out;
  out.group = system_of(r);
  out.id = r.id, out.accelerator = r.accelerator_id, out.model = r.model_id, out.category = r.category;
  out.metric = r.metric, out.unit = r.unit, out.measured = r.measured;
  out.columns = r.columns;
  // A row whose part or model the catalog or zoo lacks names it, from the
  // CSV's own description columns when there are any.
  auto column = [&](const char* name) {
    for (const auto& [k, v] : r.columns)
      if (k == name) return v;
    return std::string();
  };
  if (trim(r.accelerator_id).empty()) {
    const std::string part = column("accelerator");
    out.reason = "column accelerator_id is empty: the catalog has no entry for " +
                 (part.empty() ? std::string("this row's part") : "'" + part + "'");
    return out;
  }
  if (trim(r.model_id).empty() && to_lower(r.category).rfind("microbench", 0) != 0) {
    std::string what = trim(r.workload.substr(0, r.workload.find(" (")));
    out.reason = "column model_id is empty: the zoo has no model for " +
                 (what.empty() ? std::string("this row's workload") : "'" + what + "'");
    return out;
  }
  Result<const catalog::Accelerator*> a = cat.get(r.accelerator_id);
  if (a) out.vendor = (*a)->vendor;
  if (!a) {
    out.reason = "column accelerator_id: " + a.error().message;
    return out;
  }
  std::optional<double> scale = unit_scale(r.unit);
  if (!scale) {
    out.reason = "column unit: '" + r.unit + "' is not one rooftop predicts; accepted: " + kUnits;
    return out;
  }
  std::string cat_name = to_lower(r.category);
  Result<double> v = make_error(Errc::unsupported, "column category: '" + r.category +
                                                       "' is not predicted; accepted: microbench_gemm, microbench_memory_bw, "
                                                       "microbench_interconnect, mlperf_inference, edge_inference, "
                                                       "mlperf_training, vendor_train_throughput");
  if (cat_name.find("gemm") != std::string::npos) v = predict_gemm(r, **a, out.method);
  else if (cat_name.find("memory_bw") != std::string::npos) v = predict_stream(r, **a, out.method);
  else if (cat_name.find("interconnect") != std::string::npos) v = predict_interconnect(r, **a, out.method);
  else if (cat_name.find("inference") != std::string::npos) v = predict_mlperf(r, **a, load, opts, out.method, out);
  else if (cat_name.find("train") != std::string::npos) v = predict_training(r, **a, load, rcps, opts, out.method, out);
  if (!v) {
    out.reason = v.error().message;
    return out;
  }
  out.predicted = *v * *scale;
  out.error_pct = (*out.predicted - r.measured) / r.measured * 100;
  return out;
}

double median_abs(std::vector<double> values) {
  if (values.empty()) return 0;
  for (double& v : values) v = std::fabs(v);
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Validation validate(const std::vector<MeasurementRow>& rows, const catalog::Catalog& cat, const WorkloadLoader& load,
                    const std::vector<ConvergencePoint>& rcps, const ValidateOptions& opts) {
  Validation v;
  std::vector<double> errors;
  for (const MeasurementRow& r : rows) {
    v.rows.push_back(predict_row(r, cat, load, rcps, opts));
    if (v.rows.back().predicted) errors.push_back(v.rows.back().error_pct), ++v.predicted;
  }
  if (!errors.empty()) v.mdape_pct = median_abs(errors);
  return v;
}

}  // namespace rooftop::model

namespace rooftop::model {

std::vector<GroupError> group_errors(const Validation& v) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::vector<double>, int>> by;
  auto add = [&](const std::string& g, const RowResult& r) {
    if (!by.count(g)) order.push_back(g);
    auto& e = by[g];
    ++e.second;
    if (r.predicted) e.first.push_back(r.error_pct);
  };
  for (const RowResult& r : v.rows) add(r.category, r);
  for (const RowResult& r : v.rows)
    add(to_lower(r.category).rfind("microbench", 0) == 0 ? "micro-benchmark" : "end-to-end", r);
  std::vector<GroupError> out;
  for (const std::string& g : order) {
    const auto& e = by[g];
    out.push_back({g, static_cast<int>(e.first.size()), e.second, median_abs(e.first)});
  }
  return out;
}

double RowResult::speed_ratio() const {
  if (!predicted || *predicted <= 0) return 0;
  return time_metric || is_latency_unit(to_lower(trim(unit))) ? measured / *predicted : *predicted / measured;
}

Result<std::vector<GroupSummary>> group_by(const Validation& v, const std::vector<std::string>& columns) {
  // The value of `col` in a row: its CSV column, else what the row knows.
  auto value = [](const RowResult& r, const std::string& col) -> std::optional<std::string> {
    for (const auto& [k, val] : r.columns)
      if (k == col) return val;
    if (col == "vendor" && !r.vendor.empty()) return r.vendor;
    if (col == "accelerator" || col == "accelerator_id") return r.accelerator;
    if (col == "model" || col == "model_id") return r.model;
    if (col == "category") return r.category;
    return std::nullopt;
  };
  for (const std::string& col : columns) {
    const bool known = std::any_of(v.rows.begin(), v.rows.end(), [&](const RowResult& r) { return value(r, col).has_value(); });
    if (known) continue;
    std::string have = "vendor, accelerator, model";
    if (!v.rows.empty())
      for (const auto& kv : v.rows.front().columns) have += ", " + kv.first;
    return make_error(Errc::invalid_input, "no row has a column '" + col + "'; columns: " + have, "--by");
  }
  std::vector<GroupSummary> out;
  std::map<std::vector<std::string>, std::size_t> index;
  std::vector<std::vector<double>> errors, ratios;
  for (const RowResult& r : v.rows) {
    std::vector<std::string> key;
    for (const std::string& col : columns) key.push_back(value(r, col).value_or(""));
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) {
      out.push_back({});
      out.back().key = key;
      errors.emplace_back(), ratios.emplace_back();
    }
    GroupSummary& g = out[it->second];
    ++g.rows;
    if (!r.predicted) continue;
    ++g.predicted;
    errors[it->second].push_back(r.error_pct);
    ratios[it->second].push_back(r.speed_ratio());
    if (g.worst_id.empty() || std::fabs(r.error_pct) > std::fabs(g.worst_error_pct))
      g.worst_id = r.id, g.worst_error_pct = r.error_pct;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].mdape_pct = median_abs(errors[i]);
    std::vector<double>& q = ratios[i];
    std::sort(q.begin(), q.end());
    const std::size_t n = q.size();
    out[i].median_speed_ratio = n == 0 ? 0 : n % 2 ? q[n / 2] : (q[n / 2 - 1] + q[n / 2]) / 2;
  }
  return out;
}

}  // namespace rooftop::model

namespace rooftop::model {

std::vector<CalRow> calibration_rows(const Validation& v) {
  std::vector<CalRow> out;
  for (std::size_t i = 0; i < v.rows.size(); ++i) {
    const RowResult& r = v.rows[i];
    if (!r.predicted || !r.shares || r.task.empty() || !(*r.predicted > 0)) continue;
    CalRow c;
    c.index = i;
    c.id = r.id, c.stack = r.stack, c.vendor = r.vendor, c.task = r.task, c.model = r.model, c.part = r.accelerator;
    c.group = r.group;
    c.family = r.family, c.scenario = r.scenario, c.precision = r.precision;
    c.speed_ratio = r.speed_ratio();
    c.share = *r.shares;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace rooftop::model

// Reference Convergence Points and samples to the MLPerf quality target
// (convergence.h, docs/model.md#time-to-train).
#include "model/convergence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/text.h"

namespace rooftop::model {

namespace {

// The zoo models MLPerf Training runs, their RCP benchmark and how one RCP
// unit converts to training samples (shared/validation/mlperf-workloads.md,
// section 3: RCP units from training_rules.adoc).
constexpr Benchmark kBenchmarks[] = {
    {"resnet50", "resnet", 1281167,
     "epochs x 1,281,167 ImageNet training images (resnet-tf2 imagenet_preprocessing.py:48)", 0, false, 0,
     4 * 1281167.0, 0, 0, 50000,
     "every 4 epochs over the 50,000 ImageNet validation images (training_rules.adoc, resnet)"},
    {"bert-large", "bert", 1, "samples (512-token sequences, max_seq_length=512)", 512, false, 0,
     0.05 * 3000000, 0.05 * 230.23, 25000, 10000,
     "every floor(0.05 x (230.23 x batch + 3,000,000) / 25,000) x 25,000 samples over 10,000 eval samples "
     "(retired_benchmarks/bert/README.md)"},
    {"retinanet", "retinanet", 1170301, "epochs x 1,170,301 OpenImages MLPerf training images (retinanet README)", 0, false, 0,
     1170301, 0, 0, 24781, "every epoch over the 24,781 OpenImages validation images (retinanet README)"},
    {"stable-diffusion-v2", "stable_diffusion", 1, "samples (images)", 0, false, 0, 0, 0, 0, 0,
     "checkpoints every 512,000 images are evaluated offline, outside the timed region (training_rules.adoc)"},
    {"gpt-3-175b", "gpt3", 1.0 / 2048, "tokens / 2,048-token sequences (gpt3 paxml README)", 2048, false, 0,
     24576, 0, 0, 5662,
     "every 24,576 sequences (training_rules.adoc) over the 5,662-sequence validation set "
     "(training_results_v4.1 NVIDIA gpt3 conf/custom.yaml)"},
    {"llama-2-70b", "llama2_70b_lora", 1, "samples (LoRA fine-tuning, sequences of up to 8,192 tokens)", 8192, true, 0,
     384, 0, 0, 173,
     "every 384 samples over the 173 GovReport eval samples, skipping the first floor(0.125 x batch + 2) "
     "(training_rules.adoc; the benchmark's evaluation rule, e.g. training_results_v4.1 NVIDIA "
     "llama2_70b_lora/implementations/eos_ngc24.09_nemo/README.md section 5)",
     0.125, 2},
    {"dlrm-v2", "dlrm_dcnv2", 4195197692,
     "fraction of an epoch x 4,195,197,692 Criteo samples (compliance training_5.0.0/closed_dlrm_dcnv2.yaml); one sample = one user-item pair", 0, false, 1,
     4195197692.0 / 20, 0, 0, 89137319,
     "20 times per epoch over 89,137,319 eval samples (compliance training_5.0.0/closed_dlrm_dcnv2.yaml)"},
    // Llama 3.1 405B pretraining from Meta's checkpoint on C4 with Mixtral's
    // 32,000-token vocabulary (training large_language_model_pretraining/nemo/README.md).
    {"llama-3.1-405b", "llama31_405b", 1, "samples (8,192-token sequences; training_rules.adoc)", 8192, false, 0,
     18432, 0, 0, 5760,
     "every 18,432 sequences over the 5,760 validation sequences, skipping the first floor(0.0026 x batch + 12) "
     "(training_rules.adoc from v5.1; v5.0 evaluated every 46,080, large_language_model_pretraining/nemo/README.md; "
     "eval_samples 5,760: compliance training_5.1.0/closed_llama31_405b.yaml)",
     0.0026, 12, 32000},
    // Llama 3.1 8B pretraining on C4 with its own tokenizer (training
    // small_llm_pretraining/nemo/README.md).
    {"llama-3.1-8b", "llama31_8b", 1, "samples (8,192-token sequences; compliance closed_llama31_8b.yaml)", 8192, false,
     0, 12288, 0, 0, 1024,
     "every 12,288 sequences over 1,024 validation sequences (small_llm_pretraining/nemo/README.md, pretrain_llama31.py "
     "--eval_every; eval_samples 1,024: compliance training_5.1.0/closed_llama31_8b.yaml)"},
};

// "4.10.0" > "4.2.0".
bool newer(const std::string& a, const std::string& b) {
  std::vector<std::string> x = split(a, '.'), y = split(b, '.');
  for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    long long u = i < x.size() ? parse_int(x[i]).value_or(0) : 0, v = i < y.size() ? parse_int(y[i]).value_or(0) : 0;
    if (u != v) return u > v;
  }
  return false;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

Result<std::vector<ConvergencePoint>> parse_rcp(std::string_view csv, const std::string& name) {
  std::vector<ConvergencePoint> out;
  std::vector<std::string> lines = split(csv, '\n');
  if (lines.empty()) return make_error(Errc::invalid_input, "empty RCP file", name);
  std::vector<std::string> header = split(trim(lines[0]), ',');
  auto col = [&](const char* want) -> int {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (trim(header[i]) == want) return static_cast<int>(i);
    return -1;
  };
  const int c_bench = col("benchmark"), c_ver = col("rcp_version"), c_batch = col("global_batch_size"),
            c_mean = col("epochs_or_samples_mean"), c_unit = col("unit"), c_src = col("source");
  if (c_bench < 0 || c_ver < 0 || c_batch < 0 || c_mean < 0 || c_unit < 0 || c_src < 0)
    return make_error(Errc::invalid_input,
                      "RCP header needs benchmark, rcp_version, global_batch_size, epochs_or_samples_mean, unit, source",
                      name + ":1");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string line = trim(lines[i]);
    if (line.empty()) continue;
    std::vector<std::string> f = split(line, ',');
    // The source (last column) may itself hold commas: rejoin the tail.
    if (f.size() > header.size()) {
      std::string tail;
      for (std::size_t k = header.size() - 1; k < f.size(); ++k) tail += (tail.empty() ? "" : ",") + f[k];
      f.resize(header.size());
      f.back() = tail;
    }
    const std::string where = name + ":" + std::to_string(i + 1);
    if (f.size() != header.size()) return make_error(Errc::invalid_input, "wrong number of fields", where);
    std::optional<double> batch = parse_double(trim(f[c_batch])), mean = parse_double(trim(f[c_mean]));
    if (!batch || !mean || *batch <= 0 || *mean <= 0)
      return make_error(Errc::invalid_input, "global_batch_size and epochs_or_samples_mean must be positive numbers",
                        where);
    out.push_back({trim(f[c_bench]), trim(f[c_ver]), *batch, *mean, trim(f[c_unit]), trim(f[c_src])});
  }
  return out;
}

const Benchmark* mlperf_benchmark(std::string_view model_id) {
  // A training recipe decorates the id ("llama-2-70b (LoRA)", workload::with_lora).
  if (const std::size_t recipe = model_id.find(" ("); recipe != std::string_view::npos) model_id = model_id.substr(0, recipe);
  for (const Benchmark& b : kBenchmarks)
    if (model_id == b.model_id) return &b;
  return nullptr;
}

std::string mlperf_benchmark_models() {
  std::string out;
  for (const Benchmark& b : kBenchmarks) out += (out.empty() ? "" : ", ") + std::string(b.model_id);
  return out;
}

std::string apply_training_shape(const Benchmark& b, int zoo_seq_len, workload::BuildOptions& o) {
  std::string how;
  auto said = [&](const std::string& what) { how += (how.empty() ? "" : ", ") + what; };
  if (!o.seq_len && b.train_seq_len > 0 && b.train_seq_len != zoo_seq_len) {
    o.seq_len = b.train_seq_len;
    said(std::to_string(b.train_seq_len) + "-token sequences");
  }
  if (!o.pairs_per_sample && b.pairs_per_sample > 0) o.pairs_per_sample = b.pairs_per_sample;
  if (!o.vocab && b.vocab > 0) {
    o.vocab = b.vocab;
    said("a " + std::to_string(b.vocab) + "-token vocabulary");
  }
  return how;
}

Result<SamplesToTarget> samples_to_target(const std::vector<ConvergencePoint>& rcps, std::string_view model_id,
                                          double global_batch) {
  const Benchmark* b = mlperf_benchmark(model_id);
  if (!b)
    return make_error(Errc::unsupported, "'" + std::string(model_id) + "' is not an MLPerf Training benchmark model (" +
                                             mlperf_benchmark_models() + ")");
  std::string version;
  for (const ConvergencePoint& p : rcps)
    if (p.benchmark == b->benchmark && (version.empty() || newer(p.version, version))) version = p.version;
  std::map<double, double> points;  // global batch -> mean
  for (const ConvergencePoint& p : rcps)
    if (p.benchmark == b->benchmark && p.version == version) points[p.global_batch] = p.mean;
  if (points.empty())
    return make_error(Errc::not_found, "no reference convergence point for benchmark '" + std::string(b->benchmark) + "'");
  SamplesToTarget out;
  double mean = 0;
  if (points.size() == 1) {
    mean = points.begin()->second;
    out.how = "the only RCP (batch " + num(points.begin()->first) + ")";
  } else {
    auto hi = points.lower_bound(global_batch);
    if (hi != points.end() && hi->first == global_batch) {
      mean = hi->second;
      out.how = "RCP at batch " + num(global_batch);
    } else {
      // Between two listed batches, or the nearest two outside them.
      if (hi == points.begin()) ++hi;
      if (hi == points.end()) --hi;
      auto lo = std::prev(hi);
      const double t = (global_batch - lo->first) / (hi->first - lo->first);
      mean = std::max(0.0, lo->second + t * (hi->second - lo->second));
      out.how = std::string(global_batch > lo->first && global_batch < hi->first ? "interpolated" : "extrapolated") +
                " between RCPs at batch " + num(lo->first) + " and " + num(hi->first);
    }
  }
  out.how += " (" + std::string(b->benchmark) + " RCP " + version + "; " + b->unit_source + ")";
  out.samples = mean * b->samples_per_unit;
  return out;
}

double eval_interval(const Benchmark& b, double global_batch) {
  if (b.eval_every <= 0) return 0;
  const double raw = b.eval_per_batch * global_batch + b.eval_every;
  return b.eval_round > 0 ? std::max(b.eval_round, std::floor(raw / b.eval_round) * b.eval_round) : raw;
}

double evaluations(const Benchmark& b, double samples, double global_batch) {
  const double every = eval_interval(b, global_batch);
  if (every <= 0 || b.eval_samples <= 0) return 0;
  const double skipped = std::floor(b.eval_skip_per_batch * global_batch + b.eval_skip);
  return std::max(0.0, samples / every - skipped);
}

double eval_seconds(const Benchmark& b, double samples, const Plan& plan, double eval_stage_s, double* evals) {
  const double global_batch = double(plan.dp) * plan.mb * plan.ga;
  const double n = evaluations(b, samples, global_batch);
  if (evals) *evals = n;
  if (n <= 0) return 0;
  const double steps = std::ceil(b.eval_samples / (double(plan.dp) * plan.mb));
  return n * (steps + plan.pp - 1) * eval_stage_s;
}

Result<TimeToTarget> time_to_target(const std::vector<ConvergencePoint>& rcps, std::string_view model_id,
                                    const Prediction& p) {
  if (p.task != workload::Task::train || p.samples_per_s <= 0)
    return make_error(Errc::invalid_input, "time to train needs a training prediction");
  TimeToTarget t;
  t.global_batch = p.plan.dp * p.plan.mb * p.plan.ga;
  Result<SamplesToTarget> n = samples_to_target(rcps, model_id, t.global_batch);
  if (!n) return make_error(n.error());
  const Benchmark& b = *mlperf_benchmark(model_id);
  t.samples = n->samples;
  t.train_s = n->samples / p.samples_per_s;
  t.how = n->how;
  t.eval_s = eval_seconds(b, n->samples, p.plan, p.eval_stage_s, &t.evals);
  t.how += "; evaluation " + std::string(b.eval_source);
  t.minutes = (t.train_s + t.eval_s) / 60;
  return t;
}

}  // namespace rooftop::model

// Scenario parsing: the documented schema, strictness (file:line errors) and
// the contradictions that make a scenario meaningless.
#include <gtest/gtest.h>

#include "advise/scenario.h"

namespace rooftop::advise {
namespace {

const char* kServing = R"(name: bert serving
workload:
  model: bert-base
  task: infer
  precisions: [fp16, int8]
  seq_len: 128
objective:
  p99_latency_s: 0.02
  arrival_rate_per_s: 200
  network_rtt_s: {datacenter: 0.005}
constraints:
  budget: {capex_usd: 50000}
  power: {per_device_w: 300, total_w: 2000}
  form_factor: [datacenter, workstation]
  max_devices: 16
  vendors: {include: [nvidia, amd]}
  ecosystem:
    frameworks: ["pytorch>=2.1", onnxruntime]
    runtimes: [TensorRT]
    custom_ops: [cuda]
economics:
  horizon_years: 3
  energy_usd_per_kwh: 0.2
  pue: 1.2
  utilisation: 0.6
  prices:
    nvidia-t4: {list_usd: 2000, source: "vendor quote 2024-05"}
baseline: {accelerator: nvidia-v100-sxm2-32gb, count: 2}
facility: {rack_kw: 40, liquid_cooling: false}
)";

Result<Scenario> parse(const std::string& text) { return parse_scenario(text, "s.yaml"); }

std::string error_of(const std::string& text) {
  Result<Scenario> s = parse(text);
  return s ? std::string("(parsed)") : s.error().what();
}

TEST(Scenario, ReadsEverySection) {
  Result<Scenario> r = parse(kServing);
  ASSERT_TRUE(r) << r.error().what();
  const Scenario& s = *r;
  EXPECT_EQ(s.name, "bert serving");
  EXPECT_EQ(s.rack_kw, 40);
  EXPECT_EQ(s.liquid_cooling, false);
  EXPECT_EQ(s.model, "bert-base");
  EXPECT_EQ(s.task, workload::Task::infer);
  EXPECT_EQ(s.precisions, (std::vector<Precision>{Precision::fp16, Precision::int8}));
  EXPECT_EQ(s.shape.seq_len, 128);
  EXPECT_EQ(s.objective, ObjectiveKind::latency);
  EXPECT_DOUBLE_EQ(s.p99_latency_s, 0.02);
  EXPECT_DOUBLE_EQ(s.arrival_rate_per_s, 200);
  EXPECT_DOUBLE_EQ(s.network_rtt_s[static_cast<int>(catalog::FormFactor::datacenter)], 0.005);
  EXPECT_EQ(*s.budget_capex_usd, 50000);
  EXPECT_EQ(*s.max_power_per_device_w, 300);
  EXPECT_EQ(*s.max_power_total_w, 2000);
  EXPECT_EQ(s.form_factors.size(), 2u);
  EXPECT_EQ(s.max_devices, 16);
  EXPECT_EQ(s.vendors_include, (std::vector<std::string>{"nvidia", "amd"}));
  ASSERT_EQ(s.frameworks.size(), 2u);
  EXPECT_EQ(s.frameworks[0].name, "pytorch");
  EXPECT_EQ(s.frameworks[0].min_version, "2.1");
  EXPECT_EQ(s.frameworks[1].min_version, "");
  EXPECT_EQ(s.runtimes, (std::vector<std::string>{"tensorrt"}));
  EXPECT_EQ(s.custom_ops, (std::vector<std::string>{"cuda"}));
  EXPECT_DOUBLE_EQ(s.pue, 1.2);
  EXPECT_TRUE(s.defaults_used.empty());
  ASSERT_EQ(s.prices.size(), 1u);
  EXPECT_EQ(*s.prices[0].list_usd, 2000);
  ASSERT_TRUE(s.baseline);
  EXPECT_EQ(s.baseline->count, 2);
}

TEST(Scenario, TrainingObjectiveInTokens) {
  Result<Scenario> r = parse(R"(name: t
workload: {model: llama-2-7b, task: train, precisions: [bf16], global_batch: 1024, seq_len: 4096}
objective: {train_tokens: 2.0e12, deadline_hours: 720, straggler_cv: 0.03}
)");
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->objective, ObjectiveKind::train);
  EXPECT_DOUBLE_EQ(r->train_tokens, 2e12);
  EXPECT_DOUBLE_EQ(r->deadline_s, 720 * 3600.0);
  EXPECT_DOUBLE_EQ(r->straggler_cv, 0.03);
  EXPECT_EQ(r->global_batch, 1024);
  EXPECT_EQ(r->defaults_used.size(), 4u);  // no economics section: every default is stated
}

TEST(Scenario, UnknownKeyNamesFileLineAndSuggestion) {
  std::string e = error_of("name: x\nworkload: {model: bert-base, task: infer, precisions: [fp16]}\n"
                           "objective:\n  throughput_per_s: 10\n  arival_rate_per_s: 3\n");
  EXPECT_NE(e.find("s.yaml:5"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'arival_rate_per_s'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'arrival_rate_per_s'"), std::string::npos) << e;
}

TEST(Scenario, WeightsAndConsumerParts) {
  Result<Scenario> s = parse("name: x\nworkload: {model: bert-base, task: infer, precisions: [fp16]}\n"
                             "objective: {throughput_per_s: 10}\nconstraints: {consumer_parts: false}\n"
                             "weights: {tco: 0.4, ecosystem: 2}\n");
  ASSERT_TRUE(s) << s.error().what();
  EXPECT_FALSE(s->consumer_parts);
  EXPECT_DOUBLE_EQ(s->weights.tco, 0.4);
  EXPECT_DOUBLE_EQ(s->weights.ecosystem, 2);
  EXPECT_DOUBLE_EQ(s->weights.precision, 1);
  std::string e = error_of("name: x\nworkload: {model: bert-base, task: infer, precisions: [fp16]}\n"
                           "objective: {throughput_per_s: 10}\nweights: {tc0: 0.4}\n");
  EXPECT_NE(e.find("s.yaml:4"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'tc0' in scenario.weights"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'tco'"), std::string::npos) << e;
  e = error_of("name: x\nworkload: {model: bert-base, task: infer, precisions: [fp16]}\n"
               "objective: {throughput_per_s: 10}\nweights: {tco: -1}\n");
  EXPECT_NE(e.find("tco"), std::string::npos) << e;
}

TEST(Scenario, PrecisionsTakeWeightAndKvForms) {
  Result<Scenario> s = parse("name: x\nworkload: {model: llama-2-7b, task: infer, precisions: [w4a16, fp8-kv, bf16]}\n"
                             "objective: {throughput_per_s: 10}\n");
  ASSERT_TRUE(s) << s.error().what();
  EXPECT_EQ(s->precisions, (std::vector<Precision>{Precision::fp16, Precision::bf16}));
  EXPECT_EQ(s->weight_precision, Precision::int4);
  EXPECT_EQ(s->kv_precision, Precision::fp8);
  std::string e = error_of("name: x\nworkload: {model: m, task: infer, precisions: [w3a16]}\nobjective: {throughput_per_s: 1}\n");
  EXPECT_NE(e.find("unknown precision 'w3a16'"), std::string::npos) << e;
  EXPECT_NE(e.find("w4a16"), std::string::npos) << e;
}

TEST(Scenario, MissingSectionsAndBadValues) {
  EXPECT_NE(error_of("name: x\n").find("missing required section 'workload'"), std::string::npos);
  std::string e = error_of("name: x\nworkload: {model: m, task: infer, precisions: [fp17]}\nobjective: {throughput_per_s: -1}\n");
  EXPECT_NE(e.find("unknown precision 'fp17'"), std::string::npos) << e;
  EXPECT_NE(e.find("out of range"), std::string::npos) << e;
  EXPECT_NE(error_of("name: [\n").find("malformed YAML"), std::string::npos);
}

TEST(Scenario, ObjectiveMustBeExactlyOne) {
  EXPECT_NE(error_of("name: x\nworkload: {model: m, task: infer, precisions: [fp16]}\nobjective: {}\n").find("needs one of"),
            std::string::npos);
  EXPECT_NE(error_of("name: x\nworkload: {model: m, task: infer, precisions: [fp16]}\n"
                     "objective: {throughput_per_s: 5, p99_latency_s: 0.1, arrival_rate_per_s: 3}\n")
                .find("exactly one"),
            std::string::npos);
  EXPECT_NE(error_of("name: x\nworkload: {model: m, task: infer, precisions: [fp16]}\nobjective: {p99_latency_s: 0.1}\n")
                .find("missing required key 'arrival_rate_per_s'"),
            std::string::npos);
}

TEST(Scenario, Contradictions) {
  const std::string head = "name: x\nworkload: {model: m, task: infer, precisions: [fp16]}\nobjective: {throughput_per_s: 5}\n";
  EXPECT_NE(error_of(head + "constraints: {vendors: {include: [nvidia], exclude: [nvidia]}}\n").find("both included and excluded"),
            std::string::npos);
  EXPECT_NE(error_of(head + "constraints: {budget: {capex_usd: 1000}}\neconomics: {deployment: cloud}\n").find("contradictory"),
            std::string::npos);
  EXPECT_NE(error_of(head + "constraints: {budget: {cloud_usd_per_hour: 10}}\n").find("needs economics.deployment: cloud"),
            std::string::npos);
  EXPECT_NE(error_of(head + "constraints: {max_devices: 4}\nbaseline: {accelerator: nvidia-t4, count: 8}\n").find("exceeds"),
            std::string::npos);
  EXPECT_NE(error_of("name: x\nworkload: {model: m, task: train, precisions: [fp16], global_batch: 8}\nobjective: {throughput_per_s: 5}\n")
                .find("task train needs a train_samples"),
            std::string::npos);
  EXPECT_NE(error_of("name: x\nworkload: {model: m, task: train, precisions: [int8], global_batch: 8}\n"
                     "objective: {train_samples: 100, deadline_hours: 1}\n")
                .find("inference-only"),
            std::string::npos);
  EXPECT_NE(error_of("name: x\nworkload: {model: m, task: train, precisions: [bf16]}\nobjective: {train_samples: 100, deadline_hours: 1}\n")
                .find("global_batch is required"),
            std::string::npos);
}

TEST(Scenario, PricesNeedASource) {
  const std::string head = "name: x\nworkload: {model: m, task: infer, precisions: [fp16]}\nobjective: {throughput_per_s: 5}\n";
  EXPECT_NE(error_of(head + "economics: {prices: {nvidia-t4: {list_usd: 100}}}\n").find("missing required key 'source'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "economics: {prices: {nvidia-t4: {source: q}}}\n").find("give list_usd or cloud_usd_per_hour"),
            std::string::npos);
}

TEST(Scenario, ModelPathIsRelativeToTheScenario) {
  Result<Scenario> r = parse_scenario("name: x\nworkload: {model: models/m.yaml, task: infer, precisions: [fp16]}\n"
                                      "objective: {throughput_per_s: 5}\n",
                                      "/some/dir/s.yaml");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->model, "/some/dir/models/m.yaml");
}

TEST(Versions, DottedNumericCompare) {
  EXPECT_GT(compare_versions("2.10", "2.9"), 0);
  EXPECT_EQ(compare_versions("2.1", "2.1.0"), 0);
  EXPECT_LT(compare_versions("1.13", "2.1"), 0);
}

}  // namespace
}  // namespace rooftop::advise

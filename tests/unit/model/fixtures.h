// Hand-built accelerators and workloads for the model's unit tests, so the
// expected numbers can be computed by hand (and the tests do not depend on
// the catalog or zoo data).
#pragma once

#include "catalog/catalog.h"
#include "workload/workload.h"

namespace rooftop::model::testing {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// A GPU with 100 TFLOP/s fp16 (and bf16), 1 TB/s, 80 GiB, NVLink-like 100 GB/s link.
inline catalog::Accelerator test_gpu() {
  catalog::Accelerator a;
  a.id = "test-gpu";
  a.vendor = "test";
  a.kind = catalog::Kind::gpu;
  a.peak_flop_per_s[static_cast<std::size_t>(Precision::fp16)] = {100e12, "test"};
  a.peak_flop_per_s[static_cast<std::size_t>(Precision::bf16)] = {100e12, "test"};
  a.peak_flop_per_s[static_cast<std::size_t>(Precision::fp32)] = {25e12, "test"};
  a.memory_bytes = {80 * kGiB, "test"};
  a.memory_bytes_per_s = {1e12, "test"};
  a.scale_up = {"TestLink", {100e9, "test"}};
  a.host = {"PCIe Gen4 x16", {32e9, "test"}};
  return a;
}

// One operator of `kind` with its FLOPs, weights and activations per sample.
inline workload::Operator one_op(workload::OpKind kind, double flops, double weights, double in, double out) {
  workload::Operator op;
  op.kind = kind;
  op.flops = flops;
  op.weight_elems = weights;
  op.in_elems = in;
  op.out_elems = out;
  return op;
}

// One matmul layer: `params` weights, 2 x params FLOPs per sample.
inline workload::Workload matmul_model(double params, double act_elems = 1000) {
  workload::Workload w;
  w.id = "test-mlp";
  w.params = w.active_params = params;
  workload::Operator op;
  op.name = "fc";
  op.kind = workload::OpKind::matmul;
  op.flops = 2 * params;
  op.weight_elems = params;
  op.params = params;
  op.in_elems = act_elems;
  op.out_elems = act_elems;
  w.ops.push_back(op);
  w.activation_elems_per_sample = 2 * act_elems;
  w.train_activation_elems_per_sample = act_elems;
  return w;
}

// A mixture of experts: a `dense`-parameter matmul and `expert_params` in
// the routed expert FFNs (role routed_expert; the name is any), `experts`
// per layer, top-2.
inline workload::Workload moe_model(double dense, double expert_params, int experts, double act_elems = 10) {
  workload::Workload w = matmul_model(dense, act_elems);
  workload::Operator e = w.ops[0];
  e.name = "ffn.experts";
  e.role = workload::Role::routed_expert;
  e.params = e.weight_elems = expert_params;
  w.ops.push_back(e);
  w.params = w.active_params = dense + expert_params;
  w.experts = experts, w.top_k = 2;
  return w;
}

// A tiny decoder LLM: a prefill op over the prompt and a decode op per token.
inline workload::Workload llm_model() {
  workload::Workload w;
  w.id = "test-llm";
  w.family = workload::Family::decoder_llm;
  w.throughput_unit = "tokens/s";
  w.params = w.active_params = 1e9;
  w.input_tokens = 100;
  w.output_tokens = 10;
  w.kv_elems_per_token = 1e5;
  workload::Operator pre;
  pre.name = "prefill";
  pre.kind = workload::OpKind::matmul;
  pre.phase = workload::Phase::prefill;
  pre.flops = 2e9 * 100;
  pre.weight_elems = 1e9;
  pre.params = 1e9;
  workload::Operator dec = pre;
  dec.name = "decode";
  dec.phase = workload::Phase::decode;
  dec.flops = 2e9;
  dec.in_elems = 1e5 * 105;  // KV cache read at the mean context
  w.ops = {pre, dec};
  return w;
}

}  // namespace rooftop::model::testing

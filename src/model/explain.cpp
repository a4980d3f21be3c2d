// The wording of a prediction: every assumption it rests on, with its value
// and source (`predict` prints them, `--json` lists them). Pure text from the
// Setup and the plan; no price is computed here.
#include <string>

#include "core/text.h"
#include "model/efficiency.h"
#include "model/evaluator.h"

namespace rooftop::model::detail {

void explain(const Setup& s, const Plan& plan, Prediction& out) {
  using workload::Task;
  const catalog::Accelerator& a = *s.a;
  const workload::Workload& w = *s.w;
  const bool needs_link = plan.tp > 1 || plan.pp > 1 || (s.task == Task::train && plan.dp > 1);

  auto say = [&](std::string name, std::string value, std::string source) {
    out.assumptions.push_back({std::move(name), std::move(value), std::move(source)});
  };
  say("compute_efficiency", plain(s.e.compute), s.e.source);
  say("memory_efficiency", plain(s.e.memory), s.e.source);
  say("op_overhead_s", plain(s.e.op_overhead_s), s.e.source);
  say("usable_memory_fraction", plain(kUsableMemoryFraction), "docs/model.md#memory (vLLM gpu_memory_utilization default)");
  say("plan", to_string(plan), "docs/model.md#plans");
  if (!s.req.precision) say("precision", std::string(to_string(s.p)), "docs/model.md#precision (default for the task)");
  if (s.mix.gemm)
    say("precisions", to_string(s.mix) + " (weights, activations, gradients, attention and collectives), fp32 master weights",
        "docs/model.md#fp8-training (NVIDIA Transformer Engine: fp8 GEMMs in Linear layers only)");
  else if (!s.mix.uniform())
    say("precisions", to_string(s.mix), "docs/model.md#precision (compute peak at the activation precision)");
  if (s.a == &s.gpu_only)
    say("dla", "not used: the " + plain(*a.dla_int8_ops.value / 1e12) + " int8 TOPS of the DLAs run CNN layers only",
        "docs/model.md#precision; " + a.id + " catalog entry (compute.dla_int8)");
  for (Assumption& x : op_efficiency_assumptions(a, s.e, s.req.task == Task::train)) out.assumptions.push_back(std::move(x));
  if (!s.req.calibrated.stack.empty())
    say("software_stack",
        s.req.calibrated.stack + (s.req.calibrated.assumptions.empty()
                                      ? " (no fitted parameter for it on this part's vendor: physics alone)"
                                      : ""),
        "docs/model.md#calibration (--stack; default: what the vendor's MLPerf submissions run)");
  for (const Assumption& x : s.req.calibrated.assumptions) out.assumptions.push_back(x);
  if (s.batch_norms && s.e.batch_norm_reread)
    say("batch_norm",
        "two passes over the input in training (statistics, then normalization), the second from memory " +
            (a.sram_bytes.known() ? "unless the input fits the " + iec_bytes(*a.sram_bytes.value) + " last-level cache"
                                  : std::string("(the catalog gives no last-level cache size)")),
        "docs/model.md#batch-norm (PyTorch's two batch norm kernels)");
  if (s.req.scenario == Scenario::server && s.task == Task::infer) {
    say("latency_target_s", s.llm ? "tpot " + plain(s.req.latency_target_s.value_or(kLlmTpotS)) + ", ttft " + plain(kLlmTtftS)
                                  : plain(s.req.latency_target_s.value_or(kServerLatencyS)),
        "docs/model.md#batch (MLPerf llama2-70b server bounds for LLMs)");
  }
  if (s.task == Task::infer)
    say("fusion",
        s.llm ? "elementwise ops fused into their producer, except a gated FFN's activation x gate (its own kernel)"
              : "elementwise ops fused into their producer; CNN batch norm folded into the conv",
        "docs/model.md#fusion");
  if (s.llm) say("llm_batching", "continuous: tokens/s = data x B x O / (prefill(B) + (O - 1) x decode_step(B))", "docs/model.md#llm");
  if (s.llm)
    say("kv_cache",
        s.w->kv_slot_tokens > 0
            ? "static: a slot of " + plain(s.w->kv_slot_tokens) + " tokens per sequence, read whole at every decode step"
            : "paged: each sequence holds its live context, on average I + O/2 tokens",
        s.w->kv_slot_tokens > 0 ? "docs/model.md#static-kv" : "docs/model.md#llm");
  if (needs_link) {
    const detail::Fabric& f = *s.fabric;
    say("link", f.up.name + " " + plain(f.up.peak_bytes_per_s / 1e9) + " GB/s per direction", a.id + " catalog entry");
    if (f.domain > 0) say("scale_up_domain", std::to_string(f.domain) + " devices", a.id + " catalog entry");
    if (!f.out_name.empty())
      say("scale_out", f.out_name + " " + plain(f.out_bytes_per_s / 1e9) + " GB/s per device per direction", a.id + " catalog entry");
    say("link_efficiency", plain(s.e.link), s.e.source);
    say("link_latency_s", plain(f.up_latency_s), "docs/model.md#collectives (NCCL tuning.cc Ring/LL)");
  }
  if (s.req.count > plan.devices())
    say("idle_devices", std::to_string(s.req.count - plan.devices()), "count is not a multiple of the tensor-parallel degree");
  if (s.task == Task::train) {
    const bool adagrad = w.optimizer == workload::Optimizer::adagrad;
    say("optimizer", std::string(workload::to_string(w.optimizer)) + ", mixed precision: weights + grads in " +
                         std::string(to_string(s.mix.compute)) + (adagrad ? ", fp32 master + accumulator" : ", fp32 master + m + v"),
        "docs/model.md#memory");
    say("pipeline_schedule", plan.pp > 1 ? (plan.vp > 1 ? "interleaved 1F1B, bubble " : "1F1B, bubble ") + plain(out.bubble_fraction) : "none",
        "docs/model.md#pipeline (Narayanan et al. SC'21)");
    say("straggler_factor", plain(straggler_factor(plan.devices(), s.req.straggler_cv)), "docs/model.md#stragglers (Blom)");
  }
  if (!w.unsupported_ops.empty()) say("unsupported_ops", std::to_string(w.unsupported_ops.size()) + " ops not costed", w.id);
}

}  // namespace rooftop::model::detail

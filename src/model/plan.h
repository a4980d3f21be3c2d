// A parallel plan: how a job is split over devices (data, tensor, pipeline
// and expert parallel degrees), the micro-batch and gradient accumulation,
// ZeRO/FSDP sharding, activation recompute and sequence parallelism. One
// syntax for every command: "dp=8,tp=4,pp=2,mb=1,ga=16,zero=1,recompute=selective".
// Pure values and parsing; the cost of a plan is model::evaluate (model.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace rooftop::model {

enum class Recompute { none, selective, full };
std::string_view to_string(Recompute r);

struct Plan {
  int dp = 1;      // data-parallel replicas
  int tp = 1;      // tensor-parallel degree (inside the scale-up domain unless forced out)
  int pp = 1;      // pipeline stages
  int ep = 1;      // expert-parallel degree (mixture-of-experts), inside dp
  int vp = 1;      // interleaved virtual stages per pipeline rank (1 = plain 1F1B)
  int mb = 1;      // micro-batch per device (inference: batch per replica)
  int ga = 1;      // micro-batches per optimizer step per data-parallel rank
  int zero = 0;    // 0 none, 1 optimizer states, 2 + gradients, 3 + parameters (FSDP)
  Recompute recompute = Recompute::none;
  bool sp = false;  // sequence parallel: norms and dropout sharded like the tensor-parallel GEMMs

  int devices() const { return dp * tp * pp; }
};

// What a user fixed; the rest is searched.
struct PlanSpec {
  std::optional<int> dp, tp, pp, ep, vp, mb, ga, zero;
  std::optional<Recompute> recompute;
  std::optional<bool> sp;
  bool empty() const {
    return !dp && !tp && !pp && !ep && !vp && !mb && !ga && !zero && !recompute && !sp;
  }
};

// "dp=8,tp=4,pp=2,mb=1,ga=16,zero=1,recompute=selective,sp=1,ep=1,vp=1";
// zero also takes "fsdp" (= 3), sp takes 0/1/true/false/on/off. Errors
// (Errc::invalid_input, context "--plan") name the offending key or value.
Result<PlanSpec> parse_plan(std::string_view text);

// The plan a spec fixes: its keys, the defaults (1, none, off) for the rest.
Plan plan_from(const PlanSpec& spec);

// The canonical string of a plan (every key, parse_plan reads it back).
std::string to_string(const Plan& p);

}  // namespace rooftop::model

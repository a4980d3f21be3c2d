// The Server scenario, simulated: an event-driven continuous-batching
// scheduler (Orca / vLLM with chunked prefill and paged KV) run over
// Poisson arrivals or a trace of (arrival, input, output) requests. Each
// iteration's time comes from the roofline per operator (op_cost), so the
// simulation prices exactly what predict prices. Definitions of TTFT, ITL
// and TPOT: docs/model.md#serving.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/model.h"

namespace rooftop::model {

// One request of a trace: when it arrives and its token lengths.
struct ServeRequest {
  double arrival_s = 0;
  int input_tokens = 1;
  int output_tokens = 1;
};

// Parses a trace CSV: a header naming input_tokens and output_tokens, and
// optionally arrival_s (without it the requests arrive as a Poisson stream
// at the rate given to simulate_server). Errors name file:line and column.
Result<std::vector<ServeRequest>> parse_serve_trace(std::string_view text, const std::string& name,
                                                    bool* has_arrivals = nullptr);

struct SchedulerConfig {
  int max_seqs = 1;               // sequences in flight per replica (the batch)
  double chunk_tokens = 0;        // token budget per iteration (decodes + prefill chunks); 0: unlimited
  int block_tokens = 16;          // paged KV block (vLLM default)
  double kv_blocks = 0;           // blocks the KV cache holds per replica
  double prompt_kv_share = 1;     // beam search: the beams share the prompt's blocks (1 / beams)
};

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0;
};
// Nearest-rank percentiles of `v` (reordered in place); zeros when empty.
Percentiles percentiles(std::vector<double>& v);

// Poisson runs simulate one replica (the others see the same traffic):
// requests and percentiles are that replica's, the rates all replicas'.
struct ServeStats {
  int requests = 0;
  double duration_s = 0;              // first arrival to last token
  double tokens_per_s = 0;            // completed output tokens / duration
  double requests_per_s = 0;
  Percentiles ttft_s;                 // arrival -> first output token
  Percentiles itl_s;                  // between consecutive output tokens of one request (every gap; within 0.1 %)
  Percentiles tpot_s;                 // (last token - first token) / (O - 1): MLPerf's TPOT
  Percentiles tpot_with_first_s;      // (last token - arrival) / O
  Percentiles latency_s;              // arrival -> last token
  long iterations = 0;
  long preemptions = 0;               // sequences evicted when KV blocks ran out (recomputed)
  // The max-rate search stopped this run once more than 1 % of its requests
  // were over a bound (its p99 could no longer meet it): a verdict, whose
  // other figures are not computed (zeros).
  bool failed_bounds = false;
  std::vector<double> first_token_s;  // per request, in input order (absolute time; -1: none)
  std::vector<double> finish_s;       // per request (-1: never finished)
};

// Runs the scheduler over `requests` on one replica. Each iteration: every
// running sequence decodes one token, then prompts are prefilled in arrival
// order (chunked to the token budget) while sequences and KV blocks last;
// a decode that finds no free block evicts the newest sequence (vLLM's
// recompute preemption). Pure.
ServeStats simulate(const std::vector<ServeRequest>& requests, const SchedulerConfig& config,
                    const IterationTime& time);

// The MLPerf Server latency bounds for a model (p99), by zoo id; an LLM the
// table lacks gets TTFT 2 s / TPOT 200 ms (llama2-70b's).
struct ServeBounds {
  double ttft_s = 0, tpot_s = 0;      // 0: not bounded
  double latency_s = 0;               // whole-request bound (gpt-j), 0: none
  std::string source;
};
ServeBounds server_bounds(const workload::Workload& w, std::optional<double> tpot_target_s);
// MLPerf's Interactive scenario (from v5.0): a Server run judged at tighter
// p99 TTFT and TPOT bounds. Errors: a model MLPerf gives no such bounds for.
Result<ServeBounds> interactive_bounds(const workload::Workload& w);

// Options of one server simulation.
struct ServeOptions {
  std::optional<double> rate_per_s;               // simulate at this rate (all replicas together)
  std::vector<ServeRequest> trace;                // lengths (and arrivals when has_arrivals)
  bool trace_has_arrivals = false;
  int requests = 0;                               // Poisson requests per replica (0: ten minutes of traffic, capped)
  int max_requests = 0;                           // cap on those ten minutes (0: 1,500 LLM / 25,000 one-pass requests)
  double chunk_tokens = 2048;                     // chunked-prefill token budget per iteration
  bool max_rate = true;                           // also search the highest rate meeting the bounds (advise: off)
  std::optional<ServeBounds> bounds;              // judge at these (Interactive); default server_bounds()
};

struct ServePrediction {
  bool llm = true;                                // false: one forward pass per request (TTFT = latency)
  Plan plan;                                      // the plan served (from predict)
  SchedulerConfig scheduler;
  ServeBounds bounds;
  std::optional<double> rate_per_s;               // the rate simulated, when one was
  ServeStats at_rate;                             // at that rate (or the trace's own arrivals)
  double max_rate_per_s = 0;                      // highest Poisson rate meeting the bounds
  ServeStats at_max;
  double max_tokens_per_s = 0;                    // output tokens/s at that rate
};

// Simulates the Server scenario: the plan and batch predict() chooses
// (paged KV gives an LLM's blocks), each iteration priced by the roofline.
// A model without a decode phase runs one forward pass per request, the
// queued requests batched together (up to the batch). Errors: bad rate, a
// trace for a non-LLM, trace lengths beyond the KV cache.
Result<ServePrediction> simulate_server(const Request& req, const ServeOptions& opts);
// The same, serving a prediction `ev` already made (its plan and batch):
// every iteration is priced by ev.iteration_time, as `predict` prices it.
Result<ServePrediction> simulate_server(const Evaluator& ev, const Prediction& pred, const ServeOptions& opts);

// The roofline price of one iteration of `w` under `plan` on `a` at `p`
// (tensor-parallel all-reduces included); without a decode phase, one
// forward pass of prefill_tokens samples.
Result<IterationTime> roofline_iteration_time(const Request& req, const PrecisionMix& p, const Plan& plan);

}  // namespace rooftop::model

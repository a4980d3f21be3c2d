// Internal to advise: scoring, ranking and the ecosystem check, shared by
// advise.cpp and score.cpp (not part of the public API).
#pragma once

#include <string>

#include "advise/advise.h"
#include "advise/formulas.h"

namespace rooftop::advise {

// Why `a` cannot run the required stack (framework missing or too old,
// runtime or custom-op language absent); empty when it can.
std::string ecosystem_gap(const Scenario& s, const catalog::Accelerator& a);
// 0..1: with requirements, 1 minus 0.25 per required framework whose
// supported version the catalog does not state; without, the share of the
// four major frameworks (pytorch, tensorflow, jax, onnxruntime) listed.
double ecosystem_score(const Scenario& s, const catalog::Accelerator& a, std::vector<std::string>* notes);

// What the catalog lacks to price `a` for the scenario's deployment: "no
// cloud price in the catalog", "no list price in the catalog", "no TDP in the
// catalog (energy unknown)"; empty when it can be priced.
std::string missing_cost(const Scenario& s, const catalog::Accelerator& a);

// Compute bought: devices x the part's fastest dense peak among the
// scenario's allowed precisions (FLOP/s). Not the chosen precision's peak: a
// run in fp32 on a bf16 part buys the bf16 part all the same.
double capacity(const Scenario& s, const Candidate& c);

// What tco() needs to price `c` for the scenario (buying, or renting when the
// deployment is cloud); its prices from the catalog.
TcoInput tco_input(const Scenario& s, const Candidate& c);

// Scores, Pareto front, ranking and explanations of out.candidates (and the baseline).
void score_and_rank(const Scenario& s, Advice& out);

// The assumptions the advice rests on (economics with their sources or
// "default", model efficiencies, queueing and straggler models).
void add_assumptions(const Scenario& s, const workload::Workload& w, Advice& out);

}  // namespace rooftop::advise

// The behaviour models behind the synthesizers (synth.cpp): one sample of a
// device behaving as a kind ("healthy", "idle", ... and "straggler-peer").
#pragma once

#include <random>
#include <string>

#include "analyze/synth.h"

namespace rooftop::analyze {

struct SynthGen {
  std::mt19937_64 rng;
  double n(double mean, double sd) { return std::normal_distribution<double>(mean, sd)(rng); }
  double u() { return std::uniform_real_distribution<double>(0, 1)(rng); }
};

void synth_sample(const std::string& kind, double t, const SynthOptions& o, SynthGen& g, telemetry::TraceRow& r);

}  // namespace rooftop::analyze

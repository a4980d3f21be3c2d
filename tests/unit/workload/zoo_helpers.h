// Helpers the workload tests share: a zoo model that must build, and a
// relative comparison against a published figure that names it on failure.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "workload/workload.h"

namespace rooftop::workload::testing {

inline Workload zoo(const std::string& id, BuildOptions o = {}) {
  Result<Workload> w = build_zoo(id, o);
  EXPECT_TRUE(w) << (w ? "" : w.error().what());
  return w ? *w : Workload{};
}

inline void expect_near_rel(double got, double want, double rel, const std::string& what) {
  EXPECT_NEAR(got / want, 1.0, rel) << what << ": got " << got << ", published " << want;
}

}  // namespace rooftop::workload::testing

// The clock decision on recorded figures (the AVX-512 Xeon guest whose
// add-immediate probe read 10.42, 11.84 and 8.6 GHz against 2.30 GHz in
// /proc/cpuinfo), and the probe's add chain: its result is checked, so the
// compiler cannot have folded it away.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "bench/clock.h"
#include "bench/cpu_info.h"

namespace rooftop::bench {
namespace {

ClockEvidence vm_guest(std::vector<double> probe) {
  ClockEvidence e;
  e.probe_hz = std::move(probe);
  e.cpuinfo_hz = 2.30e9;  // the TSC a KVM guest reports; no cpufreq in the guest
  return e;
}

TEST(Clock, RecordedVmFiguresAboveSixAndAHalfGhzAreRejected) {
  for (double probe : {10.42e9, 11.84e9, 8.6e9}) {
    ClockVerdict v = decide_clock(vm_guest({probe}));
    EXPECT_FALSE(v.measured_hz) << probe;
    ASSERT_TRUE(v.theory_hz);
    EXPECT_DOUBLE_EQ(*v.theory_hz, 2.30e9);
    EXPECT_EQ(v.theory_source, "/proc/cpuinfo");
    EXPECT_NE(v.note.find("6.50 GHz"), std::string::npos) << v.note;
  }
  ClockVerdict all = decide_clock(vm_guest({10.42e9, 11.84e9, 8.6e9}));
  EXPECT_FALSE(all.measured_hz);
  EXPECT_NE(all.note.find("11.84 GHz"), std::string::npos) << all.note;  // the best try is the figure judged
  // fp64 AVX-512 theory for the guest's 2 cores: 2 x 32 x 2.30 GHz = 147 GFLOP/s, not 667.
  EXPECT_NEAR(2 * 32 * *all.theory_hz / 1e9, 147.2, 0.1);
  std::string text = describe_clock(all, 2.30e9);
  EXPECT_EQ(text.rfind("unknown (", 0), 0u) << text;
  EXPECT_NE(text.find("theory at 2.30 GHz (/proc/cpuinfo)"), std::string::npos) << text;
}

TEST(Clock, FiguresAboveOneAndAHalfTimesTheReportedClockAreRejected) {
  ClockVerdict v = decide_clock(vm_guest({3.6e9}));  // plausible for a CPU, not for this one
  EXPECT_FALSE(v.measured_hz);
  EXPECT_NE(v.note.find("1.5x"), std::string::npos) << v.note;
  EXPECT_DOUBLE_EQ(*v.theory_hz, 2.30e9);
}

TEST(Clock, TurboAboveTheTscIsBelieved) {
  // Emerald Rapids guest: TSC 2.1 GHz, cores at 2.93 GHz all-core turbo.
  ClockEvidence e;
  e.probe_hz = {2.85e9, 2.93e9, 2.60e9};  // a preempted try reads low; the best counts
  e.cpuinfo_hz = 2.1e9;
  e.model_name_hz = 2.1e9;
  ClockVerdict v = decide_clock(e);
  ASSERT_TRUE(v.measured_hz);
  EXPECT_DOUBLE_EQ(*v.measured_hz, 2.93e9);
  EXPECT_DOUBLE_EQ(*v.theory_hz, 2.93e9);
  EXPECT_EQ(v.theory_source, "measured");
  EXPECT_TRUE(v.note.empty());
  EXPECT_EQ(describe_clock(v, 2.1e9), "2.93 GHz measured, 2.10 GHz nominal");
}

TEST(Clock, AProbeOnSharedCpusIsKeptWithACaveat) {
  // Recorded on a 2-vCPU guest (TSC 2.60 GHz) while other builds held ~8 runnable threads.
  ClockEvidence e;
  e.probe_hz = {0.728e9, 0.771e9, 0.639e9};
  e.cpuinfo_hz = 2.6e9;
  ClockVerdict v = decide_clock(e);
  ASSERT_TRUE(v.measured_hz);
  EXPECT_DOUBLE_EQ(*v.theory_hz, 0.771e9);
  EXPECT_NE(v.note.find("shared"), std::string::npos) << v.note;
  EXPECT_EQ(describe_clock(v, 2.6e9).rfind("0.77 GHz measured (below half the 2.60 GHz /proc/cpuinfo reports", 0), 0u);
}

TEST(Clock, TheHighestCredibleReportedClockCarriesTheTheory) {
  ClockEvidence e;
  e.probe_hz = {20e9};
  e.cpufreq_max_hz = 3.8e9;    // bare metal: single-core turbo
  e.cpuinfo_hz = 1.2e9;        // an idle core
  e.model_name_hz = 2.3e9;
  ClockVerdict v = decide_clock(e);
  EXPECT_DOUBLE_EQ(*v.theory_hz, 3.8e9);
  EXPECT_EQ(v.theory_source, "cpufreq max");
  // A reported figure beyond physics is not credible either.
  e.cpufreq_max_hz = 9e9;
  v = decide_clock(e);
  EXPECT_DOUBLE_EQ(*v.theory_hz, 2.3e9);
  EXPECT_EQ(v.theory_source, "model name");
  // 4.0 GHz is within 1.5x of 3.8 GHz once cpufreq is credible.
  e.cpufreq_max_hz = 3.8e9;
  e.probe_hz = {4.0e9};
  EXPECT_TRUE(decide_clock(e).measured_hz);
}

TEST(Clock, NothingCredibleMeansNoTheory) {
  ClockEvidence e;
  e.probe_hz = {7e9};
  ClockVerdict v = decide_clock(e);
  EXPECT_FALSE(v.measured_hz);
  EXPECT_FALSE(v.theory_hz);
  EXPECT_NE(describe_clock(v, std::nullopt).find("no theoretical peak"), std::string::npos);
  ClockVerdict none = decide_clock(ClockEvidence{});
  EXPECT_FALSE(none.measured_hz);
  EXPECT_NE(none.note.find("did not run"), std::string::npos);
  // Without any reported frequency a plausible probe stands alone.
  e.probe_hz = {3.2e9};
  EXPECT_DOUBLE_EQ(*decide_clock(e).measured_hz, 3.2e9);
}

TEST(Clock, NominalClockFromTheModelName) {
  EXPECT_DOUBLE_EQ(*clock_from_model_name("Intel(R) Xeon(R) Gold 6140 CPU @ 2.30GHz"), 2.3e9);
  EXPECT_DOUBLE_EQ(*clock_from_model_name("Intel(R) Core(TM) i7 CPU @ 2800MHz"), 2.8e9);
  EXPECT_FALSE(clock_from_model_name("Intel(R) Xeon(R) Processor"));
  EXPECT_FALSE(clock_from_model_name("AMD EPYC 7763 64-Core Processor"));
  EXPECT_FALSE(clock_from_model_name("Weird @ fastGHz"));
  EXPECT_FALSE(clock_from_model_name(""));
}

// The chain's sum depends on every add and on values the compiler cannot
// know (read through volatile), so it cannot fold or shorten the chain.
TEST(Clock, AddChainComputesEveryDependentAdd) {
  std::mt19937_64 rng(14);
  for (std::uint64_t iters : {1ull, 3ull, 1000ull, 1ull << 20}) {
    volatile std::uint64_t seed_v = rng(), step_v = rng() | 1;
    std::uint64_t seed = seed_v, step = step_v;
    EXPECT_EQ(add_chain(seed, step, iters), seed + 8 * iters * step) << iters;
  }
  EXPECT_EQ(add_chain(5, 7, 0), 5u);
}

#if defined(__x86_64__)
TEST(Clock, ProbeReturnsOneFigurePerTry) {
  auto figures = probe_clock_hz({allowed_cpus().front()}, 2, 0.01);
  ASSERT_EQ(figures.size(), 2u);
  for (double hz : figures) EXPECT_GT(hz, 0);
}
#endif

// A Sapphire Rapids guest whose /proc/cpuinfo reports only the 2.60 GHz base:
// the probe reads 4.15 GHz (above 1.5x), and the AVX-512 FMA kernels ran at
// 246.4 GFLOP/s on 2 cores x 32 FLOP/cycle = 3.85 GHz, which confirms it.
TEST(Clock, KernelsCorroborateAProbeAboveTheReportedBaseClock) {
  ClockEvidence e;
  e.probe_hz = {4.15e9, 4.10e9};
  e.cpuinfo_hz = 2.60e9;
  ClockVerdict first = decide_clock(e);
  ASSERT_FALSE(first.measured_hz);  // rejected by the 1.5x rule alone
  ClockVerdict v = corroborate_clock(first, e, 246.4e9 / (2 * 32));
  ASSERT_TRUE(v.measured_hz);
  EXPECT_DOUBLE_EQ(*v.measured_hz, 4.15e9);
  EXPECT_DOUBLE_EQ(*v.theory_hz, 4.15e9);
  EXPECT_EQ(v.theory_source, "measured");
  EXPECT_NE(v.note.find("confirmed by the FMA kernels"), std::string::npos) << v.note;
  // The % column is then in range for the FMA kernel: 246.4 / (2 x 32 x 4.15) = 0.93.
  const double pct = 246.4e9 / (2 * 32 * *v.theory_hz);
  EXPECT_GT(pct, 0.5);
  EXPECT_LE(pct, 1.0);
}

// Kernels far below the probe do not confirm it; theory stays at the
// reported clock, which the kernels do not exceed.
TEST(Clock, KernelsBelowTheProbeLeaveItRejected) {
  ClockVerdict first = decide_clock(vm_guest({10.42e9}));
  ClockVerdict v = corroborate_clock(first, vm_guest({10.42e9}), 2.1e9);
  EXPECT_FALSE(v.measured_hz);
  EXPECT_DOUBLE_EQ(*v.theory_hz, 2.30e9);
  EXPECT_EQ(v.theory_source, "/proc/cpuinfo");
  // A probe that is no clock at all (above 6.5 GHz) is never confirmed, but
  // theory never sits below the clock the kernels proved.
  v = corroborate_clock(first, vm_guest({10.42e9}), 3.0e9);
  EXPECT_FALSE(v.measured_hz);
  EXPECT_DOUBLE_EQ(*v.theory_hz, 3.0e9);
  EXPECT_EQ(v.theory_source, "FMA kernels");
  // A probe already believed is left as it is.
  ClockEvidence ok;
  ok.probe_hz = {3.0e9};
  ok.cpuinfo_hz = 2.6e9;
  ClockVerdict measured = decide_clock(ok);
  ASSERT_TRUE(measured.measured_hz);
  EXPECT_DOUBLE_EQ(*corroborate_clock(measured, ok, 2.5e9).theory_hz, 3.0e9);
}

}  // namespace
}  // namespace rooftop::bench

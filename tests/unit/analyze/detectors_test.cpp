// The detectors against labelled synthetic traces: precision and recall on
// the standard set must both be 1.0, with no finding on a healthy fleet.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "analyze/analyze.h"
#include "analyze/sources.h"
#include "analyze/synth.h"

namespace rooftop::analyze {
namespace {

constexpr double kStart = 1.7e9;

std::vector<Finding> run(const std::string& kind, int devices = 0, std::uint64_t seed = 1,
                         const std::string& host = "") {
  SynthOptions o;
  o.kind = kind;
  o.devices = devices;
  o.seed = seed;
  o.host = host;
  Result<SynthResult> r = synthesize(o);
  EXPECT_TRUE(r) << r.error().what();
  return detect(profile_trace(r->trace, kStart), Thresholds{});
}

TEST(Detectors, HealthyFleetHasNoFindings) {
  for (std::uint64_t seed : {1, 2, 3}) {
    std::vector<Finding> f = run("healthy", 8, seed);
    for (const Finding& x : f) ADD_FAILURE() << "unexpected " << to_string(x.kind) << " on " << x.device << ": " << x.summary;
  }
}

TEST(Detectors, PrecisionAndRecallOnTheStandardSet) {
  std::size_t tp = 0, fp = 0, fn = 0;
  for (const std::string& kind : synth_kinds()) {
    for (const std::string& host : {std::string(), std::string("node-x")}) {
      SynthOptions o;
      o.kind = kind;
      o.host = host;
      o.devices = kind == "mix" ? 10 : 6;
      if (kind == "mix" && !host.empty()) o.devices = 9;
      Result<SynthResult> r = synthesize(o);
      ASSERT_TRUE(r) << r.error().what();
      std::vector<Finding> found = detect(profile_trace(r->trace, kStart), Thresholds{});
      std::set<std::pair<std::string, std::string>> want, got;
      for (const Planted& p : r->planted) want.insert({p.kind, p.device});
      for (const Finding& f : found) got.insert({std::string(to_string(f.kind)), f.device});
      for (const auto& g : got) {
        if (want.count(g)) {
          ++tp;
        } else {
          ++fp;
          ADD_FAILURE() << kind << (host.empty() ? "" : " on one host") << ": false positive " << g.first << " on " << g.second;
        }
      }
      for (const auto& w : want) {
        if (!got.count(w)) {
          ++fn;
          ADD_FAILURE() << kind << (host.empty() ? "" : " on one host") << ": missed " << w.first << " on " << w.second;
        }
      }
    }
  }
  double precision = tp + fp ? static_cast<double>(tp) / static_cast<double>(tp + fp) : 1;
  double recall = tp + fn ? static_cast<double>(tp) / static_cast<double>(tp + fn) : 1;
  std::printf("detectors on the standard set: precision %.3f, recall %.3f (%zu true, %zu false positives, %zu missed)\n",
              precision, recall, tp, fp, fn);
  EXPECT_EQ(precision, 1.0);
  EXPECT_EQ(recall, 1.0);
  EXPECT_GT(tp, 15u);
}

TEST(Detectors, FindingsCarryEvidenceWindowAndAreRankedByWaste) {
  std::vector<Finding> f = run("mix");
  ASSERT_FALSE(f.empty());
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_FALSE(f[i].evidence.empty());
    EXPECT_FALSE(f[i].recommendation.empty());
    EXPECT_LT(f[i].window.from_s, f[i].window.to_s);
    EXPECT_GE(f[i].window.from_s, kStart);
    if (i > 0) {
      EXPECT_GE(f[i - 1].wasted_device_hours, f[i].wasted_device_hours);
    }
  }
  EXPECT_EQ(f.front().kind, FindingKind::idle);  // an idle device wastes the most
}

TEST(Detectors, ThresholdsCanBeOverridden) {
  Thresholds t;
  EXPECT_TRUE(t.set("underused_p95_pct=40"));
  EXPECT_EQ(t.underused_p95_pct, 40);
  Result<void> bad = t.set("underused_p59_pct=40");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("did you mean"), std::string::npos);
  EXPECT_FALSE(t.set("idle_util_pct=-1"));
  EXPECT_FALSE(t.set("idle_util_pct"));
}

TEST(Profiler, HistogramPercentilesAndBuckets) {
  Profiler p(0, 1000, 1);
  int d = p.add_device(DeviceKey{"h", 0, "", "", ""});
  for (int i = 0; i < 1000; ++i) {
    Obs o;
    o.t_s = i;
    o.util_pct = static_cast<float>(i % 100);
    p.add(d, o);
  }
  Profiles pr = p.finish();
  EXPECT_EQ(pr.points, 1000u);
  EXPECT_NEAR(pr.devices[0].util_percentile(0.95), 94, 1);
  EXPECT_NEAR(pr.devices[0].util_mean(), 49.5, 0.01);
  EXPECT_DOUBLE_EQ(pr.devices[0].step_s, 1);
  EXPECT_EQ(pr.bucket_s, 5);
}

TEST(Synth, BadInputIsNamed) {
  SynthOptions o;
  o.kind = "stragler";
  Result<SynthResult> r = synthesize(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("did you mean: straggler"), std::string::npos);
  o.kind = "straggler";
  o.devices = 2;
  EXPECT_EQ(synthesize(o).error().context, "--devices");
}

TEST(Sources, MatcherAndTimeParsing) {
  Result<Matcher> m = parse_matcher("host=node-1, gpu=\"0\"");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->labels.at("host"), "node-1");
  EXPECT_EQ(m->labels.at("gpu"), "0");
  EXPECT_FALSE(parse_matcher("host"));
  EXPECT_DOUBLE_EQ(*parse_time("2026-11-30T00:00:00Z"), 1795996800.0);
  EXPECT_DOUBLE_EQ(*parse_time("1700000000"), 1.7e9);
  EXPECT_FALSE(parse_time("yesterday"));
  EXPECT_EQ(format_time(1795996800.0), "2026-11-30T00:00:00Z");
}

}  // namespace
}  // namespace rooftop::analyze

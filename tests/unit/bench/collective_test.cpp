// algbw/busbw/eta against the nccl-tests definitions, the size sweep, the
// rank-0 row format and the mpirun command line.
#include <gtest/gtest.h>

#include "bench/collective.h"

namespace rooftop::bench {
namespace {

TEST(Collective, BusBandwidthFactorsAreNcclTests) {
  // NVIDIA/nccl-tests doc/PERFORMANCE.md
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_gather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_to_all, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::reduce, 8), 1.0);
}

TEST(Collective, AlgbwIsSizeOverTime) {
  EXPECT_DOUBLE_EQ(algbw(1e9, 0.5), 2e9);
  EXPECT_DOUBLE_EQ(algbw(1e9, 0), 0);
  EXPECT_DOUBLE_EQ(busbw(CollectiveOp::all_reduce, 4, 2e9), 3e9);
}

TEST(Collective, EtaIsTheSeedsFormula) {
  // (n-1)/n x B_eff / B_max: 8 ranks, 40 GB/s effective, 50 GB/s link.
  EXPECT_DOUBLE_EQ(eta(8, 40e9, 50e9), 0.7);
  EXPECT_DOUBLE_EQ(eta(2, 10e9, 0), 0);
}

TEST(Collective, FinishFillsEveryRate) {
  CollectiveResult r;
  r.bytes = 1 << 20;
  r.ranks = 4;
  r.time_s = Stats{{1e-3}, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3};
  finish_allreduce(r, 12.5e9);
  EXPECT_DOUBLE_EQ(r.algbw_bytes_per_s, 1048576e3);
  EXPECT_DOUBLE_EQ(r.busbw_bytes_per_s, 1048576e3 * 1.5);
  ASSERT_TRUE(r.eta);
  EXPECT_DOUBLE_EQ(*r.eta, 0.75 * 1048576e3 / 12.5e9);
  CollectiveResult no_link = r;
  no_link.eta.reset();
  finish_allreduce(no_link, 0);
  EXPECT_FALSE(no_link.eta);
}

TEST(Collective, SweepIs1KiBTo256MiB) {
  auto s = allreduce_sizes(false);
  ASSERT_EQ(s.size(), 19u);
  EXPECT_DOUBLE_EQ(s.front(), 1024);
  EXPECT_DOUBLE_EQ(s.back(), 256.0 * 1024 * 1024);
  auto q = allreduce_sizes(true);
  EXPECT_DOUBLE_EQ(q.back(), 1024.0 * 1024);
  EXPECT_EQ(q.size(), 6u);
}

TEST(Collective, RowsRoundTrip) {
  CollectiveResult r;
  r.backend = "mpi";
  r.bytes = 4096;
  r.ranks = 2;
  r.verified = true;
  r.time_s.samples = {2e-6, 1e-6, 3e-6};
  auto back = from_tsv(to_tsv({r}), 0);
  ASSERT_TRUE(back) << back.error().what();
  ASSERT_EQ(back->size(), 1u);
  const auto& b = back->front();
  EXPECT_EQ(b.backend, "mpi");
  EXPECT_EQ(b.ranks, 2);
  EXPECT_TRUE(b.verified);
  EXPECT_DOUBLE_EQ(b.time_s.median, 2e-6);
  EXPECT_DOUBLE_EQ(b.algbw_bytes_per_s, 4096 / 2e-6);
  EXPECT_DOUBLE_EQ(b.busbw_bytes_per_s, 4096 / 2e-6);
}

TEST(Collective, MalformedRowsAreRejectedWithTheirLine) {
  auto r = from_tsv("mpi\t4096\t2\t1\t1e-6\nmpi\tx\t2\t1\t1e-6\n", 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().context, "line 2");
  EXPECT_FALSE(from_tsv("mpi\t4096\t2\t1\t-1\n", 0));
}

TEST(Collective, MpirunCommandOversubscribesOnlyWhenNeeded) {
  auto v = mpirun_argv("/usr/bin/mpirun", 4, 2, "/x/rooftop", {"bench", "collective"});
  EXPECT_EQ(v[0], "/usr/bin/mpirun");
  EXPECT_EQ(v[2], "4");
  EXPECT_NE(std::find(v.begin(), v.end(), "--oversubscribe"), v.end());
  EXPECT_EQ(v[v.size() - 3], "/x/rooftop");
  EXPECT_EQ(v.back(), "collective");
  auto w = mpirun_argv("mpirun", 2, 2, "r", {});
  EXPECT_EQ(std::find(w.begin(), w.end(), "--oversubscribe"), w.end());
  EXPECT_NE(std::find(w.begin(), w.end(), "self,vader"), w.end());
}

}  // namespace
}  // namespace rooftop::bench

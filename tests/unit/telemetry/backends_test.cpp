// proc and fake backends, and the registry.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "telemetry/telemetry.h"
#include "test_util.h"

namespace rooftop::telemetry {
namespace {

TEST(ProcBackend, ReadsFixtureCountersAndCpuDeltas) {
  const std::string root = test::scratch_dir("proc");
  std::filesystem::copy(test::source_path("tests/data/proc/basic"), root, std::filesystem::copy_options::recursive);
  BackendOptions opts;
  opts.proc_root = root;
  auto b = make_backend("proc", opts);
  ASSERT_TRUE(b);
  auto devices = (*b)->open();
  ASSERT_TRUE(devices);
  EXPECT_TRUE(devices->empty());
  std::filesystem::copy_file(root + "/proc/stat.next", root + "/proc/stat",
                             std::filesystem::copy_options::overwrite_existing);
  auto h = (*b)->sample_host();
  ASSERT_TRUE(h);
  EXPECT_EQ(h->host, "fixture-host");
  EXPECT_DOUBLE_EQ(*h->cpu_busy_pct, 40);
  EXPECT_DOUBLE_EQ(*h->cpu_iowait_pct, 10);
  ASSERT_EQ(h->core_busy_pct.size(), 2u);
  EXPECT_DOUBLE_EQ(h->core_busy_pct[0], 0);
  EXPECT_DOUBLE_EQ(h->core_busy_pct[1], 80);
  EXPECT_DOUBLE_EQ(*h->mem_total_bytes, 16384000.0 * 1024);
  EXPECT_DOUBLE_EQ(*h->mem_available_bytes, 8192000.0 * 1024);
  EXPECT_DOUBLE_EQ(*h->load1, 1.5);
  EXPECT_DOUBLE_EQ(*h->disk_read_bytes_total, 2048.0 * 512);   // vda only: not vda1, not loop0
  EXPECT_DOUBLE_EQ(*h->disk_written_bytes_total, 4096.0 * 512);
  EXPECT_DOUBLE_EQ(*h->net_rx_bytes_total, 1002000);          // eth0 + eth1, not lo
  EXPECT_DOUBLE_EQ(*h->net_tx_bytes_total, 503000);
}

// Inside a pod the kernel's host name is the pod's; the DaemonSet sets
// NODE_NAME to the node's name, which wins when set (the option wins over both).
TEST(ProcBackend, NodeNameOverridesTheKernelHostName) {
  const std::string root = test::scratch_dir("proc-node");
  std::filesystem::copy(test::source_path("tests/data/proc/basic"), root, std::filesystem::copy_options::recursive);
  auto host_with = [&](const char* env, const std::string& option) {
    if (env) setenv("NODE_NAME", env, 1);
    else unsetenv("NODE_NAME");
    BackendOptions opts;
    opts.proc_root = root;
    opts.node_name = option;
    auto b = make_backend("proc", opts);
    unsetenv("NODE_NAME");
    if (!b || !(*b)->open()) return std::string("<error>");
    auto h = (*b)->sample_host();
    return h ? h->host : std::string("<none>");
  };
  EXPECT_EQ(host_with(nullptr, ""), "fixture-host");
  EXPECT_EQ(host_with("gpu-node-7", ""), "gpu-node-7");
  EXPECT_EQ(host_with("", ""), "fixture-host");  // set but empty: not a name
  EXPECT_EQ(host_with("gpu-node-7", "explicit"), "explicit");
}

TEST(ProcBackend, MissingProcIsAnError) {
  BackendOptions opts;
  opts.proc_root = "/nonexistent-root";
  auto b = make_backend("proc", opts);
  ASSERT_TRUE(b);
  EXPECT_FALSE((*b)->open());
}

TEST(FakeBackend, ReplaysRowsByTimeAndLoopsWithRisingEnergy) {
  double now = 100;
  BackendOptions opts;
  opts.clock_s = [&] { return now; };
  auto b = make_backend("fake:" + test::source_path("data/traces/h100x2-training.csv"), opts);
  ASSERT_TRUE(b);
  auto devices = (*b)->open();
  ASSERT_TRUE(devices) << devices.error().what();
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[1].uuid, "GPU-7f1c2d3e-0000-4000-8000-000000000001");
  EXPECT_EQ((*devices)[0].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ((*devices)[0].host, "node-a");
  DeviceSample s = (*b)->sample(0);
  EXPECT_EQ(*s.gpu_util_pct, 96);
  EXPECT_EQ(s.job, "llama-7b-pretrain");
  now = 118.5;  // checkpoint stall
  s = (*b)->sample(1);
  EXPECT_EQ(*s.gpu_util_pct, 12);
  EXPECT_EQ(*s.throttle_reasons, 0x1u);
  EXPECT_EQ(*(*b)->sample_host()->cpu_iowait_pct, 31);
  const double energy_first_loop = *(*b)->sample(0).energy_j;
  now = 100 + 60 + 18.5;  // one loop later (period 60 s)
  EXPECT_EQ(*(*b)->sample(1).gpu_util_pct, 12);
  EXPECT_GT(*(*b)->sample(0).energy_j, energy_first_loop);
  EXPECT_EQ(DeviceSample{}.gpu_util_pct, (*b)->sample(7).gpu_util_pct);  // out of range: empty
}

TEST(Registry, RejectsUnknownBackendsWithSuggestion) {
  auto bad = make_backends("proc,nvm", {});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Errc::invalid_input);
  EXPECT_NE(bad.error().message.find("nvml"), std::string::npos);
  EXPECT_FALSE(make_backends("fake", {}));
  EXPECT_FALSE(make_backends("", {}));
  auto all = make_backends("auto", {});
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 4u);
}

// This machine has neither ROCm SMI nor DCMI: open() says which library it tried.
TEST(Registry, VendorBackendsWithoutLibraryAreNotFound) {
  for (const auto& [name, lib] : {std::pair{"rocm", "librocm_smi64.so"}, std::pair{"ascend", "libdcmi.so"}}) {
    auto b = make_backend(name, {});
    ASSERT_TRUE(b);
    auto d = (*b)->open();
    ASSERT_FALSE(d) << name;
    EXPECT_EQ(d.error().code, Errc::not_found) << name;
    EXPECT_NE(d.error().what().find(lib), std::string::npos) << d.error().what();
  }
}

TEST(Registry, AutoMakesEveryBackendOptionalAndAListRequiresEach) {
  auto all = make_backends("auto", {});
  ASSERT_TRUE(all);
  for (const auto& b : *all) EXPECT_FALSE(b->required()) << b->name();
  auto named = make_backends("proc,rocm", {});
  ASSERT_TRUE(named);
  for (const auto& b : *named) EXPECT_TRUE(b->required()) << b->name();
}

// `--backends rocm` on a machine without ROCm: an error naming the backend
// and the library (exit 2 in the CLI), never "0 devices" in silence.
TEST(Sampler, RequiredBackendThatCannotLoadIsAnError) {
  auto backends = make_backends("rocm", {});
  ASSERT_TRUE(backends);
  Sampler sampler(std::move(*backends));
  auto r = sampler.open();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Errc::not_found);
  EXPECT_EQ(r.error().context, "--backends rocm");
  EXPECT_NE(r.error().message.find("librocm_smi64.so"), std::string::npos) << r.error().what();
}

// Under "auto" the missing vendor libraries are one warning, and the host is still served.
TEST(Sampler, AutoWithoutVendorLibrariesWarnsOnceAndGoesOn) {
  const std::string root = test::scratch_dir("proc-auto");
  std::filesystem::copy(test::source_path("tests/data/proc/basic"), root, std::filesystem::copy_options::recursive);
  BackendOptions opts;
  opts.proc_root = root;
  opts.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  auto backends = make_backends("auto", opts);
  ASSERT_TRUE(backends);
  Sampler sampler(std::move(*backends));
  std::vector<std::string> warnings;
  ASSERT_TRUE(sampler.open(&warnings));
  ASSERT_EQ(warnings.size(), 1u);
  for (const char* part : {"nvml", "/nonexistent/libnvidia-ml.so.1", "rocm", "ascend", "libdcmi.so"})
    EXPECT_NE(warnings[0].find(part), std::string::npos) << part << " in " << warnings[0];
  EXPECT_TRUE(sampler.devices().empty());
  EXPECT_TRUE(sampler.sample_once().host);
}

TEST(Sampler, ThreadDeliversSnapshotsAndStops) {
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(std::move(*make_backend("fake:" + test::source_path("data/traces/a100-idle.csv"), {})));
  Sampler sampler(std::move(backends));
  ASSERT_TRUE(sampler.open());
  ASSERT_EQ(sampler.devices().size(), 1u);
  std::mutex mu;
  std::condition_variable cv;
  int rounds = 0;
  sampler.start(0.01, [&](const Snapshot& s) {
    EXPECT_EQ(s.devices.size(), 1u);
    std::lock_guard lock(mu);
    ++rounds;
    cv.notify_all();
  });
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return rounds >= 3; }));
  lock.unlock();
  sampler.stop();
}

TEST(Sampler, OneFailingOptionalBackendAmongSeveralIsAWarning) {
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(std::move(*make_backend("fake:/nonexistent.csv", {})));
  backends.back()->set_required(false);
  backends.push_back(std::move(*make_backend("fake:" + test::source_path("data/traces/a100-idle.csv"), {})));
  Sampler sampler(std::move(backends));
  std::vector<std::string> warnings;
  ASSERT_TRUE(sampler.open(&warnings));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("nonexistent.csv"), std::string::npos);
  EXPECT_EQ(sampler.sample_once().devices.size(), 1u);
}

}  // namespace
}  // namespace rooftop::telemetry

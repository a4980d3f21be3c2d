// Exposition: names, labels, units, grouping, and promtool as an oracle.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "telemetry/telemetry.h"
#include "test_util.h"

namespace rooftop::telemetry {
namespace {

Snapshot sample_snapshot() {
  Snapshot s;
  s.time_s = 1700000000;
  s.collect_duration_s = 0.002;
  DeviceReading r;
  r.info.backend = "nvml";
  r.info.index = 0;
  r.info.uuid = "GPU-1234";
  r.info.model = "NVIDIA \"Test\" GPU";
  r.info.device = "nvidia0";
  r.info.pci_bus_id = "00000000:17:00.0";
  r.info.host = "node-a";
  r.info.power_limit_w = 700;
  r.sample.gpu_util_pct = 95;
  r.sample.mem_copy_util_pct = 40;
  r.sample.fb_used_bytes = 2 * 1048576.0;
  r.sample.fb_free_bytes = 6 * 1048576.0;
  r.sample.temp_c = 65;
  r.sample.power_w = 500;
  r.sample.energy_j = 1234.5;
  r.sample.sm_clock_mhz = 1980;
  r.sample.throttle_reasons = 0x4;
  r.sample.xid_last = 0;
  r.sample.processes.push_back({4242, 1048576.0, "python3", "alice", ""});
  s.devices.push_back(r);
  DeviceReading bare;  // reports nothing: must produce no value lines
  bare.info.backend = "fake";
  bare.info.index = 1;
  bare.info.uuid = "FAKE-1";
  s.devices.push_back(bare);
  HostSample h;
  h.cpu_busy_pct = 50;
  h.core_busy_pct = {10, 90};
  h.net_rx_bytes_total = 100;
  s.host = h;
  return s;
}

// Lines of `text` that are samples of `name` (exact family name).
std::vector<std::string> samples(const std::string& text, const std::string& name) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + "{", 0) == 0 || line.rfind(name + " ", 0) == 0) out.push_back(line);
  }
  return out;
}

// Every family's lines are contiguous, HELP/TYPE come first and once, no duplicate series.
void expect_well_formed(const std::string& text) {
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  std::istringstream in(text);
  std::string line, current;
  std::set<std::string> finished, series;
  while (std::getline(in, line)) {
    std::string family;
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
      family = line.substr(7, line.find(' ', 7) - 7);
    } else {
      family = line.substr(0, line.find_first_of("{ "));
      EXPECT_TRUE(series.insert(line.substr(0, line.rfind(' '))).second) << "duplicate series " << line;
      EXPECT_EQ(family, current) << "sample before its HELP/TYPE: " << line;
    }
    if (family != current) {
      EXPECT_FALSE(finished.count(family)) << "family split in two groups: " << family;
      if (!current.empty()) finished.insert(current);
      current = family;
    }
  }
}

TEST(Exposition, DcgmNamesUnitsAndLabels) {
  const std::string text = render_metrics(sample_snapshot(), Names::dcgm);
  expect_well_formed(text);
  auto util = samples(text, "DCGM_FI_DEV_GPU_UTIL");
  ASSERT_EQ(util.size(), 1u);  // the bare device is left out, not exported as 0
  EXPECT_EQ(util[0],
            "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1234\",pci_bus_id=\"00000000:17:00.0\",device=\"nvidia0\","
            "modelName=\"NVIDIA \\\"Test\\\" GPU\",Hostname=\"node-a\"} 95");
  EXPECT_NE(samples(text, "DCGM_FI_DEV_FB_USED")[0].find("} 2"), std::string::npos);  // MiB
  EXPECT_NE(samples(text, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")[0].find("} 1234500"), std::string::npos);  // mJ
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter"), std::string::npos);
  EXPECT_EQ(samples(text, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS").size(), 1u);
  EXPECT_EQ(samples(text, "DCGM_FI_DEV_XID_ERRORS").size(), 1u);
  EXPECT_TRUE(samples(text, "DCGM_FI_DEV_PCIE_TX_THROUGHPUT").empty());
  EXPECT_EQ(samples(text, "rooftop_host_cpu_utilization_ratio")[0], "rooftop_host_cpu_utilization_ratio 0.5");
}

// dcgm-exporter spells each identity label one way (UUID, modelName,
// Hostname); every device series in the dcgm set uses those spellings, the
// rooftop_* ones included, so no query has to match `uuid` and `UUID`.
TEST(Exposition, DcgmSetSpellsEachLabelOnce) {
  const std::string text = render_metrics(sample_snapshot(), Names::dcgm);
  EXPECT_EQ(text.find("uuid="), std::string::npos) << text;
  EXPECT_EQ(text.find("model_name="), std::string::npos);
  const std::string labels =
      "{gpu=\"0\",UUID=\"GPU-1234\",pci_bus_id=\"00000000:17:00.0\",device=\"nvidia0\","
      "modelName=\"NVIDIA \\\"Test\\\" GPU\",Hostname=\"node-a\"";
  auto active = samples(text, "rooftop_gpu_clock_event_active");
  ASSERT_EQ(active.size(), 9u);
  EXPECT_NE(std::find(active.begin(), active.end(),
                      "rooftop_gpu_clock_event_active" + labels + ",reason=\"sw_power_cap\"} 1"),
            active.end());
  EXPECT_TRUE(samples(text, "rooftop_gpu_process_memory_used_bytes").empty());  // off by default
  const std::string with = render_metrics(sample_snapshot(), Names::dcgm, RenderOptions{true});
  EXPECT_EQ(samples(with, "rooftop_gpu_process_memory_used_bytes")[0],
            "rooftop_gpu_process_memory_used_bytes" + labels + ",pid=\"4242\",command=\"python3\"} 1048576");
}

TEST(Exposition, RooftopNamesUseBaseUnits) {
  const std::string text = render_metrics(sample_snapshot(), Names::rooftop);
  expect_well_formed(text);
  EXPECT_EQ(samples(text, "rooftop_gpu_utilization_ratio")[0], "rooftop_gpu_utilization_ratio{gpu=\"0\",uuid=\"GPU-1234\"} 0.95");
  EXPECT_EQ(samples(text, "rooftop_gpu_memory_used_bytes")[0], "rooftop_gpu_memory_used_bytes{gpu=\"0\",uuid=\"GPU-1234\"} 2097152");
  EXPECT_EQ(samples(text, "rooftop_gpu_memory_total_bytes")[0], "rooftop_gpu_memory_total_bytes{gpu=\"0\",uuid=\"GPU-1234\"} 8388608");
  EXPECT_EQ(samples(text, "rooftop_gpu_sm_clock_hertz")[0], "rooftop_gpu_sm_clock_hertz{gpu=\"0\",uuid=\"GPU-1234\"} 1980000000");
  EXPECT_EQ(samples(text, "rooftop_gpu_energy_joules_total")[0], "rooftop_gpu_energy_joules_total{gpu=\"0\",uuid=\"GPU-1234\"} 1234.5");
  auto active = samples(text, "rooftop_gpu_clock_event_active");
  ASSERT_EQ(active.size(), 9u);
  EXPECT_NE(std::find(active.begin(), active.end(),
                      "rooftop_gpu_clock_event_active{gpu=\"0\",uuid=\"GPU-1234\",reason=\"sw_power_cap\"} 1"),
            active.end());
  EXPECT_EQ(samples(text, "rooftop_gpu_info").size(), 2u);
  EXPECT_EQ(samples(render_metrics(sample_snapshot(), Names::rooftop, RenderOptions{true}),
                    "rooftop_gpu_process_memory_used_bytes")[0],
            "rooftop_gpu_process_memory_used_bytes{gpu=\"0\",uuid=\"GPU-1234\",pid=\"4242\",command=\"python3\"} 1048576");
  EXPECT_EQ(samples(text, "rooftop_host_cpu_core_utilization_ratio").size(), 2u);
  EXPECT_TRUE(samples(text, "DCGM_FI_DEV_GPU_UTIL").empty());
  EXPECT_FALSE(parse_names("prometheus"));
}

// promtool is the oracle when installed (STYLE.md): rooftop names lint clean;
// dcgm names only draw the problems their names and label spellings force.
TEST(Exposition, PromtoolAcceptsBothNameSets) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) GTEST_SKIP() << "promtool not installed";
  const std::string dir = test::scratch_dir("promtool");
  for (Names n : {Names::rooftop, Names::dcgm}) {
    const std::string file = dir + (n == Names::rooftop ? "/rooftop.prom" : "/dcgm.prom");
    test::write_file(file, render_metrics(sample_snapshot(), n));
    const std::string cmd = "promtool check metrics < " + file + " 2>" + file + ".err";
    const int rc = WEXITSTATUS(std::system(cmd.c_str()));
    std::ifstream err(file + ".err");
    std::string problems((std::istreambuf_iterator<char>(err)), {});
    if (n == Names::rooftop) {
      EXPECT_EQ(rc, 0) << problems;
    } else {
      ASSERT_NE(rc, 1) << "parse error: " << problems;
      std::istringstream lines(problems);
      std::string line;
      while (std::getline(lines, line)) {
        // dcgm-exporter's label spellings (UUID, modelName, Hostname) on every device series of the set.
        const bool device_series = line.rfind("DCGM_FI_", 0) == 0 || line.rfind("rooftop_gpu_", 0) == 0;
        const bool forced = device_series &&
                            (line.find("camelCase") != std::string::npos ||
                             line.find("counter metrics should have \"_total\" suffix") != std::string::npos);
        EXPECT_TRUE(forced) << line;
      }
    }
  }
}

}  // namespace
}  // namespace rooftop::telemetry

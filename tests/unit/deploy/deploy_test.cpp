#include "deploy/deploy.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "deploy/yaml_out.h"

namespace rooftop::deploy {
namespace {

catalog::Accelerator gpu(const std::string& vendor = "nvidia", catalog::FormFactor ff = catalog::FormFactor::datacenter) {
  catalog::Accelerator a;
  a.id = vendor + "-test-gpu";
  a.name = "Test GPU";
  a.vendor = vendor;
  a.kind = catalog::Kind::gpu;
  a.form_factor = ff;
  a.host.bytes_per_s_per_direction.value = 64e9;
  return a;
}

const File& find(const std::vector<File>& files, const std::string& path) {
  for (const File& f : files) {
    if (f.path == path) return f;
  }
  ADD_FAILURE() << "no file " << path;
  static File none;
  return none;
}

TEST(YamlOut, QuotesStringsThatWouldChangeType) {
  Tree t = Tree{{"a", "true"}, {"b", "9400"}, {"c", 9400}, {"d", "nvidia.com/gpu"}, {"e", "null"}, {"f", "1e3"}};
  YAML::Node n = YAML::Load(to_yaml(t));
  EXPECT_EQ(n["a"].Tag(), "!");  // quoted scalars carry the non-specific tag
  EXPECT_EQ(n["b"].Tag(), "!");
  EXPECT_EQ(n["c"].Tag(), "?");
  EXPECT_EQ(n["d"].as<std::string>(), "nvidia.com/gpu");
  EXPECT_EQ(n["e"].Tag(), "!");
  EXPECT_EQ(n["f"].Tag(), "!");
}

TEST(Resources, VendorsMapToDevicePluginResources) {
  EXPECT_EQ(device_resource_for(gpu("nvidia"))->resource, "nvidia.com/gpu");
  EXPECT_EQ(device_resource_for(gpu("amd"))->resource, "amd.com/gpu");
  catalog::Accelerator ascend = gpu("huawei");
  ascend.id = "huawei-ascend-910b";
  ascend.kind = catalog::Kind::npu;
  EXPECT_EQ(device_resource_for(ascend)->resource, "huawei.com/Ascend910");
  ascend.id = "huawei-ascend-310p";
  EXPECT_EQ(device_resource_for(ascend)->resource, "huawei.com/Ascend310P");
  catalog::Accelerator tpu = gpu("google");
  tpu.id = "google-tpu-v5e";
  tpu.kind = catalog::Kind::tpu;
  Result<DeviceResource> r = device_resource_for(tpu);
  EXPECT_EQ(r->resource, "google.com/tpu");
  EXPECT_EQ(r->node_label_value, "tpu-v5-lite-podslice");
  catalog::Accelerator fpga = gpu("untether");
  fpga.kind = catalog::Kind::asic;
  Result<DeviceResource> none = device_resource_for(fpga);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Errc::unsupported);
  EXPECT_NE(none.error().message.find("--resource"), std::string::npos);
}

TEST(Serve, DeploymentRequestsDevicesAndSizesStartupProbe) {
  catalog::Accelerator a = gpu();
  ServeSpec s;
  s.name = "llama";
  s.image = "vllm/vllm-openai:v0.6.3";
  s.accelerator = &a;
  s.count = 2;
  s.cold_start_s = 100;
  s.memory_bytes = 16e9;
  Result<std::vector<File>> files = serve_manifests(s);
  ASSERT_TRUE(files) << files.error().what();
  YAML::Node d = YAML::Load(find(*files, "deployment.yaml").content);
  EXPECT_EQ(d["kind"].as<std::string>(), "Deployment");
  YAML::Node c = d["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/gpu"].as<int>(), 2);
  EXPECT_EQ(c["resources"]["requests"]["memory"].as<std::string>(), "19Gi");  // 16e9 * 1.25 / 2^30 = 18.6
  // 3 x 100 s + 120 s = 420 s at 10 s per probe.
  EXPECT_EQ(c["startupProbe"]["failureThreshold"].as<int>(), 42);
  EXPECT_EQ(d["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"].as<int>(), 0);
  EXPECT_EQ(d["spec"]["template"]["spec"]["tolerations"][0]["key"].as<std::string>(), "nvidia.com/gpu");
  EXPECT_EQ(d["spec"]["template"]["metadata"]["annotations"]["prometheus.io/scrape"].as<std::string>(), "true");
  YAML::Node q = YAML::Load(find(*files, "quota.yaml").content);
  EXPECT_EQ(q["spec"]["hard"]["requests.nvidia.com/gpu"].as<std::string>(), "8");  // 2 per pod x 4 replicas
  YAML::Node hpa = YAML::Load(find(*files, "hpa.yaml").content);
  EXPECT_EQ(hpa["apiVersion"].as<std::string>(), "autoscaling/v2");
  EXPECT_EQ(hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"].as<int>(), 300);
}

TEST(Serve, BadInputIsRejectedWithTheFlagNamed) {
  catalog::Accelerator a = gpu("nvidia", catalog::FormFactor::edge);
  ServeSpec s;
  s.name = "det";
  s.image = "img:1";
  s.accelerator = &a;
  s.count = 2;  // edge boards hold one device
  Result<std::vector<File>> r = serve_manifests(s);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().context, "--count");
  EXPECT_NE(r.error().message.find("exceeds one node"), std::string::npos);
  s.count = 1;
  s.image = "";
  EXPECT_EQ(serve_manifests(s).error().context, "--image");
  s.image = "img:1";
  s.name = "Bad_Name";
  EXPECT_EQ(serve_manifests(s).error().context, "--name");
}

TEST(Monitor, AlertRulesCoverTheSixProblems) {
  MonitorSpec s;
  YAML::Node rules = YAML::Load(alert_rules(s))["groups"][0]["rules"];
  std::vector<std::string> names;
  for (const YAML::Node& r : rules) names.push_back(r["alert"].as<std::string>());
  for (const char* want : {"RooftopAcceleratorIdle", "RooftopAcceleratorOverheating", "RooftopAcceleratorThrottling",
                           "RooftopXidError", "RooftopExporterDown", "RooftopAcceleratorMemoryPressure"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  EXPECT_NE(alert_rules(s).find("DCGM_FI_DEV_GPU_UTIL"), std::string::npos);
  s.rooftop_names = true;
  EXPECT_EQ(alert_rules(s).find("DCGM_FI_DEV_GPU_UTIL"), std::string::npos);
}

TEST(Monitor, DashboardHasPanelsPerGpuAndPerNode) {
  MonitorSpec s;
  nlohmann::json d = nlohmann::json::parse(grafana_dashboard(s));
  EXPECT_EQ(d["panels"].size(), 9u);
  int per_node = 0;
  for (const auto& p : d["panels"]) {
    EXPECT_FALSE(p["targets"][0]["expr"].get<std::string>().empty());
    if (p["title"].get<std::string>().find("per node") != std::string::npos) ++per_node;
  }
  EXPECT_EQ(per_node, 4);
}

TEST(Monitor, DaemonSetBindsAllInterfacesOnlyInsideThePod) {
  MonitorSpec s;
  Result<std::vector<File>> files = monitor_manifests(s);
  ASSERT_TRUE(files);
  YAML::Node ds = YAML::Load(find(*files, "daemonset.yaml").content);
  YAML::Node c = ds["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["args"][2].as<std::string>(), "0.0.0.0:9400");
  EXPECT_TRUE(c["securityContext"]["readOnlyRootFilesystem"].as<bool>());
  s.ns = "Bad NS";
  EXPECT_FALSE(monitor_manifests(s));
}

}  // namespace
}  // namespace rooftop::deploy

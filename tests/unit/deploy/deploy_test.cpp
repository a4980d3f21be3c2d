#include "deploy/deploy.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "deploy/chart.h"
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

TEST(Chart, HelmTemplatesSubstituteOnlyTheChartValues) {
  std::vector<Manifest> m = {{"d.yaml", Tree{{"kind", "Deployment"},
                                             {"metadata", Tree{{"name", "app"}, {"namespace", "app"}}},
                                             {"spec", Tree{{"replicas", 2}, {"other", 2}}}}}};
  Chart chart{"app", "test", {{"namespace", {"namespace"}, "app"}, {"replicas", {"replicas"}, 2}}};
  std::vector<File> files = write_manifests(m, {{"x.yml", "x: 1\n"}}, Format::helm, chart);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].path, "app/Chart.yaml");
  EXPECT_EQ(files[1].path, "app/values.yaml");
  EXPECT_EQ(files[2].path, "app/templates/d.yaml");
  EXPECT_EQ(files[3].path, "app/files/x.yml");
  const std::string& t = files[2].content;
  EXPECT_NE(t.find("namespace: {{ .Values.namespace }}\n"), std::string::npos) << t;
  EXPECT_NE(t.find("replicas: {{ .Values.replicas }}\n"), std::string::npos) << t;
  EXPECT_NE(t.find("name: app\n"), std::string::npos) << t;  // a name is not the namespace
  EXPECT_NE(t.find("other: 2\n"), std::string::npos) << t;
}

TEST(Chart, HelmValueInsideAQueryKeepsItsQuotes) {
  const std::string query = "sum(q{namespace=\"app\",app_kubernetes_io_name=\"app\",xnamespace=\"app\"})";
  std::vector<Manifest> m = {{"s.yaml", Tree{{"kind", "ScaledObject"},
                                             {"metadata", Tree{{"name", "app"}, {"namespace", "app"}}},
                                             {"spec", Tree{{"query", query}, {"other", "\"app\""}}}}}};
  Chart chart{"app", "test", {{"namespace", {"namespace"}, "app", {{"query", "namespace"}}}}};
  std::vector<File> files = write_manifests(m, {}, Format::helm, chart);
  ASSERT_EQ(files.size(), 3u);
  const std::string& t = files[2].content;
  EXPECT_NE(t.find("namespace: {{ .Values.namespace }}\n"), std::string::npos) << t;
  // Only the namespace matcher becomes the value, inside its quotes; the app
  // name (equal today, free to differ) and a label ending in "namespace" stay.
  EXPECT_NE(t.find("{namespace=\"{{ .Values.namespace }}\",app_kubernetes_io_name=\"app\",xnamespace=\"app\"}"),
            std::string::npos) << t;
  EXPECT_EQ(t.find("other: {{"), std::string::npos) << t;
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
  // Scales on vLLM's queue, served by prometheus-adapter under a name without ':'.
  EXPECT_EQ(hpa["spec"]["metrics"][0]["pods"]["metric"]["name"].as<std::string>(), "vllm_num_requests_waiting");
  YAML::Node rules = YAML::Load(find(*files, "prometheus-adapter-rules.yml").content);
  EXPECT_EQ(rules["rules"]["custom"][0]["name"]["as"].as<std::string>(), "vllm_num_requests_waiting");
  // The quota and everything else live in the app's own namespace.
  EXPECT_EQ(q["metadata"]["namespace"].as<std::string>(), "llama");
  EXPECT_EQ(YAML::Load(find(*files, "namespace.yaml").content)["metadata"]["name"].as<std::string>(), "llama");
}

TEST(Serve, DeploymentCarriesThePlanSharedMemoryCacheAndToken) {
  catalog::Accelerator a = gpu();
  ServeSpec s;
  s.name = "llama";
  s.accelerator = &a;
  s.count = 4;
  s.weight_bytes = 140e9;
  s.plan = ServePlan{"meta-llama/Llama-2-70b-hf", 4, 1152, Precision::fp8, 0.9};
  Result<std::vector<File>> files = serve_manifests(s);
  ASSERT_TRUE(files) << files.error().what();
  YAML::Node d = YAML::Load(find(*files, "deployment.yaml").content);
  YAML::Node ps = d["spec"]["template"]["spec"];
  YAML::Node c = ps["containers"][0];
  EXPECT_EQ(c["image"].as<std::string>(), "vllm/vllm-openai:v0.11.0");  // the vendor's vLLM image
  std::vector<std::string> args = c["args"].as<std::vector<std::string>>();
  auto arg = [&](const std::string& flag) {
    auto it = std::find(args.begin(), args.end(), flag);
    return it == args.end() || it + 1 == args.end() ? std::string("<none>") : *(it + 1);
  };
  EXPECT_EQ(arg("--model"), "meta-llama/Llama-2-70b-hf");
  EXPECT_EQ(arg("--tensor-parallel-size"), "4");
  EXPECT_EQ(arg("--max-model-len"), "1152");
  EXPECT_EQ(arg("--quantization"), "fp8");
  EXPECT_EQ(arg("--gpu-memory-utilization"), "0.90");
  EXPECT_EQ(ps["volumes"][0]["emptyDir"]["medium"].as<std::string>(), "Memory");
  EXPECT_EQ(c["volumeMounts"][0]["mountPath"].as<std::string>(), "/dev/shm");
  EXPECT_EQ(ps["volumes"][1]["persistentVolumeClaim"]["claimName"].as<std::string>(), "llama-model-cache");
  EXPECT_EQ(c["env"][1]["valueFrom"]["secretKeyRef"]["name"].as<std::string>(), "hub-token");
  YAML::Node pvc = YAML::Load(find(*files, "model-cache.yaml").content);
  EXPECT_EQ(pvc["spec"]["resources"]["requests"]["storage"].as<std::string>(), "157Gi");  // 140e9 x 1.2 / 2^30
  // KEDA instead of the HPA: a ScaledObject on the same queue.
  s.autoscaler = Autoscaler::keda;
  files = serve_manifests(s);
  ASSERT_TRUE(files);
  YAML::Node so = YAML::Load(find(*files, "keda-scaledobject.yaml").content);
  EXPECT_EQ(so["spec"]["triggers"][0]["type"].as<std::string>(), "prometheus");
  EXPECT_NE(so["spec"]["triggers"][0]["metadata"]["query"].as<std::string>().find("vllm:num_requests_waiting"),
            std::string::npos);
  for (const File& f : *files) EXPECT_NE(f.path, "hpa.yaml");
}

TEST(Serve, EveryVendorWithAPluginHasASourcedServingImage) {
  for (const char* v : {"nvidia", "amd", "intel", "google", "huawei"}) {
    catalog::Accelerator a = gpu(v);
    if (std::string(v) == "huawei") a.id = "huawei-ascend-910b";
    Result<DeviceResource> r = device_resource_for(a);
    ASSERT_TRUE(r) << v;
    EXPECT_FALSE(r->serving_image.empty()) << v;
    EXPECT_FALSE(r->serving_image_source.empty()) << v;
  }
}

TEST(Names, InvalidNamesBecomeKubernetesNames) {
  EXPECT_EQ(dns_label("llama-3.1-8b"), "llama-3-1-8b");
  EXPECT_EQ(dns_label("Bad_Name"), "bad-name");
  EXPECT_EQ(dns_label("--x..y--"), "x-y");
  EXPECT_EQ(dns_label("..."), "");
  EXPECT_EQ(dns_label(std::string(80, 'a')).size(), 63u);
  EXPECT_TRUE(is_dns_label(dns_label("Meta Llama 3.1 (8B)")));
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
  s.image = "img 1";
  EXPECT_EQ(serve_manifests(s).error().context, "--image");
  // No image and no vLLM build known for the vendor.
  catalog::Accelerator fpga = gpu("graphcore");
  s.accelerator = &fpga;
  s.image = "";
  EXPECT_EQ(serve_manifests(s).error().context, "--image");
  s.accelerator = &a;
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

TEST(Monitor, XidAlertPrintsTheCodeNotAChangeCount) {
  MonitorSpec s;
  YAML::Node rules = YAML::Load(alert_rules(s))["groups"][0]["rules"];
  for (const YAML::Node& r : rules) {
    if (r["alert"].as<std::string>() != "RooftopXidError") continue;
    std::string expr = r["expr"].as<std::string>();
    // `and` keeps the left-hand side: the XID series itself, not changes()
    // (the codes with alerts of their own filtered out of it).
    EXPECT_EQ(expr.rfind("(DCGM_FI_DEV_XID_ERRORS > 0 and DCGM_FI_DEV_XID_ERRORS != 48 and", 0), 0u) << expr;
    EXPECT_NE(expr.find(") and (changes(DCGM_FI_DEV_XID_ERRORS[15m]) > 0)"), std::string::npos) << expr;
  }
}

// The alerts SREs replace GPUs by, each with a runbook; the XIDs by meaning.
TEST(Monitor, MemoryHealthAndXidAlertsCarryRunbooks) {
  MonitorSpec s;
  YAML::Node rules = YAML::Load(alert_rules(s))["groups"][0]["rules"];
  std::map<std::string, YAML::Node> by_name;
  for (const YAML::Node& r : rules) by_name[r["alert"].as<std::string>()] = r;
  for (const char* a : {"RooftopRowRemapFailure", "RooftopUncorrectableRemappedRows", "RooftopEccDoubleBitErrors",
                        "RooftopThermalThrottling", "RooftopPowerThrottling", "RooftopXidDoubleBitEcc",
                        "RooftopXidRowRemapPending", "RooftopXidRowRemapRecordFailed", "RooftopXidNvlinkError",
                        "RooftopXidFallenOffBus", "RooftopXidHighSingleBitEccRate", "RooftopXidContainedEcc",
                        "RooftopXidUncontainedEcc"}) {
    ASSERT_TRUE(by_name.count(a)) << a;
    EXPECT_GT(by_name[a]["annotations"]["description"].as<std::string>().size(), 60u) << a;
  }
  EXPECT_EQ(by_name["RooftopRowRemapFailure"]["expr"].as<std::string>(), "DCGM_FI_DEV_ROW_REMAP_FAILURE > 0");
  EXPECT_EQ(by_name["RooftopThermalThrottling"]["for"].as<std::string>(), "5m");
  EXPECT_EQ(by_name["RooftopXidFallenOffBus"]["expr"].as<std::string>(),
            "(DCGM_FI_DEV_XID_ERRORS == 79) and (changes(DCGM_FI_DEV_XID_ERRORS[15m]) > 0)");
  s.rooftop_names = true;
  const std::string rooftop = alert_rules(s);
  EXPECT_NE(rooftop.find("rooftop_gpu_row_remap_failure > 0"), std::string::npos);
  EXPECT_NE(rooftop.find("rooftop_gpu_remapped_rows_uncorrectable_total > 0"), std::string::npos);
}

TEST(Monitor, InClusterPrometheusDiscoversPodsAndHasNoLocalTarget) {
  MonitorSpec s;
  std::string cfg = prometheus_config(s);
  EXPECT_EQ(cfg.find("127.0.0.1"), std::string::npos);
  EXPECT_EQ(cfg.find("localhost"), std::string::npos);
  YAML::Node n = YAML::Load(cfg);
  for (const YAML::Node& job : n["scrape_configs"]) {
    EXPECT_EQ(job["kubernetes_sd_configs"][0]["role"].as<std::string>(), "pod");
  }
}

TEST(Monitor, DaemonSetPerVendorWithRuntimeClassAndNoHostLibraryPath) {
  catalog::Accelerator nv = gpu("nvidia");
  catalog::Accelerator ascend = gpu("huawei");
  ascend.id = "huawei-ascend-910b";
  ascend.kind = catalog::Kind::npu;
  MonitorSpec s;
  s.accelerators = {&nv, &ascend};
  Result<std::vector<File>> files = monitor_manifests(s);
  ASSERT_TRUE(files);
  YAML::Node nvds = YAML::Load(find(*files, "daemonset-nvidia.yaml").content)["spec"]["template"];
  EXPECT_EQ(nvds["spec"]["runtimeClassName"].as<std::string>(), "nvidia");
  EXPECT_TRUE(nvds["spec"]["securityContext"]["runAsNonRoot"].as<bool>());
  EXPECT_EQ(nvds["spec"]["securityContext"]["seccompProfile"]["type"].as<std::string>(), "RuntimeDefault");
  for (const YAML::Node& e : nvds["spec"]["containers"][0]["env"]) EXPECT_NE(e["name"].as<std::string>(), "LD_LIBRARY_PATH");
  YAML::Node asc = YAML::Load(find(*files, "daemonset-huawei.yaml").content)["spec"]["template"];
  EXPECT_FALSE(asc["spec"]["securityContext"]["runAsNonRoot"]);
  EXPECT_FALSE(asc["metadata"]["annotations"]["rooftop.io/runs-as-root"].as<std::string>().empty());
  for (const YAML::Node& e : asc["spec"]["containers"][0]["env"]) {
    if (e["name"].as<std::string>() == "LD_LIBRARY_PATH") {
      EXPECT_EQ(e["value"].as<std::string>().find("/usr/lib"), std::string::npos);
    }
  }
}

TEST(Monitor, DaemonSetBindsAllInterfacesOnlyInsideThePod) {
  MonitorSpec s;
  Result<std::vector<File>> files = monitor_manifests(s);
  ASSERT_TRUE(files);
  YAML::Node ds = YAML::Load(find(*files, "daemonset.yaml").content);
  YAML::Node c = ds["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["args"][2].as<std::string>(), "0.0.0.0:9400");
  EXPECT_TRUE(c["securityContext"]["readOnlyRootFilesystem"].as<bool>());
  bool pod_resources = false;
  for (const YAML::Node& m : c["volumeMounts"]) {
    if (m["mountPath"].as<std::string>() == "/var/lib/kubelet/pod-resources") pod_resources = m["readOnly"].as<bool>();
  }
  EXPECT_TRUE(pod_resources);
  s.ns = "Bad NS";
  EXPECT_FALSE(monitor_manifests(s));
}

}  // namespace
}  // namespace rooftop::deploy

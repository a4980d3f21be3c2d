// A fake libnvidia-ml.so.1 for tests: exports the NVML C symbols rooftop's
// nvml backend binds, so the real dlopen/dlsym path runs without a GPU.
//
// It deliberately mimics version skew: it exports nvmlInit_v2 but not
// nvmlInit, the old nvmlDeviceGetCurrentClocksThrottleReasons but not the
// newer ...EventReasons, the old nvmlDeviceGetTemperature but not
// ...TemperatureV, and nvmlDeviceGetMemoryInfo_v2 checks the struct version
// word exactly like the driver (NVML_STRUCT_VERSION = size | version << 24).
//
// Environment: FAKE_NVML_DEVICES (default 2), FAKE_NVML_XID (emit one XID
// 79 event on the last device), FAKE_NVML_INIT_FAIL (nvmlInit returns 9,
// driver not loaded), FAKE_NVML_MIG (GPU0 in MIG mode with two instances,
// 1g.10gb and 3g.40gb, which answer memory, processes and GPM but not
// utilisation, temperature, power or clocks, as MIG devices do),
// FAKE_NVML_PID (the pid of GPU0's process), FAKE_NVML_NO_GPM,
// FAKE_NVML_REMAP_FAILURE (GPU1 has a row it could not remap).
//
// The rest of dcgm-exporter's default counters: GPU0 is an SXM part (HBM
// temperature 62 C, 18 NVLinks with data counters, 3 PCIe replays, 2
// correctable and 1 uncorrectable remapped rows); GPU1 a PCIe board without
// a memory sensor (answers 0 C, as T4 and L4 do) and without NVLink (link
// count 0). Neither has a video encoder (H100 has none); both decoders answer.
#include <cstdlib>
#include <cstring>

namespace {

struct Device {
  int index;
  int gi = 0;  // GPU instance id: a MIG device when > 0
};
Device g_devices[8] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
Device g_mig[2] = {{0, 1}, {0, 2}};  // instances of GPU0
bool mig_mode() { return std::getenv("FAKE_NVML_MIG") != nullptr; }
bool g_xid_pending = false;
unsigned long long g_energy_calls = 0;

unsigned device_count() {
  const char* env = std::getenv("FAKE_NVML_DEVICES");
  const int n = env ? std::atoi(env) : 2;
  return static_cast<unsigned>(n < 0 ? 0 : (n > 8 ? 8 : n));
}

int idx(void* dev) { return static_cast<Device*>(dev)->index; }
int gi(void* dev) { return static_cast<Device*>(dev)->gi; }
constexpr int kNotSupported = 3;

void copy(char* dst, unsigned len, const char* src) {
  std::strncpy(dst, src, len);
  if (len) dst[len - 1] = '\0';
}

}  // namespace

extern "C" {

struct FakeMemoryV2 { unsigned version; unsigned long long total, reserved, free, used; };
struct FakeUtilization { unsigned gpu, memory; };
struct FakeProcess { unsigned pid; unsigned long long used; unsigned gi, ci; };
struct FakePci { char legacy[16]; unsigned domain, bus, device, id, sub; char bus_id[32]; };
struct FakeEvent { void* device; unsigned long long type, data; unsigned gi, ci; };

int nvmlInit_v2() {
  if (std::getenv("FAKE_NVML_INIT_FAIL")) return 9;
  g_xid_pending = std::getenv("FAKE_NVML_XID") != nullptr;
  return 0;
}
int nvmlShutdown() { return 0; }
const char* nvmlErrorString(int rc) { return rc == 0 ? "Success" : "Fake NVML error"; }
int nvmlSystemGetDriverVersion(char* buf, unsigned len) { copy(buf, len, "550.54.15-fake"); return 0; }
int nvmlDeviceGetCount_v2(unsigned* n) { *n = device_count(); return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** dev) {
  if (i >= device_count()) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *dev = &g_devices[i];
  return 0;
}
int nvmlDeviceGetName(void* d, char* buf, unsigned len) {
  copy(buf, len, gi(d) == 1 ? "NVIDIA H100 80GB HBM3 MIG 1g.10gb"
                 : gi(d) == 2 ? "NVIDIA H100 80GB HBM3 MIG 3g.40gb" : "NVIDIA H100 80GB HBM3");
  return 0;
}
int nvmlDeviceGetMigMode(void* d, unsigned* current, unsigned* pending) {
  if (gi(d)) return 2;
  *current = *pending = idx(d) == 0 && mig_mode() ? 1u : 0u;
  return 0;
}
int nvmlDeviceGetMaxMigDeviceCount(void* d, unsigned* n) { *n = gi(d) ? 0u : 7u; return 0; }
int nvmlDeviceGetMigDeviceHandleByIndex(void* d, unsigned i, void** mig) {
  if (idx(d) != 0 || gi(d) || !mig_mode()) return 2;
  if (i >= 2) return 6;  // NVML_ERROR_NOT_FOUND: an empty slot
  *mig = &g_mig[i];
  return 0;
}
int nvmlGpmMigSampleGet(void* d, unsigned id, void* s) {
  if (idx(d) != 0 || gi(d) || id < 1 || id > 2) return 2;
  ++*static_cast<int*>(s);
  return 0;
}
int nvmlDeviceGetGpuInstanceId(void* d, unsigned* id) {
  if (!gi(d)) return 2;
  *id = static_cast<unsigned>(gi(d));
  return 0;
}
int nvmlDeviceGetUUID(void* d, char* buf, unsigned len) {
  char u[64] = "GPU-fa4e0000-0000-4000-8000-00000000000X";
  if (gi(d)) std::memcpy(u, "MIG", 3);
  u[std::strlen(u) - 1] = static_cast<char>('0' + (gi(d) ? gi(d) : idx(d)));
  copy(buf, len, u);
  return 0;
}
int nvmlDeviceGetPciInfo_v3(void* d, FakePci* p) {
  if (gi(d)) return kNotSupported;
  std::memset(p, 0, sizeof *p);
  p->bus = 0x17u + static_cast<unsigned>(idx(d));
  copy(p->bus_id, sizeof p->bus_id, idx(d) == 0 ? "00000000:17:00.0" : "00000000:18:00.0");
  return 0;
}
int nvmlDeviceGetUtilizationRates(void* d, FakeUtilization* u) {
  if (gi(d)) return kNotSupported;
  u->gpu = 40u + 10u * static_cast<unsigned>(idx(d));
  u->memory = 20u + static_cast<unsigned>(idx(d));
  return 0;
}
int nvmlDeviceGetMemoryInfo_v2(void* d, FakeMemoryV2* m) {
  if (m->version != (sizeof(FakeMemoryV2) | (2u << 24))) return 25;  // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
  m->total = gi(d) == 1 ? 10ull << 30 : gi(d) == 2 ? 40ull << 30 : 80ull << 30;
  m->reserved = 512ull << 20;
  m->used = gi(d) ? (1ull << 30) * static_cast<unsigned long long>(gi(d)) : (10ull << 30) * static_cast<unsigned long long>(idx(d) + 1);
  m->free = m->total - m->reserved - m->used;
  return 0;
}
int nvmlDeviceGetTemperature(void* d, int sensor, unsigned* t) {
  if (sensor != 0) return 2;
  if (gi(d)) return kNotSupported;
  *t = 50u + static_cast<unsigned>(idx(d));
  return 0;
}
int nvmlDeviceGetPowerUsage(void* d, unsigned* mw) {
  if (gi(d)) return kNotSupported;
  *mw = 300000u + 1000u * static_cast<unsigned>(idx(d)); return 0; }
int nvmlDeviceGetEnforcedPowerLimit(void* d, unsigned* mw) {
  if (gi(d)) return kNotSupported;
  *mw = 700000u; return 0; }
int nvmlDeviceGetTotalEnergyConsumption(void* d, unsigned long long* mj) {
  if (gi(d)) return kNotSupported;
  *mj = 1000000ull + 1000ull * g_energy_calls++; return 0; }
int nvmlDeviceGetClockInfo(void* d, int type, unsigned* mhz) {
  if (gi(d)) return kNotSupported;
  *mhz = type == 1 ? 1980u : 2619u; return 0; }
int nvmlDeviceGetMaxClockInfo(void* d, int type, unsigned* mhz) {
  if (gi(d)) return kNotSupported;
  *mhz = type == 1 ? 1980u : 2619u; return 0; }
int nvmlDeviceGetCurrentClocksThrottleReasons(void* d, unsigned long long* r) {
  if (gi(d)) return kNotSupported;
  *r = idx(d) == 1 ? 0x4 : 0x0; return 0; }
int nvmlDeviceGetPcieThroughput(void*, int, unsigned*) { return 3; }  // NOT_SUPPORTED: tests the negative cache
int nvmlDeviceGetTotalEccErrors(void* d, int, int, unsigned long long* n) {
  if (gi(d)) return kNotSupported;
  *n = 0; return 0; }
int nvmlDeviceGetComputeRunningProcesses_v3(void* d, unsigned* n, FakeProcess* p) {
  if (idx(d) != 0 || gi(d) == 2) { *n = 0; return 0; }
  if (*n < 1 || !p) { *n = 1; return 7; }  // NVML_ERROR_INSUFFICIENT_SIZE
  *n = 1;
  const char* pid = std::getenv("FAKE_NVML_PID");  // a live process, for the /proc details
  p[0] = {pid ? static_cast<unsigned>(std::strtoul(pid, nullptr, 10)) : 4242u, 1ull << 30, 0xFFFFFFFFu, 0xFFFFFFFFu};
  return 0;
}
// nvmlFieldValue_t (nvml.h): fieldId, scopeId, timestamp, latencyUsec, valueType, nvmlReturn, value.
struct FakeFieldValue { unsigned id, scope; long long ts, latency; int type; int rc; unsigned long long value; };
int nvmlDeviceGetFieldValues(void* d, int n, FakeFieldValue* f) {
  if (gi(d)) return kNotSupported;
  for (int i = 0; i < n; ++i) {
    f[i].rc = 0;
    f[i].type = 3;  // unsigned long long
    switch (f[i].id) {
      case 82: f[i].value = idx(d) == 0 ? 62 : 0; break;                 // memory temperature, C
      case 91: f[i].type = 1; f[i].value = idx(d) == 0 ? 18 : 0; break;  // NVLink count (unsigned int)
      case 138: f[i].value = idx(d) == 0 ? 3000000 : 0; break;           // NVLink data TX, KiB, all links
      case 139: f[i].value = idx(d) == 0 ? 1000000 : 0; break;           // NVLink data RX, KiB
      default: f[i].rc = kNotSupported;
    }
    if (f[i].id >= 138 && f[i].scope != 0xFFFFFFFFu) f[i].rc = 2;  // one link: not what the backend asks
  }
  return 0;
}
int nvmlDeviceGetPcieReplayCounter(void* d, unsigned* n) {
  if (gi(d)) return kNotSupported;
  *n = idx(d) == 0 ? 3u : 0u;
  return 0;
}
int nvmlDeviceGetEncoderUtilization(void*, unsigned*, unsigned*) { return kNotSupported; }
int nvmlDeviceGetDecoderUtilization(void* d, unsigned* util, unsigned* period_us) {
  if (gi(d)) return kNotSupported;
  *util = idx(d) == 0 ? 12u : 0u;
  *period_us = 167000;
  return 0;
}
int nvmlDeviceGetRemappedRows(void* d, unsigned* corr, unsigned* unc, unsigned* pending, unsigned* failed) {
  if (gi(d)) return kNotSupported;
  *corr = idx(d) == 0 ? 2u : 0u;
  *unc = idx(d) == 0 ? 1u : 0u;
  *pending = 0;
  *failed = idx(d) == 1 && std::getenv("FAKE_NVML_REMAP_FAILURE") ? 1u : 0u;
  return 0;
}
int nvmlEventSetCreate(void** set) { static int s; *set = &s; return 0; }
int nvmlDeviceRegisterEvents(void*, unsigned long long, void*) { return 0; }
int nvmlEventSetWait_v2(void*, FakeEvent* e, unsigned) {
  if (!g_xid_pending) return 10;  // NVML_ERROR_TIMEOUT
  g_xid_pending = false;
  std::memset(e, 0, sizeof *e);
  e->device = &g_devices[device_count() ? device_count() - 1 : 0];
  e->type = 0x8;
  e->data = 79;
  return 0;
}
int nvmlEventSetFree(void*) { return 0; }

// GPM (nvml.h layout): device 0 supports it, the others do not (as a
// pre-Hopper board); values are fixed so tests can check units and names.
struct FakeGpmMetric { unsigned id; int rc; double value; const char *s, *l, *u; };
struct FakeGpmGet { unsigned version, n; void *s1, *s2; FakeGpmMetric m[98]; };
int g_gpm_samples[16];
int g_gpm_next;
int nvmlGpmQueryDeviceSupport(void* d, unsigned* sup) {  // {version, isSupportedDevice}
  if (sup[0] != 1) return 25;  // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
  sup[1] = idx(d) == 0 && !std::getenv("FAKE_NVML_NO_GPM");
  return 0;
}
int nvmlGpmSampleAlloc(void** s) { *s = &g_gpm_samples[g_gpm_next++ % 16]; return 0; }
int nvmlGpmSampleFree(void*) { return 0; }
int nvmlGpmSampleGet(void*, void* s) { ++*static_cast<int*>(s); return 0; }
int nvmlGpmMetricsGet(FakeGpmGet* g) {
  if (g->version != 1 || g->n > 98 || !g->s1 || !g->s2 || g->s1 == g->s2) return 2;  // INVALID_ARGUMENT
  for (unsigned i = 0; i < g->n; ++i) {
    FakeGpmMetric& m = g->m[i];
    m.rc = 0;
    switch (m.id) {
      case 1: m.value = 90; break;    // graphics util %
      case 2: m.value = 88; break;    // SM util %
      case 3: m.value = 30; break;    // SM occupancy %
      case 5: m.value = 41.5; break;  // any tensor %
      case 10: m.value = 55; break;   // DRAM bandwidth %
      case 60: m.value = 1024; break; // NVLink RX MiB/s
      case 61: m.value = 512; break;  // NVLink TX MiB/s
      default: m.rc = 3;              // NOT_SUPPORTED
    }
  }
  return 0;
}
}

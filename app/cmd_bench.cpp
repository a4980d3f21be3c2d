// `rooftop bench`: measure this machine's roofline (peak FLOP/s per
// precision, bandwidth per memory level) and all-reduce bandwidth, print it
// as tables or JSON, and optionally save it as a catalog profile.
//
// Steps: parse and check the options (bad input exits 2 before anything
// runs); fix OpenBLAS's core detection by re-executing with
// OPENBLAS_CORETYPE when needed; as an MPI rank, be a collective worker;
// otherwise open the backend, run the suites with progress on stderr, and
// render the Report.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/bench.h"
#include "bench/clock.h"
#include "bench/collective.h"
#include "bench/memory_levels.h"
#include "bench/profile.h"
#include "command.h"
#include "core/text.h"
#include "progress.h"

namespace rooftop::app {
namespace {

using nlohmann::json;

struct BenchArgs {
  std::string suite = "all";
  std::string device = "cpu";
  int threads = 0;
  int ranks = 0;
  bool quick = false;
  bool json_out = false;
  double link_gbps = 0;
  std::string save_profile;
  std::string profile_id;
  std::string collective_out;  // hidden: rank 0 of a launched run writes its rows here
};

bool wants(const BenchArgs& a, const char* suite) { return a.suite == "all" || a.suite == suite; }

json stats_json(const bench::Stats& s) {
  return json{{"median", s.median}, {"p10", s.p10}, {"p90", s.p90}, {"min", s.min}, {"max", s.max}, {"samples", s.samples}};
}

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json to_json(const bench::Report& r) {
  const bench::Environment& e = r.env;
  json env = {{"hostname", e.hostname}, {"cpu_model", e.cpu_model}, {"vendor", e.vendor}, {"kernel", e.kernel},
              {"date", e.date}, {"device", e.device}, {"isa", e.isa}, {"logical_cpus", e.logical_cpus},
              {"cores", e.cores}, {"threads", e.threads}, {"pinned_cpus", e.pinned_cpus},
              {"clock_nominal_hz", opt(e.clock_nominal_hz)}, {"clock_measured_hz", opt(e.clock_measured_hz)},
              {"clock_note", e.clock_note.empty() ? json(nullptr) : json(e.clock_note)},
              {"clock_probe_hz", e.clock_probe_hz}, {"clock_theory_hz", opt(e.clock_theory_hz)},
              {"clock_theory_source", e.clock_theory_source},
              {"memory_bytes", opt(e.memory_bytes)}, {"libraries", e.libraries},
              {"rooftop_version", ROOFTOP_VERSION}};
  env["caches"] = json::array();
  for (const auto& c : e.caches)
    env["caches"].push_back({{"level", c.level}, {"type", c.type}, {"size_bytes", c.size_bytes}, {"shared_by_cpus", c.shared_by_cpus}});
  json j = {{"environment", env}, {"compute", json::array()}, {"memory", json::array()},
            {"memory_sweep", json::array()}, {"collective", json::array()}, {"notes", r.notes}};
  for (const auto& c : r.compute) {
    std::optional<double> ratio;
    if (c.theoretical_flop_per_s && *c.theoretical_flop_per_s > 0) ratio = c.flop_per_s.median / *c.theoretical_flop_per_s;
    j["compute"].push_back({{"precision", to_string(c.precision)}, {"unit", c.unit}, {"gemm", c.gemm},
                            {"threads", c.threads}, {"measured_flop_per_s", c.flop_per_s.median},
                            {"best_flop_per_s", c.flop_per_s.max}, {"flop_per_s", stats_json(c.flop_per_s)},
                            {"theoretical_flop_per_s", opt(c.theoretical_flop_per_s)},
                            {"theoretical_nominal_flop_per_s", opt(c.theoretical_nominal_flop_per_s)},
                            {"fraction_of_theoretical", opt(ratio)},
                            {"flop_per_cycle_per_core", opt(c.flop_per_cycle_per_core)},
                            {"assumption", c.assumption}, {"verified", c.verified}});
  }
  for (const auto& m : r.memory)
    j["memory"].push_back({{"level", m.level}, {"kernel", m.kernel}, {"threads", m.threads},
                           {"working_set_bytes", m.working_set_bytes}, {"bytes_per_s", m.bytes_per_s},
                           {"p10_bytes_per_s", m.p10}, {"p90_bytes_per_s", m.p90},
                           {"best_bytes_per_s", m.best}});
  for (const auto& p : r.sweep)
    j["memory_sweep"].push_back({{"kernel", p.kernel}, {"threads", p.threads}, {"working_set_bytes", p.working_set_bytes},
                                 {"level", p.level}, {"bytes_per_s", stats_json(p.bytes_per_s)}, {"verified", p.verified}});
  for (const auto& c : r.collective)
    j["collective"].push_back({{"backend", c.backend}, {"op", "all_reduce"}, {"bytes", c.bytes}, {"ranks", c.ranks},
                               {"time_s", c.time_s.median}, {"time_stats_s", stats_json(c.time_s)},
                               {"algbw_bytes_per_s", c.algbw_bytes_per_s}, {"busbw_bytes_per_s", c.busbw_bytes_per_s},
                               {"busbw_factor", 2.0 * (c.ranks - 1) / c.ranks}, {"eta", opt(c.eta)},
                               {"verified", c.verified}});
  return j;
}

std::string giga(double v) { return fmt::format("{:.1f}", v / 1e9); }

void print_tables(const bench::Report& r) {
  const bench::Environment& e = r.env;
  std::string clock;
  if (e.device == "cpu" && e.threads > 0) {  // not in a collective-only worker run
    bench::ClockVerdict v{e.clock_measured_hz, e.clock_theory_hz, e.clock_theory_source, e.clock_note};
    clock = " | clock: " + bench::describe_clock(v, e.clock_nominal_hz);
  }
  fmt::print("{} | {} | {} thread(s) on {} core(s){}\n", e.cpu_model.empty() ? e.device : e.cpu_model, e.hostname,
             e.threads, e.cores, clock);
  if (!e.isa.empty()) fmt::print("ISA: {}\n", fmt::join(e.isa, " "));
  for (const auto& [k, v] : e.libraries) fmt::print("{}: {}\n", k, v);
  if (!r.compute.empty()) {
    fmt::print("\n{:<6} {:<15} {:>12} {:>19} {:>12} {:>12} {:>6}\n", "prec", "unit", "GFLOP/s", "p10..p90",
               "theory", "@nominal", "%");
    for (const auto& c : r.compute) {
      std::string pct = c.theoretical_flop_per_s ? fmt::format("{:.0f}", 100 * c.flop_per_s.median / *c.theoretical_flop_per_s) : "-";
      fmt::print("{:<6} {:<15} {:>12} {:>19} {:>12} {:>12} {:>6}{}\n", to_string(c.precision), c.unit, giga(c.flop_per_s.median),
                 giga(c.flop_per_s.p10) + ".." + giga(c.flop_per_s.p90),
                 c.theoretical_flop_per_s ? giga(*c.theoretical_flop_per_s) : "unknown",
                 c.theoretical_nominal_flop_per_s ? giga(*c.theoretical_nominal_flop_per_s) : "unknown", pct,
                 c.verified ? "" : "  (NOT verified)");
    }
    fmt::print("(theory = cores x clock x FLOP/cycle at the clock above; GFLOP/s for int8 means GOP/s; --json has the assumptions)\n");
  }
  if (!r.memory.empty()) {
    fmt::print("\n{:<6} {:<9} {:>7} {:>12} {:>10} {:>17}\n", "level", "kernel", "threads", "working set", "GB/s", "p10..p90");
    for (const auto& m : r.memory)
      fmt::print("{:<6} {:<9} {:>7} {:>12} {:>10} {:>17}\n", m.level, m.kernel, m.threads, iec_bytes(m.working_set_bytes),
                 giga(m.bytes_per_s), giga(m.p10) + ".." + giga(m.p90));
    fmt::print("(STREAM byte counting: application bytes, no write-allocate; triad_nt uses non-temporal stores)\n");
  }
  if (!r.collective.empty()) {
    fmt::print("\nall-reduce ({} over {} ranks; busbw = algbw x 2(n-1)/n)\n{:>12} {:>12} {:>12} {:>12} {:>7}\n",
               r.collective.front().backend, r.collective.front().ranks, "bytes", "time", "algbw GB/s", "busbw GB/s", "eta");
    for (const auto& c : r.collective)
      fmt::print("{:>12} {:>12} {:>12} {:>12} {:>7}\n", iec_bytes(c.bytes), human_seconds(c.time_s.median),
                 fmt::format("{:.2f}", c.algbw_bytes_per_s / 1e9), fmt::format("{:.2f}", c.busbw_bytes_per_s / 1e9),
                 c.eta ? fmt::format("{:.2f}", *c.eta) : "-");
  }
  for (const auto& n : r.notes) fmt::print("note: {}\n", n);
}

// Re-runs this very command with OPENBLAS_CORETYPE set, since OpenBLAS reads
// it only when the library loads. Returns only if exec failed.
void reexec_with_coretype(const std::string& core) {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (const auto& a : split(all, '\0')) args.push_back(a);
  if (!args.empty() && args.back().empty()) args.pop_back();
  if (args.empty()) return;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  std::fprintf(stderr, "rooftop: OpenBLAS mis-detected this CPU; re-running with OPENBLAS_CORETYPE=%s "
                       "(OpenMathLib/OpenBLAS#4267)\n", core.c_str());
  execv("/proc/self/exe", argv.data());
}

// Checks --save-profile before any measuring: the catalog wants FILE's name
// to be <id>.yaml; a directory gets <id>.yaml inside.
Result<std::string> profile_path(const BenchArgs& a, const std::string& id) {
  namespace fs = std::filesystem;
  fs::path p(a.save_profile);
  std::error_code ec;
  fs::path file;
  if (fs::is_directory(p, ec) || a.save_profile.back() == '/') {
    file = p / (id + ".yaml");
  } else {
    if (p.extension() != ".yaml" && p.extension() != ".yml")
      return make_error(Errc::invalid_input, "a profile is a .yaml file (or a directory to write " + id + ".yaml into)",
                        "--save-profile");
    if (p.stem().string() != id)
      return make_error(Errc::invalid_input, "the catalog requires the file name to match the id '" + id + "': write " +
                                                 (p.parent_path() / (id + ".yaml")).string() + " or pass --profile-id " +
                                                 p.stem().string(), "--save-profile");
    file = p;
  }
  // The folder is made and the file opened now, so a bad path fails before
  // minutes of measuring rather than after them.
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
  const bool existed = fs::exists(file, ec);
  if (!std::ofstream(file, std::ios::app))
    return make_error(Errc::invalid_input, "cannot write " + file.string() + " (is its folder writable?)",
                      "--save-profile");
  if (!existed) fs::remove(file, ec);
  return file.string();
}

int run_bench(const BenchArgs& a, const GlobalOptions& global) {
  bench::Options o;
  o.threads = a.threads;
  o.quick = a.quick;
  o.ranks = a.ranks;
  o.link_bytes_per_s = a.link_gbps * 1e9 / 8;

  // 1. As an MPI rank: be a collective worker and nothing else.
  if (bench::inside_mpi_launch()) {
    if (a.suite != "collective")
      return report_error(Error{Errc::invalid_input, "only the collective suite runs under mpirun", "suite"});
    int rank = 0;
    Progress progress("all-reduce", !global.quiet && a.collective_out.empty());
    o.progress = [&](double f, const std::string& d) { if (rank == 0) progress.update(f, d); };
    auto rows = bench::collective_worker(o, &rank);
    if (!rows) return report_error(rows.error());
    if (rank != 0) return kExitOk;
    if (!a.collective_out.empty()) {
      std::ofstream(a.collective_out) << bench::to_tsv(*rows);
      return kExitOk;
    }
    progress.done();
    bench::Report r;
    r.env.libraries = bench::library_versions();
    r.env.device = "cpu";
    r.collective = *rows;
    if (a.json_out) fmt::print("{}\n", to_json(r).dump(2));
    else print_tables(r);
    return kExitOk;
  }

  // 2. Checks that need no measuring.
  auto backend = bench::open_backend(a.device, o);
  if (!backend) return report_error(backend.error());
  const bool cpu = (*backend)->name() == "cpu";
  if (wants(a, "collective") && cpu && !bench::have_mpi() && a.suite == "collective")
    return report_error(Error{Errc::unsupported, "MPI missing: this rooftop was built without MPI", "collective"});
  if (a.link_gbps < 0) return report_error(Error{Errc::invalid_input, "must be positive", "--link-gbps"});
  std::string path;
  std::string id = a.profile_id;
  if (!a.save_profile.empty()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    if (id.empty()) id = bench::default_profile_id(host);
    auto p = profile_path(a, id);
    if (!p) return report_error(p.error());
    path = *p;
  }
  if (cpu && wants(a, "compute") && !std::getenv("OPENBLAS_CORETYPE"))
    if (auto fix = bench::openblas_coretype_fix()) reexec_with_coretype(*fix);

  // 3. Describe, then run each suite with progress on stderr.
  bench::Report r;
  auto env = (*backend)->describe(o);
  if (!env) return report_error(env.error());
  r.env = *env;
  if (wants(a, "compute")) {
    Progress p("compute", !global.quiet);
    o.progress = [&](double f, const std::string& d) { p.update(f, d); };
    auto c = (*backend)->compute(o, r);
    if (!c) return report_error(c.error());
    r.compute = *c;
    p.done();
  }
  if (wants(a, "memory")) {
    Progress p("memory", !global.quiet);
    o.progress = [&](double f, const std::string& d) { p.update(f, d); };
    auto m = (*backend)->memory(o, r);
    if (!m) return report_error(m.error());
    r.sweep = *m;
    r.memory = bench::summarize_levels(r.sweep);
    p.done();
  }
  if (wants(a, "collective")) {
    Progress p("collective", !global.quiet);
    o.progress = [&](double f, const std::string& d) { p.update(f, d); };
    Result<std::vector<bench::CollectiveResult>> c = std::vector<bench::CollectiveResult>{};
    if (cpu && !bench::have_mpi()) {
      r.notes.push_back("collectives skipped: this rooftop was built without MPI");
    } else if (cpu) {
      std::vector<std::string> args = {"bench", "collective"};
      if (a.quick) args.push_back("--quick");
      if (a.link_gbps > 0) args.insert(args.end(), {"--link-gbps", fmt::format("{}", a.link_gbps)});
      c = bench::launch_mpi(o, r.env.cores, args);
    } else {
      c = (*backend)->collective(o, r);
    }
    if (!c) return report_error(c.error());
    r.collective = *c;
    p.done();
  }

  // 4. Render, then save the profile.
  if (a.json_out) fmt::print("{}\n", to_json(r).dump(2));
  else print_tables(r);
  if (!path.empty()) {
    std::ofstream out(path);
    out << bench::profile_yaml(r, id);
    if (!out) return report_error(Error{Errc::io, "cannot write the profile", path});
    std::fprintf(stderr, "rooftop: wrote profile '%s' to %s (use: rooftop --catalog %s predict ... --accelerator %s)\n",
                 id.c_str(), path.c_str(), path.c_str(), id.c_str());
  }
  return kExitOk;
}

}  // namespace

Command add_bench_command(CLI::App& app, const GlobalOptions& global) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand(
      "bench",
      "Measure this machine like likwid-bench, ERT, STREAM and nccl-tests: peak FLOP/s per precision the CPU\n"
      "supports (FMA, AVX512-FP16/BF16, VNNI, AMX) next to the theoretical peak, a BLAS GEMM, bandwidth per\n"
      "memory level (L1..DRAM sweep), and all-reduce time/algbw/busbw over MPI ranks. Every kernel checks its\n"
      "result; figures are medians with p10..p90 over repetitions. --save-profile writes a catalog entry.");
  sub->add_option("suite", args->suite, "What to measure")
      ->check(CLI::IsMember({"compute", "memory", "collective", "all"}))
      ->default_str("all");
  sub->add_option("--device", args->device, "cpu or cuda:N")->default_str("cpu");
  sub->add_option("--threads", args->threads, "CPU threads, pinned one per core (default: one per core)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--ranks", args->ranks, "MPI processes for collectives (default: one per core, at least 2)")
      ->check(CLI::Range(2, 4096));
  sub->add_flag("--quick", args->quick, "A few seconds instead of minutes (fewer sizes and samples)");
  sub->add_flag("--json", args->json_out, "Machine-readable output on stdout");
  sub->add_option("--link-gbps", args->link_gbps, "Link peak in Gbit/s for the all-reduce eta")->check(CLI::PositiveNumber);
  sub->add_option("--save-profile", args->save_profile, "Write a catalog profile (FILE named <id>.yaml, or a directory)")
      ->type_name("FILE");
  sub->add_option("--profile-id", args->profile_id, "Catalog id of the profile (default: local-<hostname>)");
  sub->add_option("--collective-out", args->collective_out)->group("");
  sub->footer(
      "Examples:\n"
      "  rooftop bench --quick                      # everything, in seconds\n"
      "  rooftop bench compute --threads 2 --json   # peak FLOP/s per precision as JSON\n"
      "  rooftop bench all --save-profile prof/     # then: rooftop --catalog prof/local-<host>.yaml predict ...\n"
      "  mpirun -np 4 rooftop bench collective      # under your own MPI launcher");
  return Command{sub, [args, &global] { return run_bench(*args, global); }};
}

}  // namespace rooftop::app

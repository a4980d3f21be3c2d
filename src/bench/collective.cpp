// nccl-tests formulas, the size sweep, the rank-0 row format and the mpirun
// launcher.
#include "bench/collective.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/runner.h"
#include "core/text.h"
#include "core/yaml.h"

extern char** environ;

namespace rooftop::bench {

double algbw(double bytes, double time_s) { return time_s > 0 ? bytes / time_s : 0; }

double busbw_factor(CollectiveOp op, int ranks) {
  const double n = std::max(1, ranks);
  switch (op) {
    case CollectiveOp::all_reduce: return 2 * (n - 1) / n;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather:
    case CollectiveOp::all_to_all: return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: return 1;
  }
  return 1;
}

double busbw(CollectiveOp op, int ranks, double a) { return a * busbw_factor(op, ranks); }

double eta(int ranks, double a, double link) {
  if (link <= 0 || ranks < 1) return 0;
  return (ranks - 1.0) / ranks * a / link;
}

void finish_allreduce(CollectiveResult& r, double link) {
  r.algbw_bytes_per_s = algbw(r.bytes, r.time_s.median);
  r.busbw_bytes_per_s = busbw(CollectiveOp::all_reduce, r.ranks, r.algbw_bytes_per_s);
  if (link > 0) r.eta = eta(r.ranks, r.algbw_bytes_per_s, link);
}

std::vector<double> allreduce_sizes(bool quick) {
  std::vector<double> out;
  const double max = quick ? 1024.0 * 1024 : 256.0 * 1024 * 1024;
  for (double s = 1024; s <= max; s *= quick ? 4 : 2) out.push_back(s);
  return out;
}

std::string to_tsv(const std::vector<CollectiveResult>& rows) {
  std::ostringstream os;
  os.precision(17);
  for (const auto& r : rows) {
    os << r.backend << '\t' << r.bytes << '\t' << r.ranks << '\t' << (r.verified ? 1 : 0) << '\t';
    for (std::size_t i = 0; i < r.time_s.samples.size(); ++i) os << (i ? "," : "") << r.time_s.samples[i];
    os << '\n';
  }
  return os.str();
}

Result<std::vector<CollectiveResult>> from_tsv(const std::string& text, double link) {
  std::vector<CollectiveResult> out;
  int line_no = 0;
  for (const auto& line : split(text, '\n')) {
    ++line_no;
    if (trim(line).empty()) continue;
    auto f = split(line, '\t');
    auto bad = [&] { return make_error(Errc::invalid_input, "malformed collective row", "line " + std::to_string(line_no)); };
    if (f.size() != 5) return bad();
    CollectiveResult r;
    r.backend = f[0];
    auto bytes = parse_double(f[1]);
    auto ranks = parse_int(f[2]);
    if (!bytes || !ranks || *ranks < 1) return bad();
    r.bytes = *bytes;
    r.ranks = static_cast<int>(*ranks);
    r.verified = f[3] == "1";
    std::vector<double> t;
    for (const auto& s : split(f[4], ',')) {
      auto v = parse_double(s);
      if (!v || *v <= 0) return bad();
      t.push_back(*v);
    }
    if (t.empty()) return bad();
    r.time_s = make_stats(t);
    finish_allreduce(r, link);
    out.push_back(std::move(r));
  }
  return out;
}

bool inside_mpi_launch() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

std::vector<std::string> mpirun_argv(const std::string& mpirun, int ranks, int cores, const std::string& self,
                                     const std::vector<std::string>& args) {
  std::vector<std::string> v = {mpirun, "-np", std::to_string(ranks)};
  if (ranks > cores) v.insert(v.end(), {"--oversubscribe", "--bind-to", "none"});
  else v.insert(v.end(), {"--bind-to", "core"});
  v.insert(v.end(), {"--mca", "btl", "self,vader", "--mca", "oob_tcp_if_include", "lo"});
  v.push_back(self);
  v.insert(v.end(), args.begin(), args.end());
  return v;
}

namespace {
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  for (const auto& dir : split(path ? path : "/usr/bin:/bin", ':')) {
    std::string p = dir + "/" + name;
    if (!dir.empty() && access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}
}  // namespace

Result<std::vector<CollectiveResult>> launch_mpi(const Options& o, int cores, const std::vector<std::string>& args) {
  std::string mpirun = find_on_path("mpirun");
  if (mpirun.empty())
    return make_error(Errc::unsupported,
                      "MPI missing: no mpirun on PATH (install openmpi-bin, or run under your own launcher: "
                      "mpirun -np 2 rooftop bench collective)",
                      "collective");
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return make_error(Errc::io, "cannot find this program's path (/proc/self/exe)");
  char tmpl[] = "/tmp/rooftop-collective-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return make_error(Errc::io, "cannot create a temporary file in /tmp");
  close(fd);
  std::vector<std::string> all = args;
  all.insert(all.end(), {"--collective-out", tmpl});
  int ranks = o.ranks > 0 ? o.ranks : std::max(2, cores);
  std::vector<std::string> argv_s = mpirun_argv(mpirun, ranks, cores, self, all);
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  // Open MPI refuses root unless told; the ranks' stdout goes to our stderr
  // so --json output stays clean.
  std::vector<std::string> env_s = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};
  for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, mpirun.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    std::remove(tmpl);
    return make_error(Errc::io, "cannot start " + mpirun);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  auto text = read_file(tmpl);
  std::remove(tmpl);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return make_error(Errc::io, "mpirun failed (exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                                    "); its messages are above", "collective");
  if (!text) return make_error(text.error());
  return from_tsv(*text, o.link_bytes_per_s);
}

}  // namespace rooftop::bench

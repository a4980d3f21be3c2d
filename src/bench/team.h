// A team of worker threads, one pinned to each given CPU, that run the same
// function together: likwid-bench's "barrier, run, barrier" with threads
// created once, so pinning, first-touch and AMX tile state stay with a thread
// for the whole benchmark. Not reentrant: one run() at a time.
#pragma once

#include <barrier>
#include <functional>
#include <thread>
#include <vector>

namespace rooftop::bench {

class Team {
 public:
  // One thread per entry of `cpus` (a CPU < 0 means "do not pin").
  explicit Team(std::vector<int> cpus);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  int size() const { return static_cast<int>(cpus_.size()); }
  const std::vector<int>& cpus() const { return cpus_; }
  // Runs fn(thread_index) on every thread at once and returns when all are done.
  void run(const std::function<void(int)>& fn);

 private:
  void loop(int index);

  std::vector<int> cpus_;
  std::barrier<> start_;
  std::barrier<> done_;
  const std::function<void(int)>* job_ = nullptr;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// Pins the calling thread to one CPU; false when the OS refused.
bool pin_current_thread(int cpu);

}  // namespace rooftop::bench

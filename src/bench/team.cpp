// Team: persistent pinned threads synchronised with two std::barriers.
#include "bench/team.h"

#include <pthread.h>
#include <sched.h>

namespace rooftop::bench {

bool pin_current_thread(int cpu) {
  if (cpu < 0) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

Team::Team(std::vector<int> cpus)
    : cpus_(std::move(cpus)),
      start_(static_cast<std::ptrdiff_t>(cpus_.size() + 1)),
      done_(static_cast<std::ptrdiff_t>(cpus_.size() + 1)) {
  for (int i = 0; i < size(); ++i) threads_.emplace_back([this, i] { loop(i); });
}

Team::~Team() {
  stop_ = true;
  start_.arrive_and_wait();
  for (auto& t : threads_) t.join();
}

void Team::loop(int index) {
  pin_current_thread(cpus_[static_cast<std::size_t>(index)]);
  for (;;) {
    start_.arrive_and_wait();
    if (stop_) return;
    (*job_)(index);
    done_.arrive_and_wait();
  }
}

void Team::run(const std::function<void(int)>& fn) {
  job_ = &fn;
  start_.arrive_and_wait();
  done_.arrive_and_wait();
  job_ = nullptr;
}

}  // namespace rooftop::bench

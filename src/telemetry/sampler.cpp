// Sampler: opens the backends once, then produces one Snapshot per round,
// either on the caller's thread (sample_once, used by `rooftop top --once`)
// or on its own thread at a fixed interval (start, used by `rooftop
// monitor`). Rounds are scheduled on absolute deadlines so a slow round
// does not shift the ones after it.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "telemetry/telemetry.h"

namespace rooftop::telemetry {

struct Sampler::Impl {
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
};

Sampler::Sampler(std::vector<std::unique_ptr<Backend>> backends)
    : backends_(std::move(backends)), impl_(std::make_unique<Impl>()) {}

Sampler::~Sampler() { stop(); }

Result<void> Sampler::open(std::vector<std::string>* warnings) {
  std::string absent;  // optional backends whose library or driver is not there
  for (auto& b : backends_) {
    auto devices = b->open();
    if (!devices) {
      const Error& e = devices.error();
      if (b->required()) return make_error(e.code, e.message, e.context.empty() ? "--backends " + b->name() : e.context);
      if (b->needs_driver() && e.code == Errc::not_found) absent += (absent.empty() ? "" : "; ") + b->name() + ": " + e.what();
      else if (warnings) warnings->push_back(b->name() + ": " + e.what());
      continue;
    }
    for (std::size_t i = 0; i < devices->size(); ++i) {
      slots_.emplace_back(b.get(), static_cast<int>(i));
      devices_.push_back((*devices)[i]);
    }
  }
  if (!absent.empty() && devices_.empty() && warnings)
    warnings->push_back("no accelerator found, serving host metrics only (" + absent + ")");
  return {};
}

Snapshot Sampler::sample_once() {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  Snapshot snap;
  snap.time_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (auto& b : backends_) {
    if (snap.host) break;
    snap.host = b->sample_host();
  }
  snap.devices.reserve(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    DeviceReading r{devices_[i], slots_[i].first->sample(slots_[i].second)};
    if (r.info.host.empty() && snap.host) r.info.host = snap.host->host;
    snap.devices.push_back(std::move(r));
  }
  for (const auto& fn : annotate_) fn(snap);
  snap.collect_duration_s = std::chrono::duration<double>(clock::now() - t0).count();
  return snap;
}

void Sampler::start(double interval_s, std::function<void(const Snapshot&)> sink, bool first_now) {
  stop();
  impl_->stop = false;
  impl_->thread = std::thread([this, interval_s, first_now, sink = std::move(sink)] {
    const auto step = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(interval_s));
    auto next = std::chrono::steady_clock::now();
    for (bool run = first_now;; run = true) {
      if (run) sink(sample_once());
      next += step;
      const auto now = std::chrono::steady_clock::now();
      if (next < now) next = now;  // fell behind: skip rounds rather than burst
      std::unique_lock lock(impl_->mu);
      if (impl_->cv.wait_until(lock, next, [this] { return impl_->stop; })) return;
    }
  });
}

void Sampler::stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  {
    std::lock_guard lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  impl_->thread.join();
}

}  // namespace rooftop::telemetry

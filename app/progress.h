// Progress on stderr for anything that takes more than a second: a redrawn
// bar when stderr is a terminal, plain "label: 40%" lines (at most one per
// 10 %) otherwise, nothing with --quiet. Not thread-safe: call from one thread.
#pragma once

#include <chrono>
#include <string>

namespace rooftop::app {

class Progress {
 public:
  Progress(std::string label, bool enabled);
  ~Progress();  // without done(): clears the bar (the caller reports what went wrong)
  // fraction in [0, 1]; `detail` is shown after the bar ("L2 sweep 256 KiB").
  void update(double fraction, const std::string& detail = "");
  void done(const std::string& detail = "");

 private:
  std::string label_;
  bool enabled_;
  bool tty_;
  bool finished_ = false;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace rooftop::app

#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace rooftop::app {

Progress::Progress(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled), tty_(isatty(STDERR_FILENO) == 1) {}

// Abandoned (an error ended the work): clear a terminal bar, say nothing more.
Progress::~Progress() {
  if (enabled_ && !finished_ && tty_) std::fprintf(stderr, "\r\033[K");
}

void Progress::update(double fraction, const std::string& detail) {
  if (!enabled_ || finished_) return;
  fraction = std::clamp(fraction, 0.0, 1.0);
  if (tty_) {
    auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ < std::chrono::milliseconds(50) && fraction < 1.0) return;
    last_draw_ = now;
    const int width = 30;
    int filled = static_cast<int>(fraction * width + 0.5);
    std::string bar(filled, '#');
    bar.resize(width, '-');
    std::fprintf(stderr, "\r\033[K%s [%s] %3.0f%% %s", label_.c_str(), bar.c_str(), fraction * 100, detail.c_str());
    std::fflush(stderr);
  } else {
    int decile = static_cast<int>(fraction * 10);
    if (decile == last_decile_) return;
    last_decile_ = decile;
    std::fprintf(stderr, "%s: %3.0f%% %s\n", label_.c_str(), fraction * 100, detail.c_str());
  }
}

void Progress::done(const std::string& detail) {
  if (!enabled_ || finished_) return;
  finished_ = true;
  if (tty_) std::fprintf(stderr, "\r\033[K%s: done %s\n", label_.c_str(), detail.c_str());
  else std::fprintf(stderr, "%s: done %s\n", label_.c_str(), detail.c_str());
}

}  // namespace rooftop::app

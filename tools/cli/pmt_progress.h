// Progress of long work on stderr, the same in every tool: on a terminal a bar redrawn in place
// ("export: calibration [#######.........] 412/1000 pairs, 35.2 pairs/s, ETA 0:16"), otherwise
// (a log file, CI) one such line every `interval` seconds; nothing when quiet. The total may be
// unknown (0): then the line shows the count, the rate and the elapsed time.
#pragma once

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace pmt::cli {

class Progress {
 public:
  Progress(std::string label, double total, std::string unit, bool quiet, double interval = 10.0)
      : label_(std::move(label)), unit_(std::move(unit)), total_(total), interval_(interval),
        enabled_(!quiet), terminal_(::isatty(STDERR_FILENO) != 0) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() { finish(); }

  void set_total(double total) { total_ = total; }

  // `done` units so far; drawn at most 5 times a second on a terminal, every `interval` s otherwise.
  void update(double done, std::string detail = {}) {
    done_ = done;
    detail_ = std::move(detail);
    if (!enabled_) return;
    const double now = seconds();
    if (now - shown_ < (terminal_ ? 0.2 : interval_)) return;
    shown_ = now;
    draw(now, false);
  }

  // The last state, once, ending the terminal line (only if something was shown).
  void finish() {
    if (!enabled_ || finished_) return;
    finished_ = true;
    if (drawn_) draw(seconds(), true);
  }

 private:
  static double seconds() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  static std::string clock_text(double s) {
    const long t = static_cast<long>(std::max(0.0, s) + 0.5);
    char buf[32];
    if (t >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
    return buf;
  }

  // 3 significant digits below 1000, whole numbers above: "0.27", "13.4", "2048".
  static std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, v != 0 && v < 9.995 ? "%.2f" : v < 99.95 ? "%.1f" : "%.0f", v);
    return buf;
  }

  void draw(double now, bool last) {
    drawn_ = true;
    const double elapsed = now - start_;
    const double rate = elapsed > 0 ? done_ / elapsed : 0;
    // append() rather than operator+: GCC 12 gives a false -Wrestrict on chains of the latter.
    std::string line = label_;
    if (unit_.empty()) {
      // Only the elapsed time (work that reports no count).
    } else if (total_ > 0) {
      const double share = std::clamp(done_ / total_, 0.0, 1.0);
      if (terminal_) {
        constexpr int kWidth = 24;
        const auto full = static_cast<size_t>(share * kWidth);
        line.append(" [").append(full, '#').append(kWidth - full, '.').append("]");
      }
      char percent[16];
      std::snprintf(percent, sizeof percent, "%.0f%%", 100 * share);
      line.append(" ").append(number(done_)).append("/").append(number(total_)).append(" ").append(unit_);
      line.append(" (").append(percent).append("), ").append(number(rate)).append(" ").append(unit_).append("/s");
      if (!last && done_ > 0) line.append(", ETA ").append(clock_text((total_ - done_) / rate));
    } else {
      line.append(" ").append(number(done_)).append(" ").append(unit_);
      line.append(", ").append(number(rate)).append(" ").append(unit_).append("/s");
    }
    if (!detail_.empty()) line.append(", ").append(detail_);
    line.append(", ").append(clock_text(elapsed)).append(" elapsed");
    if (terminal_) std::fprintf(stderr, "\r%s\033[K%s", line.c_str(), last ? "\n" : "");
    else std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }

  std::string label_, unit_, detail_;
  double total_, interval_, done_ = 0;
  bool enabled_, terminal_, drawn_ = false, finished_ = false;
  double start_ = seconds(), shown_ = start_;
};

}  // namespace pmt::cli

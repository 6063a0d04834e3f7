// Per-core hardware limits that kernel benchmarks are compared against: the peak arithmetic rate
// (register-only multiply-add loops in the widest vector ISA the CPU has, chosen at run time) and
// the rate at which one core reads bytes that are already in its caches.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace pmt::bench {

// Seconds one call of fn() takes at best: calls are timed in batches long enough (>= 50 us) for
// the clock's resolution not to matter, and the fastest of `batches` batches wins, so other
// processes preempting this one do not inflate the figure. One untimed call first warms caches.
template <class Fn>
double best_seconds_per_call(Fn&& fn, int batches = 30) {
  using Clock = std::chrono::steady_clock;
  const auto time_calls = [&fn](size_t calls) {
    const auto t0 = Clock::now();
    for (size_t i = 0; i < calls; ++i) fn();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  fn();
  size_t calls = 1;
  while (calls < (size_t{1} << 24) && time_calls(calls) < 50e-6) calls *= 2;
  double best = 1e30;
  for (int b = 0; b < batches; ++b) best = std::min(best, time_calls(calls) / static_cast<double>(calls));
  return best;
}

// A register-only loop of independent multiply-adds, long enough (micro-seconds) to time alone.
struct PeakLoop {
  const char* isa = nullptr;  // instruction set the loop uses, e.g. "avx512f"; nullptr: none here
  double ops = 0;             // arithmetic operations per call; a multiply-accumulate counts as 2
  void (*run)() = nullptr;
};

PeakLoop f32_fma_loop();   // fp32 fused multiply-add
PeakLoop int8_dot_loop();  // int8 x int8 products accumulated in int32 (or int16 where that is all)

// Operations per second `loop` reaches on the calling thread (best_seconds_per_call).
// 0 when the loop is unavailable on this CPU.
double measure_peak(const PeakLoop& loop);

// Reads `bytes` bytes from `data` (any alignment, any length) with the widest vector loads the
// CPU has and returns a checksum so the reads cannot be optimised away.
uint64_t stream_read(const uint8_t* data, size_t bytes);

// Seconds one core takes to read `bytes` bytes that are already in cache: best_seconds_per_call
// of a pass over a 64-byte aligned buffer. Measured once per size, then remembered.
double stream_seconds(size_t bytes);

}  // namespace pmt::bench

// Per-core hardware limits that kernel benchmarks are compared against: the peak arithmetic rate
// (register-only multiply-add loops in the widest vector ISA the CPU has, chosen at run time) and
// the rate at which one core reads bytes that are already in its caches.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmt::bench {

// A register-only loop of independent multiply-adds, long enough (micro-seconds) to time alone.
struct PeakLoop {
  const char* isa = nullptr;  // instruction set the loop uses, e.g. "avx512f"; nullptr: none here
  double ops = 0;             // arithmetic operations per call; a multiply-accumulate counts as 2
  void (*run)() = nullptr;
};

PeakLoop f32_fma_loop();   // fp32 fused multiply-add
PeakLoop int8_dot_loop();  // int8 x int8 products accumulated in int32 (or int16 where that is all)

// Operations per second `loop` reaches on the calling thread: the best of several timed batches.
// 0 when the loop is unavailable on this CPU.
double measure_peak(const PeakLoop& loop);

// Reads `bytes` bytes from `data` (any alignment, any length) with the widest vector loads the
// CPU has and returns a checksum so the reads cannot be optimised away.
uint64_t stream_read(const uint8_t* data, size_t bytes);

// Seconds one core takes to read `bytes` bytes that are already in cache: the best of many passes
// over a 64-byte aligned buffer read just before. Measured once per size, then remembered.
double stream_seconds(size_t bytes);

}  // namespace pmt::bench

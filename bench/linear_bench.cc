// Linear layers as the runtime runs them, at the `small` preset's shapes: fp32 on XNNPACK (a 1x1,
// stride-1, unpadded NHWC convolution is a GEMM [rows, in] x [in, out]), and int8 with
// per-output-channel weight scales, int8 in and out, through the runtime's Linear::run_q (XNNPACK,
// or kernels/gemm_qs8 on CPUs with AVX-512 VNNI; PMT_NO_VNNI=1 measures XNNPACK there too), against
// the machine's limits measured in the same process:
//   FLOP/s, OP/s  arithmetic rate reached (one multiply-accumulate = 2 operations)
//   pct_peak      that rate in % of the per-core peak loop (machine_limits.h) times the threads
//   bytes_per_second  weight bytes consumed per second
//   x_stream      time per call / time one core takes to read the same weight bytes from cache;
//                 the target for int8 at rows=1 (decode) is <= 2
//   setup_ns      fp32: the operator's setup alone, which is included in the time: the runtime
//                 sets an operator up whenever its row count or buffers change
// The time columns are the benchmark's mean; the counters divide the best of 30 timed batches
// (pmt::bench::best_seconds_per_call, as for the limits they compare with), which other
// processes on a busy machine do not inflate.
#include <benchmark/benchmark.h>
#include <pthreadpool.h>
#include <xnnpack.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "linear.h"
#include "machine_limits.h"

namespace {

using pmt::bench::f32_fma_loop;
using pmt::bench::int8_dot_loop;
using pmt::bench::measure_peak;

enum class Precision { kF32, kInt8 };

struct Shape {
  int in, out;
};
// small preset (d_model 256, d_ff 1024, vocab 8000): fused QKV, attention output, FFN up,
// FFN down, output projection.
constexpr Shape kShapes[] = {{256, 768}, {256, 256}, {256, 1024}, {1024, 256}, {256, 8000}};
constexpr int kRows[] = {1, 32, 128};  // decode step; encoder over 32 and 128 tokens
constexpr int kThreads[] = {1, 2};

struct PoolDeleter {
  void operator()(pthreadpool* p) const { pthreadpool_destroy(p); }
};
using Pool = std::unique_ptr<pthreadpool, PoolDeleter>;
struct OperatorDeleter {
  void operator()(xnn_operator* op) const { xnn_delete_operator(op); }
};
using Operator = std::unique_ptr<xnn_operator, OperatorDeleter>;

double per_core_peak(Precision p) {
  static const double f32 = measure_peak(f32_fma_loop());
  static const double int8 = measure_peak(int8_dot_loop());
  return p == Precision::kF32 ? f32 : int8;
}

struct Timing {
  double seconds_per_call = 0;  // one call, best_seconds_per_call
  double setup_seconds = 0;     // fp32: the setup alone, likewise
};

// Times call() (false: it failed): the benchmark's loop (mean time), then the best-of-batches
// figure the counters use.
template <typename Call>
double time_call(benchmark::State& state, const Call& call) {
  for (auto _ : state) {
    if (!call()) {
      state.SkipWithError("setup/run failed");
      return 0;
    }
  }
  return pmt::bench::best_seconds_per_call(call);
}

void BM_Linear(benchmark::State& state, Precision precision) {
  const size_t in = static_cast<size_t>(state.range(0)), out = static_cast<size_t>(state.range(1));
  const size_t rows = static_cast<size_t>(state.range(2));
  const int threads = static_cast<int>(state.range(3));
  if (xnn_initialize(nullptr) != xnn_status_success) {
    state.SkipWithError("xnn_initialize failed");
    return;
  }
  Pool pool(pthreadpool_create(static_cast<size_t>(threads)));
  std::mt19937 rng(42);
  xnn_operator_t raw = nullptr;
  size_t weight_bytes = in * out;
  Timing timing;

  if (precision == Precision::kF32) {
    std::normal_distribution<float> normal(0.f, 1.f);
    std::vector<float> w(in * out), b(out), x(rows * in + XNN_EXTRA_BYTES / sizeof(float));
    const float w_std = 1.f / std::sqrt(static_cast<float>(in));
    for (float& v : w) v = w_std * normal(rng);
    for (float& v : b) v = 0.1f * normal(rng);
    for (float& v : x) v = normal(rng);
    weight_bytes *= sizeof(float);
    if (xnn_create_convolution2d_nhwc_f32(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, in, out, in, out, w.data(),
                                          b.data(), -INFINITY, INFINITY, 0, &raw) != xnn_status_success) {
      state.SkipWithError("xnn_create_convolution2d_nhwc_f32 failed");
      return;
    }
    Operator op(raw);
    std::vector<float> y(rows * out);
    const auto setup = [&] {
      return xnn_setup_convolution2d_nhwc_f32(op.get(), rows, 1, 1, x.data(), y.data(), pool.get()) ==
             xnn_status_success;
    };
    timing.seconds_per_call = time_call(state, [&] {
      const bool ok = setup() && xnn_run_operator(op.get(), pool.get()) == xnn_status_success;
      benchmark::DoNotOptimize(y.data());
      benchmark::ClobberMemory();
      return ok;
    });
    timing.setup_seconds = pmt::bench::best_seconds_per_call(setup);
  } else {
    std::uniform_int_distribution<int> weight(-127, 127), act(-64, 64);
    std::uniform_real_distribution<float> scale(0.5e-4f, 2e-4f), bias(-0.05f, 0.05f);
    std::vector<int8_t> w(in * out), x(rows * in + XNN_EXTRA_BYTES), y(rows * out);
    std::vector<float> b(out), w_scale(out);
    for (int8_t& v : w) v = static_cast<int8_t>(weight(rng));
    for (int8_t& v : x) v = static_cast<int8_t>(act(rng));
    for (float& v : b) v = bias(rng);
    for (float& v : w_scale) v = scale(rng);
    pmt::TensorView view;
    view.name = "bench.weight";
    view.shape = {static_cast<int64_t>(out), static_cast<int64_t>(in)};
    view.dtype = pmt::DType::I8;
    view.data = w.data();
    view.bytes = w.size();
    view.scales = w_scale.data();
    view.input_quant = pmt::ActQuant{1.f / 16, 0};
    view.output_quant = pmt::ActQuant{0.05f, 0};
    pmt::rt::Linear linear;
    if (const std::string error = linear.create(view, b.data(), {}); !error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    timing.seconds_per_call = time_call(state, [&] {
      linear.run_q(rows, x.data(), y.data(), pool.get());
      benchmark::DoNotOptimize(y.data());
      benchmark::ClobberMemory();
      return true;
    });
  }

  if (timing.seconds_per_call <= 0) return;
  const double ops = 2.0 * static_cast<double>(rows * in * out);
  state.counters[precision == Precision::kF32 ? "FLOP/s" : "OP/s"] =
      benchmark::Counter(ops, benchmark::Counter::kIsIterationInvariantRate);
  const double peak = per_core_peak(precision) * threads;
  if (peak > 0) state.counters["pct_peak"] = 100 * ops / timing.seconds_per_call / peak;
  state.counters["x_stream"] = timing.seconds_per_call / pmt::bench::stream_seconds(weight_bytes);
  if (precision == Precision::kF32) state.counters["setup_ns"] = timing.setup_seconds * 1e9;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * weight_bytes));
}

void linear_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"in", "out", "rows", "threads"});
  for (int rows : kRows)
    for (const Shape& s : kShapes)
      for (int threads : kThreads) b->Args({s.in, s.out, rows, threads});
}

BENCHMARK_CAPTURE(BM_Linear, f32, Precision::kF32)->Apply(linear_args)->UseRealTime();
BENCHMARK_CAPTURE(BM_Linear, int8, Precision::kInt8)->Apply(linear_args)->UseRealTime();

// The per-core arithmetic limit the pct_peak counters refer to.
void BM_Peak(benchmark::State& state, pmt::bench::PeakLoop (*make)(), const char* unit) {
  const pmt::bench::PeakLoop loop = make();
  if (loop.run == nullptr) {
    state.SkipWithError("no peak loop for this CPU");
    return;
  }
  for (auto _ : state) loop.run();
  state.counters[unit] = benchmark::Counter(loop.ops, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(loop.isa);
}
BENCHMARK_CAPTURE(BM_Peak, f32_fma, f32_fma_loop, "FLOP/s");
BENCHMARK_CAPTURE(BM_Peak, int8_dot, int8_dot_loop, "OP/s");

// One core reading each weight matrix (int8 and fp32 sizes) from cache: what x_stream divides by.
void BM_StreamRead(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<uint8_t> buf(bytes);
  for (size_t i = 0; i < bytes; ++i) buf[i] = static_cast<uint8_t>(i);
  for (auto _ : state) benchmark::DoNotOptimize(pmt::bench::stream_read(buf.data(), bytes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
void stream_args(benchmark::internal::Benchmark* b) {
  b->ArgName("bytes");
  std::set<int64_t> sizes;
  for (int64_t element : {1, 4})
    for (const Shape& s : kShapes) sizes.insert(element * s.in * s.out);
  for (int64_t bytes : sizes) b->Arg(bytes);
}
BENCHMARK(BM_StreamRead)->Apply(stream_args);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  char buf[64];
  const auto add_peak = [&buf](const char* key, pmt::bench::PeakLoop loop) {
    std::snprintf(buf, sizeof buf, "%s %.1f G/s", loop.isa ? loop.isa : "none", measure_peak(loop) / 1e9);
    benchmark::AddCustomContext(key, buf);
  };
  add_peak("peak_f32_per_core", f32_fma_loop());
  add_peak("peak_int8_per_core", int8_dot_loop());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

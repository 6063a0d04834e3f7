// The runtime's own kernels (runtime/src/kernels) at the `small` preset's sizes (d_model 256,
// 4 heads of 64, d_ff 1024, vocab 8000). They are memory-bound, so each reports
// bytes_per_second: the distinct bytes it must read and write once (inputs, outputs, parameters),
// divided by its time; compare with bench_linear's BM_StreamRead for the cache's rate.
// Single-threaded: the runtime calls them on one thread between the XNNPACK operators.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/attention.h"
#include "kernels/embedding.h"
#include "kernels/layer_norm.h"
#include "kernels/quantize.h"
#include "kernels/softmax.h"
#include "kernels/top_k.h"

namespace {

constexpr size_t kDModel = 256, kHeads = 4, kVocab = 8000;

std::vector<float> random_floats(size_t n, float scale = 1.f) {
  std::mt19937 rng(static_cast<uint32_t>(n));
  std::normal_distribution<float> normal(0.f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

std::vector<int8_t> random_int8(size_t n) {
  std::mt19937 rng(static_cast<uint32_t>(n));
  std::uniform_int_distribution<int> q(-127, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(q(rng));
  return v;
}

int64_t total(const benchmark::State& state, size_t per_call) {
  return static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(per_call);
}

// y = LN(x + residual), rows x d_model: reads x and residual, writes y.
void BM_AddLayerNorm(benchmark::State& state) {
  const size_t rows = static_cast<size_t>(state.range(0)), n = rows * kDModel;
  const auto x = random_floats(n), residual = random_floats(n), gamma = random_floats(kDModel),
             beta = random_floats(kDModel);
  std::vector<float> y(n);
  for (auto _ : state) {
    pmt::kernels::add_layer_norm(x.data(), residual.data(), gamma.data(), beta.data(), y.data(), rows,
                                 kDModel, 1e-5f);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(total(state, (3 * n + 2 * kDModel) * sizeof(float)));
  state.SetItemsProcessed(total(state, rows));
}
BENCHMARK(BM_AddLayerNorm)->ArgName("rows")->Arg(1)->Arg(32)->Arg(128);

// In place over n scores: attention rows (n = keys) and the vocabulary (n = 8000). Each call
// restores the input first (a copy over the same bytes, so the figure is a lower bound).
void BM_Softmax(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto logits = random_floats(n, 4.f);
  std::vector<float> x(n);
  for (auto _ : state) {
    x = logits;
    pmt::kernels::softmax(x.data(), n);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(total(state, 2 * n * sizeof(float)));
}
BENCHMARK(BM_Softmax)->ArgName("n")->Arg(16)->Arg(128)->Arg(kVocab);

// Beam search's per-step normalisation of the vocabulary logits.
void BM_LogSoftmax(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto x = random_floats(n, 4.f);
  std::vector<float> y(n);
  for (auto _ : state) {
    pmt::kernels::log_softmax(x.data(), y.data(), n);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(total(state, 2 * n * sizeof(float)));
}
BENCHMARK(BM_LogSoftmax)->ArgName("n")->Arg(kVocab);

// Greedy's argmax and beam search's top 2k over the vocabulary.
void BM_Argmax(benchmark::State& state) {
  const auto x = random_floats(kVocab);
  for (auto _ : state) benchmark::DoNotOptimize(pmt::kernels::argmax(x.data(), kVocab));
  state.SetBytesProcessed(total(state, kVocab * sizeof(float)));
}
BENCHMARK(BM_Argmax);

void BM_TopK(benchmark::State& state) {
  const size_t k = static_cast<size_t>(state.range(0));
  const auto x = random_floats(kVocab);
  std::vector<int32_t> idx(k);
  std::vector<float> val(k);
  for (auto _ : state) {
    pmt::kernels::top_k(x.data(), kVocab, k, idx.data(), val.data());
    benchmark::DoNotOptimize(val.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(total(state, kVocab * sizeof(float)));
}
BENCHMARK(BM_TopK)->ArgName("k")->Arg(8);

// Multi-head attention, all heads, over q_len queries and kv_len keys/values:
//   decoder self-attention step: q_len 1, causal, kv_len = position (1, 16, 64, 128)
//   decoder cross-attention step: q_len 1, kv_len = source length (8, 32, 128)
//   encoder self-attention: q_len = kv_len = source length
// Bytes: Q, K, V and the output once each; FLOP/s: the two products (4 FLOP per query-key pair
// and channel).
enum class AttentionCase { kDecoderSelf, kCross, kEncoder };

void BM_Attention(benchmark::State& state, AttentionCase which) {
  const size_t kv_len = static_cast<size_t>(state.range(0));
  const size_t q_len = which == AttentionCase::kEncoder ? kv_len : 1;
  const bool causal = which == AttentionCase::kDecoderSelf;
  const size_t q_offset = causal ? kv_len - 1 : 0;
  const auto q = random_floats(q_len * kDModel), k = random_floats(kv_len * kDModel),
             v = random_floats(kv_len * kDModel);
  std::vector<float> out(q_len * kDModel), scratch(kv_len);
  for (auto _ : state) {
    pmt::kernels::attention(q.data(), kDModel, k.data(), v.data(), kDModel, out.data(), kDModel, q_len,
                            kv_len, kHeads, kDModel / kHeads, causal, q_offset, scratch.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(total(state, (2 * q_len + 2 * kv_len) * kDModel * sizeof(float)));
  state.counters["FLOP/s"] = benchmark::Counter(4.0 * static_cast<double>(q_len * kv_len * kDModel),
                                                benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(BM_Attention, decoder_self, AttentionCase::kDecoderSelf)
    ->ArgName("kv_len")->Arg(1)->Arg(16)->Arg(64)->Arg(128);
BENCHMARK_CAPTURE(BM_Attention, cross, AttentionCase::kCross)->ArgName("kv_len")->Arg(8)->Arg(32)->Arg(128);
BENCHMARK_CAPTURE(BM_Attention, encoder, AttentionCase::kEncoder)->ArgName("kv_len")->Arg(8)->Arg(32)->Arg(128);

// The int8 path's edges: float activations into a qs8 operator, and its int8 output back to
// float with each output channel's own step and offset, rows x cols.
void BM_Quantize(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0) * state.range(1));
  const auto x = random_floats(n);
  std::vector<int8_t> y(n);
  for (auto _ : state) {
    pmt::kernels::quantize_qs8(x.data(), y.data(), n, 0.05f, 3);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(total(state, n * (sizeof(float) + 1)));
}
BENCHMARK(BM_Quantize)->ArgNames({"rows", "cols"})->Args({1, 256})->Args({1, 1024})->Args({32, 256});

void BM_DequantizeChannels(benchmark::State& state) {
  const size_t rows = static_cast<size_t>(state.range(0)), cols = static_cast<size_t>(state.range(1));
  const size_t n = rows * cols;
  const auto x = random_int8(n);
  const auto step = random_floats(cols);
  const auto offset = random_floats(cols);
  std::vector<float> y(n);
  for (auto _ : state) {
    pmt::kernels::dequantize_qs8_channels(x.data(), step.data(), offset.data(), false, y.data(), rows, cols);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(total(state, n * (1 + sizeof(float)) + 2 * cols * sizeof(float)));
}
BENCHMARK(BM_DequantizeChannels)->ArgNames({"rows", "cols"})->Args({1, 256})->Args({1, 1024})->Args({32, 256});

// Token embedding x sqrt(d) + positional encoding for n tokens, from an fp32 or an int8 table.
void BM_Embed(benchmark::State& state, bool int8) {
  const size_t n = static_cast<size_t>(state.range(0));
  const auto table = random_floats(kVocab * kDModel), pos = random_floats(n * kDModel),
             scales = random_floats(kVocab);
  const auto table_q = random_int8(kVocab * kDModel);
  std::vector<int32_t> ids(n);
  for (size_t t = 0; t < n; ++t) ids[t] = static_cast<int32_t>((t * 7919) % kVocab);
  std::vector<float> y(n * kDModel);
  for (auto _ : state) {
    if (int8)
      pmt::kernels::embed_qc8(table_q.data(), scales.data(), ids.data(), n, kDModel, pos.data(), 0, y.data());
    else
      pmt::kernels::embed_f32(table.data(), ids.data(), n, kDModel, pos.data(), 0, y.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  const size_t row_bytes = int8 ? kDModel + sizeof(float) : kDModel * sizeof(float);
  state.SetBytesProcessed(total(state, n * (row_bytes + 2 * kDModel * sizeof(float))));
  state.SetItemsProcessed(total(state, n));
}
BENCHMARK_CAPTURE(BM_Embed, f32, false)->ArgName("tokens")->Arg(1)->Arg(32);
BENCHMARK_CAPTURE(BM_Embed, int8, true)->ArgName("tokens")->Arg(1)->Arg(32);

}  // namespace

BENCHMARK_MAIN();

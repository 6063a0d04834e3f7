// Model-level latency of the runtime, fp32 and int8, on 1 and 2 threads:
//   BM_Encoder      the encoder over one sentence of 8, 32 or 128 tokens, cross-attention
//                   keys/values included (rt::Network::encode)
//   BM_DecoderStep  one incremental decoder step at position 1, 16, 64 or 128 (attending over
//                   that many cached positions, and a 32-token source), for 1 row (greedy) or
//                   4 rows (beam 4); logits included, the search's selection not
//   BM_Translate    a whole sentence through the public API (Translator::translate_ids), greedy
//                   and beam 4, source of 8, 32 or 128 tokens and as many output tokens at most
// items_per_second is tokens per second: source tokens for the encoder, generated tokens (one
// per step) for the decoder and translation.
//
// Model files: --fp32=FILE --int8=FILE, or the environment variables PMT_BENCH_FP32 and
// PMT_BENCH_INT8 (bench_random_checkpoint + pmt-convert export make them before a model is
// trained). Benchmarks of a precision without a file are skipped with a message.
#include <benchmark/benchmark.h>
#include <xnnpack.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "arena.h"
#include "network.h"
#include "pocketmt/model_file.h"
#include "pocketmt/translator.h"
#include "thread_pool.h"

namespace {

constexpr int kMaxSrc = 128, kMaxTgt = 128, kMaxBeam = 4;
constexpr size_t kDecoderSource = 32;  // source length the decoder steps attend to

enum Precision { kF32 = 0, kInt8 = 1 };
std::string g_model_path[2];  // by Precision

const char* missing_model(Precision p) {
  return p == kF32 ? "no fp32 model: set PMT_BENCH_FP32 or --fp32=FILE" : "no int8 model: set PMT_BENCH_INT8 or --int8=FILE";
}

// A network on its own arena, as Translator::load builds it, kept for the whole run.
struct LoadedNetwork {
  explicit LoadedNetwork(int threads) : pool(threads) {}
  std::unique_ptr<pmt::ModelFile> file;
  pmt::rt::ThreadPool pool;
  pmt::rt::Network network;
  pmt::rt::Arena arena;
};

// Loads (once per precision and thread count) the network of a model file; nullptr with a
// message in *error on failure.
LoadedNetwork* network_for(Precision p, int threads, std::string* error) {
  static std::map<std::pair<int, int>, std::unique_ptr<LoadedNetwork>> cache;
  auto& slot = cache[{p, threads}];
  if (slot) return slot.get();
  const std::string& path = g_model_path[p];
  if (path.empty()) {
    *error = missing_model(p);
    return nullptr;
  }
  if (xnn_initialize(nullptr) != xnn_status_success) {
    *error = "xnn_initialize failed";
    return nullptr;
  }
  auto n = std::make_unique<LoadedNetwork>(threads);
  n->file = pmt::ModelFile::open(path, error);
  if (n->file == nullptr) return nullptr;
  const pmt::rt::NetworkLimits limits{1, kMaxSrc, kMaxTgt, kMaxBeam};
  if (std::string e = n->network.create(*n->file, limits, &n->pool, true); !e.empty()) {
    *error = path + ": " + e;
    return nullptr;
  }
  pmt::rt::ArenaLayout measure;
  n->network.bind(measure);
  if (!n->arena.allocate(measure.bytes())) {
    *error = "cannot allocate the arena";
    return nullptr;
  }
  pmt::rt::ArenaLayout layout(n->arena.data());
  n->network.bind(layout);
  slot = std::move(n);
  return slot.get();
}

// A Translator with the same limits, loaded once per precision and thread count.
pmt::Translator* translator_for(Precision p, int threads, std::string* error) {
  static std::map<std::pair<int, int>, std::unique_ptr<pmt::Translator>> cache;
  auto& slot = cache[{p, threads}];
  if (slot) return slot.get();
  if (g_model_path[p].empty()) {
    *error = missing_model(p);
    return nullptr;
  }
  pmt::LoadOptions load;
  load.max_src_len = kMaxSrc;
  load.max_tgt_len = kMaxTgt;
  load.max_beam = kMaxBeam;
  load.threads = threads;
  if (pmt::Status s = pmt::Translator::load(g_model_path[p], load, &slot); !s.ok()) {
    *error = s.message();
    return nullptr;
  }
  return slot.get();
}

std::vector<int32_t> random_source(size_t len, int32_t vocab) {
  std::mt19937 rng(static_cast<uint32_t>(len));
  std::uniform_int_distribution<int32_t> id(4, vocab - 1);  // no special ids inside a sentence
  std::vector<int32_t> ids(len);
  for (int32_t& v : ids) v = id(rng);
  ids.back() = pmt::kEosId;
  return ids;
}

void BM_Encoder(benchmark::State& state, Precision p) {
  const size_t src_len = static_cast<size_t>(state.range(0));
  std::string error;
  LoadedNetwork* n = network_for(p, static_cast<int>(state.range(1)), &error);
  if (n == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  const std::vector<int32_t> src = random_source(src_len, n->network.config().vocab_size);
  const std::span<const int32_t> batch[] = {src};
  for (auto _ : state) n->network.encode(batch, false);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * src_len));
}

void BM_DecoderStep(benchmark::State& state, Precision p) {
  const size_t position = static_cast<size_t>(state.range(0)), rows = static_cast<size_t>(state.range(1));
  std::string error;
  LoadedNetwork* n = network_for(p, static_cast<int>(state.range(2)), &error);
  if (n == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  const std::vector<int32_t> src = random_source(kDecoderSource, n->network.config().vocab_size);
  const std::span<const int32_t> batch[] = {src};
  n->network.encode(batch, false);
  std::vector<int32_t> tokens(rows), slots(rows), sentences(rows, 0);
  for (size_t r = 0; r < rows; ++r) {
    tokens[r] = static_cast<int32_t>(100 + r);
    slots[r] = static_cast<int32_t>(r);
  }
  // Fill the self-attention caches up to the position measured, then repeat that step alone.
  for (size_t pos = 0; pos + 1 < position; ++pos) n->network.decode(pos, rows, tokens.data(), slots.data(), sentences.data());
  for (auto _ : state) {
    n->network.decode(position - 1, rows, tokens.data(), slots.data(), sentences.data());
    benchmark::DoNotOptimize(n->network.logits());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_Translate(benchmark::State& state, Precision p) {
  const size_t src_len = static_cast<size_t>(state.range(0));
  std::string error;
  pmt::Translator* t = translator_for(p, static_cast<int>(state.range(2)), &error);
  if (t == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::vector<int32_t> src = random_source(src_len, t->config().vocab_size);
  src.pop_back();  // translate_ids appends EOS itself
  const std::span<const int32_t> batch[] = {src};
  pmt::TranslateOptions options;
  options.beam = static_cast<int32_t>(state.range(1));
  options.max_len = static_cast<int32_t>(src_len);
  int64_t generated = 0;
  for (auto _ : state) {
    if (pmt::Status s = t->translate_ids(batch, options); !s.ok()) {
      state.SkipWithError(s.message());
      return;
    }
    generated += static_cast<int64_t>(t->results()[0].tokens.size());
  }
  state.SetItemsProcessed(generated);
  state.counters["generated"] =
      benchmark::Counter(static_cast<double>(generated), benchmark::Counter::kAvgIterations);
}

void encoder_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"src", "threads"});
  for (int threads : {1, 2})
    for (int src : {8, 32, 128}) b->Args({src, threads});
}
void decoder_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"pos", "rows", "threads"});
  for (int threads : {1, 2})
    for (int rows : {1, kMaxBeam})
      for (int pos : {1, 16, 64, 128}) b->Args({pos, rows, threads});
}
void translate_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"src", "beam", "threads"});
  for (int threads : {1, 2})
    for (int beam : {1, kMaxBeam})
      for (int src : {8, 32, 128}) b->Args({src, beam, threads});
}

BENCHMARK_CAPTURE(BM_Encoder, fp32, kF32)->Apply(encoder_args)->UseRealTime();
BENCHMARK_CAPTURE(BM_Encoder, int8, kInt8)->Apply(encoder_args)->UseRealTime();
BENCHMARK_CAPTURE(BM_DecoderStep, fp32, kF32)->Apply(decoder_args)->UseRealTime();
BENCHMARK_CAPTURE(BM_DecoderStep, int8, kInt8)->Apply(decoder_args)->UseRealTime();
BENCHMARK_CAPTURE(BM_Translate, fp32, kF32)->Apply(translate_args)->UseRealTime();
BENCHMARK_CAPTURE(BM_Translate, int8, kInt8)->Apply(translate_args)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (int p : {kF32, kInt8})
    if (const char* env = std::getenv(p == kF32 ? "PMT_BENCH_FP32" : "PMT_BENCH_INT8")) g_model_path[p] = env;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--fp32=", 7)) {
      g_model_path[kF32] = argv[i] + 7;
    } else if (!std::strncmp(argv[i], "--int8=", 7)) {
      g_model_path[kInt8] = argv[i] + 7;
    } else {
      std::fprintf(stderr, "bench_translator: unknown argument %s (model files: --fp32=FILE --int8=FILE)\n", argv[i]);
      return 2;
    }
  }
  for (int p : {kF32, kInt8})
    if (!g_model_path[p].empty()) benchmark::AddCustomContext(p == kF32 ? "model_fp32" : "model_int8", g_model_path[p]);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

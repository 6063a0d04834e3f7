// Zero allocation after load. This executable replaces every global operator new/delete with
// counting versions and hands XNNPACK a counting allocator (xnn_initialize keeps the first
// allocator it is given, so it is installed before any model loads), then translates many
// batches of token ids of different lengths, batch sizes and beam sizes and expects no
// allocation at all. The string path may allocate only inside the tokenizer: its count must
// equal that of the tokenizer's own encode/decode of the same sentences.
#include <xnnpack.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "../runtime/runtime_test_util.h"
#include "tokenizer.h"

namespace {

std::atomic<bool> counting{false};
std::atomic<size_t> cxx_allocations{0}, xnn_allocations{0};

void* allocate(size_t n, size_t alignment = 0) {
  if (counting.load(std::memory_order_relaxed)) cxx_allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = nullptr;
  if (alignment > alignof(std::max_align_t)) {
    if (posix_memalign(&p, alignment, n == 0 ? 1 : n) != 0) p = nullptr;
  } else {
    p = std::malloc(n == 0 ? 1 : n);
  }
  return p;
}

void* allocate_or_throw(size_t n, size_t alignment = 0) {
  void* p = allocate(n, alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void count_xnn() {
  if (counting.load(std::memory_order_relaxed)) xnn_allocations.fetch_add(1, std::memory_order_relaxed);
}

const xnn_allocator kCountingXnnAllocator = {
    nullptr,
    [](void*, size_t n) -> void* {
      count_xnn();
      return std::malloc(n);
    },
    [](void*, void* p, size_t n) -> void* {
      count_xnn();
      return std::realloc(p, n);
    },
    [](void*, void* p) { std::free(p); },
    [](void*, size_t alignment, size_t n) -> void* {
      count_xnn();
      void* p = nullptr;
      return posix_memalign(&p, alignment, n) == 0 ? p : nullptr;
    },
    [](void*, void* p) { std::free(p); },
};

// Before main, hence before any Translator calls xnn_initialize(nullptr).
const bool xnn_ready = xnn_initialize(&kCountingXnnAllocator) == xnn_status_success;

}  // namespace

void* operator new(size_t n) { return allocate_or_throw(n); }
void* operator new[](size_t n) { return allocate_or_throw(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new(size_t n, std::align_val_t a) { return allocate_or_throw(n, static_cast<size_t>(a)); }
void* operator new[](size_t n, std::align_val_t a) { return allocate_or_throw(n, static_cast<size_t>(a)); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<size_t>(a));
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

namespace pmt::test {
namespace {

// Counts the allocations made while fn runs (on any thread).
template <class Fn>
std::pair<size_t, size_t> allocations_during(Fn&& fn) {
  cxx_allocations = 0;
  xnn_allocations = 0;
  counting = true;
  fn();
  counting = false;
  return {cxx_allocations.load(), xnn_allocations.load()};
}

TEST_CASE("the counters see allocations, XNNPACK's included") {
  REQUIRE(xnn_ready);
  const auto [cxx, xnn] = allocations_during([] { delete new int(1); });
  CHECK(cxx == 1);
  CHECK(xnn == 0);
  auto model = make_model(tiny_config(), 1);
  model->init(1);
  const ModelBytes bytes = export_model(*model, DType::F32);
  std::unique_ptr<Translator> t;
  const auto [load_cxx, load_xnn] = allocations_during([&] { t = load(bytes, {}); });
  CHECK(load_cxx > 0);
  CHECK(load_xnn > 0);  // XNNPACK packed the weights through the counting allocator
}

// Many calls over every combination the limits allow, plus rejected and empty sentences and
// teacher-forced scoring, all after one warm-up call.
// (A thread pool on a loaded CI machine makes each call slower, hence fewer calls there.)
void check_zero_allocations(DType dtype, int32_t threads, int32_t n_calls) {
  CAPTURE(threads);
  auto model = make_model(tiny_config(), 1);
  model->init(dtype == DType::I8 ? 8 : 9);
  const ModelBytes bytes = export_model(*model, dtype);
  const LoadOptions limits{.max_batch = 4, .max_src_len = 24, .max_tgt_len = 40, .max_beam = 4, .threads = threads};
  auto t = load(bytes, limits);

  std::mt19937 rng(threads);
  struct Call {
    std::vector<std::vector<int32_t>> ids;
    std::vector<std::span<const int32_t>> sources;
    TranslateOptions options;
  };
  std::vector<Call> calls;
  for (int32_t i = 0; i < n_calls; ++i) {
    Call c;
    const size_t batch = 1 + i % 4;
    for (size_t b = 0; b < batch; ++b) c.ids.push_back(random_ids(rng, 1 + rng() % 22, 64));
    if (i % 5 == 0) c.ids[0].clear();                            // empty sentence
    if (i % 7 == 0) c.ids.back().assign(30, 9);                  // beyond max_src_len: rejected
    c.sources = spans(c.ids);
    c.options = {.beam = 1 + i % 4, .alpha = i % 3 == 0 ? 0.f : 0.6f, .max_len = i % 4 == 3 ? 12 : 0};
    calls.push_back(std::move(c));
  }
  size_t tokens = 0;
  TokenCallback on_token{[](void* n, const TokenEvent&) { ++*static_cast<size_t*>(n); }, &tokens};
  const std::vector<std::vector<int32_t>> targets = {{5, 6, 7}, {}, {9, 10, 11, 12, 13}};
  const std::vector<std::vector<int32_t>> score_sources = {{4, 5}, {6}, {7, 8, 9, 10}};
  const auto score_src = spans(score_sources), score_tgt = spans(targets);
  std::vector<float> log_probs(3);
  LogitsCallback on_step{[](void*, const StepLogits&) {}, nullptr};

  REQUIRE(t->translate_ids(calls[0].sources, calls[0].options).ok());  // the one warm-up call
  bool all_ok = true;
  const auto [cxx, xnn] = allocations_during([&] {
    for (int round = 0; round < 2; ++round) {  // the second round reuses every state of the first
      for (const Call& c : calls) all_ok = t->translate_ids(c.sources, c.options, on_token).ok() && all_ok;
      all_ok = t->score_ids(score_src, score_tgt, log_probs, on_step).ok() && all_ok;
    }
  });
  CHECK(all_ok);
  CHECK(tokens > 0);
  CHECK(cxx == 0);
  CHECK(xnn == 0);
}

TEST_CASE("translating token ids allocates nothing after load (fp32, 1 thread)") {
  check_zero_allocations(DType::F32, 1, 24);
}
TEST_CASE("translating token ids allocates nothing after load (int8, 1 thread)") {
  check_zero_allocations(DType::I8, 1, 24);
}
TEST_CASE("translating token ids allocates nothing after load (int8, 2 threads)") {
  check_zero_allocations(DType::I8, 2, 4);
}

TEST_CASE("the string path allocates only inside the tokenizer") {
  auto model = make_model(tiny_config(), 1);
  model->init(3);
  const ModelBytes bytes = export_model(*model, DType::F32);
  auto t = load(bytes, {.max_batch = 3});
  const std::vector<std::string_view> lines = {"abc de fgh", "ik lmn", "op rs tu abc"};
  REQUIRE(t->translate(lines).ok());  // warm-up
  const auto [in_translate, xnn] = allocations_during([&] { REQUIRE(t->translate(lines).ok()); });
  CHECK(xnn == 0);

  // The same tokenizer work alone: encode each line, decode each translation, into buffers
  // that already have room (as the Translator's own, sized at load, have).
  std::vector<std::vector<int>> outputs;
  for (const Translation& r : t->results()) outputs.emplace_back(r.tokens.begin(), r.tokens.end());
  rt::Tokenizer tokenizer;
  REQUIRE(tokenizer.load(tiny_tokenizer(), tiny_config()).empty());
  std::vector<int> ids;
  ids.reserve(256);
  std::vector<std::string> texts(lines.size());
  std::string error;
  for (size_t i = 0; i < lines.size(); ++i) REQUIRE(tokenizer.decode(outputs[i], &texts[i], &error));  // warm-up
  const auto [in_tokenizer, unused] = allocations_during([&] {
    for (size_t i = 0; i < lines.size(); ++i) {
      tokenizer.encode(lines[i], &ids, &error);
      tokenizer.decode(outputs[i], &texts[i], &error);
    }
  });
  MESSAGE("string path: " << in_translate << " allocations for " << lines.size() << " sentences; the tokenizer's encode+decode alone: "
                          << in_tokenizer);
  CHECK(in_translate == in_tokenizer);
}

}  // namespace
}  // namespace pmt::test

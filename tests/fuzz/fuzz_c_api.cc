// The C API (pmt.h) under arbitrary call sequences: each input byte picks a call and the
// following bytes its arguments, NULL pointers, out-of-range indices and options included, plus
// a token callback that calls back into its own handle. Invariants: no crash or sanitizer report,
// every call returns a documented status, a failed call leaves a message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "micro_model.h"
#include "pocketmt/pmt.h"

namespace {

const pmt::fuzz::AlignedBuffer& model() {
  static const auto bytes = pmt::fuzz::micro_model(pmt::DType::I8);
  static const pmt::fuzz::AlignedBuffer buffer(bytes.data(), bytes.size());
  return buffer;
}

// Reads the input a byte at a time; zeros once it runs out.
struct Reader {
  const uint8_t* p;
  size_t n;
  uint8_t byte() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  int32_t small() { return static_cast<int32_t>(byte() % 40) - 4; }  // mostly in range, some not
};

void check(pmt_status s) {
  if (s < PMT_OK || s > PMT_BACKEND) std::abort();
  if (s != PMT_OK && pmt_last_error()[0] == '\0') std::abort();
}

struct Reentry {
  pmt_translator* t;
};

void reenter(void* user, int32_t, int32_t, int32_t, const char*, size_t) {
  const char* s = "a";
  if (pmt_translate(static_cast<Reentry*>(user)->t, &s, nullptr, 1, nullptr, nullptr, nullptr) != PMT_INVALID_ARGUMENT)
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{data, size};
  pmt_translator* t = nullptr;
  char text[3][8];
  for (int calls = 0; in.n > 0 && calls < 16; ++calls) {
    switch (in.byte() % 9) {
      case 0: {  // load, with options as given (NULL options too)
        pmt_free(t);
        t = nullptr;
        pmt_load_options o;
        pmt_load_options_init(in.byte() & 1 ? nullptr : &o);
        pmt_load_options_init(&o);
        o.max_batch = in.small(), o.max_src_len = in.small(), o.max_tgt_len = in.small();
        o.max_beam = in.small() % 6, o.threads = in.small() % 3, o.reserved = in.small() % 4;
        const bool with_options = in.byte() & 1;
        check(pmt_load_buffer(model().bytes.get(), model().size, with_options ? &o : nullptr, &t));
        break;
      }
      case 1: {  // translate up to 3 short strings, lengths given or NUL-terminated
        const size_t count = in.byte() % 4;
        const char* sentences[3];
        size_t lengths[3];
        for (size_t i = 0; i < count; ++i) {
          lengths[i] = in.byte() % 8;
          for (size_t k = 0; k < lengths[i]; ++k) text[i][k] = static_cast<char>(in.byte());
          text[i][lengths[i] < 7 ? lengths[i] : 7] = '\0';
          sentences[i] = text[i];
        }
        pmt_translate_options o;
        pmt_translate_options_init(&o);
        o.beam = in.small() % 5, o.max_len = in.small(), o.alpha = static_cast<float>(in.small()) / 8.f;
        Reentry reentry{t};
        const bool callback = in.byte() & 1;
        check(pmt_translate(t, in.byte() & 1 ? nullptr : sentences, in.byte() & 1 ? lengths : nullptr, count,
                            in.byte() & 1 ? &o : nullptr, callback ? reenter : nullptr, &reentry));
        break;
      }
      case 2: {  // translate ids, some outside the vocabulary
        int32_t ids[2][6];
        const int32_t* sources[2] = {ids[0], ids[1]};
        size_t lengths[2];
        const size_t count = in.byte() % 3;
        for (size_t i = 0; i < count; ++i) {
          lengths[i] = in.byte() % 7;
          for (size_t k = 0; k < lengths[i]; ++k) ids[i][k] = static_cast<int32_t>(in.byte()) - 8;
        }
        check(pmt_translate_ids(t, sources, in.byte() & 1 ? nullptr : lengths, count, nullptr, nullptr, nullptr));
        break;
      }
      case 3: {
        pmt_result r;
        const size_t index = in.byte() % 4;
        const pmt_status s = pmt_get_result(t, index, in.byte() & 1 ? nullptr : &r);
        check(s);
        if (s == PMT_OK && (std::strlen(r.text) != r.text_length || r.error == nullptr)) std::abort();
        break;
      }
      case 4: pmt_result_count(t); break;
      case 5: pmt_vocab_size(t); pmt_arena_bytes(t); break;
      case 6:  // C++ cannot form a pmt_status outside 0..7 (a C caller can: c_api.cc reads its int)
        if (pmt_status_name(static_cast<pmt_status>(in.byte() % 8)) == nullptr) std::abort();
        break;
      case 7: pmt_free(t); t = nullptr; break;
      case 8:  // a failing load clears *out: the handle is freed first
        pmt_free(t);
        t = nullptr;
        check(pmt_load(in.byte() & 1 ? nullptr : "/nonexistent.pmt", nullptr, &t));
        break;
    }
  }
  pmt_free(t);
  return 0;
}

// forward and backward must not allocate: every buffer is sized at construction. Counts calls
// of the global operator new, which this test executable replaces.
#include <doctest/doctest.h>

#include "train/model.h"
#include "support/counting_new.h"

using pmt::test::g_allocations;

namespace pmt::train {
namespace {

TEST_CASE("forward and backward allocate nothing") {
  ModelConfig config;
  REQUIRE(preset_config("tiny", &config));
  Batch batch;
  batch.batch = 2;
  batch.src_len = 6;
  batch.tgt_len = 4;  // smaller than the limit
  batch.src = {5, 6, 7, 8, kEosId, kPadId, 9, 10, 11, 12, 13, kEosId};
  batch.tgt_in = {kBosId, 20, 21, kPadId, kBosId, 22, 23, 24};
  batch.tgt_out = {20, 21, kEosId, kPadId, 22, 23, 24, kEosId};
  for (bool pre_ln : {false, true}) {
    config.pre_ln = pre_ln;
    const long at_start = g_allocations.load();
    Transformer m(config, BatchLimits{2, 6, 5});
    REQUIRE(g_allocations.load() > at_start);  // the counter sees the model's own allocations
    m.init(2);
    m.set_attention_dropout(0.1f);
    const long before = g_allocations.load();
    for (uint64_t step = 0; step < 2; ++step) {
      m.forward(batch, true, DropoutRng{1, step});
      m.zero_grad();
      m.backward();
    }
    m.forward(batch, false, DropoutRng{});
    CHECK(g_allocations.load() == before);
  }
}

}  // namespace
}  // namespace pmt::train

// The body of the training loop (epoch planning, batch filling, forward/backward, clipping, Adam)
// must not allocate once its buffers are prepared. Counts calls of the global operator new,
// which this test executable replaces.
#include <cblas.h>
#include <doctest/doctest.h>

#include "train/batching.h"
#include "train/trainer.h"
#include "train_test_util.h"
#include "support/counting_new.h"

using pmt::test::g_allocations;

TEST_CASE("planning epochs, filling batches and optimizer steps allocate nothing") {
  using namespace pmt::train;
  openblas_set_num_threads(1);
  const ParallelData data = pmt::test::copy_or_reverse(120, 64, 8, 5);
  Batcher batcher(&data, 150, 9);
  Transformer model(pmt::test::tiny_config(0.1f, 0.1f), batcher.limits());
  model.init(1);
  Adam adam(model.num_params());
  Batch batch;
  reserve_batch(batcher.limits(), &batch);
  const long before = g_allocations.load();
  uint64_t step = 0;
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    batcher.plan_epoch(epoch);
    for (size_t b = 0; b < batcher.num_batches(); ++b) {
      batcher.fill(b, &batch);
      const StepResult r = train_step(&model, &adam, batch, DropoutRng{1, ++step}, 1e-3f, 1.0);
      REQUIRE(r.finite());
    }
  }
  CHECK(step > 10);
  CHECK(g_allocations.load() == before);
}

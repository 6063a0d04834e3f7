// The training loop: token batches -> forward/backward -> clipping -> Adam with the warm-up
// schedule, progress lines, periodic validation (loss and greedy BLEU), checkpoints (last, best,
// numbered ones for averaging) and exact resume. Deterministic: the same seed, data and OpenBLAS
// thread count give bitwise identical losses and weights, with or without a resume in between.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "train/adam.h"
#include "train/batching.h"
#include "train/model.h"
#include "train/parallel_data.h"

namespace pmt::train {

// Settings that shape the trajectory; stored in checkpoints ("train.<name>") so a resume can reuse them.
struct TrainSettings {
  uint64_t seed = 1;            // init, batch order, dropout
  int64_t batch_tokens = 4000;  // B * max(S, T) per batch, padding included
  int64_t warmup = 4000;        // schedule warm-up steps
  double lr_scale = 1.0;        // multiplies the paper's schedule
  int64_t decay = 0;            // final steps of the run over which the rate falls linearly to 0; 0 = off
  double clip = 0.0;            // global gradient-norm clip; 0 = off
  int threads = 1;              // OpenBLAS threads (results are bitwise reproducible per count)
  bool operator==(const TrainSettings&) const = default;
};
std::map<std::string, std::string> settings_to_metadata(const TrainSettings& s);
// Reads the settings present in `m` into *s (absent keys keep their value); error message or empty.
std::string settings_from_metadata(const std::map<std::string, std::string>& m, TrainSettings* s);

struct TrainOptions {
  ModelConfig config;
  TrainSettings settings;
  int64_t steps = 1000;           // total optimizer steps of the run (a resume continues up to it)
  int64_t log_every = 10;         // a progress line every N steps
  int64_t eval_every = 200;       // validation + checkpoints every N steps (and always at the end); 0 = end only
  int64_t eval_sentences = 100;   // periodic BLEU on the first N validation pairs; the final one uses all
  int keep_checkpoints = 5;       // numbered step checkpoints kept (oldest deleted)
  int average = 0;                // at the end, average the last N numbered checkpoints (0 = off)
  std::string out_dir;            // last.safetensors, best.safetensors, step-NNNNNNN.safetensors, average.safetensors
  // Written as is into every resumable checkpoint: the caller's own run settings (the train
  // command's corpus, vocabulary and logging options), for a resume to take back.
  std::map<std::string, std::string> run_metadata;
  // Polled after every step: nonzero stops the run cleanly (last checkpoint written). May be null.
  const volatile std::sig_atomic_t* stop_flag = nullptr;
};

// Training and validation data; `valid` may be null (no validation, no best checkpoint).
// `detokenize` turns generated ids into text for BLEU against valid->references.
struct TrainData {
  const ParallelData* train = nullptr;
  const ParallelData* valid = nullptr;
  std::function<std::string(std::span<const int32_t>)> detokenize;
};

struct RunResult {
  enum class Status { kDone, kDiverged, kStopped, kError };
  Status status = Status::kDone;
  int64_t step = 0;      // optimizer steps done (for kDiverged: the last good step)
  std::string message;   // kDiverged / kError: what happened
};

struct EvalResult {
  double loss = 0.0;     // label-smoothed cross-entropy per target token (as trained)
  double bleu = 0.0;     // sacreBLEU-style corpus BLEU of greedy output
  size_t sentences = 0;  // pairs decoded for BLEU
};

struct StepResult {
  float loss = 0.f;        // mean label-smoothed cross-entropy per target token
  double grad_norm = 0.0;  // global L2 norm before clipping (0 when the loss was not finite)
  bool finite() const;     // loss and gradient norm both finite, i.e. the update was applied
};

// One optimizer step on `batch`: forward (train mode, dropout from `rng`), backward, global norm
// (and clipping when clip > 0), Adam at learning rate `lr`. When the loss or the gradient norm
// is not finite the parameters and moments are left untouched.
StepResult train_step(Transformer* model, Adam* adam, const Batch& batch, const DropoutRng& rng, float lr, double clip);

class Trainer {
 public:
  // `log` receives the progress lines (stdout in the CLI). Throws std::invalid_argument when the
  // options cannot build a model. The model is initialized from settings.seed.
  Trainer(const TrainOptions& options, const TrainData& data, FILE* log);
  ~Trainer();

  // Continues from a checkpoint written by a run with the same model config. Error message or empty.
  // With `new_corpus` the training data may differ from the checkpoint's: the weights, Adam state
  // and step (so the learning-rate schedule) continue, the epoch and batch order start over on the
  // new data, and the best-checkpoint tracking restarts (the validation set may differ too).
  std::string resume(const std::string& checkpoint, bool new_corpus = false);

  // Trains up to options.steps steps. Writes last.safetensors at every evaluation, at the end and
  // on a stop request; on a non-finite loss it stops without overwriting the last good checkpoint.
  RunResult run();

  // Validation loss on all of valid and BLEU on its first `sentences` pairs (all when 0).
  EvalResult evaluate(size_t sentences);
  // Greedy decoding (greedy.h) of sources no longer than the training or validation sources,
  // within the buffers the model was sized for. Ids without BOS/EOS per source.
  std::vector<std::vector<int32_t>> decode(const std::vector<std::span<const int32_t>>& sources);

  Transformer& model() { return *model_; }
  int64_t step() const { return step_; }
  // Loss of every step done by this object's run() calls, in order.
  const std::vector<float>& losses() const { return losses_; }

 private:
  // Validation (when `evaluate_now` and there is validation data; all sentences when `final`),
  // best.safetensors on a new best, a numbered checkpoint when `evaluate_now`, then last.safetensors.
  std::string checkpoint(bool evaluate_now, bool final);
  std::string save(const std::string& name, bool with_optimizer);
  std::string save_numbered();
  std::string average_numbered();
  std::map<std::string, std::string> state_metadata() const;
  double elapsed() const;  // training wall time over every resume
  void log_progress(double loss, double tokens, double seconds, float lr);
  std::string path(const std::string& name) const;

  TrainOptions options_;
  TrainData data_;
  FILE* log_;
  std::unique_ptr<Transformer> model_;
  std::unique_ptr<Adam> adam_;
  std::unique_ptr<Batcher> batcher_, valid_batcher_;
  BatchLimits limits_;
  Batch batch_;

  // Position of the run, all saved in checkpoints.
  int64_t step_ = 0;         // optimizer steps done
  int64_t epoch_ = 0;        // epoch of the next batch (0-based)
  int64_t next_batch_ = 0;   // its index in that epoch's plan
  int64_t target_tokens_ = 0;
  double base_seconds_ = 0.0;   // training wall time before this process (from the resumed checkpoint)
  double best_loss_ = 0.0;
  int64_t best_step_ = -1;      // -1: no validation yet
  std::vector<int64_t> numbered_;  // steps of the numbered checkpoints on disk, oldest first

  int64_t last_saved_step_ = -1;   // step of last.safetensors on disk (-1: none from this run or its resume)
  std::chrono::steady_clock::time_point run_start_;
  int64_t run_first_step_ = 0;
  std::vector<float> losses_;
};

}  // namespace pmt::train

#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "metrics/bleu.h"
#include "train/checkpoint.h"
#include "train/greedy.h"

namespace pmt::train {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string format_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string format_duration(double seconds) {
  const auto s = static_cast<int64_t>(std::max(0.0, seconds) + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%" PRId64 ":%02d:%02d", s / 3600, static_cast<int>(s / 60 % 60), static_cast<int>(s % 60));
  return buf;
}

// Metadata number parsing: the whole string must be the number.
template <typename T>
bool parse_number(const std::string& text, T* out) {
  try {
    size_t used = 0;
    if constexpr (std::is_floating_point_v<T>) {
      *out = static_cast<T>(std::stod(text, &used));
    } else if constexpr (std::is_unsigned_v<T>) {
      if (text.starts_with('-')) return false;
      *out = static_cast<T>(std::stoull(text, &used));
    } else {
      *out = static_cast<T>(std::stoll(text, &used));
    }
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

// Reads metadata key `key` into *out when present; error message for a malformed value.
template <typename T>
std::string read_key(const std::map<std::string, std::string>& m, const std::string& key, T* out) {
  const auto it = m.find(key);
  if (it == m.end()) return {};
  return parse_number(it->second, out) ? std::string() : "bad metadata " + key + " '" + it->second + "'";
}

// Run-position keys of a resumable checkpoint.
constexpr const char* kStepKey = "train.step";
constexpr const char* kEpochKey = "train.epoch";
constexpr const char* kNextBatchKey = "train.next_batch";
constexpr const char* kTokensKey = "train.target_tokens";
constexpr const char* kSecondsKey = "train.seconds";
constexpr const char* kBestLossKey = "train.best_val_loss";
constexpr const char* kBestStepKey = "train.best_step";
constexpr const char* kNumberedKey = "train.numbered_checkpoints";
constexpr const char* kPairsKey = "train.train_pairs";

std::string numbered_name(int64_t step) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "step-%07" PRId64 ".safetensors", step);
  return buf;
}

}  // namespace

std::map<std::string, std::string> settings_to_metadata(const TrainSettings& s) {
  return {{"train.seed", std::to_string(s.seed)},
          {"train.batch_tokens", std::to_string(s.batch_tokens)},
          {"train.warmup", std::to_string(s.warmup)},
          {"train.lr_scale", format_double(s.lr_scale)},
          {"train.decay", std::to_string(s.decay)},
          {"train.clip", format_double(s.clip)},
          {"train.threads", std::to_string(s.threads)}};
}

std::string settings_from_metadata(const std::map<std::string, std::string>& m, TrainSettings* s) {
  for (std::string err : {read_key(m, "train.seed", &s->seed), read_key(m, "train.batch_tokens", &s->batch_tokens),
                          read_key(m, "train.warmup", &s->warmup), read_key(m, "train.lr_scale", &s->lr_scale),
                          read_key(m, "train.decay", &s->decay),
                          read_key(m, "train.clip", &s->clip), read_key(m, "train.threads", &s->threads)}) {
    if (!err.empty()) return err;
  }
  return {};
}

bool StepResult::finite() const { return std::isfinite(loss) && std::isfinite(grad_norm); }

StepResult train_step(Transformer* model, Adam* adam, const Batch& batch, const DropoutRng& rng, float lr, double clip) {
  StepResult r;
  model->zero_grad();
  r.loss = model->forward(batch, /*train=*/true, rng);
  if (!std::isfinite(r.loss)) return r;
  model->backward();
  r.grad_norm = grad_norm(model->grads(), model->num_params());
  if (!std::isfinite(r.grad_norm)) return r;
  clip_grads(model->grads(), model->num_params(), r.grad_norm, clip);
  adam->step(model->params(), model->grads(), lr);
  return r;
}

Trainer::Trainer(const TrainOptions& options, const TrainData& data, FILE* log)
    : options_(options), data_(data), log_(log) {
  if (!data_.train || data_.train->size() == 0) throw std::invalid_argument("no training data");
  const TrainSettings& s = options_.settings;
  if (s.batch_tokens < 1) throw std::invalid_argument("batch_tokens must be >= 1");
  batcher_ = std::make_unique<Batcher>(data_.train, s.batch_tokens, s.seed);
  limits_ = batcher_->limits();
  if (data_.valid && data_.valid->size() > 0) {
    // Validation batches and greedy decoding (sources up to max_len, outputs up to source + 50,
    // capped at max_len) must fit the same buffers.
    valid_batcher_ = std::make_unique<Batcher>(data_.valid, s.batch_tokens, s.seed);
    valid_batcher_->plan_epoch(0);
    const BatchLimits v = valid_batcher_->limits();
    const int32_t decode_len = std::min(options_.config.max_len, v.max_src_len + GreedyOptions{}.extra_len);
    limits_.max_batch = std::max({limits_.max_batch, v.max_batch, GreedyOptions{}.max_batch});
    limits_.max_src_len = std::max(limits_.max_src_len, v.max_src_len);
    limits_.max_tgt_len = std::max({limits_.max_tgt_len, v.max_tgt_len, decode_len});
    limits_.max_src_tokens = std::max(limits_.max_src_tokens, v.max_src_tokens);
    limits_.max_tgt_tokens = std::max({limits_.max_tgt_tokens, v.max_tgt_tokens, static_cast<int64_t>(decode_len)});
  }
  model_ = std::make_unique<Transformer>(options_.config, limits_);
  model_->init(s.seed);
  adam_ = std::make_unique<Adam>(model_->num_params());
  reserve_batch(limits_, &batch_);
}

Trainer::~Trainer() = default;

std::string Trainer::path(const std::string& name) const { return (std::filesystem::path(options_.out_dir) / name).string(); }

std::string Trainer::resume(const std::string& checkpoint, bool new_corpus) {
  StFile file;
  ModelConfig config;
  if (std::string err = read_checkpoint(checkpoint, &file, &config); !err.empty()) return err;
  if (!(config == options_.config)) {
    const auto want = config_to_metadata(options_.config), have = config_to_metadata(config);
    for (const auto& [key, value] : want) {
      const auto it = have.find(key);
      if (it != have.end() && it->second != value)
        return checkpoint + ": model config differs: " + key + " is " + it->second + " in the checkpoint, " + value + " here";
    }
    return checkpoint + ": model config differs";
  }
  const auto& m = file.metadata;
  if (!m.contains(kStepKey) || !m.contains(std::string(kOptimizerStepKey)))
    return checkpoint + ": not a resumable checkpoint (no optimizer state; use last.safetensors)";
  // Parsed into locals first, so a failed resume leaves the trainer as it was.
  int64_t step = 0, epoch = 0, next_batch = 0, tokens = 0, best_step = -1, pairs = 0;
  double seconds = 0.0, best_loss = 0.0;
  for (std::string err : {read_key(m, kStepKey, &step), read_key(m, kEpochKey, &epoch),
                          read_key(m, kNextBatchKey, &next_batch), read_key(m, kTokensKey, &tokens),
                          read_key(m, kSecondsKey, &seconds), read_key(m, kBestLossKey, &best_loss),
                          read_key(m, kBestStepKey, &best_step), read_key(m, kPairsKey, &pairs)}) {
    if (!err.empty()) return checkpoint + ": " + err;
  }
  if (new_corpus) {
    epoch = next_batch = 0;
    best_step = -1;
  } else if (pairs != static_cast<int64_t>(data_.train->size()))
    return checkpoint + ": trained on " + std::to_string(pairs) + " sentence pairs, the training data now has " +
           std::to_string(data_.train->size()) + " (the batch order would differ)";
  std::vector<int64_t> numbered;
  if (const auto it = m.find(kNumberedKey); it != m.end()) {
    for (size_t start = 0; start < it->second.size();) {
      const size_t end = std::min(it->second.find(',', start), it->second.size());
      int64_t n = 0;
      if (!parse_number(it->second.substr(start, end - start), &n)) return checkpoint + ": bad " + kNumberedKey;
      numbered.push_back(n);
      start = end + 1;
    }
  }
  TrainSettings stored = options_.settings;
  if (std::string err = settings_from_metadata(m, &stored); !err.empty()) return checkpoint + ": " + err;
  Adam adam(model_->num_params());
  if (std::string err = load_optimizer(file, *model_, &adam); !err.empty()) return checkpoint + ": " + err;
  if (adam.steps() != step) return checkpoint + ": optimizer step " + std::to_string(adam.steps()) + " != train.step";
  if (std::string err = load_params(file, model_.get()); !err.empty()) return checkpoint + ": " + err;

  *adam_ = std::move(adam);
  step_ = step;
  epoch_ = epoch;
  next_batch_ = next_batch;
  target_tokens_ = tokens;
  base_seconds_ = seconds;
  best_loss_ = best_loss;
  best_step_ = best_step;
  numbered_ = std::move(numbered);
  last_saved_step_ = step_;
  if (log_) {
    const auto now = settings_to_metadata(options_.settings);
    for (const auto& [key, value] : settings_to_metadata(stored)) {
      if (now.at(key) != value)
        std::fprintf(log_, "warning: %s is %s here, %s in the checkpoint: the run will not replay an uninterrupted one\n",
                     key.c_str(), now.at(key).c_str(), value.c_str());
    }
  }
  if (log_) std::fprintf(log_, "resumed %s at step %" PRId64 " (epoch %" PRId64 ", batch %" PRId64 ")\n",
                         checkpoint.c_str(), step_, epoch_ + 1, next_batch_);
  return {};
}

std::map<std::string, std::string> Trainer::state_metadata() const {
  auto m = settings_to_metadata(options_.settings);
  m.insert(options_.run_metadata.begin(), options_.run_metadata.end());
  std::string numbered;
  for (int64_t s : numbered_) {
    if (!numbered.empty()) numbered += ',';
    numbered += std::to_string(s);
  }
  m[kStepKey] = std::to_string(step_);
  m[kEpochKey] = std::to_string(epoch_);
  m[kNextBatchKey] = std::to_string(next_batch_);
  m[kTokensKey] = std::to_string(target_tokens_);
  m[kSecondsKey] = format_double(elapsed());
  m[kBestLossKey] = format_double(best_loss_);
  m[kBestStepKey] = std::to_string(best_step_);
  m[kNumberedKey] = numbered;
  m[kPairsKey] = std::to_string(data_.train->size());
  return m;
}

std::string Trainer::save(const std::string& name, bool with_optimizer) {
  return write_checkpoint(path(name), *model_, with_optimizer ? adam_.get() : nullptr, state_metadata());
}

std::string Trainer::save_numbered() {
  if (numbered_.empty() || numbered_.back() != step_) numbered_.push_back(step_);
  if (std::string err = save(numbered_name(step_), false); !err.empty()) return err;
  while (numbered_.size() > static_cast<size_t>(std::max(options_.keep_checkpoints, 1))) {
    std::error_code ec;  // an already deleted file is not an error
    std::filesystem::remove(path(numbered_name(numbered_.front())), ec);
    numbered_.erase(numbered_.begin());
  }
  return {};
}

EvalResult Trainer::evaluate(size_t sentences) {
  EvalResult r;
  if (!valid_batcher_) return r;
  const ParallelData& valid = *data_.valid;
  double loss_sum = 0.0, tokens = 0.0;
  Batch batch;
  for (size_t b = 0; b < valid_batcher_->num_batches(); ++b) {
    valid_batcher_->fill(b, &batch);
    const auto n = static_cast<double>(batch.target_tokens());
    loss_sum += static_cast<double>(model_->forward(batch, /*train=*/false, DropoutRng{})) * n;
    tokens += n;
  }
  r.loss = tokens > 0 ? loss_sum / tokens : 0.0;

  r.sentences = sentences == 0 ? valid.size() : std::min(sentences, valid.size());
  std::vector<std::span<const int32_t>> sources;
  for (size_t i = 0; i < r.sentences; ++i) sources.push_back(valid.src(i));
  const auto hyps_ids = decode(sources);
  std::vector<std::string> hyps, refs;
  for (size_t i = 0; i < r.sentences; ++i) {
    hyps.push_back(data_.detokenize(hyps_ids[i]));
    refs.push_back(i < valid.references.size() ? valid.references[i] : data_.detokenize(valid.tgt(i).first(valid.tgt(i).size() - 1)));
  }
  r.bleu = metrics::corpus_bleu(hyps, refs).score;
  return r;
}

double Trainer::elapsed() const {
  return base_seconds_ + (step_ > run_first_step_ ? seconds_since(run_start_) : 0.0);
}

std::vector<std::vector<int32_t>> Trainer::decode(const std::vector<std::span<const int32_t>>& sources) {
  GreedyOptions greedy;
  greedy.max_batch = std::min(greedy.max_batch, limits_.max_batch);
  greedy.batch_tokens = std::min(limits_.max_src_tokens, limits_.max_tgt_tokens);
  return greedy_decode(model_.get(), sources, limits_.max_tgt_len, greedy);
}

void Trainer::log_progress(double loss, double tokens, double seconds, float lr) {
  if (!log_) return;
  const auto done = static_cast<double>(step_ - run_first_step_);
  const double eta = done > 0 ? seconds_since(run_start_) / done * static_cast<double>(options_.steps - step_) : 0.0;
  std::fprintf(log_,
               "step %" PRId64 "/%" PRId64 " | epoch %" PRId64 " | loss %.4f | lr %.3e | %.0f tok/s | elapsed %s | eta %s\n",
               step_, options_.steps, epoch_ + 1, loss, static_cast<double>(lr), seconds > 0 ? tokens / seconds : 0.0,
               format_duration(elapsed()).c_str(), format_duration(eta).c_str());
  std::fflush(log_);
}

std::string Trainer::checkpoint(bool evaluate_now, bool final) {
  if (evaluate_now && valid_batcher_) {
    const auto start = Clock::now();
    const EvalResult e = evaluate(final ? 0 : static_cast<size_t>(options_.eval_sentences));
    const bool best = best_step_ < 0 || e.loss < best_loss_;
    if (best) {
      best_loss_ = e.loss;
      best_step_ = step_;
    }
    if (log_) {
      std::fprintf(log_, "eval step %" PRId64 " | val loss %.4f | BLEU %.2f (%zu sentences) | %.1f s%s\n", step_, e.loss,
                   e.bleu, e.sentences, seconds_since(start), best ? " | new best" : "");
      std::fflush(log_);
    }
    if (best) {
      if (std::string err = save("best.safetensors", false); !err.empty()) return err;
    }
  }
  if (evaluate_now) {
    if (std::string err = save_numbered(); !err.empty()) return err;
  }
  if (std::string err = save("last.safetensors", true); !err.empty()) return err;
  last_saved_step_ = step_;
  return {};
}

std::string Trainer::average_numbered() {
  const size_t n = std::min(static_cast<size_t>(options_.average), numbered_.size());
  if (n == 0) return {};
  std::vector<std::string> paths;
  for (size_t i = numbered_.size() - n; i < numbered_.size(); ++i) paths.push_back(path(numbered_name(numbered_[i])));
  const std::string out = path("average.safetensors");
  if (std::string err = average_checkpoints(paths, out); !err.empty()) return err;
  if (log_) std::fprintf(log_, "averaged %zu checkpoints (steps %" PRId64 "..%" PRId64 ") into %s\n", n,
                         numbered_[numbered_.size() - n], numbered_.back(), out.c_str());
  if (!valid_batcher_) return {};
  // Evaluate the average in the model's own buffers, then put the trained parameters back.
  StFile file;
  ModelConfig config;
  if (std::string err = read_checkpoint(out, &file, &config); !err.empty()) return err;
  const std::vector<float> trained(model_->params(), model_->params() + model_->num_params());
  if (std::string err = load_params(file, model_.get()); !err.empty()) return err;
  const EvalResult e = evaluate(0);
  std::copy(trained.begin(), trained.end(), model_->params());
  if (log_) std::fprintf(log_, "eval average | val loss %.4f | BLEU %.2f (%zu sentences)\n", e.loss, e.bleu, e.sentences);
  return {};
}

RunResult Trainer::run() {
  const TrainSettings& s = options_.settings;
  std::error_code ec;
  std::filesystem::create_directories(options_.out_dir, ec);
  if (ec) return {RunResult::Status::kError, step_, "cannot create " + options_.out_dir + ": " + ec.message()};
  losses_.reserve(losses_.size() + static_cast<size_t>(std::max<int64_t>(options_.steps - step_, 0)));
  if (batcher_->epoch() != epoch_) batcher_->plan_epoch(epoch_);
  run_start_ = Clock::now();
  run_first_step_ = step_;
  auto window_start = run_start_;
  double window_loss = 0.0, window_tokens = 0.0;

  while (step_ < options_.steps) {
    if (next_batch_ >= static_cast<int64_t>(batcher_->num_batches())) {
      ++epoch_;
      next_batch_ = 0;
      batcher_->plan_epoch(epoch_);
    }
    batcher_->fill(static_cast<size_t>(next_batch_), &batch_);
    const auto lr = static_cast<float>(noam_lr(step_ + 1, options_.config.d_model, s.warmup, s.lr_scale) *
                                       decay_factor(step_ + 1, options_.steps, s.decay));
    const StepResult r = train_step(model_.get(), adam_.get(), batch_, DropoutRng{s.seed, static_cast<uint64_t>(step_ + 1)}, lr, s.clip);
    if (!r.finite()) {
      char what[96];
      std::snprintf(what, sizeof what, std::isfinite(r.loss) ? "gradient norm is %g" : "loss is %g",
                    std::isfinite(r.loss) ? r.grad_norm : static_cast<double>(r.loss));
      std::string message = std::string(what) + " at step " + std::to_string(step_ + 1) + " (epoch " +
                            std::to_string(epoch_ + 1) + ", batch " + std::to_string(next_batch_) + "); stopped. ";
      message += last_saved_step_ >= 0
                     ? "Last good checkpoint: " + path("last.safetensors") + " (step " + std::to_string(last_saved_step_) + ")"
                     : std::string("No checkpoint was written before it.");
      return {RunResult::Status::kDiverged, step_, message};
    }
    const auto tokens = static_cast<double>(batch_.target_tokens());
    losses_.push_back(r.loss);
    ++step_;
    ++next_batch_;
    target_tokens_ += static_cast<int64_t>(tokens);
    window_loss += static_cast<double>(r.loss) * tokens;
    window_tokens += tokens;
    if (step_ % std::max<int64_t>(options_.log_every, 1) == 0 || step_ == options_.steps) {
      log_progress(window_loss / window_tokens, window_tokens, seconds_since(window_start), lr);
      window_loss = window_tokens = 0.0;
      window_start = Clock::now();
    }
    const bool stop = options_.stop_flag && *options_.stop_flag;
    const bool final = step_ == options_.steps;
    const bool evaluate_now = final || (options_.eval_every > 0 && step_ % options_.eval_every == 0);
    if (evaluate_now || stop) {
      if (std::string err = checkpoint(evaluate_now, final); !err.empty()) return {RunResult::Status::kError, step_, err};
      window_start = Clock::now();  // validation time is not training throughput
    }
    if (stop && !final)
      return {RunResult::Status::kStopped, step_, "stopped at step " + std::to_string(step_) + "; " + path("last.safetensors") + " resumes it"};
  }
  if (std::string err = average_numbered(); !err.empty()) return {RunResult::Status::kError, step_, err};
  if (log_ && best_step_ >= 0)
    std::fprintf(log_, "done: step %" PRId64 ", best val loss %.4f at step %" PRId64 " (%s)\n", step_, best_loss_, best_step_,
                 path("best.safetensors").c_str());
  return {RunResult::Status::kDone, step_, {}};
}

}  // namespace pmt::train

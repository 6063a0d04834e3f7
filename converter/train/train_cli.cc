// pmt-convert train: trains the Transformer on a prepared corpus (or, with --benchmark, times
// training steps on random batches of a fixed shape).
#include <cblas.h>
#include <sentencepiece_processor.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/safetensors.h"
#include "corpus/cli_options.h"
#include "train/checkpoint.h"
#include "train/ops/gemm.h"
#include "train/trainer.h"

namespace pmt::cli {
namespace {

constexpr char kUsage[] =
    "Trains the encoder-decoder Transformer on <data>/train.<src>/<tgt>, validating on valid.*.\n"
    "Writes to --out: last.safetensors (resumable: weights + Adam state), best.safetensors\n"
    "(lowest validation loss), step-NNNNNNN.safetensors (the last --keep evaluations) and,\n"
    "with --average N, average.safetensors. A resume reuses the checkpoint's optimization values\n"
    "unless given. --benchmark needs no corpus.\n"
    "Exit status: 0 done, 1 training failed (non-finite loss, I/O error), 2 bad usage or input,\n"
    "130 stopped by SIGINT/SIGTERM after writing last.safetensors.";

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

int fail(const std::string& message) {
  std::fprintf(stderr, "pmt-convert train: %s\n", message.c_str());
  return 2;
}

bool parse_int(const char* option, const std::string& text, int64_t min, int64_t max, int64_t* out) {
  return parse_int_option("train", option, text, min, max, out);
}

bool parse_double(const char* option, const std::string& text, double min, double max, double* out) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !(v >= min && v <= max)) {
    std::fprintf(stderr, "pmt-convert train: %s must be a number in [%g, %g], got '%s'\n", option, min, max, text.c_str());
    return false;
  }
  *out = v;
  return true;
}

// The op table of --profile: mean ms per step of each op, forward and backward, and what the step
// spends outside the model (zero_grad, gradient norm, Adam).
void print_profile(const train::OpProfile& p, int64_t steps, double step_ms) {
  const double scale = 1e3 / static_cast<double>(steps);
  double fwd = 0.0, bwd = 0.0;
  std::printf("| op | forward ms | backward ms | total ms | share |\n|---|--:|--:|--:|--:|\n");
  for (int op = 0; op < train::OpProfile::kOps; ++op) {
    const double f = p.forward[op] * scale, b = p.backward[op] * scale;
    fwd += f;
    bwd += b;
    std::printf("| %s | %.1f | %.1f | %.1f | %.1f %% |\n", train::OpProfile::name(op), f, b, f + b,
                100.0 * (f + b) / step_ms);
  }
  const double rest = step_ms - fwd - bwd;
  std::printf("| zero_grad + grad norm + Adam | | | %.1f | %.1f %% |\n", rest, 100.0 * rest / step_ms);
  std::printf("| step | %.1f | %.1f | %.1f | 100 %% |\n", fwd, bwd, step_ms);
}

// Times training steps on random full-length batches (no padding): the figure to compare with
// PyTorch on the same shape (bench/torch_train_bench.py).
int run_benchmark(const ModelConfig& config, int64_t batch, int64_t src_len, int64_t tgt_len, int64_t steps, int threads,
                  uint64_t seed, bool profile, const std::string& gemm_name, const std::string& blas_core) {
  if (src_len > config.max_len || tgt_len > config.max_len) return fail("--src-len/--tgt-len exceed the preset's max_len");
  const auto B = static_cast<int32_t>(batch), S = static_cast<int32_t>(src_len), T = static_cast<int32_t>(tgt_len);
  train::Transformer model(config, train::BatchLimits{B, S, T, 0, 0});
  model.init(seed);
  train::Adam adam(model.num_params());
  train::Batch b;
  b.batch = B;
  b.src_len = S;
  b.tgt_len = T;
  b.src.resize(static_cast<size_t>(B) * S);
  b.tgt_in.resize(static_cast<size_t>(B) * T);
  b.tgt_out.resize(static_cast<size_t>(B) * T);
  uint64_t state = seed;
  auto random_piece = [&] {  // an id past the special ones
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int32_t>(4 + (state >> 33) % static_cast<uint64_t>(config.vocab_size - 4));
  };
  for (int32_t r = 0; r < B; ++r) {
    for (int32_t s = 0; s < S; ++s) b.src[r * S + s] = s + 1 < S ? random_piece() : kEosId;
    b.tgt_in[r * T] = kBosId;
    for (int32_t t = 0; t < T; ++t) {
      b.tgt_out[r * T + t] = t + 1 < T ? random_piece() : kEosId;
      if (t + 1 < T) b.tgt_in[r * T + t + 1] = b.tgt_out[r * T + t];
    }
  }
  std::printf("benchmark: %zu parameters, B=%d S=%d T=%d, %d thread(s), %s GEMM, OpenBLAS %s kernels, %" PRId64
              " timed steps\n",
              model.num_params(), B, S, T, threads, gemm_name.c_str(), blas_core.c_str(), steps);
  std::vector<double> ms;
  std::clock_t cpu_start = 0;
  train::OpProfile ops;
  for (int64_t i = 0; i < steps + 2; ++i) {
    if (i == 2) {
      cpu_start = std::clock();
      if (profile) model.set_profile(&ops);
    }
    const auto start = std::chrono::steady_clock::now();
    const auto lr = static_cast<float>(train::noam_lr(i + 1, config.d_model, 4000, 1.0));
    const train::StepResult r = train::train_step(&model, &adam, b, train::DropoutRng{seed, static_cast<uint64_t>(i + 1)}, lr, 0.0);
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!r.finite()) {
      std::fprintf(stderr, "pmt-convert train: benchmark loss is not finite at step %" PRId64 "\n", i + 1);
      return 1;
    }
    if (i >= 2) ms.push_back(t);
  }
  // Process CPU time over all threads: compared with the wall time it shows contention from
  // other processes on a shared machine.
  const double cpu_ms = 1e3 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC / static_cast<double>(steps);
  double mean = 0.0;
  for (double t : ms) mean += t / static_cast<double>(ms.size());
  std::sort(ms.begin(), ms.end());
  const double tgt_tokens = static_cast<double>(B) * T, all_tokens = static_cast<double>(B) * (S + T);
  std::printf("step time: mean %.1f ms, median %.1f ms, min %.1f ms, max %.1f ms; CPU %.1f ms per step\n", mean,
              ms[ms.size() / 2], ms.front(), ms.back(), cpu_ms);
  // Mean step time, as bench/torch_train_bench.py reports it.
  std::printf("throughput: %.0f target tokens/s, %.0f source+target tokens/s\n", tgt_tokens / mean * 1e3,
              all_tokens / mean * 1e3);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS: %.1f MB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  if (profile) print_profile(ops, steps, mean);
  return 0;
}

}  // namespace

int cmd_train(int argc, char** argv) {
  // Empty = not given: a resume then takes the checkpoint's value, a new run the default.
  std::string data_dir, spm_path, src_lang, tgt_lang, preset, out_dir, resume, init;
  std::string vocab_size_s, dropout, label_smoothing, steps_s, batch_tokens_s, warmup_s, lr_scale_s, decay_s, clip_s,
      seed_s, threads_s;
  std::string log_every_s, eval_every_s, eval_sentences_s, keep_s, average_s = "0", gemm_s;
  std::string batch_s = "128", src_len_s = "32", tgt_len_s = "32";
  bool pre_ln = false, overwrite = false, benchmark = false, profile = false, new_corpus = false;
  const Option options[] = {
      // data and model
      {"--data", &data_dir, nullptr, "corpus folder (default data/web-rv)", "DIR"},
      {"--spm", &spm_path, nullptr, "SentencePiece model (default <data>/spm.model)", "FILE"},
      {"--src", &src_lang, nullptr, "source file suffix (default en)", "LANG"},
      {"--tgt", &tgt_lang, nullptr, "target file suffix (default es)", "LANG"},
      {"--preset", &preset, nullptr, "tiny | small | general | base (default small; a resume takes the checkpoint's)",
       "NAME"},
      {"--vocab-size", &vocab_size_s, nullptr, "override the preset's vocabulary size (the SentencePiece model's)", "N"},
      {"--dropout", &dropout, nullptr, "override the preset's dropout", "P"},
      {"--label-smoothing", &label_smoothing, nullptr, "override the preset's label smoothing", "E"},
      {"--pre-ln", nullptr, &pre_ln, "pre-LN layers (+ final norms) instead of the paper's post-LN"},
      // optimization
      {"--steps", &steps_s, nullptr, "total optimizer steps (default 1000)", "N"},
      {"--batch-tokens", &batch_tokens_s, nullptr, "batch size as B * max(S, T), padding included (default 4000)", "N"},
      {"--warmup", &warmup_s, nullptr, "warm-up steps of the schedule (default 4000)", "N"},
      {"--lr-scale", &lr_scale_s, nullptr, "lr = X * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5) (default 1)", "X"},
      {"--decay", &decay_s, nullptr,
       "the rate falls linearly to 0 over the last N steps of --steps (default 0 = off)", "N"},
      {"--clip", &clip_s, nullptr, "clip the global gradient norm to X; 0 = off (default 0)", "X"},
      {"--seed", &seed_s, nullptr, "initialization, batch order and dropout (default 1)", "N"},
      {"--threads", &threads_s, nullptr, "OpenBLAS threads (default 1); results are reproducible per count", "N"},
      {"--gemm", &gemm_s, nullptr,
       "matrix products: fp32 (OpenBLAS) | bf16 (bfloat16 inputs, fp32 accumulation, on Intel AMX tiles or "
       "AVX512-BF16; exit 2 without either) | auto (bf16 where the CPU has it, else fp32) (default auto; a resume "
       "takes the checkpoint's, bf16 becoming auto on a CPU without it)",
       "NAME"},
      // run
      {"--out", &out_dir, nullptr, "run folder (default runs/<preset>)", "DIR"},
      {"--log-every", &log_every_s, nullptr, "progress line every N steps (default 10)", "N"},
      {"--eval-every", &eval_every_s, nullptr,
       "validation loss + BLEU and checkpoints every N steps (default 200; 0 = only at the end); the end always "
       "evaluates on all of valid", "N"},
      {"--eval-sentences", &eval_sentences_s, nullptr,
       "sentences decoded for the periodic BLEU (default 100; about as much as 50 training steps of small per 100 "
       "sentences early in training)", "N"},
      {"--keep", &keep_s, nullptr, "numbered checkpoints kept (default 5, at least --average)", "N"},
      {"--average", &average_s, nullptr, "at the end, average the last N numbered checkpoints (default 0)", "N"},
      {"--resume", &resume, nullptr,
       "continue a run from its last.safetensors (with its --steps, --data, --spm, --src, --tgt, --log-every, "
       "--eval-every, --eval-sentences, --keep unless given again)", "FILE"},
      {"--init", &init, nullptr,
       "a new run (step 0, fresh Adam state, its own schedule) from the weights of any checkpoint of the same "
       "model, e.g. best.safetensors or an average: fine-tuning, or going on where no Adam state was kept",
       "FILE"},
      {"--new-corpus", nullptr, &new_corpus, "with --resume: other training data; weights, Adam state and schedule go on, epoch, batch order and best-checkpoint tracking start over"},
      {"--overwrite", nullptr, &overwrite, "start over in a --out that already holds a run"},
      // benchmark
      {"--benchmark", nullptr, &benchmark, "time --steps training steps (default 20, after 2 untimed) on random batches"},
      {"--batch", &batch_s, nullptr, "--benchmark: sentences per batch (default 128)", "B"},
      {"--src-len", &src_len_s, nullptr, "--benchmark: source length (default 32)", "S"},
      {"--tgt-len", &tgt_len_s, nullptr, "--benchmark: target length (default 32)", "T"},
      {"--profile", nullptr, &profile, "--benchmark: also print the time per op, forward and backward, per step"}};
  if (auto r = parse_options("train", kUsage, argc, argv, options); r != ParseResult::kOk) return exit_code(r);

  // Model config: the preset (or the resumed or initializing checkpoint's), then explicit overrides.
  if (!resume.empty() && !init.empty()) return fail("--resume and --init exclude each other");
  train::TrainOptions opt;
  StFile resumed, initial;
  bool have_config = false;
  if (!resume.empty()) {
    if (std::string err = train::read_checkpoint(resume, &resumed, &opt.config); !err.empty()) return fail(err);
    if (std::string err = train::settings_from_metadata(resumed.metadata, &opt.settings); !err.empty())
      return fail(resume + ": " + err);
    have_config = true;
  } else if (!init.empty()) {
    if (std::string err = train::read_checkpoint(init, &initial, &opt.config); !err.empty()) return fail(err);
    have_config = true;
  }
  const std::string& config_source = !resume.empty() ? resume : init;
  // The command's own run settings, kept in last.safetensors so that `--resume FILE` alone
  // continues the same run (a run that forgot --data used to fail, one that forgot
  // --eval-every or --steps silently changed). Paths are stored as given, relative to the run's working
  // folder, so a committed checkpoint names no machine's folders: resume from the same folder
  // (e.g. the repository root) or pass --data/--spm again.
  const struct {
    const char* key;
    std::string* value;
    const char* fallback;
    bool path;
  } remembered[] = {{"train.data", &data_dir, "data/web-rv", true},     {"train.spm", &spm_path, "", true},
                    {"train.src", &src_lang, "en", false},              {"train.tgt", &tgt_lang, "es", false},
                    {"train.log_every", &log_every_s, "10", false},     {"train.eval_every", &eval_every_s, "200", false},
                    {"train.eval_sentences", &eval_sentences_s, "100", false}, {"train.keep", &keep_s, "5", false},
                    {"train.gemm", &gemm_s, "auto", false},     {"train.steps", &steps_s, "1000", false}};
  const bool gemm_given = !gemm_s.empty(), steps_given = !steps_s.empty();
  for (const auto& r : remembered) {
    if (!r.value->empty()) continue;
    const auto it = resumed.metadata.find(r.key);
    *r.value = it != resumed.metadata.end() ? it->second : r.fallback;
  }
  if (!preset.empty() || !have_config) {
    ModelConfig c;
    if (!preset_config(preset.empty() ? "small" : preset, &c))
      return fail("unknown preset '" + preset + "' (tiny, small, general, base)");
    if (have_config && !(c == opt.config)) {
      // Overrides below may legitimately differ from the preset; compare what the checkpoint holds.
      c.dropout = opt.config.dropout;
      c.label_smoothing = opt.config.label_smoothing;
      c.pre_ln = opt.config.pre_ln;
      if (!(c == opt.config)) return fail("--preset " + preset + " does not match the model in " + config_source);
    }
    opt.config = c;
  }
  if (!vocab_size_s.empty()) {
    int64_t n = 0;
    if (!parse_int("--vocab-size", vocab_size_s, 8, 1 << 20, &n)) return 2;
    if (have_config && n != opt.config.vocab_size) return fail("--vocab-size does not match the model in " + config_source);
    opt.config.vocab_size = static_cast<int32_t>(n);
  }
  double d = 0;
  if (!dropout.empty()) {
    if (!parse_double("--dropout", dropout, 0.0, 0.99, &d)) return 2;
    opt.config.dropout = static_cast<float>(d);
  }
  if (!label_smoothing.empty()) {
    if (!parse_double("--label-smoothing", label_smoothing, 0.0, 0.99, &d)) return 2;
    opt.config.label_smoothing = static_cast<float>(d);
  }
  if (pre_ln) opt.config.pre_ln = true;

  // Settings: explicit values win over the checkpoint's (the Trainer warns when they differ).
  train::TrainSettings& s = opt.settings;
  int64_t v = 0;
  if (!seed_s.empty()) {
    if (!parse_int("--seed", seed_s, 0, INT64_MAX, &v)) return 2;
    s.seed = static_cast<uint64_t>(v);
  }
  if (!batch_tokens_s.empty()) {
    if (!parse_int("--batch-tokens", batch_tokens_s, 1, int64_t{1} << 30, &v)) return 2;
    s.batch_tokens = v;
  }
  if (!warmup_s.empty()) {
    if (!parse_int("--warmup", warmup_s, 1, int64_t{1} << 40, &v)) return 2;
    s.warmup = v;
  }
  if (!threads_s.empty()) {
    if (!parse_int("--threads", threads_s, 1, 256, &v)) return 2;
    s.threads = static_cast<int>(v);
  }
  if (!decay_s.empty()) {
    if (!parse_int("--decay", decay_s, 0, int64_t{1} << 40, &v)) return 2;
    s.decay = v;
  }
  if (!lr_scale_s.empty() && !parse_double("--lr-scale", lr_scale_s, 0.0, 1e38, &s.lr_scale)) return 2;
  if (!clip_s.empty() && !parse_double("--clip", clip_s, 0.0, 1e38, &s.clip)) return 2;
  // Which kernels OpenBLAS picked for this CPU (or OPENBLAS_CORETYPE forced): they set the GEMM speed.
  const std::string blas_core = openblas_get_corename();
  openblas_set_num_threads(s.threads);
  // A run started with bf16 on a CPU that has it may go on where none is: the remembered choice
  // then becomes auto (fp32 here), with a warning; an explicit --gemm bf16 still fails.
  if (!gemm_given && gemm_s == "bf16" && !train::bf16_available()) {
    std::fprintf(stderr,
                 "pmt-convert train: warning: %s ran with --gemm bf16, which this CPU lacks (no AMX or AVX512-BF16): "
                 "going on with --gemm auto\n",
                 resume.c_str());
    gemm_s = "auto";
  }
  train::GemmBackend gemm_backend = train::GemmBackend::kFp32;
  if (std::string err; !train::resolve_gemm_backend(gemm_s, &gemm_backend, &err)) return fail(err);
  train::set_gemm_backend(gemm_backend);
  const std::string gemm_name =
      gemm_backend == train::GemmBackend::kBf16
          ? std::string("bf16 (") + train::bf16_kernel_name(train::bf16_kernel()) + ")"
          : train::gemm_backend_name(gemm_backend);

  if (benchmark) {
    int64_t B = 0, S = 0, T = 0, steps = 20;
    if (!parse_int("--batch", batch_s, 1, 1 << 16, &B) || !parse_int("--src-len", src_len_s, 1, 1 << 16, &S) ||
        !parse_int("--tgt-len", tgt_len_s, 1, 1 << 16, &T) ||
        (steps_given && !parse_int("--steps", steps_s, 1, int64_t{1} << 40, &steps)))
      return 2;
    return run_benchmark(opt.config, B, S, T, steps, s.threads, s.seed, profile, gemm_name, blas_core);
  }

  int64_t steps = 0, log_every = 0, eval_every = 0, eval_sentences = 0, keep = 0, average = 0;
  if (!parse_int("--steps", steps_s, 1, int64_t{1} << 40, &steps) ||
      !parse_int("--log-every", log_every_s, 1, int64_t{1} << 40, &log_every) ||
      !parse_int("--eval-every", eval_every_s, 0, int64_t{1} << 40, &eval_every) ||
      !parse_int("--eval-sentences", eval_sentences_s, 1, int64_t{1} << 40, &eval_sentences) ||
      !parse_int("--keep", keep_s, 1, 100000, &keep) || !parse_int("--average", average_s, 0, 100000, &average))
    return 2;
  opt.steps = steps;
  opt.log_every = log_every;
  opt.eval_every = eval_every;
  opt.eval_sentences = eval_sentences;
  opt.keep_checkpoints = static_cast<int>(std::max(keep, average));
  opt.average = static_cast<int>(average);
  if (out_dir.empty()) {
    out_dir = !resume.empty() ? std::filesystem::path(resume).parent_path().string()
                              : "runs/" + (preset.empty() ? std::string("small") : preset);
  }
  opt.out_dir = out_dir.empty() ? "." : out_dir;
  if (std::string err = opt.config.validate(); !err.empty()) return fail("model config: " + err);

  const std::string last = (std::filesystem::path(opt.out_dir) / "last.safetensors").string();
  if (resume.empty() && !overwrite && std::filesystem::exists(last))
    return fail(opt.out_dir + " already holds a run; pass --resume " + last + " to continue it or --overwrite to start over");

  // Vocabulary and corpus, encoded once.
  if (spm_path.empty()) spm_path = (std::filesystem::path(data_dir) / "spm.model").string();
  for (const auto& r : remembered)
    opt.run_metadata[r.key] = r.path ? std::filesystem::path(*r.value).lexically_normal().string() : *r.value;
  // Where the weights of an --init run came from, and what a resume of it carries on.
  if (!init.empty()) opt.run_metadata["train.init"] = std::filesystem::path(init).lexically_normal().string();
  else if (const auto it = resumed.metadata.find("train.init"); it != resumed.metadata.end())
    opt.run_metadata["train.init"] = it->second;
  sentencepiece::SentencePieceProcessor sp;
  if (const auto status = sp.Load(spm_path); !status.ok()) return fail("cannot load " + spm_path + ": " + status.ToString());
  if (std::string err = train::check_vocabulary(sp, opt.config); !err.empty()) return fail(spm_path + ": " + err);
  train::ParallelData train_data, valid_data;
  for (auto [split, policy, data] : {std::tuple{"train", train::LengthPolicy::kDrop, &train_data},
                                     std::tuple{"valid", train::LengthPolicy::kTruncate, &valid_data}}) {
    const std::string prefix = (std::filesystem::path(data_dir) / split).string();
    train::LoadStats st;
    if (std::string err = train::load_parallel(prefix, src_lang, tgt_lang, sp, opt.config.max_len, policy,
                                               policy == train::LengthPolicy::kTruncate, data, &st);
        !err.empty())
      return fail(err);
    int64_t tokens = 0;
    for (size_t i = 0; i < data->size(); ++i) tokens += data->pairs[i].tgt_len;
    std::printf("%s: %" PRId64 " pairs read, %" PRId64 " kept (%" PRId64 " with an empty side dropped, %" PRId64
                " longer than max_len %d %s), %" PRId64 " target tokens\n",
                split, st.lines, st.kept, st.empty, st.too_long, opt.config.max_len,
                policy == train::LengthPolicy::kDrop ? "dropped" : "truncated", tokens);
  }

  train::TrainData data;
  data.train = &train_data;
  data.valid = &valid_data;
  data.detokenize = [&sp](std::span<const int32_t> ids) {
    std::string text;
    sp.Decode(std::vector<int>(ids.begin(), ids.end()), &text).IgnoreError();
    return text;
  };
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  opt.stop_flag = &g_stop;
  try {
    train::Trainer trainer(opt, data, stdout);
    std::printf("model: %zu parameters (d_model %d, %d+%d layers, %d heads, d_ff %d, vocab %d), %d thread(s), "
                "%s GEMM, OpenBLAS %s kernels\n",
                trainer.model().num_params(), opt.config.d_model, opt.config.n_enc_layers, opt.config.n_dec_layers,
                opt.config.n_heads, opt.config.d_ff, opt.config.vocab_size, s.threads, gemm_name.c_str(),
                blas_core.c_str());
    if (!resume.empty()) {
      if (std::string err = trainer.resume(resume, new_corpus); !err.empty()) return fail(err);
    } else if (!init.empty()) {
      if (std::string err = train::load_params(initial, &trainer.model()); !err.empty()) return fail(init + ": " + err);
      std::printf("initialized from the weights of %s\n", init.c_str());
    }
    std::fflush(stdout);
    const train::RunResult r = trainer.run();
    switch (r.status) {
      case train::RunResult::Status::kDone: return 0;
      case train::RunResult::Status::kStopped: std::printf("%s\n", r.message.c_str()); return 130;
      case train::RunResult::Status::kDiverged:
      case train::RunResult::Status::kError: std::fprintf(stderr, "pmt-convert train: %s\n", r.message.c_str()); return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pmt-convert train: %s\n", e.what());
    return 1;
  }
  return 1;
}

}  // namespace pmt::cli

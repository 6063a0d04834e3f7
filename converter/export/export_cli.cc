// pmt-convert export: checkpoint + SentencePiece model -> .pmt model file (fp32 or int8).
#include <sys/stat.h>

#include <cblas.h>
#include <sentencepiece_processor.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include "common/safetensors.h"
#include "corpus/cli_options.h"
#include "export/export.h"
#include "export/model_writer.h"
#include "export/shortlist.h"
#include "pmt_progress.h"
#include "train/parallel_data.h"

namespace pmt::cli {
namespace {

constexpr char kUsage[] =
    "Converts a safetensors checkpoint and its SentencePiece model into one .pmt model file,\n"
    "verifies the result and prints its size. int8 calibration: the fp32 model runs\n"
    "teacher-forced over training pairs (--calib-data).";

std::string read_whole_file(const std::string& path, std::string* out) {
  // stat first: opening a FIFO would block until a writer comes, and a directory reads as empty.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return path + ": " + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return path + ": not a regular file";
  std::ifstream in(path, std::ios::binary);
  if (!in) return path + ": " + std::strerror(errno);
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return path + ": read error";
  *out = buf.str();
  return {};
}

}  // namespace

int cmd_export(int argc, char** argv) {
  std::string checkpoint_path, spm_path, out_path, dtype = "int8", calib_prefix, src = "en", tgt = "es";
  std::string sentences_text = "4000", percentile_text = "99.999", margin_text = "1.1", alpha_text, letter_text;
  std::string shortlist_prefix, frequent_text = std::to_string(exporter::ShortlistOptions{}.frequent),
                                per_source_text = std::to_string(exporter::ShortlistOptions{}.per_source);
  bool quiet = false;
  const Option options[] = {
      {"--checkpoint", &checkpoint_path, nullptr, "checkpoint (pmt-convert train, or PyTorch weights under README names)", "FILE"},
      {"--spm", &spm_path, nullptr, "the SentencePiece model the checkpoint was trained with", "FILE"},
      {"--out", &out_path, nullptr, "model file to write, e.g. models/small-int8.pmt", "FILE"},
      {"--dtype", &dtype, nullptr, "int8: Linear weights per-row int8 + calibrated activations (default); f32", "int8|f32"},
      {"--calib-data", &calib_prefix, nullptr, "int8: sentence pairs PREFIX.<src> / PREFIX.<tgt>, e.g. data/web-rv/train", "PREFIX"},
      {"--src", &src, nullptr, "source file suffix (default en)", "LANG"},
      {"--tgt", &tgt, nullptr, "target file suffix (default es)", "LANG"},
      {"--calib-sentences", &sentences_text, nullptr, "pairs, spread evenly over the file (default 4000)", "N"},
      {"--percentile", &percentile_text, nullptr, "per-side activation range percentile, 50 < P <= 100 (default 99.999)", "P"},
      {"--channel-margin", &margin_text, nullptr,
       "widen each output channel's calibrated range M times, M >= 1 (default 1.1: headroom for inputs unlike the "
       "calibration pairs); 0: no per-channel ranges (one output scale per Linear, 66 KB less)", "M"},
      {"--alpha", &alpha_text, nullptr,
       "the length penalty translations get by default (metadata decode.alpha; choose it on validation data, "
       "docs/model-format.md); without it the runtime uses 0.6", "A"},
      {"--letter-penalty", &letter_text, nullptr,
       "the letter penalty translations get by default (metadata decode.letter_penalty; choose it on validation "
       "data, docs/model-format.md); without it the runtime uses 0 (off)", "P"},
      {"--shortlist", &shortlist_prefix, nullptr,
       "build the output layer's vocabulary shortlist from these sentence pairs (PREFIX.<src> / PREFIX.<tgt>, "
       "e.g. the training data) and store it in the file (docs/model-format.md)", "PREFIX"},
      {"--shortlist-frequent", &frequent_text, nullptr, "shortlist: the most frequent target pieces, always candidates (default 25)", "N"},
      {"--shortlist-per-source", &per_source_text, nullptr, "shortlist: target pieces kept per source piece (default 5)", "K"},
      {"--quiet", nullptr, &quiet, "no calibration progress on stderr"},
  };
  if (ParseResult r = parse_options("export", kUsage, argc, argv, options); r != ParseResult::kOk)
    return exit_code(r);
  auto usage_error = [](const std::string& why) {
    std::fprintf(stderr, "pmt-convert export: %s (pmt-convert export --help)\n", why.c_str());
    return 2;
  };
  auto input_error = [](const std::string& why) {
    std::fprintf(stderr, "pmt-convert export: %s\n", why.c_str());
    return 2;
  };
  if (checkpoint_path.empty() || spm_path.empty() || out_path.empty())
    return usage_error("--checkpoint, --spm and --out are required");
  exporter::ExportOptions opts;
  if (dtype == "int8") opts.dtype = DType::I8;
  else if (dtype == "f32") opts.dtype = DType::F32;
  else return usage_error("--dtype must be int8 or f32, got '" + dtype + "'");
  int64_t sentences = 0;
  if (!parse_int_option("export", "--calib-sentences", sentences_text, 1, 1000000, &sentences)) return 2;
  opts.calib_sentences = static_cast<size_t>(sentences);
  char* end = nullptr;
  opts.percentile = std::strtod(percentile_text.c_str(), &end);
  if (percentile_text.empty() || *end != '\0' || !(opts.percentile > 50.0 && opts.percentile <= 100.0))
    return usage_error("--percentile must be a number in (50, 100], got '" + percentile_text + "'");
  opts.channel_margin = std::strtod(margin_text.c_str(), &end);
  if (margin_text.empty() || *end != '\0' ||
      !(opts.channel_margin == 0.0 || (opts.channel_margin >= 1.0 && opts.channel_margin <= 100.0)))
    return usage_error("--channel-margin must be 0 or a number in [1, 100], got '" + margin_text + "'");
  if (opts.dtype == DType::I8 && calib_prefix.empty()) return usage_error("--dtype int8 needs --calib-data");
  exporter::ShortlistOptions shortlist_options;
  int64_t frequent = 0, per_source = 0;
  if (!parse_int_option("export", "--shortlist-frequent", frequent_text, 0, 65536, &frequent) ||
      !parse_int_option("export", "--shortlist-per-source", per_source_text, 0, 65536, &per_source))
    return 2;
  shortlist_options.frequent = static_cast<size_t>(frequent);
  shortlist_options.per_source = static_cast<size_t>(per_source);
  // Decode settings stored as metadata: plain decimals in [0, 100], as the loader reads them.
  std::map<std::string, std::string> settings;
  for (auto [flag, text, key] : {std::tuple{"--alpha", &alpha_text, "decode.alpha"},
                                 {"--letter-penalty", &letter_text, "decode.letter_penalty"}}) {
    if (text->empty()) continue;
    const double value = std::strtod(text->c_str(), &end);
    if (*end != '\0' || !(value >= 0.0 && value <= 100.0))
      return usage_error(std::string(flag) + " must be a number in [0, 100], got '" + *text + "'");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", value);
    std::string decimal = buf;
    decimal.erase(decimal.find_last_not_of('0') + 1);
    if (decimal.back() == '.') decimal.pop_back();
    settings[key] = decimal;
  }

  StFile checkpoint;
  if (std::string why = read_safetensors(checkpoint_path, &checkpoint); !why.empty()) return input_error(why);
  ModelConfig config;
  if (std::string why = config_from_metadata(checkpoint.metadata, &config); !why.empty())
    return input_error(checkpoint_path + ": " + why);
  std::string tokenizer;
  if (std::string why = read_whole_file(spm_path, &tokenizer); !why.empty()) return input_error(why);
  sentencepiece::SentencePieceProcessor sp;
  if (const auto status = sp.LoadFromSerializedProto(tokenizer); !status.ok())
    return input_error(spm_path + ": not a SentencePiece model: " + status.ToString());
  if (std::string why = train::check_vocabulary(sp, config); !why.empty())
    return input_error(spm_path + " does not match " + checkpoint_path + ": " + why);

  train::ParallelData calib;
  if (opts.dtype == DType::I8) {
    // Calibration runs one sentence at a time: GEMMs too small to gain from threads, and one
    // thread keeps the summation order, hence the calibrated scales, the same on every machine.
    openblas_set_num_threads(1);
    train::LoadStats stats;
    if (std::string why = train::load_parallel(calib_prefix, src, tgt, sp, config.max_len, train::LengthPolicy::kDrop,
                                               false, &calib, &stats);
        !why.empty())
      return input_error(why);
    if (calib.size() == 0) return input_error(calib_prefix + ": no usable sentence pairs for calibration");
  }

  exporter::Shortlist shortlist;
  if (!shortlist_prefix.empty()) {
    train::ParallelData pairs;
    train::LoadStats stats;
    if (std::string why = train::load_parallel(shortlist_prefix, src, tgt, sp, config.max_len, train::LengthPolicy::kDrop,
                                               false, &pairs, &stats);
        !why.empty())
      return input_error(why);
    if (std::string why = exporter::build_shortlist(pairs, config.vocab_size, config.eos_id, shortlist_options, &shortlist);
        !why.empty())
      return input_error(shortlist_prefix + ": " + why);
    opts.shortlist = &shortlist;
  }

  std::map<std::string, std::string> metadata = {{"source_checkpoint", checkpoint_path},
                                                  {"tokenizer_file", spm_path},
                                                  {"exported_by", "pmt-convert export"}};
  if (opts.dtype == DType::I8) metadata["calibration_data"] = calib_prefix + "." + src + " / ." + tgt;
  metadata.insert(settings.begin(), settings.end());
  if (opts.shortlist != nullptr)
    metadata["shortlist"] = shortlist_prefix + "." + src + " / ." + tgt + ": " + frequent_text + " frequent, " +
                            per_source_text + " per source piece (Dice, at least " +
                            std::to_string(shortlist_options.min_pairs) + " pairs)";
  std::vector<uint8_t> bytes;
  cli::Progress progress("pmt-convert export: calibration", 0, "pairs", quiet);
  opts.progress = [&progress](size_t done, size_t total) {
    progress.set_total(static_cast<double>(total));
    progress.update(static_cast<double>(done));
  };
  if (std::string why = exporter::export_model(checkpoint, tokenizer, &calib, opts, metadata, &bytes); !why.empty())
    return input_error(checkpoint_path + ": " + why);
  progress.finish();
  if (std::string why = exporter::write_file_atomically(out_path, bytes); !why.empty()) {
    std::fprintf(stderr, "pmt-convert export: %s\n", why.c_str());
    return 1;
  }
  // Read back through the runtime's loader: what was written is what a device will accept.
  std::string error;
  if (!ModelFile::open(out_path, &error)) {
    std::fprintf(stderr, "pmt-convert export: the written file does not verify: %s\n", error.c_str());
    return 1;
  }
  std::string detail = dtype;
  if (opts.dtype == DType::I8)
    detail += ", calibrated on " + std::to_string(std::min(calib.size(), opts.calib_sentences)) + " pairs";
  if (opts.shortlist != nullptr)
    detail += ", shortlist of " + std::to_string(shortlist.frequent.size()) + " + " +
              std::to_string(shortlist.targets.size()) + " ids";
  std::printf("wrote %s: %zu bytes (%.2f MiB), %s\n", out_path.c_str(), bytes.size(),
              static_cast<double>(bytes.size()) / (1 << 20), detail.c_str());
  return 0;
}

}  // namespace pmt::cli

// pmt-convert extend-vocab: whole-word pieces for a text's common fragmented words, added to a
// trained model's SentencePiece model and embedding (corpus/vocab_extension.h).
#include <sentencepiece_processor.h>

#include <cinttypes>
#include <cstdio>
#include <iterator>

#include "common/atomic_file.h"
#include "common/text_lines.h"
#include "corpus/cli_options.h"
#include "corpus/debian_packages.h"
#include "corpus/vocab_extension.h"
#include "train/checkpoint.h"
#include "train/parallel_data.h"

namespace pmt::cli {
namespace {

constexpr char kUsage[] =
    "Reads TEXT files (one sentence a line, either language), finds the words that the\n"
    "SentencePiece model --spm spells in two or more pieces and that occur at least --min-count\n"
    "times, and appends the --max-new that save the most pieces as whole-word pieces: old pieces\n"
    "keep their ids. Writes the grown SentencePiece model (--out-spm) and the checkpoint with one\n"
    "embedding row per new piece, the mean of its old pieces' rows (--out; optimizer state\n"
    "dropped), to fine-tune with `pmt-convert train --init`. Prints the words added.";

}  // namespace

int cmd_extend_vocab(int argc, char** argv) {
  std::string spm_path, checkpoint_path, out_spm, out, min_count_s = "5", max_new_s = "4000";
  std::vector<std::string> texts;
  bool quiet = false;
  const Option options[] = {
      {"--spm", &spm_path, nullptr, "the model's SentencePiece model (required)", "FILE"},
      {"--checkpoint", &checkpoint_path, nullptr, "the model's checkpoint (required)", "FILE"},
      {"--out-spm", &out_spm, nullptr, "the grown SentencePiece model to write (required)", "FILE"},
      {"--out", &out, nullptr, "the grown checkpoint to write (required)", "FILE"},
      {"--min-count", &min_count_s, nullptr, "occurrences a word needs (default 5)", "N"},
      {"--max-new", &max_new_s, nullptr, "pieces to add at most (default 4000)", "N"},
      {"--quiet", nullptr, &quiet, "do not list the words added"}};
  const Positional positionals[] = {{"TEXT", &texts, "text files whose words are counted", true}};
  if (auto r = parse_options("extend-vocab", kUsage, argc, argv, options, positionals); r != ParseResult::kOk) {
    return exit_code(r);
  }
  const auto fail = [](const std::string& message) {
    std::fprintf(stderr, "pmt-convert extend-vocab: %s\n", message.c_str());
    return 2;
  };
  if (spm_path.empty() || checkpoint_path.empty() || out_spm.empty() || out.empty() || texts.empty()) {
    return fail("--spm, --checkpoint, --out-spm, --out and at least one TEXT are required (--help)");
  }
  int64_t min_count = 0, max_new = 0;
  if (!parse_int_option("extend-vocab", "--min-count", min_count_s, 1, INT64_MAX, &min_count) ||
      !parse_int_option("extend-vocab", "--max-new", max_new_s, 1, 1 << 20, &max_new)) {
    return 2;
  }

  std::string serialized, error;
  if (!corpus::read_file(spm_path, &serialized, &error)) return fail(error);
  sentencepiece::SentencePieceProcessor sp;
  if (!sp.LoadFromSerializedProto(serialized).ok()) return fail("cannot load " + spm_path);
  StFile checkpoint;
  ModelConfig config;
  if (std::string err = train::read_checkpoint(checkpoint_path, &checkpoint, &config); !err.empty()) return fail(err);
  if (std::string err = train::check_vocabulary(sp, config); !err.empty()) {
    return fail(spm_path + " is not the vocabulary of " + checkpoint_path + ": " + err);
  }
  std::vector<std::string> lines;
  for (const std::string& text : texts) {
    std::vector<std::string> more;
    if (std::string err = read_lines(text, &more); !err.empty()) return fail(err);
    lines.insert(lines.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }

  const std::vector<corpus::WordPieces> words = corpus::choose_new_pieces(
      sp, lines, {.min_count = min_count, .max_new = static_cast<size_t>(max_new)});
  if (words.empty()) return fail("no word of the text qualifies");
  if (std::string err = corpus::extend_embedding(words, &checkpoint); !err.empty()) return fail(err);
  const std::string grown = corpus::append_pieces(serialized, words);
  sentencepiece::SentencePieceProcessor check;
  if (!check.LoadFromSerializedProto(grown).ok() ||
      check.GetPieceSize() != sp.GetPieceSize() + static_cast<int>(words.size())) {
    return fail("libsentencepiece refuses the grown model");
  }
  if (std::string err = write_file_atomically(out_spm, [&](int fd) { return write_all(fd, grown.data(), grown.size()); });
      !err.empty()) {
    return fail(err);
  }
  if (std::string err = write_safetensors(out, checkpoint); !err.empty()) return fail(err);
  if (!quiet) {
    for (const corpus::WordPieces& w : words) {
      std::printf("%s\t%" PRId64 "\t%zu\n", w.word.c_str(), w.count, w.pieces.size());
    }
  }
  std::fprintf(stderr, "pmt-convert extend-vocab: %zu pieces added (%d -> %d) from %zu lines; wrote %s and %s\n",
               words.size(), sp.GetPieceSize(), check.GetPieceSize(), lines.size(), out_spm.c_str(), out.c_str());
  return 0;
}

}  // namespace pmt::cli

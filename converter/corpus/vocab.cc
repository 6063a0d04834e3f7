#include "corpus/vocab.h"

#include <fstream>
#include <unordered_map>

#include <sentencepiece_trainer.h>

#include "corpus/normalization.h"
#include "pocketmt/config.h"

namespace pmt::corpus {
namespace {

// Feeds the trainer every line of the input files in order.
class LinesIterator : public sentencepiece::SentenceIterator {
 public:
  explicit LinesIterator(const std::vector<std::filesystem::path>& files) : files_(files) { Next(); }

  bool done() const override { return done_; }
  const std::string& value() const override { return line_; }
  sentencepiece::util::Status status() const override { return status_; }

  void Next() override {
    while (!done_) {
      if (file_.is_open() && std::getline(file_, line_)) return;
      if (file_.is_open() && file_.bad()) return fail("error reading " + files_[next_file_ - 1].string());
      file_.close();
      if (next_file_ == files_.size()) {
        done_ = true;
        return;
      }
      const std::filesystem::path& path = files_[next_file_++];
      file_.open(path, std::ios::binary);
      if (!file_) return fail("cannot read " + path.string());
    }
  }

 private:
  void fail(const std::string& message) {
    status_ = sentencepiece::util::Status(sentencepiece::util::StatusCode::kNotFound, message);
    done_ = true;
  }

  const std::vector<std::filesystem::path>& files_;
  size_t next_file_ = 0;
  std::ifstream file_;
  std::string line_;
  bool done_ = false;
  sentencepiece::util::Status status_;
};

}  // namespace

bool train_vocab(const std::vector<std::filesystem::path>& inputs,
                 const std::filesystem::path& model_prefix, const VocabOptions& options,
                 std::string* error) {
  const std::filesystem::path rules = model_prefix.string() + ".normalization.tsv";
  if (!write_normalization_tsv(rules, error)) return false;
  const std::unordered_map<std::string, std::string> spec = {
      {"model_prefix", model_prefix.string()},
      {"model_type", "unigram"},
      {"vocab_size", std::to_string(options.vocab_size)},
      {"character_coverage", options.character_coverage},
      {"normalization_rule_tsv", rules.string()},
      {"byte_fallback", "true"},   // no input character is ever <unk>
      {"split_digits", "true"},    // numbers are spelled digit by digit, so they copy through
      {"pad_id", std::to_string(kPadId)},
      {"unk_id", std::to_string(kUnkId)},
      {"bos_id", std::to_string(kBosId)},
      {"eos_id", std::to_string(kEosId)},
      {"input_sentence_size", "0"},
      {"shuffle_input_sentence", "false"},
      {"num_threads", "1"},
      {"minloglevel", "1"},  // warnings and errors only
  };
  sentencepiece::SetRandomGeneratorSeed(1);
  LinesIterator lines(inputs);
  const sentencepiece::util::Status status = sentencepiece::SentencePieceTrainer::Train(spec, &lines);
  if (!status.ok()) {
    *error = status.ToString();
    return false;
  }
  return true;
}

}  // namespace pmt::corpus

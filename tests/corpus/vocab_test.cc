// A tiny SentencePiece model trained through train_vocab on synthetic English/Spanish lines.
#include <doctest/doctest.h>

#include <sentencepiece_processor.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "corpus/vocab.h"

namespace fs = std::filesystem;

namespace {

// A fresh folder under the system temp dir, removed at scope exit.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("pmt_vocab_test_" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

// 300 lines per language from a fixed linear congruential sequence over small word lists.
void write_corpus(const fs::path& dir) {
  const std::vector<std::string> en = {"the", "house", "is", "big", "red", "small", "a", "dog",
                                       "runs", "to", "garden", "and", "cat", "sleeps", "green"};
  const std::vector<std::string> es = {"la", "casa", "es", "grande", "roja", "pequeña", "un",
                                       "perro", "corre", "al", "jardín", "y", "gato", "duerme", "verde"};
  uint32_t state = 12345;
  const auto next = [&state](size_t n) {
    state = state * 1103515245u + 12345u;
    return (state >> 16) % n;
  };
  for (const auto& [name, words] : {std::pair{"train.en", &en}, std::pair{"train.es", &es}}) {
    std::ofstream out(dir / name);
    for (int line = 0; line < 300; ++line) {
      const size_t n = 3 + next(6);
      for (size_t w = 0; w < n; ++w) out << (w ? " " : "") << (*words)[next(words->size())];
      out << ".\n";
    }
  }
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("the vocabulary has the fixed special ids and round-trips text") {
  TempDir tmp;
  write_corpus(tmp.path);
  const std::vector<fs::path> inputs = {tmp.path / "train.en", tmp.path / "train.es"};
  std::string error;
  REQUIRE_MESSAGE(pmt::corpus::train_vocab(inputs, tmp.path / "a", {.vocab_size = 300}, &error), error);
  REQUIRE(fs::exists(tmp.path / "a.vocab"));

  sentencepiece::SentencePieceProcessor sp;
  REQUIRE(sp.Load((tmp.path / "a.model").string()).ok());
  CHECK(sp.GetPieceSize() == 300);
  CHECK(sp.pad_id() == 0);
  CHECK(sp.unk_id() == 1);
  CHECK(sp.bos_id() == 2);
  CHECK(sp.eos_id() == 3);
  CHECK(sp.IdToPiece(0) == "<pad>");
  CHECK(sp.IdToPiece(3) == "</s>");

  for (const std::string text : {"the red dog runs to the garden.", "el gato pequeño duerme.",
                                 "la casa verde es grande y roja."}) {
    std::vector<int> ids;
    REQUIRE(sp.Encode(text, &ids).ok());
    for (int id : ids) CHECK(id != sp.unk_id());  // byte fallback: nothing is <unk>
    std::string back;
    REQUIRE(sp.Decode(ids, &back).ok());
    CHECK(back == text);
  }

  // Same input, same bytes (the model records its output prefix, so train to the same one).
  const std::string model = read_bytes(tmp.path / "a.model"), vocab = read_bytes(tmp.path / "a.vocab");
  fs::remove(tmp.path / "a.model");
  REQUIRE(pmt::corpus::train_vocab(inputs, tmp.path / "a", {.vocab_size = 300}, &error));
  CHECK(read_bytes(tmp.path / "a.model") == model);
  CHECK(read_bytes(tmp.path / "a.vocab") == vocab);
}

TEST_CASE("the shared normalization: quotes, dashes, numbers and unseen characters") {
  TempDir tmp;
  write_corpus(tmp.path);
  std::string error;
  REQUIRE_MESSAGE(pmt::corpus::train_vocab({tmp.path / "train.en", tmp.path / "train.es"}, tmp.path / "n",
                                           {.vocab_size = 300}, &error), error);
  sentencepiece::SentencePieceProcessor sp;
  REQUIRE(sp.Load((tmp.path / "n.model").string()).ok());
  const auto encode = [&](const std::string& text) {
    std::vector<int> ids;
    REQUIRE(sp.Encode(text, &ids).ok());
    return ids;
  };
  // Typeset and keyboard punctuation are one input (NFKC leaves these alone: the table does it).
  CHECK(encode("the dog’s “red” house – big") == encode("the dog's \"red\" house - big"));
  CHECK(encode("‘a’ „a‟ ′ ´ `") == encode("'a' \"a\" ' ' '"));
  CHECK(encode("a ― b") == encode("a — b"));
  CHECK(encode("«la casa»") != encode("\"la casa\""));  // Spanish quotes are kept
  // NFKC: full-width letters and the ellipsis character.
  CHECK(encode("ｔｈｅ dog…") == encode("the dog..."));
  // Digits are single pieces, so any number is spelled out and decodes back exactly.
  const std::vector<int> number = encode("2024");
  CHECK(number.size() >= 4);
  for (const int id : encode("0123456789 1,250.75")) CHECK(id != sp.unk_id());
  // Characters never seen in training are byte pieces, never <unk>, and decode back.
  for (const std::string text : {"café € 5 日本 🙂", "$ & = @ / # % ~ ^ |"}) {
    const std::vector<int> ids = encode(text);
    for (const int id : ids) CHECK(id != sp.unk_id());
    std::string back;
    REQUIRE(sp.Decode(ids, &back).ok());
    CHECK(back == text);
  }
}

TEST_CASE("missing input is an error, not a crash") {
  TempDir tmp;
  std::string error;
  CHECK_FALSE(pmt::corpus::train_vocab({tmp.path / "absent.en"}, tmp.path / "m", {}, &error));
  CHECK(!error.empty());
}

// Growing a vocabulary (corpus/vocab_extension.h) on the 64-piece test model, which spells most
// words in fragments: the words chosen, the grown model as libsentencepiece and the runtime's
// tokenizer read it, and the grown embedding against a reference computed here.
#include <doctest/doctest.h>

#include <sentencepiece_processor.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "corpus/vocab_extension.h"
#include "tokenizer.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

const std::string kWordStart = "\xE2\x96\x81";

// "garden" 6 times, "house" 4, "it." and "2024" often, "sleeps" once.
const std::vector<std::string> kLines = {
    "the garden is green.", "a garden and a house.", "the house has a garden, it.",
    "garden garden house house", "in 2024 it. in 2024 it.", "the garden sleeps.", "it. it. it."};

}  // namespace

TEST_CASE("extend-vocab adds the common fragmented plain words, and libsentencepiece and the runtime read them") {
  const std::string serialized = read_file(PMT_TEST_DATA_DIR "/tiny_spm64.model");
  sentencepiece::SentencePieceProcessor sp;
  REQUIRE(sp.LoadFromSerializedProto(serialized).ok());
  REQUIRE(sp.GetPieceSize() == 64);

  const auto words = pmt::corpus::choose_new_pieces(sp, kLines, {.min_count = 2, .max_new = 10});
  REQUIRE(words.size() >= 2);
  std::vector<std::string> chosen;
  for (const auto& w : words) {
    chosen.push_back(w.word);
    CHECK(w.pieces.size() >= 2);
    CHECK(w.count >= 2);
    std::vector<int> ids;
    REQUIRE(sp.Encode(w.word.substr(kWordStart.size()), &ids).ok());
    CHECK(ids == w.pieces);  // the old segmentation of the word on its own
    float score = 0;
    for (int id : ids) score += sp.GetScore(id);
    CHECK(w.old_score == doctest::Approx(score));
  }
  // Most pieces saved first; punctuation, digits and single occurrences stay out.
  for (size_t i = 1; i < words.size(); ++i) {
    CHECK(words[i - 1].count * (words[i - 1].pieces.size() - 1) >= words[i].count * (words[i].pieces.size() - 1));
  }
  CHECK(chosen[0] == kWordStart + "garden");
  CHECK(std::find(chosen.begin(), chosen.end(), kWordStart + "house") != chosen.end());
  for (const std::string& w : chosen) {
    CHECK(w.find_first_of(".,0123456789") == std::string::npos);
    CHECK(w != kWordStart + "sleeps");
  }

  const std::string grown = pmt::corpus::append_pieces(serialized, words);
  sentencepiece::SentencePieceProcessor sp2;
  REQUIRE(sp2.LoadFromSerializedProto(grown).ok());
  REQUIRE(sp2.GetPieceSize() == 64 + static_cast<int>(words.size()));
  for (int id = 0; id < 64; ++id) {
    CHECK(sp2.IdToPiece(id) == sp.IdToPiece(id));
    CHECK(sp2.GetScore(id) == sp.GetScore(id));
  }
  pmt::ModelConfig config;
  config.vocab_size = sp2.GetPieceSize();
  pmt::rt::Tokenizer tok;
  REQUIRE(tok.load(grown, config) == "");
  for (size_t k = 0; k < words.size(); ++k) {
    CHECK(sp2.IdToPiece(64 + static_cast<int>(k)) == words[k].word);
    CHECK(sp2.GetScore(64 + static_cast<int>(k)) == doctest::Approx(pmt::corpus::new_piece_score(words[k])));
    std::vector<int> ids;
    REQUIRE(sp2.Encode(words[k].word.substr(kWordStart.size()), &ids).ok());
    CHECK(ids == std::vector<int>{64 + static_cast<int>(k)});  // one piece now
  }
  for (const std::string& text : kLines) {
    std::vector<int> ref, got;
    std::string error, back, ref_back;
    REQUIRE(sp2.Encode(text, &ref).ok());
    REQUIRE(tok.encode(text, &got, &error));
    CHECK(got == ref);
    REQUIRE(tok.decode(got, &back, &error));
    REQUIRE(sp2.Decode(ref, &ref_back).ok());
    CHECK(back == ref_back);  // "." and digits are <unk> in this model: not the input text
  }
}

TEST_CASE("extend-vocab's embedding rows are the rescaled mean of the old pieces' rows") {
  pmt::ModelConfig config;
  config.vocab_size = 6;
  config.d_model = 2;
  config.n_heads = 1;
  pmt::StFile file;
  file.metadata = pmt::config_to_metadata(config);
  file.tensors.push_back({"embed.weight", {6, 2}, {0, 0, 0, 0, 0, 0, 0, 0, 3, 4, 0, 2}});
  file.tensors.push_back({"optim.m.embed.weight", {6, 2}, std::vector<float>(12, 1.0f)});
  pmt::corpus::WordPieces w;
  w.word = kWordStart + "ab";
  w.pieces = {4, 5};  // rows (3, 4) of length 5 and (0, 2) of length 2
  REQUIRE(pmt::corpus::extend_embedding({w}, &file) == "");
  REQUIRE(file.tensors.size() == 1);  // the optimizer's moments are gone
  const pmt::StTensor& e = file.tensors[0];
  REQUIRE(e.shape == std::vector<int64_t>{7, 2});
  CHECK(e.data[8] == 3.0f);  // old rows as they were
  CHECK(e.data[11] == 2.0f);
  // Mean (1.5, 3) has length sqrt(11.25); the pieces' mean length is 3.5.
  const double scale = 3.5 / std::sqrt(11.25);
  CHECK(e.data[12] == doctest::Approx(1.5 * scale));
  CHECK(e.data[13] == doctest::Approx(3.0 * scale));
  pmt::ModelConfig grown;
  REQUIRE(pmt::config_from_metadata(file.metadata, &grown) == "");
  CHECK(grown.vocab_size == 7);

  pmt::corpus::WordPieces outside = w;
  outside.pieces = {9, 1};
  CHECK(pmt::corpus::extend_embedding({outside}, &file).find("outside the embedding") != std::string::npos);
}

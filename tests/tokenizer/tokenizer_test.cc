// The runtime's own SentencePiece tokenizer (runtime/src/tokenizer.h) against libsentencepiece,
// the reference it replaces, on the tokenizers of the shipped models and the test fixture: the
// same ids for every input (everyday and number sentences, Spanish, whitespace runs, NFKC
// forms, quotes, unknown and malformed characters, random text) and the same text for every id
// sequence (real encodings and random ones with byte, control and unknown pieces).
#include <doctest/doctest.h>
#include <sentencepiece_processor.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pocketmt/model_file.h"
#include "tokenizer.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> read_lines(const std::string& path) {
  std::istringstream in(read_file(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A serialized SentencePiece model and the config it must fit.
struct Vocab {
  std::string name, serialized;
  pmt::ModelConfig config;
};

std::vector<Vocab> vocabularies() {
  std::vector<Vocab> out;
  for (const char* model : {"models/en-es.pmt", "models/small-int8.pmt"}) {
    std::string error;
    const auto file = pmt::ModelFile::open(std::string(PMT_SOURCE_DIR) + "/" + model, &error);
    REQUIRE_MESSAGE(file, error);
    out.push_back({model, std::string(file->tokenizer()), file->config()});
  }
  pmt::ModelConfig tiny;
  REQUIRE(pmt::preset_config("tiny", &tiny));
  out.push_back({"tiny_spm64", read_file(PMT_TEST_DATA_DIR "/tiny_spm64.model"), tiny});
  return out;
}

// Inputs written to reach every rule: whitespace (leading, trailing, runs, tabs, U+3000, NBSP),
// NFKC forms (ligatures, full-width, superscripts), typographic quotes and dashes, zero-width
// and combining characters, scripts outside the vocabulary, emoji, controls, malformed UTF-8.
std::vector<std::string> written_inputs() {
  return {"", " ", "   ", "\t", "a", " a", "a ", "  two   spaces  ", "tab\there", "line\nbreak",
          "\xE3\x80\x80ideographic\xE3\x80\x80space", "no\xC2\xA0" "break", "\xEF\xAC\x81le \xEF\xBC\xA1\xEF\xBC\xA2",
          "x\xC2\xB2 + \xE2\x85\xA0", "\xE2\x80\x9C" "curly\xE2\x80\x9D \xE2\x80\x98quotes\xE2\x80\x99 and \"keyboard\" 'ones'",
          "dash \xE2\x80\x94 en \xE2\x80\x93 minus \xE2\x88\x92", "zero\xE2\x80\x8Bwidth", "e\xCC\x81 combining",
          "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C", "emoji \xF0\x9F\x98\x80\xF0\x9F\x91\x8D", "ctrl\x01\x1F" "chars",
          "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82 \xCE\xB1\xCE\xB2\xCE\xB3", "ALL CAPS SENTENCE.", "\xC2\xBF" "D\xC3\xB3nde est\xC3\xA1?",
          "$1,250.00 on 3/4/2024 @ 10:30 & 50% = \xE2\x82\xAC" "7", "https://example.org/a_b?c=d#e", "%s %1 {$var} %PRODUCTNAME",
          "bad \xFF byte", "truncated \xE2\x82", "stray \x80\x80 continuation", "overlong \xC0\xAF", "surrogate \xED\xA0\x80",
          "\xEF\xBF\xBD replacement", std::string("nul\0inside", 10), "\xE2\x96\x81" "word mark", "trailing\xE2\x96\x81"};
}

// The reference and the runtime's tokenizer, both loaded from one serialized model.
struct Both {
  sentencepiece::SentencePieceProcessor sp;
  pmt::rt::Tokenizer tok;
  explicit Both(const Vocab& v) {
    REQUIRE(sp.LoadFromSerializedProto(v.serialized).ok());
    REQUIRE(tok.load(v.serialized, v.config) == "");
  }
};

// Random text over an alphabet that mixes the above, with a fixed seed.
std::vector<std::string> random_inputs(int count) {
  const std::vector<std::string> alphabet = {
      "a", "e", "s", "t", "n", "o", "r", "T", "Q", "z", " ", " ", "  ", "\t", ".", ",", "'", "\"", "-", "0", "7", "(",
      "\xC3\xA1", "\xC3\xB1", "\xC3\x91", "\xC2\xBF", "\xE2\x80\x9C", "\xE2\x80\x99", "\xE2\x80\x94", "\xE3\x80\x80",
      "\xC2\xA0", "\xEF\xAC\x81", "\xEF\xBC\xA1", "\xE2\x80\x8B", "\xCC\x81", "\xE4\xBD\xA0", "\xF0\x9F\x98\x80",
      "\x01", "\xFF", "\xE2\x82", "\x80", "the ", "ción", "ing ", "\xE2\x96\x81"};
  std::mt19937 rng(7);
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    std::string s;
    const int n = static_cast<int>(rng() % 24);
    for (int j = 0; j < n; ++j) s += alphabet[rng() % alphabet.size()];
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST_CASE("encode gives libsentencepiece's ids on every input") {
  std::vector<std::string> inputs = written_inputs();
  for (const char* path : {"/tests/data/everyday/everyday.en", "/tests/data/everyday/everyday.es",
                           "/tests/data/numbers/numbers.en"})
    for (std::string& line : read_lines(std::string(PMT_SOURCE_DIR) + path)) inputs.push_back(std::move(line));
  for (std::string& s : random_inputs(3000)) inputs.push_back(std::move(s));
  for (const Vocab& v : vocabularies()) {
    CAPTURE(v.name);
    Both both(v);
    auto& [sp, tok] = both;
    int mismatches = 0;
    for (const std::string& text : inputs) {
      std::vector<int> expected, got;
      REQUIRE(sp.Encode(text, &expected).ok());
      std::string error;
      REQUIRE(tok.encode(text, &got, &error));
      if (got != expected && ++mismatches <= 5) FAIL_CHECK("input \"" << text << "\": " << got.size() << " ids, expected " << expected.size());
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("decode gives libsentencepiece's text for real and random id sequences") {
  std::mt19937 rng(11);
  for (const Vocab& v : vocabularies()) {
    CAPTURE(v.name);
    Both both(v);
    auto& [sp, tok] = both;
    std::vector<std::vector<int>> sequences;
    for (const std::string& text : written_inputs()) {
      std::vector<int> ids;
      REQUIRE(sp.Encode(text, &ids).ok());
      sequences.push_back(ids);
    }
    const int vocab = sp.GetPieceSize();
    for (int i = 0; i < 3000; ++i) {
      std::vector<int> ids(rng() % 12);
      // Mostly the first pieces (controls, unknown, bytes), so that runs of them are common.
      for (int& id : ids) id = static_cast<int>(rng() % 3 == 0 ? rng() % vocab : rng() % std::min(vocab, 300));
      sequences.push_back(ids);
    }
    int mismatches = 0;
    for (const std::vector<int>& ids : sequences) {
      std::string expected, got, error;
      REQUIRE(sp.Decode(ids, &expected).ok());
      REQUIRE(tok.decode(ids, &got, &error));
      if (got != expected && ++mismatches <= 5) {
        std::string list;
        for (int id : ids) list += std::to_string(id) + " ";
        FAIL_CHECK("ids " << list << "-> \"" << got << "\", expected \"" << expected << "\"");
      }
    }
    CHECK(mismatches == 0);
    std::string text, error;
    CHECK_FALSE(tok.decode({vocab}, &text, &error));
    CHECK(error.find("outside the vocabulary") != std::string::npos);
  }
}

TEST_CASE("load refuses what is no tokenizer of the model") {
  const Vocab v = vocabularies().back();
  pmt::rt::Tokenizer tok;
  pmt::ModelConfig other = v.config;
  other.vocab_size += 1;
  CHECK(tok.load(v.serialized, other).find("pieces but the model's vocabulary is") != std::string::npos);
  other = v.config;
  other.eos_id = 10;  // a normal piece
  CHECK(tok.load(v.serialized, other) == "the tokenizer's special ids differ from the model's");
  // Truncated protobuf: a length that runs past the end, a cut varint.
  CHECK(tok.load(v.serialized.substr(0, v.serialized.size() / 2), v.config).starts_with("cannot load the tokenizer"));
  CHECK(tok.load("\x0a\xff", v.config).starts_with("cannot load the tokenizer"));
  CHECK(tok.load("\x08\x80", v.config).starts_with("cannot load the tokenizer"));
  // Not a unigram model: trainer_spec { model_type: BPE } appended (a later field wins in protobuf).
  CHECK(tok.load(v.serialized + std::string("\x12\x02\x18\x02", 4), v.config) ==
        "the tokenizer is not a unigram SentencePiece model");
  CHECK(tok.load(v.serialized, v.config) == "");
}

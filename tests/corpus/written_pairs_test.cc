#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "corpus/written_pairs.h"

using namespace pmt::corpus;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the system's temp directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / name) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& file, const std::string& bytes) const {
    std::ofstream(path / file, std::ios::binary) << bytes;
  }
};

}  // namespace

TEST_CASE("written pairs: files in name order, one document per pair named by its English") {
  TempDir dir("pmt_written_pairs_order");
  dir.write("b.tsv", "Good morning, Ana.\tBuenos días, Ana.\r\n");
  dir.write("a.tsv", "The bus is late.\tEl autobús llega tarde.\nI'm cold.\tTengo frío.");
  dir.write("notes.txt", "not a source\n");
  std::vector<RawDocument> docs;
  std::string error;
  REQUIRE(read_written_pairs(dir.path, &docs, &error));
  REQUIRE(docs.size() == 3);
  CHECK(docs[0].name == "The bus is late.");
  CHECK(docs[0].pairs.at(0).es == "El autobús llega tarde.");
  CHECK(docs[1].pairs.at(0).en == "I'm cold.");  // last line without "\n"
  CHECK(docs[2].pairs.at(0).es == "Buenos días, Ana.");  // "\r" removed
}

TEST_CASE("written pairs: a malformed line is an error naming file and line, never skipped") {
  for (const std::string bad : {"only English", "\tSolo español", "English\t", "a\tb\tc", ""}) {
    TempDir dir("pmt_written_pairs_bad");
    dir.write("x.tsv", "Fine line here.\tLínea correcta.\n" + bad + "\nAnother one here.\tOtra más.\n");
    std::vector<RawDocument> docs;
    std::string error;
    CHECK_FALSE(read_written_pairs(dir.path, &docs, &error));
    CHECK(error.find("x.tsv:2:") != std::string::npos);
  }
  TempDir empty("pmt_written_pairs_empty");
  std::vector<RawDocument> docs;
  std::string error;
  CHECK_FALSE(read_written_pairs(empty.path, &docs, &error));
  CHECK(error.find("no .tsv") != std::string::npos);
}

TEST_CASE("parallel files: aligned by line, different counts refused") {
  TempDir dir("pmt_parallel_files");
  dir.write("t.en", "One.\nTwo.\n");
  dir.write("t.es", "Uno.\nDos.\n");
  dir.write("u.en", "One.\nTwo.\n");
  dir.write("u.es", "Uno.\n");
  std::vector<SentencePair> pairs;
  std::string error;
  REQUIRE(read_parallel_files((dir.path / "t").string(), &pairs, &error));
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[1].en == "Two.");
  CHECK(pairs[1].es == "Dos.");
  CHECK_FALSE(read_parallel_files((dir.path / "u").string(), &pairs, &error));
  CHECK(error.find("line count") != std::string::npos);
}

TEST_CASE("test-like pairs: word-set Jaccard against the test English") {
  CHECK(word_set_jaccard("Where is the station?", "where is THE station") == doctest::Approx(1.0));
  // {how, do, i, get, to, the, museum} vs {how, do, i, get, to, the, art, museum, from, here}: 7 / 10.
  CHECK(word_set_jaccard("How do I get to the museum?", "How do I get to the art museum from here?") ==
        doctest::Approx(0.7));
  CHECK(word_set_jaccard("", "") == 0.0);
  const std::vector<SentencePair> test = {{"How do I get to the museum from here?", "¿Cómo llego al museo desde aquí?"}};
  std::vector<RawDocument> docs = {
      {"a", {{"How do I get to the art museum from here?", "¿Cómo llego al museo de arte desde aquí?"}}},
      {"b", {{"The museum is closed on Mondays.", "El museo cierra los lunes."}}}};
  CHECK(drop_test_like(test, &docs) == 1);
  CHECK(docs[0].pairs.empty());
  CHECK(docs[1].pairs.size() == 1);
}

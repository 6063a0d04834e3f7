// The whole preparation pipeline on three crafted modules of 24 chapters x 3 verses, each rule
// triggered on purpose. Chapter index 7 (Genesis 8) is test, 23 (Genesis 24) valid. Misaligned
// verses are built so that lengths alone make them unambiguous (a merge next to an empty verse,
// a swap of a short and a long verse).
#include <doctest/doctest.h>

#include <string>

#include "corpus/prepare.h"

using namespace pmt::corpus;

namespace {

std::string key(int c, int v) { return "Genesis " + std::to_string(c) + ":" + std::to_string(v); }

std::string english(int c, int v) {
  return "Verse " + std::to_string(c) + " " + std::to_string(v) + " of the book, where the people went out.";
}
// std::string first: GCC 12 warns (-Wrestrict, bug 105651) on "literal" + std::string&& here.
std::string spanish(int c, int v) {
  return std::string("Versículo ") + std::to_string(c) + " " + std::to_string(v) + " del libro, donde el pueblo salió.";
}

struct Dumps {
  std::string web, kjv, rv;
};

// Verse texts by chapter and verse, with the special cases the test expects.
Dumps make_dumps() {
  const std::string long_en(200, 'a'), long_es(190, 'b');
  Dumps d;
  for (std::string* dump : {&d.web, &d.kjv, &d.rv}) *dump = "$$$[ Module Heading ]\n\n";
  for (int c = 1; c <= 24; ++c) {
    for (std::string* dump : {&d.web, &d.kjv, &d.rv}) {
      *dump += "$$$Genesis " + std::to_string(c) + ":0\n<chapter sID=\"Gen." + std::to_string(c) + "\"/>\n";
    }
    for (int v = 1; v <= 3; ++v) {
      std::string web = "<w lemma=\"strong:H1\">" + english(c, v) + "</w>", kjv = english(c, v) + " KJV";
      std::string rv = (v == 1 ? "EN " : "") + spanish(c, v);
      if (c == 2 && v == 1) rv += " " + spanish(2, 2);     // RV merges 2:1-2 into 2:1 ...
      if (c == 2 && v == 2) rv = "";                       // ... and leaves 2:2 empty
      if (c == 3 && v == 1) web = "";                      // empty in WEB only
      if (c == 4 && v == 3) web = "Amen.";                 // WEB-RV length ratio far off
      if (c == 5 && v <= 2) {                              // RV swaps 5:1 and 5:2
        const std::string kjv5[2] = {"A short verse, twenty.", long_en};
        const std::string rv5[2] = {long_es, "Un verso corto, veinte."};
        kjv = kjv5[v - 1];
        rv = rv5[v - 1];
      }
      if (c == 8 && v == 1) web = english(1, 1);           // test verse repeating a train verse
      if (c == 24 && v == 2) web = english(6, 1) + " KJV";  // valid verse repeating a KJV train verse
      if (c == 10 && v == 3) {                             // a subscription
        kjv += " <chapter eID=\"Gen.10\"/> <title>Written from Rome.</title>";
        rv += " Amén. Fué escrita de Roma.";
      }
      d.web += "$$$" + key(c, v) + "\n" + web + "\n";
      d.kjv += "$$$" + key(c, v) + "\n" + kjv + "\n";
      d.rv += "$$$" + key(c, v) + "\n" + rv + "\n";
    }
  }
  return d;
}

PreparedCorpus run(const Dumps& d, bool add_kjv) {
  const BibleSources sources{parse_imp(d.web), parse_imp(d.kjv), parse_imp(d.rv)};
  PreparedCorpus out;
  std::string error;
  REQUIRE(prepare_corpus(sources, {.add_kjv_to_train = add_kjv}, &out, &error));
  return out;
}

bool same_pairs(const std::vector<SentencePair>& a, const std::vector<SentencePair>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].en != b[i].en || a[i].es != b[i].es) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("every rule drops what it should") {
  const Dumps dumps = make_dumps();
  const PreparedCorpus c = run(dumps, false);
  CHECK(c.chapters == 24);
  CHECK(c.verses == 72);
  CHECK(c.subscriptions_cut == 1);
  CHECK(c.openings_recased == 23);  // not 5:1
  CHECK(c.misaligned_verses == 4);  // 2:1-2 (merged), 5:1-2 (swapped)
  CHECK(c.web_drops.empty == 2);    // 2:2 (RV), 3:1 (WEB)
  CHECK(c.kjv_drops.empty == 1);    // 2:2
  CHECK(c.web_drops.versification == 3);  // 2:1, 5:1-2
  CHECK(c.kjv_drops.versification == 3);
  CHECK(c.web_drops.length_ratio == 1);  // 4:3
  CHECK(c.kjv_drops.length_ratio == 0);
  CHECK(c.web_drops.leaked[static_cast<int>(Split::kTest)] == 1);
  CHECK(c.web_drops.leaked[static_cast<int>(Split::kValid)] == 1);
  // 66 train verses - 2 empty - 3 misaligned - 1 ratio; 3 - 1 leaked in each held-out chapter.
  const auto& train = c.splits[static_cast<int>(Split::kTrain)];
  const auto& valid = c.splits[static_cast<int>(Split::kValid)];
  const auto& test = c.splits[static_cast<int>(Split::kTest)];
  CHECK(train.size() == 60);
  CHECK(valid.size() == 2);
  CHECK(test.size() == 2);
  CHECK(c.kjv_train_pairs == 62);  // 66 - 1 empty - 3 misaligned
  REQUIRE(!train.empty());
  CHECK(train[0].en == english(1, 1));  // markup stripped
  CHECK(train[0].es == "En " + spanish(1, 1));  // chapter opening re-cased
  CHECK(test[0].en == english(8, 2));
  CHECK(valid[0].en == english(24, 1));
  CHECK(valid[1].en == english(24, 3));
  bool saw_subscription_verse = false;
  for (const auto& p : train) {
    if (p.en == english(10, 3)) {
      saw_subscription_verse = true;
      CHECK(p.es == spanish(10, 3) + " Amén.");
    }
  }
  CHECK(saw_subscription_verse);
}

TEST_CASE("KJV pairs extend train only, and runs are deterministic") {
  const Dumps dumps = make_dumps();
  const PreparedCorpus web_only = run(dumps, false);
  const PreparedCorpus again = run(dumps, false);
  const PreparedCorpus with_kjv = run(dumps, true);
  for (int s = 0; s < kNumSplits; ++s) CHECK(same_pairs(web_only.splits[s], again.splits[s]));
  CHECK(with_kjv.splits[static_cast<int>(Split::kTrain)].size() == 60 + 62);
  CHECK(with_kjv.splits[static_cast<int>(Split::kTrain)][60].en == english(1, 1) + " KJV");
  CHECK(same_pairs(with_kjv.splits[static_cast<int>(Split::kValid)], web_only.splits[static_cast<int>(Split::kValid)]));
  CHECK(same_pairs(with_kjv.splits[static_cast<int>(Split::kTest)], web_only.splits[static_cast<int>(Split::kTest)]));
}

TEST_CASE("sources without verses are refused") {
  PreparedCorpus out;
  std::string error;
  CHECK_FALSE(prepare_corpus(BibleSources{}, {}, &out, &error));
  CHECK(!error.empty());
}

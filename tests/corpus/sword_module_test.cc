#include <doctest/doctest.h>

#include "corpus/sword_module.h"

using namespace pmt::corpus;

TEST_CASE("IMP dumps split into keyed entries") {
  const std::string dump =
      "$$$[ Module Heading ]\n"
      "\n"
      "$$$Genesis 1:1\n"
      "<w>In the beginning</w>\n"
      "$$$Genesis 1:2\n"
      "line one\n"
      "line two\n"
      "$$$I Samuel 24:1\n"
      "last";
  const auto entries = parse_imp(dump);
  REQUIRE(entries.size() == 4);
  CHECK(entries[0].key == "[ Module Heading ]");
  CHECK(entries[0].osis.empty());
  CHECK(entries[1].key == "Genesis 1:1");
  CHECK(entries[1].osis == "<w>In the beginning</w>");
  CHECK(entries[2].osis == "line one\nline two");
  CHECK(entries[3].key == "I Samuel 24:1");
  CHECK(entries[3].osis == "last");
  CHECK(parse_imp("no key here\n").empty());
}

TEST_CASE("verse references") {
  VerseRef ref;
  REQUIRE(parse_verse_ref("Song of Solomon 1:2", &ref));
  CHECK(ref.book == "Song of Solomon");
  CHECK(ref.chapter == 1);
  CHECK(ref.verse == 2);
  REQUIRE(parse_verse_ref("I Samuel 24:22", &ref));
  CHECK(ref.book == "I Samuel");
  CHECK(ref.chapter == 24);
  CHECK_FALSE(parse_verse_ref("Genesis 0:0", &ref));
  CHECK_FALSE(parse_verse_ref("Genesis 1:0", &ref));
  CHECK_FALSE(parse_verse_ref("[ Module Heading ]", &ref));
  CHECK_FALSE(parse_verse_ref("Genesis 1:x", &ref));
  CHECK_FALSE(parse_verse_ref("1:1", &ref));
}

TEST_CASE("module names that could reach the shell are refused") {
  std::string dump, error;
  CHECK_FALSE(dump_sword_module("kjv; rm -rf /", &dump, &error));
  CHECK(error.find("invalid") != std::string::npos);
}

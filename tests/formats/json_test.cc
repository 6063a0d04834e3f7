// The JSON reader/writer against hand-written documents.
#include "common/json.h"

#include <doctest/doctest.h>

#include <string>

using pmt::json::Value;

namespace {

Value parse_ok(std::string_view text) {
  Value v;
  const std::string err = pmt::json::parse(text, &v);
  INFO(text);
  REQUIRE(err == "");
  return v;
}

std::string parse_error(std::string_view text) {
  Value v;
  return pmt::json::parse(text, &v);
}

}  // namespace

TEST_CASE("json: objects, arrays, integers and strings") {
  const Value v = parse_ok(R"( {"a": [1, -2, 0, []], "b": {"c": "d"}, "e": 9223372036854775807,
                                "f": -9223372036854775808} )");
  REQUIRE(v.type == Value::Type::kObject);
  REQUIRE(v.object.size() == 4);
  CHECK(v.object[0].first == "a");  // document order is kept
  CHECK(v.object[3].first == "f");
  const Value* a = v.get("a");
  REQUIRE(a);
  REQUIRE(a->array.size() == 4);
  CHECK(a->array[0].integer == 1);
  CHECK(a->array[1].integer == -2);
  CHECK(a->array[2].integer == 0);
  CHECK(a->array[3].type == Value::Type::kArray);
  CHECK(a->array[3].array.empty());
  REQUIRE(v.get("b"));
  REQUIRE(v.get("b")->get("c"));
  CHECK(v.get("b")->get("c")->string == "d");
  CHECK(v.get("e")->integer == INT64_MAX);
  CHECK(v.get("f")->integer == INT64_MIN);
  CHECK(v.get("missing") == nullptr);
  CHECK(a->get("a") == nullptr);  // not an object
}

TEST_CASE("json: string escapes decode to UTF-8") {
  const Value v = parse_ok(R"("q\" b\\ s\/ \b\f\n\r\t \u00e9 \u20AC \ud83d\ude00")");
  REQUIRE(v.type == Value::Type::kString);
  CHECK(v.string == "q\" b\\ s/ \b\f\n\r\t \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  CHECK(parse_ok("\"caf\xC3\xA9\"").string == "caf\xC3\xA9");  // raw UTF-8 passes through
}

TEST_CASE("json: malformed documents are rejected with a position") {
  CHECK(parse_error("") == "unexpected end of input at byte 0");
  CHECK(parse_error("{\"a\":1,}") == "expected a string key at byte 7");
  CHECK(parse_error("{\"a\":1 \"b\":2}") == "expected '}' at byte 7");
  CHECK(parse_error("[1 2]") == "expected ']' at byte 3");
  CHECK(parse_error("{\"a\":1,\"a\":2}") == "duplicate key \"a\" at byte 10");
  CHECK(parse_error("\"abc") == "unterminated string at byte 4");
  CHECK(parse_error("\"a\nb\"") == "unescaped control character in string at byte 2");
  CHECK(parse_error(R"("\x")") == "bad escape '\\x' at byte 2");
  CHECK(parse_error(R"("\u12g4")") == "bad hex digit in \\u escape at byte 5");
  CHECK(parse_error(R"("\ud83d")") == "unpaired high surrogate at byte 7");
  CHECK(parse_error(R"("\ude00")") == "unpaired low surrogate at byte 7");
  CHECK(parse_error("01") == "leading zero in a number at byte 0");
  CHECK(parse_error("1.5") == "non-integer numbers are not supported at byte 1");
  CHECK(parse_error("9223372036854775808") == "integer out of range at byte 0");
  CHECK(parse_error("-9223372036854775809") == "integer out of range at byte 0");
  CHECK(parse_error("-") == "expected a digit at byte 1");
  CHECK(parse_error("true") == "unsupported JSON value starting with 't' at byte 0");
  CHECK(parse_error("{} {}") == "trailing characters after the JSON value at byte 3");
  CHECK(parse_error(std::string(65, '[') + std::string(65, ']')) == "nesting deeper than 64 at byte 64");
  CHECK(parse_error(std::string(64, '[') + std::string(64, ']')) == "");
}

TEST_CASE("json: serialize writes compact JSON with escapes") {
  Value root;
  Value list;
  list.type = Value::Type::kArray;
  list.array = {Value::of_integer(-3), Value::of_integer(40)};
  root.object.emplace_back("k\"ey", Value::of_string("a\\b\n\x01\xC3\xA9"));
  root.object.emplace_back("list", list);
  const std::string text = pmt::json::serialize(root);
  CHECK(text == R"({"k\"ey":"a\\b\n\u0001)" "\xC3\xA9" R"(","list":[-3,40]})");
  const Value back = parse_ok(text);
  CHECK(back.get("k\"ey")->string == "a\\b\n\x01\xC3\xA9");
  CHECK(back.get("list")->array[1].integer == 40);
}

// A minimal JSON reader/writer: exactly what the safetensors header needs (objects, arrays,
// strings with escapes, integers). Reals, true/false/null are rejected with a clear message.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pmt::json {

struct Value {
  enum class Type { kInteger, kString, kArray, kObject };

  Type type = Type::kObject;
  int64_t integer = 0;                                  // kInteger
  std::string string;                                   // kString (UTF-8, escapes decoded)
  std::vector<Value> array;                             // kArray
  std::vector<std::pair<std::string, Value>> object;    // kObject, in document order, unique keys

  // Declared here, defaulted in json.cc: defined implicitly in the class, they would make clang
  // instantiate std::pair<std::string, Value> while Value is still incomplete (clang 14 with
  // libstdc++ 12 in C++20 rejects that).
  Value();
  Value(const Value&);
  Value(Value&&) noexcept;
  Value& operator=(const Value&);
  Value& operator=(Value&&) noexcept;
  ~Value();

  static Value of_integer(int64_t v);
  static Value of_string(std::string v);

  // Member of an object by key; nullptr when absent or when this is not an object.
  const Value* get(std::string_view key) const;
};

// Parses one JSON document (surrounding whitespace allowed). Returns an empty string on success,
// otherwise a message with the byte offset of the problem. Duplicate object keys and nesting
// deeper than 64 levels are errors.
std::string parse(std::string_view text, Value* out);

// Compact serialization (no whitespace); strings are escaped so that parse() reads them back.
std::string serialize(const Value& value);

}  // namespace pmt::json

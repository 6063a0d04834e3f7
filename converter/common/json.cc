#include "common/json.h"

#include <cstdio>
#include <limits>

namespace pmt::json {

Value::Value() = default;
Value::Value(const Value&) = default;
Value::Value(Value&&) noexcept = default;
Value& Value::operator=(const Value&) = default;
Value& Value::operator=(Value&&) noexcept = default;
Value::~Value() = default;

Value Value::of_integer(int64_t v) {
  Value out;
  out.type = Type::kInteger;
  out.integer = v;
  return out;
}

Value Value::of_string(std::string v) {
  Value out;
  out.type = Type::kString;
  out.string = std::move(v);
  return out;
}

const Value* Value::get(std::string_view key) const {
  if (type != Type::kObject) return nullptr;
  for (const auto& [k, v] : object) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

constexpr int kMaxDepth = 64;  // bounds the recursion on hostile input

// Recursive-descent parser; every method returns false after setting error_.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::string run(Value* out) {
    skip_space();
    if (!value(out, 0)) return error_;
    skip_space();
    if (pos_ != text_.size()) return at("trailing characters after the JSON value");
    return {};
  }

 private:
  std::string at(const std::string& what) const {
    return what + " at byte " + std::to_string(pos_);
  }
  bool fail(const std::string& what) {
    error_ = at(what);
    return false;
  }
  bool done() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }

  void skip_space() {
    while (!done() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }

  bool expect(char c) {
    if (done() || peek() != c) return fail(std::string("expected '") + c + "'");
    ++pos_;
    return true;
  }

  bool value(Value* out, int depth) {
    if (done()) return fail("unexpected end of input");
    const char c = peek();
    if ((c == '{' || c == '[') && depth >= kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth));
    if (c == '{') return object(out, depth);
    if (c == '[') return array(out, depth);
    if (c == '"') {
      out->type = Value::Type::kString;
      return string(&out->string);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return integer(out);
    return fail(std::string("unsupported JSON value starting with '") + c + "'");
  }

  bool object(Value* out, int depth) {
    out->type = Value::Type::kObject;
    ++pos_;  // '{'
    skip_space();
    if (!done() && peek() == '}') {
      ++pos_;
      return true;
    }
    for (;;) {
      skip_space();
      std::string key;
      if (done() || peek() != '"') return fail("expected a string key");
      if (!string(&key)) return false;
      if (out->get(key)) return fail("duplicate key \"" + key + "\"");
      skip_space();
      if (!expect(':')) return false;
      skip_space();
      Value member;
      if (!value(&member, depth + 1)) return false;
      out->object.emplace_back(std::move(key), std::move(member));
      skip_space();
      if (!done() && peek() == ',') {
        ++pos_;
        continue;
      }
      return expect('}');
    }
  }

  bool array(Value* out, int depth) {
    out->type = Value::Type::kArray;
    ++pos_;  // '['
    skip_space();
    if (!done() && peek() == ']') {
      ++pos_;
      return true;
    }
    for (;;) {
      skip_space();
      Value element;
      if (!value(&element, depth + 1)) return false;
      out->array.push_back(std::move(element));
      skip_space();
      if (!done() && peek() == ',') {
        ++pos_;
        continue;
      }
      return expect(']');
    }
  }

  // JSON grammar: -?(0|[1-9][0-9]*), no fraction or exponent, must fit in int64.
  bool integer(Value* out) {
    const size_t start = pos_;
    const bool negative = peek() == '-';
    if (negative) ++pos_;
    if (done() || peek() < '0' || peek() > '9') return fail("expected a digit");
    if (peek() == '0' && pos_ + 1 < text_.size() && text_[pos_ + 1] >= '0' && text_[pos_ + 1] <= '9')
      return fail("leading zero in a number");
    // Accumulate as a negative value so INT64_MIN is representable.
    int64_t v = 0;
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    while (!done() && peek() >= '0' && peek() <= '9') {
      const int digit = peek() - '0';
      if (v < (kMin + digit) / 10) {
        pos_ = start;
        return fail("integer out of range");
      }
      v = v * 10 - digit;
      ++pos_;
    }
    if (!done() && (peek() == '.' || peek() == 'e' || peek() == 'E'))
      return fail("non-integer numbers are not supported");
    if (!negative) {
      if (v == kMin) {
        pos_ = start;
        return fail("integer out of range");
      }
      v = -v;
    }
    out->type = Value::Type::kInteger;
    out->integer = v;
    return true;
  }

  bool hex4(uint32_t* out) {
    if (pos_ + 4 > text_.size()) return fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      const char c = text_[pos_];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= c - '0';
      else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
      else return fail("bad hex digit in \\u escape");
    }
    *out = v;
    return true;
  }

  static void append_utf8(uint32_t cp, std::string* s) {
    if (cp < 0x80) {
      s->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      s->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      s->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool escape(std::string* s) {
    if (done()) return fail("unterminated string");
    const char c = text_[pos_++];
    switch (c) {
      case '"': s->push_back('"'); return true;
      case '\\': s->push_back('\\'); return true;
      case '/': s->push_back('/'); return true;
      case 'b': s->push_back('\b'); return true;
      case 'f': s->push_back('\f'); return true;
      case 'n': s->push_back('\n'); return true;
      case 'r': s->push_back('\r'); return true;
      case 't': s->push_back('\t'); return true;
      case 'u': break;
      default: --pos_; return fail(std::string("bad escape '\\") + c + "'");
    }
    uint32_t cp = 0;
    if (!hex4(&cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("unpaired low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t low = 0;
      if (pos_ + 2 > text_.size() || text_[pos_] != '\\' || text_[pos_ + 1] != 'u')
        return fail("unpaired high surrogate");
      pos_ += 2;
      if (!hex4(&low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return fail("unpaired high surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(cp, s);
    return true;
  }

  bool string(std::string* s) {
    ++pos_;  // opening quote
    for (;;) {
      if (done()) return fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;
        return fail("unescaped control character in string");
      }
      if (c == '\\') {
        if (!escape(s)) return false;
      } else {
        s->push_back(c);
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

void write_string(std::string_view s, std::string* out) {
  out->push_back('"');
  for (const char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          *out += buf;
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

void write_value(const Value& v, std::string* out) {
  switch (v.type) {
    case Value::Type::kInteger: *out += std::to_string(v.integer); return;
    case Value::Type::kString: write_string(v.string, out); return;
    case Value::Type::kArray:
      out->push_back('[');
      for (size_t i = 0; i < v.array.size(); ++i) {
        if (i) out->push_back(',');
        write_value(v.array[i], out);
      }
      out->push_back(']');
      return;
    case Value::Type::kObject:
      out->push_back('{');
      for (size_t i = 0; i < v.object.size(); ++i) {
        if (i) out->push_back(',');
        write_string(v.object[i].first, out);
        out->push_back(':');
        write_value(v.object[i].second, out);
      }
      out->push_back('}');
      return;
  }
}

}  // namespace

std::string parse(std::string_view text, Value* out) {
  Value v;
  std::string err = Parser(text).run(&v);
  if (err.empty()) *out = std::move(v);
  return err;
}

std::string serialize(const Value& value) {
  std::string out;
  write_value(value, &out);
  return out;
}

}  // namespace pmt::json

#include "corpus/osis_text.h"

#include <array>
#include <optional>

#include "corpus/utf8.h"

namespace pmt::corpus {
namespace {

struct Tag {
  std::string_view name;
  std::string_view attributes;  // the text between the name and the closing '>' or "/>"
  bool closing = false;         // </name>
  bool self_closing = false;    // <name .../>
};

// Parses the tag starting at s[pos] == '<'. Returns the position after its '>', or npos when
// the '<' does not open a well-formed tag (it is then kept as text).
size_t parse_tag(std::string_view s, size_t pos, Tag* tag) {
  const size_t end = s.find('>', pos);
  if (end == std::string_view::npos) return std::string_view::npos;
  std::string_view inner = s.substr(pos + 1, end - pos - 1);
  Tag t;
  if (inner.starts_with('/')) {
    t.closing = true;
    inner.remove_prefix(1);
  }
  if (inner.ends_with('/')) {
    t.self_closing = true;
    inner.remove_suffix(1);
  }
  size_t name_end = 0;
  while (name_end < inner.size() && ((inner[name_end] >= 'a' && inner[name_end] <= 'z') ||
                                     (inner[name_end] >= 'A' && inner[name_end] <= 'Z'))) {
    ++name_end;
  }
  if (name_end == 0) return std::string_view::npos;
  t.name = inner.substr(0, name_end);
  t.attributes = inner.substr(name_end);
  *tag = t;
  return end + 1;
}

// The value of attribute `name` (without quotes); nullopt when the tag does not have it.
std::optional<std::string_view> attribute(const Tag& tag, std::string_view name) {
  const std::string_view a = tag.attributes;
  for (size_t pos = a.find(name); pos != std::string_view::npos; pos = a.find(name, pos + 1)) {
    const size_t quote = pos + name.size() + 1;
    if (pos > 0 && a[pos - 1] == ' ' && quote < a.size() && a[quote - 1] == '=' && a[quote] == '"') {
      const size_t close = a.find('"', quote + 1);
      if (close != std::string_view::npos) return a.substr(quote + 1, close - quote - 1);
    }
  }
  return std::nullopt;
}

bool is_word_element(std::string_view name) { return name == "w" || name == "transChange"; }

// Tags that sit inside running text and must not introduce a space (rule 4).
bool is_inline(std::string_view name) {
  static constexpr std::array<std::string_view, 11> kInline = {
      "w", "transChange", "divineName", "q", "seg", "name", "foreign", "rdg", "catchWord",
      "reference", "hi"};
  for (std::string_view n : kInline) {
    if (n == name) return true;
  }
  return false;
}

// Elements removed together with their content (rules 2 and 3).
bool is_dropped(const Tag& tag) {
  if (tag.name == "note" || tag.name == "speaker") return true;
  return tag.name == "title" && attribute(tag, "type") != "psalm";
}

bool is_end_of_book(const Tag& tag) {
  return tag.name == "div" && attribute(tag, "type") == "book" &&
         attribute(tag, "eID").has_value();
}

// Where the element opened by the tag ending at `pos` closes (the position after its end tag),
// counting nested elements of the same name; the end of `s` when it never closes.
size_t skip_element(std::string_view s, size_t pos, std::string_view name) {
  int depth = 1;
  while (pos < s.size()) {
    const size_t lt = s.find('<', pos);
    if (lt == std::string_view::npos) break;
    Tag tag;
    const size_t after = parse_tag(s, lt, &tag);
    if (after == std::string_view::npos) {
      pos = lt + 1;
      continue;
    }
    pos = after;
    if (tag.name != name || tag.self_closing) continue;
    depth += tag.closing ? -1 : 1;
    if (depth == 0) return pos;
  }
  return s.size();
}

// Marks the space a removed note leaves; resolved by normalise_spaces (rule 2).
constexpr char kNoteSpace = '\x01';

// Appends a run of text with entities decoded and KJV's USFM leftovers removed (rule 6).
void append_text(std::string_view text, std::string* out) {
  static constexpr std::array<std::pair<std::string_view, char>, 5> kEntities = {{
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}}};
  constexpr std::string_view kPilcrow = "\u00b6";
  size_t i = 0;
  while (i < text.size()) {
    const std::string_view rest = text.substr(i);
    if (rest[0] == '&') {
      bool decoded = false;
      for (const auto& [entity, c] : kEntities) {
        if (rest.starts_with(entity)) {
          out->push_back(c);
          i += entity.size();
          decoded = true;
          break;
        }
      }
      if (decoded) continue;
    } else if (rest[0] == '\\') {
      // A USFM marker: backslash, optional '+', letters, optional '*' ("\nd", "\+nd*").
      size_t k = 1;
      if (k < rest.size() && rest[k] == '+') ++k;
      const size_t letters = k;
      while (k < rest.size() && rest[k] >= 'a' && rest[k] <= 'z') ++k;
      if (k > letters) {
        if (k < rest.size() && rest[k] == '*') ++k;
        i += k;
        continue;
      }
    } else if (rest.starts_with(kPilcrow)) {
      i += kPilcrow.size();
      continue;
    }
    out->push_back(rest[0]);
    ++i;
  }
}

bool is_closing_punctuation(char32_t c) {
  switch (c) {
    case U',': case U'.': case U';': case U':': case U'!': case U'?': case U')': case U']':
    case U'\u2019': case U'\u201d': case U'\u00bb':
      return true;
    default:
      return false;
  }
}

// Never preceded by a space in these texts; WEB's red-letter markup sometimes leaves one
// ("walk’</q> ?”").
bool is_unspaced_punctuation(char32_t c) {
  return c == U',' || c == U'.' || c == U';' || c == U':' || c == U'!' || c == U'?';
}

// Rule 7, plus the note exception of rule 2: a gap made only of note spaces disappears before
// closing punctuation.
std::string normalise_spaces(std::string_view raw) {
  const std::u32string s = text::decode_utf8(raw);
  std::u32string out;
  out.reserve(s.size());
  bool in_gap = false, gap_has_real_space = false;
  for (char32_t c : s) {
    const bool note_space = c == static_cast<char32_t>(kNoteSpace);
    if (note_space || text::is_space(c)) {
      in_gap = true;
      gap_has_real_space |= !note_space;
      continue;
    }
    const bool keep_gap = gap_has_real_space ? !is_unspaced_punctuation(c) : !is_closing_punctuation(c);
    if (in_gap && !out.empty() && keep_gap) {
      out.push_back(U' ');
    }
    in_gap = gap_has_real_space = false;
    out.push_back(c);
  }
  return text::encode_utf8(out);
}

}  // namespace

std::string osis_to_text(std::string_view osis) {
  std::string raw;
  raw.reserve(osis.size());
  bool after_word_end = false;  // the last thing seen was </w> or </transChange> (rule 5)
  size_t pos = 0;
  while (pos < osis.size()) {
    const size_t lt = osis.find('<', pos);
    if (lt != pos) {
      const size_t end = lt == std::string_view::npos ? osis.size() : lt;
      append_text(osis.substr(pos, end - pos), &raw);
      after_word_end = false;
      pos = end;
      continue;
    }
    Tag tag;
    const size_t after = parse_tag(osis, pos, &tag);
    if (after == std::string_view::npos) {  // a lone '<' is text
      raw.push_back('<');
      after_word_end = false;
      ++pos;
      continue;
    }
    pos = after;
    if (is_end_of_book(tag)) break;
    if (!tag.closing && is_dropped(tag)) {
      if (!tag.self_closing) pos = skip_element(osis, pos, tag.name);
      raw.push_back(tag.name == "note" ? kNoteSpace : ' ');
      after_word_end = false;
      continue;
    }
    if (!tag.closing && is_word_element(tag.name) && after_word_end) raw.push_back(' ');
    if (!is_inline(tag.name)) raw.push_back(' ');
    after_word_end = tag.closing && is_word_element(tag.name);
  }
  return normalise_spaces(raw);
}

bool has_subscription(std::string_view osis) {
  const size_t chapter_end = osis.find("<chapter eID=");
  return chapter_end != std::string_view::npos && osis.find("<title>", chapter_end) != std::string_view::npos;
}

}  // namespace pmt::corpus

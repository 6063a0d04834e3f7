#include "corpus/libreoffice_help.h"

#include <algorithm>

namespace pmt::corpus {
namespace {

bool is_heading_or_paragraph(std::string_view name) {
  return name == "p" || (name.size() == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6');
}

// The tag name at s[i] == '<' ("" for a close tag, comment or declaration).
std::string_view tag_name(std::string_view s, size_t i) {
  size_t j = i + 1;
  while (j < s.size() && ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= '0' && s[j] <= '9'))) ++j;
  return s.substr(i + 1, j - i - 1);
}

// The value of id="..." in a start tag, or "".
std::string_view id_of(std::string_view tag) {
  const size_t at = tag.find(" id=\"");
  if (at == std::string_view::npos) return {};
  const size_t start = at + 5, end = tag.find('"', start);
  return end == std::string_view::npos ? std::string_view() : tag.substr(start, end - start);
}

}  // namespace

std::vector<IdParagraph> parse_libreoffice_page(std::string_view html) {
  std::vector<IdParagraph> paragraphs;
  for (size_t i = html.find('<'); i != std::string_view::npos; i = html.find('<', i + 1)) {
    const std::string_view name = tag_name(html, i);
    if (!is_heading_or_paragraph(name)) continue;
    const size_t tag_end = html.find('>', i);
    if (tag_end == std::string_view::npos) break;
    const std::string_view id = id_of(html.substr(i, tag_end - i));
    if (!id.starts_with("par_id") && !id.starts_with("hd_id")) continue;
    // The matching close tag: nested elements of the same name are counted.
    const std::string close = std::string("</").append(name).append(">");
    int depth = 1;
    size_t at = tag_end + 1;
    while (depth > 0) {
      at = html.find('<', at);
      if (at == std::string_view::npos) break;
      if (html.compare(at, close.size(), close) == 0) {
        --depth;
      } else if (tag_name(html, at) == name) {
        ++depth;
      }
      if (depth > 0) ++at;
    }
    if (at == std::string_view::npos) break;  // unclosed: the rest of the page is not used
    paragraphs.push_back({std::string(id), std::string(html.substr(tag_end + 1, at - tag_end - 1))});
    i = at;
  }
  return paragraphs;
}

bool align_libreoffice_paragraphs(const std::vector<IdParagraph>& en, const std::vector<IdParagraph>& es,
                                  std::vector<SentencePair>* pairs, int64_t* switched) {
  const auto same_id = [](const IdParagraph& a, const IdParagraph& b) { return a.id == b.id; };
  if (en.size() != es.size() || !std::equal(en.begin(), en.end(), es.begin(), same_id)) return false;
  for (size_t i = 0; i < en.size(); ++i) {
    if (en[i].html.find("switchinline") != std::string::npos || es[i].html.find("switchinline") != std::string::npos) {
      ++*switched;
      continue;
    }
    pairs->push_back({en[i].html, es[i].html});
  }
  return true;
}

}  // namespace pmt::corpus

#include "corpus/help_pages.h"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace pmt::corpus {
namespace {

// An element (name non-empty) or a text node (raw text, entity references as in the source).
struct Node {
  std::string name;
  std::string text;
  std::vector<Node> children;
};

std::string_view local_name(std::string_view name) {
  const size_t colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

bool in(const std::unordered_set<std::string_view>& set, const Node& n) { return set.count(local_name(n.name)) > 0; }

const std::unordered_set<std::string_view> kTextBlocks = {
    "p", "title", "subtitle", "desc", "para", "simpara", "term", "entry", "member", "refpurpose", "attribution"};
// Blocks that may sit inside a text block (DocBook lets a <para> hold a list or a note).
const std::unordered_set<std::string_view> kContainers = {
    "list", "steps", "terms", "tree", "table", "note", "figure", "example", "quote", "section",
    "itemizedlist", "orderedlist", "variablelist", "simplelist", "segmentedlist", "blockquote",
    "warning", "tip", "caution", "important", "procedure", "informaltable", "formalpara", "glosslist",
    "qandaset", "sidebar", "item", "listitem", "td", "th", "tr", "row"};
// Not translated prose, or text shown elsewhere than where it stands.
const std::unordered_set<std::string_view> kDropped = {
    "screen", "programlisting", "synopsis", "literallayout", "cmdsynopsis", "funcsynopsis",
    "comment", "remark", "credit", "othercredit", "author", "copyright", "revhistory", "footnote",
    "indexterm", "media", "mediaobject", "inlinemediaobject"};

std::string escape(std::string_view raw) {
  std::string out;
  for (const char c : raw) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; });
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == ':';
}

// The general entities of a DOCTYPE internal subset with a literal value; external ones
// (SYSTEM, PUBLIC) and parameter entities are left alone.
std::map<std::string, std::string> internal_entities(std::string_view subset) {
  std::map<std::string, std::string> entities;
  for (size_t at = subset.find("<!ENTITY"); at != std::string_view::npos; at = subset.find("<!ENTITY", at + 1)) {
    size_t i = at + 8;
    while (i < subset.size() && is_blank(subset.substr(i, 1))) ++i;
    if (i >= subset.size() || subset[i] == '%') continue;
    const size_t name_start = i;
    while (i < subset.size() && is_name_char(subset[i])) ++i;
    const std::string name(subset.substr(name_start, i - name_start));
    while (i < subset.size() && is_blank(subset.substr(i, 1))) ++i;
    if (name.empty() || i >= subset.size() || (subset[i] != '"' && subset[i] != '\'')) continue;
    const size_t close = subset.find(subset[i], i + 1);
    if (close == std::string_view::npos) break;
    entities[name] = std::string(subset.substr(i + 1, close - i - 1));
  }
  return entities;
}

// Replaces &name; for the given entities; values may refer to each other, so a few rounds.
std::string expand_entities(std::string text, const std::map<std::string, std::string>& entities) {
  for (int round = 0; round < 4 && !entities.empty(); ++round) {
    std::string out;
    bool changed = false;
    for (size_t i = 0; i < text.size();) {
      const size_t semi = text[i] == '&' ? text.find(';', i) : std::string::npos;
      if (semi != std::string::npos && semi - i < 64) {
        if (const auto it = entities.find(text.substr(i + 1, semi - i - 1)); it != entities.end()) {
          out += it->second;
          i = semi + 1;
          changed = true;
          continue;
        }
      }
      out += text[i++];
    }
    text = std::move(out);
    if (!changed) break;
  }
  return text;
}

int line_of(std::string_view s, size_t offset) {
  return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

bool parse_tree(std::string_view s, Node* root, std::string* error) {
  std::vector<Node> open(1);
  const auto fail = [&](size_t at, const std::string& what) {
    *error = "line " + std::to_string(line_of(s, at)) + ": " + what;
    return false;
  };
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '<') {
      const size_t next = std::min(s.find('<', i), s.size());
      open.back().children.push_back({"", std::string(s.substr(i, next - i)), {}});
      i = next;
      continue;
    }
    const auto skip_to = [&](std::string_view end) {
      const size_t at = s.find(end, i);
      return at == std::string_view::npos ? std::string_view::npos : at + end.size();
    };
    size_t next = std::string_view::npos;
    if (s.substr(i, 4) == "<!--") {
      next = skip_to("-->");
    } else if (s.substr(i, 9) == "<![CDATA[") {
      next = skip_to("]]>");
      if (next != std::string_view::npos) open.back().children.push_back({"", escape(s.substr(i + 9, next - 3 - i - 9)), {}});
    } else if (s.substr(i, 2) == "<?") {
      next = skip_to("?>");
    } else if (s.substr(i, 2) == "<!") {  // a declaration (the DOCTYPE is cut off before)
      next = skip_to(">");
    } else {
      const bool closing = s.substr(i, 2) == "</";
      size_t j = i + (closing ? 2 : 1);
      const size_t name_start = j;
      while (j < s.size() && is_name_char(s[j])) ++j;
      const std::string name(s.substr(name_start, j - name_start));
      if (name.empty()) return fail(i, "'<' that starts no tag");
      char quote = 0;
      for (; j < s.size() && (quote || s[j] != '>'); ++j) {
        if (quote && s[j] == quote) quote = 0;
        else if (!quote && (s[j] == '"' || s[j] == '\'')) quote = s[j];
      }
      if (j >= s.size()) return fail(i, "unterminated tag <" + name);
      if (closing) {
        if (open.size() < 2 || open.back().name != name) {
          return fail(i, "</" + name + "> closes " + (open.size() < 2 ? "nothing" : "<" + open.back().name + ">"));
        }
        Node done = std::move(open.back());
        open.pop_back();
        open.back().children.push_back(std::move(done));
      } else if (s[j - 1] == '/') {
        open.back().children.push_back({name, "", {}});
      } else {
        open.push_back({name, "", {}});
      }
      next = j + 1;
    }
    if (next == std::string_view::npos) return fail(i, "unterminated comment, CDATA or declaration");
    i = next;
  }
  if (open.size() > 1) return fail(s.size(), "<" + open.back().name + "> is never closed");
  *root = std::move(open.back());
  return true;
}

bool has_text(const Node& n) {
  if (n.name.empty()) return !is_blank(n.text);
  return std::any_of(n.children.begin(), n.children.end(), has_text);
}

class BlockWriter {
 public:
  explicit BlockWriter(std::vector<HelpBlock>* blocks) : blocks_(blocks) {}

  // Outside any text block only the blocks inside count; code there is a verbatim block.
  void container(const Node& n) {
    for (const Node& c : n.children) {
      if (c.name.empty() || in(kDropped, c) || local_name(c.name) == "code") continue;
      if (in(kTextBlocks, c)) {
        text_block(c);
      } else {
        container(c);
      }
    }
  }

 private:
  void text_block(const Node& n) {
    HelpBlock block{n.name, "", true};
    content(n, &block);
    flush(&block);
  }

  void flush(HelpBlock* block) {
    if (!is_blank(block->text)) blocks_->push_back(*block);
    block->text.clear();
    block->complete = true;
  }

  void content(const Node& n, HelpBlock* block) {
    for (const Node& c : n.children) {
      if (c.name.empty()) {
        block->text += c.text;
      } else if (in(kDropped, c)) {
        continue;
      } else if (in(kTextBlocks, c) || in(kContainers, c)) {
        flush(block);  // text before the nested block is a block of its own
        if (in(kTextBlocks, c)) {
          text_block(c);
        } else {
          container(c);
        }
      } else {
        inline_element(c, block);
      }
    }
  }

  void inline_element(const Node& n, HelpBlock* block) {
    const std::string_view name = local_name(n.name);
    const bool menu = name == "guiseq" || name == "menuchoice";
    if (menu || name == "keyseq" || name == "keycombo") {
      bool first = true;
      for (const Node& c : n.children) {
        if (c.name.empty() || in(kDropped, c)) continue;
        if (!first) block->text += menu ? " \u25b8 " : "+";
        first = false;
        content(c, block);
      }
      return;
    }
    if ((name == "link" || name == "ulink" || name == "xref") && !has_text(n)) block->complete = false;
    content(n, block);
  }

  std::vector<HelpBlock>* blocks_;
};

}  // namespace

bool parse_help_page(std::string_view xml, std::vector<HelpBlock>* blocks, std::string* error) {
  std::map<std::string, std::string> entities;
  size_t body = 0;
  if (const size_t doctype = xml.find("<!DOCTYPE"); doctype != std::string_view::npos) {
    const size_t open = xml.find('[', doctype), gt = xml.find('>', doctype);
    if (open < gt) {
      const size_t close = xml.find("]", open);
      if (close == std::string_view::npos) return *error = "unterminated DOCTYPE", false;
      entities = internal_entities(xml.substr(open + 1, close - open - 1));
      body = xml.find('>', close);
    } else {
      body = gt;
    }
    if (body == std::string_view::npos) return *error = "unterminated DOCTYPE", false;
    ++body;
  }
  Node root;
  const std::string expanded = expand_entities(std::string(xml.substr(body)), entities);
  if (!parse_tree(expanded, &root, error)) return false;
  blocks->clear();
  BlockWriter(blocks).container(root);
  return true;
}

bool align_help_blocks(const std::vector<HelpBlock>& en, const std::vector<HelpBlock>& es,
                       std::vector<SentencePair>* pairs, int64_t* incomplete) {
  const auto same_element = [](const HelpBlock& a, const HelpBlock& b) { return a.element == b.element; };
  if (en.size() != es.size() || !std::equal(en.begin(), en.end(), es.begin(), same_element)) return false;
  for (size_t i = 0; i < en.size(); ++i) {
    if (en[i].complete && es[i].complete) {
      pairs->push_back({en[i].text, es[i].text});
    } else {
      ++*incomplete;
    }
  }
  return true;
}

}  // namespace pmt::corpus

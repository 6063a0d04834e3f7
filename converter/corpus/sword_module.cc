#include "corpus/sword_module.h"

#include <algorithm>
#include <cstdio>
#include <sys/wait.h>

namespace pmt::corpus {
namespace {

bool parse_positive(std::string_view s, int* out) {
  if (s.empty() || s.size() > 6) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return v >= 1;
}

}  // namespace

std::vector<ImpEntry> parse_imp(std::string_view dump) {
  constexpr std::string_view kMarker = "$$$";
  std::vector<ImpEntry> entries;
  size_t body_start = 0;
  // The body of the last entry runs up to `end`, without the line ending before the next key.
  const auto close_body = [&](size_t end) {
    if (entries.empty()) return;  // text before the first key is not part of any entry
    std::string_view body = dump.substr(body_start, end - body_start);
    if (body.ends_with('\n')) body.remove_suffix(1);
    entries.back().osis = body;
  };
  for (size_t pos = 0; pos < dump.size();) {
    size_t eol = dump.find('\n', pos);
    if (eol == std::string_view::npos) eol = dump.size();
    const std::string_view line = dump.substr(pos, eol - pos);
    if (line.starts_with(kMarker)) {
      close_body(pos);
      entries.push_back({line.substr(kMarker.size()), {}});
      body_start = std::min(eol + 1, dump.size());
    }
    pos = eol + 1;
  }
  close_body(dump.size());
  return entries;
}

bool parse_verse_ref(std::string_view key, VerseRef* out) {
  const size_t space = key.rfind(' ');
  if (space == std::string_view::npos || space == 0) return false;
  const std::string_view numbers = key.substr(space + 1);
  const size_t colon = numbers.find(':');
  if (colon == std::string_view::npos) return false;
  VerseRef ref;
  ref.book = key.substr(0, space);
  if (!parse_positive(numbers.substr(0, colon), &ref.chapter) ||
      !parse_positive(numbers.substr(colon + 1), &ref.verse)) {
    return false;
  }
  *out = ref;
  return true;
}

bool dump_sword_module(const std::string& module, std::string* dump, std::string* error) {
  for (char c : module) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) {
      *error = "invalid SWORD module name '" + module + "'";
      return false;
    }
  }
  const std::string command = "mod2imp " + module + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    *error = "cannot run mod2imp";
    return false;
  }
  dump->clear();
  char buffer[1 << 16];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) dump->append(buffer, n);
  const int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || dump->empty()) {
    *error = "`mod2imp " + module + "` failed: is the module installed (scripts/install-deps.sh "
             "installs libsword-utils and the sword-text-* packages)?";
    return false;
  }
  return true;
}

}  // namespace pmt::corpus

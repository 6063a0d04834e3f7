#include "common/text_lines.h"

#include <fstream>
#include <sstream>

#include "utf8.h"  // runtime/src: the runtime's strict validator

namespace pmt {

std::string check_utf8(std::string_view text) {
  size_t offset = 0;
  if (rt::valid_utf8(text, &offset)) return {};
  return "not valid UTF-8 at byte " + std::to_string(offset);
}

std::string read_lines(const std::string& path, std::vector<std::string>* lines) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot open " + path;
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return "cannot read " + path;
  const std::string text = std::move(buf).str();
  lines->clear();
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (std::string err = check_utf8(line); !err.empty())
      return path + ":" + std::to_string(lines->size() + 1) + ": " + err;
    lines->emplace_back(line);
    start = end + 1;
  }
  return {};
}

}  // namespace pmt

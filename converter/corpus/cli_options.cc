#include "corpus/cli_options.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace pmt::cli {

ParseResult parse_options(const char* command, const char* usage, int argc, char** argv,
                          std::span<const Option> options) {
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      return ParseResult::kHelp;
    }
    const Option* match = nullptr;
    for (const Option& o : options) {
      if (o.name == arg) match = &o;
    }
    if (!match) {
      std::fprintf(stderr, "pmt-convert %s: unknown argument '%s'\n%s", command, argv[i], usage);
      return ParseResult::kError;
    }
    if (!match->value) {
      *match->flag = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "pmt-convert %s: option %s needs a value\n%s", command, argv[i], usage);
      return ParseResult::kError;
    }
    *match->value = argv[++i];
  }
  return ParseResult::kOk;
}

bool parse_int_option(const char* command, std::string_view option, const std::string& text,
                      long min, long max, long* out) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max) {
    std::fprintf(stderr, "pmt-convert %s: %.*s must be an integer in [%ld, %ld], got '%s'\n",
                 command, static_cast<int>(option.size()), option.data(), min, max, text.c_str());
    return false;
  }
  *out = v;
  return true;
}

}  // namespace pmt::cli

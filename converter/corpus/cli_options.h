// Option parsing shared by the prepare, vocab and score commands: "--name value" options and
// "--name" flags, "--help" printing the usage text. Errors name the command and the option.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace pmt::cli {

struct Option {
  std::string_view name;        // with the leading dashes, e.g. "--out"
  std::string* value = nullptr;  // receives the next argument; nullptr makes this a flag
  bool* flag = nullptr;          // set to true when a flag is present
};

enum class ParseResult { kOk, kHelp, kError };

// kHelp: usage was printed to stdout. kError: a message and the usage went to stderr.
ParseResult parse_options(const char* command, const char* usage, int argc, char** argv,
                          std::span<const Option> options);

// Parses a decimal integer in [min, max] given to `option`; prints an error and returns false
// otherwise.
bool parse_int_option(const char* command, std::string_view option, const std::string& text,
                      long min, long max, long* out);

// What a command returns for a parse result that is not kOk (0 after --help, 2 on error).
inline int exit_code(ParseResult r) { return r == ParseResult::kHelp ? 0 : 2; }

}  // namespace pmt::cli

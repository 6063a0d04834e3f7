// Option parsing shared by pmt-convert's commands, on CLI11 with the convention of every
// PocketMT tool (tools/cli/pmt_cli.h): "--name value" options and "--name" flags in any order,
// positional arguments, --help generated from the tables below, errors naming the option.
// Values stay text: each command checks its own ranges, naming the option.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pmt::cli {

struct Option {
  std::string_view name;         // with the leading dashes, e.g. "--out"
  std::string* value = nullptr;  // receives the next argument; nullptr makes this a flag
  bool* flag = nullptr;          // set to true when a flag is present
  std::string_view help = {};    // one line for --help, defaults included
  std::string_view type = {};    // the value's name in --help, e.g. "DIR"
};

struct Positional {
  std::string_view name;               // e.g. "FILE"
  std::vector<std::string>* values;    // receives them in order
  std::string_view help = {};
  bool many = false;                   // any number (otherwise at most one)
};

enum class ParseResult { kOk, kHelp, kError };

// kHelp: --help or --version was printed to stdout. kError: a message naming the option went to
// stderr. `description` is the paragraph --help shows above the options.
ParseResult parse_options(const char* command, const char* description, int argc, char** argv,
                          std::span<const Option> options, std::span<const Positional> positionals = {});

// Parses a decimal integer in [min, max] given to `option`; prints an error and returns false
// otherwise. 64-bit on every target: `long` is 32-bit on armhf.
bool parse_int_option(const char* command, std::string_view option, const std::string& text,
                      int64_t min, int64_t max, int64_t* out);

// What a command returns for a parse result that is not kOk (0 after --help, 2 on error).
inline int exit_code(ParseResult r) { return r == ParseResult::kHelp ? 0 : 2; }

}  // namespace pmt::cli

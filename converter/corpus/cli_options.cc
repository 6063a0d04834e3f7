#include "corpus/cli_options.h"

#include "pmt_cli.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace pmt::cli {

ParseResult parse_options(const char* command, const char* description, int argc, char** argv,
                          std::span<const Option> options, std::span<const Positional> positionals) {
  const std::string tool = std::string("pmt-convert ") + command;
  CLI::App app(description, tool);
  conventions(app, "pmt-convert");
  for (const Option& o : options) {
    // --output is every tool's name for where results go (pmt-translate, pmt-bench); --out stays.
    const std::string name = o.name == "--out" ? "--out,--output" : std::string(o.name), help(o.help);
    if (o.value) {
      CLI::Option* opt = app.add_option(name, *o.value, help);
      if (!o.type.empty()) opt->type_name(std::string(o.type));
    } else {
      app.add_flag(name, *o.flag, help);
    }
  }
  for (const Positional& p : positionals) {
    CLI::Option* opt = app.add_option(std::string(p.name), *p.values, std::string(p.help));
    opt->type_name("");
    if (!p.many) opt->expected(0, 1);
  }
  switch (parse(app, tool, argc, argv, false)) {
    case -1: return ParseResult::kOk;
    case 0: return ParseResult::kHelp;
    default: return ParseResult::kError;
  }
}

bool parse_int_option(const char* command, std::string_view option, const std::string& text,
                      int64_t min, int64_t max, int64_t* out) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max) {
    std::fprintf(stderr, "pmt-convert %s: %.*s must be an integer in [%" PRId64 ", %" PRId64 "], got '%s'\n",
                 command, static_cast<int>(option.size()), option.data(), min, max, text.c_str());
    return false;
  }
  *out = v;
  return true;
}

}  // namespace pmt::cli

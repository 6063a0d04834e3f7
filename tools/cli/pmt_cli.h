// The command-line convention shared by pmt-convert, pmt-translate and pmt-bench, on CLI11
// (Debian libcli11-dev): `--help`/`-h` on the tool and on each subcommand (to stdout, exit 0),
// `--version` (the library and model-format versions, exit 0), options in any order, and on a
// usage error one message naming the option, a pointer to --help, and exit status 2.
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "pocketmt/model_file.h"
#include "pocketmt/pmt.h"

namespace pmt::cli {

// "pmt-convert 0.1.0 (PocketMT library 0.1.0; model format version 2, reads 1 to 2)"
inline std::string version_text(const std::string& tool) {
  return tool + " " + pmt_version() + " (PocketMT library " + pmt_version() + "; model format version " +
         std::to_string(kModelFormatVersion) + ", reads " + std::to_string(kOldestModelFormatVersion) + " to " +
         std::to_string(kModelFormatVersion) + ")";
}

// --version and the help layout every tool uses.
inline void conventions(CLI::App& app, const std::string& tool) {
  app.set_version_flag("--version", version_text(tool), "the library and model-format versions, then exit");
  app.set_help_flag("-h,--help", "this help, then exit");
  app.get_formatter()->column_width(28);
}

// Value checks whose message names the range and the value ("--beam: must be an integer in
// [1, 2147483647], got 'x'"); they add nothing to the --help line.
inline CLI::Validator int_range(int64_t lo, int64_t hi) {
  CLI::Validator v(
      [lo, hi](std::string& s) {
        int64_t n = 0;
        if (CLI::detail::lexical_cast(s, n) && n >= lo && n <= hi) return std::string();
        return "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + s + "'";
      },
      "");
  return v;
}
inline CLI::Validator real_range(double lo, double hi) {
  CLI::Validator v(
      [lo, hi](std::string& s) {
        double x = 0;
        if (CLI::detail::lexical_cast(s, x) && std::isfinite(x) && x >= lo && x <= hi) return std::string();
        char range[96];
        std::snprintf(range, sizeof range, "[%g, %g]", lo, hi);
        return "must be a finite number in " + std::string(range) + ", got '" + s + "'";
      },
      "");
  return v;
}

// Parses args (argv[0] is the program when `with_program` is true, otherwise the first
// argument). Returns -1 to go on, 0 after --help or --version (printed to stdout), 2 after a
// usage error (printed to stderr, prefixed with `tool`).
inline int parse(CLI::App& app, const std::string& tool, int argc, const char* const* argv, bool with_program) {
  std::vector<std::string> args(argv + (with_program ? 1 : 0), argv + argc);
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help() << std::flush;
    return 0;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n" << std::flush;
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << tool << ": " << e.what() << "\nRun '" << tool << " --help' for the options.\n";
    return 2;
  }
  return -1;
}

}  // namespace pmt::cli

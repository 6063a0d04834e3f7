// The converter's subcommands. Each takes the arguments after its name and returns the process
// exit code (0 success, 1 runtime failure, 2 bad usage or bad input), printing errors to stderr.
#pragma once

namespace pmt::cli {

using CommandFn = int (*)(int argc, char** argv);

struct Command {
  const char* name;
  CommandFn run;
  const char* summary;
};

}  // namespace pmt::cli

// Writes a randomly initialised checkpoint of a preset (the trainer's paper-style init), so the
// latency benchmarks can run before a model has been trained: speed does not depend on the
// weights' values. Export it with `pmt-convert export` like a trained one.
//
//   bench_random_checkpoint [--preset small] [--seed 1] OUT.safetensors
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "pocketmt/config.h"
#include "train/checkpoint.h"
#include "train/model.h"

namespace {

int usage(FILE* out) {
  std::fprintf(out, "usage: bench_random_checkpoint [--preset tiny|small|base] [--seed N] OUT.safetensors\n");
  return out == stdout ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "small", out;
  unsigned long long seed = 1;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return usage(stdout);
    if (!std::strcmp(argv[i], "--preset") && has_value) {
      preset = argv[++i];
    } else if (!std::strcmp(argv[i], "--seed") && has_value) {
      char* end = nullptr;
      seed = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0') return usage(stderr);
    } else if (argv[i][0] != '-' && out.empty()) {
      out = argv[i];
    } else {
      return usage(stderr);
    }
  }
  if (out.empty()) return usage(stderr);
  pmt::ModelConfig config;
  if (!pmt::preset_config(preset, &config)) {
    std::fprintf(stderr, "bench_random_checkpoint: unknown preset '%s'\n", preset.c_str());
    return 2;
  }
  try {
    // The smallest activation buffer: this model only initialises and saves its parameters.
    pmt::train::Transformer model(config, pmt::train::BatchLimits{1, 2, 2, 0, 0});
    model.init(seed);
    const std::string err = pmt::train::write_checkpoint(out, model, nullptr, {{"random_init_seed", std::to_string(seed)}});
    if (!err.empty()) {
      std::fprintf(stderr, "bench_random_checkpoint: %s\n", err.c_str());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_random_checkpoint: %s\n", e.what());
    return 1;
  }
  std::printf("wrote %s (%s preset, random init, seed %llu)\n", out.c_str(), preset.c_str(), seed);
  return 0;
}

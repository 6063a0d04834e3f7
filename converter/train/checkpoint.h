// Training checkpoints as safetensors files (converter/common/safetensors.h): every parameter
// under its README name, the ModelConfig in __metadata__, and, for resumable checkpoints, the
// Adam moments as extra tensors "optim.m.<name>" / "optim.v.<name>" (ignored by the exporter)
// plus whatever run state the caller adds to the metadata.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/safetensors.h"
#include "train/adam.h"
#include "train/model.h"

namespace pmt::train {

inline constexpr std::string_view kMomentPrefixM = "optim.m.";
inline constexpr std::string_view kMomentPrefixV = "optim.v.";
inline constexpr std::string_view kOptimizerStepKey = "optim.step";  // Adam's t, in the metadata

// Writes `model`'s parameters (and `adam`'s moments and step when adam is not null) with metadata
// = the model config + `extra`, atomically (a crash leaves the previous file intact). Returns an
// error message or empty.
std::string write_checkpoint(const std::string& path, const Transformer& model, const Adam* adam,
                             const std::map<std::string, std::string>& extra);

// Reads a checkpoint and the config in its metadata. Returns an error message or empty.
std::string read_checkpoint(const std::string& path, StFile* file, ModelConfig* config);

// Copies the parameters of `file` into `model`: every model tensor must be present with the
// model's shape, and the file may hold no other tensors besides optim.*. On error (message
// returned) the model is unchanged; empty on success.
std::string load_params(const StFile& file, Transformer* model);

// Restores Adam's moments and step from `file` (written with an optimizer). Error message or empty.
std::string load_optimizer(const StFile& file, const Transformer& model, Adam* adam);

// Averages the parameters of `paths` (same config and tensors; optimizer state is left out) and
// writes them to `out_path` with the last file's config and "averaged_from" = the paths joined by
// ','. The paper averages the last 5 (base) or 20 (big) checkpoints. Error message or empty.
std::string average_checkpoints(const std::vector<std::string>& paths, const std::string& out_path);

}  // namespace pmt::train

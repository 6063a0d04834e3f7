// How the trainer's (= the checkpoint's) named parameters become model-file tensors. The names
// are the same except cross-attention, whose fused in_proj [3D, D] / [3D] is split into q_proj
// (rows 0..D-1) and kv_proj (rows D..3D-1) because Q and K/V read different inputs and so need
// their own activation quantization.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "export/model_writer.h"
#include "train/model.h"

namespace pmt::exporter {

// Where a model-file tensor lives in the checkpoint: the checkpoint tensor `name` and the offset
// (in floats) of the part's first value in it. Cross-attention's q_proj / kv_proj are rows
// 0..D-1 / D..3D-1 of the fused in_proj, so their checkpoint tensor has 3D rows (`rows`); every
// other tensor is the whole checkpoint tensor of the same name (offset 0, rows = its own).
struct CheckpointPart {
  std::string name;
  size_t offset = 0;
  int64_t rows = 0;
};
CheckpointPart checkpoint_part(const TensorSpec& spec, int64_t d_model);

// Views of every model-file tensor (model_tensor_specs order) into `model`'s parameters; they
// stay valid while `model` lives and its parameters are not reallocated.
std::vector<WeightRef> model_weights(const train::Transformer& model);

// The model-file weight a Transformer::linear_io() entry belongs to: "<x>.self_attn.in_proj" ->
// "<x>.self_attn.in_proj_weight", "<x>.multihead_attn.q" / ".kv" -> "<x>.multihead_attn.q_proj.weight"
// / "kv_proj.weight", "embed" -> "embed.weight", any other "<x>" -> "<x>.weight".
std::string weight_name_of_linear(std::string_view linear_io_name);

}  // namespace pmt::exporter

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

// Views of every model-file tensor (model_tensor_specs order) into `model`'s parameters; they
// stay valid while `model` lives and its parameters are not reallocated.
std::vector<WeightRef> model_weights(const train::Transformer& model);

// The model-file weight a Transformer::linear_io() entry belongs to: "<x>.self_attn.in_proj" ->
// "<x>.self_attn.in_proj_weight", "<x>.multihead_attn.q" / ".kv" -> "<x>.multihead_attn.q_proj.weight"
// / "kv_proj.weight", "embed" -> "embed.weight", any other "<x>" -> "<x>.weight".
std::string weight_name_of_linear(std::string_view linear_io_name);

}  // namespace pmt::exporter

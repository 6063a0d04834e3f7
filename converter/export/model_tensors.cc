#include "export/model_tensors.h"

#include <stdexcept>
#include <tuple>

namespace pmt::exporter {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

CheckpointPart checkpoint_part(const TensorSpec& spec, int64_t D) {
  for (auto [part, fused, first_row] : {std::tuple{".q_proj.weight", ".in_proj_weight", int64_t{0}},
                                        std::tuple{".q_proj.bias", ".in_proj_bias", int64_t{0}},
                                        std::tuple{".kv_proj.weight", ".in_proj_weight", D},
                                        std::tuple{".kv_proj.bias", ".in_proj_bias", D}}) {
    if (ends_with(spec.name, part)) {
      const int64_t row_floats = spec.shape.size() > 1 ? spec.shape[1] : 1;
      return {spec.name.substr(0, spec.name.size() - std::string_view(part).size()) + fused,
              static_cast<size_t>(first_row * row_floats), 3 * D};
    }
  }
  return {spec.name, 0, spec.shape.empty() ? 1 : spec.shape[0]};
}

std::vector<WeightRef> model_weights(const train::Transformer& model) {
  const int64_t D = model.config().d_model;
  std::vector<WeightRef> out;
  for (TensorSpec& spec : model_tensor_specs(model.config())) {
    const CheckpointPart part = checkpoint_part(spec, D);
    const train::TensorInfo* info = model.find(part.name);
    // The trainer builds every tensor the config implies; a miss is a programming error.
    if (info == nullptr) throw std::logic_error("trainer model has no tensor " + part.name);
    out.push_back({std::move(spec), model.params() + info->offset + part.offset});
  }
  return out;
}

std::string weight_name_of_linear(std::string_view name) {
  const std::string n(name);
  if (n == "embed") return "embed.weight";
  if (ends_with(n, ".self_attn.in_proj")) return n + "_weight";
  if (ends_with(n, ".multihead_attn.q") || ends_with(n, ".multihead_attn.kv")) return n + "_proj.weight";
  return n + ".weight";
}

}  // namespace pmt::exporter

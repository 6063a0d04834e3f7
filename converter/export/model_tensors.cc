#include "export/model_tensors.h"

#include <stdexcept>
#include <tuple>

namespace pmt::exporter {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::vector<WeightRef> model_weights(const train::Transformer& model) {
  const int64_t D = model.config().d_model;
  std::vector<WeightRef> out;
  for (TensorSpec& spec : model_tensor_specs(model.config())) {
    // Cross-attention parts: a row range of the fused tensor. Rows are contiguous, so a part is
    // the fused tensor's data from its first row on.
    std::string source = spec.name;
    size_t first_row_offset = 0;
    for (auto [part, fused, row_floats] : {std::tuple{".q_proj.weight", ".in_proj_weight", size_t{0}},
                                           std::tuple{".q_proj.bias", ".in_proj_bias", size_t{0}},
                                           std::tuple{".kv_proj.weight", ".in_proj_weight", static_cast<size_t>(D * D)},
                                           std::tuple{".kv_proj.bias", ".in_proj_bias", static_cast<size_t>(D)}}) {
      if (ends_with(spec.name, part)) {
        source = spec.name.substr(0, spec.name.size() - std::string_view(part).size()) + fused;
        first_row_offset = row_floats;
      }
    }
    const train::TensorInfo* info = model.find(source);
    // The trainer builds every tensor the config implies; a miss is a programming error.
    if (info == nullptr) throw std::logic_error("trainer model has no tensor " + source);
    out.push_back({std::move(spec), model.params() + info->offset + first_row_offset});
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

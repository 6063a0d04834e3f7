#include "export/extract.h"

#include <algorithm>
#include <map>

#include "export/model_tensors.h"
#include "kernels/quantize.h"

namespace pmt::exporter {

StFile extract_checkpoint(const ModelFile& file) {
  const ModelConfig& config = file.config();
  StFile out;
  out.metadata = config_to_metadata(config);
  std::map<std::string, size_t> index;  // checkpoint name -> position in out.tensors
  for (const TensorSpec& spec : model_tensor_specs(config)) {
    // The loader has checked that every spec is present with its shape and dtype.
    const TensorView& view = *file.find(spec.name);
    const CheckpointPart part = checkpoint_part(spec, config.d_model);
    auto [it, added] = index.try_emplace(part.name, out.tensors.size());
    if (added) {
      StTensor t{part.name, spec.shape, {}};
      t.shape[0] = part.rows;
      t.data.resize(static_cast<size_t>(shape_numel(t.shape)));
      out.tensors.push_back(std::move(t));
    }
    float* dst = out.tensors[it->second].data.data() + part.offset;
    const int64_t n = view.numel();
    if (view.dtype == DType::F32) {
      std::copy(view.f32(), view.f32() + n, dst);
    } else {
      const int64_t cols = n / view.shape[0];
      for (int64_t r = 0; r < view.shape[0]; ++r)
        kernels::dequantize_row_qc8(view.i8() + r * cols, view.scales[r], dst + r * cols, static_cast<size_t>(cols));
    }
  }
  return out;
}

}  // namespace pmt::exporter

// `pmt-convert extract`: the weights of a model file back as a checkpoint, so that a shipped
// .pmt can be trained further (`pmt-convert train --init`) when its checkpoint is not at hand.
#pragma once

#include <string>

#include "common/safetensors.h"
#include "pocketmt/model_file.h"

namespace pmt::exporter {

// Every parameter of `file` under its checkpoint name and shape (cross-attention's q_proj and
// kv_proj joined back into in_proj), with the file's config as metadata. F32 tensors are copied
// bit for bit; I8 ones dequantized as scales[row] * q, so each value is within half a scale step
// of the exported one. The file's training-only config fields (dropout, label smoothing) are 0:
// a run from the result sets them (`--preset` or `--dropout`, `--label-smoothing`).
StFile extract_checkpoint(const ModelFile& file);

}  // namespace pmt::exporter

// `pmt-convert export`: a trained checkpoint + its SentencePiece model -> one .pmt file, fp32 or
// int8 (Linear weights per-row symmetric int8, activations calibrated, see calibrate.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/safetensors.h"
#include "export/model_writer.h"
#include "pocketmt/model_file.h"
#include "train/parallel_data.h"

namespace pmt::exporter {

struct ExportOptions {
  DType dtype = DType::F32;
  size_t calib_sentences = 4000;  // I8: pairs of the calibration data run through the model
  double percentile = 99.999;    // I8: per-side activation range percentile (calibrate.h)
  // I8: per-channel output ranges widened this many times (calibrate.h); 0 writes none.
  double channel_margin = 1.1;
  // I8: called after each calibration pair with (pairs done, pairs in all); may be empty.
  std::function<void(size_t, size_t)> progress;
  const Shortlist* shortlist = nullptr;  // written into the file when given (export/shortlist.h)
};

// Validates `checkpoint` (config in its metadata; every tensor of that config present with its
// shape, no other tensors besides the trainer's "optim.*"; errors name the tensor), calibrates
// on `calib` for I8 (must hold pairs then; ignored for F32) and builds the file bytes with
// `tokenizer` (a serialized SentencePiece model matching the config's vocabulary) and
// `metadata` plus the checkpoint's own metadata (as "checkpoint.<key>"; config and optimizer
// keys left out)
// and the calibration settings. Returns an error message or empty.
std::string export_model(const StFile& checkpoint, std::string_view tokenizer, const train::ParallelData* calib,
                         const ExportOptions& options, std::map<std::string, std::string> metadata,
                         std::vector<uint8_t>* out);

}  // namespace pmt::exporter

#include "export/export.h"

#include <cstdio>
#include <cstring>

#include "export/calibrate.h"
#include "export/model_tensors.h"
#include "train/checkpoint.h"

namespace pmt::exporter {

std::string export_model(const StFile& checkpoint, std::string_view tokenizer, const train::ParallelData* calib,
                         const ExportOptions& options, std::map<std::string, std::string> metadata,
                         std::vector<uint8_t>* out) {
  ModelConfig config;
  if (std::string why = config_from_metadata(checkpoint.metadata, &config); !why.empty())
    return "checkpoint config: " + why;
  const bool int8 = options.dtype == DType::I8;
  if (int8 && (calib == nullptr || calib->size() == 0)) return "int8 export needs calibration sentence pairs";

  std::vector<uint32_t> pairs;
  train::BatchLimits limits{1, 1, 1, 0, 0};
  if (int8) {
    pairs = calibration_pairs(*calib, options.calib_sentences);
    limits = calibration_limits(*calib, pairs);
    if (limits.max_src_len > config.max_len || limits.max_tgt_len > config.max_len)
      return "calibration pairs are longer than the model's max_len " + std::to_string(config.max_len);
  }
  train::Transformer model(config, limits);
  if (std::string why = train::load_params(checkpoint, &model); !why.empty()) return "checkpoint: " + why;

  ModelContents contents;
  contents.config = config;
  contents.tokenizer = tokenizer;
  contents.tensors = model_weights(model);
  contents.linear_dtype = options.dtype;
  contents.shortlist = options.shortlist;
  if (int8) {
    std::map<std::string, LinearRange> ranges;
    if (std::string why = calibrate(&model, *calib, options.calib_sentences, options.percentile, &ranges, options.progress);
        !why.empty())
      return why;
    contents.quant = linear_quant(ranges, options.channel_margin);
    char rule[200];
    std::snprintf(rule, sizeof rule, "%zu sentence pairs, per-side %.6g percentile (logits top: max)", pairs.size(),
                  options.percentile);
    if (options.channel_margin > 0.0)
      std::snprintf(rule + std::strlen(rule), sizeof rule - std::strlen(rule), ", per-channel output ranges x %.6g",
                    options.channel_margin);
    metadata["calibration"] = rule;
  }
  const auto config_keys = config_to_metadata(config);
  for (const auto& [key, value] : checkpoint.metadata)
    if (!config_keys.count(key) && !key.starts_with("optim.")) metadata["checkpoint." + key] = value;
  contents.metadata = std::move(metadata);
  return build_model_file(contents, out);
}

}  // namespace pmt::exporter

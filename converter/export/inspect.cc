#include "export/inspect.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace pmt::exporter {

namespace {

std::string format(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// A float as JSON shows it: the shortest decimal that reads back as the same float (not the
// 17 digits of the double it widens to).
double shortest(float v) { return std::strtod(format("%.9g", v).c_str(), nullptr); }

nlohmann::ordered_json act_quant_json(const std::optional<ActQuant>& q) {
  if (!q) return nullptr;
  return {{"scale", shortest(q->scale)}, {"zero_point", q->zero_point}};
}

std::pair<float, float> scale_range(const TensorView& t) {
  const auto [lo, hi] = std::minmax_element(t.scales, t.scales + t.shape[0]);
  return {*lo, *hi};
}

// The narrowest and widest per-channel output range (hi - lo), for files that carry them.
std::pair<float, float> channel_widths(const TensorView& t) {
  float lo = HUGE_VALF, hi = 0.f;
  for (int64_t r = 0; r < t.shape[0]; ++r) {
    const float w = half_to_float(t.output_ranges[2 * r + 1]) - half_to_float(t.output_ranges[2 * r]);
    lo = std::min(lo, w);
    hi = std::max(hi, w);
  }
  return {lo, hi};
}

}  // namespace

int tokenizer_pieces(const ModelFile& file, std::string* error) {
  sentencepiece::SentencePieceProcessor sp;
  const auto status = sp.LoadFromSerializedProto(file.tokenizer());
  if (!status.ok()) {
    *error = "the embedded SentencePiece model does not load: " + status.ToString();
    return -1;
  }
  return sp.GetPieceSize();
}

std::string describe_model(const ModelFile& file, const std::string& label, bool json) {
  const ModelConfig& c = file.config();
  std::string error;
  const int pieces = tokenizer_pieces(file, &error);
  size_t weight_bytes = 0;
  for (const TensorView& t : file.tensors()) weight_bytes += t.bytes;

  if (json) {
    nlohmann::ordered_json o;
    o["file"] = label;
    o["file_bytes"] = file.size();
    o["format_version"] = file.format_version();
    o["quantized"] = file.quantized();
    o["config"] = {{"vocab_size", c.vocab_size}, {"d_model", c.d_model},         {"n_heads", c.n_heads},
                   {"d_ff", c.d_ff},             {"n_enc_layers", c.n_enc_layers}, {"n_dec_layers", c.n_dec_layers},
                   {"max_len", c.max_len},       {"pre_ln", c.pre_ln},             {"ln_eps", shortest(c.ln_eps)},
                   {"pad_id", c.pad_id},         {"unk_id", c.unk_id},             {"bos_id", c.bos_id},
                   {"eos_id", c.eos_id}};
    o["tokenizer"] = {{"bytes", file.tokenizer().size()},
                      {"encoding", tokenizer_encoding_name(file.tokenizer_encoding())},
                      {"stored_bytes", file.tokenizer_stored_bytes()},
                      {"pieces", pieces}};
    nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
    for (const auto& [key, value] : file.metadata()) metadata[std::string(key)] = std::string(value);
    o["metadata"] = std::move(metadata);
    if (const ShortlistView* list = file.shortlist())
      o["shortlist"] = {{"frequent", list->frequent.size()}, {"targets", list->targets.size()}};
    else
      o["shortlist"] = nullptr;
    o["tensor_bytes"] = weight_bytes;
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const TensorView& t : file.tensors()) {
      nlohmann::ordered_json j;
      j["name"] = std::string(t.name);
      j["shape"] = t.shape;
      j["dtype"] = dtype_name(t.dtype);
      j["bytes"] = t.bytes;
      if (t.scales) {
        const auto [lo, hi] = scale_range(t);
        j["scale_min"] = shortest(lo);
        j["scale_max"] = shortest(hi);
      }
      j["input_quant"] = act_quant_json(t.input_quant);
      j["output_quant"] = act_quant_json(t.output_quant);
      if (t.output_ranges) {
        const auto [lo, hi] = channel_widths(t);
        j["output_channel_width_min"] = shortest(lo);
        j["output_channel_width_max"] = shortest(hi);
      }
      tensors.push_back(std::move(j));
    }
    o["tensors"] = std::move(tensors);
    // Names and metadata come from the file: bytes that are not UTF-8 are shown as U+FFFD.
    return o.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  }

  std::string o = format("%s: PocketMT model file, %zu bytes (%.2f MiB), format version %u, %s\n", label.c_str(),
                         file.size(), static_cast<double>(file.size()) / (1 << 20), file.format_version(),
                         file.quantized() ? "int8 Linear weights" : "fp32");
  o += format("config: vocab_size=%d d_model=%d n_heads=%d d_ff=%d n_enc_layers=%d n_dec_layers=%d\n", c.vocab_size,
              c.d_model, c.n_heads, c.d_ff, c.n_enc_layers, c.n_dec_layers);
  o += format("        max_len=%d pre_ln=%s ln_eps=%g\n", c.max_len, c.pre_ln ? "true" : "false", c.ln_eps);
  o += format("special ids: pad=%d unk=%d bos=%d eos=%d\n", c.pad_id, c.unk_id, c.bos_id, c.eos_id);
  const std::string stored = format("%zu bytes, stored %s in %zu bytes", file.tokenizer().size(),
                                    tokenizer_encoding_name(file.tokenizer_encoding()), file.tokenizer_stored_bytes());
  o += pieces >= 0 ? format("tokenizer: SentencePiece, %d pieces, %s\n", pieces, stored.c_str())
                   : "tokenizer: " + stored + ", " + error + "\n";
  for (const auto& [key, value] : file.metadata())
    o += "metadata: " + std::string(key) + " = " + std::string(value) + "\n";
  if (const ShortlistView* list = file.shortlist())
    o += format("shortlist: %zu frequent target pieces, %zu per-source-piece targets (%.1f per piece)\n",
                list->frequent.size(), list->targets.size(),
                static_cast<double>(list->targets.size()) / static_cast<double>(c.vocab_size));
  o += format("tensors: %zu, %zu bytes of data\n", file.tensors().size(), weight_bytes);
  int name_width = 4;
  for (const TensorView& t : file.tensors()) name_width = std::max(name_width, static_cast<int>(t.name.size()));
  o += format("  %-*s %-12s %-4s %9s  %-21s %-17s %-18s %s\n", name_width, "name", "shape", "type", "bytes",
              "row scales [min, max]", "input (scale, zp)", "output (scale, zp)", "channel widths [min, max]");
  for (const TensorView& t : file.tensors()) {
    std::string scales, in, out, widths;
    if (t.scales) {
      const auto [lo, hi] = scale_range(t);
      scales = format("[%.3g, %.3g]", lo, hi);
    }
    if (t.input_quant) in = format("(%.4g, %d)", t.input_quant->scale, t.input_quant->zero_point);
    if (t.output_quant) out = format("(%.4g, %d)", t.output_quant->scale, t.output_quant->zero_point);
    if (t.output_ranges) {
      const auto [lo, hi] = channel_widths(t);
      widths = format("[%.3g, %.3g]", lo, hi);
    }
    std::string row = format("  %-*s %-12s %-4s %9zu  %-21s %-17s %-18s %s", name_width, std::string(t.name).c_str(),
                             shape_string(t.shape).c_str(), dtype_name(t.dtype), t.bytes, scales.c_str(), in.c_str(),
                             out.c_str(), widths.c_str());
    row.erase(row.find_last_not_of(' ') + 1);  // f32 rows leave the quantization columns empty
    o += row + "\n";
  }
  return o;
}

}  // namespace pmt::exporter

#include "export/inspect.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pmt::exporter {

namespace {

std::string format(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c < 0x20) out += format("\\u%04x", c);
    else out += static_cast<char>(c);
  }
  return out + "\"";
}

std::string act_quant_json(const std::optional<ActQuant>& q) {
  return q ? format("{\"scale\":%.9g,\"zero_point\":%d}", q->scale, q->zero_point) : "null";
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
    std::string o = "{\"file\":" + json_string(label);
    o += format(",\"file_bytes\":%zu,\"format_version\":%u,\"quantized\":%s", file.size(), file.format_version(),
                file.quantized() ? "true" : "false");
    o += format(",\"config\":{\"vocab_size\":%d,\"d_model\":%d,\"n_heads\":%d,\"d_ff\":%d", c.vocab_size, c.d_model,
                c.n_heads, c.d_ff);
    o += format(",\"n_enc_layers\":%d,\"n_dec_layers\":%d,\"max_len\":%d,\"pre_ln\":%s,\"ln_eps\":%.9g", c.n_enc_layers,
                c.n_dec_layers, c.max_len, c.pre_ln ? "true" : "false", c.ln_eps);
    o += format(",\"pad_id\":%d,\"unk_id\":%d,\"bos_id\":%d,\"eos_id\":%d}", c.pad_id, c.unk_id, c.bos_id, c.eos_id);
    o += format(",\"tokenizer\":{\"bytes\":%zu,\"encoding\":\"%s\",\"stored_bytes\":%zu,\"pieces\":%d}",
                file.tokenizer().size(), tokenizer_encoding_name(file.tokenizer_encoding()),
                file.tokenizer_stored_bytes(), pieces);
    o += ",\"metadata\":{";
    for (size_t i = 0; i < file.metadata().size(); ++i) {
      if (i) o += ",";
      o += json_string(file.metadata()[i].first) + ":" + json_string(file.metadata()[i].second);
    }
    o += format("},\"tensor_bytes\":%zu,\"tensors\":[", weight_bytes);
    for (size_t i = 0; i < file.tensors().size(); ++i) {
      const TensorView& t = file.tensors()[i];
      o += i ? ",{\"name\":" : "{\"name\":";
      o += json_string(t.name) + ",\"shape\":" + shape_string(t.shape);
      o += format(",\"dtype\":\"%s\",\"bytes\":%zu", dtype_name(t.dtype), t.bytes);
      if (t.scales) {
        const auto [lo, hi] = scale_range(t);
        o += format(",\"scale_min\":%.9g,\"scale_max\":%.9g", lo, hi);
      }
      o += ",\"input_quant\":" + act_quant_json(t.input_quant) + ",\"output_quant\":" + act_quant_json(t.output_quant);
      if (t.output_ranges) {
        const auto [lo, hi] = channel_widths(t);
        o += format(",\"output_channel_width_min\":%.9g,\"output_channel_width_max\":%.9g", lo, hi);
      }
      o += "}";
    }
    return o + "]}\n";
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

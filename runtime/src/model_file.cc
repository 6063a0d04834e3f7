#include "pocketmt/model_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <tuple>

#include <zlib.h>

#include "kernels/crc32.h"
#include "pocketmt/pmt_generated.h"

namespace pmt {

// Tensor bytes are read in place as little-endian values.
static_assert(std::endian::native == std::endian::little, "PocketMT model files are little-endian");
static_assert(static_cast<int>(TokenizerEncoding::Zlib) == static_cast<int>(fb::TokenizerEncoding::Zlib));

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "f32";
    case DType::I8: return "i8";
  }
  return "?";
}

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::F32: return 4;
    case DType::I8: return 1;
  }
  return 0;
}

const char* tokenizer_encoding_name(TokenizerEncoding encoding) {
  switch (encoding) {
    case TokenizerEncoding::Raw: return "raw";
    case TokenizerEncoding::Zlib: return "zlib";
  }
  return "?";
}

int64_t shape_numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::vector<TensorSpec> model_tensor_specs(const ModelConfig& c) {
  const int64_t V = c.vocab_size, D = c.d_model, F = c.d_ff;
  std::vector<TensorSpec> specs;
  auto linear = [&](const std::string& prefix, int64_t out, int64_t in) {
    specs.push_back({prefix + ".weight", {out, in}, true});
    specs.push_back({prefix + ".bias", {out}, false});
  };
  auto norm = [&](const std::string& prefix) {
    specs.push_back({prefix + ".weight", {D}, false});
    specs.push_back({prefix + ".bias", {D}, false});
  };
  auto self_attn = [&](const std::string& prefix) {
    specs.push_back({prefix + ".in_proj_weight", {3 * D, D}, true});
    specs.push_back({prefix + ".in_proj_bias", {3 * D}, false});
    linear(prefix + ".out_proj", D, D);
  };
  auto ffn = [&](const std::string& prefix) {
    linear(prefix + ".linear1", F, D);
    linear(prefix + ".linear2", D, F);
  };
  specs.push_back({"embed.weight", {V, D}, true});
  for (int i = 0; i < c.n_enc_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    self_attn(p + ".self_attn");
    norm(p + ".norm1");
    ffn(p);
    norm(p + ".norm2");
  }
  for (int i = 0; i < c.n_dec_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    self_attn(p + ".self_attn");
    norm(p + ".norm1");
    linear(p + ".multihead_attn.q_proj", D, D);
    linear(p + ".multihead_attn.kv_proj", 2 * D, D);
    linear(p + ".multihead_attn.out_proj", D, D);
    norm(p + ".norm2");
    ffn(p);
    norm(p + ".norm3");
  }
  if (c.pre_ln) {
    norm("encoder.norm");
    norm("decoder.norm");
  }
  return specs;
}

namespace {

// model_tensor_specs(c).size(), computed without building the list so that a hostile layer
// count cannot make the reader allocate before it is compared with the file size.
int64_t model_tensor_count(const ModelConfig& c) {
  return 1 + 12 * int64_t{c.n_enc_layers} + 20 * int64_t{c.n_dec_layers} + (c.pre_ln ? 4 : 0);
}

bool positive_finite(float x) { return std::isfinite(x) && x > 0.f; }

// Index of the first NaN or infinity among n floats stored at p (read unaligned-safe), or -1.
// A valid checksum proves only that the file is intact, not that whoever wrote it was sane.
int64_t first_non_finite(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    float x;
    std::memcpy(&x, p + i * sizeof x, sizeof x);
    if (!std::isfinite(x)) return static_cast<int64_t>(i);
  }
  return -1;
}

std::string check_act_quant(const fb::ActQuant* q, const char* which) {
  if (q == nullptr) return std::string("has no ") + which + " quantization";
  if (!positive_finite(q->scale()))
    return std::string(which) + " scale " + std::to_string(q->scale()) + " is not positive and finite";
  if (q->zero_point() < -128 || q->zero_point() > 127)
    return std::string(which) + " zero point " + std::to_string(q->zero_point()) + " is outside [-128, 127]";
  return {};
}

// The root table with only format_version verified: lets the reader name an unknown version
// even when the rest of the file follows a layout it does not know.
struct VersionProbe : private flatbuffers::Table {
  bool Verify(flatbuffers::Verifier& v) const {
    return VerifyTableStart(v) && VerifyField<uint32_t>(v, fb::Model::VT_FORMAT_VERSION, 4) && v.EndTable();
  }
};

// "1 and 2": the versions this reader knows, for the message about one it does not.
std::string known_versions() {
  std::string s;
  for (uint32_t v = kOldestModelFormatVersion; v <= kModelFormatVersion; ++v)
    s += (v == kOldestModelFormatVersion ? "" : v == kModelFormatVersion ? " and " : ", ") + std::to_string(v);
  return s;
}

// Deflate expands its input at most 1032-fold (zlib FAQ), so a larger declared size is a damaged
// field; checked before the output buffer is allocated.
constexpr uint64_t kMaxDeflateRatio = 1032;

// Inflates one zlib stream of exactly `size` decoded bytes into *out. Returns why not.
std::string inflate_exactly(const uint8_t* stream, size_t stream_bytes, uint64_t size, std::string* out) {
  if (size == 0) return "zlib stream without its decoded size (tokenizer_size)";
  if (size > stream_bytes * kMaxDeflateRatio || size != static_cast<uLongf>(size))
    return "declared size " + std::to_string(size) + " is more than a " + std::to_string(stream_bytes) +
           "-byte zlib stream can decode to";
  out->resize(static_cast<size_t>(size));
  uLongf out_len = static_cast<uLongf>(size);
  uLong in_len = stream_bytes;
  const int rc = uncompress2(reinterpret_cast<Bytef*>(out->data()), &out_len, stream, &in_len);
  std::string why;
  if (rc == Z_BUF_ERROR) why = "zlib stream decodes to more than the declared " + std::to_string(size) + " bytes";
  else if (rc == Z_MEM_ERROR) why = "out of memory while inflating";
  else if (rc != Z_OK) why = "zlib stream corrupt";
  else if (out_len != size)
    why = "zlib stream decodes to " + std::to_string(out_len) + " bytes, tokenizer_size declares " +
          std::to_string(size);
  else if (in_len != stream_bytes)
    why = std::to_string(stream_bytes - in_len) + " bytes follow the end of the zlib stream";
  if (!why.empty()) std::string().swap(*out);
  return why;
}

// Every id below `vocab` and ascending (so without repeats).
template <class Id>
bool ascending_ids(std::span<const Id> ids, int32_t vocab) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (static_cast<int64_t>(ids[i]) < 0 || static_cast<int64_t>(ids[i]) >= vocab || (i > 0 && !(ids[i - 1] < ids[i])))
      return false;
  return true;
}

std::string check_shortlist(const fb::Shortlist& list, int32_t vocab, ShortlistView* out) {
  out->frequent = {list.frequent()->data(), list.frequent()->size()};
  out->offsets = {list.offsets()->data(), list.offsets()->size()};
  out->targets = {list.targets()->data(), list.targets()->size()};
  if (!ascending_ids(out->frequent, vocab)) return "frequent ids are not ascending ids below the vocabulary size";
  if (out->offsets.size() != static_cast<size_t>(vocab) + 1)
    return std::to_string(out->offsets.size()) + " offsets, the vocabulary needs " + std::to_string(vocab + 1);
  if (out->offsets.front() != 0 || out->offsets.back() != out->targets.size())
    return "offsets do not run from 0 to the " + std::to_string(out->targets.size()) + " targets";
  for (int32_t s = 0; s < vocab; ++s) {
    if (out->offsets[s] > out->offsets[s + 1]) return "offsets decrease at source id " + std::to_string(s);
    if (!ascending_ids(out->of(s), vocab))
      return "the targets of source id " + std::to_string(s) + " are not ascending ids below the vocabulary size";
  }
  return {};
}

// A decode setting of the metadata: a plain decimal (digits, at most one point) in [0, 100], read
// by hand since strtod would follow the host program's locale. Anything else is refused, not
// guessed at.
bool parse_setting(std::string_view text, float* out) {
  double value = 0.0, unit = 1.0;
  bool point = false, digits = false;
  if (text.size() > 16) return false;
  for (const char ch : text) {
    if (ch == '.' && !point) {
      point = true;
    } else if (ch >= '0' && ch <= '9') {
      digits = true;
      if (point) value += (ch - '0') * (unit /= 10.0);
      else value = value * 10.0 + (ch - '0');
    } else {
      return false;
    }
  }
  if (!digits || value > 100.0) return false;
  *out = static_cast<float>(value);
  return true;
}

}  // namespace

float half_to_float(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0x1f) magnitude = mantissa == 0 ? HUGE_VALF : NAN;
  else if (exponent == 0) magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // subnormal
  else magnitude = std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

uint16_t float_to_half(float x, HalfRounding rounding) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const float a = std::fabs(x);
  // Truncate the magnitude to the half grid, then step one unit away from zero where the
  // direction asks for it (the bit pattern of a magnitude is monotonic, so +1 is the next half).
  uint16_t bits;
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  if (a == 0.f) bits = 0;
  else if (e - 1 >= -14) bits = static_cast<uint16_t>(((e - 1 + 15) << 10) | static_cast<int>(std::ldexp(a, 11 - e) - 1024.f));
  else bits = static_cast<uint16_t>(std::ldexp(a, 24));  // subnormal: units of 2^-24, truncated
  const bool away = sign ? rounding == HalfRounding::kDown : rounding == HalfRounding::kUp;
  if (away && half_to_float(bits) != a) ++bits;
  return static_cast<uint16_t>(sign | bits);
}

uint32_t crc32(const void* data, size_t size, uint32_t crc) { return kernels::crc32(data, size, crc); }

std::unique_ptr<ModelFile> ModelFile::open(const std::string& path, std::string* error) {
  auto fail = [&](const std::string& why) -> std::unique_ptr<ModelFile> {
    if (error) *error = path + ": " + why;
    return nullptr;
  };
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever; fstat
  // then rejects it. The flag means nothing for the regular file that mmap reads.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return fail(std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("not a regular file");
  }
  if (st.st_size == 0) {
    ::close(fd);
    return fail("empty file, not a model file");
  }
  void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  ::close(fd);  // the mapping keeps the file referenced
  if (map == MAP_FAILED) return fail(std::string("mmap failed: ") + std::strerror(map_errno));
  // Weights are read once, to be packed, and their pages then given back: huge page mappings
  // would keep far more than the weight at hand resident (measured: peak RSS 23.2 -> 19.7 MB
  // loading the small int8 model). A hint only; without it the model still loads.
  ::madvise(map, static_cast<size_t>(st.st_size), MADV_NOHUGEPAGE);

  std::unique_ptr<ModelFile> file(new ModelFile());
  file->data_ = static_cast<const uint8_t*>(map);
  file->size_ = static_cast<size_t>(st.st_size);
  file->mapped_ = true;
  if (std::string why = file->load(); !why.empty()) return fail(why);
  return file;
}

std::unique_ptr<ModelFile> ModelFile::from_buffer(const void* data, size_t size, std::string* error) {
  auto fail = [&](const std::string& why) -> std::unique_ptr<ModelFile> {
    if (error) *error = "model buffer: " + why;
    return nullptr;
  };
  if (data == nullptr || size == 0) return fail("empty, not a model file");
  if (reinterpret_cast<uintptr_t>(data) % kTensorAlignment != 0)
    return fail("address must be " + std::to_string(kTensorAlignment) + "-byte aligned to read weights in place");
  std::unique_ptr<ModelFile> file(new ModelFile());
  file->data_ = static_cast<const uint8_t*>(data);
  file->size_ = size;
  if (std::string why = file->load(); !why.empty()) return fail(why);
  return file;
}

ModelFile::~ModelFile() {
  if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

const TensorView* ModelFile::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

void ModelFile::release_tokenizer() {
  tokenizer_ = {};
  std::string().swap(inflated_tokenizer_);  // swap, not clear(): clear() keeps the capacity
}

std::string_view ModelFile::metadata(std::string_view key) const {
  for (const auto& [k, v] : metadata_)
    if (k == key) return v;
  return {};
}

std::string ModelFile::load() {
  // Structure: identifier, version, FlatBuffers Verifier, checksum. Only then is any field read.
  if (size_ < 8) return "too small to be a model file (" + std::to_string(size_) + " bytes)";
  if (size_ >= FLATBUFFERS_MAX_BUFFER_SIZE) return "larger than the 2 GiB a FlatBuffer can address";
  if (!fb::ModelBufferHasIdentifier(data_)) {
    std::string id;
    for (int i = 4; i < 8; ++i) id += std::isprint(data_[i]) ? static_cast<char>(data_[i]) : '?';
    return "not a PocketMT model file (identifier '" + id + "', expected '" + fb::ModelIdentifier() + "')";
  }
  {
    flatbuffers::Verifier probe(data_, size_);
    if (!probe.VerifyBuffer<VersionProbe>(fb::ModelIdentifier()))
      return "corrupt model file: the root table is damaged or truncated";
  }
  const fb::Model* model = fb::GetModel(data_);
  format_version_ = model->format_version();
  if (format_version_ < kOldestModelFormatVersion || format_version_ > kModelFormatVersion)
    return "model file format version " + std::to_string(format_version_) +
           " is not supported (this reader knows versions " + known_versions() + ")";
  flatbuffers::Verifier verifier(data_, size_);
  if (!fb::VerifyModelBuffer(verifier))
    return "corrupt model file: FlatBuffers verification failed (truncated or damaged)";

  const auto* crc_field = reinterpret_cast<const flatbuffers::Table*>(model)->GetAddressOf(fb::Model::VT_CRC32);
  if (crc_field == nullptr) return "corrupt model file: no checksum";
  const size_t crc_at = static_cast<size_t>(crc_field - data_);
  const uint8_t zeros[4] = {};
  uint32_t crc = crc32(data_, crc_at);
  crc = crc32(zeros, 4, crc);
  crc = crc32(data_ + crc_at + 4, size_ - crc_at - 4, crc);
  if (crc != *model->crc32()) return "corrupt model file: checksum mismatch (damaged or truncated copy)";

  // Semantics: the config is usable and every tensor is exactly what it describes.
  const fb::Config* fc = model->config();
  ModelConfig& c = config_;
  c.vocab_size = fc->vocab_size();
  c.d_model = fc->d_model();
  c.n_heads = fc->n_heads();
  c.d_ff = fc->d_ff();
  c.n_enc_layers = fc->n_enc_layers();
  c.n_dec_layers = fc->n_dec_layers();
  c.max_len = fc->max_len();
  c.dropout = 0.f;
  c.label_smoothing = 0.f;
  c.pre_ln = fc->pre_ln();
  c.ln_eps = fc->ln_eps();
  c.pad_id = fc->pad_id();
  c.unk_id = fc->unk_id();
  c.bos_id = fc->bos_id();
  c.eos_id = fc->eos_id();
  if (std::string why = c.validate(); !why.empty()) return "bad config: " + why;
  for (int32_t id : {c.pad_id, c.unk_id, c.bos_id, c.eos_id})
    if (id < 0) return "bad config: special token ids must be >= 0";

  // The tokenizer: raw bytes are viewed in place, a zlib stream is inflated into memory we own.
  const auto* stored = model->tokenizer();
  const auto encoding = static_cast<TokenizerEncoding>(model->tokenizer_encoding());
  const uint64_t decoded_size = model->tokenizer_size();
  if (stored->size() == 0) return "tokenizer: empty";
  if (format_version_ == 1 && (encoding != TokenizerEncoding::Raw || decoded_size != 0))
    return "tokenizer: a format version 1 file stores it raw, without tokenizer_encoding or tokenizer_size";
  switch (encoding) {
    case TokenizerEncoding::Raw:
      if (decoded_size != 0 && decoded_size != stored->size())
        return "tokenizer: stored raw in " + std::to_string(stored->size()) + " bytes, tokenizer_size declares " +
               std::to_string(decoded_size);
      tokenizer_ = std::string_view(reinterpret_cast<const char*>(stored->data()), stored->size());
      break;
    case TokenizerEncoding::Zlib:
      if (std::string why = inflate_exactly(stored->data(), stored->size(), decoded_size, &inflated_tokenizer_);
          !why.empty())
        return "tokenizer: " + why;
      tokenizer_ = inflated_tokenizer_;
      break;
    default:
      return "tokenizer: encoding " + std::to_string(static_cast<int>(encoding)) + " is unknown to format version " +
             std::to_string(format_version_);
  }
  tokenizer_encoding_ = encoding;
  tokenizer_stored_bytes_ = stored->size();

  const auto* tensors = model->tensors();
  // A tensor table takes well over 16 bytes (name, shape, data), so a config needing more
  // tensors than that cannot describe this file; checked before the spec list is built.
  const int64_t expected_count = model_tensor_count(c);
  if (expected_count > static_cast<int64_t>(size_ / 16))
    return "bad config: it needs " + std::to_string(expected_count) + " tensors, more than a " +
           std::to_string(size_) + "-byte file can hold";
  const std::vector<TensorSpec> specs = model_tensor_specs(c);
  std::unordered_map<std::string_view, const TensorSpec*> spec_of;
  for (const TensorSpec& s : specs) spec_of.emplace(s.name, &s);

  tensors_.reserve(tensors->size());
  for (const fb::Tensor* t : *tensors) {
    TensorView v;
    v.name = t->name()->string_view();
    const std::string name = "tensor '" + std::string(v.name) + "'";
    auto spec = spec_of.find(v.name);
    if (spec == spec_of.end()) return name + " is not part of this model";
    if (!index_.emplace(v.name, tensors_.size()).second) return name + " appears twice";
    // The Verifier checks a vector's length prefix for 4-byte alignment only; an int64 shape at
    // a 4-byte boundary (never written so, but a hostile file can) would be read misaligned.
    if (reinterpret_cast<uintptr_t>(t->shape()->data()) % alignof(int64_t) != 0)
      return name + " shape is not 8-byte aligned";
    v.shape.assign(t->shape()->begin(), t->shape()->end());
    if (v.shape != spec->second->shape)
      return name + " has shape " + shape_string(v.shape) + ", the config needs " + shape_string(spec->second->shape);

    const auto raw_dtype = static_cast<int>(t->dtype());
    if (raw_dtype != static_cast<int>(DType::F32) && raw_dtype != static_cast<int>(DType::I8)) {
      const char* known = fb::EnumNameDType(t->dtype());
      return name + " has dtype " + (*known ? std::string(known) : std::to_string(raw_dtype)) +
             ", which format version " + std::to_string(format_version_) + " does not support";
    }
    v.dtype = static_cast<DType>(raw_dtype);
    if (v.dtype == DType::I8 && !spec->second->linear) return name + " must be f32 (only Linear weights may be i8)";

    v.data = t->data()->data();
    v.bytes = t->data()->size();
    if (v.bytes != static_cast<size_t>(v.numel()) * dtype_size(v.dtype))
      return name + " holds " + std::to_string(v.bytes) + " bytes, its shape and dtype need " +
             std::to_string(static_cast<size_t>(v.numel()) * dtype_size(v.dtype));
    if (static_cast<size_t>(t->data()->data() - data_) % kTensorAlignment != 0)
      return name + " data is not " + std::to_string(kTensorAlignment) + "-byte aligned";

    if (v.dtype == DType::I8) {
      quantized_ = true;
      const auto* scales = t->scales();
      if (scales == nullptr || static_cast<int64_t>(scales->size()) != v.shape[0])
        return name + " needs one scale per row (" + std::to_string(v.shape[0]) + ")";
      v.scales = scales->data();
      for (uint32_t r = 0; r < scales->size(); ++r)
        if (!positive_finite(v.scales[r]))
          return name + " row " + std::to_string(r) + " scale " + std::to_string(v.scales[r]) +
                 " is not positive and finite";
      for (auto [q, which, out] : {std::tuple{t->input_quant(), "input", &v.input_quant},
                                   std::tuple{t->output_quant(), "output", &v.output_quant}}) {
        if (std::string why = check_act_quant(q, which); !why.empty()) return name + " " + why;
        *out = ActQuant{q->scale(), q->zero_point()};
      }
      if (const auto* ranges = t->output_channel_ranges()) {
        if (static_cast<int64_t>(ranges->size()) != 2 * v.shape[0])
          return name + " needs two output range values per row (" + std::to_string(2 * v.shape[0]) + ")";
        v.output_ranges = ranges->data();
        for (int64_t r = 0; r < v.shape[0]; ++r) {
          const float lo = half_to_float(v.output_ranges[2 * r]), hi = half_to_float(v.output_ranges[2 * r + 1]);
          if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi)
            return name + " row " + std::to_string(r) + " output range [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + "] is not an ordered finite range";
        }
      }
    } else if (t->scales() != nullptr || t->input_quant() != nullptr || t->output_quant() != nullptr ||
               t->output_channel_ranges() != nullptr) {
      return name + " is f32 but carries quantization parameters";
    } else if (const int64_t bad = first_non_finite(static_cast<const uint8_t*>(v.data), static_cast<size_t>(v.numel()));
               bad >= 0) {
      return name + " element " + std::to_string(bad) + " is not finite (NaN or infinity)";
    }
    tensors_.push_back(std::move(v));
  }
  for (const TensorSpec& s : specs)
    if (!index_.count(s.name)) return "missing tensor '" + s.name + "'";

  if (const auto* md = model->metadata())
    for (const fb::KeyValue* kv : *md)
      metadata_.emplace_back(kv->key() ? kv->key()->string_view() : std::string_view{},
                             kv->value() ? kv->value()->string_view() : std::string_view{});
  for (auto [key, what, value] : {std::tuple{"decode.alpha", "a length penalty", &default_alpha_},
                                  {"decode.letter_penalty", "a letter penalty", &default_letter_penalty_}})
    if (const std::string_view text = metadata(key); !text.empty() && !parse_setting(text, value))
      return "metadata " + std::string(key) + " = '" + std::string(text) + "' is not " + what + " in [0, 100]";
  if (const fb::Shortlist* list = model->shortlist()) {
    if (std::string why = check_shortlist(*list, c.vocab_size, &shortlist_.emplace()); !why.empty())
      return "shortlist: " + why;
  }
  return {};
}

}  // namespace pmt

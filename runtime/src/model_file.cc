#include "pocketmt/model_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <tuple>

#include "pocketmt/pmt_generated.h"

namespace pmt {

// Tensor bytes are read in place as little-endian values.
static_assert(std::endian::native == std::endian::little, "PocketMT model files are little-endian");

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

// Slice-by-8 CRC-32 tables: table[0] is the classic byte table, table[k][b] advances the CRC of
// byte b by k further zero bytes, so eight input bytes are folded per step.
constexpr std::array<std::array<uint32_t, 256>, 8> make_crc_tables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    t[0][b] = crc;
  }
  for (uint32_t b = 0; b < 256; ++b)
    for (size_t k = 1; k < 8; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  return t;
}
constexpr auto kCrcTables = make_crc_tables();

bool positive_finite(float x) { return std::isfinite(x) && x > 0.f; }

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

}  // namespace

uint32_t crc32(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (; size >= 8; size -= 8, p += 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= crc;
    crc = kCrcTables[7][lo & 0xFF] ^ kCrcTables[6][(lo >> 8) & 0xFF] ^ kCrcTables[5][(lo >> 16) & 0xFF] ^
          kCrcTables[4][lo >> 24] ^ kCrcTables[3][hi & 0xFF] ^ kCrcTables[2][(hi >> 8) & 0xFF] ^
          kCrcTables[1][(hi >> 16) & 0xFF] ^ kCrcTables[0][hi >> 24];
  }
  for (; size > 0; --size, ++p) crc = (crc >> 8) ^ kCrcTables[0][(crc ^ *p) & 0xFF];
  return ~crc;
}

std::unique_ptr<ModelFile> ModelFile::open(const std::string& path, std::string* error) {
  auto fail = [&](const std::string& why) -> std::unique_ptr<ModelFile> {
    if (error) *error = path + ": " + why;
    return nullptr;
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
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
  if (format_version_ != kModelFormatVersion)
    return "model file format version " + std::to_string(format_version_) +
           " is not supported (this reader knows version " + std::to_string(kModelFormatVersion) + ")";
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

  if (model->tokenizer()->size() == 0) return "empty tokenizer";
  tokenizer_ = std::string_view(reinterpret_cast<const char*>(model->tokenizer()->data()), model->tokenizer()->size());

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
    v.shape.assign(t->shape()->begin(), t->shape()->end());
    if (v.shape != spec->second->shape)
      return name + " has shape " + shape_string(v.shape) + ", the config needs " + shape_string(spec->second->shape);

    const auto raw_dtype = static_cast<int>(t->dtype());
    if (raw_dtype != static_cast<int>(DType::F32) && raw_dtype != static_cast<int>(DType::I8)) {
      const char* known = fb::EnumNameDType(t->dtype());
      return name + " has dtype " + (*known ? std::string(known) : std::to_string(raw_dtype)) +
             ", which format version 1 does not support";
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
    } else if (t->scales() != nullptr || t->input_quant() != nullptr || t->output_quant() != nullptr) {
      return name + " is f32 but carries quantization parameters";
    }
    tensors_.push_back(std::move(v));
  }
  for (const TensorSpec& s : specs)
    if (!index_.count(s.name)) return "missing tensor '" + s.name + "'";

  if (const auto* md = model->metadata())
    for (const fb::KeyValue* kv : *md)
      metadata_.emplace_back(kv->key() ? kv->key()->string_view() : std::string_view{},
                             kv->value() ? kv->value()->string_view() : std::string_view{});
  return {};
}

}  // namespace pmt

// The loader against files built by the exporter's writer, intact and damaged.
#include "pocketmt/model_file.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <memory>
#include <string>
#include <vector>

#include "export/model_writer.h"
#include "pocketmt/pmt_generated.h"

namespace {

using pmt::DType;
using pmt::ModelFile;
using pmt::TokenizerEncoding;

// A model-file image in 64-byte aligned memory, as an mmap would give it.
struct Aligned {
  std::unique_ptr<uint8_t, decltype(&std::free)> data{nullptr, &std::free};
  size_t size = 0;
};
// `size` bytes, the first min(size, bytes.size()) of them copied from `bytes`.
Aligned aligned_copy(const std::vector<uint8_t>& bytes, size_t size) {
  Aligned a;
  a.data.reset(static_cast<uint8_t*>(std::aligned_alloc(64, (size + 63) / 64 * 64 + 64)));
  std::memcpy(a.data.get(), bytes.data(), std::min(size, bytes.size()));
  a.size = size;
  return a;
}

// Loads and keeps the buffer alive alongside the file.
struct Loaded {
  Aligned buffer;
  std::unique_ptr<ModelFile> file;
  std::string error;
};
Loaded load_kept(const std::vector<uint8_t>& bytes) {
  Loaded l;
  l.buffer = aligned_copy(bytes, bytes.size());
  l.file = ModelFile::from_buffer(l.buffer.data.get(), l.buffer.size, &l.error);
  return l;
}

std::string load_error(const std::vector<uint8_t>& bytes, size_t size = SIZE_MAX) {
  std::string error;
  Aligned a = aligned_copy(bytes, std::min(size, bytes.size()));
  auto file = ModelFile::from_buffer(a.data.get(), a.size, &error);
  return file ? std::string("loaded") : error;
}

// The tiny preset with deterministic pseudo-random values in [-1, 1).
struct TinyModel {
  pmt::ModelConfig config;
  std::vector<pmt::TensorSpec> specs;
  std::vector<std::vector<float>> values;
  std::string tokenizer = "not a real SentencePiece model, the loader does not parse it";

  TinyModel() {
    REQUIRE(pmt::preset_config("tiny", &config));
    specs = pmt::model_tensor_specs(config);
    uint64_t state = 42;
    for (const auto& s : specs) {
      int64_t n = 1;
      for (int64_t d : s.shape) n *= d;
      std::vector<float> v(static_cast<size_t>(n));
      for (float& x : v) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x = static_cast<float>(static_cast<double>(state >> 40) / double(1 << 24) * 2.0 - 1.0);
      }
      values.push_back(std::move(v));
    }
  }

  std::vector<uint8_t> build(DType dtype, TokenizerEncoding encoding = TokenizerEncoding::Zlib,
                             const pmt::exporter::Shortlist* shortlist = nullptr) const {
    pmt::exporter::ModelContents c;
    c.shortlist = shortlist;
    c.config = config;
    c.tokenizer = tokenizer;
    c.tokenizer_encoding = encoding;
    c.linear_dtype = dtype;
    for (size_t i = 0; i < specs.size(); ++i) {
      c.tensors.push_back({specs[i], values[i].data()});
      if (!specs[i].linear) continue;
      pmt::exporter::LinearQuant& q = c.quant[specs[i].name];
      q = {{0.05f, -3}, {0.25f, 7}};
      if (specs[i].name.ends_with("q_proj.weight"))
        for (int64_t r = 0; r < specs[i].shape[0]; ++r) q.output_ranges.insert(q.output_ranges.end(), {-1.f - r, 2.f + r});
    }
    c.metadata["source"] = "unit test";
    std::vector<uint8_t> bytes;
    const std::string error = pmt::exporter::build_model_file(c, &bytes);
    REQUIRE(error.empty());
    return bytes;
  }
};

const pmt::fb::Model* root(const std::vector<uint8_t>& bytes) { return pmt::fb::GetModel(bytes.data()); }

size_t field_offset(const std::vector<uint8_t>& bytes, const void* table, uint16_t field) {
  const auto* t = static_cast<const flatbuffers::Table*>(table);
  const uint8_t* at = t->GetAddressOf(field);
  REQUIRE(at != nullptr);
  return static_cast<size_t>(at - bytes.data());
}

// Recomputes the checksum after a deliberate edit, so that the check under test is the one
// that fires, not the checksum.
void reseal(std::vector<uint8_t>& bytes) {
  const size_t at = field_offset(bytes, root(bytes), pmt::fb::Model::VT_CRC32);
  std::memset(bytes.data() + at, 0, 4);
  const uint32_t crc = pmt::crc32(bytes.data(), bytes.size());
  std::memcpy(bytes.data() + at, &crc, 4);
}

// The tokenizer vector as stored in the file, and the offset of its uint32 length prefix.
const flatbuffers::Vector<uint8_t>* fb_tokenizer(const std::vector<uint8_t>& bytes) { return root(bytes)->tokenizer(); }
size_t tokenizer_data_offset(const std::vector<uint8_t>& bytes) {
  return static_cast<size_t>(fb_tokenizer(bytes)->data() - bytes.data());
}

void set_tokenizer_size(std::vector<uint8_t>& bytes, uint64_t size) {
  std::memcpy(bytes.data() + field_offset(bytes, root(bytes), pmt::fb::Model::VT_TOKENIZER_SIZE), &size, 8);
  reseal(bytes);
}

// The SentencePiece model the runtime tests use (1,015 bytes, compressible like any real one).
std::string fixture_tokenizer() {
  std::ifstream in(PMT_TEST_DATA_DIR "/tiny_spm64.model", std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const pmt::fb::Tensor* fb_tensor(const std::vector<uint8_t>& bytes, const std::string& name) {
  for (const auto* t : *root(bytes)->tensors())
    if (t->name()->str() == name) return t;
  FAIL("no tensor " << name);
  return nullptr;
}

}  // namespace

TEST_CASE("crc32 matches the IEEE reference check value") {
  const char* text = "123456789";
  CHECK(pmt::crc32(text, 9) == 0xCBF43926u);
  // Incremental use equals one pass, across the 8-byte fast path.
  CHECK(pmt::crc32(text + 5, 4, pmt::crc32(text, 5)) == 0xCBF43926u);
  CHECK(pmt::crc32(nullptr, 0) == 0u);
  CHECK(pmt::crc32(nullptr, 0, 0xCBF43926u) == 0xCBF43926u);  // an empty range continues unchanged
}

TEST_CASE("binary16: exact values, and rounding outward by one unit at most") {
  using pmt::HalfRounding;
  CHECK(pmt::half_to_float(0x3C00) == 1.f);
  CHECK(pmt::half_to_float(0xC000) == -2.f);
  CHECK(pmt::half_to_float(0x7BFF) == 65504.f);
  CHECK(pmt::half_to_float(0x0001) == std::ldexp(1.f, -24));
  CHECK(std::isinf(pmt::half_to_float(0x7C00)));
  CHECK(pmt::float_to_half(1.f, HalfRounding::kDown) == 0x3C00);
  CHECK(pmt::float_to_half(-2.f, HalfRounding::kUp) == 0xC000);
  CHECK(pmt::float_to_half(65504.f, HalfRounding::kUp) == 0x7BFF);
  CHECK(pmt::float_to_half(0.1f, HalfRounding::kDown) == 0x2E66);
  CHECK(pmt::float_to_half(0.1f, HalfRounding::kUp) == 0x2E67);
  CHECK(pmt::float_to_half(-0.1f, HalfRounding::kDown) == 0xAE67);
  CHECK(pmt::float_to_half(0.f, HalfRounding::kUp) == 0);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> exponent(-26.f, 15.9f);
  for (int i = 0; i < 10000; ++i) {
    const float x = std::exp2(exponent(rng)) * (i % 2 ? -1.f : 1.f);
    const float lo = pmt::half_to_float(pmt::float_to_half(x, HalfRounding::kDown));
    const float hi = pmt::half_to_float(pmt::float_to_half(x, HalfRounding::kUp));
    REQUIRE(lo <= x);
    REQUIRE(x <= hi);
    // One unit apart at most: 2^-10 relative for normals, 2^-24 absolute for subnormals.
    CHECK(hi - lo <= std::max(std::fabs(x) * std::ldexp(1.f, -10), std::ldexp(1.f, -24)));
  }
}

TEST_CASE("an fp32 file loads with every tensor, the config and the tokenizer") {
  const TinyModel m;
  const auto bytes = m.build(DType::F32);
  Loaded l = load_kept(bytes);
  REQUIRE_MESSAGE(l.file, l.error);
  const ModelFile& f = *l.file;
  CHECK(f.format_version() == pmt::kModelFormatVersion);
  CHECK(f.config().d_model == 32);
  CHECK(f.config().vocab_size == 64);
  CHECK(f.config().n_enc_layers == 2);
  CHECK(f.config().ln_eps == m.config.ln_eps);
  CHECK(f.config().eos_id == 3);
  CHECK(f.tokenizer() == m.tokenizer);
  CHECK_FALSE(f.quantized());
  CHECK(f.metadata("source") == "unit test");
  CHECK(f.metadata("absent").empty());
  REQUIRE(f.tensors().size() == m.specs.size());
  for (size_t i = 0; i < m.specs.size(); ++i) {
    const pmt::TensorView* t = f.find(m.specs[i].name);
    REQUIRE(t != nullptr);
    CHECK(t->shape == m.specs[i].shape);
    CHECK(t->dtype == DType::F32);
    CHECK(t->scales == nullptr);
    CHECK_FALSE(t->input_quant.has_value());
    CHECK(reinterpret_cast<uintptr_t>(t->data) % 64 == 0);
    REQUIRE(t->bytes == m.values[i].size() * 4);
    CHECK(std::memcmp(t->data, m.values[i].data(), t->bytes) == 0);
  }
  CHECK(f.find("decoder.layers.0.multihead_attn.in_proj_weight") == nullptr);
  CHECK(f.find("decoder.layers.1.multihead_attn.kv_proj.weight")->shape == std::vector<int64_t>{64, 32});
}

TEST_CASE("an int8 file carries per-row scales and activation quantization on Linear weights") {
  const TinyModel m;
  Loaded l = load_kept(m.build(DType::I8));
  REQUIRE_MESSAGE(l.file, l.error);
  CHECK(l.file->quantized());
  const pmt::TensorView* w = l.file->find("encoder.layers.1.linear1.weight");
  REQUIRE(w != nullptr);
  CHECK(w->dtype == DType::I8);
  CHECK(w->bytes == 64 * 32);
  REQUIRE(w->scales != nullptr);
  REQUIRE(w->input_quant.has_value());
  CHECK(w->input_quant->scale == 0.05f);
  CHECK(w->input_quant->zero_point == -3);
  CHECK(w->output_quant->scale == 0.25f);
  CHECK(w->output_quant->zero_point == 7);
  CHECK(w->output_ranges == nullptr);
  const pmt::TensorView* q = l.file->find("decoder.layers.1.multihead_attn.q_proj.weight");
  REQUIRE(q->output_ranges != nullptr);
  CHECK(pmt::half_to_float(q->output_ranges[0]) == -1.f);
  CHECK(pmt::half_to_float(q->output_ranges[2 * 31 + 1]) == 33.f);
  const pmt::TensorView* b = l.file->find("encoder.layers.1.linear1.bias");
  CHECK(b->dtype == DType::F32);
  CHECK_FALSE(b->input_quant.has_value());
  CHECK(l.file->find("decoder.layers.0.norm3.weight")->dtype == DType::F32);
  CHECK(l.file->find("embed.weight")->dtype == DType::I8);
}

TEST_CASE("open() maps a file from disk and reports missing or empty files") {
  const TinyModel m;
  const auto bytes = m.build(DType::I8);
  char path[] = "/tmp/pmt_model_file_testXXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  close(fd);
  std::string error;
  auto f = ModelFile::open(path, &error);
  REQUIRE_MESSAGE(f, error);
  CHECK(f->size() == bytes.size());
  CHECK(f->find("embed.weight")->scales[0] > 0.f);

  REQUIRE(truncate(path, 0) == 0);
  CHECK(ModelFile::open(path, &error) == nullptr);
  CHECK(error.find("empty") != std::string::npos);
  CHECK(error.find(path) != std::string::npos);
  std::remove(path);
  CHECK(ModelFile::open(path, &error) == nullptr);
  CHECK(error.find("No such file") != std::string::npos);
}

TEST_CASE("an empty or misaligned buffer is rejected") {
  std::string error;
  CHECK(ModelFile::from_buffer(nullptr, 0, &error) == nullptr);
  CHECK(error.find("empty") != std::string::npos);
  const auto bytes = TinyModel().build(DType::F32);
  Aligned a = aligned_copy(bytes, bytes.size() + 1);
  std::memmove(a.data.get() + 1, a.data.get(), bytes.size());
  CHECK(ModelFile::from_buffer(a.data.get() + 1, bytes.size(), &error) == nullptr);
  CHECK(error.find("aligned") != std::string::npos);
}

TEST_CASE("a wrong identifier is named in the message") {
  auto bytes = TinyModel().build(DType::F32);
  std::memcpy(bytes.data() + 4, "GGUF", 4);
  const std::string error = load_error(bytes);
  CHECK(error.find("not a PocketMT model file") != std::string::npos);
  CHECK(error.find("'GGUF'") != std::string::npos);
  CHECK(error.find("'PMT1'") != std::string::npos);
}

TEST_CASE("an unknown format version is named with the known ones") {
  for (uint32_t version : {0u, 3u}) {
    auto bytes = TinyModel().build(DType::F32);
    std::memcpy(bytes.data() + field_offset(bytes, root(bytes), pmt::fb::Model::VT_FORMAT_VERSION), &version, 4);
    const std::string error = load_error(bytes);
    CHECK(error.find("version " + std::to_string(version) + " is not supported") != std::string::npos);
    CHECK(error.find("knows versions 1 and 2") != std::string::npos);
  }
}

TEST_CASE("a zlib tokenizer is stored deflated and read back byte for byte") {
  TinyModel m;
  m.tokenizer = fixture_tokenizer();
  REQUIRE(m.tokenizer.size() == 1015);
  const auto bytes = m.build(DType::I8);
  const auto* stored = fb_tokenizer(bytes);
  // A zlib header (RFC 1950): deflate with a 32 KiB window (0x78), maximum compression (0xDA).
  REQUIRE(stored->size() > 2);
  CHECK(stored->Get(0) == 0x78);
  CHECK(stored->Get(1) == 0xDA);
  CHECK(stored->size() < m.tokenizer.size() * 2 / 3);
  CHECK(root(bytes)->tokenizer_size() == 1015);

  Loaded l = load_kept(bytes);
  REQUIRE_MESSAGE(l.file, l.error);
  CHECK(l.file->format_version() == 2);
  CHECK(l.file->tokenizer_encoding() == TokenizerEncoding::Zlib);
  CHECK(l.file->tokenizer_stored_bytes() == stored->size());
  CHECK(l.file->tokenizer() == m.tokenizer);
  // The decoded bytes live outside the file buffer, so dropping them frees memory.
  const char* decoded = l.file->tokenizer().data();
  const auto* file_begin = reinterpret_cast<const char*>(l.file->data());
  CHECK((decoded < file_begin || decoded >= file_begin + l.file->size()));
  l.file->release_tokenizer();
  CHECK(l.file->tokenizer().empty());
  CHECK(l.file->find("embed.weight") != nullptr);
}

TEST_CASE("a raw tokenizer is written as format version 1 and read in place") {
  const TinyModel m;
  const auto bytes = m.build(DType::F32, TokenizerEncoding::Raw);
  CHECK(root(bytes)->format_version() == 1);
  // Byte for byte what a version 1 writer wrote: neither version 2 field is present.
  const auto* table = reinterpret_cast<const flatbuffers::Table*>(root(bytes));
  CHECK(table->GetAddressOf(pmt::fb::Model::VT_TOKENIZER_ENCODING) == nullptr);
  CHECK(table->GetAddressOf(pmt::fb::Model::VT_TOKENIZER_SIZE) == nullptr);
  Loaded l = load_kept(bytes);
  REQUIRE_MESSAGE(l.file, l.error);
  CHECK(l.file->format_version() == 1);
  CHECK(l.file->tokenizer_encoding() == TokenizerEncoding::Raw);
  CHECK(l.file->tokenizer_stored_bytes() == m.tokenizer.size());
  CHECK(l.file->tokenizer() == m.tokenizer);
  CHECK(reinterpret_cast<const uint8_t*>(l.file->tokenizer().data()) ==
        l.file->data() + tokenizer_data_offset(bytes));
}

TEST_CASE("a damaged zlib tokenizer or a wrong decoded size is rejected with the reason") {
  TinyModel m;
  m.tokenizer = fixture_tokenizer();
  const auto intact = m.build(DType::F32);
  const size_t at = tokenizer_data_offset(intact);
  const size_t stored = fb_tokenizer(intact)->size();
  auto bytes = intact;
  SUBCASE("a broken zlib header") {
    bytes[at] ^= 0x01;  // (CMF * 256 + FLG) is no longer a multiple of 31
    reseal(bytes);
    CHECK(load_error(bytes) == "model buffer: tokenizer: zlib stream corrupt");
  }
  SUBCASE("a wrong Adler-32 trailer") {
    bytes[at + stored - 1] ^= 0x01;
    reseal(bytes);
    CHECK(load_error(bytes) == "model buffer: tokenizer: zlib stream corrupt");
  }
  SUBCASE("a stream cut short") {
    const uint32_t shorter = static_cast<uint32_t>(stored - 10);
    std::memcpy(bytes.data() + at - 4, &shorter, 4);  // the vector's length prefix
    reseal(bytes);
    CHECK(load_error(bytes) == "model buffer: tokenizer: zlib stream corrupt");
  }
  SUBCASE("bytes after the stream") {
    const uint32_t longer = static_cast<uint32_t>(stored + 3);
    std::memcpy(bytes.data() + at - 4, &longer, 4);
    reseal(bytes);
    CHECK(load_error(bytes) == "model buffer: tokenizer: 3 bytes follow the end of the zlib stream");
  }
  SUBCASE("a declared size one byte too large") {
    set_tokenizer_size(bytes, 1016);
    CHECK(load_error(bytes) == "model buffer: tokenizer: zlib stream decodes to 1015 bytes, tokenizer_size declares 1016");
  }
  SUBCASE("a declared size one byte too small") {
    set_tokenizer_size(bytes, 1014);
    CHECK(load_error(bytes) == "model buffer: tokenizer: zlib stream decodes to more than the declared 1014 bytes");
  }
  SUBCASE("no declared size") {
    set_tokenizer_size(bytes, 0);
    CHECK(load_error(bytes).find("without its decoded size") != std::string::npos);
  }
  SUBCASE("a declared size beyond deflate's 1032:1 limit, refused before allocating") {
    set_tokenizer_size(bytes, uint64_t{1} << 40);
    CHECK(load_error(bytes).find("declared size 1099511627776 is more than a " + std::to_string(stored) +
                                 "-byte zlib stream can decode to") != std::string::npos);
  }
  SUBCASE("an unknown encoding") {
    bytes[field_offset(bytes, root(bytes), pmt::fb::Model::VT_TOKENIZER_ENCODING)] = 7;
    reseal(bytes);
    CHECK(load_error(bytes) == "model buffer: tokenizer: encoding 7 is unknown to format version 2");
  }
  SUBCASE("raw encoding with a size that disagrees") {
    bytes[field_offset(bytes, root(bytes), pmt::fb::Model::VT_TOKENIZER_ENCODING)] = 0;
    reseal(bytes);
    CHECK(load_error(bytes) == "model buffer: tokenizer: stored raw in " + std::to_string(stored) +
                                   " bytes, tokenizer_size declares 1015");
  }
  SUBCASE("a version 1 file cannot hold a compressed tokenizer") {
    const uint32_t version = 1;
    std::memcpy(bytes.data() + field_offset(bytes, root(bytes), pmt::fb::Model::VT_FORMAT_VERSION), &version, 4);
    reseal(bytes);
    CHECK(load_error(bytes).find("a format version 1 file stores it raw") != std::string::npos);
  }
}

TEST_CASE("a file truncated anywhere is rejected") {
  const auto bytes = TinyModel().build(DType::I8);
  // 20 cut points: inside the header, then spread over the whole file, then just short of it.
  std::vector<size_t> cuts = {1, 4, 7, 8, 12, 64, 200};
  for (size_t k = 1; k <= 10; ++k) cuts.push_back(bytes.size() * k / 11);
  for (size_t back : {64, 4, 1}) cuts.push_back(bytes.size() - back);
  REQUIRE(cuts.size() == 20);
  for (size_t cut : cuts) {
    const std::string error = load_error(bytes, cut);
    CHECK_MESSAGE(error != "loaded", "cut at " << cut);
    CHECK_MESSAGE(!error.empty(), "cut at " << cut);
  }
}

TEST_CASE("every single flipped byte in the header region is rejected") {
  const auto bytes = TinyModel().build(DType::F32);
  // The root offset, the identifier, the root table, the config, the tokenizer and the tensor
  // tables (the builder writes back to front, so the last-built tables come first).
  REQUIRE(bytes.size() > 512);
  for (size_t i = 0; i < 512; ++i) {
    auto damaged = bytes;
    damaged[i] ^= 0x5A;
    CHECK_MESSAGE(load_error(damaged) != "loaded", "byte " << i);
  }
}

TEST_CASE("a flipped byte in the weights fails the checksum") {
  auto bytes = TinyModel().build(DType::F32);
  const auto* t = fb_tensor(bytes, "decoder.layers.1.linear2.weight");
  bytes[static_cast<size_t>(t->data()->data() - bytes.data()) + 5] ^= 1;
  CHECK(load_error(bytes).find("checksum mismatch") != std::string::npos);
}

TEST_CASE("a tensor whose shape disagrees with the config is named") {
  auto bytes = TinyModel().build(DType::F32);
  // [64, 32] -> [32, 64]: same byte count, so only the shape check can catch it.
  const auto* t = fb_tensor(bytes, "encoder.layers.0.linear1.weight");
  auto* shape = const_cast<int64_t*>(t->shape()->data());
  std::swap(shape[0], shape[1]);
  reseal(bytes);
  const std::string error = load_error(bytes);
  CHECK(error.find("'encoder.layers.0.linear1.weight' has shape [32, 64], the config needs [64, 32]") !=
        std::string::npos);
}

TEST_CASE("a config that disagrees with the tensors is rejected") {
  auto bytes = TinyModel().build(DType::F32);
  const auto* config = root(bytes)->config();
  const int32_t d_ff = 48;
  std::memcpy(bytes.data() + field_offset(bytes, config, pmt::fb::Config::VT_D_FF), &d_ff, 4);
  reseal(bytes);
  CHECK(load_error(bytes).find("the config needs [48, 32]") != std::string::npos);

  const int32_t layers = 1000000000;
  std::memcpy(bytes.data() + field_offset(bytes, config, pmt::fb::Config::VT_N_ENC_LAYERS), &layers, 4);
  reseal(bytes);
  CHECK(load_error(bytes).find("more than a") != std::string::npos);
}

TEST_CASE("bad quantization parameters and reserved dtypes are rejected") {
  const TinyModel m;
  const std::string name = "decoder.layers.0.multihead_attn.q_proj.weight";
  SUBCASE("a zero row scale") {
    auto bytes = m.build(DType::I8);
    auto* scales = const_cast<float*>(fb_tensor(bytes, name)->scales()->data());
    scales[3] = 0.f;
    reseal(bytes);
    CHECK(load_error(bytes).find("row 3 scale") != std::string::npos);
  }
  SUBCASE("a non-finite input scale") {
    auto bytes = m.build(DType::I8);
    const size_t q = field_offset(bytes, fb_tensor(bytes, name), pmt::fb::Tensor::VT_INPUT_QUANT);
    const float inf = HUGE_VALF;  // ActQuant layout: float scale, then int32 zero_point
    std::memcpy(bytes.data() + q, &inf, 4);
    reseal(bytes);
    CHECK(load_error(bytes).find("input scale") != std::string::npos);
  }
  SUBCASE("a zero point outside int8") {
    auto bytes = m.build(DType::I8);
    const size_t q = field_offset(bytes, fb_tensor(bytes, name), pmt::fb::Tensor::VT_OUTPUT_QUANT);
    const int32_t zero_point = 200;
    std::memcpy(bytes.data() + q + 4, &zero_point, 4);
    reseal(bytes);
    CHECK(load_error(bytes).find("output zero point 200") != std::string::npos);
  }
  SUBCASE("an output channel range with lo > hi") {
    auto bytes = m.build(DType::I8);
    auto* ranges = const_cast<uint16_t*>(fb_tensor(bytes, name)->output_channel_ranges()->data());
    ranges[2 * 4] = pmt::float_to_half(50.f, pmt::HalfRounding::kDown);
    reseal(bytes);
    CHECK(load_error(bytes).find("row 4 output range [50") != std::string::npos);
  }
  SUBCASE("the reserved F16 dtype") {
    auto bytes = m.build(DType::I8);
    const auto* t = fb_tensor(bytes, name);
    bytes[field_offset(bytes, t, pmt::fb::Tensor::VT_DTYPE)] = static_cast<uint8_t>(pmt::fb::DType::F16);
    reseal(bytes);
    const std::string error = load_error(bytes);
    CHECK(error.find("dtype F16, which format version 2 does not support") != std::string::npos);
    CHECK(error.find(name) != std::string::npos);
  }
}

// Issue 14, finding 1: open() used to block for ever on a named pipe, before its type check.
TEST_CASE("open() rejects a FIFO at once instead of waiting for a writer") {
  const std::string path = "/tmp/pmt_model_file_fifo_" + std::to_string(getpid());
  REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  std::string error;
  CHECK(ModelFile::open(path, &error) == nullptr);
  CHECK(error == path + ": not a regular file");
  std::remove(path.c_str());
}

// Issue 14, finding 3: a checksum only proves the bytes are intact; NaN or infinity in a bias,
// a LayerNorm or an fp32 weight made the runtime's float -> int conversions undefined.
TEST_CASE("a non-finite float in any f32 tensor is rejected, naming the tensor and element") {
  const TinyModel m;
  for (const char* name : {"encoder.layers.0.linear1.bias", "decoder.layers.1.norm3.weight", "embed.weight"}) {
    for (const float bad : {NAN, HUGE_VALF, -HUGE_VALF}) {
      CAPTURE(name);
      CAPTURE(bad);
      const DType dtype = std::string(name) == "embed.weight" ? DType::F32 : DType::I8;
      auto bytes = m.build(dtype);
      // By offset into the buffer, not through the FlatBuffers accessor (GCC 12's stringop-overflow
      // false positive under ASan, as for the quantization edits above).
      const size_t at = static_cast<size_t>(fb_tensor(bytes, name)->data()->data() - bytes.data());
      std::memcpy(bytes.data() + at + 5 * sizeof(float), &bad, sizeof bad);
      reseal(bytes);
      CHECK(load_error(bytes) ==
            "model buffer: tensor '" + std::string(name) + "' element 5 is not finite (NaN or infinity)");
    }
  }
}

TEST_CASE("an infinite ln_eps is rejected as a bad config") {
  TinyModel m;
  m.config.ln_eps = 2e-5f;  // not the schema default, so that the field is stored
  auto bytes = m.build(DType::I8);
  const float inf = HUGE_VALF;
  std::memcpy(bytes.data() + field_offset(bytes, root(bytes)->config(), pmt::fb::Config::VT_LN_EPS), &inf, 4);
  reseal(bytes);
  CHECK(load_error(bytes) == "model buffer: bad config: ln_eps must be > 0 and finite");
}

// Found by fuzz_model_file (tests/fuzz/corpus/model_file/crash-misaligned-shape): the Verifier
// accepts an int64 vector at a 4-byte boundary, whose read is then misaligned (UBSan).
TEST_CASE("a shape vector at a misaligned address is rejected, not read") {
  std::ifstream in(PMT_SOURCE_DIR "/tests/fuzz/corpus/model_file/crash-misaligned-shape", std::ios::binary);
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  REQUIRE(bytes.size() > 1000);
  reseal(bytes);  // as the fuzz target does: the checks after the checksum are under test
  const std::string error = load_error(bytes);
  CHECK(error.find("shape is not 8-byte aligned") != std::string::npos);
}

TEST_CASE("a vocabulary shortlist round-trips; bad ones are rejected with the reason") {
  const TinyModel m;
  const int32_t V = m.config.vocab_size;
  pmt::exporter::Shortlist good;
  good.frequent = {1, 3, V - 1};
  good.offsets.assign(static_cast<size_t>(V) + 1, 0);
  good.targets = {2, 5, 4};  // source 0: {2, 5}; source 2: {4}; the others none
  for (size_t s = 1; s <= static_cast<size_t>(V); ++s) good.offsets[s] = s <= 2 ? 2 : 3;
  for (const TokenizerEncoding encoding : {TokenizerEncoding::Raw, TokenizerEncoding::Zlib}) {
    Loaded l = load_kept(m.build(DType::I8, encoding, &good));
    REQUIRE_MESSAGE(l.file, l.error);
    const pmt::ShortlistView* list = l.file->shortlist();
    REQUIRE(list != nullptr);
    CHECK(std::vector<int32_t>(list->frequent.begin(), list->frequent.end()) == good.frequent);
    CHECK(std::vector<uint16_t>(list->of(0).begin(), list->of(0).end()) == std::vector<uint16_t>{2, 5});
    CHECK(list->of(1).empty());
    CHECK(std::vector<uint16_t>(list->of(2).begin(), list->of(2).end()) == std::vector<uint16_t>{4});
    CHECK(list->of(V - 1).empty());
  }
  {
    Loaded l = load_kept(m.build(DType::I8));
    REQUIRE(l.file);
    CHECK(l.file->shortlist() == nullptr);
  }
  struct Bad {
    const char* what;
    void (*edit)(pmt::exporter::Shortlist&, int32_t vocab);
  };
  const Bad bad[] = {
      {"frequent ids are not ascending", [](auto& l, int32_t) { l.frequent = {3, 1}; }},
      {"frequent ids are not ascending", [](auto& l, int32_t v) { l.frequent = {v}; }},
      {"offsets, the vocabulary needs", [](auto& l, int32_t) { l.offsets.pop_back(); }},
      {"offsets do not run from 0", [](auto& l, int32_t) { l.offsets.back() = 2; }},
      {"offsets decrease at source id 1", [](auto& l, int32_t) { l.offsets[2] = 1; }},
      {"the targets of source id 0 are not ascending", [](auto& l, int32_t) { l.targets[0] = 7; }},
      {"the targets of source id 2 are not ascending", [](auto& l, int32_t v) { l.targets[2] = static_cast<uint16_t>(v); }},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.what);
    pmt::exporter::Shortlist list = good;
    b.edit(list, V);
    const std::string error = load_error(m.build(DType::I8, TokenizerEncoding::Zlib, &list));
    CHECK(error.find("shortlist: ") != std::string::npos);
    CHECK(error.find(b.what) != std::string::npos);
  }
}

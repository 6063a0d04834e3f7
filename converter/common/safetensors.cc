#include "common/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>

#include "common/atomic_file.h"
#include "common/json.h"

namespace pmt {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; this code copies it as is");

namespace {

constexpr char kMetadataKey[] = "__metadata__";

// Closes a POSIX file descriptor on scope exit.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

std::string errno_text() { return std::strerror(errno); }

// Reads exactly n bytes at offset; false on error or end of file.
bool read_at(int fd, void* dst, size_t n, uint64_t offset) {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

// Element count of a shape, or -1 when a dimension is negative or the count overflows.
int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / 4 / d) return -1;
    n *= d;
  }
  return n;
}

// One header entry before its data is read.
struct Entry {
  std::string name;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // relative to the first data byte
};

// Decodes the "name": {...} entry of one tensor; returns a message (without the path) or "".
std::string parse_entry(const std::string& name, const json::Value& v, Entry* out) {
  const std::string where = "tensor '" + name + "'";
  if (v.type != json::Value::Type::kObject) return where + ": entry is not an object";
  for (const auto& [key, unused] : v.object) {
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      return where + ": unexpected key \"" + key + "\"";
  }
  const json::Value* dtype = v.get("dtype");
  const json::Value* shape = v.get("shape");
  const json::Value* offsets = v.get("data_offsets");
  if (!dtype || dtype->type != json::Value::Type::kString) return where + ": missing string \"dtype\"";
  if (dtype->string != "F32")
    return where + " has dtype " + dtype->string + "; only F32 is supported";
  if (!shape || shape->type != json::Value::Type::kArray) return where + ": missing array \"shape\"";
  out->name = name;
  for (const json::Value& d : shape->array) {
    if (d.type != json::Value::Type::kInteger || d.integer < 0)
      return where + ": shape entries must be non-negative integers";
    out->shape.push_back(d.integer);
  }
  if (!offsets || offsets->type != json::Value::Type::kArray || offsets->array.size() != 2 ||
      offsets->array[0].type != json::Value::Type::kInteger ||
      offsets->array[1].type != json::Value::Type::kInteger || offsets->array[0].integer < 0 ||
      offsets->array[1].integer < offsets->array[0].integer)
    return where + ": \"data_offsets\" must be [begin, end] with 0 <= begin <= end";
  out->begin = static_cast<uint64_t>(offsets->array[0].integer);
  out->end = static_cast<uint64_t>(offsets->array[1].integer);
  const int64_t count = element_count(out->shape);
  if (count < 0) return where + ": shape too large";
  if (static_cast<uint64_t>(count) * sizeof(float) != out->end - out->begin)
    return where + ": shape holds " + std::to_string(count * sizeof(float)) +
           " bytes but data_offsets span " + std::to_string(out->end - out->begin);
  return {};
}

// Decodes the whole header; checks that the entries tile [0, data_size) exactly, as the
// format requires (no overlap, no gap, nothing after the last tensor).
std::string parse_header(std::string_view text, uint64_t data_size, StFile* file,
                         std::vector<Entry>* entries) {
  json::Value root;
  if (std::string err = json::parse(text, &root); !err.empty()) return "bad JSON header: " + err;
  if (root.type != json::Value::Type::kObject) return "bad JSON header: not an object";
  for (const auto& [key, value] : root.object) {
    if (key == kMetadataKey) {
      if (value.type != json::Value::Type::kObject) return "__metadata__ is not an object";
      for (const auto& [mk, mv] : value.object) {
        if (mv.type != json::Value::Type::kString)
          return "__metadata__ value of \"" + mk + "\" is not a string";
        file->metadata[mk] = mv.string;
      }
      continue;
    }
    Entry e;
    if (std::string err = parse_entry(key, value, &e); !err.empty()) return err;
    entries->push_back(std::move(e));
  }
  std::stable_sort(entries->begin(), entries->end(),
                   [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : *entries) {
    if (e.end > data_size)
      return "tensor '" + e.name + "': data_offsets [" + std::to_string(e.begin) + ", " +
             std::to_string(e.end) + "] out of range (data section is " +
             std::to_string(data_size) + " bytes; truncated file?)";
    if (e.begin < covered)
      return "tensors '" + previous->name + "' and '" + e.name + "' overlap";
    if (e.begin > covered)
      return "gap of " + std::to_string(e.begin - covered) + " bytes before tensor '" + e.name + "'";
    covered = e.end;
    previous = &e;
  }
  if (covered != data_size)
    return std::to_string(data_size - covered) + " bytes after the last tensor";
  return {};
}

std::string read_file(const std::string& path, StFile* out) {
  // O_NONBLOCK: a FIFO would otherwise block the open until a writer comes; fstat rejects it.
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (f.fd < 0) return "cannot open: " + errno_text();
  struct stat st;
  if (::fstat(f.fd, &st) != 0) return "cannot stat: " + errno_text();
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  const off_t end = ::lseek(f.fd, 0, SEEK_END);
  if (end < 0) return "cannot seek: " + errno_text();
  const auto file_size = static_cast<uint64_t>(end);
  uint8_t prefix[8];
  if (file_size < sizeof prefix || !read_at(f.fd, prefix, sizeof prefix, 0))
    return "truncated: " + std::to_string(file_size) + " bytes, shorter than the 8-byte header size";
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = header_size << 8 | prefix[i];
  if (header_size > file_size - sizeof prefix)
    return "header size " + std::to_string(header_size) + " exceeds the file size " +
           std::to_string(file_size);
  std::string header(header_size, '\0');
  if (!read_at(f.fd, header.data(), header.size(), sizeof prefix)) return "cannot read the header";

  StFile file;
  std::vector<Entry> entries;
  const uint64_t data_start = sizeof prefix + header_size;
  if (std::string err = parse_header(header, file_size - data_start, &file, &entries); !err.empty())
    return err;
  for (Entry& e : entries) {
    StTensor t;
    t.name = std::move(e.name);
    t.shape = std::move(e.shape);
    t.data.resize((e.end - e.begin) / sizeof(float));
    if (!read_at(f.fd, t.data.data(), e.end - e.begin, data_start + e.begin))
      return "cannot read the data of tensor '" + t.name + "'";
    file.tensors.push_back(std::move(t));
  }
  *out = std::move(file);
  return {};
}

// The JSON header of `file`, padded with spaces so the data starts 8-byte aligned.
std::string build_header(const StFile& file, std::string* error) {
  json::Value root;
  if (!file.metadata.empty()) {
    json::Value meta;
    for (const auto& [k, v] : file.metadata) meta.object.emplace_back(k, json::Value::of_string(v));
    root.object.emplace_back(kMetadataKey, std::move(meta));
  }
  uint64_t offset = 0;
  for (const StTensor& t : file.tensors) {
    const std::string where = "tensor '" + t.name + "'";
    if (t.name.empty() || t.name == kMetadataKey) {
      *error = "invalid tensor name '" + t.name + "'";
      return {};
    }
    if (root.get(t.name)) {
      *error = "duplicate " + where;
      return {};
    }
    const int64_t count = element_count(t.shape);
    if (count < 0 || static_cast<uint64_t>(count) != t.data.size()) {
      *error = where + ": shape does not match its " + std::to_string(t.data.size()) + " values";
      return {};
    }
    json::Value entry, shape, offsets;
    shape.type = offsets.type = json::Value::Type::kArray;
    for (const int64_t d : t.shape) shape.array.push_back(json::Value::of_integer(d));
    const uint64_t end = offset + t.data.size() * sizeof(float);
    offsets.array = {json::Value::of_integer(static_cast<int64_t>(offset)),
                     json::Value::of_integer(static_cast<int64_t>(end))};
    entry.object.emplace_back("dtype", json::Value::of_string("F32"));
    entry.object.emplace_back("shape", std::move(shape));
    entry.object.emplace_back("data_offsets", std::move(offsets));
    root.object.emplace_back(t.name, std::move(entry));
    offset = end;
  }
  std::string header = json::serialize(root);
  header.append((8 - header.size() % 8) % 8, ' ');
  return header;
}

std::string write_file(const std::string& path, const StFile& file) {
  std::string error;
  const std::string header = build_header(file, &error);
  if (!error.empty()) return path + ": " + error;
  return write_file_atomically(path, [&](int fd) {
    uint8_t prefix[8];
    for (int i = 0; i < 8; ++i) prefix[i] = static_cast<uint8_t>(uint64_t{header.size()} >> (8 * i));
    bool ok = write_all(fd, prefix, sizeof prefix) && write_all(fd, header.data(), header.size());
    for (size_t i = 0; ok && i < file.tensors.size(); ++i) {
      const StTensor& t = file.tensors[i];
      ok = write_all(fd, t.data.data(), t.data.size() * sizeof(float));
    }
    return ok;
  });
}

// ModelConfig fields by metadata key; exactly one member pointer is set per row.
struct ConfigField {
  const char* key;
  int32_t ModelConfig::*i32 = nullptr;
  float ModelConfig::*f32 = nullptr;
  bool ModelConfig::*flag = nullptr;
};

const ConfigField kConfigFields[] = {
    {"vocab_size", &ModelConfig::vocab_size},
    {"d_model", &ModelConfig::d_model},
    {"n_heads", &ModelConfig::n_heads},
    {"d_ff", &ModelConfig::d_ff},
    {"n_enc_layers", &ModelConfig::n_enc_layers},
    {"n_dec_layers", &ModelConfig::n_dec_layers},
    {"max_len", &ModelConfig::max_len},
    {"dropout", nullptr, &ModelConfig::dropout},
    {"label_smoothing", nullptr, &ModelConfig::label_smoothing},
    {"pre_ln", nullptr, nullptr, &ModelConfig::pre_ln},
    {"ln_eps", nullptr, &ModelConfig::ln_eps},
    {"pad_id", &ModelConfig::pad_id},
    {"unk_id", &ModelConfig::unk_id},
    {"bos_id", &ModelConfig::bos_id},
    {"eos_id", &ModelConfig::eos_id},
};

// Parses the whole of `s` into one field of `c`; false when malformed or out of range.
bool parse_field(const ConfigField& field, const std::string& s, ModelConfig* c) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  errno = 0;
  if (field.i32) {
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno || *end || v < std::numeric_limits<int32_t>::min() ||
        v > std::numeric_limits<int32_t>::max())
      return false;
    c->*field.i32 = static_cast<int32_t>(v);
  } else if (field.f32) {
    const float v = std::strtof(s.c_str(), &end);
    if (errno || *end || !std::isfinite(v)) return false;
    c->*field.f32 = v;
  } else {
    if (s != "0" && s != "1") return false;
    c->*field.flag = s == "1";
  }
  return true;
}

}  // namespace

const StTensor* StFile::find(std::string_view name) const {
  for (const StTensor& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string read_safetensors(const std::string& path, StFile* out) {
  std::string err = read_file(path, out);
  return err.empty() ? err : path + ": " + err;
}

std::string write_safetensors(const std::string& path, const StFile& file) { return write_file(path, file); }

std::map<std::string, std::string> config_to_metadata(const ModelConfig& c) {
  std::map<std::string, std::string> m;
  for (const ConfigField& field : kConfigFields) {
    if (field.i32) {
      m[field.key] = std::to_string(c.*field.i32);
    } else if (field.f32) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(c.*field.f32));
      m[field.key] = buf;
    } else {
      m[field.key] = std::to_string(static_cast<int>(c.*field.flag));
    }
  }
  return m;
}

std::string config_from_metadata(const std::map<std::string, std::string>& m, ModelConfig* out) {
  ModelConfig c;
  for (const ConfigField& field : kConfigFields) {
    const auto it = m.find(field.key);
    if (it == m.end()) return std::string("metadata: missing key \"") + field.key + "\"";
    if (!parse_field(field, it->second, &c))
      return std::string("metadata: bad value \"") + it->second + "\" for key \"" + field.key + "\"";
  }
  if (std::string err = c.validate(); !err.empty()) return "metadata: invalid config: " + err;
  *out = c;
  return {};
}

}  // namespace pmt

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

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"

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

// A non-negative JSON integer that fits in int64_t, or -1.
int64_t non_negative(const nlohmann::ordered_json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    return u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? static_cast<int64_t>(u) : -1;
  }
  if (v.is_number_integer()) return std::max<int64_t>(v.get<int64_t>(), -1);
  return -1;
}

// Decodes the "name": {...} entry of one tensor; returns a message (without the path) or "".
std::string parse_entry(const std::string& name, const nlohmann::ordered_json& v, Entry* out) {
  const std::string where = "tensor '" + name + "'";
  if (!v.is_object()) return where + ": entry is not an object";
  for (const auto& item : v.items()) {
    if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets")
      return where + ": unexpected key \"" + item.key() + "\"";
  }
  const auto dtype = v.find("dtype");
  const auto shape = v.find("shape");
  const auto offsets = v.find("data_offsets");
  if (dtype == v.end() || !dtype->is_string()) return where + ": missing string \"dtype\"";
  if (dtype->get_ref<const std::string&>() != "F32")
    return where + " has dtype " + dtype->get<std::string>() + "; only F32 is supported";
  if (shape == v.end() || !shape->is_array()) return where + ": missing array \"shape\"";
  out->name = name;
  for (const auto& d : *shape) {
    const int64_t n = non_negative(d);
    if (n < 0) return where + ": shape entries must be non-negative integers";
    out->shape.push_back(n);
  }
  const int64_t begin = offsets != v.end() && offsets->is_array() && offsets->size() == 2 ? non_negative((*offsets)[0]) : -1;
  const int64_t end = begin >= 0 ? non_negative((*offsets)[1]) : -1;
  if (begin < 0 || end < begin)
    return where + ": \"data_offsets\" must be [begin, end] with 0 <= begin <= end";
  out->begin = static_cast<uint64_t>(begin);
  out->end = static_cast<uint64_t>(end);
  const int64_t count = element_count(out->shape);
  if (count < 0) return where + ": shape too large";
  if (static_cast<uint64_t>(count) * sizeof(float) != out->end - out->begin)
    return where + ": shape holds " + std::to_string(count * sizeof(float)) +
           " bytes but data_offsets span " + std::to_string(out->end - out->begin);
  return {};
}

// Parses the header with nlohmann::json, in document order. Duplicate keys (which the library
// would silently merge) and nesting deeper than kMaxDepth are errors, reported like syntax errors.
constexpr int kMaxDepth = 64;

struct HeaderError {
  std::string message;
};

std::string parse_json(std::string_view text, nlohmann::ordered_json* root) {
  std::vector<std::vector<std::string>> keys;  // the keys seen so far in each open object
  const auto callback = [&](int depth, nlohmann::ordered_json::parse_event_t event, nlohmann::ordered_json& parsed) {
    using E = nlohmann::ordered_json::parse_event_t;
    if (depth >= kMaxDepth) throw HeaderError{"nesting deeper than " + std::to_string(kMaxDepth) + " levels"};
    if (event == E::object_start) keys.emplace_back();
    else if (event == E::object_end && !keys.empty()) keys.pop_back();
    else if (event == E::key && !keys.empty()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (std::find(keys.back().begin(), keys.back().end(), key) != keys.back().end())
        throw HeaderError{"duplicate key \"" + key + "\""};
      keys.back().push_back(key);
    }
    return true;
  };
  try {
    *root = nlohmann::ordered_json::parse(text.begin(), text.end(), callback);
  } catch (const HeaderError& e) {
    return e.message;
  } catch (const nlohmann::ordered_json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 6: syntax error ..."
    std::string what = e.what();
    if (const size_t colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
    return what + " (byte " + std::to_string(e.byte) + ")";
  } catch (const nlohmann::ordered_json::exception& e) {
    return e.what();
  }
  return {};
}

// Decodes the whole header; checks that the entries tile [0, data_size) exactly, as the
// format requires (no overlap, no gap, nothing after the last tensor).
std::string parse_header(std::string_view text, uint64_t data_size, StFile* file,
                         std::vector<Entry>* entries) {
  nlohmann::ordered_json root;
  if (std::string err = parse_json(text, &root); !err.empty()) return "bad JSON header: " + err;
  if (!root.is_object()) return "bad JSON header: not an object";
  for (const auto& item : root.items()) {
    const std::string& key = item.key();
    const nlohmann::ordered_json& value = item.value();
    if (key == kMetadataKey) {
      if (!value.is_object()) return "__metadata__ is not an object";
      for (const auto& m : value.items()) {
        if (!m.value().is_string())
          return "__metadata__ value of \"" + m.key() + "\" is not a string";
        file->metadata[m.key()] = m.value().get<std::string>();
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

// The JSON header of `file` (nlohmann::ordered_json: keys in insertion order), padded with spaces so the data starts 8-byte aligned.
std::string build_header(const StFile& file, std::string* error) {
  nlohmann::ordered_json root = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) {
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const auto& [k, v] : file.metadata) meta[k] = v;
    root[kMetadataKey] = std::move(meta);
  }
  uint64_t offset = 0;
  for (const StTensor& t : file.tensors) {
    const std::string where = "tensor '" + t.name + "'";
    if (t.name.empty() || t.name == kMetadataKey) {
      *error = "invalid tensor name '" + t.name + "'";
      return {};
    }
    if (root.contains(t.name)) {
      *error = "duplicate " + where;
      return {};
    }
    const int64_t count = element_count(t.shape);
    if (count < 0 || static_cast<uint64_t>(count) != t.data.size()) {
      *error = where + ": shape does not match its " + std::to_string(t.data.size()) + " values";
      return {};
    }
    const uint64_t end = offset + t.data.size() * sizeof(float);
    nlohmann::ordered_json entry = nlohmann::ordered_json::object();
    entry["dtype"] = "F32";
    entry["shape"] = t.shape;
    entry["data_offsets"] = {offset, end};
    root[t.name] = std::move(entry);
    offset = end;
  }
  std::string header;
  try {
    header = root.dump();  // compact, UTF-8 kept as is
  } catch (const nlohmann::ordered_json::exception& e) {
    *error = "cannot write the header: " + std::string(e.what());  // a name that is not UTF-8
    return {};
  }
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

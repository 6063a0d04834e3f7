// safetensors reading/writing against files laid out by hand from the format description.
#include "common/safetensors.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "temp_dir.h"

namespace {

using pmt::test::TempDir;

// Little-endian float32 bytes of the values used below.
const std::string kOne("\x00\x00\x80\x3F", 4);       // 1.0f
const std::string kMinusTwo("\x00\x00\x00\xC0", 4);  // -2.0f
const std::string kHalf("\x00\x00\x00\x3F", 4);      // 0.5f

std::string u64_le(uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A file with the given JSON header (size prefix computed from it) and data section.
std::string with_header(const std::string& header, const std::string& data) {
  return u64_le(header.size()) + header + data;
}

// Reads `bytes` from a file and returns the error message, which must name the file.
std::string read_error(const TempDir& dir, const std::string& bytes) {
  const std::string path = dir.file("bad.safetensors");
  write_bytes(path, bytes);
  pmt::StFile file;
  const std::string err = pmt::read_safetensors(path, &file);
  CHECK(err.rfind(path + ": ", 0) == 0);
  return err.substr(err.find(": ") + 2);
}

std::string tensor(const std::string& shape, uint64_t begin, uint64_t end, const std::string& dtype = "F32") {
  return "{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" +
         std::to_string(begin) + "," + std::to_string(end) + "]}";
}

}  // namespace

TEST_CASE("safetensors: writer output matches the format byte for byte") {
  TempDir dir;
  pmt::StFile file;
  file.metadata["format"] = "pt";
  file.tensors.push_back({"w", {2}, {1.0f, -2.0f}});
  file.tensors.push_back({"s", {}, {0.5f}});
  const std::string path = dir.file("out.safetensors");
  REQUIRE(pmt::write_safetensors(path, file) == "");

  // 138 header bytes padded with 6 spaces to 144 = 0x90, then the data in tensor order.
  const std::string expected =
      std::string("\x90\0\0\0\0\0\0\0", 8) +
      R"({"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("s":{"dtype":"F32","shape":[],"data_offsets":[8,12]}})" "      " +
      kOne + kMinusTwo + kHalf;
  CHECK(read_bytes(path) == expected);
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST_CASE("safetensors: reads a file written by hand") {
  TempDir dir;
  // Entries out of data order, whitespace, metadata last with escapes.
  const std::string header =
      "{ \"b\" : {\"data_offsets\": [8, 12], \"dtype\": \"F32\", \"shape\": [1, 1]},\n"
      "  \"a\": {\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}, "
      "\"__metadata__\": {\"k\\u00e9y\": \"v\\n\"}}";
  REQUIRE(header.size() == 161);
  const std::string path = dir.file("hand.safetensors");
  write_bytes(path, std::string("\xA1\0\0\0\0\0\0\0", 8) + header + kOne + kMinusTwo + kHalf);

  pmt::StFile file;
  REQUIRE(pmt::read_safetensors(path, &file) == "");
  REQUIRE(file.tensors.size() == 2);
  CHECK(file.tensors[0].name == "a");  // file order = data order
  CHECK(file.tensors[0].shape == std::vector<int64_t>{2});
  CHECK(file.tensors[0].data == std::vector<float>{1.0f, -2.0f});
  CHECK(file.tensors[1].name == "b");
  CHECK(file.tensors[1].shape == std::vector<int64_t>{1, 1});
  CHECK(file.tensors[1].data == std::vector<float>{0.5f});
  CHECK(file.metadata == std::map<std::string, std::string>{{"k\xC3\xA9y", "v\n"}});
  REQUIRE(file.find("b"));
  CHECK(file.find("b")->data[0] == 0.5f);
  CHECK(file.find("c") == nullptr);
}

TEST_CASE("safetensors: round trip, empty tensors, overwrite") {
  TempDir dir;
  pmt::StFile file;
  file.metadata = {{"step", "12"}, {"quote", "a\"b\\c"}};
  file.tensors.push_back({"encoder.layers.0.linear1.weight", {3, 2}, {1, 2, 3, 4, 5, 6}});
  file.tensors.push_back({"empty", {0, 4}, {}});
  file.tensors.push_back({"bias", {3}, {-1.5f, 1e-30f, 3.4e38f}});
  const std::string path = dir.file("rt.safetensors");
  write_bytes(path, "old contents");  // replaced atomically
  REQUIRE(pmt::write_safetensors(path, file) == "");
  pmt::StFile back;
  REQUIRE(pmt::read_safetensors(path, &back) == "");
  CHECK(back.metadata == file.metadata);
  REQUIRE(back.tensors.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(back.tensors[i].name == file.tensors[i].name);
    CHECK(back.tensors[i].shape == file.tensors[i].shape);
    CHECK(back.tensors[i].data == file.tensors[i].data);
  }
  CHECK(std::filesystem::file_size(path) % 4 == 0);
  CHECK((std::filesystem::file_size(path) - 36) % 8 == 0);  // data starts 8-aligned
}

TEST_CASE("safetensors: the writer rejects inconsistent input") {
  TempDir dir;
  const std::string path = dir.file("w.safetensors");
  pmt::StFile file;
  file.tensors.push_back({"x", {2, 2}, {1, 2, 3}});
  CHECK(pmt::write_safetensors(path, file) == path + ": tensor 'x': shape does not match its 3 values");
  file.tensors[0] = {"x", {1}, {1}};
  file.tensors.push_back({"x", {1}, {2}});
  CHECK(pmt::write_safetensors(path, file) == path + ": duplicate tensor 'x'");
  file.tensors.pop_back();
  file.tensors.push_back({"__metadata__", {1}, {2}});
  CHECK(pmt::write_safetensors(path, file) == path + ": invalid tensor name '__metadata__'");
  CHECK_FALSE(std::filesystem::exists(path));

  const std::string nodir = dir.file("missing/w.safetensors");
  file.tensors.pop_back();
  const std::string err = pmt::write_safetensors(nodir, file);
  CHECK(err == nodir + ": cannot create a temporary file in " + dir.file("missing") + ": No such file or directory");
}

TEST_CASE("safetensors: every malformed file is rejected with a message") {
  TempDir dir;
  const std::string four = kOne;
  const std::string eight = kOne + kMinusTwo;

  SUBCASE("missing file") {
    pmt::StFile file;
    const std::string path = dir.file("nope.safetensors");
    CHECK(pmt::read_safetensors(path, &file) == path + ": cannot open: No such file or directory");
  }
  SUBCASE("truncated before the header size") {
    CHECK(read_error(dir, std::string("\x10\0\0", 3)) == "truncated: 3 bytes, shorter than the 8-byte header size");
  }
  SUBCASE("header size larger than the file") {
    CHECK(read_error(dir, u64_le(1000) + "{}") == "header size 1000 exceeds the file size 10");
    CHECK(read_error(dir, u64_le(UINT64_MAX) + "{}") ==
          "header size 18446744073709551615 exceeds the file size 10");
  }
  SUBCASE("bad JSON") {
    // nlohmann-json's own wording, without its "[json.exception...] parse error at" prefix.
    const std::string eof = read_error(dir, with_header("{\"a\":", ""));
    CHECK(eof.starts_with("bad JSON header: "));
    CHECK(eof.find("unexpected end of input") != std::string::npos);
    CHECK(eof.ends_with("(byte 6)"));
    CHECK(read_error(dir, with_header("[]", "")) == "bad JSON header: not an object");
    CHECK(read_error(dir, with_header("{\"a\":1,\"a\":2}", "")) == "bad JSON header: duplicate key \"a\"");
    CHECK(read_error(dir, with_header(std::string(65, '[') + std::string(65, ']'), "")) ==
          "bad JSON header: nesting deeper than 64 levels");
    CHECK(read_error(dir, with_header("{\"\xFF\":1}", "")).starts_with("bad JSON header: "));  // not UTF-8
    CHECK(read_error(dir, with_header("{\"p\":" + tensor("[1.5]", 0, 4) + "}", four)) ==
          "tensor 'p': shape entries must be non-negative integers");
    CHECK(read_error(dir, with_header("{\"p\":" + tensor("[18446744073709551615]", 0, 4) + "}", four)) ==
          "tensor 'p': shape entries must be non-negative integers");
  }
  SUBCASE("non-F32 dtype") {
    CHECK(read_error(dir, with_header("{\"h\":" + tensor("[2]", 0, 4, "F16") + "}", four)) ==
          "tensor 'h' has dtype F16; only F32 is supported");
  }
  SUBCASE("offsets out of range (truncated data)") {
    CHECK(read_error(dir, with_header("{\"t\":" + tensor("[2]", 0, 8) + "}", four)) ==
          "tensor 't': data_offsets [0, 8] out of range (data section is 4 bytes; truncated file?)");
  }
  SUBCASE("overlapping tensors") {
    CHECK(read_error(dir, with_header("{\"p\":" + tensor("[2]", 0, 8) + ",\"q\":" + tensor("[1]", 4, 8) + "}",
                                      eight)) == "tensors 'p' and 'q' overlap");
  }
  SUBCASE("gap between tensors") {
    CHECK(read_error(dir, with_header("{\"p\":" + tensor("[1]", 4, 8) + "}", eight)) ==
          "gap of 4 bytes before tensor 'p'");
  }
  SUBCASE("bytes after the last tensor") {
    CHECK(read_error(dir, with_header("{\"p\":" + tensor("[1]", 0, 4) + "}", eight)) ==
          "4 bytes after the last tensor");
  }
  SUBCASE("shape does not match the byte size") {
    CHECK(read_error(dir, with_header("{\"p\":" + tensor("[3]", 0, 8) + "}", eight)) ==
          "tensor 'p': shape holds 12 bytes but data_offsets span 8");
  }
  SUBCASE("malformed entries") {
    CHECK(read_error(dir, with_header("{\"p\":[1]}", "")) == "tensor 'p': entry is not an object");
    CHECK(read_error(dir, with_header("{\"p\":{\"shape\":[1],\"data_offsets\":[0,4]}}", four)) ==
          "tensor 'p': missing string \"dtype\"");
    CHECK(read_error(dir, with_header("{\"p\":" + tensor("[-1]", 0, 4) + "}", four)) ==
          "tensor 'p': shape entries must be non-negative integers");
    CHECK(read_error(dir, with_header("{\"p\":" + tensor("[1]", 4, 0) + "}", four)) ==
          "tensor 'p': \"data_offsets\" must be [begin, end] with 0 <= begin <= end");
    CHECK(read_error(dir, with_header("{\"p\":" + tensor("[4294967296,4294967296]", 0, 4) + "}", four)) ==
          "tensor 'p': shape too large");
    CHECK(read_error(dir, with_header("{\"__metadata__\":{\"a\":[]}}", "")) ==
          "__metadata__ value of \"a\" is not a string");
  }
}

TEST_CASE("safetensors: ModelConfig metadata round trip") {
  pmt::ModelConfig c;
  REQUIRE(pmt::preset_config("tiny", &c));
  auto m = pmt::config_to_metadata(c);
  // Hand-checked decimal forms: 1e-5f and 0.1f printed with 9 significant digits.
  CHECK(m.size() == 15);
  CHECK(m["vocab_size"] == "64");
  CHECK(m["d_model"] == "32");
  CHECK(m["n_heads"] == "4");
  CHECK(m["d_ff"] == "64");
  CHECK(m["n_enc_layers"] == "2");
  CHECK(m["n_dec_layers"] == "2");
  CHECK(m["max_len"] == "64");
  CHECK(m["ln_eps"] == "9.99999975e-06");
  CHECK(m["dropout"] == "0.100000001");
  CHECK(m["label_smoothing"] == "0.100000001");
  CHECK(m["pre_ln"] == "0");
  CHECK(m["pad_id"] == "0");
  CHECK(m["unk_id"] == "1");
  CHECK(m["bos_id"] == "2");
  CHECK(m["eos_id"] == "3");

  c.pre_ln = true;
  c.dropout = 0.3f;
  c.ln_eps = 1.2345678e-7f;
  c.label_smoothing = 0.0f;
  m = pmt::config_to_metadata(c);
  m["extra"] = "ignored";
  pmt::ModelConfig back;
  REQUIRE(pmt::config_from_metadata(m, &back) == "");
  CHECK(back == c);
  CHECK(back.ln_eps == 1.2345678e-7f);

  // Short hand-written forms are accepted too (e.g. from the Python reference).
  m["ln_eps"] = "1e-05";
  m["dropout"] = "0";
  REQUIRE(pmt::config_from_metadata(m, &back) == "");
  CHECK(back.ln_eps == 1e-5f);
  CHECK(back.dropout == 0.0f);
}

TEST_CASE("safetensors: bad config metadata names the key") {
  pmt::ModelConfig tiny;
  REQUIRE(pmt::preset_config("tiny", &tiny));
  const auto good = pmt::config_to_metadata(tiny);
  pmt::ModelConfig out;
  const pmt::ModelConfig untouched = out;

  auto m = good;
  m.erase("d_ff");
  CHECK(pmt::config_from_metadata(m, &out) == "metadata: missing key \"d_ff\"");
  const std::pair<const char*, const char*> bad[] = {
      {"n_heads", "4x"}, {"n_heads", ""}, {"n_heads", " 4"}, {"vocab_size", "3000000000"},
      {"ln_eps", "abc"}, {"dropout", "inf"}, {"dropout", "nan"}, {"pre_ln", "true"}};
  for (const auto& [key, value] : bad) {
    m = good;
    m[key] = value;
    CHECK(pmt::config_from_metadata(m, &out) ==
          std::string("metadata: bad value \"") + value + "\" for key \"" + key + "\"");
  }
  m = good;
  m["d_model"] = "30";
  CHECK(pmt::config_from_metadata(m, &out) ==
        "metadata: invalid config: d_model must be divisible by n_heads");
  CHECK(out == untouched);
}

// Issue 14, finding 1 (its reader side): a FIFO given as a checkpoint blocked the open.
TEST_CASE("safetensors: a FIFO is refused at once") {
  TempDir dir;
  const std::string path = dir.file("fifo.safetensors");
  REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  pmt::StFile file;
  CHECK(pmt::read_safetensors(path, &file) == path + ": not a regular file");
}

// write_file_atomically: replaces a regular file whole, never anything else (issue 14, finding 7:
// `export --out /dev/full` run as root replaced the device node with a regular file).
#include "common/atomic_file.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "temp_dir.h"

namespace {

using pmt::test::TempDir;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

auto writes(const std::string& text) {
  return [text](int fd) { return pmt::write_all(fd, text.data(), text.size()); };
}

// Only the named entries are in the directory: no temporary file left behind.
size_t entries(const TempDir& dir) {
  const auto root = std::filesystem::path(dir.file("x")).parent_path();
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(root), {}));
}

}  // namespace

TEST_CASE("atomic write: creates, then replaces a regular file whole") {
  TempDir dir;
  const std::string path = dir.file("out.bin");
  REQUIRE(pmt::write_file_atomically(path, writes("first")) == "");
  CHECK(read_text(path) == "first");
  REQUIRE(pmt::write_file_atomically(path, writes("second, longer")) == "");
  CHECK(read_text(path) == "second, longer");
  CHECK(entries(dir) == 1);
  // The mode an ordinary create gives (0666 less the umask), not mkstemp's 0600.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK((std::filesystem::status(path).permissions() & std::filesystem::perms::all) ==
        static_cast<std::filesystem::perms>(0666 & ~mask));
}

TEST_CASE("atomic write: a failed write leaves the old file and no temporary") {
  TempDir dir;
  const std::string path = dir.file("out.bin");
  REQUIRE(pmt::write_file_atomically(path, writes("kept")) == "");
  const std::string err = pmt::write_file_atomically(path, [](int) {
    errno = ENOSPC;
    return false;
  });
  CHECK(err.rfind(path + ": cannot write ", 0) == 0);
  CHECK(err.find("No space left on device") != std::string::npos);
  CHECK(read_text(path) == "kept");
  CHECK(entries(dir) == 1);
}

TEST_CASE("atomic write: a FIFO, a directory or a symbolic link is never replaced") {
  TempDir dir;
  const std::string fifo = dir.file("fifo"), sub = dir.file("sub"), link = dir.file("link");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::filesystem::create_directory(sub);
  REQUIRE(pmt::write_file_atomically(dir.file("target"), writes("t")) == "");
  std::filesystem::create_symlink(dir.file("target"), link);
  for (const std::string& path : {fifo, sub, link}) {
    CAPTURE(path);
    CHECK(pmt::write_file_atomically(path, writes("x")) == path + ": exists and is not a regular file; not replaced");
  }
  CHECK(std::filesystem::is_fifo(fifo));
  CHECK(std::filesystem::is_directory(sub));
  CHECK(std::filesystem::is_symlink(link));
  CHECK(read_text(dir.file("target")) == "t");
  CHECK(entries(dir) == 4);
}

#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace pmt {

bool write_all(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t put = ::write(fd, p, size);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) return false;
    if (put == 0) {
      errno = EIO;
      return false;
    }
    p += put;
    size -= static_cast<size_t>(put);
  }
  return true;
}

std::string write_file_atomically(const std::string& path, const std::function<bool(int fd)>& write_body) {
  auto why = [&](const std::string& what) { return path + ": " + what + ": " + std::strerror(errno); };
  // lstat, not stat: a rename replaces a symbolic link itself, not what it points to.
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return path + ": exists and is not a regular file; not replaced";
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : std::string(".");
  // Same directory as the target, so that the rename stays on one file system (atomic).
  std::string tmp = dir;
  tmp.append("/.").append(target.filename().string()).append(".XXXXXX");
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return why("cannot create a temporary file in " + dir);
  // mkstemp creates mode 0600; give the file the mode an ordinary create would have.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  int err = 0;
  if (::fchmod(fd, 0666 & ~mask) != 0 || !write_body(fd) || ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    errno = err;
    const std::string error = why("cannot write " + tmp);
    ::unlink(tmp.c_str());
    return error;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string error = why("cannot rename " + tmp + " over it");
    ::unlink(tmp.c_str());
    return error;
  }
  // The rename is durable only once the directory entry is on disk.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool synced = dir_fd >= 0 && ::fsync(dir_fd) == 0;
  if (dir_fd >= 0) ::close(dir_fd);
  if (!synced) return why("cannot sync directory " + dir);
  return {};
}

}  // namespace pmt

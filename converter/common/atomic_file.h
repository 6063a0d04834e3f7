// Whole-file writes that never leave a partial file or clobber something that is not a file.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace pmt {

// Writes `size` bytes to `fd`, retrying short writes and EINTR; false (errno set) on failure.
bool write_all(int fd, const void* data, size_t size);

// Creates `path` through a temporary file in its directory: write_body(fd) fills it (returns
// false with errno set on failure), then fsync, close, rename over `path`, fsync the directory.
// A crash or a failure leaves the old file (or none) at `path`, and no temporary behind. Refuses,
// before writing anything, to replace what is not a regular file: a device (/dev/full), a FIFO,
// a directory or a symbolic link. Returns an error message naming the file, or empty.
std::string write_file_atomically(const std::string& path, const std::function<bool(int fd)>& write_body);

}  // namespace pmt

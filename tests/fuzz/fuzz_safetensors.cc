// The checkpoint reader on arbitrary bytes, through a file as in use (an anonymous memfd, read
// by path). A file that reads back must have consistent shapes and data and write back whole.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("checkpoint", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  pmt::StFile file;
  const std::string error = pmt::read_safetensors("/proc/self/fd/" + std::to_string(fd), &file);
  close(fd);
  if (!error.empty()) return 0;
  for (const pmt::StTensor& t : file.tensors) {
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    if (n < 0 || static_cast<uint64_t>(n) != t.data.size()) std::abort();
  }
  // Config metadata, when present, must parse or be refused with a message, never crash.
  pmt::ModelConfig config;
  (void)pmt::config_from_metadata(file.metadata, &config);
  return 0;
}

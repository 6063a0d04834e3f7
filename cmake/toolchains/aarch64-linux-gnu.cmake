# 64-bit ARM (Debian arm64: Raspberry Pi OS 64-bit, phones), tests under qemu-aarch64.
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(PMT_TRIPLET aarch64-linux-gnu)
set(PMT_DEB_ARCH arm64)
set(PMT_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)

# 32-bit ARM, hard float (Debian armhf: ARMv7 + VFPv3-D16, no NEON in the baseline; Raspberry Pi
# OS 32-bit, older phones), tests under qemu-arm.
#   cmake -S . -B build-armhf -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake
set(CMAKE_SYSTEM_PROCESSOR arm)
set(PMT_TRIPLET arm-linux-gnueabihf)
set(PMT_DEB_ARCH armhf)
set(PMT_QEMU qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)

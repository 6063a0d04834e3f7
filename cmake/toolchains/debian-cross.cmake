# Shared by the cross toolchain files of this folder: Debian's cross compiler for PMT_TRIPLET,
# the target's libraries from the sysroot that `scripts/install-deps.sh --arch PMT_DEB_ARCH`
# unpacks (PMT_SYSROOT in the environment, else ~/.cache/pocketmt/sysroot-<arch>), and the
# programs it builds (ctest, help2man) run under qemu-user with that sysroot as the root of the
# target's files. docs/arm.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${PMT_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${PMT_TRIPLET}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${PMT_TRIPLET})

if(DEFINED ENV{PMT_SYSROOT})
  set(PMT_SYSROOT $ENV{PMT_SYSROOT})
else()
  set(PMT_SYSROOT $ENV{HOME}/.cache/pocketmt/sysroot-${PMT_DEB_ARCH})
endif()
if(NOT EXISTS ${PMT_SYSROOT}/usr/include/xnnpack.h)
  message(FATAL_ERROR "no ${PMT_DEB_ARCH} sysroot in ${PMT_SYSROOT}: run scripts/install-deps.sh --arch ${PMT_DEB_ARCH}")
endif()

# Libraries, headers and CMake packages come from the sysroot only; programs (flatc) from here.
# The compiler keeps its own C library (/usr/${PMT_TRIPLET}), so this is no --sysroot.
set(CMAKE_FIND_ROOT_PATH ${PMT_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} ${PMT_SYSROOT}/usr/lib/${PMT_TRIPLET}/pkgconfig:${PMT_SYSROOT}/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${PMT_SYSROOT})
# The sysroot's libraries need others of the sysroot (libXNNPACK.so needs libcpuinfo.so.0).
set(PMT_RPATH_LINK "-Wl,-rpath-link,${PMT_SYSROOT}/usr/lib/${PMT_TRIPLET}:${PMT_SYSROOT}/lib/${PMT_TRIPLET}")
set(CMAKE_EXE_LINKER_FLAGS_INIT ${PMT_RPATH_LINK})
set(CMAKE_SHARED_LINKER_FLAGS_INIT ${PMT_RPATH_LINK})
set(CMAKE_MODULE_LINKER_FLAGS_INIT ${PMT_RPATH_LINK})

# -L: the target's dynamic loader and every library it opens are looked up in the sysroot first.
set(CMAKE_CROSSCOMPILING_EMULATOR ${PMT_QEMU} -L ${PMT_SYSROOT})

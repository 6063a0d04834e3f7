# Every dependency comes from a Debian bookworm package (scripts/install-deps.sh installs them).

# XNNPACK (libxnnpack-dev, Feb 2022 snapshot) ships no CMake or pkg-config file.
find_path(XNNPACK_INCLUDE_DIR xnnpack.h REQUIRED)
find_library(XNNPACK_LIBRARY XNNPACK REQUIRED)
find_path(PTHREADPOOL_INCLUDE_DIR pthreadpool.h REQUIRED)
find_library(PTHREADPOOL_LIBRARY pthreadpool REQUIRED)
add_library(pmt_xnnpack INTERFACE)
target_include_directories(pmt_xnnpack SYSTEM INTERFACE ${XNNPACK_INCLUDE_DIR} ${PTHREADPOOL_INCLUDE_DIR})
target_link_libraries(pmt_xnnpack INTERFACE ${XNNPACK_LIBRARY} ${PTHREADPOOL_LIBRARY} Threads::Threads)

# FlatBuffers: runtime headers + flatc (flatbuffers-compiler) for the schema.
find_package(FlatBuffers REQUIRED CONFIG)
find_program(FLATC_EXECUTABLE flatc REQUIRED)

# zlib (zlib1g-dev): the model file stores the SentencePiece model deflated.
find_package(ZLIB REQUIRED)

# SentencePiece (libsentencepiece-dev): vocabulary training and encoding in the converter, and the
# reference of the runtime's own tokenizer in tests/tokenizer.
pkg_check_modules(SENTENCEPIECE REQUIRED IMPORTED_TARGET sentencepiece)
find_library(SENTENCEPIECE_TRAIN_LIBRARY sentencepiece_train REQUIRED)

if(PMT_BUILD_CONVERTER)
  # OpenBLAS (libopenblas-dev, pthread flavour) for the trainer's GEMMs. Linked directly rather
  # than through the libblas alternative so the tuned kernels are used whatever the alternative is.
  find_path(OPENBLAS_INCLUDE_DIR cblas.h
    PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-pthread NO_DEFAULT_PATH)
  find_library(OPENBLAS_LIBRARY openblas
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-pthread NO_DEFAULT_PATH)
  if(NOT OPENBLAS_INCLUDE_DIR OR NOT OPENBLAS_LIBRARY)
    find_path(OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas REQUIRED)
    find_library(OPENBLAS_LIBRARY openblas REQUIRED)
  endif()
  add_library(pmt_blas INTERFACE)
  target_include_directories(pmt_blas SYSTEM INTERFACE ${OPENBLAS_INCLUDE_DIR})
  target_link_libraries(pmt_blas INTERFACE ${OPENBLAS_LIBRARY})
endif()

if(PMT_BUILD_TESTS)
  find_package(doctest REQUIRED CONFIG)
endif()
if(PMT_BUILD_BENCH)
  find_package(benchmark REQUIRED CONFIG)
endif()

# nlohmann-json (nlohmann-json3-dev): every JSON the project reads or writes (safetensors
# headers, inspect --json, pmt-bench -o json).
if(PMT_BUILD_CONVERTER OR PMT_BUILD_BENCH OR PMT_BUILD_TESTS)
  find_package(nlohmann_json 3.10 REQUIRED CONFIG)
endif()

# CLI11 (libcli11-dev, header-only): the command line of every tool (tools/cli/pmt_cli.h).
find_package(CLI11 2.1 REQUIRED CONFIG)

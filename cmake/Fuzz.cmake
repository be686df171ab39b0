# IASHIM_FUZZ=ON: the libFuzzer targets of tests/fuzz/ (build them with
# `--target fuzz_all`; scripts/setup.sh --fuzz does). Every library is built
# with libFuzzer's coverage instrumentation and ASan+UBSan; only the targets
# link libFuzzer's main. Clang only: GCC has no libFuzzer.
option(IASHIM_FUZZ "Build the libFuzzer targets in tests/fuzz (clang only)" OFF)
if(IASHIM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR
      "IASHIM_FUZZ=ON needs clang for libFuzzer, but the compilers are "
      "${CMAKE_C_COMPILER_ID} (${CMAKE_C_COMPILER}) and ${CMAKE_CXX_COMPILER_ID} "
      "(${CMAKE_CXX_COMPILER}). Configure a fresh build directory with "
      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ (scripts/setup.sh --fuzz does).")
  endif()
  if(NOT IASHIM_SANITIZE STREQUAL "")
    message(FATAL_ERROR
      "IASHIM_FUZZ=ON brings its own ASan+UBSan; leave IASHIM_SANITIZE empty (got '${IASHIM_SANITIZE}')")
  endif()
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
  check_cxx_source_compiles([[
    #include <cstddef>
    #include <cstdint>
    extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
  ]] IASHIM_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(NOT IASHIM_HAVE_LIBFUZZER)
    message(FATAL_ERROR
      "IASHIM_FUZZ=ON: ${CMAKE_CXX_COMPILER} cannot link -fsanitize=fuzzer. Install the package "
      "holding libclang_rt.fuzzer-x86_64.a for this clang (Debian 12: libclang-rt-14-dev; "
      "scripts/setup.sh --fuzz installs it).")
  endif()
  # -g1: line tables for findings' stack traces; full debug info only slows the CI build.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                      -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g1)
  add_link_options(-fsanitize=address,undefined)
endif()

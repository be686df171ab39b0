# IASHIM_FUZZ=ON: the libFuzzer targets of tests/fuzz/ (build them with
# `--target fuzz_all`), in the ASan+UBSan tree (IASHIM_SANITIZE=address), so
# one clang build serves both the sanitized tests and the fuzzers
# (scripts/setup.sh --sanitize address builds both). Everything is compiled
# with libFuzzer's coverage instrumentation; only the targets link libFuzzer's
# main. Clang only: GCC has no libFuzzer.
option(IASHIM_FUZZ "Build the libFuzzer targets in tests/fuzz (clang only)" OFF)
if(IASHIM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR
      "IASHIM_FUZZ=ON needs clang for libFuzzer, but the compilers are "
      "${CMAKE_C_COMPILER_ID} (${CMAKE_C_COMPILER}) and ${CMAKE_CXX_COMPILER_ID} "
      "(${CMAKE_CXX_COMPILER}). Configure a fresh build directory with "
      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ (scripts/setup.sh --sanitize address does).")
  endif()
  if(NOT IASHIM_SANITIZE STREQUAL "address")
    message(FATAL_ERROR
      "IASHIM_FUZZ=ON runs the fuzzers under ASan+UBSan: add -DIASHIM_SANITIZE=address "
      "(got '${IASHIM_SANITIZE}')")
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
      "scripts/setup.sh --sanitize address installs it).")
  endif()
  # ASan+UBSan and -g1 come from cmake/Sanitizers.cmake.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

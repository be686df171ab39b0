// How the fuzz targets turn libFuzzer's bytes into a parser's input: text, an
// argv, two files, a scratch directory. Shared by every target here.
#ifndef IASHIM_TESTS_FUZZ_FUZZ_INPUT_H_
#define IASHIM_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace iashim::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

inline std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// The input as an argv (without the program name): words separated by NUL,
// the one byte a real argv cannot contain. Empty input: no arguments.
std::vector<std::string> SplitArgs(const uint8_t* data, size_t size);

// Two inputs in one (e.g. a snapshot and a journal): a 2-byte little-endian
// length of the first, clamped to what is there, then the first, then the
// second. Inverse: JoinTwo (the seed generator writes seeds with it).
std::pair<std::string_view, std::string_view> SplitTwo(const uint8_t* data, size_t size);
std::string JoinTwo(std::string_view first, std::string_view second);

// A private directory under $TMPDIR (else /tmp), made on first use and
// removed with its files at exit: the only place a target writes files.
const std::string& ScratchDir();
// Writes `contents` to ScratchDir()/name; aborts if it cannot (a broken
// harness must not look like a parser that accepts nothing).
std::string WriteScratchFile(std::string_view name, std::string_view contents);

// Ends the run as a finding: libFuzzer keeps the input as a crash artifact.
[[noreturn]] void Fail(const char* what);

}  // namespace iashim::fuzz

#endif  // IASHIM_TESTS_FUZZ_FUZZ_INPUT_H_

#include "tests/fuzz/fuzz_input.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace iashim::fuzz {

std::vector<std::string> SplitArgs(const uint8_t* data, size_t size) {
  std::vector<std::string> args;
  if (size == 0) return args;
  std::string_view rest = AsText(data, size);
  while (true) {
    const size_t nul = rest.find('\0');
    args.emplace_back(rest.substr(0, nul));
    if (nul == std::string_view::npos) break;
    rest.remove_prefix(nul + 1);
  }
  return args;
}

std::pair<std::string_view, std::string_view> SplitTwo(const uint8_t* data, size_t size) {
  if (size < 2) return {{}, AsText(data, size)};
  const std::string_view rest = AsText(data + 2, size - 2);
  const size_t first = std::min<size_t>(data[0] | (size_t{data[1]} << 8), rest.size());
  return {rest.substr(0, first), rest.substr(first)};
}

std::string JoinTwo(std::string_view first, std::string_view second) {
  if (first.size() > 0xffff) Fail("JoinTwo: first part over 65535 bytes");
  std::string out;
  out.push_back(static_cast<char>(first.size() & 0xff));
  out.push_back(static_cast<char>(first.size() >> 8));
  out.append(first);
  out.append(second);
  return out;
}

namespace {

struct Scratch {
  Scratch() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                          "/iashim-fuzz-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) Fail("cannot create a scratch directory");
    path = pattern;
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string path;
};

}  // namespace

const std::string& ScratchDir() {
  static Scratch scratch;
  return scratch.path;
}

std::string WriteScratchFile(std::string_view name, std::string_view contents) {
  const std::string path = ScratchDir() + "/" + std::string(name);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) Fail("cannot create a scratch file");
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n <= 0) Fail("cannot write a scratch file");
    done += static_cast<size_t>(n);
  }
  close(fd);
  return path;
}

void Fail(const char* what) {
  std::fprintf(stderr, "fuzz target check failed: %s\n", what);
  std::abort();
}

}  // namespace iashim::fuzz

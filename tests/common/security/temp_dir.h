// A private temporary directory for one test, removed with what it holds.
#ifndef IASHIM_TESTS_COORDINATOR_SECURITY_TEMP_DIR_H_
#define IASHIM_TESTS_COORDINATOR_SECURITY_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace iashim::security {

class TempDir {
 public:
  TempDir() {
    std::string pattern = std::filesystem::temp_directory_path() / "iashim-keys-XXXXXX";
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

  // Writes `text` to NAME in the directory with `mode`; returns the path.
  std::string Write(const std::string& name, const std::string& text,
                    std::filesystem::perms mode) const {
    const std::string file = path_ + "/" + name;
    std::ofstream(file) << text;
    std::filesystem::permissions(file, mode);
    return file;
  }

 private:
  std::string path_;
};

}  // namespace iashim::security

#endif  // IASHIM_TESTS_COORDINATOR_SECURITY_TEMP_DIR_H_

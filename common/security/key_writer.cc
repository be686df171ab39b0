#include "common/security/key_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace iashim::security {
namespace {

std::string Failure(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// mkdir -p, each missing directory private: it will hold a secret key.
bool MakeDirectories(const std::string& dir, std::string* error) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return true;
    *error = dir + " exists and is not a directory";
    return false;
  }
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0 &&
      !MakeDirectories(dir.substr(0, slash), error)) {
    return false;
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *error = Failure("cannot create the directory", dir);
    return false;
  }
  return true;
}

// Writes `text` beside `path`, then links it into place (fails if `path`
// exists) or renames it over `path` (replace).
bool WriteFile(const std::string& path, const std::string& text, mode_t mode, bool replace,
               std::string* error) {
  const std::string aside = path + ".tmp." + std::to_string(getpid());
  const int fd = open(aside.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) {
    *error = Failure("cannot create", aside);
    return false;
  }
  // The umask may only take bits away; make the mode exactly what we say.
  bool ok = fchmod(fd, mode) == 0 &&
            write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
            fsync(fd) == 0;
  if (!ok) *error = Failure("cannot write", aside);
  if (close(fd) != 0 && ok) {
    *error = Failure("cannot write", aside);
    ok = false;
  }
  if (ok) {
    if (replace) {
      ok = rename(aside.c_str(), path.c_str()) == 0;
    } else {
      ok = link(aside.c_str(), path.c_str()) == 0;
    }
    if (!ok) {
      *error = errno == EEXIST ? path + " already exists (pass --force to replace it)"
                               : Failure("cannot write", path);
    }
  }
  unlink(aside.c_str());  // after a rename there is nothing left to remove
  return ok;
}

}  // namespace

bool WriteKeyPair(const std::string& dir, const std::string& name, const KeyPair& pair,
                  bool replace, WrittenKeyPair* written, std::string* error) {
  if (!MakeDirectories(dir, error)) return false;
  written->public_path = dir + "/" + name;
  written->secret_path = dir + "/" + name + "_secret";
  if (!replace) {
    // Both checked before either is written, so a refusal leaves no half pair.
    for (const std::string& path : {written->public_path, written->secret_path}) {
      struct stat st;
      if (lstat(path.c_str(), &st) == 0) {
        *error = path + " already exists (pass --force to replace it)";
        return false;
      }
    }
  }
  return WriteFile(written->secret_path, pair.secret_key + "\n", 0600, replace, error) &&
         WriteFile(written->public_path, pair.public_key + "\n", 0644, replace, error);
}

}  // namespace iashim::security

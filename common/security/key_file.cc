#include "common/security/key_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/security/z85_key.h"

namespace iashim::security {
namespace {

// A key file is 41 bytes; anything much larger is not one.
constexpr size_t kMaxKeyFileBytes = 256;

std::string Octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

bool ReadKeyFile(const std::string& path, bool secret, std::string* key, std::string* error) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    *error = "cannot read the key file " + path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st;
  std::string text;
  bool ok = fstat(fd, &st) == 0;
  if (!ok) {
    *error = "cannot stat the key file " + path + ": " + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    *error = "the key file " + path + " is not a regular file";
    ok = false;
  } else if (secret && (st.st_mode & 077) != 0) {
    // Checked on the open file, so a swap between check and read is moot.
    *error = "the secret key file " + path + " may be read or changed by others (mode " +
             Octal(st.st_mode) + "); it must be private to its owner: chmod 600 " + path;
    ok = false;
  } else {
    char buffer[kMaxKeyFileBytes + 1];
    size_t size = 0;
    while (size < sizeof buffer) {
      const ssize_t n = read(fd, buffer + size, sizeof buffer - size);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        *error = "cannot read the key file " + path + ": " + std::strerror(errno);
        ok = false;
        break;
      }
      if (n == 0) break;
      size += static_cast<size_t>(n);
    }
    if (ok && size > kMaxKeyFileBytes) {
      *error = "the key file " + path + " is larger than a key file (" +
               std::to_string(kMaxKeyFileBytes) + " bytes at most)";
      ok = false;
    }
    text.assign(buffer, ok ? size : 0);
  }
  close(fd);
  if (!ok) return false;
  // One key on one line; the newline (LF or CRLF) is optional.
  if (text.ends_with("\n")) text.pop_back();
  if (text.ends_with("\r")) text.pop_back();
  std::string why;
  if (!ValidZ85Key(text, &why)) {
    *error = "the key file " + path + " does not hold one Z85 key: it " + why +
             " (make one with `iashim keygen`)";
    return false;
  }
  *key = std::move(text);
  return true;
}

}  // namespace

bool ReadPublicKeyFile(const std::string& path, std::string* key, std::string* error) {
  return ReadKeyFile(path, false, key, error);
}

bool ReadSecretKeyFile(const std::string& path, std::string* key, std::string* error) {
  return ReadKeyFile(path, true, key, error);
}

bool ResolvePublicKey(const std::string& value, std::string* key, std::string* error) {
  // A path can be 40 Z85 characters too ("/tmp/tmp.AbCdEfGhIj/keys/coordinator.key"):
  // an existing file wins.
  struct stat st;
  if (!value.empty() && stat(value.c_str(), &st) == 0) return ReadPublicKeyFile(value, key, error);
  std::string why;
  if (ValidZ85Key(value, &why)) {
    *key = value;
    return true;
  }
  if (value.empty()) {
    *error = "no key given (give its 40 Z85 characters or the path of its .key file)";
    return false;
  }
  return ReadPublicKeyFile(value, key, error);
}

}  // namespace iashim::security

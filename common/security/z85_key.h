// A CurveZMQ key as people handle it: 40 characters of Z85 (ZeroMQ's base-85
// text form of the 32-byte key), the form `iashim keygen` writes and every
// option and variable takes.
#ifndef IASHIM_COORDINATOR_SECURITY_Z85_KEY_H_
#define IASHIM_COORDINATOR_SECURITY_Z85_KEY_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace iashim::security {

inline constexpr size_t kZ85KeyLength = 40;

// True when `text` is exactly a 40-character Z85 key that decodes to 32
// bytes. Otherwise false, with `*why` saying what is wrong ("has 39
// characters, a key has 40", "character 7 ('~') is not Z85").
bool ValidZ85Key(std::string_view text, std::string* why);

}  // namespace iashim::security

#endif  // IASHIM_COORDINATOR_SECURITY_Z85_KEY_H_

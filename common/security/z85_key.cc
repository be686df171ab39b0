#include "common/security/z85_key.h"

#include <cstdint>

namespace iashim::security {
namespace {

constexpr std::string_view kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

std::string Shown(char c) {
  if (c >= 0x21 && c <= 0x7e) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  const auto u = static_cast<unsigned char>(c);
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

}  // namespace

bool ValidZ85Key(std::string_view text, std::string* why) {
  if (text.size() != kZ85KeyLength) {
    *why = "has " + std::to_string(text.size()) + " characters, a key has " +
           std::to_string(kZ85KeyLength);
    return false;
  }
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t value = 0;
    for (size_t j = i; j < i + 5; ++j) {
      const size_t digit = kZ85Alphabet.find(text[j]);
      if (digit == std::string_view::npos) {
        *why = "character " + std::to_string(j + 1) + " (" + Shown(text[j]) + ") is not Z85";
        return false;
      }
      value = value * 85 + digit;
    }
    // Five Z85 digits reach past 2^32; such a group decodes to no 4 bytes.
    if (value > UINT32_MAX) {
      *why = "characters " + std::to_string(i + 1) + "-" + std::to_string(i + 5) +
             " are Z85 but encode no 4 bytes (not a key)";
      return false;
    }
  }
  return true;
}

}  // namespace iashim::security

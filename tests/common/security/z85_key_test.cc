#include "common/security/z85_key.h"

#include <gtest/gtest.h>

namespace iashim::security {
namespace {

// The CurveZMQ RFC's example server public key.
constexpr char kKey[] = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";

TEST(Z85Key, AcceptsAKey) {
  std::string why;
  EXPECT_TRUE(ValidZ85Key(kKey, &why)) << why;
}

TEST(Z85Key, RejectsTheWrongLength) {
  std::string why;
  EXPECT_FALSE(ValidZ85Key(std::string(kKey).substr(0, 39), &why));
  EXPECT_EQ(why, "has 39 characters, a key has 40");
  EXPECT_FALSE(ValidZ85Key(std::string(kKey) + "\n", &why));
  EXPECT_EQ(why, "has 41 characters, a key has 40");
  EXPECT_FALSE(ValidZ85Key("", &why));
}

TEST(Z85Key, NamesACharacterOutsideTheAlphabet) {
  std::string key = kKey;
  key[6] = '~';
  std::string why;
  EXPECT_FALSE(ValidZ85Key(key, &why));
  EXPECT_EQ(why, "character 7 ('~') is not Z85");
  key[6] = '\t';
  EXPECT_FALSE(ValidZ85Key(key, &why));
  EXPECT_EQ(why, "character 7 (byte 0x09) is not Z85");
}

TEST(Z85Key, RejectsAGroupBeyondFourBytes) {
  // "#####" is 85^5 - 1, past 2^32 - 1.
  const std::string key = "#####" + std::string(kKey).substr(5);
  std::string why;
  EXPECT_FALSE(ValidZ85Key(key, &why));
  EXPECT_EQ(why, "characters 1-5 are Z85 but encode no 4 bytes (not a key)");
}

}  // namespace
}  // namespace iashim::security

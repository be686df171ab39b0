#include "coordinator/state/crc32c.h"

#include <string>

#include "gtest/gtest.h"

namespace iashim::state {
namespace {

// Check values from RFC 3720 (iSCSI), appendix B.4, and the common "123456789".
TEST(Crc32cTest, MatchesPublishedCheckValues) {
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xFF')), 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(Crc32c(ascending), 0x46DD794Eu);
}

TEST(Crc32cTest, ContinuesAcrossPieces) {
  const std::string data = "the quick brown fox jumps over the lazy dog";
  for (size_t cut = 0; cut <= data.size(); ++cut) {
    EXPECT_EQ(Crc32c(data.substr(cut), Crc32c(data.substr(0, cut))), Crc32c(data)) << cut;
  }
}

}  // namespace
}  // namespace iashim::state

#include "coordinator/top/legend.h"

#include <string>

#include "coordinator/top/options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace iashim::top {
namespace {

using ::testing::HasSubstr;

std::string Legend() {
  std::string all;
  for (const std::string& l : LegendLines()) all += l + "\n";
  return all;
}

TEST(Legend, FitsAnEightyColumnScreen) {
  for (const std::string& l : LegendLines()) {
    EXPECT_LE(l.size(), 78u) << l;
    for (char c : l) ASSERT_TRUE(c >= 0x20 && c < 0x7f) << l;
  }
}

TEST(Legend, ExplainsEveryColumnAndMark) {
  const std::string legend = Legend();
  for (const char* word :
       {"PRIO",   "STATE",   "SHARE", "KERN/S",    "BUSY%",  "SLOWDN",  "MEM",
        "BUDGET", "COMMAND", "!",     "~",         "^ v",    "DRAINED", "stale",
        "bad N",  "seq N",   "conn",  "disc",      "placed", "guar",    "opp",
        "g+g",    "J/IT",    "N W",   "NODE LOST", "lost",   "RUN",     "reserved"}) {
    EXPECT_THAT(legend, HasSubstr(word)) << word;
  }
  // BUSY% says what its figures add up to.
  EXPECT_THAT(legend, HasSubstr("add up to the GPU's busy %"));
}

TEST(Legend, HelpCarriesItAndTheKey) {
  const std::string usage = Usage();
  EXPECT_THAT(usage, HasSubstr(Legend()));
  EXPECT_THAT(usage, HasSubstr("? (or h) this legend on screen"));
}

}  // namespace
}  // namespace iashim::top

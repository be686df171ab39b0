#include "coordinator/top/format.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace iashim::top {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint64_t kKiB = 1024;
constexpr uint64_t kGiB = kKiB * kKiB * kKiB;

TEST(FormatAge, PicksOneUnitAndStaysShort) {
  EXPECT_EQ(FormatAge(0), "0.0s");
  EXPECT_EQ(FormatAge(1.23), "1.2s");
  EXPECT_EQ(FormatAge(9.94), "9.9s");
  EXPECT_EQ(FormatAge(9.96), "10s");
  EXPECT_EQ(FormatAge(42.4), "42s");
  EXPECT_EQ(FormatAge(59.6), "1m");  // not "60s" nor "0m"
  EXPECT_EQ(FormatAge(125), "2m");
  EXPECT_EQ(FormatAge(3 * 3600 + 5), "3h");
  EXPECT_EQ(FormatAge(2 * 86400 + 5), "2d");
  EXPECT_EQ(FormatAge(1e12), ">99d");
  for (double s : {0.0, 9.99, 59.4, 3599.0, 86399.0, 1e7, 1e12}) {
    EXPECT_LE(FormatAge(s).size(), 5u) << s;
  }
}

TEST(FormatAge, UnknownIsADash) {
  EXPECT_EQ(FormatAge(-1), "-");
  EXPECT_EQ(FormatAge(kNaN), "-");
  EXPECT_EQ(FormatAge(kInf), "-");
}

TEST(FormatUptime, TwoUnits) {
  EXPECT_EQ(FormatUptime(45.9), "45s");
  EXPECT_EQ(FormatUptime(12 * 60 + 5), "12m05s");
  EXPECT_EQ(FormatUptime(3 * 3600 + 7 * 60 + 59), "3h07m");
  EXPECT_EQ(FormatUptime(2 * 86400 + 4 * 3600), "2d04h");
  EXPECT_EQ(FormatUptime(-3), "-");
  EXPECT_EQ(FormatUptime(kNaN), "-");
  EXPECT_EQ(FormatUptime(1e300), ">30y");
}

TEST(FormatBytes, BinaryUnits) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(12 * kGiB), "12.0 GiB");
  EXPECT_EQ(FormatBytes(kGiB - 1), "1.0 GiB");  // not "1024.0 MiB"
  EXPECT_EQ(FormatBytes(UINT64_MAX), "16.0 EiB");
}

TEST(FormatBytesPair, SharesTheUnitOfTheLarger) {
  EXPECT_EQ(FormatBytesPair(12 * kGiB, 32 * kGiB), "12.0/32.0 GiB");
  EXPECT_EQ(FormatBytesPair(kGiB / 2, 32 * kGiB), "0.5/32.0 GiB");
  EXPECT_EQ(FormatBytesPair(0, 0), "0/0 B");
  EXPECT_EQ(FormatBytesPair(40 * kGiB, 32 * kGiB), "40.0/32.0 GiB");
}

TEST(FormatMemCompact, FitsTenCharacters) {
  EXPECT_EQ(FormatMemCompact(12 * kGiB, 32 * kGiB), "12.0/32.0G");
  EXPECT_EQ(FormatMemCompact(512 * kKiB * kKiB, 1000 * kKiB * kKiB), "512/1000M");
  EXPECT_EQ(FormatMemCompact(3 * kGiB / 2, 0), "1.5G/-");
  EXPECT_EQ(FormatMemCompact(0, 0), "0B/-");
  EXPECT_EQ(FormatMemCompact(100, 1000), "100/1000B");
  for (uint64_t used : {uint64_t{0}, 999 * kGiB, 1023 * kGiB, UINT64_MAX / 2}) {
    for (uint64_t quota : {uint64_t{0}, 1023 * kGiB, UINT64_MAX}) {
      EXPECT_LE(FormatMemCompact(used, quota).size(), 10u) << used << " " << quota;
    }
  }
}

TEST(FormatPercent, OneDecimalClamped) {
  EXPECT_EQ(FormatPercent(0.453), "45.3");
  EXPECT_EQ(FormatPercent(1.0), "100.0");
  EXPECT_EQ(FormatPercent(50), "999.9");
  EXPECT_EQ(FormatPercent(-0.5), "-");
  EXPECT_EQ(FormatPercent(kNaN), "-");
}

TEST(FormatRate, SiSuffixesWithinSixCharacters) {
  EXPECT_EQ(FormatRate(0.5), "0.5");
  EXPECT_EQ(FormatRate(850), "850");
  EXPECT_EQ(FormatRate(9999.4), "9999");
  EXPECT_EQ(FormatRate(12345), "12.3k");
  EXPECT_EQ(FormatRate(4.1e6), "4.1M");
  EXPECT_EQ(FormatRate(2e9), "2.0G");
  EXPECT_EQ(FormatRate(1e15), ">999G");
  EXPECT_EQ(FormatRate(-1), "-");
  for (double r : {9.96, 9999.6, 999949.0, 999960.0, 999.96e6, 999.9e9}) {
    EXPECT_LE(FormatRate(r).size(), 6u) << r;
  }
}

TEST(FormatShare, TwoDecimals) {
  EXPECT_EQ(FormatShare(0.5), "0.50");
  EXPECT_EQ(FormatShare(1), "1.00");
  EXPECT_EQ(FormatShare(kNaN), "-");
  EXPECT_EQ(FormatShare(1e9), "9.99");
}

TEST(FormatSlowdown, PercentOverSoloOrDash) {
  EXPECT_EQ(FormatSlowdown(0.12), "+12%");
  EXPECT_EQ(FormatSlowdown(0), "+0%");
  EXPECT_EQ(FormatSlowdown(3.5), "+350%");
  EXPECT_EQ(FormatSlowdown(-1), "-");
  EXPECT_EQ(FormatSlowdown(-0.01), "-");
  EXPECT_EQ(FormatSlowdown(kNaN), "-");
  EXPECT_EQ(FormatSlowdown(1000), ">9999%");
}

TEST(Truncate, MarksTheCut) {
  EXPECT_EQ(Truncate("resnet50", 8), "resnet50");
  EXPECT_EQ(Truncate("resnet50-long", 8), "resnet5~");
  EXPECT_EQ(Truncate("abc", 1), "~");
  EXPECT_EQ(Truncate("abc", 0), "");
}

TEST(Printable, ReplacesControlAndNonAscii) {
  EXPECT_EQ(Printable("plain job-1"), "plain job-1");
  EXPECT_EQ(Printable("a\x1b[2Jb"), "a?[2Jb");
  EXPECT_EQ(Printable("tab\there\n"), "tab?here?");
  EXPECT_EQ(Printable("caf\xc3\xa9!"), "caf?!");           // one "?" per UTF-8 character
  EXPECT_EQ(Printable("\xe2\x82\xac\xe2\x82\xac"), "??");  // two euro signs
  EXPECT_EQ(Printable("x\x80y"), "x?y");                   // a stray continuation byte
  EXPECT_EQ(Printable(std::string_view("a\0b", 3)), "a?b");
}

TEST(ShortCommand, TheProgramsBaseNameAndItsArguments) {
  EXPECT_EQ(ShortCommand("/work/build/bench/iashim-fakejob --model resnet50 --seconds 40"),
            "iashim-fakejob --model resnet50 --seconds 40");
  EXPECT_EQ(ShortCommand("python train.py --data /data/x"), "python train.py --data /data/x");
  EXPECT_EQ(ShortCommand("/usr/bin/python3"), "python3");
  EXPECT_EQ(ShortCommand("  ./run.sh a"), "run.sh a");
  EXPECT_EQ(ShortCommand("/dir/ x"), "/dir/ x");  // no base name: kept as it is
  EXPECT_EQ(ShortCommand(""), "");
  EXPECT_EQ(ShortCommand("   "), "");
}

}  // namespace
}  // namespace iashim::top

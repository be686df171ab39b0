#include "common/text/text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace iashim {
namespace {

TEST(Trim, SpacesTabsAndNewlines) {
  EXPECT_EQ(Trim("  a b \t\n"), "a b");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim(" \t "), "");
  EXPECT_EQ(Trim("x"), "x");
}

TEST(EqualsIgnoreCase, AsciiOnly) {
  EXPECT_TRUE(EqualsIgnoreCase("GiB", "gib"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("GiB", "GiBs"));
  EXPECT_FALSE(EqualsIgnoreCase("GiB", "MiB"));
}

TEST(ParseInt, WithinBounds) {
  EXPECT_EQ(ParseInt("42", 0, 100), 42);
  EXPECT_EQ(ParseInt(" 42\t", 0, 100), 42);  // surrounding space is trimmed
  EXPECT_EQ(ParseInt("0", 0, 100), 0);
  EXPECT_EQ(ParseInt("100", 0, 100), 100);   // bounds are inclusive
  EXPECT_EQ(ParseInt("-5", -10, 10), -5);
  EXPECT_EQ(ParseInt("007", 0, 10), 7);
}

TEST(ParseInt, OutsideBounds) {
  EXPECT_FALSE(ParseInt("-1", 0, 100));
  EXPECT_FALSE(ParseInt("101", 0, 100));
  EXPECT_FALSE(ParseInt("-11", -10, 10));
}

TEST(ParseInt, FullRangeAndOverflow) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(ParseInt("9223372036854775807", kMin, kMax), kMax);
  EXPECT_EQ(ParseInt("-9223372036854775808", kMin, kMax), kMin);
  EXPECT_FALSE(ParseInt("9223372036854775808", kMin, kMax));
  EXPECT_FALSE(ParseInt("-9223372036854775809", kMin, kMax));
  EXPECT_FALSE(ParseInt("99999999999999999999999", kMin, kMax));
}

TEST(ParseInt, Garbage) {
  for (const char* bad : {"", "   ", "abc", "12abc", "abc12", "1.5", "1e3", "+5", "0x10", "1 2",
                          "--1", "-", "١٢"}) {
    EXPECT_FALSE(ParseInt(bad, -1000, 1000)) << "'" << bad << "'";
  }
}

TEST(ParseByteSize, PlainBytes) {
  EXPECT_EQ(ParseByteSize("0"), 0u);
  EXPECT_EQ(ParseByteSize("1048576"), 1048576u);
  EXPECT_EQ(ParseByteSize("12B"), 12u);
  EXPECT_EQ(ParseByteSize(" 12 b "), 12u);
  EXPECT_EQ(ParseByteSize("18446744073709551615"), std::numeric_limits<uint64_t>::max());
}

TEST(ParseByteSize, BinaryAndDecimalUnits) {
  EXPECT_EQ(ParseByteSize("1KiB"), 1024u);
  EXPECT_EQ(ParseByteSize("512MiB"), 512ULL << 20);
  EXPECT_EQ(ParseByteSize("8GiB"), 8ULL << 30);
  EXPECT_EQ(ParseByteSize("3TiB"), 3ULL << 40);
  EXPECT_EQ(ParseByteSize("1KB"), 1000u);
  EXPECT_EQ(ParseByteSize("16MB"), 16'000'000u);
  EXPECT_EQ(ParseByteSize("8 GB"), 8'000'000'000u);
  EXPECT_EQ(ParseByteSize("2TB"), 2'000'000'000'000u);
  EXPECT_EQ(ParseByteSize("8gib"), 8ULL << 30);
  EXPECT_EQ(ParseByteSize("8GIB"), 8ULL << 30);
}

TEST(ParseByteSize, Garbage) {
  for (const char* bad : {"", " ", "GiB", "lots", "8 XB", "8G", "8 GiBs", "1.5GiB", "-1", "-1GiB",
                          "+8GiB", "8 8GiB", "0x10", "8GiB!"}) {
    EXPECT_FALSE(ParseByteSize(bad)) << "'" << bad << "'";
  }
}

TEST(ParseByteSize, Overflow) {
  EXPECT_FALSE(ParseByteSize("18446744073709551616"));  // 2^64
  EXPECT_FALSE(ParseByteSize("99999999999999999999999999"));
  EXPECT_FALSE(ParseByteSize("16777216TiB"));  // exactly 2^64
  EXPECT_EQ(ParseByteSize("16777215TiB"), 16777215ULL << 40);
  EXPECT_FALSE(ParseByteSize("18446744073709552KB"));
  EXPECT_EQ(ParseByteSize("18446744073709551KB"), 18446744073709551000ULL);
}

TEST(FormatBytes, SmallValuesInBytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(12), "12 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
}

TEST(FormatBytes, LargerValuesWithOneDecimal) {
  EXPECT_EQ(FormatBytes(1024), "1.0 KiB");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(512ULL << 20), "512.0 MiB");
  EXPECT_EQ(FormatBytes(3ULL << 29), "1.5 GiB");
  EXPECT_EQ(FormatBytes(8ULL << 30), "8.0 GiB");
  EXPECT_EQ(FormatBytes(2ULL << 40), "2.0 TiB");
  // TiB is the largest unit: larger values keep counting in it.
  EXPECT_EQ(FormatBytes(1ULL << 50), "1024.0 TiB");
  EXPECT_EQ(FormatBytes(std::numeric_limits<uint64_t>::max()), "16777216.0 TiB");
}

}  // namespace
}  // namespace iashim

namespace iashim {
namespace {

TEST(Printable, BoundsAndReplacesControlCharacters) {
  EXPECT_EQ(Printable("job\x1b[2J\nx\x7f", 100), "job?[2J?x?");
  EXPECT_EQ(Printable("abcdef", 3), "abc");
  EXPECT_EQ(Printable("", 3), "");
}

}  // namespace
TEST(FormatJoules, FitsSixCharactersAndDashesTheUnknown) {
  EXPECT_EQ(FormatJoules(-1), "-");
  EXPECT_EQ(FormatJoules(std::numeric_limits<double>::quiet_NaN()), "-");
  EXPECT_EQ(FormatJoules(std::numeric_limits<double>::infinity()), "-");
  EXPECT_EQ(FormatJoules(0.854), "0.85");
  EXPECT_EQ(FormatJoules(57.34), "57.3");
  EXPECT_EQ(FormatJoules(5412), "5412");
  EXPECT_EQ(FormatJoules(9999.7), "10.0k");
  EXPECT_EQ(FormatJoules(12345), "12.3k");
  EXPECT_EQ(FormatJoules(4.1e6), "4.1M");
  EXPECT_LE(FormatJoules(1e300).size(), 8u);
}

TEST(FormatUtcTime, IsoToTheMillisecond) {
  EXPECT_EQ(FormatUtcTime(0), "1970-01-01T00:00:00.000Z");
  // 2026-12-07T17:55:03.656789Z: the millisecond is cut, not rounded.
  EXPECT_EQ(FormatUtcTime(int64_t{1'796'666'103} * 1'000'000'000 + 656'789'000),
            "2026-12-07T17:55:03.656Z");
  EXPECT_EQ(FormatUtcTime(-1'000'000), "1969-12-31T23:59:59.999Z");
}

}  // namespace iashim

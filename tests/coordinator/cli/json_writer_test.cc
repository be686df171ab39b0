#include "coordinator/cli/json_writer.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace iashim::cli {
namespace {

TEST(JsonQuote, EscapesWhatJsonRequires) {
  EXPECT_EQ(JsonQuote(""), "\"\"");
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonQuote("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
  EXPECT_EQ(JsonQuote(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(JsonQuote(std::string("a\0b", 3)), "\"a\\u0000b\"");
  // '/' may be left alone.
  EXPECT_EQ(JsonQuote("a/b"), "\"a/b\"");
}

TEST(JsonQuote, KeepsValidUtf8AndReplacesInvalid) {
  EXPECT_EQ(JsonQuote("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(JsonQuote("a\xff"), "\"a" + fffd + "\"");             // not a lead byte
  EXPECT_EQ(JsonQuote("\x80"), "\"" + fffd + "\"");               // stray continuation
  EXPECT_EQ(JsonQuote("x\xe2\x82"), "\"x" + fffd + fffd + "\"");  // cut short (at 256 bytes)
  EXPECT_EQ(JsonQuote("\xc0\xaf"), "\"" + fffd + fffd + "\"");    // overlong '/'
  EXPECT_EQ(JsonQuote("\xed\xa0\x80"), "\"" + fffd + fffd + fffd + "\"");             // surrogate
  EXPECT_EQ(JsonQuote("\xf4\x90\x80\x80"), "\"" + fffd + fffd + fffd + fffd + "\"");  // > U+10FFFF
}

TEST(JsonNumber, ShortestRoundTripAndNullForNonFinite) {
  EXPECT_EQ(JsonNumber(0.1), "0.1");
  EXPECT_EQ(JsonNumber(1.0), "1");
  EXPECT_EQ(JsonNumber(-2.5), "-2.5");
  EXPECT_EQ(JsonNumber(1e-5), "1e-05");
  EXPECT_EQ(JsonNumber(std::nan("")), "null");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity()), "null");
}

TEST(JsonWriter, CompactDocument) {
  JsonWriter w;
  w.BeginObject();
  w.Key("a").Int(-1);
  w.Key("b").BeginArray().Uint(18446744073709551615ULL).Double(0.5).Bool(true).Null().EndArray();
  w.Key("c").BeginObject().EndObject();
  w.Key("d").BeginArray().EndArray();
  w.Key("e\n").String("x\"y");
  w.EndObject();
  EXPECT_EQ(w.str(),
            "{\"a\": -1, \"b\": [18446744073709551615, 0.5, true, null], \"c\": {}, "
            "\"d\": [], \"e\\n\": \"x\\\"y\"}");
}

TEST(JsonWriter, IndentedDocument) {
  JsonWriter w(2);
  w.BeginObject();
  w.Key("list").BeginArray();
  w.BeginObject().Key("k").Bool(false).EndObject();
  w.Int(2);
  w.EndArray();
  w.Key("empty").BeginArray().EndArray();
  w.EndObject();
  EXPECT_EQ(w.str(),
            "{\n"
            "  \"list\": [\n"
            "    {\n"
            "      \"k\": false\n"
            "    },\n"
            "    2\n"
            "  ],\n"
            "  \"empty\": []\n"
            "}");
}

}  // namespace
}  // namespace iashim::cli

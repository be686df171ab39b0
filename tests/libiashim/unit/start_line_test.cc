#include "libiashim/src/start_line.h"

#include <gtest/gtest.h>

namespace iashim {
namespace {

TEST(StartLine, QuotaInUnitsAndTracePathExpanded) {
  Config c;
  c.mem_limit_bytes = uint64_t{8} << 30;
  c.coordinator = "tcp://127.0.0.1:5555";
  c.trace_path = "/tmp/job-%p.trace";
  EXPECT_EQ(StartLine(c, 1234),
            "active in pid 1234 (quota 8.0 GiB, coordinator tcp://127.0.0.1:5555, "
            "trace /tmp/job-1234.trace)");
}

TEST(StartLine, NothingConfiguredSaysNone) {
  EXPECT_EQ(StartLine(Config{}, 7), "active in pid 7 (quota none, coordinator none, trace none)");
}

TEST(StartLine, OddQuotaKeepsOneDecimal) {
  Config c;
  c.mem_limit_bytes = (uint64_t{3} << 29);  // 1.5 GiB
  EXPECT_NE(StartLine(c, 1).find("quota 1.5 GiB,"), std::string::npos);
}

}  // namespace
}  // namespace iashim

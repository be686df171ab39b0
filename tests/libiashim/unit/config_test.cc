#include "common/text/names.h"
#include "libiashim/src/config.h"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace iashim {
namespace {

// A fake environment: only the variables in the map are set.
class FakeEnv {
 public:
  FakeEnv(std::initializer_list<std::pair<const std::string, std::string>> vars) : vars_(vars) {}
  EnvLookup Lookup() const {
    return [this](const char* name) -> const char* {
      auto it = vars_.find(name);
      return it == vars_.end() ? nullptr : it->second.c_str();
    };
  }

 private:
  std::map<std::string, std::string> vars_;
};

Config Parse(const FakeEnv& env, std::vector<std::string>* errors) {
  return ParseConfig(env.Lookup(), errors);
}

// Field-by-field equality, so a failure names the field that differs.
void ExpectSameConfig(const Config& a, const Config& b) {
  EXPECT_EQ(a.disabled, b.disabled);
  EXPECT_EQ(a.mem_limit_bytes, b.mem_limit_bytes);
  EXPECT_EQ(a.coordinator, b.coordinator);
  EXPECT_EQ(a.job, b.job);
  EXPECT_EQ(a.trace_path, b.trace_path);
  EXPECT_EQ(a.window_ms, b.window_ms);
  EXPECT_EQ(a.sample_every, b.sample_every);
  EXPECT_EQ(a.queue_batches, b.queue_batches);
  EXPECT_EQ(a.log_level, b.log_level);
  EXPECT_EQ(a.real_libcuda, b.real_libcuda);
  EXPECT_EQ(a.share, b.share);
  EXPECT_EQ(a.max_inflight, b.max_inflight);
  EXPECT_EQ(a.priority, b.priority);
}

TEST(ParseConfig, EmptyEnvironmentGivesDefaults) {
  std::vector<std::string> errors;
  const Config c = Parse(FakeEnv({}), &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_FALSE(c.disabled);
  EXPECT_EQ(c.mem_limit_bytes, 0u);
  EXPECT_EQ(c.coordinator, "");
  EXPECT_EQ(c.job, "");
  EXPECT_EQ(c.trace_path, "");
  EXPECT_EQ(c.window_ms, 100u);
  EXPECT_EQ(c.sample_every, 64u);
  EXPECT_EQ(c.queue_batches, 64u);
  EXPECT_EQ(c.log_level, LogLevel::kWarn);
  EXPECT_EQ(c.real_libcuda, "libcuda.so.1");
}

TEST(ParseConfig, EveryVariableValid) {
  std::vector<std::string> errors;
  const Config c = Parse(FakeEnv({
                             {"IASHIM_DISABLE", "1"},
                             {"IASHIM_MEM_LIMIT", "8GiB"},
                             {"IASHIM_COORDINATOR", "tcp://coord.local:5555"},
                             {"IASHIM_COORDINATOR_KEY", "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"},
                             {"IASHIM_JOB", "resnet-50_v1.2:a/b@c+d"},
                             {"IASHIM_TRACE", "/tmp/trace-%p.bin"},
                             {"IASHIM_WINDOW_MS", "250"},
                             {"IASHIM_SAMPLE_EVERY", "16"},
                             {"IASHIM_QUEUE_BATCHES", "1000"},
                             {"IASHIM_LOG", "debug"},
                             {"IASHIM_REAL_LIBCUDA", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
                             {"IASHIM_SHARE", "0.25"},
                             {"IASHIM_MAX_INFLIGHT", "8"},
                             {"IASHIM_PRIORITY", "Opportunistic"},
                         }),
                         &errors);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_TRUE(c.disabled);
  EXPECT_EQ(c.mem_limit_bytes, 8ULL << 30);
  EXPECT_EQ(c.coordinator, "tcp://coord.local:5555");
  EXPECT_EQ(c.coordinator_key, "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7");
  EXPECT_EQ(c.job, "resnet-50_v1.2:a/b@c+d");
  EXPECT_EQ(c.trace_path, "/tmp/trace-%p.bin");  // expanded later, per process
  EXPECT_EQ(c.window_ms, 250u);
  EXPECT_EQ(c.sample_every, 16u);
  EXPECT_EQ(c.queue_batches, 1000u);
  EXPECT_EQ(c.log_level, LogLevel::kDebug);
  EXPECT_EQ(c.real_libcuda, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  EXPECT_EQ(c.share, 0.25);
  EXPECT_EQ(c.max_inflight, 8u);
  EXPECT_EQ(c.priority, Priority::kOpportunistic);
}

TEST(ParseConfig, DisableAcceptsBooleanSpellings) {
  for (const char* yes : {"1", "true", "TRUE", "yes", "On", " true "}) {
    std::vector<std::string> errors;
    EXPECT_TRUE(Parse(FakeEnv({{"IASHIM_DISABLE", yes}}), &errors).disabled) << yes;
    EXPECT_TRUE(errors.empty()) << yes;
  }
  // An empty value is "not disabled", as if unset.
  for (const char* no : {"0", "false", "No", "OFF", ""}) {
    std::vector<std::string> errors;
    EXPECT_FALSE(Parse(FakeEnv({{"IASHIM_DISABLE", no}}), &errors).disabled) << no;
    EXPECT_TRUE(errors.empty()) << no;
  }
}

TEST(ParseConfig, ShareFeedbackIsOnUnlessTurnedOff) {
  std::vector<std::string> errors;
  EXPECT_TRUE(Parse(FakeEnv({}), &errors).share_feedback);
  EXPECT_TRUE(Parse(FakeEnv({{"IASHIM_SHARE_FEEDBACK", ""}}), &errors).share_feedback);
  EXPECT_FALSE(Parse(FakeEnv({{"IASHIM_SHARE_FEEDBACK", "off"}}), &errors).share_feedback);
  EXPECT_TRUE(errors.empty());
  const Config c = Parse(FakeEnv({{"IASHIM_SHARE_FEEDBACK", "sometimes"}}), &errors);
  EXPECT_TRUE(c.share_feedback);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("IASHIM_SHARE_FEEDBACK='sometimes'"), std::string::npos) << errors[0];
}

TEST(ParseConfig, CollectivePacingIsOnUnlessTurnedOff) {
  std::vector<std::string> errors;
  EXPECT_TRUE(Parse(FakeEnv({}), &errors).pace_collectives);
  EXPECT_FALSE(Parse(FakeEnv({{"IASHIM_PACE_COLLECTIVES", "0"}}), &errors).pace_collectives);
  EXPECT_TRUE(errors.empty());
  const Config c = Parse(FakeEnv({{"IASHIM_PACE_COLLECTIVES", "late"}}), &errors);
  EXPECT_TRUE(c.pace_collectives);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("IASHIM_PACE_COLLECTIVES='late'"), std::string::npos) << errors[0];
}

TEST(ParseConfig, RankComesFromIashimRankElseRankElseLocalRank) {
  std::vector<std::string> errors;
  EXPECT_EQ(Parse(FakeEnv{}, &errors).rank, -1);
  EXPECT_EQ(Parse(FakeEnv({{"RANK", "3"}, {"LOCAL_RANK", "1"}}), &errors).rank, 3);
  EXPECT_EQ(Parse(FakeEnv({{"LOCAL_RANK", "1"}}), &errors).rank, 1);
  EXPECT_EQ(Parse(FakeEnv({{"IASHIM_RANK", "2"}, {"RANK", "3"}}), &errors).rank, 2);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(Parse(FakeEnv({{"RANK", "first"}}), &errors).rank, -1);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("RANK='first' is not a rank"), std::string::npos) << errors[0];
}

TEST(ParseConfig, MemLimitSizes) {
  struct Case {
    const char* text;
    uint64_t bytes;
  };
  for (const Case& c : {Case{"8GiB", 8ULL << 30}, Case{"512MiB", 512ULL << 20},
                        Case{"1073741824", 1ULL << 30}, Case{"8 GB", 8'000'000'000ULL},
                        Case{"16gb", 16'000'000'000ULL}, Case{" 2TiB ", 2ULL << 40},
                        Case{"0", 0}}) {
    std::vector<std::string> errors;
    EXPECT_EQ(Parse(FakeEnv({{"IASHIM_MEM_LIMIT", c.text}}), &errors).mem_limit_bytes, c.bytes)
        << c.text;
    EXPECT_TRUE(errors.empty()) << c.text;
  }
}

TEST(ParseConfig, LogLevels) {
  struct Case {
    const char* text;
    LogLevel level;
  };
  for (const Case& c : {Case{"warn", LogLevel::kWarn}, Case{"INFO", LogLevel::kInfo},
                        Case{" Debug ", LogLevel::kDebug}}) {
    std::vector<std::string> errors;
    EXPECT_EQ(Parse(FakeEnv({{"IASHIM_LOG", c.text}}), &errors).log_level, c.level) << c.text;
    EXPECT_TRUE(errors.empty()) << c.text;
  }
}

TEST(ParseConfig, IntegerBoundsAreInclusive) {
  std::vector<std::string> errors;
  Config c = Parse(FakeEnv({{"IASHIM_WINDOW_MS", "10"},
                            {"IASHIM_SAMPLE_EVERY", "1"},
                            {"IASHIM_QUEUE_BATCHES", "1"}}),
                   &errors);
  EXPECT_EQ(c.window_ms, 10u);
  EXPECT_EQ(c.sample_every, 1u);
  EXPECT_EQ(c.queue_batches, 1u);
  c = Parse(FakeEnv({{"IASHIM_WINDOW_MS", "60000"},
                     {"IASHIM_SAMPLE_EVERY", "1000000"},
                     {"IASHIM_QUEUE_BATCHES", "100000"}}),
            &errors);
  EXPECT_EQ(c.window_ms, 60000u);
  EXPECT_EQ(c.sample_every, 1000000u);
  EXPECT_EQ(c.queue_batches, 100000u);
  EXPECT_TRUE(errors.empty());
}

// A variable set to the empty string is unset, whatever its type.
TEST(ParseConfig, EmptyStringVariablesAreUnset) {
  std::vector<std::string> errors;
  const Config c = Parse(FakeEnv({{"IASHIM_DISABLE", ""},
                                  {"IASHIM_MEM_LIMIT", ""},
                                  {"IASHIM_WINDOW_MS", ""},
                                  {"IASHIM_SAMPLE_EVERY", ""},
                                  {"IASHIM_QUEUE_BATCHES", ""},
                                  {"IASHIM_COORDINATOR", ""},
                                  {"IASHIM_JOB", ""},
                                  {"IASHIM_TRACE", ""},
                                  {"IASHIM_LOG", ""},
                                  {"IASHIM_REAL_LIBCUDA", ""}}),
                         &errors);
  EXPECT_TRUE(errors.empty());
  ExpectSameConfig(c, Config{});
}

struct BadValue {
  const char* name;
  std::string value;
};

// Readable test output: the variable and the start of the value.
void PrintTo(const BadValue& bad, std::ostream* os) {
  *os << bad.name << "='" << bad.value.substr(0, 40) << (bad.value.size() > 40 ? "...'" : "'");
}

class InvalidValueTest : public ::testing::TestWithParam<BadValue> {};

// One bad value: exactly one single-line error naming the variable and the
// value, and the whole config equal to the defaults (the setting falls back).
TEST_P(InvalidValueTest, OneErrorAndDefault) {
  const BadValue& bad = GetParam();
  std::vector<std::string> errors;
  const Config c = Parse(FakeEnv({{bad.name, bad.value}}), &errors);
  ASSERT_EQ(errors.size(), 1u);
  const std::string& e = errors[0];
  EXPECT_NE(e.find(bad.name), std::string::npos) << e;
  // Values are quoted, cut at 200 characters, non-printables shown as '?'.
  std::string shown = bad.value.substr(0, 200);
  for (char& ch : shown) {
    if (!std::isprint(static_cast<unsigned char>(ch))) ch = '?';
  }
  EXPECT_NE(e.find("'" + shown), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << "error must be one line: " << e;
  EXPECT_NE(e.rfind("iashim: ", 0), 0u) << "the caller adds the prefix: " << e;
  ExpectSameConfig(c, Config{});
}

std::vector<BadValue> BadValues() {
  return {
      {"IASHIM_DISABLE", "maybe"},
      {"IASHIM_DISABLE", "2"},
      {"IASHIM_MEM_LIMIT", "lots"},
      {"IASHIM_MEM_LIMIT", "8XB"},
      {"IASHIM_MEM_LIMIT", "1.5GiB"},
      {"IASHIM_MEM_LIMIT", "-1"},
      {"IASHIM_MEM_LIMIT", "GiB"},
      {"IASHIM_MEM_LIMIT", "99999999999999999999"},  // > 2^64
      {"IASHIM_MEM_LIMIT", "16777216TiB"},           // 2^64 exactly
      {"IASHIM_COORDINATOR", "http://host:80"},
      {"IASHIM_COORDINATOR", "tcp://host"},
      {"IASHIM_COORDINATOR", "tcp://host:0"},
      {"IASHIM_COORDINATOR", "tcp://host:65536"},
      {"IASHIM_COORDINATOR", "tcp://host:port"},
      {"IASHIM_COORDINATOR", "tcp://:5555"},
      {"IASHIM_COORDINATOR", "tcp://ho st:5555"},
      {"IASHIM_COORDINATOR", "ipc://"},
      {"IASHIM_JOB", "has space"},
      {"IASHIM_JOB", "semi;colon"},
      {"IASHIM_JOB", std::string(129, 'j')},
      {"IASHIM_JOB", "new\nline"},
      {"IASHIM_TRACE", std::string(4001, 't')},
      {"IASHIM_WINDOW_MS", "9"},
      {"IASHIM_WINDOW_MS", "60001"},
      {"IASHIM_WINDOW_MS", "100ms"},
      {"IASHIM_WINDOW_MS", "1.5"},
      {"IASHIM_WINDOW_MS", "-100"},
      {"IASHIM_WINDOW_MS", " "},
      {"IASHIM_WINDOW_MS", "99999999999999999999"},
      {"IASHIM_SAMPLE_EVERY", "0"},
      {"IASHIM_SAMPLE_EVERY", "1000001"},
      {"IASHIM_SAMPLE_EVERY", "x"},
      {"IASHIM_QUEUE_BATCHES", "0"},
      {"IASHIM_QUEUE_BATCHES", "100001"},
      {"IASHIM_QUEUE_BATCHES", "0x10"},
      {"IASHIM_LOG", "verbose"},
      {"IASHIM_LOG", "2"},
      {"IASHIM_REAL_LIBCUDA", std::string(4001, 'l')},
      {"IASHIM_SHARE", "0"},
      {"IASHIM_SHARE", "1.5"},
      {"IASHIM_SHARE", "50%"},
      {"IASHIM_SHARE", "nan"},
      {"IASHIM_SHARE", "0.0001"},
      {"IASHIM_MAX_INFLIGHT", "-1"},
      {"IASHIM_MAX_INFLIGHT", "65537"},
      {"IASHIM_PRIORITY", "high"},
  };
}

INSTANTIATE_TEST_SUITE_P(AllVariables, InvalidValueTest, ::testing::ValuesIn(BadValues()),
                         [](const ::testing::TestParamInfo<BadValue>& param_info) {
                           std::string name = param_info.param.name;
                           return name.substr(sizeof("IASHIM_") - 1) + "_" +
                                  std::to_string(param_info.index);
                         });

TEST(ParseConfig, IntegerErrorSaysTheRangeAndTheDefaultUsed) {
  std::vector<std::string> errors;
  Parse(FakeEnv({{"IASHIM_WINDOW_MS", "5"}}), &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("from 10 to 60000"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("using 100"), std::string::npos) << errors[0];
}

// Each bad variable is reported on its own line; the good ones still apply.
TEST(ParseConfig, SeveralBadValuesOneLineEach) {
  std::vector<std::string> errors;
  const Config c = Parse(FakeEnv({{"IASHIM_DISABLE", "perhaps"},
                                  {"IASHIM_MEM_LIMIT", "big"},
                                  {"IASHIM_COORDINATOR", "udp://x:1"},
                                  {"IASHIM_WINDOW_MS", "1"},
                                  {"IASHIM_LOG", "loud"},
                                  {"IASHIM_JOB", "good-job"},
                                  {"IASHIM_SAMPLE_EVERY", "8"}}),
                         &errors);
  ASSERT_EQ(errors.size(), 5u);
  // Read in groups: switches, the coordinator, limits, observation.
  const char* expected_order[] = {"IASHIM_DISABLE", "IASHIM_COORDINATOR", "IASHIM_MEM_LIMIT",
                                  "IASHIM_WINDOW_MS", "IASHIM_LOG"};
  for (size_t i = 0; i < errors.size(); ++i) {
    EXPECT_NE(errors[i].find(expected_order[i]), std::string::npos) << errors[i];
  }
  EXPECT_EQ(c.job, "good-job");
  EXPECT_EQ(c.sample_every, 8u);
  EXPECT_EQ(c.window_ms, 100u);
  EXPECT_EQ(c.mem_limit_bytes, 0u);
}

// Errors are appended: a caller's earlier lines are kept.
TEST(ParseConfig, ErrorsAreAppended) {
  std::vector<std::string> errors = {"earlier"};
  Parse(FakeEnv({{"IASHIM_LOG", "nope"}}), &errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], "earlier");
}

TEST(ValidEndpoint, AcceptsTcpAndIpc) {
  EXPECT_TRUE(ValidEndpoint("tcp://127.0.0.1:5555"));
  EXPECT_TRUE(ValidEndpoint("tcp://coordinator:1"));
  EXPECT_TRUE(ValidEndpoint("tcp://coordinator:65535"));
  EXPECT_TRUE(ValidEndpoint("tcp://*:5555"));
  EXPECT_TRUE(ValidEndpoint("tcp://[::1]:5555"));  // the port follows the last colon
  EXPECT_TRUE(ValidEndpoint("ipc:///tmp/iashim.sock"));
  EXPECT_TRUE(ValidEndpoint("ipc://@abstract"));
}

TEST(ValidEndpoint, RejectsOtherForms) {
  EXPECT_FALSE(ValidEndpoint(""));
  EXPECT_FALSE(ValidEndpoint("coordinator:5555"));
  EXPECT_FALSE(ValidEndpoint("inproc://x"));
  EXPECT_FALSE(ValidEndpoint("udp://host:5555"));
  EXPECT_FALSE(ValidEndpoint("TCP://host:5555"));
  EXPECT_FALSE(ValidEndpoint("tcp://host"));
  EXPECT_FALSE(ValidEndpoint("tcp://host:"));
  EXPECT_FALSE(ValidEndpoint("tcp://:5555"));
  EXPECT_FALSE(ValidEndpoint("tcp://host:0"));
  EXPECT_FALSE(ValidEndpoint("tcp://host:65536"));
  EXPECT_FALSE(ValidEndpoint("tcp://host:-1"));
  EXPECT_FALSE(ValidEndpoint("tcp://host:55 55"));
  EXPECT_FALSE(ValidEndpoint("tcp://host:http"));
  EXPECT_FALSE(ValidEndpoint("ipc://"));
  EXPECT_FALSE(ValidEndpoint("ipc://with space"));
  EXPECT_FALSE(ValidEndpoint("ipc://tab\there"));
  EXPECT_FALSE(ValidEndpoint("ipc://" + std::string(1100, 'p')));
}

TEST(ExpandTracePath, ReplacesEveryPercentP) {
  EXPECT_EQ(ExpandTracePath("/tmp/trace-%p.bin", 1234), "/tmp/trace-1234.bin");
  EXPECT_EQ(ExpandTracePath("%p/%p", 7), "7/7");
  EXPECT_EQ(ExpandTracePath("/tmp/plain.bin", 7), "/tmp/plain.bin");
  EXPECT_EQ(ExpandTracePath("", 7), "");
}

TEST(ExpandTracePath, LeavesOtherPercentsAlone) {
  EXPECT_EQ(ExpandTracePath("/tmp/%d-%s.bin", 9), "/tmp/%d-%s.bin");
  EXPECT_EQ(ExpandTracePath("/tmp/trace%", 9), "/tmp/trace%");
  EXPECT_EQ(ExpandTracePath("%P", 9), "%P");
}

}  // namespace
}  // namespace iashim

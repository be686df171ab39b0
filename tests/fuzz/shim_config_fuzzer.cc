// The shim's configuration from its environment (libiashim/src/config.h
// ParseConfig): the input is the values of the IASHIM_* variables, in the
// order of kVariables, separated by NUL (missing or empty: unset). Every
// refusal must name its variable; accepted values must be in range.
#include <cstdint>
#include <cstring>

#include "libiashim/src/config.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

constexpr const char* kVariables[] = {
    "IASHIM_DISABLE",
    "IASHIM_MEM_LIMIT",
    "IASHIM_COORDINATOR",
    "IASHIM_JOB",
    "IASHIM_TRACE",
    "IASHIM_WINDOW_MS",
    "IASHIM_SAMPLE_EVERY",
    "IASHIM_QUEUE_BATCHES",
    "IASHIM_LOG",
    "IASHIM_SHARE",
    "IASHIM_MAX_INFLIGHT",
    "IASHIM_PRIORITY",
    "IASHIM_SHARE_FEEDBACK",
    "IASHIM_PACE_COLLECTIVES",
    "IASHIM_REAL_LIBCUDA",
    "IASHIM_JOB_TOKEN",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const std::vector<std::string> values = fuzz::SplitArgs(data, size);
  const EnvLookup env = [&values](const char* name) -> const char* {
    for (size_t i = 0; i < std::size(kVariables) && i < values.size(); ++i) {
      if (std::strcmp(name, kVariables[i]) == 0) return values[i].c_str();
    }
    return nullptr;
  };
  std::vector<std::string> errors;
  const Config config = ParseConfig(env, &errors);
  for (const std::string& e : errors) {
    if (e.find("IASHIM_") == std::string::npos) fuzz::Fail("an error that names no variable");
  }
  if (!(config.share > 0 && config.share <= 1)) fuzz::Fail("a share out of (0, 1]");
  if (config.window_ms == 0) fuzz::Fail("a zero telemetry window");
  if (config.sample_every == 0) fuzz::Fail("sampling every 0 launches");
  (void)ExpandTracePath(config.trace_path, 12345);
  return 0;
}

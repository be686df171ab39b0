#include "libiashim/src/config.h"

#include <cctype>
#include <string_view>

#include "common/security/key_file.h"
#include "common/security/loopback.h"
#include "common/text/names.h"
#include "common/text/text.h"

namespace iashim {
namespace {

std::string Quoted(std::string_view value) {
  std::string out = "'";
  for (char c : value.substr(0, 200)) {
    out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  }
  if (value.size() > 200) out += "...";
  return out + "'";
}

bool ParseBool(std::string_view text, bool* out) {
  text = Trim(text);
  for (const char* yes : {"1", "true", "yes", "on"}) {
    if (EqualsIgnoreCase(text, yes)) return *out = true, true;
  }
  for (const char* no : {"0", "false", "no", "off", ""}) {
    if (EqualsIgnoreCase(text, no)) return *out = false, true;
  }
  return false;
}

// Reads one integer variable into `*out` when valid.
template <typename T>
void ReadInt(const EnvLookup& env, const char* name, int64_t min, int64_t max, T* out,
             std::vector<std::string>* errors) {
  const char* raw = env(name);
  if (raw == nullptr) return;
  const std::optional<int64_t> v = ParseInt(raw, min, max);
  if (!v) {
    errors->push_back(std::string(name) + "=" + Quoted(raw) + " is not a whole number from " +
                      std::to_string(min) + " to " + std::to_string(max) + "; using " +
                      std::to_string(*out));
    return;
  }
  *out = static_cast<T>(*v);
}

}  // namespace

std::string ExpandTracePath(const std::string& pattern, int pid) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
      out += std::to_string(pid);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

// IASHIM_COORDINATOR_KEY, and the rule that telemetry never leaves this
// machine in plain text: without a usable key, a coordinator beyond loopback
// gets nothing (the job runs unmanaged).
static void ReadCoordinatorKey(const EnvLookup& env, Config& c,
                               std::vector<std::string>* errors) {
  if (const char* raw = env("IASHIM_COORDINATOR_KEY")) {
    std::string error;
    if (!security::ResolvePublicKey(raw, &c.coordinator_key, &error)) {
      errors->push_back("IASHIM_COORDINATOR_KEY=" + Quoted(raw) + ": " + error +
                        "; telemetry is not sent");
      c.coordinator_key.clear();
      c.coordinator.clear();
      return;
    }
  }
  if (!c.coordinator.empty() && c.coordinator_key.empty() &&
      !security::IsLoopbackEndpoint(c.coordinator)) {
    errors->push_back("IASHIM_COORDINATOR=" + Quoted(c.coordinator) +
                      " is beyond this machine and IASHIM_COORDINATOR_KEY is not set (the "
                      "coordinator's public key, from `iashim keygen`); telemetry is not sent "
                      "in plain text");
    c.coordinator.clear();
  }
}

Config ParseConfig(const EnvLookup& raw_env, std::vector<std::string>* errors) {
  // A variable set to the empty string counts as unset (`IASHIM_X= cmd`).
  const EnvLookup env = [&raw_env](const char* name) -> const char* {
    const char* v = raw_env(name);
    return v != nullptr && *v != '\0' ? v : nullptr;
  };
  Config c;
  if (const char* raw = env("IASHIM_DISABLE")) {
    if (!ParseBool(raw, &c.disabled)) {
      errors->push_back("IASHIM_DISABLE=" + Quoted(raw) +
                        " is not 1/0/true/false; the shim stays enabled");
    }
  }
  if (const char* raw = env("IASHIM_SHARE_FEEDBACK")) {
    if (!ParseBool(raw, &c.share_feedback)) {
      c.share_feedback = true;
      errors->push_back("IASHIM_SHARE_FEEDBACK=" + Quoted(raw) +
                        " is not 1/0/true/false/on/off; share feedback stays on");
    }
  }
  if (const char* raw = env("IASHIM_MEM_LIMIT")) {
    const std::optional<uint64_t> bytes = ParseByteSize(raw);
    if (!bytes) {
      errors->push_back("IASHIM_MEM_LIMIT=" + Quoted(raw) +
                        " is not a size (examples: 8GiB, 512MiB, 1073741824); no memory quota");
    } else {
      c.mem_limit_bytes = *bytes;
    }
  }
  if (const char* raw = env("IASHIM_COORDINATOR"); raw != nullptr && *raw != '\0') {
    if (!ValidEndpoint(raw)) {
      errors->push_back("IASHIM_COORDINATOR=" + Quoted(raw) +
                        " is not tcp://HOST:PORT or ipc://PATH; telemetry is not sent");
    } else {
      c.coordinator = raw;
    }
  }
  ReadCoordinatorKey(env, c, errors);
  if (const char* raw = env("IASHIM_JOB"); raw != nullptr && *raw != '\0') {
    if (!ValidJobName(raw)) {
      errors->push_back("IASHIM_JOB=" + Quoted(raw) +
                        " must be 1-128 characters of letters, digits and ._-:/@+; job "
                        "name left empty");
    } else {
      c.job = raw;
    }
  }
  if (const char* raw = env("IASHIM_JOB_TOKEN"); raw != nullptr && *raw != '\0') {
    if (!ValidJobToken(raw)) {
      // Not echoed: it is a secret, even when malformed.
      errors->push_back("IASHIM_JOB_TOKEN is not 32 lowercase hex digits; the coordinator will "
                        "refuse to manage a placed job without its token");
    } else {
      c.job_token = raw;
    }
  }
  if (const char* raw = env("IASHIM_TRACE"); raw != nullptr && *raw != '\0') {
    if (std::string_view(raw).size() > 4000) {
      errors->push_back("IASHIM_TRACE=" + Quoted(raw) +
                        " is longer than 4000 characters; no trace is written");
    } else {
      c.trace_path = raw;
    }
  }
  ReadInt(env, "IASHIM_WINDOW_MS", 10, 60000, &c.window_ms, errors);
  ReadInt(env, "IASHIM_SAMPLE_EVERY", 1, 1000000, &c.sample_every, errors);
  ReadInt(env, "IASHIM_QUEUE_BATCHES", 1, 100000, &c.queue_batches, errors);
  if (const char* raw = env("IASHIM_LOG"); raw != nullptr && *raw != '\0') {
    const std::string_view v = Trim(raw);
    if (EqualsIgnoreCase(v, "warn")) {
      c.log_level = LogLevel::kWarn;
    } else if (EqualsIgnoreCase(v, "info")) {
      c.log_level = LogLevel::kInfo;
    } else if (EqualsIgnoreCase(v, "debug")) {
      c.log_level = LogLevel::kDebug;
    } else {
      errors->push_back("IASHIM_LOG=" + Quoted(raw) + " is not warn, info or debug; using warn");
    }
  }
  if (const char* raw = env("IASHIM_SHARE")) {
    const std::optional<double> share = ParseDouble(raw, 0.001, 1.0);
    if (!share) {
      errors->push_back("IASHIM_SHARE=" + Quoted(raw) +
                        " is not a fraction from 0.001 to 1 (e.g. 0.5); unthrottled");
    } else {
      c.share = *share;
    }
  }
  ReadInt(env, "IASHIM_MAX_INFLIGHT", 0, 65536, &c.max_inflight, errors);
  if (const char* raw = env("IASHIM_PRIORITY")) {
    if (!ParsePriority(Trim(raw), &c.priority)) {
      errors->push_back("IASHIM_PRIORITY=" + Quoted(raw) +
                        " is not guaranteed or opportunistic; using guaranteed");
    }
  }
  if (const char* raw = env("IASHIM_REAL_LIBCUDA"); raw != nullptr && *raw != '\0') {
    if (std::string_view(raw).size() > 4000) {
      errors->push_back("IASHIM_REAL_LIBCUDA=" + Quoted(raw) +
                        " is longer than 4000 characters; using libcuda.so.1");
    } else {
      c.real_libcuda = raw;
    }
  }
  return c;
}

}  // namespace iashim

#include "libiashim/src/config.h"

#include <cctype>
#include <string_view>
#include <utility>

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

// Reads one variable through `parse`, which stores the value and returns
// true when the text is valid; otherwise the setting keeps its default and
// `errors` gets "NAME='text' <why>".
template <typename Parse>
void Read(const EnvLookup& env, const char* name, Parse parse, std::string_view why,
          std::vector<std::string>* errors) {
  const char* raw = env(name);
  if (raw == nullptr || parse(raw)) return;
  errors->push_back(std::string(name) + "=" + Quoted(raw) + " " + std::string(why));
}

// A path-like value: at most 4000 characters.
bool ShortText(const char* raw, std::string* out) {
  if (std::string_view(raw).size() > 4000) return false;
  *out = raw;
  return true;
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

namespace {

// IASHIM_DISABLE, IASHIM_SHARE_FEEDBACK and IASHIM_PACE_COLLECTIVES.
void ReadSwitches(const EnvLookup& env, Config& c, std::vector<std::string>* errors) {
  Read(
      env, "IASHIM_DISABLE", [&](const char* raw) { return ParseBool(raw, &c.disabled); },
      "is not 1/0/true/false; the shim stays enabled", errors);
  Read(
      env, "IASHIM_SHARE_FEEDBACK",
      [&](const char* raw) { return ParseBool(raw, &c.share_feedback); },
      "is not 1/0/true/false/on/off; share feedback stays on", errors);
  Read(
      env, "IASHIM_PACE_COLLECTIVES",
      [&](const char* raw) { return ParseBool(raw, &c.pace_collectives); },
      "is not 1/0/true/false/on/off; collective pacing stays on", errors);
}

// IASHIM_COORDINATOR_KEY, and the rule that telemetry never leaves this
// machine in plain text: without a usable key, a coordinator beyond loopback
// gets nothing (the job runs unmanaged).
void ReadCoordinatorKey(const EnvLookup& env, Config& c, std::vector<std::string>* errors) {
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

// Who the job is and where its telemetry goes: the coordinator, its key,
// the job's name and token.
void ReadCoordinator(const EnvLookup& env, Config& c, std::vector<std::string>* errors) {
  Read(
      env, "IASHIM_COORDINATOR",
      [&](const char* raw) { return ValidEndpoint(raw) && (c.coordinator = raw, true); },
      "is not tcp://HOST:PORT or ipc://PATH; telemetry is not sent", errors);
  ReadCoordinatorKey(env, c, errors);
  Read(
      env, "IASHIM_JOB", [&](const char* raw) { return ValidJobName(raw) && (c.job = raw, true); },
      "must be 1-128 characters of letters, digits and ._-:/@+; job name left empty", errors);
  // A rank the launcher gave: IASHIM_RANK (the Slurm plugin's, for a step's
  // tasks), else torchrun's RANK, else LOCAL_RANK alone.
  const char* rank_name = env("IASHIM_RANK") != nullptr ? "IASHIM_RANK"
                          : env("RANK") != nullptr      ? "RANK"
                                                        : "LOCAL_RANK";
  Read(
      env, rank_name,
      [&](const char* raw) {
        const std::optional<int64_t> rank = ParseInt(raw, 0, 65535);
        return rank.has_value() && (c.rank = static_cast<int>(*rank), true);
      },
      "is not a rank 0..65535; the coordinator numbers this process by arrival", errors);
  if (const char* raw = env("IASHIM_JOB_TOKEN")) {
    if (ValidJobToken(raw)) {
      c.job_token = raw;
    } else {
      // Not echoed: it is a secret, even when malformed.
      errors->push_back(
          "IASHIM_JOB_TOKEN is not 32 lowercase hex digits; the coordinator will "
          "refuse to manage a placed job without its token");
    }
  }
}

// What the job may use: memory, GPU share, launches in flight, its priority.
void ReadLimits(const EnvLookup& env, Config& c, std::vector<std::string>* errors) {
  Read(
      env, "IASHIM_MEM_LIMIT",
      [&](const char* raw) {
        const std::optional<uint64_t> bytes = ParseByteSize(raw);
        if (bytes) c.mem_limit_bytes = *bytes;
        return bytes.has_value();
      },
      "is not a size (examples: 8GiB, 512MiB, 1073741824); no memory quota", errors);
  Read(
      env, "IASHIM_SHARE",
      [&](const char* raw) {
        const std::optional<double> share = ParseDouble(raw, 0.001, 1.0);
        if (share) c.share = *share;
        return share.has_value();
      },
      "is not a fraction from 0.001 to 1 (e.g. 0.5); unthrottled", errors);
  ReadInt(env, "IASHIM_MAX_INFLIGHT", 0, 65536, &c.max_inflight, errors);
  Read(
      env, "IASHIM_PRIORITY",
      [&](const char* raw) { return ParsePriority(Trim(raw), &c.priority); },
      "is not guaranteed or opportunistic; using guaranteed", errors);
}

// How the shim observes and reports: trace, log level, window, sampling,
// queue, and which driver it wraps.
void ReadObservation(const EnvLookup& env, Config& c, std::vector<std::string>* errors) {
  Read(
      env, "IASHIM_TRACE", [&](const char* raw) { return ShortText(raw, &c.trace_path); },
      "is longer than 4000 characters; no trace is written", errors);
  ReadInt(env, "IASHIM_WINDOW_MS", 10, 60000, &c.window_ms, errors);
  ReadInt(env, "IASHIM_SAMPLE_EVERY", 1, 1000000, &c.sample_every, errors);
  ReadInt(env, "IASHIM_QUEUE_BATCHES", 1, 100000, &c.queue_batches, errors);
  Read(
      env, "IASHIM_LOG",
      [&](const char* raw) {
        const std::string_view v = Trim(raw);
        const std::pair<const char*, LogLevel> levels[] = {
            {"warn", LogLevel::kWarn}, {"info", LogLevel::kInfo}, {"debug", LogLevel::kDebug}};
        for (const auto& [name, level] : levels) {
          if (EqualsIgnoreCase(v, name)) return c.log_level = level, true;
        }
        return false;
      },
      "is not warn, info or debug; using warn", errors);
  Read(
      env, "IASHIM_REAL_LIBCUDA", [&](const char* raw) { return ShortText(raw, &c.real_libcuda); },
      "is longer than 4000 characters; using libcuda.so.1", errors);
}

}  // namespace

Config ParseConfig(const EnvLookup& raw_env, std::vector<std::string>* errors) {
  // A variable set to the empty string counts as unset (`IASHIM_X= cmd`).
  const EnvLookup env = [&raw_env](const char* name) -> const char* {
    const char* v = raw_env(name);
    return v != nullptr && *v != '\0' ? v : nullptr;
  };
  Config c;
  ReadSwitches(env, c, errors);
  ReadCoordinator(env, c, errors);
  ReadLimits(env, c, errors);
  ReadObservation(env, c, errors);
  return c;
}

}  // namespace iashim

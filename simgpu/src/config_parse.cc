#include "simgpu/src/config_parse.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "common/text/text.h"
#include "common/wire/kernel_id.h"
#include "simgpu/src/power_model.h"

namespace simgpu {

using iashim::EqualsIgnoreCase;
using iashim::Fnv1a;
using iashim::Trim;

namespace {

void MakeUuid(std::string_view ns, int index, uint8_t out[16]) {
  const std::string key = std::string(ns) + "/" + std::to_string(index);
  const uint64_t a = Fnv1a(key);
  const uint64_t b = Fnv1a(key, a ^ 0x9e3779b97f4a7c15ULL);
  std::memcpy(out, &a, 8);
  std::memcpy(out + 8, &b, 8);
}

// "300", "300W", " 40.5 w": watts, finite and non-negative.
std::optional<double> ParseWatts(std::string_view text) {
  text = Trim(text);
  if (!text.empty() && (text.back() == 'W' || text.back() == 'w')) text.remove_suffix(1);
  return iashim::ParseDouble(Trim(text), 0, 1e6);
}

}  // namespace

std::optional<double> ParseLinkGbps(std::string_view text) {
  return iashim::ParseDouble(Trim(text), 0.01, 100000);
}

std::string FabricDirProblem(std::string_view path) {
  if (path.empty() || path.front() != '/') return "not an absolute path";
  // Room for "/collectives" within PATH_MAX.
  if (path.size() > 4000) return "longer than 4000 characters";
  if (path.find('\0') != std::string_view::npos) return "contains a NUL character";
  const std::string p(path);
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) {
    return errno == ENOENT ? "no such directory"
                           : std::string("cannot stat it: ") + std::strerror(errno);
  }
  if (!S_ISDIR(st.st_mode)) return "not a directory";
  if (::access(p.c_str(), W_OK | X_OK) != 0)
    return std::string("not writable: ") + std::strerror(errno);
  return "";
}

bool ValidNamespace(std::string_view ns) {
  if (ns.empty() || ns.size() > 64) return false;
  for (char c : ns) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      return false;
  }
  return true;
}

bool ParseDeviceList(std::string_view text, std::string_view ns, std::vector<DeviceSpec>* out,
                     std::string* error) {
  out->clear();
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view entry = Trim(text.substr(pos, comma - pos));
    pos = comma + 1;
    if (entry.empty()) {
      *error = "empty device entry";
      return false;
    }
    int repeat = 1;
    const size_t x = entry.find('x');
    if (x != std::string_view::npos && x > 0) {
      std::string_view count = entry.substr(0, x);
      int n = 0;
      auto [p, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
      if (ec == std::errc() && p == count.data() + count.size()) {
        if (n < 1 || n > 16) {
          *error = "device count '" + std::string(count) + "' must be 1..16";
          return false;
        }
        repeat = n;
        entry = entry.substr(x + 1);
      }
    }
    std::vector<std::string_view> fields;
    for (size_t start = 0;;) {
      const size_t colon = entry.find(':', start);
      fields.push_back(entry.substr(start, colon == std::string_view::npos ? colon : colon - start));
      if (colon == std::string_view::npos) break;
      start = colon + 1;
    }
    if (fields.size() != 3 && fields.size() != 5) {
      *error = "device entry '" + std::string(entry) +
               "' is not NAME:MEMORY:SMS or NAME:MEMORY:SMS:IDLE_WATTS:MAX_WATTS";
      return false;
    }
    const std::string_view name = Trim(fields[0]);
    const std::string_view mem = fields[1];
    const std::string_view sms = Trim(fields[2]);
    if (name.empty() || name.size() >= sizeof(DeviceSpec{}.name)) {
      *error = "device name '" + std::string(name) + "' must be 1..95 characters";
      return false;
    }
    const std::optional<uint64_t> bytes = ParseByteSize(mem);
    if (!bytes || *bytes < (1ULL << 20)) {
      *error = "device memory '" + std::string(mem) + "' is not a size of at least 1MiB "
               "(e.g. 32GiB)";
      return false;
    }
    int sm = 0;
    auto [p, ec] = std::from_chars(sms.data(), sms.data() + sms.size(), sm);
    if (ec != std::errc() || p != sms.data() + sms.size() || sm < 1 || sm > 1024) {
      *error = "SM count '" + std::string(sms) + "' must be an integer 1..1024";
      return false;
    }
    float idle_watts = kDefaultIdleWatts;
    float max_watts = kDefaultMaxWatts;
    if (fields.size() == 5) {
      const std::optional<double> idle = ParseWatts(fields[3]);
      const std::optional<double> max = ParseWatts(fields[4]);
      if (!idle || !max || *idle <= 0 || *max < *idle || *max > 5000) {
        *error = "device power '" + std::string(fields[3]) + ":" + std::string(fields[4]) +
                 "' must be IDLE_WATTS:MAX_WATTS with 0 < idle <= max <= 5000 (e.g. 40:300)";
        return false;
      }
      idle_watts = float(*idle);
      max_watts = float(*max);
    }
    for (int r = 0; r < repeat; ++r) {
      if (out->size() >= 16) {
        *error = "more than 16 devices";
        return false;
      }
      DeviceSpec spec{};
      std::memcpy(spec.name, name.data(), name.size());
      spec.memory_bytes = *bytes;
      spec.sm_count = sm;
      spec.idle_watts = idle_watts;
      spec.max_watts = max_watts;
      MakeUuid(ns, static_cast<int>(out->size()), spec.uuid);
      out->push_back(spec);
    }
    if (comma == text.size()) break;
  }
  return true;
}

std::string FormatUuid(const uint8_t u[16]) {
  char buf[48];
  std::snprintf(buf, sizeof(buf),
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                u[14], u[15]);
  return buf;
}

std::vector<int> ParseVisibleDevices(std::optional<std::string_view> text,
                                     const std::vector<DeviceSpec>& devices) {
  std::vector<int> visible;
  if (!text) {
    for (size_t i = 0; i < devices.size(); ++i) visible.push_back(static_cast<int>(i));
    return visible;
  }
  size_t pos = 0;
  std::string_view t = *text;
  while (pos < t.size()) {
    size_t comma = t.find(',', pos);
    if (comma == std::string_view::npos) comma = t.size();
    const std::string_view entry = Trim(t.substr(pos, comma - pos));
    pos = comma + 1;
    int found = -1;
    if (entry.rfind("GPU-", 0) == 0) {
      for (size_t i = 0; i < devices.size(); ++i) {
        // A unique prefix of the UUID is accepted, as the real driver does.
        if (FormatUuid(devices[i].uuid).rfind(entry, 0) == 0) {
          if (found >= 0) return visible;  // ambiguous
          found = static_cast<int>(i);
        }
      }
    } else {
      int idx = -1;
      auto [p, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), idx);
      if (ec == std::errc() && p == entry.data() + entry.size() && idx >= 0 &&
          idx < static_cast<int>(devices.size()))
        found = idx;
    }
    if (found < 0) break;
    for (int v : visible) {
      if (v == found) return visible;  // a repeated device ends the list
    }
    visible.push_back(found);
  }
  return visible;
}

}  // namespace simgpu

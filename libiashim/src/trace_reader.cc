#include "libiashim/src/trace_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unordered_map>

namespace iashim {

std::string Trace::NameOf(uint32_t kernel) const {
  auto it = kernel_names.find(kernel);
  return it == kernel_names.end() ? "?" : it->second;
}

bool ReadTrace(const std::string& path, Trace* trace, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < sizeof(TraceHeader) ||
      std::memcmp(data.data(), kTraceMagic, sizeof kTraceMagic) != 0) {
    *error = "'" + path + "' is not an iashim trace (bad magic)";
    return false;
  }
  std::memcpy(&trace->header, data.data(), sizeof(TraceHeader));
  if (trace->header.version != kTraceVersion) {
    *error = "'" + path + "' is trace version " + std::to_string(trace->header.version) +
             "; this reader reads version " + std::to_string(kTraceVersion);
    return false;
  }
  // (thread, seq) -> index of the launch in events.
  std::unordered_map<uint64_t, size_t> by_seq;
  auto key = [](uint32_t thread, uint64_t seq) { return (uint64_t(thread) << 44) ^ seq; };
  size_t at = sizeof(TraceHeader);
  while (at < data.size()) {
    uint16_t head[2];
    if (data.size() - at < sizeof head) {
      trace->truncated = true;
      break;
    }
    std::memcpy(head, data.data() + at, sizeof head);
    at += sizeof head;
    const size_t length = head[1];
    if (data.size() - at < length) {
      trace->truncated = true;
      break;
    }
    const char* p = data.data() + at;
    at += length;
    switch (static_cast<TraceEntry>(head[0])) {
      case TraceEntry::kKernelName: {
        if (length < sizeof(TraceKernelName)) break;
        TraceKernelName k;
        std::memcpy(&k, p, sizeof k);
        trace->kernel_names[k.kernel].assign(p + sizeof k, length - sizeof k);
        break;
      }
      case TraceEntry::kLaunch: {
        if (length < sizeof(TraceLaunch)) break;
        TraceEvent e;
        std::memcpy(&e.launch, p, sizeof e.launch);
        by_seq[key(e.launch.thread, e.launch.seq)] = trace->events.size();
        trace->events.push_back(e);
        break;
      }
      case TraceEntry::kGpuTime: {
        if (length < sizeof(TraceGpuTime)) break;
        TraceGpuTime g;
        std::memcpy(&g, p, sizeof g);
        auto it = by_seq.find(key(g.thread, g.seq));
        if (it != by_seq.end()) trace->events[it->second].gpu_ns = g.gpu_ns;
        break;
      }
      case TraceEntry::kTotals: {
        if (length < sizeof(TraceTotals)) break;
        TraceTotals t;
        std::memcpy(&t, p, sizeof t);
        trace->totals = t;
        break;
      }
      default:
        break;  // newer entry types: skipped by length
    }
  }
  return true;
}

}  // namespace iashim

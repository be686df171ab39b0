#include "libiashim/src/trace_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "libiashim/src/cycle_clock.h"
#include "libiashim/src/log.h"

namespace iashim {
namespace {
constexpr size_t kBufferBytes = 256 * 1024;
}  // namespace

TraceWriter::~TraceWriter() { Close(); }

bool TraceWriter::Open(const std::string& path, uint32_t pid, std::string* error) {
  Close();
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    *error = "cannot create IASHIM_TRACE file '" + path + "': " + std::strerror(errno);
    return false;
  }
  buffer_.reserve(kBufferBytes + 4096);
  failed_ = false;
  TraceHeader h{};
  std::memcpy(h.magic, kTraceMagic, sizeof h.magic);
  h.version = kTraceVersion;
  h.pid = pid;
  h.start_monotonic_ns = MonotonicNs();
  timespec wall;
  clock_gettime(CLOCK_REALTIME, &wall);
  h.start_unix_ns = uint64_t(wall.tv_sec) * 1000000000ULL + uint64_t(wall.tv_nsec);
  const char* p = reinterpret_cast<const char*>(&h);
  buffer_.insert(buffer_.end(), p, p + sizeof h);
  return true;
}

void TraceWriter::Entry(TraceEntry type, const void* payload, size_t length, const void* extra,
                        size_t extra_length) {
  if (fd_ < 0 || failed_) return;
  const size_t total = length + extra_length;
  if (total > 0xffff) return;
  const uint16_t head[2] = {static_cast<uint16_t>(type), static_cast<uint16_t>(total)};
  const char* h = reinterpret_cast<const char*>(head);
  buffer_.insert(buffer_.end(), h, h + sizeof head);
  const char* p = static_cast<const char*>(payload);
  buffer_.insert(buffer_.end(), p, p + length);
  if (extra_length > 0) {
    const char* e = static_cast<const char*>(extra);
    buffer_.insert(buffer_.end(), e, e + extra_length);
  }
  if (buffer_.size() >= kBufferBytes) Flush();
}

void TraceWriter::KernelName(uint32_t kernel, uint64_t hash, std::string_view name) {
  TraceKernelName k{kernel, 0, hash};
  Entry(TraceEntry::kKernelName, &k, sizeof k, name.data(),
        std::min<size_t>(name.size(), 0xffff - sizeof k));
}

void TraceWriter::Launch(const TraceLaunch& launch) {
  Entry(TraceEntry::kLaunch, &launch, sizeof launch);
  ++records_;
}

void TraceWriter::GpuTime(const TraceGpuTime& time) { Entry(TraceEntry::kGpuTime, &time, sizeof time); }

void TraceWriter::Totals(const TraceTotals& totals) { Entry(TraceEntry::kTotals, &totals, sizeof totals); }

void TraceWriter::Flush() {
  if (fd_ < 0 || buffer_.empty()) return;
  size_t done = 0;
  while (done < buffer_.size() && !failed_) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      IASHIM_WARN("writing the trace failed (%s); tracing stops", std::strerror(errno));
      failed_ = true;
      break;
    }
    done += size_t(n);
  }
  buffer_.clear();
}

void TraceWriter::Close() {
  if (fd_ < 0) return;
  Flush();
  ::close(fd_);
  fd_ = -1;
}

}  // namespace iashim

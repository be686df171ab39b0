// Writes the IASHIM_TRACE file (trace_format.h) from the background thread,
// buffered so the file sees few large writes.
#ifndef IASHIM_TRACE_WRITER_H_
#define IASHIM_TRACE_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libiashim/src/trace_format.h"

namespace iashim {

class TraceWriter {
 public:
  TraceWriter() = default;
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Creates (truncates) `path` and writes the header. False with a reason.
  bool Open(const std::string& path, uint32_t pid, std::string* error);
  bool is_open() const { return fd_ >= 0; }

  void KernelName(uint32_t kernel, uint64_t hash, std::string_view name);
  void Launch(const TraceLaunch& launch);
  void GpuTime(const TraceGpuTime& time);
  void Totals(const TraceTotals& totals);

  void Flush();
  void Close();
  uint64_t records() const { return records_; }

 private:
  void Entry(TraceEntry type, const void* payload, size_t length, const void* extra = nullptr,
             size_t extra_length = 0);

  int fd_ = -1;
  std::vector<char> buffer_;
  uint64_t records_ = 0;
  bool failed_ = false;
};

}  // namespace iashim

#endif  // IASHIM_TRACE_WRITER_H_

#include "coordinator/state/frame.h"

#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "coordinator/state/crc32c.h"
#include "coordinator/state/limits.h"

namespace iashim::state {
namespace {

void PutU32(uint32_t v, char* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

uint32_t GetU32(const char* in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}

// What is at `offset`: a good frame's payload, or why not. `length` is the
// header's length when the header was complete and plausible (0 otherwise),
// so the caller can try to step over a frame whose checksum alone failed.
struct Probe {
  std::optional<std::string_view> payload;
  size_t length = 0;
  std::string error;
};

Probe ProbeFrame(std::string_view data, size_t offset) {
  const size_t left = data.size() - offset;
  if (left < kFrameHeaderBytes) {
    return {std::nullopt, 0, absl::StrCat("incomplete frame header (", left, " bytes)")};
  }
  const uint32_t length = GetU32(data.data() + offset);
  const uint32_t crc = GetU32(data.data() + offset + 4);
  if (length == 0 || length > kMaxFrameBytes) {
    return {std::nullopt, 0, absl::StrCat("implausible frame length ", length)};
  }
  if (length > left - kFrameHeaderBytes) {
    return {std::nullopt, 0,
            absl::StrCat("frame of ", length, " bytes runs past the end (",
                         left - kFrameHeaderBytes, " bytes left)")};
  }
  const std::string_view payload = data.substr(offset + kFrameHeaderBytes, length);
  if (Crc32c(payload, Crc32c(data.substr(offset, 4))) != crc) {
    return {std::nullopt, length, "checksum mismatch"};
  }
  return {payload, length, ""};
}

}  // namespace

void AppendFrame(std::string_view payload, std::string* out) {
  char header[kFrameHeaderBytes];
  PutU32(static_cast<uint32_t>(payload.size()), header);
  PutU32(Crc32c(payload, Crc32c(std::string_view(header, 4))), header + 4);
  out->append(header, kFrameHeaderBytes);
  out->append(payload);
}

FrameScan ScanFrames(std::string_view data,
                     absl::FunctionRef<void(std::string_view payload, size_t offset)> on_frame) {
  FrameScan scan;
  size_t offset = 0;
  while (offset < data.size()) {
    Probe probe = ProbeFrame(data, offset);
    if (probe.payload) {
      on_frame(*probe.payload, offset);
      ++scan.frames;
      offset += kFrameHeaderBytes + probe.length;
      continue;
    }
    // Only the checksum failed: the length may be right. Trust it only if it
    // leads exactly to a good frame; a wrong length almost never does (the
    // good frame's checksum would have to match by chance).
    const size_t next = offset + kFrameHeaderBytes + probe.length;
    if (probe.length > 0 && next < data.size() && ProbeFrame(data, next).payload) {
      scan.problems.push_back(absl::StrCat("offset ", offset, ": ", probe.error, ", frame of ",
                                           kFrameHeaderBytes + probe.length, " bytes skipped"));
      ++scan.skipped_frames;
      scan.skipped_bytes += next - offset;
      offset = next;
      continue;
    }
    scan.problems.push_back(absl::StrCat("offset ", offset, ": ", probe.error, ", the last ",
                                         data.size() - offset, " bytes dropped"));
    break;
  }
  scan.valid_end = offset;
  return scan;
}

}  // namespace iashim::state

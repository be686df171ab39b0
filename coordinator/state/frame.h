// Frames: how records are laid out in both files. A frame is
//
//   uint32 little-endian  payload length (1 .. kMaxFrameBytes)
//   uint32 little-endian  CRC-32C of the length field's 4 bytes and the payload
//   payload               one FlatBuffers Record (schemas/state.fbs)
//
// The checksum covers the length, so a damaged length is caught like damaged
// data. Scanning stops at the first frame that fails (a torn tail after a
// crash mid-write, or damage) unless the damage is confined: a frame whose
// checksum fails but whose length leads exactly to a frame that passes is
// stepped over, so one flipped bit costs one record, not the rest of the file.
#ifndef IASHIM_COORDINATOR_STATE_FRAME_H_
#define IASHIM_COORDINATOR_STATE_FRAME_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"

namespace iashim::state {

inline constexpr size_t kFrameHeaderBytes = 8;

// Appends one frame holding `payload` (non-empty, at most kMaxFrameBytes).
void AppendFrame(std::string_view payload, std::string* out);

struct FrameScan {
  size_t frames = 0;          // good frames handed to the callback
  size_t skipped_frames = 0;  // damaged frames stepped over
  size_t skipped_bytes = 0;   // their size, headers included
  // Where reading stopped: data.size() when it reached the end, else the start
  // of the frame it could not read. Bytes from here on are lost; a journal is
  // cut here so that later appends follow the last good frame.
  size_t valid_end = 0;
  // What was lost and where, one line each ("offset 120: checksum mismatch ...").
  std::vector<std::string> problems;

  size_t dropped_bytes(size_t size) const { return skipped_bytes + (size - valid_end); }
};

// Calls on_frame(payload, offset of the frame) for each good frame in order.
FrameScan ScanFrames(std::string_view data,
                     absl::FunctionRef<void(std::string_view payload, size_t offset)> on_frame);

}  // namespace iashim::state

#endif  // IASHIM_COORDINATOR_STATE_FRAME_H_

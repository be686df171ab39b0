// iashim-top's decoding of a message from the coordinator's PUB stream
// (coordinator/top/snapshot_view.h, as Subscriber::Drain uses it) and the
// screen laid out from it: every line must fit the width and be printable.
// The input is deliberately misaligned by one byte half the time, since
// ZeroMQ gives no alignment.
#include <cstdint>
#include <cstring>
#include <vector>

#include "coordinator/top/snapshot_view.h"
#include "coordinator/top/table_layout.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  using namespace iashim::top;
  std::vector<uint8_t> shifted(size + 1);
  const bool misalign = size > 0 && (data[size - 1] & 1) != 0;
  if (size > 0) std::memcpy(shifted.data() + (misalign ? 1 : 0), data, size);
  const uint8_t* bytes = shifted.data() + (misalign ? 1 : 0);
  const DecodeStatus classified = ClassifyMessage(bytes, size);
  ClusterView view;
  const DecodeStatus decoded = DecodeMessage(bytes, size, &view);
  if (classified != decoded) fuzz::Fail("ClassifyMessage and DecodeMessage disagree");
  if (decoded != DecodeStatus::kOk) return 0;
  for (const int width : {20, 80, 200}) {
    LayoutInput in;
    in.view = &view;
    in.endpoint = "tcp://127.0.0.1:5556";
    in.width = width;
    in.height = 30;
    in.scroll = 3;
    const Layout layout = LayOut(in);
    if (layout.lines.size() > static_cast<size_t>(in.height)) fuzz::Fail("more lines than rows");
    for (const Line& line : layout.lines) {
      if (line.text.size() > static_cast<size_t>(width)) fuzz::Fail("a line wider than the screen");
      for (char c : line.text) {
        if (c < 0x20 || c > 0x7e) fuzz::Fail("a line with a non-printable character");
      }
    }
  }
  return 0;
}

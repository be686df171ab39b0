// The shim's launch trace reader (libiashim/src/trace_reader.h), as
// iashim-trace runs it: the input is the file, written to a scratch directory.
#include <cstdint>

#include "libiashim/src/trace_reader.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iashim;
  const std::string path = fuzz::WriteScratchFile("trace.bin", fuzz::AsText(data, size));
  Trace trace;
  std::string error;
  if (!ReadTrace(path, &trace, &error)) {
    if (error.empty()) fuzz::Fail("a refused trace without a reason");
    return 0;
  }
  for (const TraceEvent& e : trace.events) (void)trace.NameOf(e.launch.kernel);
  return 0;
}

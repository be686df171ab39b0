// iashim-trace: prints an IASHIM_TRACE file as CSV.
//
//   iashim-trace FILE             one row per launch, graph launch or sync
//   iashim-trace --summary FILE   one row per kernel, costliest first, then totals
//                                 (trace_summary.h)
#include <cstdio>
#include <cstring>
#include <string>

#include "libiashim/src/trace_reader.h"
#include "libiashim/tools/trace_summary.h"

namespace {

const char* EventName(uint8_t event) {
  switch (event) {
    case 0: return "launch";
    case 1: return "graph_launch";
    case 2: return "sync";
    default: return "unknown";
  }
}

const char* ApiName(uint8_t api) {
  static const char* const kNames[] = {"cuLaunchKernel",      "cuLaunchKernelEx",
                                       "cuLaunchCooperativeKernel", "cuGraphLaunch",
                                       "cuStreamSynchronize", "cuCtxSynchronize",
                                       "cuEventSynchronize"};
  return api < sizeof kNames / sizeof kNames[0] ? kNames[api] : "unknown";
}

int Usage(const char* why) {
  if (why != nullptr) std::fprintf(stderr, "iashim-trace: %s\n", why);
  std::fprintf(stderr, "usage: iashim-trace [--summary] TRACE_FILE\n");
  return 2;
}

void PrintEvents(const iashim::Trace& t) {
  std::printf("time_ns,thread,event,kernel_id,kernel,grid_x,grid_y,grid_z,block_x,block_y,"
              "block_z,shared_mem,stream,gpu_ns,api,per_thread\n");
  for (const iashim::TraceEvent& e : t.events) {
    const iashim::TraceLaunch& l = e.launch;
    const std::string name = l.event == 0 ? iashim::CsvField(t.NameOf(l.kernel)) : "";
    std::printf("%llu,%u,%s,%u,%s,%u,%u,%u,%u,%u,%u,%u,0x%llx,%llu,%s,%d\n",
                (unsigned long long)l.time_ns,
                l.thread, EventName(l.event), l.kernel, name.c_str(), l.grid[0], l.grid[1],
                l.grid[2], l.block[0], l.block[1], l.block[2], l.shared_mem,
                (unsigned long long)l.stream, (unsigned long long)e.gpu_ns,
                ApiName(iashim::TraceApi(l.flags)), iashim::TracePerThread(l.flags) ? 1 : 0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool summary = false;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--summary") == 0) {
      summary = true;
    } else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      return Usage(nullptr), 0;
    } else if (argv[i][0] == '-') {
      return Usage((std::string("unknown option '") + argv[i] + "'").c_str());
    } else if (path != nullptr) {
      return Usage("give one trace file");
    } else {
      path = argv[i];
    }
  }
  if (path == nullptr) return Usage("no trace file given");
  iashim::Trace trace;
  std::string error;
  if (!iashim::ReadTrace(path, &trace, &error)) {
    std::fprintf(stderr, "iashim-trace: %s\n", error.c_str());
    return 1;
  }
  if (trace.truncated) {
    std::fprintf(stderr, "iashim-trace: warning: '%s' ends mid-entry (the process died?)\n", path);
  }
  if (summary) {
    const std::string csv = iashim::FormatSummaryCsv(iashim::SummarizeKernels(trace));
    std::fwrite(csv.data(), 1, csv.size(), stdout);
  } else {
    PrintEvents(trace);
  }
  return 0;
}

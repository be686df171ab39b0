#include "libiashim/src/telemetry_encoder.h"

#include "common/wire/envelope.h"
#include "schemas/telemetry_generated.h"

namespace iashim {
namespace {

namespace w = ::iashim::wire;

template <typename T>
Message Finish(flatbuffers::FlatBufferBuilder& fbb, int pid, w::Payload type,
               flatbuffers::Offset<T> payload) {
  w::FinishEnvelope(fbb, type, payload.Union(), pid);
  return Message(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace

const char* ShimVersion() { return "iashim 0.1.0"; }

Message EncodeHello(const HelloInfo& h) {
  flatbuffers::FlatBufferBuilder fbb(512);
  const auto hello = w::CreateHelloDirect(fbb, h.pid, h.host.c_str(), h.job.c_str(),
                                          h.command.c_str(), ShimVersion(), h.window_ms,
                                          h.mem_limit_bytes, h.start_unix_ns, h.start_monotonic_ns,
                                          h.opportunistic ? w::Priority::Opportunistic
                                                          : w::Priority::Guaranteed,
                                          h.share, h.token.c_str(), h.rank);
  return Finish(fbb, h.pid, w::Payload::Hello, hello);
}

Message EncodeKernelNames(int pid, const std::vector<std::pair<uint64_t, std::string>>& names) {
  flatbuffers::FlatBufferBuilder fbb(1024);
  std::vector<flatbuffers::Offset<w::KernelName>> entries;
  entries.reserve(names.size());
  for (const auto& [hash, name] : names) {
    entries.push_back(w::CreateKernelNameDirect(fbb, hash, name.c_str()));
  }
  return Finish(fbb, pid, w::Payload::KernelNames, w::CreateKernelNamesDirect(fbb, &entries));
}

Message EncodeBatch(int pid, const WindowSummary& window, const BatchExtras& extras,
                    const std::function<uint64_t(uint32_t)>& hash_of) {
  flatbuffers::FlatBufferBuilder fbb(1024);
  std::vector<flatbuffers::Offset<w::KernelStats>> kernels;
  kernels.reserve(window.kernels.size());
  for (const KernelWindow& k : window.kernels) {
    kernels.push_back(w::CreateKernelStats(fbb, hash_of(k.kernel), k.launches, k.grid[0],
                                           k.grid[1], k.grid[2], k.block[0], k.block[1],
                                           k.block[2], k.shared_mem, k.blocks_total, k.sampled,
                                           k.gpu_ns_sum, k.gpu_ns_min, k.gpu_ns_max,
                                           k.device == kUnknownDevice ? -1 : int(k.device)));
  }
  std::vector<flatbuffers::Offset<w::DeviceMemory>> memory;
  for (const DeviceMemoryInfo& m : extras.memory) {
    memory.push_back(w::CreateDeviceMemory(fbb, m.device, m.used, m.peak, m.limit, m.refused));
  }
  const auto batch = w::CreateTelemetryBatchDirect(
      fbb, extras.seq, window.start_ns, window.end_ns, window.launches, window.graph_launches,
      window.syncs, window.iterations, window.iteration_ns, extras.sample_every, &kernels, &memory,
      extras.batches_dropped, extras.records_dropped, extras.budget_share, extras.held_launches,
      extras.held_ns, extras.charge_scale, extras.gpu_share, extras.gpu_energy_j,
      extras.cpu_wait_ns);
  return Finish(fbb, pid, w::Payload::TelemetryBatch, batch);
}

Message EncodeGoodbye(int pid, uint64_t launches, int exit_code) {
  flatbuffers::FlatBufferBuilder fbb(64);
  return Finish(fbb, pid, w::Payload::Goodbye, w::CreateGoodbye(fbb, launches, exit_code));
}

}  // namespace iashim

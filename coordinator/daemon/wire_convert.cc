#include "coordinator/daemon/wire_convert.h"

#include <algorithm>

#include "common/text/text.h"

namespace iashim::daemon {

namespace {

// What every view of a batch shares: its window, iterations and budget.
policy::TelemetryWindow ProcessFields(const wire::TelemetryBatch& b) {
  policy::TelemetryWindow w;
  w.window_start_ns = b.window_start_ns();
  w.window_end_ns = b.window_end_ns();
  w.launches = b.launches();
  w.iterations = b.iterations();
  w.iteration_ns = b.iteration_ns();
  w.sample_every = b.sample_every();
  w.budget_share = b.budget_share();
  w.held_launches = b.held_launches();
  w.held_ns = b.held_ns();
  w.cpu_wait_ns = b.cpu_wait_ns();
  return w;
}

}  // namespace

policy::TelemetryWindow ToWindow(const wire::TelemetryBatch& b) {
  policy::TelemetryWindow w = ProcessFields(b);
  if (b.kernels() != nullptr) {
    w.kernels.reserve(b.kernels()->size());
    for (const wire::KernelStats* k : *b.kernels()) {
      if (k == nullptr) continue;
      w.kernels.push_back({k->kernel(), k->launches(), k->sampled(), k->gpu_ns_sum()});
    }
  }
  if (b.memory() != nullptr) {
    for (const wire::DeviceMemory* m : *b.memory()) {
      if (m == nullptr || m->used_bytes() < w.mem_used_bytes) continue;
      w.mem_used_bytes = m->used_bytes();
      w.mem_limit_bytes = m->limit_bytes();
    }
  }
  return w;
}

policy::TelemetryWindow ToDeviceWindow(const wire::TelemetryBatch& b, int device) {
  policy::TelemetryWindow w = ProcessFields(b);
  w.launches = 0;
  if (b.kernels() != nullptr) {
    for (const wire::KernelStats* k : *b.kernels()) {
      if (k == nullptr || k->device() != device) continue;
      w.kernels.push_back({k->kernel(), k->launches(), k->sampled(), k->gpu_ns_sum()});
      w.launches += k->launches();
    }
  }
  if (b.memory() != nullptr) {
    for (const wire::DeviceMemory* m : *b.memory()) {
      if (m == nullptr || m->device() != device) continue;
      w.mem_used_bytes = m->used_bytes();
      w.mem_limit_bytes = m->limit_bytes();
    }
  }
  return w;
}

std::vector<int> DevicesIn(const wire::TelemetryBatch& b) {
  std::vector<int> devices;
  if (b.kernels() == nullptr) return devices;
  for (const wire::KernelStats* k : *b.kernels()) {
    if (k == nullptr || k->device() < 0) continue;
    if (std::find(devices.begin(), devices.end(), k->device()) == devices.end()) {
      devices.push_back(k->device());
    }
  }
  std::sort(devices.begin(), devices.end());
  return devices;
}

wire::BaselineSource ToWire(policy::BaselineSource s) {
  switch (s) {
    case policy::BaselineSource::kAlone:
      return wire::BaselineSource::Alone;
    case policy::BaselineSource::kProbe:
      return wire::BaselineSource::Probe;
    case policy::BaselineSource::kSaved:
      return wire::BaselineSource::Saved;
    case policy::BaselineSource::kNone:
      break;
  }
  return wire::BaselineSource::None;
}

std::string EnvelopeBytes(flatbuffers::FlatBufferBuilder& fbb, wire::Payload type,
                           flatbuffers::Offset<void> payload) {
  wire::FinishEnvelope(fbb, type, payload);
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

std::string EncodeAdvice(wire::AdviceKind kind, std::string_view text) {
  flatbuffers::FlatBufferBuilder fbb(256);
  const auto t = fbb.CreateString(text.data(), text.size());
  return EnvelopeBytes(fbb, wire::Payload::Advice, wire::CreateAdvice(fbb, kind, t).Union());
}

std::string EncodeError(std::string_view text) {
  flatbuffers::FlatBufferBuilder fbb(256);
  const auto t = fbb.CreateString(text.data(), text.size());
  return EnvelopeBytes(fbb, wire::Payload::ErrorReply, wire::CreateErrorReply(fbb, t).Union());
}

std::string Clean(const flatbuffers::String* s, size_t max) {
  return s == nullptr ? "" : Printable(s->string_view(), max);
}

}  // namespace iashim::daemon

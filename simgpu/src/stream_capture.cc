// Stream capture: a capturing stream records its launches into a graph instead
// of running them (cuStreamBeginCapture .. cuStreamEndCapture).
//
// Captures and graphs are process-local, so their state lives in the Stream and
// Graph objects, guarded by one mutex. It is a leaf lock: nothing else is taken
// while it is held, so any caller may take it under its own locks.
#include <algorithm>
#include <mutex>
#include <vector>

#include "simgpu/src/driver.h"

namespace simgpu {
namespace {

std::mutex& CaptureMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

// Every stream now capturing, so that context-wide calls can find them.
std::vector<Stream*>& CapturingStreams() {
  static auto* streams = new std::vector<Stream*>();
  return *streams;
}

// Capture ids are unique over the life of the process, as CUDA promises.
uint64_t next_capture_id = 1;

// Ends `stream`'s capture and returns its graph. Needs the capture mutex.
Graph* Detach(Stream* stream) {
  Graph* g = stream->capture.load(std::memory_order_relaxed);
  stream->capture.store(nullptr, std::memory_order_release);
  std::erase(CapturingStreams(), stream);
  if (g != nullptr) g->capturing = nullptr;
  return g;
}

}  // namespace

CUresult BeginCapture(Stream* stream, CUstreamCaptureMode mode) {
  if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
      mode != CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_ERROR_INVALID_VALUE;
  // The legacy stream synchronises with every other stream: it cannot be captured.
  if (stream == &stream->ctx->legacy) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::lock_guard<std::mutex> lock(CaptureMutex());
  if (stream->capture.load(std::memory_order_relaxed) != nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  auto* g = new Graph();
  g->ctx = stream->ctx;
  g->capturing = stream;
  g->capture_id = next_capture_id++;
  g->mode = mode;
  g->thread = std::this_thread::get_id();
  stream->capture.store(g, std::memory_order_release);
  CapturingStreams().push_back(stream);
  return CUDA_SUCCESS;
}

CUresult EndCapture(Stream* stream, Graph** graph) {
  *graph = nullptr;
  std::lock_guard<std::mutex> lock(CaptureMutex());
  Graph* g = stream->capture.load(std::memory_order_relaxed);
  if (g == nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  if (g->mode != CU_STREAM_CAPTURE_MODE_RELAXED && g->thread != std::this_thread::get_id())
    return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
  Detach(stream);
  if (g->invalidated) {
    g->magic = 0;
    delete g;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *graph = g;
  return CUDA_SUCCESS;
}

CUstreamCaptureStatus CaptureStatus(Stream* stream, uint64_t* id, Graph** graph, GraphNode** last) {
  std::lock_guard<std::mutex> lock(CaptureMutex());
  Graph* g = stream->capture.load(std::memory_order_relaxed);
  if (g == nullptr) return CU_STREAM_CAPTURE_STATUS_NONE;
  if (id != nullptr) *id = g->capture_id;
  if (graph != nullptr) *graph = g;
  if (last != nullptr) *last = g->nodes.empty() ? nullptr : g->nodes.back().get();
  return g->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

CUresult CaptureNode(Stream* stream, const GraphNode& node, bool* captured) {
  std::lock_guard<std::mutex> lock(CaptureMutex());
  Graph* g = stream->capture.load(std::memory_order_relaxed);
  *captured = g != nullptr;
  if (g == nullptr) return CUDA_SUCCESS;
  // Work pushed into an invalidated capture is neither run nor recorded.
  if (g->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  g->nodes.push_back(std::make_unique<GraphNode>(node));
  return CUDA_SUCCESS;
}

CUresult RejectIfCapturing(Stream* stream) {
  if (!Capturing(stream)) return CUDA_SUCCESS;
  std::lock_guard<std::mutex> lock(CaptureMutex());
  Graph* g = stream->capture.load(std::memory_order_relaxed);
  if (g == nullptr) return CUDA_SUCCESS;
  g->invalidated = true;
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

CUresult RejectIfContextCapturing(Context* ctx) {
  std::lock_guard<std::mutex> lock(CaptureMutex());
  bool any = false;
  for (Stream* s : CapturingStreams()) {
    if (s->ctx != ctx) continue;
    s->capture.load(std::memory_order_relaxed)->invalidated = true;
    any = true;
  }
  return any ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

void AbortCapture(Stream* stream) {
  if (!Capturing(stream)) return;
  std::lock_guard<std::mutex> lock(CaptureMutex());
  if (Graph* g = Detach(stream); g != nullptr) {
    g->magic = 0;
    delete g;
  }
}

bool BeingCaptured(Graph* graph) {
  std::lock_guard<std::mutex> lock(CaptureMutex());
  return graph->capturing != nullptr;
}

}  // namespace simgpu

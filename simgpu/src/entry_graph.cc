// Entry points: CUDA graphs made by stream capture.
//
// A captured graph is the stream's kernel launches and external event records in
// order (stream_capture.cc). Instantiating copies them; launching enqueues them
// on the launch stream, so a graph takes the same simulated time as the work it
// captured. Of the graphs built node by node, only memory nodes are modelled
// (entry_graph_memory.cc).
#include <cstdio>

#include "simgpu/src/driver.h"

using simgpu::Event;
using simgpu::Graph;
using simgpu::GraphExec;
using simgpu::GraphNode;
using simgpu::NodeKind;
using simgpu::Stream;

namespace {

constexpr unsigned long long kInstantiateFlags =
    CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
    CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;

CUresult BeginCapture(CUstream h, CUstreamCaptureMode mode, bool per_thread) {
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  return simgpu::BeginCapture(s, mode);
}

CUresult EndCapture(CUstream h, CUgraph* out, bool per_thread) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  Graph* g = nullptr;
  rc = simgpu::EndCapture(s, &g);
  *out = reinterpret_cast<CUgraph>(g);  // NULL when the capture was invalidated
  return rc;
}

CUresult IsCapturing(CUstream h, CUstreamCaptureStatus* status, bool per_thread) {
  if (status == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  *status = simgpu::CaptureStatus(s, nullptr, nullptr, nullptr);
  return CUDA_SUCCESS;
}

// Every cuStreamGetCaptureInfo variant. A captured graph is a chain, so the next
// node depends on the last one captured (none at first); all edges are default.
CUresult CaptureInfo(CUstream h, bool per_thread, CUstreamCaptureStatus* status, cuuint64_t* id,
                     CUgraph* graph, const CUgraphNode** deps, const CUgraphEdgeData** edges,
                     size_t* num_deps) {
  if (status == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (edges != nullptr && deps == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  uint64_t capture_id = 0;
  Graph* g = nullptr;
  GraphNode* last = nullptr;
  *status = simgpu::CaptureStatus(s, &capture_id, &g, &last);
  if (*status != CU_STREAM_CAPTURE_STATUS_ACTIVE) return CUDA_SUCCESS;
  // The driver-owned dependency array: valid until this thread's next query.
  thread_local CUgraphNode dependency;
  dependency = reinterpret_cast<CUgraphNode>(last);
  if (id != nullptr) *id = capture_id;
  if (graph != nullptr) *graph = reinterpret_cast<CUgraph>(g);
  if (deps != nullptr) *deps = last != nullptr ? &dependency : nullptr;
  if (edges != nullptr) *edges = nullptr;
  if (num_deps != nullptr) *num_deps = last != nullptr ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult Instantiate(CUgraphExec* out, CUgraph hgraph, unsigned long long flags) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Graph* g = simgpu::AsGraph(hgraph);
  if (g == nullptr || simgpu::BeingCaptured(g)) return CUDA_ERROR_INVALID_VALUE;
  if (flags & ~kInstantiateFlags) return CUDA_ERROR_INVALID_VALUE;
  // Device launch excludes auto-free and needs something to launch.
  if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) {
    if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) || g->nodes.empty())
      return CUDA_ERROR_INVALID_VALUE;
  }
  auto* exec = new GraphExec();
  exec->ctx = g->ctx;
  exec->nodes.reserve(g->nodes.size());
  for (const auto& node : g->nodes) exec->nodes.push_back(*node);
  *out = reinterpret_cast<CUgraphExec>(exec);
  return CUDA_SUCCESS;
}

// The CUDA 10/11 form, with an error node and a log written only on failure.
CUresult InstantiateWithLog(CUgraphExec* out, CUgraph hgraph, CUgraphNode* error_node, char* log,
                            size_t log_size) {
  const CUresult rc = Instantiate(out, hgraph, 0);
  if (rc != CUDA_SUCCESS) {
    if (error_node != nullptr) *error_node = nullptr;
    if (log != nullptr && log_size > 0) std::snprintf(log, log_size, "simgpu: invalid graph");
  }
  return rc;
}

CUresult InstantiateWithParams(CUgraphExec* out, CUgraph hgraph,
                               CUDA_GRAPH_INSTANTIATE_PARAMS* params, bool per_thread) {
  if (params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  params->hErrNode_out = nullptr;
  params->result_out = CUDA_GRAPH_INSTANTIATE_ERROR;
  if (params->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) {
    // The upload itself costs nothing here, but its stream must be valid.
    CUresult rc;
    if (simgpu::ResolveStream(params->hUploadStream, per_thread, &rc) == nullptr) return rc;
  }
  const CUresult rc = Instantiate(out, hgraph, params->flags);
  if (rc == CUDA_SUCCESS) params->result_out = CUDA_GRAPH_INSTANTIATE_SUCCESS;
  return rc;
}

CUresult Launch(CUgraphExec hexec, CUstream h, bool per_thread) {
  GraphExec* exec = simgpu::AsGraphExec(hexec);
  if (exec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc;
  Stream* s = simgpu::ResolveStream(h, per_thread, &rc);
  if (s == nullptr) return rc;
  // A graph made by cuGraphCreate outside any context may launch anywhere.
  if (exec->ctx != nullptr && s->ctx->dev != exec->ctx->dev) return CUDA_ERROR_INVALID_VALUE;
  for (const GraphNode& node : exec->nodes) {
    // Memory nodes did their work when added (entry_graph_memory.cc).
    if (node.kind == NodeKind::kMemAlloc || node.kind == NodeKind::kMemFree) continue;
    // Launched into a capture, the graph's work joins it (as a child graph would).
    if (simgpu::Capturing(s)) {
      bool captured = false;
      rc = simgpu::CaptureNode(s, node, &captured);
      if (rc != CUDA_SUCCESS) return rc;
      if (captured) continue;
    }
    if (node.kind == NodeKind::kKernel) {
      simgpu::EnqueueBlocking(s, simgpu::KernelOp(node.model, node.blocks, s));
    } else if (Event* e = simgpu::AsEvent(reinterpret_cast<CUevent>(node.event));
               e != nullptr && e->ctx->dev == s->ctx->dev) {
      simgpu::RecordEvent(e, s);
    }
  }
  return CUDA_SUCCESS;
}

}  // namespace

// ---- Capture ---------------------------------------------------------------

SIMGPU_EXPORT CUresult cuStreamBeginCapture(CUstream h) {
  return BeginCapture(h, CU_STREAM_CAPTURE_MODE_GLOBAL, false);
}
SIMGPU_EXPORT CUresult cuStreamBeginCapture_ptsz(CUstream h) {
  return BeginCapture(h, CU_STREAM_CAPTURE_MODE_GLOBAL, true);
}
SIMGPU_EXPORT CUresult cuStreamBeginCapture_v2(CUstream h, CUstreamCaptureMode mode) {
  return BeginCapture(h, mode, false);
}
SIMGPU_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream h, CUstreamCaptureMode mode) {
  return BeginCapture(h, mode, true);
}

SIMGPU_EXPORT CUresult cuStreamEndCapture(CUstream h, CUgraph* graph) {
  return EndCapture(h, graph, false);
}
SIMGPU_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream h, CUgraph* graph) {
  return EndCapture(h, graph, true);
}

SIMGPU_EXPORT CUresult cuStreamIsCapturing(CUstream h, CUstreamCaptureStatus* status) {
  return IsCapturing(h, status, false);
}
SIMGPU_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream h, CUstreamCaptureStatus* status) {
  return IsCapturing(h, status, true);
}

SIMGPU_EXPORT CUresult cuStreamGetCaptureInfo(CUstream h, CUstreamCaptureStatus* status,
                                              cuuint64_t* id) {
  return CaptureInfo(h, false, status, id, nullptr, nullptr, nullptr, nullptr);
}
SIMGPU_EXPORT CUresult cuStreamGetCaptureInfo_ptsz(CUstream h, CUstreamCaptureStatus* status,
                                                   cuuint64_t* id) {
  return CaptureInfo(h, true, status, id, nullptr, nullptr, nullptr, nullptr);
}
SIMGPU_EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream h, CUstreamCaptureStatus* status,
                                                 cuuint64_t* id, CUgraph* graph,
                                                 const CUgraphNode** deps, size_t* num_deps) {
  return CaptureInfo(h, false, status, id, graph, deps, nullptr, num_deps);
}
SIMGPU_EXPORT CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream h, CUstreamCaptureStatus* status,
                                                      cuuint64_t* id, CUgraph* graph,
                                                      const CUgraphNode** deps, size_t* num_deps) {
  return CaptureInfo(h, true, status, id, graph, deps, nullptr, num_deps);
}
SIMGPU_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream h, CUstreamCaptureStatus* status,
                                                 cuuint64_t* id, CUgraph* graph,
                                                 const CUgraphNode** deps,
                                                 const CUgraphEdgeData** edges, size_t* num_deps) {
  return CaptureInfo(h, false, status, id, graph, deps, edges, num_deps);
}
SIMGPU_EXPORT CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream h, CUstreamCaptureStatus* status,
                                                      cuuint64_t* id, CUgraph* graph,
                                                      const CUgraphNode** deps,
                                                      const CUgraphEdgeData** edges,
                                                      size_t* num_deps) {
  return CaptureInfo(h, true, status, id, graph, deps, edges, num_deps);
}

// ---- Graphs ----------------------------------------------------------------

SIMGPU_EXPORT CUresult cuGraphInstantiate(CUgraphExec* exec, CUgraph graph, CUgraphNode* error_node,
                                          char* log, size_t log_size) {
  return InstantiateWithLog(exec, graph, error_node, log, log_size);
}

SIMGPU_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec* exec, CUgraph graph,
                                             CUgraphNode* error_node, char* log, size_t log_size) {
  return InstantiateWithLog(exec, graph, error_node, log, log_size);
}

SIMGPU_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph,
                                                   unsigned long long flags) {
  // Uploading at instantiation needs a stream: only the params form offers one.
  if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) return CUDA_ERROR_INVALID_VALUE;
  return Instantiate(exec, graph, flags);
}

SIMGPU_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec* exec, CUgraph graph,
                                                    CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
  return InstantiateWithParams(exec, graph, params, false);
}

SIMGPU_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec* exec, CUgraph graph,
                                                         CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
  return InstantiateWithParams(exec, graph, params, true);
}

SIMGPU_EXPORT CUresult cuGraphLaunch(CUgraphExec exec, CUstream h) {
  return Launch(exec, h, false);
}

SIMGPU_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec exec, CUstream h) {
  return Launch(exec, h, true);
}

SIMGPU_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hexec) {
  GraphExec* exec = simgpu::AsGraphExec(hexec);
  if (exec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  // Launched work is already queued on its streams and completes regardless.
  exec->magic = 0;
  delete exec;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuGraphDestroy(CUgraph hgraph) {
  Graph* g = simgpu::AsGraph(hgraph);
  // A graph being captured belongs to its capture until cuStreamEndCapture.
  if (g == nullptr || simgpu::BeingCaptured(g)) return CUDA_ERROR_INVALID_VALUE;
  simgpu::ReleaseGraphMemory(g);
  for (auto& node : g->nodes) node->magic = 0;
  g->magic = 0;
  delete g;
  return CUDA_SUCCESS;
}

// Entry points: graphs built node by node, with memory-allocation and memory-free
// nodes (cuGraphCreate, cuGraphAddMemAllocNode, cuGraphAddMemFreeNode,
// cuGraphAddNode for those two types).
//
// An allocation node takes its device memory when it is added, and writes its
// address into the caller's parameters; a real driver maps the physical memory
// at the graph's first launch, but the address is fixed at the add on both. The
// memory is given back by cuMemFree/cuMemFreeAsync on that address (allowed for
// graph allocations), by cuGraphDestroy of a graph holding both the allocation
// node and a free node for it, or at process exit. Launching such a graph does
// no memory work. Dependencies are checked for form only: nodes run in add order.
#include <vector>

#include "simgpu/src/driver.h"

using simgpu::Driver;
using simgpu::Graph;
using simgpu::GraphNode;
using simgpu::NodeKind;

namespace {

// The graph nodes may be added to: a live graph that no stream captures into.
Graph* EditableGraph(CUgraph hgraph) {
  Graph* g = simgpu::AsGraph(hgraph);
  return g != nullptr && !simgpu::BeingCaptured(g) ? g : nullptr;
}

CUresult CheckDependencies(const CUgraphNode* deps, size_t count) {
  if (count > 0 && deps == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; ++i) {
    if (simgpu::AsGraphNode(deps[i]) == nullptr) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUgraphNode Append(Graph* g, std::unique_ptr<GraphNode> node) {
  g->nodes.push_back(std::move(node));
  return reinterpret_cast<CUgraphNode>(g->nodes.back().get());
}

// Pinned device memory on one visible device, without IPC handles: what a
// graph allocation may be.
CUresult CheckPoolProps(const CUmemPoolProps& props) {
  if (props.allocType != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  if (props.handleTypes != CU_MEM_HANDLE_TYPE_NONE) return CUDA_ERROR_INVALID_VALUE;
  if (props.location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = simgpu::CheckDevice(props.location.id); rc != CUDA_SUCCESS)
    return rc == CUDA_ERROR_INVALID_DEVICE ? CUDA_ERROR_INVALID_VALUE : rc;
  return CUDA_SUCCESS;
}

// Both versions of the allocation node's parameters have the same fields.
template <typename Params>
CUresult AddAllocNode(CUgraphNode* out, CUgraph hgraph, const CUgraphNode* deps, size_t num_deps,
                      Params* params) {
  if (out == nullptr || params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Graph* g = EditableGraph(hgraph);
  if (g == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDependencies(deps, num_deps); rc != CUDA_SUCCESS) return rc;
  if (CUresult rc = CheckPoolProps(params->poolProps); rc != CUDA_SUCCESS) return rc;
  if (params->bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  if (params->accessDescCount > 0 && params->accessDescs == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (params->accessDescCount > size_t(Driver::Get().visible_count()))
    return CUDA_ERROR_INVALID_VALUE;
  auto node = std::make_unique<GraphNode>();
  node->kind = NodeKind::kMemAlloc;
  if (CUresult rc = Driver::Get().AllocateForGraph(params->poolProps.location.id, params->bytesize,
                                                   &node->dptr, &node->alloc_id);
      rc != CUDA_SUCCESS)
    return rc;
  node->alloc.poolProps = params->poolProps;
  node->alloc.accessDescCount = params->accessDescCount;
  node->alloc.bytesize = params->bytesize;
  node->alloc.dptr = node->dptr;
  node->access.assign(params->accessDescs, params->accessDescs + params->accessDescCount);
  params->dptr = node->dptr;
  *out = Append(g, std::move(node));
  return CUDA_SUCCESS;
}

// `dptr` must be a live graph allocation, freed at most once in this graph.
CUresult AddFreeNode(CUgraphNode* out, CUgraph hgraph, const CUgraphNode* deps, size_t num_deps,
                     CUdeviceptr dptr) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Graph* g = EditableGraph(hgraph);
  if (g == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckDependencies(deps, num_deps); rc != CUDA_SUCCESS) return rc;
  if (!Driver::Get().IsGraphAllocation(dptr)) return CUDA_ERROR_INVALID_VALUE;
  for (const auto& n : g->nodes) {
    if (n->kind == NodeKind::kMemFree && n->dptr == dptr) return CUDA_ERROR_INVALID_VALUE;
  }
  auto node = std::make_unique<GraphNode>();
  node->kind = NodeKind::kMemFree;
  node->dptr = dptr;
  *out = Append(g, std::move(node));
  return CUDA_SUCCESS;
}

// cuGraphAddNode, with or without edge data (ignored, as dependencies are).
CUresult AddNode(CUgraphNode* out, CUgraph hgraph, const CUgraphNode* deps, size_t num_deps,
                 CUgraphNodeParams* params) {
  if (params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (params->reserved0[0] != 0 || params->reserved0[1] != 0 || params->reserved0[2] != 0 ||
      params->reserved2 != 0)
    return CUDA_ERROR_INVALID_VALUE;
  switch (params->type) {
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
      return AddAllocNode(out, hgraph, deps, num_deps, &params->alloc);
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
      return AddFreeNode(out, hgraph, deps, num_deps, params->free.dptr);
    default:
      return CUDA_ERROR_NOT_SUPPORTED;  // other node types are not modelled
  }
}

}  // namespace

namespace simgpu {

void ReleaseGraphMemory(Graph* graph) {
  for (const auto& free_node : graph->nodes) {
    if (free_node->kind != NodeKind::kMemFree) continue;
    for (const auto& alloc_node : graph->nodes) {
      // Only if cuMemFree has not given it back already.
      if (alloc_node->kind == NodeKind::kMemAlloc && alloc_node->dptr == free_node->dptr)
        Driver::Get().FreeGraphAllocation(alloc_node->dptr, alloc_node->alloc_id);
    }
  }
}

}  // namespace simgpu

SIMGPU_EXPORT CUresult cuGraphCreate(CUgraph* out, unsigned int flags) {
  if (out == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  // Not bound to a context: it may be launched on any device's stream.
  *out = reinterpret_cast<CUgraph>(new Graph());
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode* out, CUgraph graph,
                                              const CUgraphNode* deps, size_t num_deps,
                                              CUDA_MEM_ALLOC_NODE_PARAMS* params) {
  return AddAllocNode(out, graph, deps, num_deps, params);
}

SIMGPU_EXPORT CUresult cuGraphAddMemFreeNode(CUgraphNode* out, CUgraph graph,
                                             const CUgraphNode* deps, size_t num_deps,
                                             CUdeviceptr dptr) {
  return AddFreeNode(out, graph, deps, num_deps, dptr);
}

SIMGPU_EXPORT CUresult cuGraphMemAllocNodeGetParams(CUgraphNode hnode,
                                                    CUDA_MEM_ALLOC_NODE_PARAMS* params) {
  const GraphNode* node = simgpu::AsGraphNode(hnode);
  if (node == nullptr || params == nullptr || node->kind != NodeKind::kMemAlloc)
    return CUDA_ERROR_INVALID_VALUE;
  *params = node->alloc;
  // The driver's copy, valid while the node lives.
  params->accessDescs = node->access.empty() ? nullptr : node->access.data();
  return CUDA_SUCCESS;
}

// The CUDA 12.2 form (cuda.h's cuGraphAddNode means cuGraphAddNode_v2 since 12.3).
SIMGPU_EXPORT CUresult cuGraphAddNode(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                                      size_t num_deps, CUgraphNodeParams* params) {
  return AddNode(out, graph, deps, num_deps, params);
}

SIMGPU_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                                         const CUgraphEdgeData*, size_t num_deps,
                                         CUgraphNodeParams* params) {
  return AddNode(out, graph, deps, num_deps, params);
}

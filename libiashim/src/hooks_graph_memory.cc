// Hooks: graph memory nodes. A CUDA graph may allocate device memory itself
// (cuGraphAddMemAllocNode, or cuGraphAddNode with a memory-allocation node),
// which no cuMemAlloc call shows; PyTorch's CUDA graphs and NCCL's graph
// captures do. The node's bytes are charged against the quota on its device
// when the node is added, under the address the driver gives it, which is
// earlier than the driver maps memory (at the graph's launch) and so errs
// toward refusing, never toward letting a graph past the quota.
//
// They come back when the address is freed outside the graph (cuMemFree_v2 or
// cuMemFreeAsync, hooks_memory.cc), or, for an allocation that a free node of a
// graph releases, when that graph is destroyed: until then the graph's memory
// pool keeps the memory for the graph's next launch.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "libiashim/src/allocation_path.h"
#include "libiashim/src/cuda_api.h"
#include "libiashim/src/real_driver.h"

using iashim::MemoryLedger;

namespace {

// Addresses that a free node of a graph releases, by graph. Touched only when
// graphs are built and destroyed, so a mutex is fine.
class GraphFrees {
 public:
  static GraphFrees& Get() {
    static GraphFrees* frees = new GraphFrees;  // never destroyed: hooks may run at exit
    return *frees;
  }

  void Add(CUgraph graph, CUdeviceptr dptr) {
    std::lock_guard<std::mutex> lock(mu_);
    try {
      frees_.emplace_back(graph, dptr);
    } catch (...) {
      // Out of memory: the allocation then stays charged until the process ends.
    }
  }

  // Takes out the addresses `graph`'s free nodes release, for its destroy.
  std::vector<uint64_t> Take(CUgraph graph) {
    std::lock_guard<std::mutex> lock(mu_);
    auto freed = std::stable_partition(frees_.begin(), frees_.end(),
                                       [graph](const auto& f) { return f.first != graph; });
    std::vector<uint64_t> keys;
    try {
      keys.reserve(static_cast<size_t>(frees_.end() - freed));
      for (auto it = freed; it != frees_.end(); ++it) keys.push_back(it->second);
    } catch (...) {
      // Out of memory: their bytes come back now, before the destroy, rather
      // than never.
      iashim::Runtime* rt = iashim::ActiveRuntime();
      for (auto it = freed; rt != nullptr && it != frees_.end(); ++it) {
        rt->memory().Forget(MemoryLedger::Kind::kPointer, it->second);
      }
    }
    frees_.erase(freed, frees_.end());
    return keys;
  }

  // Puts back what Take took when the destroy failed (the graph still holds it).
  void PutBack(CUgraph graph, const std::vector<uint64_t>& keys) {
    for (uint64_t key : keys) Add(graph, key);
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<CUgraph, CUdeviceptr>> frees_;
};

int DeviceOf(const CUmemPoolProps& props) {
  return props.location.type == CU_MEM_LOCATION_TYPE_DEVICE ? props.location.id : -1;
}

// `add()` adds an allocation node described by `params` (whose dptr it fills).
template <typename Params, typename AddFn>
CUresult AddAllocation(const char* call, Params* params, AddFn&& add) {
  if (params == nullptr) return add();
  return iashim::Allocate(call, MemoryLedger::Kind::kPointer, DeviceOf(params->poolProps),
                          params->bytesize, [&](uint64_t* key) {
                            const CUresult rc = add();
                            if (rc == CUDA_SUCCESS) *key = params->dptr;
                            return rc;
                          });
}

template <typename Fn>
CUresult AddNode(Fn real, CUgraphNode* node, CUgraph graph, CUgraphNodeParams* params,
                 auto&&... dependencies) {
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  auto add = [&] { return real(node, graph, dependencies..., params); };
  if (params != nullptr && params->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
    return AddAllocation("cuGraphAddNode", &params->alloc, add);
  }
  const CUresult rc = add();
  if (rc == CUDA_SUCCESS && params != nullptr && params->type == CU_GRAPH_NODE_TYPE_MEM_FREE) {
    GraphFrees::Get().Add(graph, params->free.dptr);
  }
  return rc;
}

}  // namespace

IASHIM_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode* node, CUgraph graph,
                                              const CUgraphNode* dependencies, size_t count,
                                              CUDA_MEM_ALLOC_NODE_PARAMS* params) {
  auto real = IASHIM_REAL(cuGraphAddMemAllocNode);
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  return AddAllocation("cuGraphAddMemAllocNode", params,
                       [&] { return real(node, graph, dependencies, count, params); });
}

IASHIM_EXPORT CUresult cuGraphAddMemFreeNode(CUgraphNode* node, CUgraph graph,
                                             const CUgraphNode* dependencies, size_t count,
                                             CUdeviceptr dptr) {
  auto real = IASHIM_REAL(cuGraphAddMemFreeNode);
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  const CUresult rc = real(node, graph, dependencies, count, dptr);
  if (rc == CUDA_SUCCESS) GraphFrees::Get().Add(graph, dptr);
  return rc;
}

IASHIM_EXPORT CUresult cuGraphAddNode(CUgraphNode* node, CUgraph graph,
                                      const CUgraphNode* dependencies, size_t count,
                                      CUgraphNodeParams* params) {
  return AddNode(IASHIM_REAL(cuGraphAddNode), node, graph, params, dependencies, count);
}

IASHIM_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode* node, CUgraph graph,
                                         const CUgraphNode* dependencies,
                                         const CUgraphEdgeData* edges, size_t count,
                                         CUgraphNodeParams* params) {
  return AddNode(IASHIM_REAL(cuGraphAddNode_v2), node, graph, params, dependencies, edges, count);
}

IASHIM_EXPORT CUresult cuGraphDestroy(CUgraph graph) {
  auto real = IASHIM_REAL(cuGraphDestroy);
  if (real == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  // What the graph's free nodes released comes out of the ledger before the
  // real destroy, like a free's record (allocation_path.h, Deallocate): once
  // the graph's memory is released its addresses can be another thread's.
  const std::vector<uint64_t> freed = GraphFrees::Get().Take(graph);
  const CUresult rc = iashim::DeallocateAll(MemoryLedger::Kind::kPointer, freed,
                                            [&] { return real(graph); });
  if (rc != CUDA_SUCCESS) GraphFrees::Get().PutBack(graph, freed);
  return rc;
}

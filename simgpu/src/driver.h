// Process-local side of the simulated driver: the objects behind CUDA handles
// and the process-wide state (devices, current contexts, allocations).
//
// Handles are pointers to the objects below. Each object carries a magic word so
// that a wrong or destroyed handle is usually reported as CUDA_ERROR_INVALID_HANDLE
// rather than crashing; as with the real driver, using a destroyed handle is a bug.
#ifndef SIMGPU_DRIVER_H_
#define SIMGPU_DRIVER_H_

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "simgpu/include/simgpu/collective.h"
#include "simgpu/src/device_state.h"
#include "simgpu/src/module_image.h"
#include "simgpu/src/shared_device.h"

#define SIMGPU_EXPORT extern "C" __attribute__((visibility("default")))

namespace simgpu {

inline constexpr uint32_t kContextMagic = 0xC0C7E47u;
inline constexpr uint32_t kStreamMagic = 0x57AEA3u;
inline constexpr uint32_t kEventMagic = 0xE7E47u;
inline constexpr uint32_t kModuleMagic = 0x30D71Eu;
inline constexpr uint32_t kFunctionMagic = 0xF7C710u;
inline constexpr uint32_t kLibraryMagic = 0x11B7A7u;
inline constexpr uint32_t kGraphMagic = 0x67A9Fu;
inline constexpr uint32_t kGraphExecMagic = 0x67A9FE8u;
inline constexpr uint32_t kMemPoolMagic = 0x3E3900u;
inline constexpr uint32_t kGraphNodeMagic = 0x67A9F40u;
inline constexpr uint32_t kArrayMagic = 0xA77A4u;
inline constexpr uint32_t kMipmappedArrayMagic = 0x313A77A4u;

struct Context;
struct Graph;

struct Stream {
  uint32_t magic = kStreamMagic;
  Context* ctx = nullptr;
  int slot = -1;
  uint32_t generation = 0;
  unsigned flags = 0;
  int priority = 0;  // as cuStreamCreateWithPriority set it; lower runs first (not modelled)
  // The graph this stream is capturing into, or null. Changed only under the
  // capture mutex (stream_capture.cc); atomic so launches can check it cheaply.
  std::atomic<Graph*> capture{nullptr};
};

struct Context {
  uint32_t magic = kContextMagic;
  int ordinal = 0;   // visible device index (CUdevice)
  int physical = 0;  // index into the simulated devices
  SharedDevice* dev = nullptr;
  bool primary = false;
  unsigned flags = 0;
  Stream legacy;     // the NULL stream
  std::mutex mu;     // guards streams
  std::vector<Stream*> streams;
};

struct Function;
struct Module {
  uint32_t magic = kModuleMagic;
  Context* ctx = nullptr;
  std::vector<std::unique_ptr<Function>> functions;
};

// A context-independent library (cuLibraryLoadData). Its CUkernel handles are
// its Function objects, so a CUkernel may be passed wherever a CUfunction is
// expected, as on CUDA 12.
struct Library {
  uint32_t magic = kLibraryMagic;
  std::vector<std::unique_ptr<Function>> functions;
};

struct Function {
  uint32_t magic = kFunctionMagic;
  Module* module = nullptr;    // set for cuModuleGetFunction's functions
  Library* library = nullptr;  // set for a library's kernels
  KernelModel model;
  // What the legacy launch API (cuFuncSetBlockShape, cuParamSet*) set for
  // cuLaunch/cuLaunchGrid(Async); a block of 0 threads means never set.
  std::mutex legacy_mu;
  unsigned block[3] = {0, 0, 0};
  unsigned shared_bytes = 0;
  unsigned param_size = 0;
  std::vector<unsigned char> params;
};

struct Event {
  uint32_t magic = kEventMagic;
  Context* ctx = nullptr;
  int slot = -1;
  unsigned flags = 0;
  bool recorded = false;
  int stream_slot = -1;
  uint32_t stream_generation = 0;
  uint64_t seq = 0;
  uint32_t event_generation = 0;
  // Last recorded by a plain record into a capturing stream: such an event
  // only marks a point of the capture, and waiting on it is an error.
  bool captured = false;
};

enum class NodeKind { kKernel, kEventRecord, kMemAlloc, kMemFree };

// One operation of a graph: a kernel launch, an event record, or a memory
// allocation or free (entry_graph_memory.cc), which does its work when added.
struct GraphNode {
  uint32_t magic = kGraphNodeMagic;
  NodeKind kind = NodeKind::kKernel;
  KernelModel model;       // kKernel: a copy, so the graph outlives its module
  uint64_t blocks = 0;     // kKernel
  Event* event = nullptr;  // kEventRecord
  CUdeviceptr dptr = 0;    // kMemAlloc, kMemFree
  uint64_t alloc_id = 0;   // kMemAlloc: Driver's id of the allocation
  // kMemAlloc: the parameters as given, with the access descriptors copied.
  CUDA_MEM_ALLOC_NODE_PARAMS alloc{};
  std::vector<CUmemAccessDesc> access;
};

// A graph made by stream capture, or by cuGraphCreate and memory nodes: its
// nodes run in order.
struct Graph {
  uint32_t magic = kGraphMagic;
  Context* ctx = nullptr;
  std::vector<std::unique_ptr<GraphNode>> nodes;  // stable addresses: CUgraphNode handles
  // While being captured (stream_capture.cc, under its mutex).
  Stream* capturing = nullptr;
  bool invalidated = false;
  uint64_t capture_id = 0;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  std::thread::id thread;
};

struct GraphExec {
  uint32_t magic = kGraphExecMagic;
  Context* ctx = nullptr;
  std::vector<GraphNode> nodes;
};

// A stream-ordered memory pool. Allocations are accounted on the device as soon
// as they are made and returned as soon as they are freed (a release threshold
// of 0); the pool only bounds its own total (maxSize).
struct MemPool {
  uint32_t magic = kMemPoolMagic;
  int ordinal = 0;
  bool is_default = false;
  size_t max_size = 0;  // 0: bounded only by the device
  // Guarded by the driver's mutex.
  size_t used = 0;
  size_t outstanding = 0;  // allocations not yet freed
  bool destroyed = false;  // deleted when the last outstanding allocation is freed
};

struct Allocation {
  size_t bytes;
  int physical;
  void* base;
  size_t mapped;
  MemPool* pool;  // the pool it came from, or null
  uint64_t id;    // tells it from a later allocation at the same address
  bool graph;     // made by a graph's memory-allocation node
  // The calling thread's current context when it was made, or null: the
  // driver frees a context's memory with it (cuCtxDestroy,
  // cuDevicePrimaryCtxReset, the primary context's last release).
  const Context* owner;
};

// The device memory behind an array: taken without an address
// (ReserveDeviceMemory) on `ordinal` for the context current at creation,
// which gives it back when it is torn down (Driver::ReleaseArrays).
struct ArrayMemory {
  int ordinal = 0;
  size_t bytes = 0;
  const Context* owner = nullptr;
  bool released = false;  // its context took the memory back; guarded by the driver's mutex
};

// A CUDA array (cuArrayCreate, cuArray3DCreate): simgpu moves no texels.
struct Array {
  uint32_t magic = kArrayMagic;
  CUDA_ARRAY3D_DESCRIPTOR desc{};
  ArrayMemory memory;
};

struct MipmappedArray {
  uint32_t magic = kMipmappedArrayMagic;
  CUDA_ARRAY3D_DESCRIPTOR desc{};
  unsigned levels = 0;
  ArrayMemory memory;
};

class Driver {
 public:
  // The process-wide driver. Never destroyed, so no static destruction order
  // matters; process slots are released by an atexit handler.
  static Driver& Get();

  CUresult Init();
  bool initialized() const { return init_result_.load() == CUDA_SUCCESS; }
  CUresult init_result() const { return init_result_.load(); }

  int visible_count() const { return static_cast<int>(visible_.size()); }
  const DeviceSpec& spec(int ordinal) const { return physical_[visible_[ordinal]]; }

  // The shared device behind visible `ordinal`, opened on first use.
  SharedDevice* Device(int ordinal, CUresult* rc);
  Context* Primary(int ordinal, CUresult* rc);
  int primary_refs(int ordinal);
  void AdjustPrimaryRefs(int ordinal, int delta);
  unsigned primary_flags(int ordinal);
  void set_primary_flags(int ordinal, unsigned flags);

  Context* NewContext(int ordinal, unsigned flags, CUresult* rc);
  void DestroyContext(Context* ctx);
  // What the primary context's reset and its last release do: waits for its
  // work, frees its memory (FreeContextMemory) and destroys the streams made
  // in it, whose handles are then invalid. The context itself, its NULL
  // stream and its modules stay: the next retain finds it as before.
  void ResetPrimary(Context* ctx);

  // Device memory: real host address space, reserved lazily so large simulated
  // allocations cost no RAM until touched. Allocates on visible device
  // `ordinal`, counting against `pool` if given.
  CUresult Allocate(int ordinal, size_t bytes, CUdeviceptr* out, MemPool* pool = nullptr);
  // An allocation of a graph's memory-allocation node; `*id` names it for FreeGraphAllocation.
  CUresult AllocateForGraph(int ordinal, size_t bytes, CUdeviceptr* out, uint64_t* id);
  CUresult Free(CUdeviceptr ptr);
  // Frees `ptr` if it is still the graph allocation `id` (cuMemFree may have
  // freed it, and the address been reused, since).
  CUresult FreeGraphAllocation(CUdeviceptr ptr, uint64_t id);
  // Frees every allocation `ctx` owns (Allocation::owner) and gives back its
  // arrays' memory: what the driver does when a context is destroyed or reset.
  void FreeContextMemory(const Context* ctx);
  // Whether `ptr` is the start of a live allocation of a graph's allocation node.
  bool IsGraphAllocation(CUdeviceptr ptr);

  // A collective launch of rank `args.rank` of group `args.group` on `dev`:
  // joins the group the first time this process launches for that rank, and
  // numbers the launch (1, 2, ... per rank). CUDA_ERROR_INVALID_VALUE, with one
  // line on stderr, if the group cannot be joined.
  CUresult NextCollective(SharedDevice* dev, const simgpu_collective_args& args, int32_t* slot,
                          uint64_t* seq);
  // SIMGPU_LINK_GBPS, or the default (collective_cost.h).
  double link_gbps() const { return link_gbps_; }
  // SIMGPU_FABRIC_GBPS, or the default (collective_cost.h).
  double fabric_gbps() const { return fabric_gbps_; }
  // Whether [ptr, ptr + bytes) lies in one allocation, or in mapped virtual
  // memory that grants read (or, with `write`, read-write) access.
  bool Contains(CUdeviceptr ptr, size_t bytes, bool write = false);

  // Device memory without an address (VMM physical memory): accounted to this
  // process on visible device `ordinal`, shared with every process of the namespace.
  CUresult ReserveDeviceMemory(int ordinal, size_t bytes);
  void ReturnDeviceMemory(int ordinal, size_t bytes);

  // An array's memory, from creation to destroy: taken for the current
  // context, and given back by ForgetArray unless its context took it back
  // first. ForgetArray says whether the array was still the context's
  // (false: the context is gone, and so is the handle's use).
  CUresult AdoptArray(ArrayMemory* memory, size_t bytes);
  bool ForgetArray(ArrayMemory* memory);

  // The default pool of visible device `ordinal`, made on first use.
  MemPool* DefaultPool(int ordinal);
  // Destroys `pool` now, or when its last allocation is freed.
  void DestroyPool(MemPool* pool);

  void ReleaseAll();

 private:
  Driver() = default;
  CUresult DoInit();
  CUresult AllocateTagged(int ordinal, size_t bytes, CUdeviceptr* out, MemPool* pool, bool graph,
                          uint64_t* id);

  std::atomic<CUresult> init_result_{CUDA_ERROR_NOT_INITIALIZED};
  std::once_flag init_once_;
  std::string ns_;
  std::vector<DeviceSpec> physical_;
  std::vector<int> visible_;

  std::mutex mu_;  // guards everything below
  std::vector<std::unique_ptr<SharedDevice>> devices_;  // by physical index
  std::vector<Context*> primaries_;                      // by ordinal
  std::vector<int> primary_refs_;
  std::vector<unsigned> primary_flags_;
  std::map<uintptr_t, Allocation> allocations_;
  std::set<ArrayMemory*> arrays_;  // every live array's and mipmapped array's memory
  std::vector<MemPool*> default_pools_;  // by ordinal
  uint64_t next_allocation_id_ = 1;
  double link_gbps_ = 0;
  double fabric_gbps_ = 0;
  // This process's ranks of collective groups: (group, rank) -> slot and launches.
  struct CollectiveMembership {
    int32_t slot;
    uint64_t launched;
  };
  std::map<std::pair<std::string, uint32_t>, CollectiveMembership> collectives_;
};

// CUDA_SUCCESS if the driver is initialised and `ordinal` is a visible device.
CUresult CheckDevice(int ordinal);

// Per-thread context stack (the top is the current context).
Context* CurrentContext();
void SetCurrentContext(Context* ctx);
std::vector<Context*>& ContextStack();

// Handle checks.
Context* AsContext(CUcontext c);
Stream* AsStream(CUstream s);
Event* AsEvent(CUevent e);
Module* AsModule(CUmodule m);
Function* AsFunction(CUfunction f);
Library* AsLibrary(CUlibrary l);
// A library's kernel (CUkernel handles are Functions with a library).
Function* AsKernel(CUkernel k);
Graph* AsGraph(CUgraph g);
GraphExec* AsGraphExec(CUgraphExec g);
MemPool* AsMemPool(CUmemoryPool p);
GraphNode* AsGraphNode(CUgraphNode n);
Array* AsArray(CUarray a);
MipmappedArray* AsMipmappedArray(CUmipmappedArray m);

// The function called `name` among a module's or library's, or null.
Function* FindFunction(const std::vector<std::unique_ptr<Function>>& functions, const char* name);

// Resolves a stream handle in the current context: NULL means the legacy
// stream, or this thread's stream when `per_thread` (the _ptsz/_ptds entry
// points, or CU_STREAM_PER_THREAD). Returns nullptr if invalid.
Stream* ResolveStream(CUstream s, bool per_thread, CUresult* rc);

// Launches `blocks` of `f`, or captures the launch if the stream captures; every
// launch entry point goes through it (entry_launch.cc).
// `params` are the kernel's parameters, read only by collectives (their first
// points to a simgpu_collective_args).
CUresult LaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                      unsigned by, unsigned bz, CUstream hstream, bool per_thread,
                      bool cooperative, void** params);

// Enqueues `op` on `stream`, blocking while its queue is full. Returns its seq.
uint64_t EnqueueBlocking(Stream* stream, const Op& op);
// The queued work of a launch of `blocks` blocks of `model` on `stream`'s device.
Op KernelOp(const KernelModel& model, uint64_t blocks, const Stream* stream);
// The queued work of collective `seq` of rank `rank` of the group in `slot`:
// it waits for the other ranks, then transfers for `transfer_ns`, or for
// `spanning_ns` if the group's ranks are on more than one node.
Op CollectiveOp(const KernelModel& model, uint64_t blocks, const Stream* stream, int32_t slot,
                uint32_t rank, uint64_t seq, double transfer_ns, double spanning_ns);
// Records `e` on `stream` (not capturing): it completes when the stream reaches it.
void RecordEvent(Event* e, Stream* stream);
// Waits for every op enqueued on `stream` so far.
void SyncStream(Stream* stream);
void SyncContext(Context* ctx);

// Logs "simgpu: <what>" once per distinct message.
void LogOnce(const std::string& what);

// ---- Stream capture (stream_capture.cc) ------------------------------------
// While a stream captures, kernel launches and external event records are
// appended to its graph instead of running. Other work on it (copies,
// synchronisation, stream-ordered allocation) cannot be captured by simgpu:
// it fails with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the
// capture, as an illegal call does on real CUDA.

// Whether `stream` is capturing (a fast check; CaptureNode has the final word).
inline bool Capturing(const Stream* stream) {
  return stream->capture.load(std::memory_order_acquire) != nullptr;
}
CUresult BeginCapture(Stream* stream, CUstreamCaptureMode mode);
// Ends the capture; on success `*graph` is the captured graph, owned by the caller.
CUresult EndCapture(Stream* stream, Graph** graph);
// The stream's capture status; while it captures, also its capture id, graph and
// last captured node (null if none yet).
CUstreamCaptureStatus CaptureStatus(Stream* stream, uint64_t* id, Graph** graph, GraphNode** last);
// If `stream` is capturing, appends `node` and sets `*captured` (or fails with
// CUDA_ERROR_STREAM_CAPTURE_INVALIDATED if the capture was invalidated).
CUresult CaptureNode(Stream* stream, const GraphNode& node, bool* captured);
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, invalidating the capture, if `stream`
// is capturing; CUDA_SUCCESS otherwise.
CUresult RejectIfCapturing(Stream* stream);
// The same for a context-wide operation while any stream of `ctx` captures.
CUresult RejectIfContextCapturing(Context* ctx);
// Drops the capture of a stream being destroyed.
void AbortCapture(Stream* stream);
// Whether `graph` is still being captured into.
bool BeingCaptured(Graph* graph);

// ---- Graph memory nodes (entry_graph_memory.cc) ----------------------------
// Gives back the memory of every allocation node of `graph` that a free node
// of the same graph frees (at cuGraphDestroy).
void ReleaseGraphMemory(Graph* graph);

// ---- Virtual memory (entry_vmm.cc) -----------------------------------------
// Whether [ptr, ptr + bytes) is contiguous mapped virtual memory with at least
// read (or, with `write`, read-write) access.
bool VirtualMemoryAccessible(CUdeviceptr ptr, size_t bytes, bool write);

}  // namespace simgpu

#endif  // SIMGPU_DRIVER_H_

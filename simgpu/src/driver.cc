#include "simgpu/src/driver.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "simgpu/src/collective_cost.h"
#include "simgpu/src/config_parse.h"
#include "simgpu/src/device_slots.h"
#include "simgpu/src/timeline.h"

namespace simgpu {
namespace {

// A bandwidth in GB/s from the environment variable `name`, `fallback` when it
// is unset; nullopt, after a line on stderr saying what it should hold, when
// it is not a number in SIMGPU_LINK_GBPS's range.
std::optional<double> BandwidthFromEnv(const char* name, const char* what, double fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr) return fallback;
  const std::optional<double> gbps = ParseLinkGbps(text);
  if (!gbps) {
    std::fprintf(stderr, "simgpu: %s='%s' is invalid: give %s in GB/s, 0.01..100000\n", name,
                 text, what);
  }
  return gbps;
}

}  // namespace

Driver& Driver::Get() {
  static Driver* driver = new Driver();
  return *driver;
}

CUresult Driver::Init() {
  std::call_once(init_once_, [this] { init_result_.store(DoInit()); });
  return init_result_.load();
}

CUresult Driver::DoInit() {
  const char* ns_env = std::getenv("SIMGPU_NAMESPACE");
  if (ns_env != nullptr) {
    if (!ValidNamespace(ns_env)) {
      std::fprintf(stderr,
                   "simgpu: SIMGPU_NAMESPACE='%s' is invalid: use 1..64 letters, digits, '.', "
                   "'_' or '-'\n",
                   ns_env);
      return CUDA_ERROR_INVALID_VALUE;
    }
    ns_ = ns_env;
  } else {
    ns_ = "simgpu-" + std::to_string(::getuid());
  }
  const char* devices_env = std::getenv("SIMGPU_DEVICES");
  std::string error;
  if (!ParseDeviceList(devices_env != nullptr ? devices_env : kDefaultDevices, ns_, &physical_,
                       &error)) {
    std::fprintf(stderr, "simgpu: SIMGPU_DEVICES='%s' is invalid: %s\n", devices_env,
                 error.c_str());
    return CUDA_ERROR_INVALID_VALUE;
  }
  const std::optional<double> link_gbps =
      BandwidthFromEnv("SIMGPU_LINK_GBPS", "the links' bus bandwidth", kDefaultLinkGbps);
  const std::optional<double> fabric_gbps =
      BandwidthFromEnv("SIMGPU_FABRIC_GBPS", "the bandwidth between nodes", kDefaultFabricGbps);
  if (!link_gbps || !fabric_gbps) return CUDA_ERROR_INVALID_VALUE;
  link_gbps_ = *link_gbps;
  fabric_gbps_ = *fabric_gbps;
  const char* visible_env = std::getenv("CUDA_VISIBLE_DEVICES");
  visible_ = ParseVisibleDevices(
      visible_env ? std::optional<std::string_view>(visible_env) : std::nullopt, physical_);
  devices_.resize(physical_.size());
  primaries_.assign(visible_.size(), nullptr);
  primary_refs_.assign(visible_.size(), 0);
  primary_flags_.assign(visible_.size(), 0);
  std::atexit([] { Driver::Get().ReleaseAll(); });
  return visible_.empty() ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

SharedDevice* Driver::Device(int ordinal, CUresult* rc) {
  std::lock_guard<std::mutex> lock(mu_);
  const int physical = visible_[ordinal];
  if (!devices_[physical]) {
    std::string error;
    devices_[physical] = SharedDevice::Open(ns_, physical, physical_[physical], true, &error);
    if (!devices_[physical]) {
      LogOnce("cannot open device " + std::to_string(physical) + ": " + error);
      *rc = CUDA_ERROR_OPERATING_SYSTEM;
      return nullptr;
    }
  }
  *rc = CUDA_SUCCESS;
  return devices_[physical].get();
}

Context* Driver::NewContext(int ordinal, unsigned flags, CUresult* rc) {
  SharedDevice* dev = Device(ordinal, rc);
  if (dev == nullptr) return nullptr;
  auto ctx = std::make_unique<Context>();
  ctx->ordinal = ordinal;
  ctx->physical = visible_[ordinal];
  ctx->dev = dev;
  ctx->flags = flags;
  {
    SharedDevice::Lock lock(*dev);
    lock.AdvanceToNow();
    const int slot = AllocStream(lock.state(), dev->process_slot());
    if (slot < 0) {
      *rc = CUDA_ERROR_OUT_OF_MEMORY;
      return nullptr;
    }
    ctx->legacy.ctx = ctx.get();
    ctx->legacy.slot = slot;
    ctx->legacy.generation = lock.state().streams[slot].generation;
  }
  *rc = CUDA_SUCCESS;
  return ctx.release();
}

namespace {

// Destroys the streams made in `ctx` (not its NULL stream), giving back their
// slots on the shared device.
void DestroyCreatedStreams(SharedDevice::Lock& lock, Context* ctx) {
  std::lock_guard<std::mutex> guard(ctx->mu);
  for (Stream* s : ctx->streams) {
    AbortCapture(s);
    ReleaseStream(lock.state(), s->slot);
    s->magic = 0;
    delete s;
  }
  ctx->streams.clear();
}

}  // namespace

void Driver::DestroyContext(Context* ctx) {
  SyncContext(ctx);
  FreeContextMemory(ctx);
  {
    SharedDevice::Lock lock(*ctx->dev);
    DestroyCreatedStreams(lock, ctx);
    ReleaseStream(lock.state(), ctx->legacy.slot);
  }
  ctx->magic = 0;
  delete ctx;
}

void Driver::ResetPrimary(Context* ctx) {
  SyncContext(ctx);
  FreeContextMemory(ctx);
  SharedDevice::Lock lock(*ctx->dev);
  DestroyCreatedStreams(lock, ctx);
}

Context* Driver::Primary(int ordinal, CUresult* rc) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (primaries_[ordinal] != nullptr) {
      *rc = CUDA_SUCCESS;
      return primaries_[ordinal];
    }
  }
  Context* ctx = NewContext(ordinal, primary_flags(ordinal), rc);
  if (ctx == nullptr) return nullptr;
  ctx->primary = true;
  std::lock_guard<std::mutex> lock(mu_);
  if (primaries_[ordinal] != nullptr) {  // another thread won the race
    ctx->magic = 0;
    delete ctx;
    return primaries_[ordinal];
  }
  primaries_[ordinal] = ctx;
  return ctx;
}

int Driver::primary_refs(int ordinal) {
  std::lock_guard<std::mutex> lock(mu_);
  return primary_refs_[ordinal];
}

void Driver::AdjustPrimaryRefs(int ordinal, int delta) {
  std::lock_guard<std::mutex> lock(mu_);
  primary_refs_[ordinal] = std::max(0, primary_refs_[ordinal] + delta);
}

unsigned Driver::primary_flags(int ordinal) {
  std::lock_guard<std::mutex> lock(mu_);
  return primary_flags_[ordinal];
}

void Driver::set_primary_flags(int ordinal, unsigned flags) {
  std::lock_guard<std::mutex> lock(mu_);
  primary_flags_[ordinal] = flags;
}

CUresult Driver::ReserveDeviceMemory(int ordinal, size_t bytes) {
  CUresult rc;
  SharedDevice* dev = Device(ordinal, &rc);
  if (dev == nullptr) return rc;
  SharedDevice::Lock lock(*dev);
  lock.AdvanceToNow();
  if (!ReserveMemory(lock.state(), dev->process_slot(), bytes)) return CUDA_ERROR_OUT_OF_MEMORY;
  return CUDA_SUCCESS;
}

void Driver::ReturnDeviceMemory(int ordinal, size_t bytes) {
  CUresult rc;
  SharedDevice* dev = Device(ordinal, &rc);
  if (dev == nullptr) return;
  SharedDevice::Lock lock(*dev);
  ReturnMemory(lock.state(), dev->process_slot(), bytes);
}

CUresult Driver::Allocate(int ordinal, size_t bytes, CUdeviceptr* out, MemPool* pool) {
  uint64_t id;
  return AllocateTagged(ordinal, bytes, out, pool, false, &id);
}

CUresult Driver::AllocateForGraph(int ordinal, size_t bytes, CUdeviceptr* out, uint64_t* id) {
  return AllocateTagged(ordinal, bytes, out, nullptr, true, id);
}

CUresult Driver::AllocateTagged(int ordinal, size_t bytes, CUdeviceptr* out, MemPool* pool,
                                bool graph, uint64_t* id) {
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (pool != nullptr) {
    // The pool's bound is checked and taken first, so that concurrent
    // allocations cannot overshoot it together.
    std::lock_guard<std::mutex> lock(mu_);
    if (pool->max_size != 0 && bytes > pool->max_size - pool->used)
      return CUDA_ERROR_OUT_OF_MEMORY;
    pool->used += bytes;
    pool->outstanding++;
  }
  auto undo_pool = [&] {
    if (pool == nullptr) return;
    std::lock_guard<std::mutex> lock(mu_);
    pool->used -= bytes;
    pool->outstanding--;
  };
  if (CUresult rc = ReserveDeviceMemory(ordinal, bytes); rc != CUDA_SUCCESS) {
    undo_pool();
    return rc;
  }
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t mapped = (bytes + page - 1) / page * page;
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    ReturnDeviceMemory(ordinal, bytes);
    undo_pool();
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  std::lock_guard<std::mutex> lock(mu_);
  *id = next_allocation_id_++;
  allocations_[reinterpret_cast<uintptr_t>(p)] = {
      bytes, visible_[ordinal], p, mapped, pool, *id, graph, CurrentContext()};
  *out = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

CUresult Driver::Free(CUdeviceptr ptr) { return FreeGraphAllocation(ptr, 0); }

CUresult Driver::FreeGraphAllocation(CUdeviceptr ptr, uint64_t id) {
  Allocation a;
  SharedDevice* dev;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = allocations_.find(static_cast<uintptr_t>(ptr));
    if (it == allocations_.end()) return CUDA_ERROR_INVALID_VALUE;
    if (id != 0 && it->second.id != id) return CUDA_ERROR_INVALID_VALUE;
    a = it->second;
    allocations_.erase(it);
    dev = devices_[a.physical].get();
    if (a.pool != nullptr) {
      a.pool->used -= a.bytes;
      if (--a.pool->outstanding == 0 && a.pool->destroyed) delete a.pool;
    }
  }
  ::munmap(a.base, a.mapped);
  SharedDevice::Lock lock(*dev);
  ReturnMemory(lock.state(), dev->process_slot(), a.bytes);
  return CUDA_SUCCESS;
}

void Driver::FreeContextMemory(const Context* ctx) {
  std::vector<std::pair<CUdeviceptr, uint64_t>> owned;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [address, a] : allocations_) {
      if (a.owner == ctx) owned.emplace_back(static_cast<CUdeviceptr>(address), a.id);
    }
  }
  // By id: a free on another thread meanwhile, and a new allocation at the
  // same address, are left alone.
  for (const auto& [ptr, id] : owned) FreeGraphAllocation(ptr, id);

  std::vector<std::pair<int, size_t>> arrays;  // ordinal, bytes
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (ArrayMemory* m : arrays_) {
      if (m->owner != ctx || m->released) continue;
      m->released = true;
      arrays.emplace_back(m->ordinal, m->bytes);
    }
  }
  for (const auto& [ordinal, bytes] : arrays) ReturnDeviceMemory(ordinal, bytes);
}

CUresult Driver::AdoptArray(ArrayMemory* memory, size_t bytes) {
  const Context* ctx = CurrentContext();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (CUresult rc = ReserveDeviceMemory(ctx->ordinal, bytes); rc != CUDA_SUCCESS) return rc;
  memory->ordinal = ctx->ordinal;
  memory->bytes = bytes;
  memory->owner = ctx;
  std::lock_guard<std::mutex> lock(mu_);
  arrays_.insert(memory);
  return CUDA_SUCCESS;
}

bool Driver::ForgetArray(ArrayMemory* memory) {
  bool released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    arrays_.erase(memory);
    released = memory->released;
  }
  if (!released) ReturnDeviceMemory(memory->ordinal, memory->bytes);
  return !released;
}

CUresult Driver::NextCollective(SharedDevice* dev, const simgpu_collective_args& args,
                               int32_t* slot, uint64_t* seq) {
  const std::string group(args.group, strnlen(args.group, sizeof(args.group)));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = collectives_.find({group, args.rank});
  if (it == collectives_.end()) {
    std::string error = "no collective groups (shared memory)";
    const int joined = dev->collectives() == nullptr
                           ? -1
                           : dev->collectives()->Join(group, args.rank, args.nranks,
                                                      static_cast<int32_t>(::getpid()),
                                                      SelfStartTicks(), dev->index(), &error);
    if (joined < 0) {
      LogOnce("collective launch refused: " + error);
      return CUDA_ERROR_INVALID_VALUE;
    }
    it = collectives_.emplace(std::make_pair(group, args.rank), CollectiveMembership{joined, 0})
             .first;
  }
  *slot = it->second.slot;
  *seq = ++it->second.launched;
  return CUDA_SUCCESS;
}

bool Driver::IsGraphAllocation(CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = allocations_.find(static_cast<uintptr_t>(ptr));
  return it != allocations_.end() && it->second.graph;
}

bool Driver::Contains(CUdeviceptr ptr, size_t bytes, bool write) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = allocations_.upper_bound(static_cast<uintptr_t>(ptr));
    if (it != allocations_.begin()) {
      --it;
      const uintptr_t start = it->first;
      if (ptr >= start && ptr - start <= it->second.bytes &&
          bytes <= it->second.bytes - (ptr - start))
        return true;
    }
  }
  return VirtualMemoryAccessible(ptr, bytes, write);
}

MemPool* Driver::DefaultPool(int ordinal) {
  std::lock_guard<std::mutex> lock(mu_);
  if (default_pools_.empty()) default_pools_.assign(visible_.size(), nullptr);
  if (default_pools_[ordinal] == nullptr) {
    default_pools_[ordinal] = new MemPool();
    default_pools_[ordinal]->ordinal = ordinal;
    default_pools_[ordinal]->is_default = true;
  }
  return default_pools_[ordinal];
}

void Driver::DestroyPool(MemPool* pool) {
  std::lock_guard<std::mutex> lock(mu_);
  // Outstanding allocations stay valid, as on real CUDA; the last free deletes it.
  pool->magic = 0;
  pool->destroyed = true;
  if (pool->outstanding == 0) delete pool;
}

void Driver::ReleaseAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& d : devices_) {
    if (d) d->ReleaseSelf();
  }
}

CUresult CheckDevice(int ordinal) {
  Driver& d = Driver::Get();
  if (!d.initialized())
    return d.init_result() == CUDA_ERROR_NOT_INITIALIZED ? CUDA_ERROR_NOT_INITIALIZED
                                                         : d.init_result();
  if (ordinal < 0 || ordinal >= d.visible_count()) return CUDA_ERROR_INVALID_DEVICE;
  return CUDA_SUCCESS;
}

// ---- Current context -------------------------------------------------------

std::vector<Context*>& ContextStack() {
  thread_local std::vector<Context*> stack;
  return stack;
}

Context* CurrentContext() {
  auto& stack = ContextStack();
  return stack.empty() ? nullptr : stack.back();
}

void SetCurrentContext(Context* ctx) {
  auto& stack = ContextStack();
  if (stack.empty()) {
    if (ctx != nullptr) stack.push_back(ctx);
  } else if (ctx == nullptr) {
    stack.pop_back();
  } else {
    stack.back() = ctx;
  }
}

// ---- Handles ---------------------------------------------------------------

namespace {

// The object behind a handle, if the handle points at a live object of type T.
template <typename T>
T* FromHandle(void* handle, uint32_t magic) {
  auto* p = static_cast<T*>(handle);
  return p != nullptr && p->magic == magic ? p : nullptr;
}

}  // namespace

Context* AsContext(CUcontext c) { return FromHandle<Context>(c, kContextMagic); }
Stream* AsStream(CUstream s) { return FromHandle<Stream>(s, kStreamMagic); }
Event* AsEvent(CUevent e) { return FromHandle<Event>(e, kEventMagic); }
Module* AsModule(CUmodule m) { return FromHandle<Module>(m, kModuleMagic); }
Function* AsFunction(CUfunction f) { return FromHandle<Function>(f, kFunctionMagic); }
Library* AsLibrary(CUlibrary l) { return FromHandle<Library>(l, kLibraryMagic); }
Function* AsKernel(CUkernel k) {
  Function* f = FromHandle<Function>(k, kFunctionMagic);
  return f != nullptr && f->library != nullptr ? f : nullptr;
}
Graph* AsGraph(CUgraph g) { return FromHandle<Graph>(g, kGraphMagic); }
GraphExec* AsGraphExec(CUgraphExec g) { return FromHandle<GraphExec>(g, kGraphExecMagic); }
MemPool* AsMemPool(CUmemoryPool p) { return FromHandle<MemPool>(p, kMemPoolMagic); }
GraphNode* AsGraphNode(CUgraphNode n) { return FromHandle<GraphNode>(n, kGraphNodeMagic); }
Array* AsArray(CUarray a) { return FromHandle<Array>(a, kArrayMagic); }
MipmappedArray* AsMipmappedArray(CUmipmappedArray m) {
  return FromHandle<MipmappedArray>(m, kMipmappedArrayMagic);
}

Function* FindFunction(const std::vector<std::unique_ptr<Function>>& functions, const char* name) {
  for (const auto& f : functions) {
    if (f->model.name == name) return f.get();
  }
  return nullptr;
}

namespace {

// This thread's per-thread default stream of each context it has used.
class PerThreadStreams {
 public:
  ~PerThreadStreams() {
    for (auto& [ctx, stream] : streams_) {
      if (ctx->magic != kContextMagic) continue;
      AbortCapture(stream);
      SharedDevice::Lock lock(*ctx->dev);
      ReleaseStream(lock.state(), stream->slot);
      delete stream;
    }
  }
  Stream* Get(Context* ctx) {
    for (auto& [c, s] : streams_) {
      if (c == ctx) return s;
    }
    SharedDevice::Lock lock(*ctx->dev);
    lock.AdvanceToNow();
    const int slot = AllocStream(lock.state(), ctx->dev->process_slot());
    if (slot < 0) return nullptr;
    auto* s = new Stream();
    s->ctx = ctx;
    s->slot = slot;
    s->generation = lock.state().streams[slot].generation;
    streams_.emplace_back(ctx, s);
    return s;
  }

 private:
  std::vector<std::pair<Context*, Stream*>> streams_;
};

}  // namespace

Stream* ResolveStream(CUstream s, bool per_thread, CUresult* rc) {
  *rc = CUDA_SUCCESS;
  if (s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) {
    Context* ctx = CurrentContext();
    if (ctx == nullptr) {
      *rc = CUDA_ERROR_INVALID_CONTEXT;
      return nullptr;
    }
    if (s == CU_STREAM_PER_THREAD || (s == nullptr && per_thread)) {
      thread_local PerThreadStreams per_thread_streams;
      Stream* st = per_thread_streams.Get(ctx);
      if (st == nullptr) *rc = CUDA_ERROR_OUT_OF_MEMORY;
      return st;
    }
    return &ctx->legacy;
  }
  Stream* st = AsStream(s);
  if (st == nullptr) *rc = CUDA_ERROR_INVALID_HANDLE;
  return st;
}

uint64_t EnqueueBlocking(Stream* stream, const Op& op) {
  SharedDevice* dev = stream->ctx->dev;
  for (;;) {
    uint64_t seq = 0;
    uint64_t head_seq = 0;
    {
      SharedDevice::Lock lock(*dev);
      lock.AdvanceToNow();
      if (Enqueue(lock.state(), stream->slot, op, &seq)) return seq;
      head_seq = lock.state().streams[stream->slot].completed + 1;
    }
    // Queue full: wait for its oldest op, as a real launch queue does.
    dev->WaitForCompletion(stream->slot, stream->generation, head_seq);
  }
}

Op KernelOp(const KernelModel& model, uint64_t blocks, const Stream* stream) {
  const int sms = stream->ctx->dev->state().spec.sm_count;
  Op op{};
  op.kind = OpKind::kKernel;
  op.remaining_ns = model.DurationNs(blocks, sms);
  op.mem_intensity = model.mem_intensity;
  op.sm_fill = KernelModel::SmFill(blocks, sms);
  op.event_slot = -1;
  return op;
}

Op CollectiveOp(const KernelModel& model, uint64_t blocks, const Stream* stream, int32_t slot,
                uint32_t rank, uint64_t seq, double transfer_ns, double spanning_ns) {
  Op op = KernelOp(model, blocks, stream);
  op.kind = OpKind::kCollectiveWaiting;
  op.remaining_ns = transfer_ns;
  op.spanning_ns = spanning_ns;
  op.event_slot = slot;
  op.event_generation = rank;
  op.collective_seq = seq;
  return op;
}

void RecordEvent(Event* e, Stream* stream) {
  uint32_t generation;
  {
    SharedDevice::Lock lock(*e->ctx->dev);
    EventSlot& slot = lock.state().events[e->slot];
    slot.generation++;
    slot.done = 0;
    generation = slot.generation;
  }
  Op op{};
  op.kind = OpKind::kEventRecord;
  op.event_slot = e->slot;
  op.event_generation = generation;
  e->seq = EnqueueBlocking(stream, op);
  e->stream_slot = stream->slot;
  e->stream_generation = stream->generation;
  e->event_generation = generation;
  e->recorded = true;
  e->captured = false;
}

void SyncStream(Stream* stream) {
  SharedDevice* dev = stream->ctx->dev;
  uint64_t target;
  {
    SharedDevice::Lock lock(*dev);
    target = lock.state().streams[stream->slot].enqueued;
  }
  dev->WaitForCompletion(stream->slot, stream->generation, target);
}

void SyncContext(Context* ctx) {
  // Every stream of this process on the device: created, legacy and per-thread.
  SharedDevice* dev = ctx->dev;
  struct Target {
    int slot;
    uint32_t generation;
    uint64_t seq;
  };
  std::vector<Target> targets;
  {
    SharedDevice::Lock lock(*dev);
    const DeviceState& s = lock.state();
    for (int i = 0; i < kMaxStreams; ++i) {
      const StreamSlot& st = s.streams[i];
      if (st.state != SlotState::kFree && st.process == dev->process_slot() &&
          st.enqueued > st.completed)
        targets.push_back({i, st.generation, st.enqueued});
    }
  }
  for (const Target& t : targets) dev->WaitForCompletion(t.slot, t.generation, t.seq);
}

void LogOnce(const std::string& what) {
  static std::mutex mu;
  static std::set<std::string>* seen = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  if (seen->insert(what).second) std::fprintf(stderr, "simgpu: %s\n", what.c_str());
}

}  // namespace simgpu

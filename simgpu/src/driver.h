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
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device_state.h"
#include "module_image.h"
#include "shared_device.h"

#define SIMGPU_EXPORT extern "C" __attribute__((visibility("default")))

namespace simgpu {

inline constexpr uint32_t kContextMagic = 0xC0C7E47u;
inline constexpr uint32_t kStreamMagic = 0x57AEA3u;
inline constexpr uint32_t kEventMagic = 0xE7E47u;
inline constexpr uint32_t kModuleMagic = 0x30D71Eu;
inline constexpr uint32_t kFunctionMagic = 0xF7C710u;

struct Context;

struct Stream {
  uint32_t magic = kStreamMagic;
  Context* ctx = nullptr;
  int slot = -1;
  uint32_t generation = 0;
  unsigned flags = 0;
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

struct Function {
  uint32_t magic = kFunctionMagic;
  Module* module = nullptr;
  KernelModel model;
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
};

struct Allocation {
  size_t bytes;
  int physical;
  void* base;
  size_t mapped;
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

  // Device memory: real host address space, reserved lazily so large simulated
  // allocations cost no RAM until touched.
  CUresult Allocate(Context* ctx, size_t bytes, CUdeviceptr* out);
  CUresult Free(CUdeviceptr ptr);
  // The allocation containing [ptr, ptr + bytes), or false.
  bool Contains(CUdeviceptr ptr, size_t bytes);

  void ReleaseAll();

 private:
  Driver() = default;
  CUresult DoInit();

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
};

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

// Resolves a stream handle in the current context: NULL means the legacy
// stream, or this thread's stream when `per_thread` (the _ptsz/_ptds entry
// points, or CU_STREAM_PER_THREAD). Returns nullptr if invalid.
Stream* ResolveStream(CUstream s, bool per_thread, CUresult* rc);

// Enqueues `op` on `stream`, blocking while its queue is full. Returns its seq.
uint64_t EnqueueBlocking(Stream* stream, const Op& op);
// Waits for every op enqueued on `stream` so far.
void SyncStream(Stream* stream);
void SyncContext(Context* ctx);

// Logs "simgpu: <what>" once per distinct message.
void LogOnce(const std::string& what);

}  // namespace simgpu

#endif  // SIMGPU_DRIVER_H_

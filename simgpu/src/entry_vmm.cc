// Entry points: virtual memory management (cuMemCreate, cuMemMap, ...).
//
// Physical memory is taken from the simulated device at cuMemCreate (so it is
// accounted across processes and fails with CUDA_ERROR_OUT_OF_MEMORY past
// capacity) and given back once the handle is released and no mapping uses it,
// as the driver documents. On the host it is a sparse memfd, so that mapping
// one allocation at two addresses shows the same bytes, and an address
// reservation is inaccessible address space. A mapping becomes readable or
// writable only through cuMemSetAccess, and copies check that access.
//
// Sizes, addresses and offsets of allocations and mappings must be multiples
// of the granularity (2 MiB, both minimum and recommended, as on current GPUs).
// Access is tracked per mapping: cuMemSetAccess and cuMemUnmap take ranges made
// of whole mappings, and the access that counts is the one given for the device
// the memory lives on (peer access is accepted but not modelled).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "simgpu/src/driver.h"

using simgpu::Driver;

namespace {

constexpr size_t kGranularity = 2u << 20;

struct Physical {
  int ordinal = 0;
  size_t size = 0;
  int fd = -1;
  int mappings = 0;
  bool released = false;
};

struct Mapping {
  uintptr_t end = 0;
  CUmemGenericAllocationHandle handle = 0;
  CUmemAccess_flags access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
};

// Process-wide state, guarded by `mu`. The device lock and the driver's mutex
// are only taken after `mu` is released.
struct VirtualMemory {
  std::mutex mu;
  CUmemGenericAllocationHandle next_handle = 1;
  std::map<CUmemGenericAllocationHandle, Physical> physical;
  std::map<uintptr_t, size_t> reservations;  // start -> size
  std::map<uintptr_t, Mapping> mappings;     // start -> mapping
};

VirtualMemory& Vm() {
  static auto* vm = new VirtualMemory();
  return *vm;
}

bool Aligned(uint64_t v, uint64_t a) { return v % a == 0; }

size_t PageSize() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

// Address space that faults on access, at `at` (replacing what is there) or anywhere.
void* InaccessibleSpace(void* at, size_t bytes) {
  const int fixed = at != nullptr ? MAP_FIXED : 0;
  return ::mmap(at, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | fixed, -1, 0);
}

int Protection(CUmemAccess_flags access) {
  switch (access) {
    case CU_MEM_ACCESS_FLAGS_PROT_READ:
      return PROT_READ;
    case CU_MEM_ACCESS_FLAGS_PROT_READWRITE:
      return PROT_READ | PROT_WRITE;
    default:
      return PROT_NONE;
  }
}

CUresult CheckProp(const CUmemAllocationProp* prop, CUresult bad_device) {
  if (prop == nullptr || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
    return CUDA_ERROR_INVALID_VALUE;
  // Only device memory is modelled (not host or NUMA-node allocations).
  if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
  if (prop->win32HandleMetaData != nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc = simgpu::CheckDevice(prop->location.id);
  return rc == CUDA_ERROR_INVALID_DEVICE ? bad_device : rc;
}

// The mappings that exactly tile [ptr, ptr + size), in order, or empty.
std::vector<std::map<uintptr_t, Mapping>::iterator> WholeMappings(VirtualMemory& vm, uintptr_t ptr,
                                                                  size_t size) {
  std::vector<std::map<uintptr_t, Mapping>::iterator> out;
  auto it = vm.mappings.find(ptr);
  uintptr_t at = ptr;
  while (it != vm.mappings.end() && it->first == at && at - ptr < size) {
    out.push_back(it);
    at = it->second.end;
    ++it;
  }
  if (at - ptr != size) out.clear();
  return out;
}

// Drops one mapping's use of `handle`; returns the device memory to give back
// (ordinal, bytes) once the handle is released and unmapped everywhere.
std::pair<int, size_t> Unuse(VirtualMemory& vm, CUmemGenericAllocationHandle handle) {
  auto it = vm.physical.find(handle);
  Physical& p = it->second;
  if (--p.mappings > 0 || !p.released) return {0, 0};
  std::pair<int, size_t> freed{p.ordinal, p.size};
  ::close(p.fd);
  vm.physical.erase(it);
  return freed;
}

void GiveBack(const std::vector<std::pair<int, size_t>>& freed) {
  for (const auto& [ordinal, bytes] : freed) {
    if (bytes > 0) Driver::Get().ReturnDeviceMemory(ordinal, bytes);
  }
}

}  // namespace

namespace simgpu {

bool VirtualMemoryAccessible(CUdeviceptr ptr, size_t bytes, bool write) {
  const CUmemAccess_flags need =
      write ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_READ;
  VirtualMemory& vm = Vm();
  std::lock_guard<std::mutex> lock(vm.mu);
  auto it = vm.mappings.upper_bound(ptr);
  if (it == vm.mappings.begin()) return false;
  --it;
  // Adjacent mappings form one contiguous range, as they do on the device.
  const uintptr_t end = ptr + bytes;
  if (end < ptr) return false;
  uintptr_t at = ptr;
  while (it != vm.mappings.end() && it->first <= at && at < it->second.end) {
    if ((it->second.access & need) != need) return false;
    at = it->second.end;
    if (at >= end) return true;
    ++it;
  }
  return false;
}

}  // namespace simgpu

SIMGPU_EXPORT CUresult cuMemGetAllocationGranularity(size_t* granularity,
                                                     const CUmemAllocationProp* prop,
                                                     CUmemAllocationGranularity_flags option) {
  if (granularity == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckProp(prop, CUDA_ERROR_INVALID_VALUE); rc != CUDA_SUCCESS) return rc;
  *granularity = kGranularity;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                                   const CUmemAllocationProp* prop, unsigned long long flags) {
  if (handle == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = CheckProp(prop, CUDA_ERROR_INVALID_DEVICE); rc != CUDA_SUCCESS) return rc;
  if (size == 0 || !Aligned(size, kGranularity)) return CUDA_ERROR_INVALID_VALUE;
  const int ordinal = prop->location.id;
  if (CUresult rc = Driver::Get().ReserveDeviceMemory(ordinal, size); rc != CUDA_SUCCESS) return rc;
  const int fd = ::memfd_create("simgpu-vmm", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    if (fd >= 0) ::close(fd);
    Driver::Get().ReturnDeviceMemory(ordinal, size);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  VirtualMemory& vm = Vm();
  std::lock_guard<std::mutex> lock(vm.mu);
  const CUmemGenericAllocationHandle h = vm.next_handle++;
  Physical& p = vm.physical[h];
  p.ordinal = ordinal;
  p.size = size;
  p.fd = fd;
  *handle = h;
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  VirtualMemory& vm = Vm();
  std::pair<int, size_t> freed{0, 0};
  {
    std::lock_guard<std::mutex> lock(vm.mu);
    auto it = vm.physical.find(handle);
    if (it == vm.physical.end() || it->second.released) return CUDA_ERROR_INVALID_VALUE;
    Physical& p = it->second;
    p.released = true;
    // Mapped memory stays until its last mapping goes.
    if (p.mappings == 0) {
      freed = {p.ordinal, p.size};
      ::close(p.fd);
      vm.physical.erase(it);
    }
  }
  GiveBack({freed});
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment,
                                           CUdeviceptr addr, unsigned long long flags) {
  if (ptr == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  const size_t page = PageSize();
  if (size == 0 || !Aligned(size, page) || !Aligned(addr, page)) return CUDA_ERROR_INVALID_VALUE;
  if (alignment & (alignment - 1)) return CUDA_ERROR_INVALID_VALUE;  // zero or a power of two
  // Reservations start on a granule, so that they can be mapped from their start.
  const size_t align = std::max(alignment, kGranularity);
  void* at = nullptr;
  if (addr != 0 && Aligned(addr, align)) {
    // The hint is honoured when that space is free.
    void* want = reinterpret_cast<void*>(addr);
    void* p = ::mmap(want, size, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == want) {
      at = p;
    } else if (p != MAP_FAILED) {
      ::munmap(p, size);
    }
  }
  if (at == nullptr) {
    if (size > SIZE_MAX - align) return CUDA_ERROR_INVALID_VALUE;
    void* p = InaccessibleSpace(nullptr, size + align);
    if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    // Trim to an aligned range of `size`.
    const uintptr_t raw = reinterpret_cast<uintptr_t>(p);
    const uintptr_t start = (raw + align - 1) / align * align;
    if (start > raw) ::munmap(p, start - raw);
    if (raw + size + align > start + size)
      ::munmap(reinterpret_cast<void*>(start + size), raw + size + align - (start + size));
    at = reinterpret_cast<void*>(start);
  }
  VirtualMemory& vm = Vm();
  std::lock_guard<std::mutex> lock(vm.mu);
  vm.reservations[reinterpret_cast<uintptr_t>(at)] = size;
  *ptr = reinterpret_cast<CUdeviceptr>(at);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  VirtualMemory& vm = Vm();
  std::lock_guard<std::mutex> lock(vm.mu);
  auto it = vm.reservations.find(ptr);
  if (it == vm.reservations.end() || it->second != size) return CUDA_ERROR_INVALID_VALUE;
  // simgpu requires the range unmapped first, so a leaked mapping is reported.
  auto m = vm.mappings.lower_bound(ptr);
  if (m != vm.mappings.end() && m->first < ptr + size) return CUDA_ERROR_INVALID_VALUE;
  ::munmap(reinterpret_cast<void*>(ptr), size);
  vm.reservations.erase(it);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                                CUmemGenericAllocationHandle handle, unsigned long long flags) {
  if (flags != 0 || size == 0) return CUDA_ERROR_INVALID_VALUE;
  if (!Aligned(ptr, kGranularity) || !Aligned(size, kGranularity) || !Aligned(offset, kGranularity))
    return CUDA_ERROR_INVALID_VALUE;
  VirtualMemory& vm = Vm();
  std::lock_guard<std::mutex> lock(vm.mu);
  auto p = vm.physical.find(handle);
  if (p == vm.physical.end() || p->second.released) return CUDA_ERROR_INVALID_VALUE;
  if (offset > p->second.size || size > p->second.size - offset) return CUDA_ERROR_INVALID_VALUE;
  // Inside one reservation...
  auto r = vm.reservations.upper_bound(ptr);
  if (r == vm.reservations.begin()) return CUDA_ERROR_INVALID_VALUE;
  --r;
  if (ptr - r->first > r->second || size > r->second - (ptr - r->first))
    return CUDA_ERROR_INVALID_VALUE;
  // ... over no existing mapping.
  auto next = vm.mappings.lower_bound(ptr);
  if (next != vm.mappings.end() && next->first < ptr + size) return CUDA_ERROR_INVALID_VALUE;
  if (next != vm.mappings.begin() && std::prev(next)->second.end > ptr)
    return CUDA_ERROR_INVALID_VALUE;
  // Mapped without access until cuMemSetAccess.
  void* at = ::mmap(reinterpret_cast<void*>(ptr), size, PROT_NONE, MAP_SHARED | MAP_FIXED,
                    p->second.fd, static_cast<off_t>(offset));
  if (at == MAP_FAILED) {
    InaccessibleSpace(reinterpret_cast<void*>(ptr), size);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  p->second.mappings++;
  vm.mappings[ptr] = {ptr + size, handle, CU_MEM_ACCESS_FLAGS_PROT_NONE};
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  if (size == 0) return CUDA_ERROR_INVALID_VALUE;
  VirtualMemory& vm = Vm();
  std::vector<std::pair<int, size_t>> freed;
  {
    std::lock_guard<std::mutex> lock(vm.mu);
    auto whole = WholeMappings(vm, ptr, size);
    if (whole.empty()) return CUDA_ERROR_INVALID_VALUE;
    for (auto it : whole) {
      // Back to reserved address space.
      InaccessibleSpace(reinterpret_cast<void*>(it->first), it->second.end - it->first);
      freed.push_back(Unuse(vm, it->second.handle));
      vm.mappings.erase(it);
    }
  }
  GiveBack(freed);
  return CUDA_SUCCESS;
}

SIMGPU_EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc,
                                      size_t count) {
  if (desc == nullptr || count == 0 || size == 0) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult rc = simgpu::CheckDevice(desc[i].location.id); rc != CUDA_SUCCESS) return rc;
    const CUmemAccess_flags f = desc[i].flags;
    if (f != CU_MEM_ACCESS_FLAGS_PROT_NONE && f != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        f != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return CUDA_ERROR_INVALID_VALUE;
  }
  VirtualMemory& vm = Vm();
  std::lock_guard<std::mutex> lock(vm.mu);
  auto whole = WholeMappings(vm, ptr, size);
  if (whole.empty()) return CUDA_ERROR_INVALID_VALUE;
  for (auto it : whole) {
    const int owner = vm.physical.at(it->second.handle).ordinal;
    for (size_t i = 0; i < count; ++i) {
      if (desc[i].location.id == owner) it->second.access = desc[i].flags;
    }
    ::mprotect(reinterpret_cast<void*>(it->first), it->second.end - it->first,
               Protection(it->second.access));
  }
  return CUDA_SUCCESS;
}

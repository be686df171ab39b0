// Every driver entry point cuda.h declares, with its address in simgpu
// (generated at build time by tools/gen_driver_tables.cc).
#ifndef SIMGPU_DRIVER_SYMBOLS_H_
#define SIMGPU_DRIVER_SYMBOLS_H_

namespace simgpu {

struct DriverSymbol {
  const char* name;
  void* address;
};

extern const DriverSymbol kDriverSymbols[];
extern const int kDriverSymbolCount;

}  // namespace simgpu

#endif  // SIMGPU_DRIVER_SYMBOLS_H_

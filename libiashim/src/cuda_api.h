// cuda.h as the driver itself sees it: every versioned (_v2) and per-thread
// (_ptsz/_ptds) entry point declared under its real symbol name, with no macro
// renaming. Include this instead of <cuda.h> everywhere in the shim.
#ifndef IASHIM_CUDA_API_H_
#define IASHIM_CUDA_API_H_

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#define IASHIM_EXPORT extern "C" __attribute__((visibility("default")))

#endif  // IASHIM_CUDA_API_H_

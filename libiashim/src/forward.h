// Calls a real entry point, or reports NOT_SUPPORTED when the driver lacks it
// (a newer variant called directly on an older driver).
#ifndef IASHIM_FORWARD_H_
#define IASHIM_FORWARD_H_

#include "libiashim/src/cuda_api.h"

namespace iashim {

template <typename Fn, typename... Args>
inline CUresult Forward(Fn fn, Args... args) {
  return fn != nullptr ? fn(args...) : CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace iashim

#endif  // IASHIM_FORWARD_H_

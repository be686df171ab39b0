#include "coordinator/policy/kernel_class.h"

#include <string>

#include "absl/strings/ascii.h"

namespace iashim::policy {
namespace {

// Words that only name compute-bound kernels, even when a memory word shows
// up in the same (template-heavy) name, e.g. a flash-attention kernel whose
// template arguments mention "Copy".
constexpr std::string_view kStrongComputeWords[] = {
    "gemm",    "winograd", "xmma",   "fmha",   "flash",  "attention",
    "cutlass", "convolve", "conv1d", "conv2d", "conv3d", "convolution",
    "dgrad",   "wgrad",    "fprop",  "scudnn", "hcudnn", "tensorop",
};

// Memory-bound words. "gemv" is here on purpose: matrix-vector products are
// bandwidth-bound, and "gemv" does not contain "gemm". "convert" and "cast"
// (dtype conversion) must win over the weak compute word "conv".
constexpr std::string_view kMemoryWords[] = {
    "elementwise", "element_wise", "bn_",         "batchnorm",   "norm",   "softmax",
    "reduce",      "reduction",    "copy",        "memcpy",      "memset", "pool",
    "transpose",   "nchwtonhwc",   "nhwctonchw",  "convert",     "cast",   "dropout",
    "embedding",   "index",        "gather",      "scatter",     "gemv",   "multi_tensor",
    "concat",      "upsample",     "interpolate", "fill_kernel",
};

// Words that usually name compute kernels but also prefix memory-bound ones
// ("cudnn::bn_fw_...", "cudnn::ops::nchwToNhwcKernel"), so they count only
// when no memory word matched.
constexpr std::string_view kWeakComputeWords[] = {
    "cudnn", "cublas", "conv", "mma", "matmul", "attn", "implicit",
};

template <size_t N>
bool ContainsAny(std::string_view text, const std::string_view (&words)[N]) {
  for (std::string_view w : words) {
    if (text.find(w) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

KernelClass ClassifyKernel(std::string_view name) {
  std::string lower(name);
  absl::AsciiStrToLower(&lower);
  if (ContainsAny(lower, kStrongComputeWords)) return KernelClass::kCompute;
  if (ContainsAny(lower, kMemoryWords)) return KernelClass::kMemory;
  if (ContainsAny(lower, kWeakComputeWords)) return KernelClass::kCompute;
  return KernelClass::kOther;
}

std::string_view KernelClassName(KernelClass c) {
  switch (c) {
    case KernelClass::kCompute:
      return "compute";
    case KernelClass::kMemory:
      return "memory";
    case KernelClass::kOther:
      return "other";
  }
  return "unknown";
}

}  // namespace iashim::policy

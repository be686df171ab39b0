// What a kernel mostly contends for, guessed from its name.
//
// Two compute-bound kernels (GEMM, convolution) fight over the SMs and two
// memory-bound kernels (element-wise, reductions, normalisation, copies) over
// DRAM bandwidth, while one of each overlaps well; so the share of a job's GPU
// time spent in each class is a first-order predictor of how it interferes.
// Names are what the shim can always see (cuFuncGetName and friends); sampled
// durations say how much each kernel matters.
#ifndef IASHIM_POLICY_KERNEL_CLASS_H_
#define IASHIM_POLICY_KERNEL_CLASS_H_

#include <string_view>

namespace iashim::policy {

enum class KernelClass {
  kCompute,  // GEMM, convolution, attention, tensor-core MMA
  kMemory,   // element-wise, reduction, normalisation, softmax, copy, pooling, layout
  kOther,    // nothing recognised
};

// Classifies by case-insensitive substring rules, in three tiers:
//  1. words that only name compute kernels ("gemm", "winograd", "xmma",
//     "cutlass", "flash", "fmha", "attention", "conv2d", "scudnn", ...): they
//     win even when a template argument in the name says "Copy";
//  2. memory-bound words ("elementwise", "bn_", "norm", "softmax", "reduce",
//     "copy", "pool", "transpose", "convert", "gemv", ...);
//  3. library prefixes and short words that usually mean compute ("cudnn",
//     "cublas", "conv", "mma", "matmul") but also prefix cuDNN's batch-norm
//     and layout kernels, hence after tier 2;
// otherwise kOther. Mangled and demangled names both work: the rules look for
// words, not syntax.
KernelClass ClassifyKernel(std::string_view name);

std::string_view KernelClassName(KernelClass c);

}  // namespace iashim::policy

#endif  // IASHIM_POLICY_KERNEL_CLASS_H_

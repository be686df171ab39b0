#include "coordinator/policy/kernel_class.h"

#include <gtest/gtest.h>

#include <string_view>

namespace iashim::policy {
namespace {

struct Case {
  std::string_view name;
  KernelClass want;
};

// Names as PyTorch, cuDNN, cuBLAS, CUTLASS and flash-attention report them
// (demangled and mangled).
constexpr Case kCases[] = {
    {"volta_scudnn_128x64_relu_interior_nn_v1", KernelClass::kCompute},
    {"ampere_sgemm_128x64_tn", KernelClass::kCompute},
    {"volta_sgemm_128x64_nn", KernelClass::kCompute},
    {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", KernelClass::kCompute},
    {"sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32",
     KernelClass::kCompute},
    {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(...)",
     KernelClass::kCompute},
    {"void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false>(...)",
     KernelClass::kCompute},
    {"cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
     KernelClass::kCompute},
    {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
     "cutlass::half_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::half_t>>, cute::Copy>",
     KernelClass::kCompute},
    {"fmha_cutlassF_f16_aligned_64x64_rf_sm80", KernelClass::kCompute},
    {"void cudnn::detail::dgrad_engine<float, 128, 6, 7, 3, 3, 5, true>(...)",
     KernelClass::kCompute},

    {"vectorized_elementwise_kernel_relu", KernelClass::kMemory},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
     "namespace)::launch_clamp_scalar(...)::{lambda()#1}, at::detail::Array<char*, 2>>(...)",
     KernelClass::kMemory},
    {"bn_fw_tr_1C11_kernel_NCHW", KernelClass::kMemory},
    {"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(...)",
     KernelClass::kMemory},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
     "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>>(...)",
     KernelClass::kMemory},
    {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>",
     KernelClass::kMemory},
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(...)",
     KernelClass::kMemory},
    {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(...)",
     KernelClass::kMemory},
    {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 4, 64>",
     KernelClass::kMemory},
    {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>(...)",
     KernelClass::kMemory},
    {"void gemv2T_kernel_val<int, int, float, float, float, 128, 16, 4, 4, false, false>",
     KernelClass::kMemory},
    {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>",
     KernelClass::kMemory},
    {"void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float>",
     KernelClass::kMemory},
    {"void at::native::index_elementwise_kernel<128, 4>(...)", KernelClass::kMemory},
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE",
     KernelClass::kMemory},

    {"my_custom_kernel", KernelClass::kOther},
    {"", KernelClass::kOther},
};

TEST(KernelClassTest, ClassifiesRealLookingNames) {
  for (const Case& c : kCases) {
    EXPECT_EQ(ClassifyKernel(c.name), c.want)
        << c.name << " -> " << KernelClassName(ClassifyKernel(c.name));
  }
}

TEST(KernelClassTest, IgnoresCase) {
  EXPECT_EQ(ClassifyKernel("AMPERE_SGEMM_128X64_TN"), KernelClass::kCompute);
  EXPECT_EQ(ClassifyKernel("Vectorized_ElementWise_Kernel"), KernelClass::kMemory);
}

TEST(KernelClassTest, ConversionIsNotConvolution) {
  EXPECT_EQ(ClassifyKernel("convert_fp32_to_fp16_kernel"), KernelClass::kMemory);
  EXPECT_EQ(ClassifyKernel("conv_forward_kernel"), KernelClass::kCompute);
}

TEST(KernelClassTest, NamesEveryClass) {
  EXPECT_EQ(KernelClassName(KernelClass::kCompute), "compute");
  EXPECT_EQ(KernelClassName(KernelClass::kMemory), "memory");
  EXPECT_EQ(KernelClassName(KernelClass::kOther), "other");
}

}  // namespace
}  // namespace iashim::policy

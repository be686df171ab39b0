#include "bench/load/sim_workload.h"
#include "common/wire/kernel_id.h"

#include <cmath>

#include "common/text/text.h"

namespace iashim::load {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kUs = 1'000;
constexpr uint64_t kGiB = uint64_t{1} << 30;

const std::vector<SimModel>& Models() {
  static const std::vector<SimModel>* models = new std::vector<SimModel>{
      {"resnet50",
       {{"volta_scudnn_128x64_relu_interior_nn_v1", 16, 900 * kUs, 1024, 256},
        {"volta_sgemm_128x64_nn", 4, 1200 * kUs, 512, 256},
        {"cudnn::bn_fw_tr_1C11_kernel_NCHW", 16, 150 * kUs, 2048, 512},
        {"at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>", 32,
         40 * kUs, 4096, 128},
        {"at::native::reduce_kernel<512, 1>", 2, 80 * kUs, 256, 512}},
       40 * kMs,
       6 * kGiB},
      {"lstm",
       {{"volta_sgemm_64x32_sliced1x4_tn", 24, 350 * kUs, 256, 128},
        {"at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda>", 48,
         20 * kUs, 512, 128},
        {"at::native::vectorized_elementwise_kernel<4, at::native::tanh_kernel_cuda>", 24,
         20 * kUs, 512, 128},
        {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>", 1, 300 * kUs, 128,
         1024}},
       25 * kMs,
       3 * kGiB},
      {"transformer",
       {{"ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_tn", 24, 700 * kUs, 432, 256},
        {"fmha_cutlassF_f16_aligned_64x64_rf_sm80", 12, 500 * kUs, 384, 128},
        {"at::native::layer_norm_kernel<float, float>", 24, 60 * kUs, 2048, 256},
        {"at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>", 12,
         50 * kUs, 4096, 128},
        {"at::native::reduce_kernel<128, 4>", 4, 90 * kUs, 512, 128}},
       45 * kMs,
       12 * kGiB},
  };
  return *models;
}

}  // namespace

const SimModel& ModelFor(int i) { return Models()[size_t(i) % Models().size()]; }

std::vector<std::pair<uint64_t, std::string>> KernelNamesOf(const SimModel& model) {
  std::vector<std::pair<uint64_t, std::string>> names;
  for (const SimKernel& k : model.kernels) names.push_back({KernelId(k.name), k.name});
  return names;
}

double SimTrainingLoop::Noise() {
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return double(rng_ >> 11) / double(uint64_t{1} << 52) - 1.0;
}

WindowSummary SimTrainingLoop::Advance(uint64_t start_ns, uint64_t end_ns, double slowdown,
                                       uint32_t sample_every) {
  WindowSummary w;
  w.start_ns = start_ns;
  w.end_ns = end_ns;
  const double stretch = 1.0 + std::max(0.0, slowdown);
  // 2% jitter: real iteration times are never constant.
  const double iteration_ns = double(model_->iteration_ns) * stretch * (1.0 + 0.02 * Noise());
  const double iterations = double(end_ns - start_ns) / iteration_ns;
  const double before = progress_;
  progress_ += iterations;
  w.iterations = uint32_t(std::floor(progress_));
  progress_ -= w.iterations;
  w.iteration_ns = w.iterations > 0 ? uint64_t(iteration_ns) : 0;
  w.syncs = w.iterations;
  for (size_t i = 0; i < model_->kernels.size(); ++i) {
    const SimKernel& k = model_->kernels[i];
    // Launches issued in the window: the iterations' worth, counted from the
    // fractional progress so no launch is lost or counted twice.
    const uint32_t launches =
        uint32_t(std::floor((before + iterations) * k.per_iteration) - std::floor(before * k.per_iteration));
    if (launches == 0) continue;
    KernelWindow kw;
    kw.kernel = uint32_t(i);
    kw.launches = launches;
    kw.grid[0] = k.grid_x;
    kw.grid[1] = kw.grid[2] = 1;
    kw.block[0] = k.block_x;
    kw.block[1] = kw.block[2] = 1;
    kw.blocks_total = uint64_t(launches) * k.grid_x;
    kw.sampled = (launches + sample_every - 1) / sample_every;
    const uint64_t duration = uint64_t(double(k.gpu_ns) * stretch);
    kw.gpu_ns_sum = uint64_t(kw.sampled) * duration;
    kw.gpu_ns_min = kw.gpu_ns_max = duration;
    w.launches += launches;
    w.kernels.push_back(kw);
  }
  launches_ += w.launches;
  return w;
}

}  // namespace iashim::load

#!/usr/bin/env python3
"""Derives the *.model profiles in this directory (see README.md).

Kernel sequences follow each network's layers and the kernels cuDNN, cuBLAS
and PyTorch launch for them (forward, backward, optimizer). A kernel's
relative duration comes from its work at the layer's shapes: FLOPs at an
assumed sustained V100 FP32 rate for GEMM/convolution kernels, bytes moved at
750 GB/s for memory-bound ones, with a 3 us floor per kernel. All durations
of a model are then scaled by one factor so that GPU time plus host gap equals
the target solo iteration time (1 / V100 steps/s). The factor is written into
each file: it absorbs what this first-order cost model leaves out (framework
overheads, cuDNN algorithm choice, launch gaps).

Run from anywhere: python3 bench/data/models/derive_profiles.py
Writes the .model files next to this script. Standard library only.
"""

import contextlib
import os

BW = 750e9          # sustained HBM2 bandwidth, bytes/s (V100 peak 900)
FLOOR_US = 3.0      # smallest kernel
TFLOPS = {          # sustained FP32 rates by kernel role (V100 peak 15.7)
    "fprop": 10.0, "dgrad": 9.0, "wgrad": 7.0, "gemm": 10.0, "small": 4.0,
}
F = 4               # bytes per FP32 element


def gemm_us(flops, role="gemm"):
    return max(FLOOR_US, flops / (TFLOPS[role] * 1e12) * 1e6)


def mem_us(nbytes):
    return max(FLOOR_US, nbytes / BW * 1e6)


def blocks(n, per_block):
    return max(1, int(-(-n // per_block)))


class Profile:
    def __init__(self, name):
        self.name = name
        self.body = []       # (indent, kind, payload)
        self.mult = [1]
        self.raw_total = 0.0
        self.launches = 0

    def k(self, name, count, raw_us, mem, grid, stream=None):
        self.body.append((len(self.mult) - 1, "k",
                          (name, count, raw_us, mem, int(grid), stream)))
        m = 1
        for x in self.mult:
            m *= x
        self.raw_total += m * count * raw_us
        self.launches += m * count

    def comment(self, text):
        self.body.append((len(self.mult) - 1, "c", text))

    @contextlib.contextmanager
    def repeat(self, n, why):
        self.body.append((len(self.mult) - 1, "r", (n, why)))
        self.mult.append(n)
        yield
        self.mult.pop()
        self.body.append((len(self.mult) - 1, "e", None))

    def write(self, header, target_us, gap_frac, target_note):
        gap_us = round(target_us * gap_frac, -1)
        scale = (target_us - gap_us) / self.raw_total
        out = [header.rstrip("\n"), f"host_gap_us {gap_us:.0f}",
               f"# Target solo iteration {target_us / 1000:.1f} ms ({target_note}); "
               f"host gap {gap_frac * 100:.0f}%.",
               f"# Durations = first-order cost (FLOPs or bytes, see README) x {scale:.3f}.",
               f"# {self.launches} kernel launches per iteration.",
               "# kernel_name count duration_us mem_intensity grid_blocks [stream]"]
        for indent, kind, p in self.body:
            pad = "  " * indent
            if kind == "c":
                out.append(f"{pad}# {p}")
            elif kind == "r":
                out.append(f"{pad}repeat {p[0]}  # {p[1]}")
            elif kind == "e":
                out.append(f"{pad}end")
            else:
                name, count, raw, mem, grid, stream = p
                line = f"{pad}{name} {count} {raw * scale:.1f} {mem:.2f} {grid}"
                if stream is not None:
                    line += f" {stream}"
                out.append(line)
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            self.name + ".model")
        with open(path, "w") as f:
            f.write("\n".join(out) + "\n")
        print(f"{self.name}: {len(out)} lines, {self.launches} launches, "
              f"scale {scale:.3f}, solo {target_us / 1000:.1f} ms")


# Memory intensity by kernel class (roofline reasoning, README.md).
MEM = {"conv": 0.25, "winograd": 0.20, "wgrad": 0.35, "sgemm": 0.20,
       "small_gemm": 0.45, "bn": 0.85, "eltwise": 0.92, "pool": 0.80,
       "softmax": 0.80, "reduce": 0.75, "optim": 0.90, "embed": 0.90,
       "lstm_gemm": 0.50, "lstm_pointwise": 0.85, "layernorm": 0.85}


def conv_flops(n, h, w, cin, cout, k):
    return 2.0 * n * h * w * cin * cout * k * k


def conv_grid(n, h, w, cout, tile_m=128, tile_n=64):
    return blocks(n * h * w, tile_m) * blocks(cout, tile_n)


def elt_grid(numel):
    # PyTorch vectorized element-wise: 128 threads x 4 elements per block,
    # capped as the grid-stride loop does.
    return min(blocks(numel, 512), 65535)


# --------------------------------------------------------------------------
# ResNet-50, ImageNet 224x224, batch 64, SGD momentum (Gavel 'ResNet-50').
def resnet50():
    p = Profile("resnet50")
    n = 64
    stages = [(3, 64, 256, 56), (4, 128, 512, 28), (6, 256, 1024, 14),
              (3, 512, 2048, 7)]

    def avg(group, fn):
        tot = sum(b for b, *_ in group)
        return sum(b * fn(mid, out, h) for b, mid, out, h in group) / tot

    groups = [("stages 1-2 (56x56, 28x28): 7 bottleneck blocks", stages[:2]),
              ("stages 3-4 (14x14, 7x7): 9 bottleneck blocks", stages[2:])]
    p.comment("stem: conv7x7/2 + bn + relu + maxpool")
    stem = conv_flops(n, 112, 112, 3, 64, 7)
    a_stem = n * 112 * 112 * 64
    p.k("implicit_convolve_sgemm", 1, gemm_us(stem, "small"), 0.30,
        conv_grid(n, 112, 112, 64))
    p.k("bn_fw_tr_1C11_kernel_NCHW", 1, mem_us(3 * F * a_stem), MEM["bn"], 64 * 16)
    p.k("vectorized_elementwise_kernel_relu", 1, mem_us(2 * F * a_stem),
        MEM["eltwise"], elt_grid(a_stem))
    p.k("max_pool_forward_nchw", 1, mem_us(1.25 * F * a_stem), MEM["pool"],
        elt_grid(a_stem // 4))
    fwd = []
    for why, g in groups:
        def c(fn):
            return avg(g, fn)
        b = sum(x[0] for x in g)
        with p.repeat(b, why + ", forward"):
            p.k("volta_scudnn_128x64_relu_interior_nn_v1", 1,
                c(lambda mid, out, h: gemm_us(conv_flops(n, h, h, out, mid, 1), "fprop")),
                MEM["conv"], c(lambda mid, out, h: conv_grid(n, h, h, mid)))
            p.k("bn_fw_tr_1C11_kernel_NCHW", 1,
                c(lambda mid, out, h: mem_us(3 * F * n * h * h * mid)), MEM["bn"],
                c(lambda mid, out, h: mid * 4))
            p.k("vectorized_elementwise_kernel_relu", 1,
                c(lambda mid, out, h: mem_us(2 * F * n * h * h * mid)), MEM["eltwise"],
                c(lambda mid, out, h: elt_grid(n * h * h * mid)))
            p.k("volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", 1,
                c(lambda mid, out, h: gemm_us(conv_flops(n, h, h, mid, mid, 3), "fprop")),
                MEM["winograd"], c(lambda mid, out, h: conv_grid(n, h, h, mid, 128, 128)))
            p.k("bn_fw_tr_1C11_kernel_NCHW", 1,
                c(lambda mid, out, h: mem_us(3 * F * n * h * h * mid)), MEM["bn"],
                c(lambda mid, out, h: mid * 4))
            p.k("vectorized_elementwise_kernel_relu", 1,
                c(lambda mid, out, h: mem_us(2 * F * n * h * h * mid)), MEM["eltwise"],
                c(lambda mid, out, h: elt_grid(n * h * h * mid)))
            p.k("volta_scudnn_128x64_relu_interior_nn_v1", 1,
                c(lambda mid, out, h: gemm_us(conv_flops(n, h, h, mid, out, 1), "fprop")),
                MEM["conv"], c(lambda mid, out, h: conv_grid(n, h, h, out)))
            p.k("bn_fw_tr_1C11_kernel_NCHW", 1,
                c(lambda mid, out, h: mem_us(3 * F * n * h * h * out)), MEM["bn"],
                c(lambda mid, out, h: out * 4))
            p.k("vectorized_elementwise_kernel_add", 1,
                c(lambda mid, out, h: mem_us(3 * F * n * h * h * out)), MEM["eltwise"],
                c(lambda mid, out, h: elt_grid(n * h * h * out)))
            p.k("vectorized_elementwise_kernel_relu", 1,
                c(lambda mid, out, h: mem_us(2 * F * n * h * h * out)), MEM["eltwise"],
                c(lambda mid, out, h: elt_grid(n * h * h * out)))
        fwd.append((why, g, b))
    ds = sum(gemm_us(conv_flops(n, h, h, out // 2, out, 1), "fprop")
             for _, _, out, h in stages) / 4
    ds_bn = sum(mem_us(3 * F * n * h * h * out) for _, _, out, h in stages) / 4
    p.comment("downsample shortcut of each stage's first block: conv1x1 + bn "
              "(grouped here)")
    p.k("volta_scudnn_128x64_stridedB_splitK_interior_nn_v1", 4, ds, MEM["conv"], 392)
    p.k("bn_fw_tr_1C11_kernel_NCHW", 4, ds_bn, MEM["bn"], 2048)
    p.comment("head: avgpool, fc 2048->1000, log_softmax, nll_loss")
    p.k("adaptive_avg_pool2d_kernel", 1, mem_us(F * n * 2048 * 49), MEM["pool"], 2048)
    p.k("volta_sgemm_32x128_tn", 1, gemm_us(2 * n * 2048 * 1000, "small"),
        MEM["small_gemm"], 32)
    p.k("cunn_SoftMaxForward", 1, mem_us(3 * F * n * 1000), MEM["softmax"], 64)
    p.k("nll_loss_forward_reduce_cuda_kernel_2d", 1, FLOOR_US, MEM["reduce"], 1)
    p.comment("backward: loss, head")
    p.k("nll_loss_backward_reduce_cuda_kernel_2d", 1, FLOOR_US, MEM["reduce"], 1)
    p.k("cunn_SoftMaxBackward", 1, mem_us(3 * F * n * 1000), MEM["softmax"], 64)
    p.k("volta_sgemm_128x32_nn", 1, gemm_us(2 * n * 2048 * 1000, "small"),
        MEM["small_gemm"], 32)
    p.k("volta_sgemm_128x64_nt", 1, gemm_us(2 * n * 2048 * 1000, "small"),
        MEM["small_gemm"], 64)
    p.k("reduce_kernel_sum", 1, FLOOR_US, MEM["reduce"], 8)
    p.k("adaptive_avg_pool2d_backward_kernel", 1, mem_us(2 * F * n * 2048 * 49),
        MEM["pool"], elt_grid(n * 2048 * 49))
    p.comment("downsample shortcuts backward: bn, dgrad, wgrad")
    p.k("bn_bw_1C11_kernel_new", 4, ds_bn * 5 / 3, MEM["bn"], 2048)
    p.k("volta_scudnn_128x64_stridedB_interior_nn_v1", 4, ds * 10 / 9, MEM["conv"], 392)
    p.k("volta_sgemm_128x64_nt", 4, ds * 10 / 7, MEM["wgrad"], 256)
    for why, g, b in reversed(fwd):
        def c(fn):
            return avg(g, fn)
        with p.repeat(b, why + ", backward"):
            p.k("vectorized_elementwise_kernel_threshold_backward", 1,
                c(lambda mid, out, h: mem_us(3 * F * n * h * h * out)), MEM["eltwise"],
                c(lambda mid, out, h: elt_grid(n * h * h * out)))
            p.k("bn_bw_1C11_kernel_new", 1,
                c(lambda mid, out, h: mem_us(5 * F * n * h * h * out)), MEM["bn"],
                c(lambda mid, out, h: out * 4))
            p.k("volta_scudnn_128x64_stridedB_interior_nn_v1", 1,
                c(lambda mid, out, h: gemm_us(conv_flops(n, h, h, mid, out, 1), "dgrad")),
                MEM["conv"], c(lambda mid, out, h: conv_grid(n, h, h, mid)))
            p.k("volta_sgemm_128x64_nt", 1,
                c(lambda mid, out, h: gemm_us(conv_flops(n, h, h, mid, out, 1), "wgrad")),
                MEM["wgrad"], c(lambda mid, out, h: blocks(mid, 128) * blocks(out, 64) * 4))
            p.k("vectorized_elementwise_kernel_threshold_backward", 1,
                c(lambda mid, out, h: mem_us(3 * F * n * h * h * mid)), MEM["eltwise"],
                c(lambda mid, out, h: elt_grid(n * h * h * mid)))
            p.k("bn_bw_1C11_kernel_new", 1,
                c(lambda mid, out, h: mem_us(5 * F * n * h * h * mid)), MEM["bn"],
                c(lambda mid, out, h: mid * 4))
            p.k("volta_scudnn_128x128_stridedB_small_nn_v1", 1,
                c(lambda mid, out, h: gemm_us(conv_flops(n, h, h, mid, mid, 3), "dgrad")),
                MEM["conv"], c(lambda mid, out, h: conv_grid(n, h, h, mid, 128, 128)))
            p.k("wgrad_alg0_engine", 1,
                c(lambda mid, out, h: gemm_us(conv_flops(n, h, h, mid, mid, 3), "wgrad")),
                MEM["wgrad"], c(lambda mid, out, h: mid * 9 // 8))
            p.k("vectorized_elementwise_kernel_threshold_backward", 1,
                c(lambda mid, out, h: mem_us(3 * F * n * h * h * mid)), MEM["eltwise"],
                c(lambda mid, out, h: elt_grid(n * h * h * mid)))
            p.k("bn_bw_1C11_kernel_new", 1,
                c(lambda mid, out, h: mem_us(5 * F * n * h * h * mid)), MEM["bn"],
                c(lambda mid, out, h: mid * 4))
            p.k("volta_scudnn_128x64_stridedB_interior_nn_v1", 1,
                c(lambda mid, out, h: gemm_us(conv_flops(n, h, h, out, mid, 1), "dgrad")),
                MEM["conv"], c(lambda mid, out, h: conv_grid(n, h, h, out)))
            p.k("volta_sgemm_128x64_nt", 1,
                c(lambda mid, out, h: gemm_us(conv_flops(n, h, h, out, mid, 1), "wgrad")),
                MEM["wgrad"], c(lambda mid, out, h: blocks(out, 128) * blocks(mid, 64) * 4))
            p.k("vectorized_elementwise_kernel_add", 1,
                c(lambda mid, out, h: mem_us(3 * F * n * h * h * out)), MEM["eltwise"],
                c(lambda mid, out, h: elt_grid(n * h * h * out)))
    p.comment("stem backward: maxpool, relu, bn, wgrad (no dgrad for the input)")
    p.k("max_pool_backward_nchw", 1, mem_us(2.25 * F * a_stem), MEM["pool"],
        elt_grid(a_stem))
    p.k("vectorized_elementwise_kernel_threshold_backward", 1, mem_us(3 * F * a_stem),
        MEM["eltwise"], elt_grid(a_stem))
    p.k("bn_bw_1C11_kernel_new", 1, mem_us(5 * F * a_stem), MEM["bn"], 64 * 16)
    p.k("wgrad_alg0_engine", 1, gemm_us(stem, "small"), MEM["wgrad"], 147)
    p.comment("optimizer: SGD momentum + weight decay over 25.6M parameters, "
              "foreach (multi_tensor_apply)")
    p.k("multi_tensor_apply_kernel", 6, mem_us(9 * F * 25.6e6) / 6, MEM["optim"], 320)
    p.write(HEADERS["resnet50"], 1e6 / 4.394774823323071, 0.10,
            "Gavel v100 ResNet-50 bs64: 4.395 steps/s")


# --------------------------------------------------------------------------
# ResNet-18 (CIFAR-10 variant: 3x3 stem, no maxpool), 32x32, batch 64.
def resnet18():
    p = Profile("resnet18")
    n = 64
    stages = [(2, 64, 32), (2, 128, 16), (2, 256, 8), (2, 512, 4)]

    def avg(group, fn):
        return sum(fn(c, h) for _, c, h in group) / len(group)

    a_stem = n * 32 * 32 * 64
    p.comment("stem: conv3x3 + bn + relu")
    p.k("volta_scudnn_128x64_relu_small_nn_v1", 1,
        gemm_us(conv_flops(n, 32, 32, 3, 64, 3), "small"), MEM["conv"],
        conv_grid(n, 32, 32, 64))
    p.k("bn_fw_tr_1C11_kernel_NCHW", 1, mem_us(3 * F * a_stem), MEM["bn"], 256)
    p.k("vectorized_elementwise_kernel_relu", 1, mem_us(2 * F * a_stem),
        MEM["eltwise"], elt_grid(a_stem))
    groups = [("stages 1-2 (32x32, 16x16): 4 basic blocks", stages[:2]),
              ("stages 3-4 (8x8, 4x4): 4 basic blocks", stages[2:])]
    for why, g in groups:
        def c(fn):
            return avg(g, fn)
        with p.repeat(4, why + ", forward"):
            for i in range(2):
                p.k("volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", 1,
                    c(lambda ch, h: gemm_us(conv_flops(n, h, h, ch, ch, 3), "fprop")),
                    MEM["winograd"], c(lambda ch, h: conv_grid(n, h, h, ch, 128, 128) * 4))
                p.k("bn_fw_tr_1C11_kernel_NCHW", 1,
                    c(lambda ch, h: mem_us(3 * F * n * h * h * ch)), MEM["bn"],
                    c(lambda ch, h: ch * 4))
                if i == 1:
                    p.k("vectorized_elementwise_kernel_add", 1,
                        c(lambda ch, h: mem_us(3 * F * n * h * h * ch)), MEM["eltwise"],
                        c(lambda ch, h: elt_grid(n * h * h * ch)))
                p.k("vectorized_elementwise_kernel_relu", 1,
                    c(lambda ch, h: mem_us(2 * F * n * h * h * ch)), MEM["eltwise"],
                    c(lambda ch, h: elt_grid(n * h * h * ch)))
    ds = sum(gemm_us(conv_flops(n, h, h, ch // 2, ch, 1), "fprop")
             for _, ch, h in stages[1:]) / 3
    ds_bn = sum(mem_us(3 * F * n * h * h * ch) for _, ch, h in stages[1:]) / 3
    p.comment("downsample shortcuts (stages 2-4): conv1x1 + bn (grouped here)")
    p.k("volta_scudnn_128x64_relu_interior_nn_v1", 3, ds, MEM["conv"], 96)
    p.k("bn_fw_tr_1C11_kernel_NCHW", 3, ds_bn, MEM["bn"], 1024)
    p.comment("head: avg_pool2d(4), linear 512->10, log_softmax, nll_loss")
    p.k("avg_pool2d_out_cuda_frame", 1, mem_us(F * n * 512 * 16), MEM["pool"],
        elt_grid(n * 512))
    p.k("volta_sgemm_32x32_sliced1x4_tn", 1, FLOOR_US, MEM["small_gemm"], 4)
    p.k("cunn_SoftMaxForward", 1, FLOOR_US, MEM["softmax"], 64)
    p.k("nll_loss_forward_reduce_cuda_kernel_2d", 1, FLOOR_US, MEM["reduce"], 1)
    p.comment("backward: loss, head")
    p.k("nll_loss_backward_reduce_cuda_kernel_2d", 1, FLOOR_US, MEM["reduce"], 1)
    p.k("cunn_SoftMaxBackward", 1, FLOOR_US, MEM["softmax"], 64)
    p.k("volta_sgemm_32x32_sliced1x4_nn", 2, FLOOR_US, MEM["small_gemm"], 4)
    p.k("reduce_kernel_sum", 1, FLOOR_US, MEM["reduce"], 1)
    p.k("avg_pool2d_backward_out_cuda_frame", 1, mem_us(F * n * 512 * 16),
        MEM["pool"], elt_grid(n * 512 * 16))
    p.comment("downsample shortcuts backward")
    p.k("bn_bw_1C11_kernel_new", 3, ds_bn * 5 / 3, MEM["bn"], 1024)
    p.k("volta_scudnn_128x64_stridedB_interior_nn_v1", 3, ds * 10 / 9, MEM["conv"], 96)
    p.k("volta_sgemm_128x64_nt", 3, ds * 10 / 7, MEM["wgrad"], 128)
    for why, g in reversed(groups):
        def c(fn):
            return avg(g, fn)
        with p.repeat(4, why + ", backward"):
            for i in range(2):
                p.k("vectorized_elementwise_kernel_threshold_backward", 1,
                    c(lambda ch, h: mem_us(3 * F * n * h * h * ch)), MEM["eltwise"],
                    c(lambda ch, h: elt_grid(n * h * h * ch)))
                p.k("bn_bw_1C11_kernel_new", 1,
                    c(lambda ch, h: mem_us(5 * F * n * h * h * ch)), MEM["bn"],
                    c(lambda ch, h: ch * 4))
                p.k("volta_scudnn_128x128_stridedB_small_nn_v1", 1,
                    c(lambda ch, h: gemm_us(conv_flops(n, h, h, ch, ch, 3), "dgrad")),
                    MEM["conv"], c(lambda ch, h: conv_grid(n, h, h, ch, 128, 128) * 4))
                p.k("wgrad_alg0_engine", 1,
                    c(lambda ch, h: gemm_us(conv_flops(n, h, h, ch, ch, 3), "wgrad")),
                    MEM["wgrad"], c(lambda ch, h: ch * 9 // 8))
            p.k("vectorized_elementwise_kernel_add", 1,
                c(lambda ch, h: mem_us(3 * F * n * h * h * ch)), MEM["eltwise"],
                c(lambda ch, h: elt_grid(n * h * h * ch)))
    p.comment("stem backward: relu, bn, wgrad")
    p.k("vectorized_elementwise_kernel_threshold_backward", 1, mem_us(3 * F * a_stem),
        MEM["eltwise"], elt_grid(a_stem))
    p.k("bn_bw_1C11_kernel_new", 1, mem_us(5 * F * a_stem), MEM["bn"], 256)
    p.k("wgrad_alg0_engine", 1, gemm_us(conv_flops(n, 32, 32, 3, 64, 3), "small"),
        MEM["wgrad"], 72)
    p.comment("optimizer: SGD momentum + weight decay, 11.2M parameters, foreach")
    p.k("multi_tensor_apply_kernel", 3, mem_us(9 * F * 11.2e6) / 3, MEM["optim"], 320)
    p.write(HEADERS["resnet18"], 1e6 / 24.093231895382736, 0.10,
            "Gavel v100 ResNet-18 bs64: 24.09 steps/s")


# --------------------------------------------------------------------------
# VGG-16, ImageNet 224x224, batch 64, SGD momentum. No Gavel job type.
def vgg16():
    p = Profile("vgg16")
    n = 64
    stages = [(2, 64, 224), (2, 128, 112), (3, 256, 56), (3, 512, 28), (3, 512, 14)]
    cin = 3
    for i, (convs, ch, h) in enumerate(stages):
        first = conv_flops(n, h, h, cin, ch, 3)
        rest = conv_flops(n, h, h, ch, ch, 3)
        fl = (first + (convs - 1) * rest) / convs
        a = n * h * h * ch
        with p.repeat(convs, f"stage {i + 1} forward: conv3x3 {ch}ch {h}x{h} + relu"):
            p.k("volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", 1,
                gemm_us(fl, "fprop"), MEM["winograd"], conv_grid(n, h, h, ch, 128, 128))
            p.k("vectorized_elementwise_kernel_relu", 1, mem_us(2 * F * a),
                MEM["eltwise"], elt_grid(a))
        p.k("max_pool_forward_nchw", 1, mem_us(1.25 * F * a), MEM["pool"],
            elt_grid(a // 4))
        cin = ch
    p.comment("classifier: fc 25088->4096->4096->1000 with relu + dropout")
    fcs = [(25088, 4096), (4096, 4096), (4096, 1000)]
    for i, (fi, fo) in enumerate(fcs):
        p.k("volta_sgemm_128x64_tn", 1, gemm_us(2 * n * fi * fo, "small"),
            MEM["sgemm"], blocks(fo, 64) * 2)
        if i < 2:
            p.k("vectorized_elementwise_kernel_relu", 1, FLOOR_US, MEM["eltwise"], 512)
            p.k("fused_dropout_kernel_vec", 1, FLOOR_US, MEM["eltwise"], 512)
    p.k("cunn_SoftMaxForward", 1, mem_us(3 * F * n * 1000), MEM["softmax"], 64)
    p.k("nll_loss_forward_reduce_cuda_kernel_2d", 1, FLOOR_US, MEM["reduce"], 1)
    p.comment("backward: loss and classifier (dgrad + wgrad + bias per fc)")
    p.k("nll_loss_backward_reduce_cuda_kernel_2d", 1, FLOOR_US, MEM["reduce"], 1)
    p.k("cunn_SoftMaxBackward", 1, mem_us(3 * F * n * 1000), MEM["softmax"], 64)
    for i, (fi, fo) in enumerate(reversed(fcs)):
        if i > 0:
            p.k("masked_scale_kernel", 1, FLOOR_US, MEM["eltwise"], 512)
            p.k("vectorized_elementwise_kernel_threshold_backward", 1, FLOOR_US,
                MEM["eltwise"], 512)
        p.k("volta_sgemm_128x64_nn", 1, gemm_us(2 * n * fi * fo, "small"),
            MEM["sgemm"], blocks(fi, 64) * 2)
        p.k("volta_sgemm_128x128_nt", 1, gemm_us(2 * n * fi * fo, "small"),
            MEM["sgemm"], blocks(fi, 128) * blocks(fo, 128))
        p.k("reduce_kernel_sum", 1, FLOOR_US, MEM["reduce"], blocks(fo, 128))
    for i, (convs, ch, h) in reversed(list(enumerate(stages))):
        c_in = stages[i - 1][1] if i else 3
        fl = (conv_flops(n, h, h, c_in, ch, 3) + (convs - 1) * conv_flops(n, h, h, ch, ch, 3)) / convs
        a = n * h * h * ch
        p.k("max_pool_backward_nchw", 1, mem_us(2.25 * F * a), MEM["pool"], elt_grid(a))
        with p.repeat(convs, f"stage {i + 1} backward: relu, dgrad, wgrad"):
            p.k("vectorized_elementwise_kernel_threshold_backward", 1, mem_us(3 * F * a),
                MEM["eltwise"], elt_grid(a))
            p.k("volta_scudnn_128x128_stridedB_interior_nn_v1", 1, gemm_us(fl, "dgrad"),
                MEM["conv"], conv_grid(n, h, h, ch, 128, 128))
            p.k("wgrad_alg0_engine", 1, gemm_us(fl, "wgrad"), MEM["wgrad"],
                max(80, ch * 9 // 8))
    p.comment("optimizer: SGD momentum + weight decay, 138M parameters, foreach")
    p.k("multi_tensor_apply_kernel", 6, mem_us(9 * F * 138e6) / 6, MEM["optim"], 320)
    p.write(HEADERS["vgg16"], 1e6 / VGG16_STEPS, 0.08,
            f"estimate {VGG16_STEPS} steps/s, no Gavel entry: README.md")


# --------------------------------------------------------------------------
# Attention sub-block used by BERT and Transformer. t = tokens, s = seq len.
def attention_fwd(p, n, s, d, heads, qkv_bias=True):
    t = n * s
    p.k("volta_sgemm_128x64_tn", 3, gemm_us(2 * t * d * d), MEM["sgemm"],
        blocks(t, 128) * blocks(d, 64))
    p.k("volta_sgemm_128x64_nn_batched", 1, gemm_us(2 * n * heads * s * s * (d // heads), "small"),
        MEM["sgemm"], max(80, n * heads))
    p.k("vectorized_elementwise_kernel_div_masked_fill", 1, mem_us(3 * F * n * heads * s * s),
        MEM["eltwise"], elt_grid(n * heads * s * s))
    p.k("softmax_warp_forward", 1, mem_us(2 * F * n * heads * s * s), MEM["softmax"],
        blocks(n * heads * s, 4))
    p.k("fused_dropout_kernel_vec", 1, mem_us(3 * F * n * heads * s * s), MEM["eltwise"],
        elt_grid(n * heads * s * s))
    p.k("volta_sgemm_64x64_nn_batched", 1, gemm_us(2 * n * heads * s * s * (d // heads), "small"),
        MEM["sgemm"], max(80, n * heads))
    p.k("volta_sgemm_128x64_tn", 1, gemm_us(2 * t * d * d), MEM["sgemm"],
        blocks(t, 128) * blocks(d, 64))
    residual_ln_fwd(p, t, d)


def residual_ln_fwd(p, t, d):
    p.k("fused_dropout_kernel_vec", 1, mem_us(3 * F * t * d), MEM["eltwise"], elt_grid(t * d))
    p.k("vectorized_elementwise_kernel_add", 1, mem_us(3 * F * t * d), MEM["eltwise"],
        elt_grid(t * d))
    p.k("vectorized_layer_norm_kernel", 1, mem_us(2 * F * t * d), MEM["layernorm"], t)


def ffn_fwd(p, t, d, inner, act):
    p.k("volta_sgemm_128x128_tn", 1, gemm_us(2 * t * d * inner), MEM["sgemm"],
        blocks(t, 128) * blocks(inner, 128))
    p.k(f"vectorized_elementwise_kernel_{act}", 1, mem_us(2 * F * t * inner),
        MEM["eltwise"], elt_grid(t * inner))
    p.k("volta_sgemm_128x64_tn", 1, gemm_us(2 * t * d * inner), MEM["sgemm"],
        blocks(t, 128) * blocks(d, 64))
    residual_ln_fwd(p, t, d)


def residual_ln_bwd(p, t, d):
    p.k("layer_norm_backward_cuda_kernel", 1, mem_us(4 * F * t * d), MEM["layernorm"], t)
    p.k("gamma_beta_backward_cuda_kernel", 1, mem_us(2 * F * t * d), MEM["reduce"],
        blocks(d, 8))
    p.k("masked_scale_kernel", 1, mem_us(3 * F * t * d), MEM["eltwise"], elt_grid(t * d))


def linear_bwd(p, t, fi, fo, bias=True):
    p.k("volta_sgemm_128x64_nn", 1, gemm_us(2 * t * fi * fo, "dgrad"), MEM["sgemm"],
        blocks(t, 128) * blocks(fi, 64))
    p.k("volta_sgemm_128x128_nt", 1, gemm_us(2 * t * fi * fo, "wgrad"), MEM["wgrad"],
        blocks(fi, 128) * blocks(fo, 128) * 4)
    if bias:
        p.k("reduce_kernel_sum", 1, mem_us(F * t * fo), MEM["reduce"], blocks(fo, 4))


def ffn_bwd(p, t, d, inner, act):
    residual_ln_bwd(p, t, d)
    linear_bwd(p, t, inner, d)
    p.k(f"vectorized_elementwise_kernel_{act}_backward", 1, mem_us(3 * F * t * inner),
        MEM["eltwise"], elt_grid(t * inner))
    linear_bwd(p, t, d, inner)
    p.k("vectorized_elementwise_kernel_add", 1, mem_us(3 * F * t * d), MEM["eltwise"],
        elt_grid(t * d))


def attention_bwd(p, n, s, d, heads):
    t = n * s
    residual_ln_bwd(p, t, d)
    linear_bwd(p, t, d, d)
    bf = gemm_us(2 * n * heads * s * s * (d // heads), "small")
    p.k("volta_sgemm_64x64_nt_batched", 2, bf, MEM["sgemm"], max(80, n * heads))
    p.k("masked_scale_kernel", 1, mem_us(3 * F * n * heads * s * s), MEM["eltwise"],
        elt_grid(n * heads * s * s))
    p.k("softmax_warp_backward", 1, mem_us(3 * F * n * heads * s * s), MEM["softmax"],
        blocks(n * heads * s, 4))
    p.k("vectorized_elementwise_kernel_div", 1, mem_us(2 * F * n * heads * s * s),
        MEM["eltwise"], elt_grid(n * heads * s * s))
    p.k("volta_sgemm_128x64_nt_batched", 2, bf, MEM["sgemm"], max(80, n * heads))
    with p.repeat(3, "q, k, v projections"):
        linear_bwd(p, t, d, d)
    p.k("vectorized_elementwise_kernel_add", 3, mem_us(3 * F * t * d), MEM["eltwise"],
        elt_grid(t * d))


# BERT-base, sequence classification fine-tuning, batch 32, seq 128, AdamW.
def bert_base():
    p = Profile("bert_base")
    n, s, d, heads, inner, layers = 32, 128, 768, 12, 3072, 12
    t = n * s
    p.comment("embeddings: word + position + token type, add, layernorm, dropout")
    p.k("indexSelectLargeIndex", 3, mem_us(2 * F * t * d), MEM["embed"], elt_grid(t * d))
    p.k("vectorized_elementwise_kernel_add", 2, mem_us(3 * F * t * d), MEM["eltwise"],
        elt_grid(t * d))
    p.k("vectorized_layer_norm_kernel", 1, mem_us(2 * F * t * d), MEM["layernorm"], t)
    p.k("fused_dropout_kernel_vec", 1, mem_us(3 * F * t * d), MEM["eltwise"], elt_grid(t * d))
    with p.repeat(layers, "encoder layers, forward"):
        attention_fwd(p, n, s, d, heads)
        ffn_fwd(p, t, d, inner, "gelu")
    p.comment("pooler (tanh on [CLS]) + classifier + cross entropy")
    p.k("volta_sgemm_32x128_tn", 1, gemm_us(2 * n * d * d, "small"), MEM["small_gemm"], 24)
    p.k("vectorized_elementwise_kernel_tanh", 1, FLOOR_US, MEM["eltwise"], 48)
    p.k("volta_sgemm_32x32_sliced1x4_tn", 1, FLOOR_US, MEM["small_gemm"], 2)
    p.k("cunn_SoftMaxForward", 1, FLOOR_US, MEM["softmax"], 32)
    p.k("nll_loss_forward_reduce_cuda_kernel_2d", 1, FLOOR_US, MEM["reduce"], 1)
    p.k("nll_loss_backward_reduce_cuda_kernel_2d", 1, FLOOR_US, MEM["reduce"], 1)
    p.k("cunn_SoftMaxBackward", 1, FLOOR_US, MEM["softmax"], 32)
    p.k("volta_sgemm_32x32_sliced1x4_nn", 4, FLOOR_US, MEM["small_gemm"], 24)
    p.k("vectorized_elementwise_kernel_tanh_backward", 1, FLOOR_US, MEM["eltwise"], 48)
    with p.repeat(layers, "encoder layers, backward"):
        ffn_bwd(p, t, d, inner, "gelu")
        attention_bwd(p, n, s, d, heads)
    p.comment("embeddings backward")
    p.k("layer_norm_backward_cuda_kernel", 1, mem_us(4 * F * t * d), MEM["layernorm"], t)
    p.k("gamma_beta_backward_cuda_kernel", 1, mem_us(2 * F * t * d), MEM["reduce"], 96)
    p.k("embedding_backward_feature_kernel", 3, mem_us(3 * F * t * d), MEM["embed"], 768)
    p.comment("optimizer: AdamW over 110M parameters, foreach; grad clipping norm")
    p.k("multi_tensor_apply_kernel", 12, mem_us(8 * F * 110e6) / 12, MEM["optim"], 320)
    p.write(HEADERS["bert_base"], 1e6 / BERT_STEPS, 0.08,
            f"estimate {BERT_STEPS} steps/s, no Gavel entry: README.md")


# Transformer (Gavel 'Transformer': Multi30k de-en, d_model 512, 6+6 layers,
# 8 heads, d_inner 2048), batch 64 sentences of ~32 tokens, Adam.
def transformer():
    p = Profile("transformer")
    n, s, d, heads, inner, vocab = 64, 32, 512, 8, 2048, 9800
    t = n * s
    p.comment("source and target embeddings + positional encoding")
    p.k("indexSelectLargeIndex", 2, mem_us(2 * F * t * d), MEM["embed"], elt_grid(t * d))
    p.k("vectorized_elementwise_kernel_add", 2, mem_us(3 * F * t * d), MEM["eltwise"],
        elt_grid(t * d))
    with p.repeat(6, "encoder layers, forward"):
        attention_fwd(p, n, s, d, heads)
        ffn_fwd(p, t, d, inner, "relu")
    with p.repeat(6, "decoder layers, forward: self- and cross-attention + ffn"):
        with p.repeat(2, "self-attention, then encoder-decoder attention"):
            attention_fwd(p, n, s, d, heads)
        ffn_fwd(p, t, d, inner, "relu")
    p.comment("output projection to the target vocabulary + label-smoothed loss")
    p.k("volta_sgemm_128x128_tn", 1, gemm_us(2 * t * d * vocab), MEM["sgemm"],
        blocks(t, 128) * blocks(vocab, 128))
    p.k("cunn_SoftMaxForward", 1, mem_us(2 * F * t * vocab), MEM["softmax"], t)
    p.k("reduce_kernel_sum", 2, mem_us(F * t * vocab), MEM["reduce"], 320)
    p.k("cunn_SoftMaxBackward", 1, mem_us(3 * F * t * vocab), MEM["softmax"], t)
    linear_bwd(p, t, d, vocab, bias=False)
    with p.repeat(6, "decoder layers, backward"):
        ffn_bwd(p, t, d, inner, "threshold")
        with p.repeat(2, "encoder-decoder attention, then self-attention"):
            attention_bwd(p, n, s, d, heads)
    with p.repeat(6, "encoder layers, backward"):
        ffn_bwd(p, t, d, inner, "threshold")
        attention_bwd(p, n, s, d, heads)
    p.k("embedding_backward_feature_kernel", 2, mem_us(3 * F * t * d), MEM["embed"], 512)
    p.comment("optimizer: Adam over 52M parameters, foreach")
    p.k("multi_tensor_apply_kernel", 8, mem_us(8 * F * 52e6) / 8, MEM["optim"], 320)
    p.write(HEADERS["transformer"], 1e6 / 8.61775899193302, 0.10,
            "Gavel v100 Transformer bs64: 8.618 steps/s")


# LSTM language model (Gavel 'LM': PyTorch word_language_model on
# Wikitext-2: 2 layers, 200 hidden, emsize 200, bptt 35, vocab 33278), bs 20.
def lstm():
    p = Profile("lstm")
    n, steps, hid, vocab = 20, 35, 200, 33278
    t = n * steps
    p.comment("embedding + dropout")
    p.k("indexSelectLargeIndex", 1, mem_us(2 * F * t * hid), MEM["embed"], 140)
    p.k("fused_dropout_kernel_vec", 1, mem_us(3 * F * t * hid), MEM["eltwise"], 80)
    gx = gemm_us(2 * t * hid * 4 * hid, "small")
    gh = gemm_us(2 * n * hid * 4 * hid, "small")
    pw = mem_us(10 * F * n * hid)
    for layer, stream in ((1, 0), (2, 1)):
        p.comment(f"cuDNN LSTM layer {layer} forward: input GEMM for all steps, "
                  "then per step recurrent GEMM + pointwise"
                  + (" (stream 1: cuDNN overlaps layers)" if stream else ""))
        p.k("volta_sgemm_128x64_tn", 1, gx, MEM["lstm_gemm"], 80, stream)
        with p.repeat(steps, f"layer {layer} time steps"):
            p.k("volta_sgemm_32x32_sliced1x4_nn", 1, gh, MEM["lstm_gemm"], 100, stream)
            p.k("elementWise_fp_lstm", 1, pw, MEM["lstm_pointwise"], 80, stream)
    p.comment("dropout, decoder linear 200->33278, log_softmax, nll_loss")
    p.k("fused_dropout_kernel_vec", 1, mem_us(3 * F * t * hid), MEM["eltwise"], 80)
    dec = gemm_us(2 * t * hid * vocab)
    p.k("volta_sgemm_128x64_tn", 1, dec, MEM["sgemm"], blocks(t, 128) * blocks(vocab, 64))
    p.k("cunn_SoftMaxForward", 1, mem_us(2 * F * t * vocab), MEM["softmax"], t)
    p.k("nll_loss_forward_reduce_cuda_kernel_2d", 1, FLOOR_US, MEM["reduce"], 1)
    p.comment("backward: loss, decoder (dgrad, wgrad, bias)")
    p.k("nll_loss_backward_reduce_cuda_kernel_2d", 1, FLOOR_US, MEM["reduce"], 1)
    p.k("cunn_SoftMaxBackward", 1, mem_us(3 * F * t * vocab), MEM["softmax"], t)
    p.k("volta_sgemm_128x64_nn", 1, dec * 10 / 9, MEM["sgemm"], blocks(t, 128) * 4)
    p.k("volta_sgemm_128x128_nt", 1, dec * 10 / 7, MEM["wgrad"], blocks(vocab, 128) * 2)
    p.k("reduce_kernel_sum", 1, mem_us(F * t * vocab), MEM["reduce"], 260)
    p.k("masked_scale_kernel", 1, mem_us(3 * F * t * hid), MEM["eltwise"], 80)
    for layer in (2, 1):
        p.comment(f"cuDNN LSTM layer {layer} backward: per step (reverse) pointwise + "
                  "recurrent dgrad, then data and weight GEMMs for all steps")
        with p.repeat(steps, f"layer {layer} time steps, reversed"):
            p.k("elementWise_bp_lstm", 1, pw * 1.5, MEM["lstm_pointwise"], 80)
            p.k("volta_sgemm_32x32_sliced1x4_tn", 1, gh, MEM["lstm_gemm"], 100)
        p.k("volta_sgemm_128x64_nn", 1, gx, MEM["lstm_gemm"], 80)
        p.k("volta_sgemm_128x32_nt", 2, gx, MEM["lstm_gemm"], 80)
    p.k("masked_scale_kernel", 1, mem_us(3 * F * t * hid), MEM["eltwise"], 80)
    p.k("embedding_backward_feature_kernel", 1, mem_us(3 * F * t * hid), MEM["embed"], 200)
    p.comment("clip_grad_norm_ (foreach norm, reduce, scale), then SGD update "
              "over 13.6M parameters")
    params = 13.6e6
    p.k("multi_tensor_apply_kernel", 2, mem_us(F * params) / 2, MEM["optim"], 320)
    p.k("reduce_kernel_sum", 1, FLOOR_US, MEM["reduce"], 1)
    p.k("multi_tensor_apply_kernel", 2, mem_us(2 * F * params) / 2, MEM["optim"], 320)
    p.k("multi_tensor_apply_kernel", 2, mem_us(3 * F * params) / 2, MEM["optim"], 320)
    p.write(HEADERS["lstm"], 1e6 / 64.74245099960703, 0.12,
            "Gavel v100 LM bs20: 64.74 steps/s")


# NeuMF (GMF + MLP towers), MovieLens-20M sized tables, batch 2048, Adam.
def neumf():
    p = Profile("neumf")
    n, users, items = 2048, 138493, 26744
    emb_gmf, emb_mlp = 64, 128
    mlp = [(256, 256), (256, 128), (128, 64)]
    p.comment("embedding lookups: user/item x GMF/MLP tables")
    p.k("indexSelectLargeIndex", 4, mem_us(2 * F * n * emb_mlp), MEM["embed"],
        blocks(n * emb_mlp, 512))
    p.k("vectorized_elementwise_kernel_mul", 1, mem_us(3 * F * n * emb_gmf), MEM["eltwise"],
        blocks(n * emb_gmf, 512))
    p.k("CatArrayBatchedCopy", 1, mem_us(2 * F * n * 256), MEM["eltwise"], 256)
    for fi, fo in mlp:
        p.k("volta_sgemm_64x64_tn", 1, gemm_us(2 * n * fi * fo, "small"), MEM["small_gemm"],
            blocks(n, 64) * blocks(fo, 64))
        p.k("vectorized_elementwise_kernel_relu", 1, mem_us(2 * F * n * fo), MEM["eltwise"],
            blocks(n * fo, 512))
    p.k("CatArrayBatchedCopy", 1, mem_us(2 * F * n * 128), MEM["eltwise"], 256)
    p.k("volta_sgemm_32x32_sliced1x4_tn", 1, FLOOR_US, MEM["small_gemm"], 64)
    p.k("vectorized_elementwise_kernel_sigmoid_bce", 2, FLOOR_US, MEM["eltwise"], 4)
    p.k("reduce_kernel_mean", 1, FLOOR_US, MEM["reduce"], 1)
    p.comment("backward")
    p.k("vectorized_elementwise_kernel_sigmoid_bce_backward", 2, FLOOR_US, MEM["eltwise"], 4)
    p.k("volta_sgemm_32x32_sliced1x4_nn", 2, FLOOR_US, MEM["small_gemm"], 64)
    for fi, fo in reversed(mlp):
        p.k("vectorized_elementwise_kernel_threshold_backward", 1, mem_us(3 * F * n * fo),
            MEM["eltwise"], blocks(n * fo, 512))
        p.k("volta_sgemm_64x64_nn", 1, gemm_us(2 * n * fi * fo, "small"), MEM["small_gemm"],
            blocks(n, 64) * blocks(fi, 64))
        p.k("volta_sgemm_64x64_nt", 1, gemm_us(2 * n * fi * fo, "small"), MEM["small_gemm"],
            blocks(fi, 64) * blocks(fo, 64) * 4)
        p.k("reduce_kernel_sum", 1, mem_us(F * n * fo), MEM["reduce"], blocks(fo, 4))
    p.k("vectorized_elementwise_kernel_mul", 2, mem_us(3 * F * n * emb_gmf), MEM["eltwise"],
        blocks(n * emb_gmf, 512))
    p.comment("dense embedding gradients (sparse=False): zero the table gradient, "
              "then scatter-add the batch rows")
    table = (users + items) * (emb_gmf + emb_mlp)
    p.k("vectorized_elementwise_kernel_fill", 4, mem_us(F * table) / 4, MEM["eltwise"],
        elt_grid(table // 4))
    p.k("embedding_backward_cuda_kernel", 4, mem_us(4 * F * n * emb_mlp), MEM["embed"],
        blocks(n, 4))
    p.comment("optimizer: Adam over all 31.7M parameters (dense), foreach")
    p.k("multi_tensor_apply_kernel", 6, mem_us(8 * F * (table + 2e5)) / 6, MEM["optim"], 320)
    p.write(HEADERS["neumf"], 1e6 / NEUMF_STEPS, 0.12,
            f"estimate {NEUMF_STEPS} steps/s, no Gavel entry: README.md")


# Gavel's 'Recommendation' job: Recoder's DynamicAutoencoder on ML-20M,
# item-based (each sample is an item's interaction vector over ~136k users),
# hidden 200, tanh, input noise 0.5, logistic loss, negative sampling, Adam.
def recoder():
    p = Profile("recoder")
    n, users, hid = 2048, 136677, 200
    io = n * users
    p.comment("batch to dense, input noise (dropout 0.5), gather of the batch's weight rows")
    p.k("vectorized_elementwise_kernel_fill", 1, mem_us(F * io), MEM["eltwise"], 65535)
    p.k("index_put_kernel", 1, mem_us(F * n * 200 * 3), MEM["eltwise"], 800)
    p.k("fused_dropout_kernel_vec", 1, mem_us(3 * F * io), MEM["eltwise"], 65535)
    p.k("indexSelectLargeIndex", 2, mem_us(2 * F * users * hid), MEM["embed"], 65535)
    p.comment("encoder GEMM + tanh, decoder GEMM + bias")
    enc = gemm_us(2 * n * users * hid)
    p.k("volta_sgemm_128x64_nn", 1, enc, MEM["sgemm"], blocks(n, 128) * blocks(hid, 64) * 8)
    p.k("vectorized_elementwise_kernel_tanh", 1, FLOOR_US, MEM["eltwise"], 800)
    p.k("volta_sgemm_128x128_tn", 1, enc, MEM["sgemm"], blocks(n, 128) * blocks(users, 128))
    p.k("vectorized_elementwise_kernel_add", 1, mem_us(3 * F * io), MEM["eltwise"], 65535)
    p.comment("logistic loss over the 2048 x 136k output, mean")
    p.k("vectorized_elementwise_kernel_binary_cross_entropy_with_logits", 1,
        mem_us(3 * F * io), MEM["eltwise"], 65535)
    p.k("reduce_kernel_mean", 1, mem_us(F * io), MEM["reduce"], 320)
    p.comment("backward: loss, decoder (dgrad, wgrad, bias), tanh, encoder wgrad")
    p.k("vectorized_elementwise_kernel_binary_cross_entropy_with_logits_backward", 1,
        mem_us(3 * F * io), MEM["eltwise"], 65535)
    p.k("volta_sgemm_128x64_nn", 1, enc * 10 / 9, MEM["sgemm"], blocks(n, 128) * 4 * 8)
    p.k("volta_sgemm_128x128_nt", 1, enc * 10 / 7, MEM["wgrad"], blocks(users, 128) * 2)
    p.k("reduce_kernel_sum", 1, mem_us(F * io), MEM["reduce"], 1068)
    p.k("vectorized_elementwise_kernel_tanh_backward", 1, FLOOR_US, MEM["eltwise"], 800)
    p.k("volta_sgemm_128x128_nt", 1, enc * 10 / 7, MEM["wgrad"], blocks(users, 128) * 2)
    p.comment("scatter the batch's weight-row gradients back (dense, sparse=False)")
    p.k("vectorized_elementwise_kernel_fill", 2, mem_us(F * users * hid), MEM["eltwise"], 65535)
    p.k("index_add_cuda_kernel", 2, mem_us(3 * F * users * hid), MEM["eltwise"], 65535)
    p.comment("optimizer: Adam over 54.9M parameters (weight decay 2e-5), foreach")
    p.k("multi_tensor_apply_kernel", 6, mem_us(8 * F * 54.9e6) / 6, MEM["optim"], 320)
    p.write(HEADERS["recoder"], 1e6 / 7.469632060833725, 0.10,
            "Gavel v100 Recommendation bs2048: 7.470 steps/s")


VGG16_STEPS = 2.78
NEUMF_STEPS = 300.0
BERT_STEPS = 3.1

HEADERS = {
    "resnet50": """model resnet50
batch_size 64
memory_mib 9216
streams 1
source: kernel sequence: ResNet-50 v1.5 (He et al. 2016) training step as PyTorch+cuDNN launch it on a V100, FP32, NCHW: conv/bn/relu per layer, residual add, backward dgrad+wgrad per conv, foreach SGD
source: bottleneck blocks grouped by stages 1-2 and 3-4 (per-block costs averaged within a group); downsample shortcuts grouped
source: memory intensity by kernel class from roofline arithmetic intensity (README.md); kernel names shortened to identifiers
source: total calibrated to Gavel (OSDI'20, MIT) v100 solo throughput, ('ResNet-50 (batch size 64)', 1) = 4.395 steps/s
source: memory 9 GiB: weights+grads+momentum ~0.3 GiB, activations at batch 64 ~6.5 GiB, cuDNN workspace + allocator cache (an estimate)
""",
    "resnet18": """model resnet18
batch_size 64
memory_mib 2048
streams 1
source: kernel sequence: ResNet-18 CIFAR-10 variant (3x3 stem, no maxpool, 32x32 inputs) as in Gavel's image_classification/cifar10 workload; PyTorch+cuDNN, FP32
source: basic blocks grouped by stages 1-2 and 3-4 (costs averaged within a group); downsample shortcuts grouped
source: memory intensity by kernel class from roofline arithmetic intensity (README.md)
source: total calibrated to Gavel (OSDI'20, MIT) v100 solo throughput, ('ResNet-18 (batch size 64)', 1) = 24.09 steps/s
source: memory 2 GiB: activations at 32x32 batch 64 ~0.6 GiB, weights+grads+momentum ~0.13 GiB, CUDA context + allocator cache (an estimate)
""",
    "vgg16": """model vgg16
batch_size 64
memory_mib 10240
streams 1
source: kernel sequence: VGG-16 (Simonyan & Zisserman 2015) training step, ImageNet 224x224, PyTorch+cuDNN FP32: 13 conv3x3+relu, 5 maxpool, 3 fc with dropout, foreach SGD
source: NO Gavel entry. Target 2.78 steps/s (360 ms) is an estimate: public V100 FP32 benchmarks put VGG-16 at ~0.6x ResNet-50 images/s; 0.63 x Gavel's ResNet-50 bs64 (281 img/s) = 177 img/s = 2.78 steps/s. Not measured here
source: memory intensity by kernel class from roofline arithmetic intensity (README.md)
source: memory 10 GiB: weights+grads+momentum 1.6 GiB, activations at batch 64 ~7 GiB, workspace (an estimate)
""",
    "bert_base": """model bert_base
batch_size 32
memory_mib 7168
streams 1
source: kernel sequence: BERT-base (12 layers, 768 hidden, 12 heads, 3072 FFN) sequence-classification fine-tuning, seq 128, as HuggingFace/PyTorch launch it, FP32, foreach AdamW
source: NO Gavel entry. Target 3.1 steps/s (323 ms) is an estimate: ~2.1 TFLOP per step (6 x 86M non-embedding parameters x 4096 tokens) at ~6.6 TFLOPS sustained FP32 on a V100, i.e. ~100 sequences/s, the order of public V100 FP32 figures. Not measured here
source: memory intensity by kernel class from roofline arithmetic intensity (README.md)
source: memory 7 GiB: weights+grads+Adam states 1.8 GiB, activations at batch 32 x 128 tokens ~4 GiB (an estimate)
""",
    "transformer": """model transformer
batch_size 64
memory_mib 4096
streams 1
source: kernel sequence: Transformer (Vaswani et al. 2017) as in Gavel's translation workload (Multi30k de-en; d_model 512, 6+6 layers, 8 heads, d_inner 2048), ~32 tokens per sentence, PyTorch FP32, foreach Adam
source: memory intensity by kernel class from roofline arithmetic intensity (README.md)
source: total calibrated to Gavel (OSDI'20, MIT) v100 solo throughput, ('Transformer (batch size 64)', 1) = 8.618 steps/s
source: memory 4 GiB: weights+grads+Adam states 0.8 GiB, activations ~1.5 GiB, allocator cache (an estimate)
""",
    "recoder": """model recoder
batch_size 2048
memory_mib 6144
streams 1
source: kernel sequence: Gavel's Recommendation workload (Recoder DynamicAutoencoder, ML-20M, item-based: 2048 items x ~136k users per batch, hidden 200, tanh, input noise 0.5, logistic loss, Adam), PyTorch FP32
source: memory intensity by kernel class (README.md): the 2048 x 136k element-wise passes (noise, loss, its gradient) and Adam are memory-bound; the encoder/decoder GEMMs compute-bound
source: total calibrated to Gavel (OSDI'20, MIT) v100 solo throughput, ('Recommendation (batch size 2048)', 1) = 7.470 steps/s
source: memory 6 GiB: dense 2048 x 136k input, output, loss gradient ~1.1 GiB each, weights+grads+Adam states 0.9 GiB (an estimate)
""",
    "lstm": """model lstm
batch_size 20
memory_mib 1024
streams 2
source: kernel sequence: 2-layer LSTM language model as in Gavel's language_modeling workload (PyTorch word_language_model, Wikitext-2: emsize 200, nhid 200, bptt 35, vocab 33278), cuDNN LSTM, clip_grad_norm, SGD
source: layer 2's forward recurrence runs on stream 1, modelling cuDNN's overlap of layers (a simplification: no cross-stream dependencies are replayed)
source: memory intensity by kernel class (README.md): recurrent GEMMs at batch 20 are small and sit between compute- and memory-bound
source: total calibrated to Gavel (OSDI'20, MIT) v100 solo throughput, ('LM (batch size 20)', 1) = 64.74 steps/s
source: memory 1 GiB: decoder logits 700 x 33278 dominate activations; CUDA context + allocator cache (an estimate)
""",
    "neumf": """model neumf
batch_size 2048
memory_mib 3072
streams 1
source: kernel sequence: NeuMF (He et al. 2017, GMF + MLP towers 256-128-64) on MovieLens-20M sized tables (138k users, 27k items), dense embedding gradients, PyTorch FP32, foreach Adam
source: NO Gavel entry: Gavel's Recommendation job is a different model (Recoder's DynamicAutoencoder, see recoder.model). Target 300 steps/s (3.3 ms) is an estimate: ~2 ms of GPU work by the cost model at this size, with the same ~1.5x model-to-measurement factor as the Gavel-calibrated profiles. Not measured here
source: memory intensity by kernel class (README.md): embedding lookups, dense table-gradient fills and Adam over the tables are memory-bound
source: memory 3 GiB: tables+grads+Adam states 0.5 GiB, activations small, allocator cache (an estimate)
""",
}

if __name__ == "__main__":
    for fn in (resnet50, resnet18, vgg16, bert_base, transformer, lstm, neumf, recoder):
        fn()

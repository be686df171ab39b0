#!/usr/bin/env python3
"""A short PyTorch training loop for scripts/gpu-check.sh.

Trains a small CNN on random data (fixed in GPU memory, so no data loading is timed) and
prints one JSON line with iterations/s. Each iteration ends with loss.item(), a host sync,
as real training loops do when they log the loss.

    torch_loop.py [--seconds S | --iterations N] [--warmup N] [--batch B] [--device cuda:0]

Exit status: 0 ok, 1 the run failed (e.g. non-finite loss), 2 bad arguments,
3 torch or CUDA not available (the check then skips the PyTorch part).
"""
import argparse
import json
import math
import sys
import time


def bounded(kind, lo, hi):
    """argparse type: a number of `kind` in [lo, hi], with an error that names the range."""

    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__}, got {text!r}")
        if not (lo <= value <= hi) or (kind is float and not math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be in {lo}..{hi}, got {text}")
        return value

    return parse


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    length = p.add_mutually_exclusive_group()
    length.add_argument("--seconds", type=bounded(float, 0.1, 600), default=4.0,
                        help="timed training time (default 4)")
    length.add_argument("--iterations", type=bounded(int, 1, 10_000_000),
                        help="timed iterations instead of --seconds")
    p.add_argument("--warmup", type=bounded(int, 0, 100_000), default=20,
                   help="untimed iterations first (default 20)")
    p.add_argument("--batch", type=bounded(int, 1, 65_536), default=128,
                   help="batch size (default 128)")
    p.add_argument("--device", default="cuda:0",
                   help="torch device (default cuda:0; 'cpu' only to smoke-test this script)")
    return p.parse_args()


def unavailable(msg):
    print(f"torch_loop: {msg}", file=sys.stderr)
    sys.exit(3)


def main():
    args = parse_args()
    try:
        import torch
        from torch import nn
    except Exception as e:  # any import failure means "no usable torch here"
        unavailable(f"cannot import torch: {e}")

    try:
        device = torch.device(args.device)
    except RuntimeError as e:
        print(f"torch_loop: --device {args.device!r} is not a torch device: {e}", file=sys.stderr)
        sys.exit(2)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            unavailable("torch.cuda.is_available() is False "
                        f"(torch {torch.__version__}, built for CUDA {torch.version.cuda})")
        index = device.index if device.index is not None else 0
        if index >= torch.cuda.device_count():
            print(f"torch_loop: --device {args.device} but only {torch.cuda.device_count()} "
                  "CUDA device(s) are visible", file=sys.stderr)
            sys.exit(2)
        device_name = torch.cuda.get_device_name(index)
    elif device.type == "cpu":
        device_name = "cpu"
    else:
        print(f"torch_loop: --device must be cuda[:N] or cpu, got {args.device!r}", file=sys.stderr)
        sys.exit(2)

    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10),
    ).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(args.batch, 3, 32, 32, device=device)
    y = torch.randint(0, 10, (args.batch,), device=device)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()  # host sync, as a loop that logs its loss does

    loss = float("nan")
    for _ in range(args.warmup):
        loss = step()
    iterations = 0
    t0 = time.perf_counter()
    while True:
        loss = step()
        iterations += 1
        elapsed = time.perf_counter() - t0
        if args.iterations is not None:
            if iterations >= args.iterations:
                break
        elif elapsed >= args.seconds:
            break

    result = {
        "model": "small_cnn",
        "device": device_name,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "batch": args.batch,
        "warmup": args.warmup,
        "iterations": iterations,
        "total_iterations": args.warmup + iterations,
        "elapsed_s": round(elapsed, 6),
        "iters_per_s": round(iterations / elapsed, 3) if elapsed > 0 else 0.0,
        "final_loss": loss if math.isfinite(loss) else None,
        "loss_finite": math.isfinite(loss),
    }
    print(json.dumps(result))
    if not math.isfinite(loss):
        print(f"torch_loop: loss is not finite ({loss})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

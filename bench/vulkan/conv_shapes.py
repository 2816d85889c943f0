#!/usr/bin/env python3
"""ResNet-50's convolution shapes at batch 32, one at a time, on the
tensor-core GEMM kernel: where `bench/vulkan/run.py` times whole models,
this times each convolution's kernels (the GEMM and, for repacked ones,
the input and filter packing), for tuning the kernel's tiles.

  bench/vulkan/conv_shapes.py prepare [--build DIR] [--dir D] [--precision P]
      (here) writes each convolution (bias and ReLU fused) as FX IR, compiles
      it with fx-compile for the H200 into D/<name>.fxa, copies fxrt-run
      beside them.
  bench/vulkan/conv_shapes.py measure [--dir D] [--runs N]
      (on the GPU machine, the Vulkan loader installed) runs each artifact
      with `fxrt-run --bench N --profile` (seeded random inputs) and prints,
      per convolution, the GPU time of its GEMM kernel, of its packing
      kernels and the GEMM's rate in TFLOP/s of f32 work; beside them, where
      torch with CUDA is installed, cuDNN's time for the same convolution and
      ReLU in TF32 (PyTorch's default) and in f16 channels-last.

The filter is an input here, not a parameter, so its packing runs (and is
timed) in every call; in a model it is a prepare step that runs once per
binding of the weights.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name: (batch, input channels, image size, output channels, kernel size)
SHAPES = {
    "c3_56": (32, 64, 56, 64, 3),
    "c3_28": (32, 128, 28, 128, 3),
    "c3_14": (32, 256, 14, 256, 3),
    "c3_7": (32, 512, 7, 512, 3),
    "pw_56_64_256": (32, 64, 56, 256, 1),
    "pw_56_256_64": (32, 256, 56, 64, 1),
    "pw_28_128_512": (32, 128, 28, 512, 1),
    "pw_28_512_128": (32, 512, 28, 128, 1),
    "pw_14_1024_256": (32, 1024, 14, 256, 1),
    "pw_14_256_1024": (32, 256, 14, 1024, 1),
    "pw_7_2048_512": (32, 2048, 7, 512, 1),
    "pw_7_512_2048": (32, 512, 7, 2048, 1),
}


def fx_text(name, n, c, size, f, k):
    x = f"tensor<{n}x{c}x{size}x{size}xf32>"
    w = f"tensor<{f}x{c}x{k}x{k}xf32>"
    b = f"tensor<{f}xf32>"
    y = f"tensor<{n}x{f}x{size}x{size}xf32>"
    pad = k // 2
    return (
        f"func.func @{name}(%x: {x}, %w: {w}, %b: {b}) -> {y} {{\n"
        f"  %c = fx.convolution %x, %w, %b {{stride = array<i64: 1, 1>, "
        f"padding = array<i64: {pad}, {pad}>, dilation = array<i64: 1, 1>, "
        f"output_padding = array<i64: 0, 0>}} : ({x}, {w}, {b}) -> {y}\n"
        f"  %r = fx.relu %c : ({y}) -> {y}\n"
        f"  return %r : {y}\n}}\n")


def prepare(args):
    os.makedirs(args.dir, exist_ok=True)
    for name, shape in SHAPES.items():
        mlir = os.path.join(args.dir, name + ".mlir")
        with open(mlir, "w") as f:
            f.write(fx_text(name, *shape))
        cmd = [os.path.join(args.build, "bin", "fx-compile"), mlir, "--target=vulkan",
               "--vulkan-target=nvidia-h200", "--precision=" + args.precision,
               "-o", os.path.join(args.dir, name + ".fxa")]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            sys.exit(f"{name}: fx-compile failed:\n{proc.stderr}")
    shutil.copy(os.path.join(args.build, "bin", "fxrt-run"), args.dir)
    print(f"{len(SHAPES)} convolutions at precision {args.precision} -> {args.dir}")


def torch_times(n, c, size, f, k, runs):
    """cuDNN's time for the same convolution and ReLU (TF32, as PyTorch's
    default; and f16 channels-last), median over `runs` CUDA-event timings,
    in us; None where torch or CUDA is missing."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    times = []
    for dtype, fmt in ((torch.float32, torch.contiguous_format),
                       (torch.float16, torch.channels_last)):
        x = torch.randn(n, c, size, size, device="cuda", dtype=dtype).to(
            memory_format=fmt)
        w = torch.randn(f, c, k, k, device="cuda", dtype=dtype).to(memory_format=fmt)
        b = torch.randn(f, device="cuda", dtype=dtype)
        def step():
            return F.relu(F.conv2d(x, w, b, padding=k // 2))
        for _ in range(5):
            step()
        samples = []
        for _ in range(runs):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(end) * 1000)
        times.append(sorted(samples)[len(samples) // 2])
    return times


def measure(args):
    fxrt = os.path.join(args.dir, "fxrt-run")
    print("| convolution (NCHW) | GEMM us | packing us | GEMM TFLOP/s "
          "| cuDNN TF32 us | cuDNN f16 NHWC us |")
    print("|---|---|---|---|---|---|")
    for name, (n, c, size, f, k) in SHAPES.items():
        proc = subprocess.run(
            [fxrt, os.path.join(args.dir, name + ".fxa"), "--bench", str(args.runs),
             "--profile"], capture_output=True, text=True)
        if proc.returncode:
            print(f"| {name} | error: {(proc.stderr or proc.stdout).strip()[-200:]} | | |")
            continue
        gemm = packing = 0.0
        for line in proc.stdout.splitlines():
            m = re.match(r"\s+\d+\s+([0-9.]+) us\s+\S+\s+\S+\s+(.*)", line)
            if not m:
                continue
            if m.group(2).startswith("pack "):
                packing += float(m.group(1))
            else:
                gemm += float(m.group(1))
        flops = 2 * n * size * size * f * c * k * k
        rate = flops / (gemm * 1e-6) / 1e12 if gemm else 0
        label = f"{k}x{k} {c} -> {f} at {size}x{size}"
        ref = torch_times(n, c, size, f, k, args.runs)
        ref_cols = " | ".join(f"{t:.1f}" for t in ref) if ref else "- | -"
        print(f"| {label} | {gemm:.1f} | {packing:.1f} | {rate:.1f} | {ref_cols} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--dir", default=os.path.join(HERE, "artifacts-convs"))
    p.add_argument("--precision", default="high", choices=["high", "medium"])
    m = sub.add_parser("measure")
    m.add_argument("--dir", default=os.path.join(HERE, "artifacts-convs"))
    m.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    prepare(args) if args.cmd == "prepare" else measure(args)


if __name__ == "__main__":
    main()

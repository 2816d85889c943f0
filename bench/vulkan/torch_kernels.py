#!/usr/bin/env python3
"""Where PyTorch's GPU time goes for one model: the CUDA kernels of eager
mode and of torch.compile (default mode), from torch.profiler, to set next
to fxrt-run --profile's per-dispatch times of the same model.

  bench/vulkan/torch_kernels.py resnet50 --batch 32 [--runs 10] [--top 40]
      (on the GPU machine) prints, per mode, the GPU time per call (sum of
      kernel times over --runs calls, divided by them), the time by kind of
      kernel (convolution, GEMM, elementwise/fused Triton, pooling, other)
      and the --top kernels by total time, with their calls per model call.

torchvision models by name, weights random (timing only), f32 with
PyTorch's defaults (TF32 convolutions: torch.backends.cudnn.allow_tf32).
"""
import argparse
import collections
import re


def kind(name):
    n = name.lower()
    if "conv" in n or "implicit_gemm" in n or "xmma" in n and "fprop" in n or "sm90_xmma" in n:
        return "convolution"
    if "gemm" in n or "cutlass" in n or "cublas" in n:
        return "gemm"
    if "pool" in n:
        return "pooling"
    if "triton" in n or "elementwise" in n or "vectorized" in n:
        return "elementwise / fused"
    return "other"


def profile(fn, x, runs):
    import torch
    from torch.profiler import ProfilerActivity, profile as tprofile
    for _ in range(5):
        fn(x)
    torch.cuda.synchronize()
    with tprofile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn(x)
        torch.cuda.synchronize()
    totals = collections.defaultdict(float)
    counts = collections.Counter()
    for event in prof.events():
        if event.device_type.name != "CUDA":
            continue
        totals[event.name] += event.device_time
        counts[event.name] += 1
    return totals, counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()

    import torch
    import torchvision
    torch.manual_seed(0)
    model = getattr(torchvision.models, args.model)().eval().cuda()
    x = torch.randn(args.batch, 3, args.size, args.size, device="cuda")
    print(f"{args.model} batch {args.batch} on {torch.cuda.get_device_name()}, "
          f"torch {torch.__version__}, cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}")
    with torch.no_grad():
        compiled = torch.compile(model)
        for label, fn in (("eager", model), ("torch.compile", compiled)):
            totals, counts = profile(fn, x, args.runs)
            per_call = sum(totals.values()) / args.runs
            print(f"\n== {label}: {per_call / 1000:.3f} ms of kernels per call")
            by_kind = collections.defaultdict(float)
            for name, t in totals.items():
                by_kind[kind(name)] += t / args.runs
            print("   " + ", ".join(f"{k} {v / 1000:.3f} ms" for k, v in
                                   sorted(by_kind.items(), key=lambda kv: -kv[1])))
            for name, t in sorted(totals.items(), key=lambda kv: -kv[1])[:args.top]:
                short = re.sub(r"\s+", " ", name)[:110]
                print(f"{t / args.runs:9.1f} us  x{counts[name] / args.runs:4.1f}  {short}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Vulkan programs with a dynamic outermost dimension against the same
graphs compiled for one size, on the GPU machine.

  bench/vulkan/dynamic.py prepare [--build DIR] [--dir D] [--target nvidia-h200]
      (here) compiles each workload twice with fx-compile --target vulkan:
      once with its first dimension dynamic (one program for every size)
      and once for the benchmark size (--dynamic-sizes); copies fxrt-run.
  bench/vulkan/dynamic.py run [--dir D] [--out O] [--runs N]
      (there) checks the dynamic program at several sizes, the benchmark
      size among them, against PyTorch (fxrt-run --expect), then times both
      programs at the benchmark size (fxrt-run --bench N --profile: GPU time
      of all dispatches, median). Writes O/dynamic.json and prints a table.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import fx_text, fxrt_gpu_us  # noqa: E402  (shared with run.py)

# name: (kind of run.py's fx_text, shapes at the benchmark size, other sizes
# of the first dimension checked for correctness).
WORKLOADS = {
    "stream_mul2": ("stream", [[1 << 28]], [1, 1000]),
    "softmax": ("softmax", [[8192, 8192]], [1, 7]),
    "layer_norm": ("layer_norm", [[8192, 8192], [8192], [8192]], [1, 7]),
    "sum_last": ("sum_last", [[8192, 8192]], [1, 7]),
    # Tiled kernels: the dynamic program's tile shape assumes a batch of
    # 1024 and never splits k.
    "matmul_f32": ("matmul", [[4096, 1024], [1024, 1024]], [1, 7]),
    "conv3x3_relu": ("conv_relu", [[32, 64, 56, 56], [64, 64, 3, 3]], [1, 3]),
}


def dynamic_shapes(shapes):
    """The first input's first dimension made dynamic."""
    return [["?"] + s[1:] if i == 0 else s for i, s in enumerate(shapes)]


def prepare(args):
    os.makedirs(args.dir, exist_ok=True)
    fx_compile = os.path.join(args.build, "bin", "fx-compile")
    for name, (kind, shapes, _) in WORKLOADS.items():
        path = os.path.join(args.dir, f"{name}.mlir")
        with open(path, "w") as f:
            f.write(fx_text(kind, dynamic_shapes(shapes), "f32"))
        common = [fx_compile, path, "--target=vulkan", f"--vulkan-target={args.target}"]
        subprocess.run(common + ["-o", os.path.join(args.dir, f"{name}.dynamic.fxa")],
                       check=True)
        subprocess.run(common + [f"--dynamic-sizes={shapes[0][0]}", "-o",
                                 os.path.join(args.dir, f"{name}.static.fxa")], check=True)
    shutil.copy(os.path.join(args.build, "bin", "fxrt-run"), args.dir)
    print(f"{len(WORKLOADS)} workloads compiled into {args.dir}")


def reference(kind, inputs, torch):
    x = inputs[0]
    if kind == "stream":
        return x * 2
    if kind == "softmax":
        return torch.softmax(x.double(), -1).float()
    if kind == "layer_norm":
        return torch.nn.functional.layer_norm(x.double(), x.shape[-1:], inputs[1].double(),
                                              inputs[2].double()).float()
    if kind == "sum_last":
        return x.double().sum(-1).float()
    if kind == "matmul":
        return (x.double() @ inputs[1].double()).float()
    if kind == "conv_relu":
        return torch.relu(torch.nn.functional.conv2d(x.double(), inputs[1].double(),
                                                     padding=1)).float()
    raise ValueError(kind)


def fxrt(args, artifact, paths, extra):
    cmd = [os.path.join(args.dir, "fxrt-run"), os.path.join(args.dir, artifact),
           "--target", "vulkan"]
    for path in paths:
        cmd += ["--input", path]
    return subprocess.run(cmd + extra, capture_output=True, text=True)


def run(args):
    import numpy as np
    import torch

    work = os.path.join(args.out, "dynamic-work")
    os.makedirs(work, exist_ok=True)
    rows, passed, failed = [], 0, 0
    for name, (kind, shapes, sizes) in WORKLOADS.items():
        row = {"name": name, "shapes": shapes}
        for n in sizes + [shapes[0][0]]:
            gen = torch.Generator().manual_seed(n)
            inputs = [torch.randn([n] + s[1:] if i == 0 else s, generator=gen)
                      for i, s in enumerate(shapes)]
            paths = []
            for i, t in enumerate(inputs):
                paths.append(os.path.join(work, f"{name}.in{i}.npy"))
                np.save(paths[-1], t.numpy())
            expect = os.path.join(work, f"{name}.ref.npy")
            np.save(expect, reference(kind, inputs, torch).numpy())
            proc = fxrt(args, f"{name}.dynamic.fxa", paths,
                        ["--expect", expect, "--rtol", "1e-4", "--atol", "1e-4"])
            ok = proc.returncode == 0
            passed, failed = passed + ok, failed + (not ok)
            print(f"{'PASS' if ok else 'FAIL'} {name} first dimension {n}"
                  + ("" if ok else ": " + (proc.stderr or proc.stdout).strip()[-500:]))
        # Timing at the benchmark size: the inputs of the last size above.
        for variant in ("static", "dynamic"):
            proc = fxrt(args, f"{name}.{variant}.fxa", paths,
                        ["--bench", str(args.runs), "--profile"])
            gpu_us = fxrt_gpu_us(proc.stdout)
            row[f"{variant}_gpu_us"] = gpu_us
            if gpu_us is None:
                row[f"{variant}_error"] = (proc.stderr or proc.stdout).strip()[-500:]
        rows.append(row)
        for f in os.listdir(work):
            os.remove(os.path.join(work, f))
    result = {"rows": rows, "passed": passed, "failed": failed, "runs": args.runs}
    with open(os.path.join(args.out, "dynamic.json"), "w") as f:
        json.dump(result, f, indent=1)
    print("\n| workload | shapes | fixed-size program us | dynamic program us | ratio |")
    print("|---|---|---|---|---|")
    for r in rows:
        s, d = r.get("static_gpu_us"), r.get("dynamic_gpu_us")
        ratio = f"{d / s:.2f}" if s and d else ""
        print(f"| {r['name']} | {r['shapes']} | {s} | {d} | {ratio} |")
    print(f"\n{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["prepare", "run"])
    parser.add_argument("--build", default=os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                        "build"))
    parser.add_argument("--dir", default=os.path.join(HERE, "artifacts", "dynamic"))
    parser.add_argument("--target", default="nvidia-h200")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""CPU benchmark of fx-mlir against OpenBLAS, oneDNN and memory bandwidth.

Usage: bench/cpu/run.py [--build DIR] [--runs N] [--rounds R] [--out bench/results] [--only REGEX]
                        [--cpu native] [--cpu x86-64-v3] ...

--cpu picks the CPU levels fx-mlir compiles for (default: native), each a
column of the table: code for x86-64-v3 (AVX2, 16 vector registers) runs on
an AVX-512 host too, so both levels are measured on any recent x86-64
machine. The table names this machine's CPU.

Everything is measured in one run on this machine: fx-run --bench for the
compiled graphs (inputs from NumPy, outputs checked against a float64 NumPy
reference in the same invocation) and bench/cpu/baselines.cpp for the
references (OpenBLAS sgemm at 1 and 2 threads, oneDNN convolution, a
STREAM-style add), run once per CPU level restricted to that level's
instructions (reference_isa: OPENBLAS_CORETYPE, ONEDNN_MAX_CPU_ISA), so
that AVX2 code meets AVX2 kernels and AVX-512 code AVX-512 ones (OpenBLAS
left alone runs AVX2 kernels on AMD Zen 4 and Zen 5). Convolution filters
are parameters bound from a weights file, as in a model (and as oneDNN's
are reordered once, outside its timed loop). Prints a markdown table and
writes cpu.json and cpu.md.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
from machine import cpu_name, write_results  # noqa: E402


# Convolutions (name, C, H = W, F, kernel, stride, padding, groups): ResNet-18
# stages, its stem and a 1x1 of ResNet-50, MobileNet depthwise shapes and
# MobileNetV2's 1x1 convolutions at 14x14 and 7x7; the same table as
# baselines.cpp.
CONVS = [
    ("conv3x3_1x64x56x56", 64, 56, 64, 3, 1, 1, 1),
    ("conv3x3_1x128x28x28", 128, 28, 128, 3, 1, 1, 1),
    ("conv3x3_1x256x14x14", 256, 14, 256, 3, 1, 1, 1),
    ("conv3x3_1x512x7x7", 512, 7, 512, 3, 1, 1, 1),
    ("conv3x3s2_1x64x56x56", 64, 56, 128, 3, 2, 1, 1),
    ("conv1x1_1x256x14x14", 256, 14, 1024, 1, 1, 0, 1),
    ("conv7x7s2_1x3x224x224", 3, 224, 64, 7, 2, 3, 1),
    ("dwconv3x3_1x32x112x112", 32, 112, 32, 3, 1, 1, 32),
    ("dwconv3x3_1x384x14x14", 384, 14, 384, 3, 1, 1, 384),
    ("conv1x1_1x96x14x14", 96, 14, 576, 1, 1, 0, 1),
    ("conv1x1_1x960x7x7", 960, 7, 160, 1, 1, 0, 1),
    ("conv1x1_1x320x7x7", 320, 7, 1280, 1, 1, 0, 1),
]
CONV_MLIR = """func.func @conv(%x: tensor<1x{c}x{h}x{h}xf32>, %w: tensor<{f}x{cg}x{k}x{k}xf32> {{fx.param = "weight"}}) -> tensor<1x{f}x{oh}x{oh}xf32> {{
  %0 = fx.convolution %x, %w {{dilation = array<i64: 1, 1>, groups = {g} : i64, output_padding = array<i64: 0, 0>, padding = array<i64: {p}, {p}>, stride = array<i64: {s}, {s}>}} : (tensor<1x{c}x{h}x{h}xf32>, tensor<{f}x{cg}x{k}x{k}xf32>) -> tensor<1x{f}x{oh}x{oh}xf32>
  return %0 : tensor<1x{f}x{oh}x{oh}xf32>
}}
"""


def build_baselines(build):
    exe = os.path.join(build, "bench", "cpu-baselines")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    src = os.path.join(HERE, "baselines.cpp")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run(["clang++-22", "-O3", "-march=native", "-std=c++17",
                        src, "-o", exe, "-lopenblas", "-ldnnl"], check=True)
    return exe


def host_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def reference_isa(level):
    """The environment that restricts OpenBLAS and oneDNN to the
    instructions fx-mlir's code for `level` uses, and how to name it. Left
    alone, OpenBLAS 0.3 takes an AMD Zen 4 or Zen 5 for a "Zen" and runs its
    AVX2 kernels (a 1024^3 sgemm at 17.6 ms on a Zen 5, 9.3 ms with its
    AVX-512 kernels): code for the host is compared with OpenBLAS's
    SkylakeX kernels where the host has AVX-512, code for x86-64-v3 with
    its Haswell (AVX2) kernels and oneDNN capped at AVX2, code for
    x86-64-v4 with AVX-512 kernels."""
    if level == "x86-64-v3":
        return {"OPENBLAS_CORETYPE": "Haswell", "ONEDNN_MAX_CPU_ISA": "AVX2"}, "AVX2"
    if level == "x86-64-v4":
        return ({"OPENBLAS_CORETYPE": "SkylakeX", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE"},
                "AVX-512")
    # Native: the best each library has for the host.
    if "avx512f" in host_flags():
        return {"OPENBLAS_CORETYPE": "SkylakeX"}, "AVX-512"
    return {}, "host"


def run_baselines(exe, runs, extra_env, rounds=1):
    """OpenBLAS sets its threads itself; oneDNN takes OMP_NUM_THREADS, so the
    baseline program runs once per thread count and convolution rows are
    suffixed with it. `extra_env` restricts both to an ISA (reference_isa).
    With `rounds`, each row keeps the run of the lowest median."""
    result = {}
    for _ in range(rounds):
        for name, times in run_baselines_once(exe, runs, extra_env).items():
            if name not in result or times[0] < result[name][0]:
                result[name] = times
    return result


def run_baselines_once(exe, runs, extra_env):
    result = {}
    for threads in (1, 2):
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), **extra_env)
        out = subprocess.run([exe, str(runs)], capture_output=True, text=True,
                             env=env, check=True).stdout
        for line in out.splitlines():
            name, med, lo, hi = line.split()
            if name.startswith("onednn"):
                name += f"_t{threads}"
            elif threads != 1:
                continue  # OpenBLAS and bandwidth rows: from the first run
            result[name] = (float(med), float(lo), float(hi))
    return result


ROUNDS = 1


def run_fx(fx_run, mlir, entry, inputs, ref, runs, tmp, rtol, atol,
           extra=(), weights=None):
    """weights: {name: array} for the arguments tagged fx.param, bound from
    a .safetensors file (as a model's weights: CPU code prepares them, e.g.
    packs a filter, once per binding, not per run). Runs ROUNDS times and
    keeps the round of the lowest median."""
    best = None
    for _ in range(ROUNDS):
        r = run_fx_once(fx_run, mlir, entry, inputs, ref, runs, tmp, rtol, atol,
                        extra, weights)
        if best is None or r["median_ms"] < best["median_ms"]:
            best = r
    return best


def run_fx_once(fx_run, mlir, entry, inputs, ref, runs, tmp, rtol, atol,
                extra=(), weights=None):
    files = []
    for i, a in enumerate(inputs):
        f = os.path.join(tmp, f"{entry}.in{i}.npy")
        np.save(f, a)
        files.append(f)
    ref_file = os.path.join(tmp, f"{entry}.ref.npy")
    np.save(ref_file, ref)
    cmd = [fx_run, os.path.join(HERE, mlir), "--entry", entry,
           "--bench", str(runs), "--expect", ref_file,
           "--rtol", str(rtol), "--atol", str(atol), *extra]
    for f in files:
        cmd += ["--input", f]
    if weights:
        import torch
        from fx_mlir import safetensors
        weights_file = os.path.join(tmp, f"{entry}.safetensors")
        safetensors.save({k: torch.from_numpy(v) for k, v in weights.items()}, weights_file)
        cmd += ["--weights", weights_file]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    text = proc.stdout + proc.stderr
    m = re.search(r"median ([0-9.]+) ms, min ([0-9.]+) ms, max ([0-9.]+) ms",
                  text)
    c = re.search(r"compile: ([0-9.]+) ms", text)
    ok = proc.returncode == 0 and "PASS" in text
    if not m:
        sys.exit(f"fx-run failed for {entry}:\n{text}")
    err = re.search(r"max abs error ([0-9.e+-]+|inf|nan), max rel error", text)
    return {"median_ms": float(m.group(1)), "min_ms": float(m.group(2)),
            "max_ms": float(m.group(3)), "compile_ms": float(c.group(1)),
            "correct": ok, "max_abs_error": err.group(1) if err else "?"}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3,
                    help="measure every row this many times (fx-mlir and the "
                         "references) and keep each one's lowest median: a "
                         "shared host's hiccups (a second thread that does not "
                         "run for a while) then do not decide a row")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--cpu", action="append",
                    help="CPU level to compile for (repeat; default native)")
    ap.add_argument("--only", metavar="REGEX",
                    help="run only the workloads whose name matches (matmul_1024, "
                         "conv1x1_1x320x7x7, chain4, softmax, layer_norm); the table and JSON "
                         "then hold those rows")
    args = ap.parse_args()
    global ROUNDS
    ROUNDS = args.rounds
    wanted = lambda name: not args.only or re.search(args.only, name)
    levels = args.cpu or ["native"]
    fx_run = os.path.join(args.build, "bin", "fx-run")
    exe = build_baselines(args.build)
    # References per CPU level, restricted to that level's instructions.
    isa_names, by_level = {}, {}
    for level in levels:
        env, isa_names[level] = reference_isa(level)
        by_level[level] = run_baselines(exe, args.runs, env, args.rounds)
    baselines = by_level[levels[0]]
    rng = np.random.default_rng(0)
    rows, data = [], {}
    tmp = tempfile.mkdtemp(prefix="fx-bench-")

    for n in (256, 512, 1024, 1000):
        if not wanted(f"matmul_{n}"):
            continue
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        gflops = lambda ms: 2 * n ** 3 / (ms * 1e-3) / 1e9
        for t in (1, 2):
            for level in levels:
                r = run_fx(fx_run, "matmul.mlir", f"matmul_{n}", [a, b], ref,
                           args.runs, tmp, 1e-3, 1e-3,
                           ["--num-threads", str(t), "--cpu", level])
                data[f"matmul_{n}_t{t}_{level}"] = r
                key = f"openblas_sgemm_{n}_t{t}"
                threads = f"{t} thread{'s' if t > 1 else ''}"
                if key in by_level[level]:
                    b_ms = by_level[level][key][0]
                    rows.append((f"matmul {n}^3 f32, {threads}", level,
                                 f"{r['median_ms']:.3f} ms ({gflops(r['median_ms']):.0f} GFLOP/s)",
                                 f"OpenBLAS ({isa_names[level]}): {b_ms:.3f} ms ({gflops(b_ms):.0f} GFLOP/s)",
                                 f"{b_ms / r['median_ms']:.2f}x", r["correct"]))
                else:
                    rows.append((f"matmul {n}^3 f32 (odd size), {threads}", level,
                                 f"{r['median_ms']:.3f} ms ({gflops(r['median_ms']):.0f} GFLOP/s)",
                                 "-", "-", r["correct"]))

    import torch
    for name, c, h, f, k, stride, pad, groups in CONVS:
        if not wanted(name):
            continue
        oh = (h + 2 * pad - k) // stride + 1
        mlir = os.path.join(tmp, f"{name}.mlir")
        with open(mlir, "w") as out:
            out.write(CONV_MLIR.format(c=c, h=h, f=f, cg=c // groups, k=k, s=stride, p=pad,
                                       g=groups, oh=oh))
        x = rng.standard_normal((1, c, h, h)).astype(np.float32)
        w = (rng.standard_normal((f, c // groups, k, k)) * 0.1).astype(np.float32)
        ref = torch.nn.functional.conv2d(torch.from_numpy(x).double(),
                                         torch.from_numpy(w).double(), stride=stride,
                                         padding=pad, groups=groups).float().numpy()
        flops = 2 * f * (c // groups) * k * k * oh * oh
        label = (f"{'depthwise ' if groups > 1 else ''}conv {k}x{k}"
                 f"{f' stride {stride}' if stride > 1 else ''} 1x{c}x{h}x{h} -> {f}")
        for t, level in [(t, level) for t in (1, 2) for level in levels]:
            r = run_fx(fx_run, mlir, "conv", [x], ref, args.runs, tmp, 1e-3, 1e-3,
                       ["--num-threads", str(t), "--cpu", level], weights={"weight": w})
            data[f"{name}_t{t}_{level}"] = r
            b_ms = by_level[level][f"onednn_{name}_t{t}"][0]
            rows.append((f"{label}, {t} thread{'s' if t > 1 else ''}", level,
                         f"{r['median_ms']:.3f} ms ({flops / r['median_ms'] / 1e6:.1f} GFLOP/s)",
                         f"oneDNN ({isa_names[level]}): {b_ms:.3f} ms ({flops / b_ms / 1e6:.1f} GFLOP/s)",
                         f"{b_ms / r['median_ms']:.2f}x", r["correct"]))

    n = 1 << 24
    xs = rng.standard_normal(n).astype(np.float32)
    ys = rng.standard_normal(n).astype(np.float32)
    ref = np.tanh(np.maximum(xs.astype(np.float64) * 2 + 1, 0) * ys).astype(np.float32)
    # The faster of ordinary and non-temporal stores (an ordinary store first
    # reads its line: 4 x 64 MiB of traffic for the 3 counted).
    stream_ms = min(baselines["stream_add_2x64MiB_in_64MiB_out"][0],
                    baselines.get("stream_add_nt_2x64MiB_in_64MiB_out",
                                  [float("inf")])[0])
    bytes_moved = 3 * 4 * n
    bw = bytes_moved / (stream_ms * 1e-3) / 1e9
    for level in levels if wanted("chain4") else []:
        r = run_fx(fx_run, "elementwise.mlir", "chain4", [xs, ys], ref,
                   args.runs, tmp, 1e-5, 1e-6,
                   ["--num-threads", "1", "--cpu", level])
        data[f"chain4_{level}"] = r
        rows.append(("elementwise chain of 4 ops, 2^24 f32, 1 thread", level,
                     f"{r['median_ms']:.2f} ms ({bytes_moved / r['median_ms'] / 1e6:.1f} GB/s)",
                     f"measured bandwidth (add, same traffic): {stream_ms:.2f} ms ({bw:.1f} GB/s)",
                     f"{stream_ms / r['median_ms']:.2f}x", r["correct"]))
    for nofuse in (True,) if wanted("chain4") else ():
        r2 = run_fx(fx_run, "elementwise.mlir", "chain4", [xs, ys], ref,
                    max(3, args.runs // 3), tmp, 1e-5, 1e-6,
                    ["--no-fusion", "--num-threads", "1"])
        data["chain4_unfused"] = r2
        rows.append(("  same, --no-fusion", "native", f"{r2['median_ms']:.2f} ms",
                     "", "", r2["correct"]))

    s = rng.standard_normal((4096, 4096)).astype(np.float32)
    s64 = s.astype(np.float64)
    e = np.exp(s64 - s64.max(-1, keepdims=True))
    ref = (e / e.sum(-1, keepdims=True)).astype(np.float32)
    bytes_moved = 2 * 4 * 4096 * 4096
    for level in levels if wanted("softmax") else []:
        r = run_fx(fx_run, "elementwise.mlir", "softmax", [s], ref, args.runs,
                   tmp, 1e-5, 1e-7, ["--num-threads", "1", "--cpu", level])
        data[f"softmax_{level}"] = r
        rows.append(("softmax 4096x4096 f32 (rows), 1 thread", level,
                     f"{r['median_ms']:.2f} ms ({bytes_moved / r['median_ms'] / 1e6:.1f} GB/s)",
                     f"bandwidth bound at {bw:.1f} GB/s: {bytes_moved / bw / 1e6:.2f} ms",
                     f"{bytes_moved / bw / 1e6 / r['median_ms']:.2f}x", r["correct"]))

    lw = rng.standard_normal(4096).astype(np.float32)
    lb = rng.standard_normal(4096).astype(np.float32)
    mean = s64.mean(-1, keepdims=True)
    var = ((s64 - mean) ** 2).mean(-1, keepdims=True)
    ref = ((s64 - mean) / np.sqrt(var + 1e-5) * lw + lb).astype(np.float32)
    for level in levels if wanted("layer_norm") else []:
        r = run_fx(fx_run, "elementwise.mlir", "layer_norm", [s, lw, lb], ref, args.runs,
                   tmp, 1e-4, 1e-5, ["--num-threads", "1", "--cpu", level])
        data[f"layer_norm_{level}"] = r
        rows.append(("layer norm 4096x4096 f32 (rows), 1 thread", level,
                     f"{r['median_ms']:.2f} ms ({bytes_moved / r['median_ms'] / 1e6:.1f} GB/s)",
                     f"bandwidth bound at {bw:.1f} GB/s: {bytes_moved / bw / 1e6:.2f} ms",
                     f"{bytes_moved / bw / 1e6 / r['median_ms']:.2f}x", r["correct"]))

    header = (f"Machine: {cpu_name()}. fx-mlir's code is compiled for the "
              "CPU level of its row (native: this CPU and all its "
              "features); OpenBLAS and oneDNN run restricted to the same "
              "instructions (their AVX2 kernels for x86-64-v3, AVX-512 ones "
              "for an AVX-512 host's native code), named in each row. "
              f"Each time is the lowest of {ROUNDS} rounds' medians of "
              f"{args.runs} runs.\n\n"
              "| workload | code for | fx-mlir (CPU) | reference (same threads) | reference/fx time | numbers ok |\n"
              "|---|---|---|---|---|---|")
    table = header + "\n" + "\n".join(
        f"| {a} | {lv} | {b} | {c} | {d} | {'yes' if ok else 'NO'} |"
        for a, lv, b, c, d, ok in rows)
    print(table)
    write_results(args.out, "cpu", "# CPU benchmark (bench/cpu/run.py)\n\n" + table + "\n",
                  {"machine": cpu_name(), "fx": data, "baselines": by_level}, indent=2)
    return 0 if all(r[5] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

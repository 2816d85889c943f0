#!/usr/bin/env python3
"""Fusion benchmark: dispatches and CPU time, fused vs unfused, in one run.

Usage: bench/fusion/run.py [--build DIR] [--runs N] [--threads T] [--out bench/results]

For each workload: the number of dispatches without fusion (linalg ops other
than fills after convert-fx-to-linalg: each becomes its own loop nest) and
with fusion (dispatch regions counted by fx-run --fusion-report), and fx-run
--bench medians with and without --no-fusion. Writes fusion.md and
fusion.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def conv(x, w, c_out, pad=1):
    return (f"fx.convolution {x}, {w} {{stride = array<i64: 1, 1>, padding = array<i64: {pad}, {pad}>, "
            f"dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}}")


WORKLOADS = {
    "elementwise chain of 4, 2^24 f32": """
func.func @chain(%x: tensor<16777216xf32>, %y: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = fx.mul %x, %y : (tensor<16777216xf32>, tensor<16777216xf32>) -> tensor<16777216xf32>
  %1 = fx.add %0, %x : (tensor<16777216xf32>, tensor<16777216xf32>) -> tensor<16777216xf32>
  %2 = fx.relu %1 : (tensor<16777216xf32>) -> tensor<16777216xf32>
  %3 = fx.sigmoid %2 : (tensor<16777216xf32>) -> tensor<16777216xf32>
  return %3 : tensor<16777216xf32>
}""",
    "conv 3x3 + batch norm + relu, 1x64x56x56": """
func.func @conv_bn_relu(%x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>, %m: tensor<64xf32>, %v: tensor<64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<1x64x56x56xf32> {
  %0 = """ + conv("%x", "%w", 64) + """ : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  %1 = fx.batch_norm %0, %m, %v weight(%g) bias(%b) : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
  %2 = fx.relu %1 : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %2 : tensor<1x64x56x56xf32>
}""",
    "linear + gelu, 512x1024 -> 1024": """
func.func @linear_gelu(%x: tensor<512x1024xf32>, %w: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<512x1024xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<512x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<512x1024xf32>
  %1 = fx.gelu %0 : (tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %1 : tensor<512x1024xf32>
}""",
    "softmax 4096x4096": """
func.func @softmax(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = fx.softmax %x {dim = 1 : i64} : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}""",
    "layer_norm 4096x1024": """
func.func @layer_norm(%x: tensor<4096x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<4096x1024xf32> {
  %0 = fx.layer_norm %x weight(%w) bias(%b) {normalized_shape = array<i64: 1024>} : (tensor<4096x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<4096x1024xf32>
  return %0 : tensor<4096x1024xf32>
}""",
}
FILES = {
    "ResNet basic block (examples/)": os.path.join(ROOT, "examples", "resnet_basic_block.mlir"),
    "transformer encoder block (examples/)": os.path.join(ROOT, "examples", "attention_block.mlir"),
}


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def median_ms(text):
    m = re.search(r"median ([0-9.]+) ms", text)
    return float(m.group(1)) if m else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = ap.parse_args()
    fx_run = os.path.join(args.build, "bin", "fx-run")
    fx_opt = os.path.join(args.build, "bin", "fx-opt")
    tmp = tempfile.mkdtemp(prefix="fx-fusion-")
    items = []
    for name, text in WORKLOADS.items():
        path = os.path.join(tmp, re.sub(r"[^a-z0-9]+", "_", name.lower()) + ".mlir")
        with open(path, "w") as f:
            f.write(text)
        items.append((name, path))
    items += list(FILES.items())
    rows = []
    for name, path in items:
        print(f"{name} ...", file=sys.stderr, flush=True)
        lowered = run([fx_opt, path, "--pass-pipeline=builtin.module(func.func(convert-fx-to-linalg))"])
        unfused = len(re.findall(r"= linalg\.(?!fill|yield|index)[a-z_0-9]+", lowered.stdout))
        common = ["--num-threads", str(args.threads), "--bench", str(args.runs)]
        if "fx.param" in open(path).read():
            # Seeded weights and input, as scripts/run-example.sh makes them.
            prefix = os.path.join(tmp, os.path.basename(path)[:-5])
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-example-data.py"),
                            path, prefix], check=True)
            common += ["--weights", prefix + ".safetensors", "--input", prefix + ".input.npy"]
        fused_run = run([fx_run, path, "--fusion-report"] + common)
        regions = sum(int(n) for n in re.findall(r"remark: (\d+) dispatch regions",
                                                 fused_run.stderr + fused_run.stdout))
        plain_run = run([fx_run, path, "--no-fusion"] + common)
        fused_ms = median_ms(fused_run.stdout + fused_run.stderr)
        plain_ms = median_ms(plain_run.stdout + plain_run.stderr)
        rows.append({"workload": name, "dispatches_unfused": unfused, "dispatches_fused": regions,
                     "ms_unfused": plain_ms, "ms_fused": fused_ms})
    lines = [f"Fusion on the CPU ({args.threads} threads, median of {args.runs} runs, fx-run "
             "--bench; dispatches: linalg ops other than fills without fusion, dispatch "
             "regions with fusion).", "",
             "| workload | dispatches unfused | dispatches fused | ms unfused | ms fused | speedup |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['workload']} | {r['dispatches_unfused']} | {r['dispatches_fused']} | "
                     f"{r['ms_unfused']:.3f} | {r['ms_fused']:.3f} | "
                     f"{r['ms_unfused'] / r['ms_fused']:.2f}x |")
    table = "\n".join(lines) + "\n"
    print(table)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "fusion.md"), "w") as f:
        f.write(table)
    with open(os.path.join(args.out, "fusion.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fusion benchmark: dispatches and CPU time, fused vs unfused, in one run.

Usage: bench/fusion/run.py [--build DIR] [--runs N] [--threads T] [--out bench/results]

For each workload, counted from the IR by fx-form-dispatch-regions' report:
the number of dispatches and the bytes they move in memory without fusion
(every linalg op but fills its own dispatch: `fuse=false` after
convert-fx-to-linalg) and with it (the fusion stages of fx-cpu-pipeline);
and fx-run --bench medians with and without --no-fusion, in the same run.
Also ResNet-18 (torchvision, 224x224, imported here): its dispatch count,
and how many dispatches hold no convolution or matmul (an elementwise op
there would be a batch norm, ReLU or residual add that did not fuse into a
convolution). Writes fusion.md and fusion.json.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from machine import write_results  # noqa: E402


def conv(x, w, c_out, pad=1):
    return (f"fx.convolution {x}, {w} {{stride = array<i64: 1, 1>, padding = array<i64: {pad}, {pad}>, "
            f"dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}}")


def splat(shape, value):
    return f"fx.constant dense<{value}> : tensor<{'x'.join(map(str, shape))}xf32>"


WORKLOADS = {
    "one add, 2^24 f32 (a single pass over the chain's data)": """
func.func @one_pass(%x: tensor<16777216xf32>, %y: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = fx.add %x, %y : (tensor<16777216xf32>, tensor<16777216xf32>) -> tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}""",
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
    "conv 3x3 + batch norm + relu, frozen weights (folded)": """
func.func @conv_bn_relu_frozen(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %w = """ + splat([64, 64, 3, 3], "0.01") + """
  %m = """ + splat([64], "0.1") + """
  %v = """ + splat([64], "1.5") + """
  %g = """ + splat([64], "0.9") + """
  %b = """ + splat([64], "0.2") + """
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
    "sum and max of one 4096x4096 input (horizontal)": """
func.func @sum_max(%x: tensor<4096x4096xf32>) -> (tensor<4096xf32>, tensor<4096xf32>) {
  %0 = fx.sum %x {dim = array<i64: 1>} : (tensor<4096x4096xf32>) -> tensor<4096xf32>
  %1 = fx.amax %x {dim = array<i64: 1>} : (tensor<4096x4096xf32>) -> tensor<4096xf32>
  return %0, %1 : tensor<4096xf32>, tensor<4096xf32>
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


# The FX and linalg stages of fx-cpu-pipeline, with and without fusion.
FUSED = ("builtin.module(func.func(canonicalize,fx-fold-conv-batch-norm,convert-fx-to-linalg),"
         "canonicalize,cse,func.func(fx-fuse-elementwise),canonicalize,cse,"
         "func.func(fx-form-dispatch-regions{report=true threads=%d}))")
UNFUSED = ("builtin.module(func.func(canonicalize,convert-fx-to-linalg),canonicalize,cse,"
           "func.func(fx-form-dispatch-regions{fuse=false report=true}))")
HEAVY = ("linalg.conv_", "linalg.matmul", "linalg.batch_matmul", "linalg.pooling_",
         "linalg.depthwise_")


def regions(fx_opt, path, pipeline):
    """Dispatch regions of `path` under `pipeline`: (count, bytes moved,
    roots of the regions without a convolution, matmul or pooling)."""
    out = run([fx_opt, path, "--mlir-print-op-on-diagnostic=false", "-o", os.devnull,
               "--pass-pipeline=" + pipeline])
    text = out.stderr
    total = re.search(r"(\d+) dispatch regions, (\d+) bytes moved", text)
    if not total:
        raise RuntimeError(f"fx-opt failed on {path}:\n{text[-2000:]}")
    ops = {}
    for m in re.finditer(r"dispatch region (\d+): root ([a-z_.0-9]+(?: \{[^}]*\})?)", text):
        ops.setdefault(m.group(1), []).append(m.group(2))
    for m in re.finditer(r"note: fused into dispatch region (\d+): ([a-z_.0-9]+)", text):
        ops.setdefault(m.group(1), []).append(m.group(2))
    light = [v[0] for v in ops.values() if not any(o.startswith(HEAVY) for o in v)]
    return int(total.group(1)), int(total.group(2)), light


def mb(n):
    return f"{n / 1e6:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--no-resnet", action="store_true", help="skip the ResNet-18 rows")
    args = ap.parse_args()
    fx_run = os.path.join(args.build, "bin", "fx-run")
    fx_opt = os.path.join(args.build, "bin", "fx-opt")
    tmp = tempfile.mkdtemp(prefix="fx-fusion-")
    items = []
    for name, text in WORKLOADS.items():
        path = os.path.join(tmp, re.sub(r"[^a-z0-9]+", "_", name.lower())[:60] + ".mlir")
        with open(path, "w") as f:
            f.write(text)
        items.append((name, path, None))
    for name, path in FILES.items():
        # Seeded weights and input, as scripts/run-example.sh makes them.
        prefix = os.path.join(tmp, os.path.basename(path)[:-5])
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-example-data.py"),
                        path, prefix], check=True)
        items.append((name, path, ["--weights", prefix + ".safetensors",
                                   "--input", prefix + ".input.npy"]))
    if not args.no_resnet:
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import torch
        import fx_mlir
        from fx_mlir.torchvision_models import models as torchvision_models
        for frozen in (False, True):
            torch.manual_seed(0)
            model = torchvision_models().resnet18().eval()
            imported = fx_mlir.import_module(model, (torch.randn(1, 3, 224, 224),), frozen=frozen)
            prefix = os.path.join(tmp, "resnet18" + ("_frozen" if frozen else ""))
            imported.save(prefix + ".mlir", None if frozen else prefix + ".safetensors")
            extra = [] if frozen else ["--weights", prefix + ".safetensors"]
            name = "ResNet-18, 224x224" + (", frozen weights" if frozen else "")
            items.append((name, prefix + ".mlir", extra))
    rows = []
    for name, path, extra in items:
        print(f"{name} ...", file=sys.stderr, flush=True)
        n_unfused, b_unfused, _ = regions(fx_opt, path, UNFUSED)
        n_fused, b_fused, light = regions(fx_opt, path, FUSED % args.threads)
        common = ["--num-threads", str(args.threads), "--bench", str(args.runs)] + (extra or [])
        fused_run = run([fx_run, path] + common)
        plain_run = run([fx_run, path, "--no-fusion"] + common)
        rows.append({"workload": name, "dispatches_unfused": n_unfused,
                     "dispatches_fused": n_fused, "bytes_unfused": b_unfused,
                     "bytes_fused": b_fused, "regions_without_conv_or_matmul": light,
                     "ms_unfused": median_ms(plain_run.stdout + plain_run.stderr),
                     "ms_fused": median_ms(fused_run.stdout + fused_run.stderr)})
    lines = [f"Fusion on the CPU ({args.threads} threads, median of {args.runs} runs of fx-run "
             "--bench, fused and `--no-fusion` in the same run). Dispatches and MB moved are "
             "counted from the IR by fx-form-dispatch-regions' report: unfused, every linalg "
             "op but fills is a dispatch; MB = tensors read from outside a dispatch plus its "
             "results (pads and reshapes between dispatches not counted).", "",
             "| workload | dispatches unfused | fused | MB moved unfused | fused | "
             "ms unfused | ms fused | speedup |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['workload']} | {r['dispatches_unfused']} | {r['dispatches_fused']} | "
                     f"{mb(r['bytes_unfused'])} | {mb(r['bytes_fused'])} | "
                     f"{r['ms_unfused']:.3f} | {r['ms_fused']:.3f} | "
                     f"{r['ms_unfused'] / r['ms_fused']:.2f}x |")
    single = next((r for r in rows if r["workload"].startswith("one add")), None)
    chain = next((r for r in rows if r["workload"].startswith("elementwise chain")), None)
    if single and chain:
        lines += ["", f"Elementwise chain of 4 vs a single pass over the same data: "
                  f"{chain['ms_fused'] / single['ms_fused']:.2f}x (target <= 1.2x)."]
    for r in rows:
        if r["workload"].startswith("ResNet-18"):
            light = r["regions_without_conv_or_matmul"]
            lines += ["", f"{r['workload']}: {r['dispatches_fused']} dispatches; "
                      f"{len(light)} without a convolution or matmul"
                      + (f" (roots: {', '.join(light)})" if light else "") + "."]
    table = "\n".join(lines) + "\n"
    print(table)
    write_results(args.out, "fusion", table, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

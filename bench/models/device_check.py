#!/usr/bin/env python3
"""Run the artifacts a Vulkan sweep kept (bench/models/sweep.py --target
vulkan --device-dir DIR) on this machine's GPU and check them against the
references computed where they were compiled.

Usage: python3 bench/models/device_check.py DIR [--fxrt-run PATH]
                                           [--tol 1e-4] [--out FILE.md]

DIR holds one directory per model with h200.fxa (compiled for the
nvidia-h200 target), model.safetensors (if it has parameters), input*.npy
and ref.npz (float64 eager where the model runs in it). Each model runs
once through fxrt-run --target vulkan and is checked against the
reference by fx_mlir.testing.compare, as the sweep checked it here:
relative L2 error at most --tol, and a constant reference refused. Needs
only NumPy and the runtime (fxrt-run, the Vulkan loader), not MLIR or
PyTorch: this is how the GPU machine, which has no timm or compiler,
checks the corpora.
Prints a markdown table (also to --out) and exits 1 if any model fails.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
from fx_mlir.testing import compare  # noqa: E402  (NumPy only)


def check(model_dir, fxrt_run, tol):
    inputs = sorted(glob.glob(os.path.join(model_dir, "input*.npy")),
                    key=lambda p: int(os.path.basename(p)[5:-4]))
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out.npz")
        cmd = [fxrt_run, os.path.join(model_dir, "h200.fxa"), "--target", "vulkan",
               "--output", out]
        weights = os.path.join(model_dir, "model.safetensors")
        if os.path.exists(weights):
            cmd += ["--weights", weights]
        for path in inputs:
            cmd += ["--input", path]
        start = time.time()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.time() - start
        if proc.returncode != 0:
            lines = (proc.stderr or proc.stdout).strip().splitlines()
            return "FAIL", None, seconds, (lines[-1] if lines else f"exit {proc.returncode}")
        with np.load(out) as got, np.load(os.path.join(model_dir, "ref.npz")) as ref:
            actual = [got[f"output{i}"] for i in range(len(got.files))]
            reference = [ref[f"arr_{i}"] for i in range(len(ref.files))]
    result = compare(actual, reference, tol)
    err = result.rel_l2 if np.isfinite(result.rel_l2) else None
    return ("PASS" if result.ok else "FAIL"), err, seconds, "" if result.ok else result.message


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--fxrt-run", default="fxrt-run")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--out")
    args = ap.parse_args()
    models = sorted(d for d in os.listdir(args.dir)
                    if os.path.exists(os.path.join(args.dir, d, "h200.fxa")))
    if not models:
        sys.exit(f"device_check: no <model>/h200.fxa under {args.dir}")
    rows = []
    for name in models:
        status, err, seconds, detail = check(os.path.join(args.dir, name), args.fxrt_run,
                                             args.tol)
        rows.append((name, status, err, seconds, detail))
        print(f"{name} {status} rel_l2={'-' if err is None else f'{err:.3g}'} {detail}",
              flush=True)
    passed = sum(r[1] == "PASS" for r in rows)
    lines = [f"{passed} of {len(rows)} pass (fxrt-run --target vulkan, relative L2 error "
             f"against the reference <= {args.tol}).", "",
             "| model | status | rel L2 | seconds | detail |", "|---|---|---|---|---|"]
    lines += [f"| {n} | {s} | {'-' if e is None else f'{e:.3g}'} | {t:.1f} | {d} |"
              for n, s, e, t, d in rows]
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())

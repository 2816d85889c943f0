#!/usr/bin/env python3
"""torch.compile with backend="fx_mlir" next to eager PyTorch and Inductor,
on the CPU, in one run: first-call time (Dynamo + compile) and median
latency of later calls, under torch.no_grad(), same seeded inputs and
weights, each checked against eager (relative L2).

Usage: .venv/bin/python bench/torch_compile/run.py [--runs N] [--threads T]
           [--batch B] [--target cpu|vulkan] [--out DIR] [MODEL ...]

MODEL: a torchvision classification model name (default: resnet18
mobilenet_v2). The fx_mlir column is the whole path a torch.compile user
takes (Dynamo's guards, AOTAutograd's wrappers, the ctypes binding, tensor
conversions); fx-run's numbers in bench/results/models.md are the compiled
code alone. Writes DIR/torch-compile.md and .json (default bench/results).
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
from machine import cpu_name, write_results  # noqa: E402

import torch  # noqa: E402

import fx_mlir  # noqa: E402,F401  (registers the backend)
from fx_mlir.testing import compare  # noqa: E402
from fx_mlir.torchvision_models import models  # noqa: E402


def timed(fn, x, runs):
    start = time.perf_counter()
    first = fn(x)
    first_s = time.perf_counter() - start
    for _ in range(3):
        fn(x)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(x)
        times.append((time.perf_counter() - start) * 1000)
    return first, first_s, sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", default=["resnet18", "mobilenet_v2"])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    os.environ.setdefault("FX_NUM_THREADS", str(args.threads))
    rows = []
    for name in args.models:
        torch.manual_seed(0)
        model = getattr(models(), name)().eval()
        x = torch.randn(args.batch, 3, 224, 224)
        row = {"model": name}
        with torch.no_grad():
            want, _, row["eager_ms"] = timed(model, x, args.runs)
            for key, backend, options in (("inductor", "inductor", None),
                                          ("fx_mlir", "fx_mlir", {"target": args.target})):
                torch._dynamo.reset()
                compiled = torch.compile(model, backend=backend, options=options)
                got, row[key + "_first_s"], row[key + "_ms"] = timed(compiled, x, args.runs)
                row[key + "_rel_l2"] = compare([got.numpy()], [want.numpy()]).rel_l2
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    cpu = cpu_name()
    lines = [f"torch.compile on the CPU ({cpu}, {args.threads} threads, batch {args.batch}, "
             f"torch {torch.__version__}; bench/torch_compile/run.py, median of {args.runs} "
             f"calls after the first; fx_mlir target {args.target}).", "",
             "| model | eager ms | inductor ms (first call s) | fx_mlir ms (first call s) | "
             "inductor/fx_mlir | fx_mlir rel L2 |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['eager_ms']:.2f} | {r['inductor_ms']:.2f} "
                     f"({r['inductor_first_s']:.1f}) | {r['fx_mlir_ms']:.2f} "
                     f"({r['fx_mlir_first_s']:.1f}) | {r['inductor_ms'] / r['fx_mlir_ms']:.2f}x | "
                     f"{r['fx_mlir_rel_l2']:.1e} |")
    text = "\n".join(lines) + "\n"
    print(text)
    write_results(args.out, "torch-compile", text,
                  {"cpu": cpu, "threads": args.threads, "batch": args.batch,
                   "torch": torch.__version__, "rows": rows})


if __name__ == "__main__":
    main()

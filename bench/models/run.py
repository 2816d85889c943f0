#!/usr/bin/env python3
"""Model-zoo benchmark: import, compile and run each model on the CPU next to
eager PyTorch in the same run.

Usage: bench/models/run.py [--build DIR] [--runs N] [--rounds R] [--size S]
                           [--batch B] [--threads T] [--no-peers]
                           [--out bench/results]
                           [MODEL ...]

For each model: import time (torch.export or make_fx + FX emission), compile
time (fx-run's compile through fx::Compiler), our median run time, and in
the same run, on the same seeded inputs and weights and with the same
threads: eager PyTorch, torch.compile (Inductor, default mode; its compile
time too) and ONNX Runtime (CPU provider), each checked against eager; and
the relative L2 error of ours against eager. With --rounds R (default 3)
everything is timed in R alternating rounds of N runs each (eager,
torch.compile, ONNX Runtime, then ours through fxrt-run on the compiled
artifact) and each column is the median of its R round medians: on a host
whose speed drifts by tens of percent from minute to minute, the slow
phases hit every contender alike. Run it with the project venv's
Python (.venv/bin/python: torch 2.13, onnxruntime). Writes models.md and
models.json (models-bB.* for a batch B other than 1).
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
from machine import cpu_name, write_results  # noqa: E402
ZOO = os.path.join(ROOT, "test", "Integration", "Models", "Inputs", "zoo.py")
HF_ZOO = os.path.join(HERE, "hf_zoo.py")

MODELS = ["resnet18", "mobilenet_v2", "efficientnet_b0", "squeezenet1_1", "convnext_tiny",
          "bert_base", "gpt2", "transformer_encoder_layer", "sin_cos", "linear_relu",
          "nested_modules"]


def spec(name, size, batch):
    if name.startswith(("resnet", "mobilenet", "efficientnet", "squeezenet", "convnext")):
        return [f"torchvision:{name}", "--input-shape", f"{batch},3,{size},{size}"]
    if name.startswith(("bert", "gpt2")):
        return [f"{HF_ZOO}:{name}"]
    return [f"{ZOO}:{name}"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=10, help="timed runs per round")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating rounds of timing (fx-model-check.py --rounds)")
    parser.add_argument("--size", type=int, default=224, help="image size of the CNNs")
    parser.add_argument("--batch", type=int, default=1,
                        help="batch of the CNNs and of bert_base and gpt2 (sequences of 128 tokens)")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--no-peers", action="store_true",
                        help="time eager only (no torch.compile, no ONNX Runtime)")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    parser.add_argument("models", nargs="*", default=MODELS)
    args = parser.parse_args()

    env = dict(os.environ, FX_NUM_THREADS=str(args.threads), OMP_NUM_THREADS=str(args.threads),
               FX_BENCH_BATCH=str(args.batch))
    # torch.compile's compile time is measured cold: Inductor's on-disk
    # cache starts empty for every model (as fx-mlir's compile cache is not
    # used by fx-run here).
    inductor_cache = tempfile.mkdtemp(prefix="fx-bench-inductor-")
    check = os.path.join(ROOT, "utils", "fx-model-check.py")
    fx_run = os.path.join(args.build, "bin", "fx-run")
    rows = []
    for name in args.models:
        cmd = [sys.executable, check, fx_run] + spec(name, args.size, args.batch) + \
            ["--bench", str(args.runs), "--rounds", str(args.rounds)] + \
            ([] if args.no_peers else ["--peers"])
        print(f"[{len(rows) + 1}/{len(args.models)}] {name} ...", file=sys.stderr, flush=True)
        env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(inductor_cache, name)
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        line = (proc.stdout.strip().splitlines() or [""])[-1]
        fields = dict(re.findall(r"(\w+)=([0-9.e+-]+)", line))
        rows.append({
            "model": name, "status": line.split(" ", 1)[0] or "ERROR",
            "import_s": float(fields.get("import", "nan").rstrip("s")),
            "compile_s": float(fields.get("compile", "nan").rstrip("s")),
            "run_ms": float(fields.get("run", "nan").rstrip("ms")),
            "eager_ms": float(fields.get("eager", "nan").rstrip("ms")),
            "inductor_ms": float(fields.get("inductor", "nan").rstrip("ms")),
            "inductor_compile_s": float(fields.get("inductor_compile", "nan").rstrip("s")),
            "ort_ms": float(fields.get("ort", "nan").rstrip("ms")),
            "rel_l2": float(fields.get("rel_l2", "nan")),
        })
        if proc.returncode != 0:
            print(proc.stdout[-2000:] + proc.stderr[-2000:], file=sys.stderr)

    import torch
    lines = [f"Model zoo on the CPU ({args.threads} threads, CNN inputs "
             f"{args.batch}x3x{args.size}x{args.size}, bert_base and gpt2 {args.batch}x128 token ids, "
             f"median over {args.rounds} alternating rounds of each one's median of {args.runs} "
             "runs; eager and "
             f"torch.compile (Inductor, default mode, cold compile) = PyTorch {torch.__version__}, "
             "ORT = ONNX Runtime's CPU provider, all in the same run; ratios are their time "
             "over ours).",
             f"Machine: {cpu_name()}; fx-mlir compiles for its CPU (native).", "",
             "| model | status | import s | compile s | fx-mlir ms | eager ms | torch.compile ms "
             "(compile s) | ORT ms | eager/fx | compile/fx | ORT/fx | rel L2 vs eager |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def ratio(other, ours):
        return f"{other / ours:.2f}x" if ours > 0 and other == other else "-"

    for r in rows:
        lines.append(f"| {r['model']} | {r['status']} | {r['import_s']:.2f} | {r['compile_s']:.2f} "
                     f"| {r['run_ms']:.4g} | {r['eager_ms']:.4g} | {r['inductor_ms']:.4g} "
                     f"({r['inductor_compile_s']:.0f}) | {r['ort_ms']:.4g} "
                     f"| {ratio(r['eager_ms'], r['run_ms'])} "
                     f"| {ratio(r['inductor_ms'], r['run_ms'])} | {ratio(r['ort_ms'], r['run_ms'])} "
                     f"| {r['rel_l2']:.2g} |")
    table = "\n".join(lines) + "\n"
    print(table)
    stem = "models" if args.batch == 1 else f"models-b{args.batch}"
    write_results(args.out, stem, table,
                  {"threads": args.threads, "size": args.size, "batch": args.batch,
                   "runs": args.runs, "rounds": args.rounds, "rows": rows})
    return 0 if all(r["status"] == "PASS" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

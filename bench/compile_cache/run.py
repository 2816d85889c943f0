#!/usr/bin/env python3
"""Compile cache and ahead-of-time artifacts on real models: how long a
first compile (cache miss) takes against a cache hit and against loading an
artifact, and whether the three run alike.

Usage: bench/compile_cache/run.py [--target cpu|vulkan] [--runs N]
                                  [--out bench/results] [MODEL ...]

For each model (imported from PyTorch with its weights): fx_mlir.Compiler
with an empty cache directory compiles it (miss), a second Compiler on the
same directory compiles it again (hit: the cached artifact is loaded), and a
third writes an artifact that fx_mlir.load loads. Times are wall-clock in
this process; run times are medians of --runs runs on the same input. The
outputs of the three models must match bit for bit (same code). Writes
compile-cache.md and compile-cache.json.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "Models", "Inputs"))
sys.path.insert(0, os.path.dirname(HERE))
from machine import write_results  # noqa: E402
from fx_mlir.testing import compare  # noqa: E402  (NumPy only)

MODELS = ["resnet18", "transformer_encoder_layer"]


def make(name, torch):
    if name == "resnet18":
        from fx_mlir.torchvision_models import models
        torch.manual_seed(0)
        return models().resnet18().eval(), torch.randn(1, 3, 224, 224)
    import zoo
    torch.manual_seed(0)
    model, inputs = getattr(zoo, name)()
    return model.eval(), inputs[0] if isinstance(inputs, (list, tuple)) else inputs


def median_ms(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    parser.add_argument("models", nargs="*", default=MODELS)
    args = parser.parse_args()

    import numpy as np
    import torch
    import fx_mlir
    from fx_mlir.safetensors import save as save_weights

    work = tempfile.mkdtemp(prefix="fx-cache-bench-")
    rows = []
    try:
        for name in args.models:
            print(f"== {name}", file=sys.stderr, flush=True)
            model, x = make(name, torch)
            imported = fx_mlir.import_module(model, (x,))
            mlir = os.path.join(work, name + ".mlir")
            with open(mlir, "w") as f:
                f.write(imported.mlir)
            state = dict(model.named_parameters())
            state.update(dict(model.named_buffers()))
            weights = os.path.join(work, name + ".safetensors")
            save_weights({k: state[k].detach().contiguous() for k in imported.params}, weights)
            xs = x.numpy()
            cache = os.path.join(work, name + ".cache")

            def compile_with(**options):
                compiler = fx_mlir.Compiler(target=args.target, **options)
                start = time.perf_counter()
                compiled = compiler.compile_file(mlir)
                wall = (time.perf_counter() - start) * 1000
                compiled.bind_weights(weights)
                return compiler, compiled, wall

            miss_compiler, miss, miss_ms = compile_with(cache_dir=cache)
            assert not miss_compiler.last_cache_hit, "the first compile hit the cache"
            hit_compiler, hit, hit_ms = compile_with(cache_dir=cache)
            assert hit_compiler.last_cache_hit, "the second compile missed the cache"

            artifact = os.path.join(work, name + ".fxa")
            saver = fx_mlir.Compiler(target=args.target)
            start = time.perf_counter()
            saver.save(mlir, artifact)
            save_ms = (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            loaded = fx_mlir.load(artifact, target=args.target)
            load_ms = (time.perf_counter() - start) * 1000
            loaded.bind_weights(weights)

            outputs = [m(xs) for m in (miss, hit, loaded)]
            outputs = [o[0] if isinstance(o, (list, tuple)) else o for o in outputs]
            with torch.no_grad():
                ref = model(x).numpy()
            row = {
                "model": name, "target": args.target,
                "miss_ms": round(miss_ms, 1), "hit_ms": round(hit_ms, 2),
                "save_ms": round(save_ms, 1), "load_ms": round(load_ms, 2),
                "artifact_kib": round(os.path.getsize(artifact) / 1024, 1),
                "run_miss_ms": round(median_ms(lambda: miss(xs), args.runs), 3),
                "run_hit_ms": round(median_ms(lambda: hit(xs), args.runs), 3),
                "run_loaded_ms": round(median_ms(lambda: loaded(xs), args.runs), 3),
                "identical": bool(np.array_equal(outputs[0], outputs[1]) and
                                  np.array_equal(outputs[0], outputs[2])),
                "rel_l2_vs_eager": compare([outputs[0]], [ref], tol=float("inf")).rel_l2,
            }
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    lines = [f"# Compile cache and artifacts (bench/compile_cache/run.py, target {args.target})",
             "", f"{os.cpu_count()} CPU threads; run times are medians of {args.runs} runs.", "",
             "| model | compile (miss) ms | cache hit ms | save artifact ms | load artifact ms "
             "| artifact KiB | run: miss / hit / loaded ms | identical | rel L2 vs eager |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['miss_ms']} | {r['hit_ms']} | {r['save_ms']} | "
                     f"{r['load_ms']} | {r['artifact_kib']} | {r['run_miss_ms']} / "
                     f"{r['run_hit_ms']} / {r['run_loaded_ms']} | {r['identical']} | "
                     f"{r['rel_l2_vs_eager']:.2e} |")
    text = "\n".join(lines) + "\n"
    suffix = "" if args.target == "cpu" else "-" + args.target
    write_results(args.out, f"compile-cache{suffix}", text, rows)
    print(text)
    if not all(r["identical"] for r in rows):
        sys.exit("outputs differ between the compiled, cached and loaded models")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Coverage sweep: every torchvision classification model (or the timm
corpus), imported, compiled and run on the CPU (or a Vulkan device),
compared with eager PyTorch.

Usage: bench/models/sweep.py [--build DIR] [--timeout S] [--out bench/results]
                             [--target cpu|vulkan] [--corpus torchvision|timm]
                             [MODEL ...]

Each model gets seeded random weights and a 1x3xSxS input with S the
smallest convenient size the architecture accepts (64 for most, 224 for the
ViT/MaxViT family that fixes its image size, 299 for inception_v3). Writes
torchvision-sweep.md (CPU) or torchvision-sweep-vulkan.md with one row per
model: PASS/FAIL, the relative L2 error against eager, and the first line of
the failure otherwise.

With --corpus timm the models are bench/models/timm_zoo.py's MODELS (50
timm models of 44 families, built from their configs with random
weights, each at the input size it lists) and the table timm-sweep.md
(timm-sweep-vulkan.md), with each model's family. With --corpus hf,
bench/models/hf_corpus.py's MODELS (Hugging Face transformers, small
configurations, their own example inputs) and hf-sweep.md; with --corpus
torchvision-dense, bench/models/torchvision_dense.py's segmentation and
video models and torchvision-dense-sweep.md.

With --target vulkan each model runs on the Vulkan device (lavapipe here)
under the validation layer, and its IR is also compiled with fx-compile for
the nvidia-h200 target profile (tensor-core kernels, 32-lane subgroups), which
only the GPU machine can run: a model passes if both work. --device-dir DIR
keeps those artifacts with their weights, inputs and references, which
bench/models/device_check.py runs and checks on the GPU machine.
"""
import argparse
import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The corpora of factory modules beside this script: the module, and each
# entry of its MODELS as (name, family, input: a size or what to print).
CORPORA = {
    "timm": ("timm_zoo", lambda entry: (entry[0], entry[2], entry[1])),
    "hf": ("hf_corpus", lambda entry: (entry[0], entry[1], "its own")),
    "torchvision-dense": ("torchvision_dense",
                          lambda entry: (entry[0], entry[1], "x".join(map(str, entry[2])))),
}
SIZES = {"inception_v3": 299, "vit_b_16": 224, "vit_b_32": 224, "vit_l_16": 224,
         "vit_l_32": 224, "vit_h_14": 224, "maxvit_t": 224}


def classification_models():
    from fx_mlir.torchvision_models import models as torchvision_models
    models = torchvision_models()
    if hasattr(models, "list_models"):
        return sorted(models.list_models(module=models))
    return sorted(n for n in dir(models) if n[0].islower() and callable(getattr(models, n))
                  and not n.startswith("get_"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--timeout", type=int, default=900, help="seconds per model")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    parser.add_argument("--target", choices=["cpu", "vulkan"], default="cpu")
    parser.add_argument("--corpus", choices=["torchvision", "torchvision-dense", "timm", "hf"],
                        default="torchvision")
    parser.add_argument("--device-dir", metavar="DIR",
                        help="with --target vulkan: keep each passing model's "
                             "nvidia-h200 artifact, weights, inputs and float64 "
                             "reference in DIR/<model>/, for "
                             "bench/models/device_check.py on the GPU machine")
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    families = {}
    if args.corpus in CORPORA:
        module, row = CORPORA[args.corpus]
        sys.path.insert(0, HERE)
        entries = [row(entry) for entry in importlib.import_module(module).MODELS]
        SIZES.clear()
        SIZES.update({name: size for name, _, size in entries})
        families = {name: family for name, family, _ in entries}
        names = args.models or [name for name, _, _ in entries]
        spec = lambda name: f"{os.path.join(HERE, module + '.py')}:{name}"
    else:
        names = args.models or classification_models()
        spec = lambda name: f"torchvision:{name}"
    check = os.path.join(ROOT, "utils", "fx-model-check.py")
    fx_run = os.path.join(args.build, "bin", "fx-run")
    rows = []
    os.makedirs(args.out, exist_ok=True)
    for i, name in enumerate(names):
        size = SIZES.get(name, 64)
        work = tempfile.mkdtemp(prefix=f"fx-sweep-{name}-")
        cmd = [sys.executable, check, fx_run, spec(name), "--target", args.target,
               "--keep", work]
        if args.corpus in ("torchvision", "timm"):  # the others make their inputs
            cmd += ["--input-shape", f"1,3,{size},{size}"]
        start = time.time()
        # A session of its own, so that a timeout kills fx-run too (not only
        # the checking script that started it).
        env = dict(os.environ, FX_VULKAN_VALIDATION="1") if args.target == "vulkan" else None
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True, env=env)
        try:
            out = proc.communicate(timeout=args.timeout)[0].strip()
            first = next((l for l in out.splitlines() if l.startswith(("PASS", "FAIL"))), None)
            # fx-run's own message says why it failed.
            error = next((l for l in out.splitlines() if "error:" in l), None)
            if first and error and first.startswith("FAIL") and "exited with" in first:
                first += ": " + error.strip()
            if first is None:  # a crash or a Python error: show its last line
                first = out.splitlines()[-1] if out else f"exit code {proc.returncode}"
            status = "PASS" if proc.returncode == 0 else "FAIL"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            first, status = f"timed out after {args.timeout} s", "TIMEOUT"
        if status == "PASS" and args.target == "vulkan":
            # The same IR for the GPU machine's profile: compiled, not run.
            compile_cmd = [os.path.join(args.build, "bin", "fx-compile"),
                           os.path.join(work, "model.mlir"), "--target", "vulkan",
                           "--vulkan-target", "nvidia-h200", "-o", os.path.join(work, "h200.fxa")]
            try:
                proc = subprocess.run(compile_cmd, capture_output=True, text=True,
                                      timeout=args.timeout)
                if proc.returncode != 0:
                    status = "FAIL"
                    lines = (proc.stderr or proc.stdout).strip().splitlines()
                    first = "nvidia-h200 compile: " + (lines[0] if lines else
                                                       f"exit code {proc.returncode}")
            except subprocess.TimeoutExpired:
                first, status = "nvidia-h200 compile timed out", "TIMEOUT"
        if status == "PASS" and args.target == "vulkan" and args.device_dir:
            keep = os.path.join(args.device_dir, name)
            os.makedirs(keep, exist_ok=True)
            for f in os.listdir(work):
                if f in ("h200.fxa", "model.safetensors", "ref.npz") or (
                        f.startswith("input") and f.endswith(".npy")):
                    shutil.copy(os.path.join(work, f), keep)
        shutil.rmtree(work, ignore_errors=True)
        seconds = time.time() - start
        field = lambda key: first.split(key + "=", 1)[1].split(" ", 1)[0] if key + "=" in first else "-"
        detail = "" if status == "PASS" else first.replace("|", "/")[:300]
        if status == "PASS" and "bn=default" in first:  # the checker's note
            detail = "bn=default" + first.split("bn=default", 1)[1].split(")", 1)[0] + ")"
        rows.append((name, size, status, field("rel_l2"), seconds, detail))
        print(f"[{i + 1}/{len(names)}] {name} {status} rel_l2={field('rel_l2')} {seconds:.0f}s {detail}",
              file=sys.stderr, flush=True)
        # Rewritten after every model so that an interrupted sweep keeps its rows.
        passed = sum(r[2] == "PASS" for r in rows)
        where = ("the CPU" if args.target == "cpu" else
                 "Vulkan (run on lavapipe under the validation layer, and compiled for "
                 "the nvidia-h200 profile)")
        corpus = {"torchvision": "torchvision classification models",
                  "timm": f"timm models ({len(set(families.values()))} families, "
                          "bench/models/timm_zoo.py)",
                  "hf": "Hugging Face transformers models (small configurations, "
                        "bench/models/hf_corpus.py)",
                  "torchvision-dense": "torchvision segmentation and video models "
                                       "(bench/models/torchvision_dense.py)"}[args.corpus]
        lines = [f"{corpus} on {where}: {passed} of {len(rows)} pass "
                 "(import -> compile -> fx-run, relative L2 error vs eager <= 1e-4, eager "
                 "in float64 where the model runs in it; seeded random weights, batch-norm "
                 "statistics randomized where float32 eager stays within the tolerance of "
                 "float64 with them: utils/fx-model-check.py).", "",
                 "| model | " + ("family | " if families else "") +
                 "input | status | rel L2 | seconds (import+compile+run) | detail |",
                 "|---|---|---|---|---|---|" + ("---|" if families else "")]
        lines += [f"| {n} | " + (f"{families[n]} | " if families else "") +
                  f"{s} | {st} | {r} | {sec:.0f} | {d} |"
                  for n, s, st, r, sec, d in rows]
        table = f"{args.corpus}-sweep{'' if args.target == 'cpu' else '-vulkan'}.md"
        with open(os.path.join(args.out, table), "w") as f:
            f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fingerprints of the code fx-mlir generates, to show that a refactoring
changed none of it.

    utils/codegen-fingerprint.py [--build DIR] > before.txt
    ... change the compiler, rebuild ...
    utils/codegen-fingerprint.py [--build DIR] > after.txt
    diff before.txt after.txt      # empty: byte-identical code

Compiles a fixed set of workloads with fx-compile for fixed targets (CPU
code for x86-64-v3 and x86-64-v4, so that the host does not matter; SPIR-V
for the lavapipe, vulkan13 and nvidia-h200 profiles) and prints one line
per workload and target: the SHA-256 of the artifact, or the first line of
the error. The fusion report (fx-opt --fx-fusion-report) of each workload
is fingerprinted too. Workloads: examples/*.mlir, bench/cpu/*.mlir,
test/Integration/CPU/*.mlir, the bench/vulkan/run.py workloads at their
full sizes, and (when torch imports) resnet18 and a transformer encoder
layer imported with seeded weights.
"""
import argparse
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGETS = [("cpu", ["--target=cpu", "--cpu=x86-64-v3"]),
           ("cpu-v4", ["--target=cpu", "--cpu=x86-64-v4"]),
           ("lavapipe", ["--target=vulkan", "--vulkan-target=lavapipe"]),
           ("vulkan13", ["--target=vulkan", "--vulkan-target=vulkan13"]),
           ("nvidia-h200", ["--target=vulkan", "--vulkan-target=nvidia-h200"])]


def workloads(work):
    files = sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")) +
                   glob.glob(os.path.join(ROOT, "bench", "cpu", "*.mlir")) +
                   glob.glob(os.path.join(ROOT, "test", "Integration", "CPU", "*.mlir")))
    items = [(os.path.relpath(f, ROOT), f) for f in files]
    sys.path.insert(0, os.path.join(ROOT, "bench", "vulkan"))
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import run as vulkan_bench  # noqa: E402  (bench/vulkan/run.py)
    for name, (kind, shapes, dtype) in vulkan_bench.WORKLOADS.items():
        if kind == "model":
            continue
        path = os.path.join(work, f"bench-{name}.mlir")
        with open(path, "w") as f:
            f.write(vulkan_bench.fx_text(kind, shapes["full"], dtype))
        items.append((f"bench/vulkan:{name}", path))
    try:
        import torch
        import fx_mlir
        from fx_mlir.torchvision_models import models as torchvision_models
    except ImportError:
        return items
    torch.manual_seed(0)
    models = {"resnet18": (torchvision_models().resnet18(), (1, 3, 64, 64)),
              "transformer_encoder_layer": (
                  torch.nn.TransformerEncoderLayer(256, 4, 512, batch_first=True),
                  (2, 16, 256))}
    for name, (model, shape) in models.items():
        path = os.path.join(work, f"model-{name}.mlir")
        imported = fx_mlir.import_module(model.eval(), (torch.zeros(shape),))
        with open(path, "w") as f:
            f.write(imported.mlir)
        items.append((f"model:{name}", path))
    return items


def fingerprint(cmd, output=None):
    proc = subprocess.run(cmd, capture_output=True)
    if proc.returncode != 0:
        lines = proc.stderr.decode(errors="replace").strip().splitlines()
        return "error: " + (lines[0] if lines else f"exit code {proc.returncode}")
    data = open(output, "rb").read() if output else proc.stdout + proc.stderr
    return hashlib.sha256(data).hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    compile_bin = os.path.join(args.build, "bin", "fx-compile")
    opt_bin = os.path.join(args.build, "bin", "fx-opt")
    # A fixed directory: file names appear in the fusion report's locations.
    work = os.path.join(tempfile.gettempdir(), "fx-codegen-fingerprint")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        for name, path in workloads(work):
            for target, flags in TARGETS:
                out = os.path.join(work, "out.fxa")
                if os.path.exists(out):
                    os.remove(out)
                print(name, target, fingerprint([compile_bin, path, *flags, "-o", out], out),
                      flush=True)
            report = fingerprint([opt_bin, path, "--fx-fusion-report", "-o", os.devnull])
            print(name, "fusion-report", report, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

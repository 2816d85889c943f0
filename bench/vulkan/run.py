#!/usr/bin/env python3
"""Vulkan benchmark: the project's GPU reference workloads (elementwise
streams, softmax, layer norm, a row sum, 4096^3 matmuls in f32, f16 and
bf16, a linear layer, a 3x3 convolution with relu, resnet18, mobilenet_v2,
efficientnet_b0, convnext_tiny at batch 1, a 2-layer transformer encoder,
densenet121 at batch 16, resnet50 at batch 32) compiled by fx-mlir (per
--precision level for f32 GEMMs) and run by fxrt-run, next to PyTorch
eager, torch.compile and torch.compile(mode="reduce-overhead") in the same
run.

Three steps, because the GPU machine cannot carry MLIR:

  bench/vulkan/run.py prepare [--build DIR] [--dir D] [--target nvidia-h200] [--small]
      (here) writes each workload's FX IR (importing the models), compiles it
      with fx-compile to D/<name>.fxa and writes D/workloads.json; copies
      fxrt-run into D.
  bench/vulkan/run.py measure [--dir D] [--out O] [--runs N] [--only NAME ...]
      (on the GPU machine, or here on lavapipe with --small artifacts) for
      each workload: seeded inputs (and model weights) saved as .npy /
      .safetensors, fxrt-run's outputs checked against a float64 PyTorch
      reference (relative L2), then timed: fx-mlir's GPU time (timestamps of
      the dispatches, median over runs) and wall time per call (uploads and
      downloads included), and PyTorch eager / torch.compile with CUDA events
      (median). Writes O/vulkan.json and every step's time of each
      workload to O/profiles.txt, and prints the table.
  bench/vulkan/run.py report O/vulkan.json [--md bench/results/vulkan-h200.md]
      renders the markdown table.

Rates: memory-bound workloads report GB/s over the minimal bytes (inputs
read once, outputs written once); matmuls and convolutions TFLOP/s.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
from fx_mlir.testing import compare  # noqa: E402  (NumPy only)

# name -> (kind, shapes, dtype). `kind` selects the FX text and the PyTorch
# function; shapes are the full-size ones (the sizes at which eager PyTorch
# and torch.compile were measured on the H200: 2^28-element streams, 8192x8192
# rows, 4096^3 matmuls, a 32x64x56x56 convolution, resnet18 on 1x3x224x224,
# the encoder at batch 8, sequence 128, d_model 256) and the --small ones.
WORKLOADS = {
    "stream_mul2": ("stream", {"full": [[1 << 28]], "small": [[1 << 16]]}, "f32"),
    "sin_cos": ("sin_cos", {"full": [[1 << 28]] * 2, "small": [[1 << 16]] * 2}, "f32"),
    "relu_chain": ("relu_chain", {"full": [[1 << 28]] * 2, "small": [[1 << 16]] * 2}, "f32"),
    "softmax": ("softmax", {"full": [[8192, 8192]], "small": [[64, 1000]]}, "f32"),
    "layer_norm": ("layer_norm", {"full": [[8192, 8192], [8192], [8192]],
                                  "small": [[64, 1000], [1000], [1000]]}, "f32"),
    "sum_last": ("sum_last", {"full": [[8192, 8192]], "small": [[64, 1000]]}, "f32"),
    "matmul_f32": ("matmul", {"full": [[4096, 4096], [4096, 4096]],
                              "small": [[128, 96], [96, 64]]}, "f32"),
    "matmul_f16": ("matmul", {"full": [[4096, 4096], [4096, 4096]],
                              "small": [[128, 96], [96, 64]]}, "f16"),
    "matmul_bf16": ("matmul", {"full": [[4096, 4096], [4096, 4096]],
                               "small": [[128, 96], [96, 64]]}, "bf16"),
    "linear_f32": ("linear", {"full": [[4096, 4096], [4096, 4096]],
                              "small": [[128, 96], [64, 96]]}, "f32"),
    "conv3x3_relu": ("conv_relu", {"full": [[32, 64, 56, 56], [64, 64, 3, 3]],
                                   "small": [[2, 8, 14, 14], [8, 8, 3, 3]]}, "f32"),
    # ResNet-50's 64 -> 256 expansion at 56x56, batch 32, and the same GEMM
    # (100352 x 256 x 64) as a linear layer: a convolution's implicit-GEMM
    # addressing against a matmul's.
    "conv1x1_relu": ("conv_relu", {"full": [[32, 64, 56, 56], [256, 64, 1, 1]],
                                   "small": [[2, 8, 14, 14], [16, 8, 1, 1]]}, "f32"),
    "linear_100352x256x64": ("linear", {"full": [[100352, 64], [256, 64]],
                                        "small": [[392, 8], [16, 8]]}, "f32"),
    "resnet18": ("model", {"full": [[1, 3, 224, 224]], "small": [[1, 3, 64, 64]]}, "f32"),
    "mobilenet_v2": ("model", {"full": [[1, 3, 224, 224]], "small": [[1, 3, 64, 64]]}, "f32"),
    "efficientnet_b0": ("model", {"full": [[1, 3, 224, 224]], "small": [[1, 3, 64, 64]]}, "f32"),
    "convnext_tiny": ("model", {"full": [[1, 3, 224, 224]], "small": [[1, 3, 64, 64]]}, "f32"),
    "transformer_encoder": ("model", {"full": [[8, 128, 256]], "small": [[2, 16, 256]]}, "f32"),
    "densenet121_b16": ("model", {"full": [[16, 3, 224, 224]], "small": [[2, 3, 64, 64]]}, "f32"),
    "resnet50_b32": ("model", {"full": [[32, 3, 224, 224]], "small": [[2, 3, 64, 64]]}, "f32"),
}

# Models whose numbers depend on the precision policy (--precision of
# fx-compile): compiled once per level given to `prepare --precisions`.
PRECISION_KINDS = ("matmul", "linear", "conv_relu", "model")

MLIR_TYPE = {"f32": "f32", "f16": "f16", "bf16": "bf16"}


def tensor_type(shape, dtype):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + MLIR_TYPE[dtype] + ">"


def fx_text(kind, shapes, dtype):
    """The FX-dialect function of a micro workload."""
    t = [tensor_type(s, dtype) for s in shapes]
    args = ", ".join(f"%a{i}: {ty}" for i, ty in enumerate(t))
    if kind == "stream":
        body = (f"  %c = fx.constant dense<2.0> : tensor<{dtype}>\n"
                f"  %r = fx.mul %a0, %c : ({t[0]}, tensor<{dtype}>) -> {t[0]}\n")
        out = t[0]
    elif kind == "sin_cos":
        body = (f"  %s = fx.sin %a0 : ({t[0]}) -> {t[0]}\n"
                f"  %k = fx.cos %a1 : ({t[1]}) -> {t[1]}\n"
                f"  %r = fx.add %s, %k : ({t[0]}, {t[1]}) -> {t[0]}\n")
        out = t[0]
    elif kind == "relu_chain":
        s = f"tensor<{dtype}>"
        body = (f"  %two = fx.constant dense<2.0> : {s}\n"
                f"  %one = fx.constant dense<1.0> : {s}\n"
                f"  %m = fx.mul %a0, %two : ({t[0]}, {s}) -> {t[0]}\n"
                f"  %p = fx.add %m, %one : ({t[0]}, {s}) -> {t[0]}\n"
                f"  %q = fx.relu %p : ({t[0]}) -> {t[0]}\n"
                f"  %y = fx.mul %q, %a1 : ({t[0]}, {t[1]}) -> {t[0]}\n"
                f"  %r = fx.tanh %y : ({t[0]}) -> {t[0]}\n")
        out = t[0]
    elif kind == "softmax":
        body = f"  %r = fx.softmax %a0 {{dim = -1 : i64}} : ({t[0]}) -> {t[0]}\n"
        out = t[0]
    elif kind == "layer_norm":
        n = shapes[0][-1]
        body = (f"  %r = fx.layer_norm %a0 weight(%a1) bias(%a2) {{normalized_shape = "
                f"array<i64: {n}>}} : ({t[0]}, {t[1]}, {t[2]}) -> {t[0]}\n")
        out = t[0]
    elif kind == "sum_last":
        out = tensor_type(shapes[0][:-1], dtype)
        body = f"  %r = fx.sum %a0 {{dim = array<i64: 1>}} : ({t[0]}) -> {out}\n"
    elif kind == "matmul" and dtype == "bf16":
        # NumPy has no bf16: f32 at the graph's edges, converted in the
        # graph (three elementwise kernels besides the matmul's).
        t32 = [tensor_type(sh, "f32") for sh in shapes]
        args = ", ".join(f"%a{i}: {ty}" for i, ty in enumerate(t32))
        out16 = tensor_type([shapes[0][0], shapes[1][1]], dtype)
        out = tensor_type([shapes[0][0], shapes[1][1]], "f32")
        body = (f"  %x = fx.convert_element_type %a0 : ({t32[0]}) -> {t[0]}\n"
                f"  %y = fx.convert_element_type %a1 : ({t32[1]}) -> {t[1]}\n"
                f"  %m = fx.mm %x, %y : ({t[0]}, {t[1]}) -> {out16}\n"
                f"  %r = fx.convert_element_type %m : ({out16}) -> {out}\n")
    elif kind == "matmul":
        out = tensor_type([shapes[0][0], shapes[1][1]], dtype)
        body = f"  %r = fx.mm %a0, %a1 : ({t[0]}, {t[1]}) -> {out}\n"
    elif kind == "linear":
        out = tensor_type([shapes[0][0], shapes[1][0]], dtype)
        body = f"  %r = fx.linear %a0, %a1 : ({t[0]}, {t[1]}) -> {out}\n"
    elif kind == "conv_relu":
        n, c, h, w = shapes[0]
        out = tensor_type([n, shapes[1][0], h, w], dtype)
        pad = shapes[1][2] // 2
        body = (f"  %y = fx.convolution %a0, %a1 {{dilation = array<i64: 1, 1>, output_padding = "
                f"array<i64: 0, 0>, padding = array<i64: {pad}, {pad}>, stride = array<i64: 1, 1>}} : "
                f"({t[0]}, {t[1]}) -> {out}\n"
                f"  %r = fx.relu %y : ({out}) -> {out}\n")
    else:
        raise ValueError(kind)
    return (f"func.func @forward({args}) -> {out} {{\n{body}  return %r : {out}\n}}\n")


def make_model(name, torch):
    """The PyTorch module of a model workload, seeded (same on both machines)."""
    torch.manual_seed(0)
    base = name.split("_b")[0] if name.startswith(("densenet", "resnet50")) else name
    if base in ("resnet18", "resnet50", "mobilenet_v2", "efficientnet_b0", "convnext_tiny",
                "densenet121"):
        from fx_mlir.torchvision_models import models
        return getattr(models(), base)().eval()
    if name == "transformer_encoder":
        layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024,
                                                 batch_first=True)
        return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    raise ValueError(name)


def prepare(args):
    os.makedirs(args.dir, exist_ok=True)
    compile_bin = os.path.join(args.build, "bin", "fx-compile")
    size = "small" if args.small else "full"
    manifest = {"target": args.target, "size": size, "workloads": []}
    precisions = args.precisions.split(",")
    for name, (kind, shapes_by_size, dtype) in WORKLOADS.items():
        if args.only and name not in args.only:
            continue
        shapes = shapes_by_size[size]
        mlir = os.path.join(args.dir, name + ".mlir")
        entry = {"name": name, "kind": kind, "dtype": dtype, "shapes": shapes,
                 "artifact": name + ".fxa"}
        if kind == "model":
            sys.path.insert(0, os.path.join(ROOT, "python"))
            import torch
            import fx_mlir
            model = make_model(name, torch)
            x = torch.randn(*shapes[0])
            imported = fx_mlir.import_module(model, (x,))
            with open(mlir, "w") as f:
                f.write(imported.mlir)
            entry["params"] = list(imported.params)
        else:
            with open(mlir, "w") as f:
                f.write(fx_text(kind, shapes, dtype))
        levels = precisions if kind in PRECISION_KINDS and dtype == "f32" else [precisions[0]]
        for precision in levels:
            variant = dict(entry, precision=precision,
                           artifact=f"{name}.{precision}.fxa")
            start = time.time()
            cmd = [compile_bin, mlir, "--target=vulkan", f"--vulkan-target={args.target}",
                   f"--precision={precision}", "-v",
                   "-o", os.path.join(args.dir, variant["artifact"])]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"{name}: fx-compile failed:\n{proc.stderr}")
            # The buffer plan: temporaries' total size and the arena they share.
            m = re.search(r"temporaries (\d+) KiB(?: in a (\d+) KiB arena)?", proc.stderr)
            if m:
                variant["temporaries_kib"] = int(m.group(1))
                variant["arena_kib"] = int(m.group(2) or 0)
            variant["compile_s"] = round(time.time() - start, 2)
            print(f"{name} ({precision}): compiled in {variant['compile_s']} s", file=sys.stderr)
            manifest["workloads"].append(variant)
    shutil.copy(os.path.join(args.build, "bin", "fxrt-run"), args.dir)
    with open(os.path.join(args.dir, "workloads.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def measure(args):
    import numpy as np
    import torch
    with open(os.path.join(args.dir, "workloads.json")) as f:
        manifest = json.load(f)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    os.makedirs(args.out, exist_ok=True)
    import tempfile
    work = tempfile.mkdtemp(prefix="fx-vulkan-bench-")
    fxrt = os.path.join(args.dir, "fxrt-run")
    rows = []
    torch_times = {}
    info = {"device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
            "torch": torch.__version__, "target": manifest["target"],
            "size": manifest["size"], "runs": args.runs, "rows": rows}
    if device == "cuda":
        # Clocks up before the first measurement (the GPU idles at low clocks).
        a = torch.randn(8192, 8192, device=device)
        start = time.time()
        while time.time() - start < 2:
            a @ a
            torch.cuda.synchronize()
        del a
    for w in manifest["workloads"]:
        name, kind, dtype, shapes = w["name"], w["kind"], w["dtype"], w["shapes"]
        if args.only and name not in args.only:
            continue
        print(f"== {name}", file=sys.stderr, flush=True)
        tdtype = torch.float16 if dtype == "f16" else torch.float32
        gen = torch.Generator().manual_seed(1)
        inputs = [torch.randn(*s, generator=gen).to(tdtype) for s in shapes]
        fx_args = []
        if kind == "model":
            model = make_model(name, torch)
            weights = os.path.join(work, name + ".safetensors")
            state = dict(model.named_parameters())
            state.update(dict(model.named_buffers()))
            tensors = {k: state[k].detach().contiguous() for k in w["params"]}
            try:
                from safetensors.torch import save_file
            except ImportError:  # this machine: the importer's own writer
                sys.path.insert(0, os.path.join(ROOT, "python"))
                from fx_mlir.safetensors import save as save_file
            save_file(tensors, weights)
            fx_args += ["--weights", weights]
            model = model.to(device)
            fn = model
            ref_fn = lambda *xs: make_model(name, torch).double().to(device)(*xs)
        else:
            fn = torch_fn(kind, torch)
            ref_fn = fn
        for i, t in enumerate(inputs):
            path = os.path.join(work, f"{name}.in{i}.npy")
            np.save(path, t.numpy())
            fx_args += ["--input", path]
        out_path = os.path.join(work, f"{name}.out.npy")
        cmd = [fxrt, os.path.join(args.dir, w["artifact"])] + fx_args + [
            "--output", out_path, "--bench", str(args.runs), "--profile"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        row = {"name": name, "kind": kind, "dtype": dtype, "shapes": shapes,
               "precision": w.get("precision", "highest"),
               "compile_s": w.get("compile_s"),
               "temporaries_kib": w.get("temporaries_kib"),
               "arena_kib": w.get("arena_kib")}
        if proc.returncode != 0:
            row["error"] = (proc.stderr or proc.stdout).strip()[-2000:]
            print(row["error"], file=sys.stderr)
            rows.append(row)
            for path in glob.glob(os.path.join(work, name + ".*")):
                os.remove(path)
            continue
        text = proc.stdout
        # Every step's time, all workloads in one file: where the time goes.
        # fxrt-run's stderr goes there too: the driver's statistics of each
        # kernel under FX_VULKAN_KERNEL_STATS=1 (registers, spills), which
        # bench/vulkan/ab.py passes as a variant's environment.
        with open(os.path.join(args.out, "profiles.txt"), "a") as f:
            f.write(f"== {name} ({w.get('precision', 'highest')})\n{text}\n")
            if proc.stderr.strip():
                f.write(f"-- fxrt-run stderr\n{proc.stderr}\n")
        m = re.search(r"run \(\d+ runs\): median ([0-9.]+) ms", text)
        row["fx_wall_ms"] = float(m.group(1)) if m else None
        gpu_us = fxrt_gpu_us(text)
        row["fx_gpu_ms"] = gpu_us / 1000 if gpu_us is not None else None
        m = re.search(r"device memory: ([0-9.]+) KiB", text)
        row["device_kib"] = float(m.group(1)) if m else None
        m = re.search(r"profile: (\d+) steps", text)
        row["fx_steps"] = int(m.group(1)) if m else None
        # The profile's slowest steps: where the time goes.
        steps = [line.split() for line in text.splitlines()
                 if re.match(r"\s+\d+\s+[0-9.]+ us\s", line)]
        steps.sort(key=lambda f: -float(f[1]))
        row["fx_slowest_steps"] = [f"{f[0]} {f[1]} us {f[4]}" for f in steps[:8]]
        got = torch.from_numpy(np.load(out_path)).double()
        with torch.no_grad():
            xs64 = [t.to(device).double() for t in inputs]
            ref = ref_fn(*xs64).double().cpu()
        # A constant reference is refused (it would prove nothing), and
        # infinities must match exactly.
        checked = compare([got.numpy()], [ref.numpy()], tol=float("inf"))
        row["rel_l2"] = checked.rel_l2
        if not checked.ok:
            row["check_error"] = checked.message
        # Again with the inputs written once into the model's in-place
        # buffers and the outputs read where the run leaves them (fxrt-run
        # --in-place-io): no host copies, as PyTorch's resident tensors.
        inplace_path = os.path.join(work, f"{name}.inplace.npy")
        proc = subprocess.run(
            [fxrt, os.path.join(args.dir, w["artifact"])] + fx_args +
            ["--output", inplace_path, "--bench", str(args.runs), "--in-place-io"],
            capture_output=True, text=True)
        m = re.search(r"run \(\d+ runs\): median ([0-9.]+) ms", proc.stdout)
        if proc.returncode == 0 and m:
            again = compare([np.load(inplace_path)], [ref.numpy()], tol=float("inf"))
            if again.ok:
                row["fx_wall_inplace_ms"] = float(m.group(1))
            else:
                row["check_error"] = "in place: " + again.message
        else:
            row["inplace_error"] = (proc.stderr or proc.stdout).strip()[-500:]
        # PyTorch on the device, inputs resident (bf16: the graph's f32
        # inputs as bf16, what the matmul reads), once per workload (not per
        # precision level): eager, torch.compile and, with --reduce-overhead,
        # torch.compile(mode="reduce-overhead") (CUDA graphs).
        if name not in torch_times:
            xs = [t.to(device) for t in inputs]
            if dtype == "bf16":
                xs = [x.bfloat16() for x in xs]
            times = torch_times[name] = {}
            modes = [("eager", None)]
            if not args.eager_only:
                modes.append(("compile", "default"))
                if args.reduce_overhead:
                    modes.append(("reduce_overhead", "reduce-overhead"))
            with torch.no_grad():
                for key, mode in modes:
                    try:
                        f = fn if mode is None else torch.compile(fn, mode=mode)
                        times[key + "_ms"] = time_ms(lambda: f(*xs), torch, args.runs)
                    except Exception as e:  # noqa: BLE001 - reported, not fatal
                        times[key + "_error"] = str(e)[:500]
                if hasattr(torch, "_dynamo"):
                    torch._dynamo.reset()
        row.update(torch_times[name])
        row["bytes"], row["flops"] = cost(kind, shapes, dtype, w)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
        # Written after every workload: a run cut short keeps what it has.
        with open(os.path.join(args.out, "vulkan.json"), "w") as f:
            json.dump(info, f, indent=1)
        for path in glob.glob(os.path.join(work, name + ".*")):
            os.remove(path)
    print(render(info))


def fxrt_gpu_us(text):
    """GPU time of all dispatches from `fxrt-run --bench N --profile` output
    (median over runs, else the one profiled run), or None."""
    m = re.search(r"gpu \(\d+ runs\): median ([0-9.]+) us", text) or re.search(
        r"profile: \d+ steps, ([0-9.]+) us on the GPU", text)
    return float(m.group(1)) if m else None


def torch_fn(kind, torch):
    F = torch.nn.functional
    return {
        "stream": lambda x: x * 2,
        "sin_cos": lambda x, y: torch.sin(x) + torch.cos(y),
        "relu_chain": lambda x, y: ((x * 2 + 1).relu() * y).tanh(),
        "softmax": lambda x: torch.softmax(x, -1),
        "layer_norm": lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b),
        "sum_last": lambda x: x.sum(-1),
        "matmul": lambda a, b: a @ b,
        "linear": lambda a, w: F.linear(a, w),
        "conv_relu": lambda x, w: F.conv2d(x, w, padding=w.shape[2] // 2).relu(),
    }[kind]


def time_ms(fn, torch, runs):
    for _ in range(3):
        fn()
    if not torch.cuda.is_available():
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1000)
        return sorted(times)[len(times) // 2]
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return sorted(times)[len(times) // 2]


def cost(kind, shapes, dtype, w):
    """Minimal bytes moved and FLOPs."""
    size = 2 if dtype in ("f16", "bf16") else 4
    if kind in ("stream", "sin_cos", "relu_chain", "softmax", "layer_norm"):
        return (sum(numel(s) for s in shapes) + numel(shapes[0])) * size, None
    if kind == "sum_last":
        return (numel(shapes[0]) + numel(shapes[0][:-1])) * size, None
    if kind == "matmul":
        (m, k), (_, n) = shapes
        return (m * k + k * n + m * n) * size, 2 * m * n * k
    if kind == "linear":
        (m, k), (n, _) = shapes
        return (m * k + k * n + m * n) * size, 2 * m * n * k
    if kind == "conv_relu":
        n, c, h, wd = shapes[0]
        f = shapes[1][0]
        window = shapes[1][2] * shapes[1][3]
        return ((numel(shapes[0]) + numel(shapes[1]) + n * f * h * wd) * size,
                2 * n * f * h * wd * c * window)
    return None, None


def render(info):
    def fmt(v, spec=".3f"):
        return "-" if v is None else format(v, spec)

    lines = [f"Device: {info['device']}, torch {info['torch']}, fx-mlir target {info['target']}, "
             f"{info['size']} sizes, median of {info['runs']} runs.", "",
             "fx wall: one call from host memory to host memory (inputs copied in, "
             "outputs copied out); in place: inputs written once into the model's "
             "in-place buffers, outputs read where the run leaves them (fxrt-run "
             "--in-place-io), as PyTorch's tensors stay on the device.", "",
             "| workload | precision | fx GPU ms | fx wall ms | fx wall in place ms | eager ms | "
             "torch.compile ms | reduce-overhead ms | fx rate | compile rate | rel L2 | "
             "fx dispatches |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in info["rows"]:
        if "error" in r:
            lines.append(f"| {r['name']} | {r.get('precision', '-')} | error: "
                         f"{r['error'].splitlines()[-1][:80]} ||||||||||")
            continue

        def rate(ms):
            if ms is None or not ms:
                return "-"
            if r.get("flops"):
                return f"{r['flops'] / ms / 1e9:.1f} TFLOP/s"
            if r.get("bytes"):
                return f"{r['bytes'] / ms / 1e9:.2f} TB/s"
            return "-"
        lines.append(f"| {r['name']} | {r.get('precision', '-')} | {fmt(r.get('fx_gpu_ms'))} | "
                     f"{fmt(r.get('fx_wall_ms'))} | {fmt(r.get('fx_wall_inplace_ms'))} | "
                     f"{fmt(r.get('eager_ms'))} | {fmt(r.get('compile_ms'))} | "
                     f"{fmt(r.get('reduce_overhead_ms'))} | "
                     f"{rate(r.get('fx_gpu_ms'))} | {rate(r.get('compile_ms'))} | "
                     f"{'refused: ' + r['check_error'] if r.get('check_error') else fmt(r.get('rel_l2'), '.2e')} | "
                     f"{r.get('fx_steps', '-')} |")
    memory = [r for r in info["rows"] if r.get("temporaries_kib")]
    if memory:
        lines += ["", "Device memory (MiB): the temporaries' total size, the arena they share "
                  "under the buffer plan, and all the executable holds (fxrt-run --bench).", "",
                  "| workload | temporaries | arena | device total |", "|---|---|---|---|"]
        for r in memory:
            mib = lambda kib: "-" if kib is None else f"{kib / 1024:.1f}"
            lines.append(f"| {r['name']} | {mib(r['temporaries_kib'])} | "
                         f"{mib(r.get('arena_kib'))} | {mib(r.get('device_kib'))} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--dir", default=os.path.join(ROOT, "bench", "vulkan", "artifacts"))
    p.add_argument("--target", default="nvidia-h200")
    p.add_argument("--small", action="store_true")
    p.add_argument("--only", nargs="*")
    p.add_argument("--precisions", default="high",
                   help="comma-separated fx-compile --precision levels for f32 "
                        "matmuls, convolutions and models (the first for the rest)")
    m = sub.add_parser("measure")
    m.add_argument("--dir", default=os.path.join(ROOT, "bench", "vulkan", "artifacts"))
    m.add_argument("--out", default=os.environ.get("OUT", "/tmp/fx-vulkan-bench"))
    m.add_argument("--runs", type=int, default=20)
    m.add_argument("--only", nargs="*")
    m.add_argument("--eager-only", action="store_true",
                   help="time PyTorch eager only (no torch.compile)")
    m.add_argument("--reduce-overhead", action="store_true",
                   help="also torch.compile(mode='reduce-overhead') (CUDA graphs)")
    r = sub.add_parser("report")
    r.add_argument("json")
    r.add_argument("--md")
    args = parser.parse_args()
    if args.cmd == "prepare":
        prepare(args)
    elif args.cmd == "measure":
        measure(args)
    else:
        with open(args.json) as f:
            text = render(json.load(f))
        if args.md:
            with open(args.md, "w") as f:
                f.write("# Vulkan backend vs PyTorch (bench/vulkan/run.py)\n\n" + text)
        print(text)


if __name__ == "__main__":
    main()

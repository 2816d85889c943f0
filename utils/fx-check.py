#!/usr/bin/env python3
"""Runs FX-dialect functions with fx-run and checks them against PyTorch.

Usage: fx-check.py FX_RUN FILE.mlir [--only NAME] [--keep DIR] [-- FX_RUN_ARGS]

Every `func.func @name(...)` in FILE that is preceded by a `// REF:` comment
is a test case. The comment block above the function may hold:

  // REF: <python expression>      the expected result, or a tuple of them,
                                   computed with PyTorch from the arguments
                                   a0, a1, ... (torch tensors); `torch`, `F`
                                   (torch.nn.functional) and `np` are in scope
  // INPUT aN: <python expression> data for argument N (numpy or torch),
                                   instead of seeded random data
  // TOL: rtol=R atol=A            tolerances (default rtol=1e-5 atol=1e-6)

Arguments tagged {fx.param = "name"} are written into a .safetensors file
under their names and bound with --weights (the path weights take: CPU code
may prepare them once, see fx-hoist-parameter-computations).

Random data is seeded by the function name: floats from a standard normal
distribution, integers in [0, 10), bools 50/50. Inputs and references are
written as .npy/.npz files and the case runs as
`fx-run FILE --entry NAME --input ... --expect ...`. The script prints one
line per case and exits 1 if any case fails.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from fx_mlir import safetensors  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.exit("fx-check: PyTorch (python3-torch) is needed for reference outputs")

DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64,
          "i64": np.int64, "i32": np.int32, "i1": np.bool_}
FUNC = re.compile(r"^func\.func @(\w+)\((.*?)\)\s*(->|\{)", re.S | re.M)
TENSOR = re.compile(r"tensor<([^>]*)>")
ARGUMENT = re.compile(r"%\w+\s*:\s*tensor<[^>]*>\s*(\{[^}]*\})?")
PARAM = re.compile(r'fx\.param\s*=\s*"([^"]+)"')


def parse_tensor(text):
    parts = text.split("x")
    dtype = DTYPES.get(parts[-1])
    if dtype is None:
        raise SystemExit(f"fx-check: unsupported element type in tensor<{text}>")
    dims = [None if p == "?" else int(p) for p in parts[:-1]]
    return dims, dtype


def parse_cases(source):
    lines = source.splitlines()
    cases = []
    for m in FUNC.finditer(source):
        name, args = m.group(1), m.group(2)
        line = source[:m.start()].count("\n")
        comments = []
        i = line - 1
        while i >= 0 and lines[i].startswith("//"):
            comments.insert(0, lines[i][2:].strip())
            i -= 1
        refs = [c[4:].strip() for c in comments if c.startswith("REF:")]
        if not refs:
            continue
        inputs = {}
        tol = {"rtol": 1e-5, "atol": 1e-6}
        for c in comments:
            if c.startswith("INPUT"):
                key, expr = c[5:].split(":", 1)
                inputs[key.strip()] = expr.strip()
            elif c.startswith("TOL:"):
                for item in c[4:].split():
                    k, v = item.split("=")
                    tol[k] = float(v)
        arg_types = [parse_tensor(t) for t in TENSOR.findall(
            re.sub(r"\{[^}]*\}", "", args))]
        params = []
        for arg in ARGUMENT.finditer(args):
            param = PARAM.search(arg.group(1) or "")
            params.append(param.group(1) if param else None)
        if len(params) != len(arg_types):
            raise SystemExit(f"fx-check: cannot read the arguments of @{name}")
        cases.append((name, " ".join(refs), arg_types, inputs, tol, params))
    return cases


def make_input(name, index, dims, dtype, rng):
    if any(d is None for d in dims):
        raise SystemExit(f"fx-check: @{name} argument a{index} has dynamic "
                         "dimensions; give it with // INPUT")
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(dims).astype(dtype)
    if dtype == np.bool_:
        return rng.random(dims) < 0.5
    return rng.integers(0, 10, dims).astype(dtype)


def to_numpy(value):
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def run_case(fx_run, path, case, workdir, extra):
    name, ref, arg_types, given, tol, params = case
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    scope = {"torch": torch, "F": F, "np": np}
    files = []
    weights = {}
    for i, (dims, dtype) in enumerate(arg_types):
        key = f"a{i}"
        if key in given:
            value = to_numpy(eval(given[key], dict(scope)))
        else:
            value = make_input(name, i, dims, dtype, rng)
        value = np.array(value, dtype=dtype, order="C")  # keeps 0-d arrays
        scope[key] = torch.from_numpy(value.copy())
        if params[i] is not None:
            weights[params[i]] = scope[key]
            continue
        file = os.path.join(workdir, f"{name}.a{i}.npy")
        np.save(file, value)
        files.append(file)
    try:
        expected = eval(ref, scope)
    except Exception as e:  # a broken reference fails the case, visibly
        print(f"FAIL @{name}: reference expression failed: {e!r}")
        return False
    if not isinstance(expected, tuple):
        expected = (expected,)
    expected = [np.array(to_numpy(e), order="C") for e in expected]
    if len(expected) == 1:
        ref_file = os.path.join(workdir, f"{name}.ref.npy")
        np.save(ref_file, expected[0])
    else:
        ref_file = os.path.join(workdir, f"{name}.ref.npz")
        np.savez(ref_file, *expected)
    cmd = [fx_run, path, "--entry", name, "--expect", ref_file,
           "--rtol", str(tol["rtol"]), "--atol", str(tol["atol"])]
    for f in files:
        cmd += ["--input", f]
    if weights:
        weights_file = os.path.join(workdir, f"{name}.safetensors")
        safetensors.save(weights, weights_file)
        cmd += ["--weights", weights_file]
    cmd += extra
    proc = subprocess.run(cmd, capture_output=True, text=True)
    ok = proc.returncode == 0
    detail = (proc.stdout + proc.stderr).strip().replace("\n", "; ")
    print(f"{'PASS' if ok else 'FAIL'} @{name}: {detail}")
    return ok


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fx_run")
    ap.add_argument("file")
    ap.add_argument("--only", help="run only this function")
    ap.add_argument("--keep", help="write inputs and references here")
    args = ap.parse_args(argv)
    cases = parse_cases(open(args.file).read())
    if args.only:
        cases = [c for c in cases if c[0] == args.only]
    if not cases:
        sys.exit(f"fx-check: no test cases (functions with // REF:) in {args.file}")
    workdir = args.keep or tempfile.mkdtemp(prefix="fx-check-")
    os.makedirs(workdir, exist_ok=True)
    failed = sum(not run_case(args.fx_run, args.file, c, workdir, extra)
                 for c in cases)
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

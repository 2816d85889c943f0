"""What the op tests share: a function of tensors as a module, and checks
of an imported, compiled and run module against eager PyTorch."""

import os
import tempfile

import numpy as np
import torch

import fx_mlir
from fx_mlir.testing import compare


class Fn(torch.nn.Module):
    """A function of tensors as a module, for the importer."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def same(got, want):
    """Exact for integers and booleans (dtype too); within 1e-5 for floats,
    NaNs where eager has them."""
    if got.shape != want.shape:
        return False
    if want.dtype.kind == "f":
        return np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)
    return got.dtype == want.dtype and np.array_equal(got, want)


def check_fn(target, name, fn, *xs):
    """Prints `name ok`, or MISMATCH / ERROR (which the tests' FileCheck
    lines refuse), for fn of weight-free inputs xs."""
    try:
        imported = fx_mlir.import_module(Fn(fn).eval(), xs)
        got = fx_mlir.compile(imported.mlir, target=target)(*[x.numpy() for x in xs])
    except Exception as e:  # noqa: BLE001 - reported, and FileCheck fails on it
        print(name, "ERROR", type(e).__name__, str(e)[:400])
        return
    want = fn(*xs)
    want = want if isinstance(want, tuple) else (want,)
    ok = len(got) == len(want) and all(same(g, w.numpy()) for g, w in zip(got, want))
    print(name, "ok" if ok else f"MISMATCH got {[g.tolist() for g in got]}")


_workdir = tempfile.mkdtemp()


def _flatten(value, out):
    """A module's outputs in order, nested tuples (an LSTM's (h, c))
    flattened."""
    if isinstance(value, (tuple, list)):
        for v in value:
            _flatten(v, out)
    else:
        out.append(value)
    return out


def check_module(target, name, module, *inputs):
    """Prints `name PASS` or FAIL with the shapes and relative L2 error, for
    a module whose weights (if any) are bound from the .safetensors the
    importer writes."""
    module.eval()
    imported = fx_mlir.import_module(module, inputs)
    mlir = os.path.join(_workdir, name.replace(" ", "_") + ".mlir")
    weights = mlir[:-5] + ".safetensors" if imported.params else None
    imported.save(mlir, weights)
    model = fx_mlir.compile(mlir, target=target)
    if weights:
        model.bind_weights(weights)
    outputs = model(*[t.numpy() for t in inputs])
    with torch.no_grad():
        expected = _flatten(module(*inputs), [])
    result = compare(outputs, expected)
    print(name, "PASS" if result.ok else "FAIL", [tuple(o.shape) for o in outputs],
          result.message)

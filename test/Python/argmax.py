# torch.argmax / torch.argmin and torch.cumsum (as the importer decomposes
# them) against eager PyTorch. argmax / argmin: the first
# index of the extreme, through amax/amin, comparisons, where and a
# minimum over indices), imported, compiled and run against eager PyTorch:
# every dim, keepdim, no dim (the flattened tensor), ties (the first
# index), NaNs (PyTorch takes a NaN as the extreme), integer inputs and
# one-element dims. cumsum: every dim, integers and bools (int64 sums),
# a dtype, position ids from a mask. On the CPU and, where a Vulkan device
# is present, on it.
# REQUIRES: torch
# RUN: %python %s cpu | FileCheck %s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s %}
# CHECK-COUNT-36: ok
# CHECK-NOT: MISMATCH

import sys

import numpy as np
import torch

import fx_mlir

target = sys.argv[1]
torch.manual_seed(0)


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def check(name, fn, x):
    imported = fx_mlir.import_module(Fn(fn).eval(), (x,))
    (got,) = fx_mlir.compile(imported.mlir, target=target)(x.numpy())
    want = fn(x).numpy()
    same = got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want)
    print(name, "ok" if same else f"MISMATCH got {got.tolist()} want {want.tolist()}")


x = torch.randn(3, 5, 4)
ties = torch.tensor([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, 5.0], [-1.0, -2.0, -2.0, 0.0]])
nans = torch.tensor([[1.0, float("nan"), 3.0, float("nan")], [2.0, 1.0, 0.0, 1.0]])
ints = torch.randint(-5, 5, (4, 6))
for op in (torch.argmax, torch.argmin):
    name = op.__name__
    for dim in (0, 1, 2, -1):
        check(f"{name} dim {dim}", lambda t, op=op, dim=dim: op(t, dim), x)
    check(f"{name} keepdim", lambda t, op=op: op(t, 1, keepdim=True), x)
    check(f"{name} no dim", lambda t, op=op: op(t), x)
    check(f"{name} no dim keepdim", lambda t, op=op: op(t, keepdim=True), x)
    check(f"{name} ties", lambda t, op=op: op(t, 1), ties)
    check(f"{name} nan", lambda t, op=op: op(t, 1), nans)
    check(f"{name} int", lambda t, op=op: op(t, 0), ints)
    check(f"{name} one element", lambda t, op=op: op(t, 1), torch.randn(4, 1))
    check(f"{name} logits", lambda t, op=op: op(torch.softmax(t, -1), -1), torch.randn(2, 10))
    check(f"{name} 1-d", lambda t, op=op: op(t), torch.randn(7))

# cumsum: log2(n) shifted additions; integers and bools sum in int64.
def check_close(name, fn, x):
    imported = fx_mlir.import_module(Fn(fn).eval(), (x,))
    (got,) = fx_mlir.compile(imported.mlir, target=target)(x.numpy())
    want = fn(x).numpy()
    if want.dtype.kind == "f":
        same = got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5)
    else:
        same = got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want)
    print(name, "ok" if same else f"MISMATCH got {got.tolist()} want {want.tolist()}")


for dim in (0, 1, 2, -1):
    check_close(f"cumsum dim {dim}", lambda t, dim=dim: torch.cumsum(t, dim), x)
check_close("cumsum 1-d 100", lambda t: torch.cumsum(t, 0), torch.randn(100))
check_close("cumsum one element", lambda t: torch.cumsum(t, 1), torch.randn(4, 1))
check_close("cumsum int", lambda t: torch.cumsum(t, 1), ints)
check_close("cumsum bool", lambda t: torch.cumsum(t > 0, 1), x)
check_close("cumsum dtype", lambda t: torch.cumsum(t, 0, dtype=torch.float32), ints)
# Position ids from an attention mask, as Hugging Face models compute them.
check_close("position ids", lambda m: (torch.cumsum(m, 1) * m) - 1,
            torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]))

# Numbers read from tensors (`.item()`, aten._local_scalar_dense in a
# torch.export graph) import as the 0-d tensor they were read from, which
# elementwise arithmetic and comparisons take as an operand: the compiled
# program computes them from the inputs of each call (two different inputs
# below, each against eager), on the CPU and Vulkan. Also imported:
# max()/min() of a whole tensor (aten.max.default), which such models use.
# A number from a tensor used as a size or a constant argument, or
# returned, is an UnsupportedOpsError that says so; torch 1.13's make_fx
# refuses `.item()` itself.
# REQUIRES: torch2
# RUN: %python %s cpu | FileCheck %s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s %}
# CHECK: scale: imported, ok, ok
# CHECK: count: imported, ok, ok
# CHECK: one-element: imported, ok, ok
# CHECK: clamp: UnsupportedOpsError
# CHECK-NEXT: aten.clamp.default x1
# CHECK-NEXT: uses a number read from a tensor (.item()) where the FX dialect needs a size or a constant; only elementwise arithmetic and comparisons take one (as the 0-d tensor it was read from): at {{.*}}item.py:{{[0-9]+}}
# CHECK: returned: UnsupportedOpsError
# CHECK: the model returns a number read from a tensor (.item()), not a tensor

import sys

import torch

import fx_mlir
from fx_mlir import UnsupportedOpsError
from fx_mlir.testing import compare

target = sys.argv[1]


class Scale(torch.nn.Module):
    """Floats: a max, a mean and a min read as numbers."""

    def forward(self, x, y):
        return x * y.max().item() + 1 - y.mean().item() * (x > y.min().item())


class Count(torch.nn.Module):
    """An integer: how many elements are positive."""

    def forward(self, x, y):
        return x + (y > 0).sum().item()


class OneElement(torch.nn.Module):
    """A one-element tensor of rank 2: the number broadcasts as a scalar,
    not as a [1, 1] tensor (which would add a dimension to a 1-d x)."""

    def forward(self, x, y):
        return x.sum(0) - y[:1].reshape(1, 1).item()


class Clamp(torch.nn.Module):
    def forward(self, x, y):
        return torch.clamp(x, max=y.max().item())


class Returned(torch.nn.Module):
    def forward(self, x, y):
        return x + 1, y.sum().item()


torch.manual_seed(0)
x, y = torch.randn(3, 4), torch.randn(5)
others = (torch.randn(3, 4) * 2, torch.randn(5) + 1)
for name, model in (("scale", Scale()), ("count", Count()), ("one-element", OneElement()),
                    ("clamp", Clamp()), ("returned", Returned())):
    try:
        imported = fx_mlir.import_module(model.eval(), (x, y))
    except UnsupportedOpsError as e:
        print(f"{name}: UnsupportedOpsError")
        print("\n".join(line.strip() for line in str(e).splitlines()[1:]))
        continue
    program = fx_mlir.compile(imported.mlir, target=target)
    oks = []
    for inputs in ((x, y), others):
        got = program(*[t.numpy() for t in inputs])
        result = compare(got, model(*inputs).numpy())
        oks.append("ok" if result.ok else f"WRONG ({result.message})")
    print(f"{name}: imported, {', '.join(oks)}")

# Import -> compile -> run on the CPU against eager PyTorch, for inputs and
# arguments at the edges: a 0-d input, tensor and one-sided clamp bounds,
# norms with p = 0, an empty arange, an empty batch through F.linear. On
# torch 1.x, dynamic_shapes (a torch.export argument) is refused.
# REQUIRES: torch
# RUN: %python %s 2>&1 | FileCheck %s --check-prefixes=CHECK,%torch-checks

import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

import fx_mlir
from fx_mlir.testing import compare

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from opcheck import Fn  # noqa: E402


def check(name, fn, *inputs):
    imported = fx_mlir.import_module(Fn(fn).eval(), inputs)
    outputs = fx_mlir.compile(imported.mlir)(*[t.numpy() for t in inputs])
    expected = fn(*inputs)
    expected = list(expected) if isinstance(expected, tuple) else [expected]
    shapes = [tuple(np.asarray(o).shape) for o in outputs]
    if all(e.numel() == 0 for e in expected):
        ok = shapes == [tuple(e.shape) for e in expected]
        print(name, "PASS" if ok else "FAIL", shapes)
        return
    result = compare(outputs, expected)
    print(name, "PASS" if result.ok else "FAIL", shapes, result.message)


torch.manual_seed(0)
# CHECK: zero-d PASS [(), (3,)]
check("zero-d", lambda x, y: (x * 2, x * y + 1), torch.tensor(3.0), torch.randn(3))
# CHECK-NEXT: clamp-tensor-bounds PASS [(2, 5)]
check("clamp-tensor-bounds", lambda x, lo, hi: torch.clamp(x, lo, hi),
      torch.randn(2, 5), torch.randn(5) - 1, torch.randn(2, 1) + 1)
# CHECK-NEXT: clamp-max-only PASS [(5,)]
check("clamp-max-only", lambda x: torch.clamp(x, max=0.5), torch.randn(5))
# CHECK-NEXT: clamp-min-tensor PASS [(5,)]
check("clamp-min-tensor", lambda x, lo: torch.clamp(x, min=lo), torch.randn(5), torch.randn(5))
# CHECK-NEXT: norm-p0 PASS [(3,)]
check("norm-p0", lambda x: torch.norm(x * (x > 0), p=0, dim=1), torch.randn(3, 4))
# CHECK-NEXT: normalize-p0 PASS [(3, 4)]
check("normalize-p0", lambda x: F.normalize(x, p=0, dim=1), torch.randn(3, 4))
# CHECK-NEXT: arange-empty PASS [(2,)]
check("arange-empty", lambda x: x + torch.arange(1, 1, 1).sum(), torch.randn(2))
# CHECK-NEXT: linear-empty-batch PASS [(0, 4)]
check("linear-empty-batch", F.linear, torch.randn(0, 3), torch.randn(4, 3), torch.randn(4))
# Rounding, sign and the inverse and hyperbolic functions as a user calls
# them (torch.export's Core ATen ops or make_fx's), tiny and NaN inputs.
# CHECK-NEXT: unary-math PASS [(3, 4), (3, 4), (3, 4), (3, 4), (3, 4), (3, 4), (3, 4), (3, 4)]
check("unary-math", lambda x: (torch.floor(x), torch.round(x * 2), torch.trunc(x), torch.sign(x),
                               torch.log1p(x * 1e-6), torch.expm1(x), torch.asinh(x),
                               torch.atanh(x / 4)),
      torch.cat([torch.randn(11), torch.tensor([float("nan")])]).reshape(3, 4))
# CHECK-NEXT: binary-math PASS [(3, 4), (3, 4), (3, 4), (3, 4), (3, 4), (3, 4), (3, 4)]
check("binary-math", lambda x, y, i: (torch.remainder(x, y), torch.fmod(x, 0.75), torch.atan2(x, y),
                                      torch.logical_and(x > 0, y) | torch.isnan(x),
                                      torch.logical_xor(x, ~(i > 3)),
                                      torch.bitwise_xor(i, i * 3) & ~i, i % -3),
      torch.randn(3, 4), torch.randn(3, 4), torch.arange(-6, 6).reshape(3, 4))
# CHECK-NEXT: repeat PASS [(4, 9)]
check("repeat", lambda x: x.repeat(2, 3), torch.randn(2, 3))
# Gathers along any dimension: index_select and x[:, idx] (one index
# tensor, the other dimensions whole), with a 2-d index.
# CHECK-NEXT: gather-dims PASS [(3, 3, 2), (3, 2, 2, 2), (2, 2, 4, 2)]
check("gather-dims", lambda x, i, j, k: (torch.index_select(x, 1, i), x[:, j], x[k]),
      torch.randn(3, 4, 2), torch.tensor([3, 0, 3]), torch.tensor([[1, 2], [0, 3]]),
      torch.tensor([[2, 0], [1, 1]]))
# Index tensors on adjacent dimensions broadcast together (a gather of the
# merged dimensions); F.unfold decomposes into such gathers.
# CHECK-NEXT: multi-index PASS [(2, 2, 3, 5), (1, 8, 9)]
check("multi-index", lambda x, i, j, y: (x[:, i, j], F.unfold(y, 2)),
      torch.randn(2, 3, 4, 5), torch.tensor([[2], [0]]), torch.tensor([3, 1, 0]),
      torch.randn(1, 2, 4, 4))
# Group norm: torch's decomposition (through var_mean on torch 2).
# CHECK-NEXT: group-norm PASS [(2, 4, 3, 3), (2, 5), (2, 1, 5)]
check("group-norm", lambda x, y: (F.group_norm(x, 2, torch.ones(4) * 1.5, torch.zeros(4) + 0.1),
                                  torch.var_mean(y, dim=1, correction=0)[0] + torch.var(y, 1),
                                  torch.std(y, 1, keepdim=True)),
      torch.randn(2, 4, 3, 3), torch.randn(2, 3, 5))
# Bilinear grid sampling: torch's decomposition gathers the four corners
# with index tensors on adjacent dimensions.
# CHECK-NEXT: grid-sample PASS [(1, 2, 3, 3)]
check("grid-sample", lambda x, g: F.grid_sample(x, g, align_corners=False),
      torch.randn(1, 2, 4, 4), torch.rand(1, 3, 3, 2) * 2 - 1)
# CHECK-NOT: FAIL

# Decompositions of one torch only (python/fx_mlir/_decompositions.py).
# TORCH2: pad-modes PASS [(1, 2, 8, 8), (1, 2, 9), (1, 2, 8, 8), (1, 2, 10, 10)]
# TORCH2: any-dim PASS [(3,)]
if hasattr(torch, "export"):
    check("pad-modes", lambda x, y: (F.pad(x, (1, 2, 2, 1), mode="reflect"),
                                     F.pad(y, (2, 1), mode="reflect"),
                                     F.pad(x, (1, 2, 2, 1), mode="replicate"),
                                     F.interpolate(x, scale_factor=2, mode="nearest")),
          torch.randn(1, 2, 5, 5), torch.randn(1, 2, 6))
    check("any-dim", lambda x: torch.any(x > 1.0, dim=1),
          torch.tensor([[0.5, 2.0, -1.0, 0.0], [0.1, 0.2, 0.3, 0.4], [3.0, 3.0, 0.0, 1.5]]))

if not hasattr(torch, "export"):
    try:
        fx_mlir.import_module(Fn(torch.relu).eval(), (torch.randn(2),), dynamic_shapes={})
    except ValueError as e:
        print("dynamic-shapes", e)
# TORCH1: dynamic-shapes dynamic_shapes needs torch.export (torch 2.1 or newer); this is torch 1.
# TORCH2-NOT: dynamic-shapes

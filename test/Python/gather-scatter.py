# The Core ATen ops the importer decomposes into FX ops (the gather and
# scatter family, sort and topk, products, diagonals, 1-d and 3-d
# pooling, 3-d padding, distances, empty tensors) against eager PyTorch, imported, compiled and
# run: gather along each dimension and with an index smaller than its
# input; scatter of a tensor and of a value, scatter_add and every
# scatter_reduce reduction with and without the input's own values
# (duplicate indices included; integers too); index_put on one and two
# leading dimensions, negative indices, accumulating; empty index tensors
# and empty reductions. On the CPU and, where a Vulkan device is present,
# on it.
# REQUIRES: torch
# RUN: %python %s cpu | FileCheck %s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s %}
# CHECK-COUNT-66: ok
# CHECK-NOT: MISMATCH
# CHECK-NOT: ERROR

import os
import sys

import torch
import torch.nn.functional as F

import fx_mlir

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from opcheck import Fn, check_fn  # noqa: E402

target = sys.argv[1]
torch.manual_seed(0)


def check(name, fn, *xs):
    check_fn(target, name, fn, *xs)


x = torch.randn(3, 5, 4)
idx = torch.randint(0, 5, (3, 2, 4))
src = torch.randn(3, 2, 4)
ints = torch.randint(-9, 9, (4, 3))
int_idx = torch.randint(0, 4, (6, 3))
int_src = torch.randint(-9, 9, (6, 3))
# Distinct indices along dim 1 (scatter of a tensor picks one of the
# duplicates' values, which eager does not define).
distinct = torch.stack([torch.randperm(5)[:2] for _ in range(12)]).reshape(3, 4, 2)
distinct = distinct.transpose(1, 2).contiguous()

# gather
check("gather dim 1", lambda t, i: torch.gather(t, 1, i), x, idx)
check("gather dim 0, smaller index", lambda t, i: torch.gather(t, 0, i), x,
      torch.randint(0, 3, (2, 5, 3)))
check("gather dim -1", lambda t, i: torch.gather(t, -1, i), x, torch.randint(0, 4, (3, 5, 6)))
check("gather int", lambda t, i: torch.gather(t, 1, i), ints, torch.randint(0, 3, (4, 7)))
check("gather empty index", lambda t, i: torch.gather(t, 1, i), x,
      torch.zeros(3, 0, 4, dtype=torch.int64))

# scatter, scatter_add, scatter_reduce
check("scatter src", lambda t, i, s: t.scatter(1, i, s), x, distinct, src)
check("scatter value", lambda t, i: t.scatter(1, i, 2.5), x, idx)
check("scatter_add", lambda t, i, s: t.scatter_add(1, i, s), x, idx, src)
check("scatter_add dim 0", lambda t, i, s: t.scatter_add(0, i, s), ints, int_idx, int_src)
check("scatter_add empty", lambda t, i, s: t.scatter_add(1, i, s), x,
      torch.zeros(3, 0, 4, dtype=torch.int64), torch.randn(3, 0, 4))
for reduce in ("sum", "prod", "mean", "amax", "amin"):
    for include_self in (True, False):
        check(f"scatter_reduce {reduce} include_self={include_self}",
              lambda t, i, s, r=reduce, inc=include_self:
                  t.scatter_reduce(1, i, s, r, include_self=inc), x, idx, src)
        check(f"scatter_reduce {reduce} int include_self={include_self}",
              lambda t, i, s, r=reduce, inc=include_self:
                  t.scatter_reduce(0, i, s, r, include_self=inc), ints, int_idx, int_src)

# index_put (x[i] = v, x[i, j] = v, x[i] += v)
check("index_put", lambda t, i, v: torch.index_put(t, (i,), v), x, torch.tensor([2, 0]),
      torch.randn(2, 5, 4))
check("index_put accumulate", lambda t, i, v: torch.index_put(t, (i,), v, accumulate=True),
      x, torch.tensor([2, 0, 2]), torch.randn(3, 5, 4))
check("index_put two, negative", lambda t, i, j, v: torch.index_put(t, (i, j), v), x,
      torch.tensor([2, 0]), torch.tensor([-1, 3]), torch.randn(4))

# prod
check("prod", lambda t: torch.prod(t), torch.rand(3, 5) + 0.5)
check("prod dim", lambda t: torch.prod(t, 1), x)
check("prod keepdim", lambda t: torch.prod(t, -1, keepdim=True), x)
check("prod int", lambda t: torch.prod(t, 0), ints)
# (The product over nothing is 1 whatever the input: scaled by another
# input, the result is no constant.)
check("prod empty", lambda t, u: torch.prod(t, 1) * u, torch.randn(3, 0), torch.randn(3))

# diagonal, empty
check("diagonal", lambda t: torch.diagonal(t), torch.randn(4, 6))
check("diagonal offset", lambda t: torch.diagonal(t, 2, 1, 2), x)
check("diagonal negative offset", lambda t: torch.diagonal(t, -1, 0, 2), x)
check("empty", lambda t: torch.empty(3, 4).fill_(1.0) + t, torch.randn(3, 4))

# 1-d and 3-d pooling, 3-d padding
check("avg_pool1d", lambda t: F.avg_pool1d(t, 3, 2, 1), x)
check("avg_pool1d ceil", lambda t: F.avg_pool1d(t, 3, 2, 1, ceil_mode=True,
                                               count_include_pad=False), torch.randn(2, 3, 10))
check("adaptive_avg_pool1d", lambda t: F.adaptive_avg_pool1d(t, 3), torch.randn(2, 3, 10))
check("adaptive_avg_pool3d", lambda t: F.adaptive_avg_pool3d(t, (3, 4, 2)),
      torch.randn(2, 3, 7, 8, 5))
check("adaptive_avg_pool3d unbatched", lambda t: F.adaptive_avg_pool3d(t, 2),
      torch.randn(3, 5, 4, 6))
check("avg_pool3d", lambda t: F.avg_pool3d(t, 3, 2, 1), torch.randn(2, 3, 7, 8, 9))
check("avg_pool3d ceil", lambda t: F.avg_pool3d(t, (2, 3, 2), (1, 2, 2), (1, 1, 0),
                                                ceil_mode=True, count_include_pad=False),
      torch.randn(1, 2, 5, 7, 6))
if hasattr(torch, "export"):
    check("max_pool3d", lambda t: F.max_pool3d(t, 3, 2, 1), torch.randn(2, 3, 7, 8, 9))
else:
    # torch 1.13 has no decomposition of it: a clear error.
    try:
        fx_mlir.import_module(Fn(lambda t: F.max_pool3d(t, 3)).eval(), (torch.randn(1, 1, 4, 4, 4),))
        print("max_pool3d MISMATCH: imported on torch 1.13")
    except fx_mlir.UnsupportedOpsError as e:
        print("max_pool3d on torch 1.13:", "ok" if "max_pool3d_with_indices" in str(e) else e)
check("reflection_pad3d", lambda t: F.pad(t, (1, 2, 1, 0, 2, 1), mode="reflect"),
      torch.randn(1, 2, 4, 5, 6))
check("replication_pad3d", lambda t: F.pad(t, (1, 2, 1, 0, 2, 1), mode="replicate"),
      torch.randn(1, 2, 4, 5, 6))
check("reflection_pad3d wide", lambda t: F.pad(t, (3, 3, 0, 0, 1, 0), mode="reflect"),
      torch.randn(2, 1, 3, 2, 4))

# sort and topk: ranks from all pairs of a row (stable: ties keep their
# order; NaNs last, first when descending); a sort too large for that is
# reported unsupported.
check("sort", lambda t: torch.sort(t, 1), x)
check("sort descending", lambda t: torch.sort(t, -1, descending=True), x)
check("sort stable ties", lambda t: torch.sort(t, dim=1, stable=True),
      torch.randint(0, 3, (4, 9)).float())
check("sort int", lambda t: torch.sort(t, dim=0, stable=True), ints)
check("sort nan", lambda t: torch.sort(t, 1),
      torch.tensor([[1.0, float("nan"), -2.0, float("inf"), float("nan")]]))
check("sort nan descending", lambda t: torch.sort(t, 1, descending=True),
      torch.tensor([[1.0, float("nan"), -float("inf"), 3.0]]))
check("argsort", lambda t: torch.argsort(t, 1), x)
check("topk", lambda t: torch.topk(t, 3, 1), x)
check("topk smallest", lambda t: torch.topk(t, 2, -1, largest=False), x)
try:
    fx_mlir.import_module(Fn(lambda t: torch.sort(t).values).eval(), (torch.randn(10000),))
    print("large sort MISMATCH: imported")
except fx_mlir.UnsupportedOpsError as e:
    print("large sort:", "ok" if "aten.sort" in str(e) else e)

# distances
check("cdist", lambda a, b: torch.cdist(a, b), torch.randn(2, 5, 3), torch.randn(2, 4, 3))
check("pdist", lambda a: F.pdist(a), torch.randn(6, 3))
check("pdist p=1", lambda a: F.pdist(a, 1.0), torch.randn(7, 4))

# nn.EmbeddingBag (aten._embedding_bag) as FX ops, against eager PyTorch:
# sum, mean and max bags, an empty bag (all zeros), padding_idx left out
# (a bag of padding only is empty), include_last_offset, per-sample
# weights; compiled and run on the CPU and, where a Vulkan device is
# present, on it. A graph that uses one of the results that serve the
# backward pass (offset2bag here) is an UnsupportedOpsError naming it.
# REQUIRES: torch
# RUN: %python %s cpu | FileCheck %s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s %}
# CHECK: sum: ok
# CHECK-NEXT: mean: ok
# CHECK-NEXT: max: ok
# CHECK-NEXT: mean, padding: ok
# CHECK-NEXT: max, padding only: ok
# CHECK-NEXT: include_last_offset: ok
# CHECK-NEXT: per-sample weights: ok
# CHECK-NEXT: offset2bag: UnsupportedOpsError: {{.*}}aten._embedding_bag{{.*}}its offset2bag result (for the backward pass) is used

import sys

import numpy as np
import torch

import fx_mlir
from fx_mlir.testing import compare

target = sys.argv[1]
torch.manual_seed(0)


class Bags(torch.nn.Module):
    def __init__(self, **options):
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(10, 5, **options)

    def forward(self, ids, offsets, *weights):
        return self.bag(ids, offsets, per_sample_weights=weights[0] if weights else None)


def check(name, model, inputs):
    model.eval()
    imported = fx_mlir.import_module(model, inputs)
    compiled = fx_mlir.compile(imported.mlir, target=target)
    for key, value in imported.params.items():
        compiled.set_parameter(key, value.detach().numpy())
    got = compiled(*[t.numpy() for t in inputs])
    with torch.no_grad():
        want = model(*inputs)
    result = compare(got, [want.numpy()])
    print(f"{name}:", "ok" if result.ok else result.message)


ids = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 7])
# Bags [0, 4), [4, 4) (empty), [4, 7), [7, 10).
offsets = torch.tensor([0, 4, 4, 7])
check("sum", Bags(mode="sum"), (ids, offsets))
check("mean", Bags(mode="mean"), (ids, offsets))
check("max", Bags(mode="max"), (ids, offsets))
check("mean, padding", Bags(mode="mean", padding_idx=4), (ids, torch.tensor([0, 2, 5])))
# Bag [1, 2) holds only the padding index 2: empty.
check("max, padding only", Bags(mode="max", padding_idx=2), (ids, torch.tensor([0, 1, 2, 6])))
check("include_last_offset", Bags(mode="sum", include_last_offset=True),
      (ids, torch.tensor([0, 3, 3, 10])))
check("per-sample weights", Bags(mode="sum"), (ids, torch.tensor([0, 6]), torch.rand(10)))


class UsesOffset2Bag(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(10, 5))

    def forward(self, ids, offsets):
        out, offset2bag, _, _ = torch.embedding_bag(self.weight, ids, offsets)
        return out + offset2bag.sum()


try:
    fx_mlir.import_module(UsesOffset2Bag().eval(), (ids, offsets))
    print("offset2bag: imported")
except Exception as e:  # noqa: BLE001 - the message is the test
    print("offset2bag:", type(e).__name__ + ":", str(e).replace("\n", " "))

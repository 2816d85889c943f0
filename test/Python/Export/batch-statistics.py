# Batch norm by the statistics of its own input
# (aten._native_batch_norm_legit.no_stats in a torch.export graph): the
# weight standardization of timm's NFNets (F.batch_norm of a filter with
# training=True and no running statistics) and a BatchNorm2d without
# running statistics in eval mode, which normalizes by its batch. Both
# import, compile and match eager in float64 on the CPU and Vulkan.
# REQUIRES: torch2
# RUN: %python %s cpu | FileCheck %s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s %}
# CHECK: standardized conv: ok
# CHECK: batch norm without running statistics: ok
# A use of its saved mean or inverse deviation is an UnsupportedOpsError.
# CHECK: saved statistics: UnsupportedOpsError
# CHECK-NEXT: aten._native_batch_norm_legit.no_stats x1
# CHECK-NEXT: the saved mean/invstd results of batch norm are used

import os
import sys
import tempfile

import torch
import torch.nn.functional as F

import fx_mlir
from fx_mlir.testing import compare

target = sys.argv[1]


class StandardizedConv(torch.nn.Module):
    """A convolution by its filter standardized per output channel."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(8, 3, 3, 3) * 2 + 0.5)
        self.gain = torch.nn.Parameter(torch.rand(8) + 0.5)

    def forward(self, x):
        w = F.batch_norm(self.weight.reshape(1, 8, -1), None, None, weight=self.gain,
                         training=True, momentum=0.0, eps=1e-6).reshape_as(self.weight)
        return F.conv2d(x, w, padding=1)


class BatchStatistics(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(4, track_running_stats=False)
        with torch.no_grad():
            self.bn.weight.copy_(torch.rand(4) + 0.5)
            self.bn.bias.copy_(torch.randn(4))

    def forward(self, x):
        return self.bn(x) * 2


class SavedStatistics(torch.nn.Module):
    def forward(self, x):
        out, mean, _ = torch.ops.aten._native_batch_norm_legit.no_stats(
            x, None, None, True, 0.0, 1e-5)
        return out + mean.reshape(1, -1, 1, 1)


torch.manual_seed(0)
for name, model, x in (("standardized conv", StandardizedConv(), torch.randn(2, 3, 10, 10)),
                       ("batch norm without running statistics", BatchStatistics(),
                        torch.randn(3, 4, 5, 5) * 3 + 1)):
    model.eval()
    imported = fx_mlir.import_module(model, (x,))
    program = fx_mlir.compile(imported.mlir, target=target)
    if imported.params:
        workdir = tempfile.mkdtemp()
        weights = os.path.join(workdir, "w.safetensors")
        imported.save(os.path.join(workdir, "m.mlir"), weights)
        program.bind_weights(weights)
    got = program(x.numpy())
    with torch.no_grad():
        want = model.double()(x.double()).numpy()
    result = compare(got, want)
    print(f"{name}: {'ok' if result.ok else 'WRONG ' + result.message}")

try:
    fx_mlir.import_module(SavedStatistics().eval(), (torch.randn(2, 3, 4, 4),))
    print("saved statistics: imported (unexpected)")
except fx_mlir.UnsupportedOpsError as e:
    print("saved statistics: UnsupportedOpsError")
    print("\n".join(line.strip() for line in str(e).splitlines()[1:]))

# Dynamic dimensions from torch.export.Dim: a dynamic batch imports as a
# '?' outermost dimension (a view's -1 where it is reshaped), with the
# Dim's range recorded on the argument ({fx_import.dim_ranges = ...}).
# An MLP and two small conv nets (batch norm and pooling; group norm and a
# flatten) are run at several batch sizes against eager PyTorch: on the CPU
# through fx-run, which specializes the dynamic dimension to the input; on
# Vulkan as one program for every size, through the Python runtime, which
# refuses a size outside the Dim's range before running. What the IR cannot
# express is an error naming the input, the dimension and what to do.
# REQUIRES: torch2
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t import | FileCheck %s --check-prefix=IMPORT
# RUN: fx-opt %t/mlp.mlir -o /dev/null
# RUN: fx-opt %t/convnet.mlir -o /dev/null
# RUN: fx-opt %t/flattennet.mlir -o /dev/null
# RUN: %python %s %t cpu fx-run | FileCheck %s --check-prefix=CPU
# RUN: %if vulkan %{ %python %s %t vulkan | FileCheck %s --check-prefix=VULKAN %}
# RUN: %python %s %t errors | FileCheck %s --check-prefix=ERRORS

import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn as nn

import fx_mlir
from fx_mlir.runtime import dim_ranges
from fx_mlir.testing import compare

workdir, step = sys.argv[1], sys.argv[2]
batch = torch.export.Dim("batch", min=1, max=64)
BATCHES = (1, 7, 64)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv1(x)))
        y = nn.functional.max_pool2d(y, 2)
        y = nn.functional.avg_pool2d(torch.relu(self.conv2(y)), 2)
        return self.fc(y.mean((2, 3)))


class FlattenNet(nn.Module):
    """Reshapes of the batch: group norm's statistics per (batch, group),
    and a flatten before the classifier."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.gn = nn.GroupNorm(2, 8)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        y = torch.relu(self.gn(self.conv(x)))
        y = nn.functional.adaptive_avg_pool2d(y, 4)
        return self.fc(y.flatten(1))


def models():
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 10))
    conv = ConvNet()
    with torch.no_grad():  # batch norm statistics that are not the identity
        conv.bn.running_mean.uniform_(-0.5, 0.5)
        conv.bn.running_var.uniform_(0.5, 2.0)
    return {"mlp": (mlp.eval(), (16,)), "convnet": (conv.eval(), (3, 16, 16)),
            "flattennet": (FlattenNet().eval(), (3, 16, 16))}


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, *rest):
        return self.fn(x, *rest)


def slices(x):
    # Slices and selects of the batch (counted from its end), and a
    # transpose that moves it inward.
    return x[1:] + x[:-1], x[-1], x.t() @ x


def example(shape, n, seed):
    return torch.randn((n,) + shape, generator=torch.Generator().manual_seed(seed))


def paths(name):
    return os.path.join(workdir, name + ".mlir"), os.path.join(workdir, name + ".safetensors")


def eager(module, x):
    with torch.no_grad():
        return module(x)


if step == "import":
    for name, (module, shape) in models().items():
        imported = fx_mlir.import_module(module, (example(shape, 3, 0),),
                                         dynamic_shapes={"x": {0: batch}} if name == "convnet"
                                         else ({0: batch},))
        imported.save(*paths(name))
        print("==", name)
        print(imported.mlir)
        print("dynamic_dims", imported.dynamic_dims)
        print("runtime reads", dim_ranges(imported.mlir, "forward"))
    # An ExportedProgram with a dynamic batch imports the same way.
    module, shape = models()["mlp"]
    program = torch.export.export(module, (example(shape, 3, 0),), dynamic_shapes=({0: batch},))
    print("program: same IR", fx_mlir.import_program(program).mlir ==
          fx_mlir.import_module(module, (example(shape, 3, 0),),
                                dynamic_shapes=({0: batch},)).mlir)

# IMPORT-LABEL: == mlp
# IMPORT: %arg6: tensor<?x16xf32> {fx_import.dim_ranges = {dim0 = array<i64: 1, 64>}} loc("input0")) -> tensor<?x10xf32> {
# IMPORT: fx.linear %arg6, %arg0, %arg1 : (tensor<?x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<?x32xf32>
# IMPORT: fx.layer_norm {{.*}} -> tensor<?x32xf32>
# IMPORT: return {{.*}} : tensor<?x10xf32>
# IMPORT: dynamic_dims [DynamicDim(input=0, dim=0, name='batch', min=1, max=64)]
# IMPORT: runtime reads {6: {0: (1, 64)}}
# IMPORT-LABEL: == convnet
# IMPORT: tensor<?x3x16x16xf32> {fx_import.dim_ranges = {dim0 = array<i64: 1, 64>}} loc("input0")) -> tensor<?x10xf32> {
# IMPORT: fx.convolution {{.*}} -> tensor<?x8x16x16xf32>
# IMPORT: fx.batch_norm {{.*}} -> tensor<?x8x16x16xf32>
# IMPORT: fx.max_pool2d {{.*}} -> tensor<?x8x8x8xf32>
# IMPORT: fx.avg_pool2d {{.*}} -> tensor<?x16x4x4xf32>
# IMPORT: fx.mean {{.*}} -> tensor<?x16xf32>
# IMPORT: fx.linear {{.*}} -> tensor<?x10xf32>
# IMPORT: dynamic_dims [DynamicDim(input=0, dim=0, name='batch', min=1, max=64)]
# IMPORT-LABEL: == flattennet
# IMPORT: tensor<?x3x16x16xf32> {fx_import.dim_ranges = {dim0 = array<i64: 1, 64>}} loc("input0")) -> tensor<?x10xf32> {
# Group norm: its statistics per (batch, group), viewed with -1.
# IMPORT: fx.view {{.*}} {size = array<i64: -1, 2, 4, 256>} : (tensor<?x8x16x16xf32>) -> tensor<?x2x4x256xf32>
# IMPORT: fx.mean {{.*}} -> tensor<?x2x1x1xf32>
# IMPORT: fx.view {{.*}} {size = array<i64: -1, 8>} : (tensor<?x2x4x1xf32>) -> tensor<?x8xf32>
# IMPORT: fx.adaptive_avg_pool2d {{.*}} -> tensor<?x8x4x4xf32>
# IMPORT: fx.view {{.*}} {size = array<i64: -1, 128>} : (tensor<?x8x4x4xf32>) -> tensor<?x128xf32>
# IMPORT: fx.linear {{.*}} -> tensor<?x10xf32>
# IMPORT: program: same IR True

if step == "cpu":
    # fx-run specializes the '?' to each input's batch.
    fx_run = sys.argv[3]
    for name, (module, shape) in models().items():
        mlir, weights = paths(name)
        for n in BATCHES:
            x = example(shape, n, n)
            np.save(os.path.join(workdir, "x.npy"), x.numpy())
            out = os.path.join(workdir, "y.npy")
            proc = subprocess.run([fx_run, mlir, "--weights", weights, "--input",
                                   os.path.join(workdir, "x.npy"), "--output", out],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                print(name, "batch", n, "ERROR", proc.stderr)
                continue
            result = compare([np.load(out)], [eager(module, x)])
            print(name, "batch", n, "PASS" if result.ok else "FAIL", np.load(out).shape,
                  result.message)

    # Slices of the dynamic batch, counted from its end.
    imported = fx_mlir.import_module(Fn(slices).eval(), (torch.randn(5, 4),),
                                     dynamic_shapes={"x": {0: torch.export.Dim("b", min=3)}})
    mlir = os.path.join(workdir, "slices.mlir")
    imported.save(mlir)
    print(imported.mlir)
    for n in (3, 9):
        x = example((4,), n, n)
        np.save(os.path.join(workdir, "x.npy"), x.numpy())
        out = os.path.join(workdir, "y.npz")
        proc = subprocess.run([fx_run, mlir, "--input", os.path.join(workdir, "x.npy"),
                               "--output", out], capture_output=True, text=True)
        if proc.returncode != 0:
            print("slices batch", n, "ERROR", proc.stderr)
            continue
        got = np.load(out)
        got = [got[f"output{i}"] for i in range(len(got.files))]
        result = compare(got, list(slices(x)))
        print("slices batch", n, "PASS" if result.ok else "FAIL", [g.shape for g in got],
              result.message)

# CPU: mlp batch 1 PASS (1, 10)
# CPU-NEXT: mlp batch 7 PASS (7, 10)
# CPU-NEXT: mlp batch 64 PASS (64, 10)
# CPU-NEXT: convnet batch 1 PASS (1, 10)
# CPU-NEXT: convnet batch 7 PASS (7, 10)
# CPU-NEXT: convnet batch 64 PASS (64, 10)
# CPU-NEXT: flattennet batch 1 PASS (1, 10)
# CPU-NEXT: flattennet batch 7 PASS (7, 10)
# CPU-NEXT: flattennet batch 64 PASS (64, 10)
# CPU: %arg0: tensor<?x4xf32> {fx_import.dim_ranges = {dim0 = array<i64: 3, 9223372036854775807>}}
# CPU: fx.slice %arg0 {dim = 0 : i64, start = 1 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
# CPU: fx.slice %arg0 {dim = 0 : i64, start = 0 : i64, end = -1 : i64, step = 1 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
# CPU: fx.select %arg0 {dim = 0 : i64, index = -1 : i64} : (tensor<?x4xf32>) -> tensor<4xf32>
# CPU: fx.permute %arg0 {{.*}} -> tensor<4x?xf32>
# CPU: slices batch 3 PASS [(2, 4), (4,), (4, 4)]
# CPU-NEXT: slices batch 9 PASS [(8, 4), (4,), (4, 4)]

if step == "vulkan":
    # One program for every batch; the runtime checks the Dim's range.
    # flattennet's views of the dynamic batch stay on the host as reshapes
    # of whole buffers (memref.collapse_shape, expand_shape): the same
    # device buffer, its shape regrouped per call.
    for name, (module, shape) in models().items():
        mlir, weights = paths(name)
        model = fx_mlir.compile(mlir, target="vulkan")
        model.bind_weights(weights)
        print(name, "inputs", model.inputs, "ranges", model.dim_ranges)
        for n in BATCHES:
            x = example(shape, n, n)
            (y,) = model(x.numpy())
            result = compare([y], [eager(module, x)])
            print(name, "batch", n, "PASS" if result.ok else "FAIL", y.shape, result.message)
        for n in (0, 65):
            try:
                model(example(shape, n, n).numpy())
                print(name, "batch", n, "ran")
            except fx_mlir.Error as e:
                print(name, "batch", n, "Error:", e)

# VULKAN: mlp inputs [('arg6', 'f32', (-1, 16))] ranges {0: {0: (1, 64)}}
# VULKAN-NEXT: mlp batch 1 PASS (1, 10)
# VULKAN-NEXT: mlp batch 7 PASS (7, 10)
# VULKAN-NEXT: mlp batch 64 PASS (64, 10)
# VULKAN-NEXT: mlp batch 0 Error: input 0 (arg6) has size 0 in dimension 0, outside the range it was imported for: at least 1 and at most 64 (torch.export.Dim's min and max, recorded as fx_import.dim_ranges). Pass a size in that range, or import the model with a Dim whose range holds this size
# VULKAN-NEXT: mlp batch 65 Error: input 0 (arg6) has size 65 in dimension 0, outside the range {{.*}}: at least 1 and at most 64
# VULKAN-NEXT: convnet inputs [('arg{{[0-9]+}}', 'f32', (-1, 3, 16, 16))] ranges {0: {0: (1, 64)}}
# VULKAN-NEXT: convnet batch 1 PASS (1, 10)
# VULKAN-NEXT: convnet batch 7 PASS (7, 10)
# VULKAN-NEXT: convnet batch 64 PASS (64, 10)
# VULKAN-NEXT: convnet batch 0 Error: input 0 (arg{{[0-9]+}}) has size 0 in dimension 0, outside the range
# VULKAN-NEXT: convnet batch 65 Error: input 0 (arg{{[0-9]+}}) has size 65 in dimension 0, outside the range
# VULKAN-NEXT: flattennet inputs [('arg{{[0-9]+}}', 'f32', (-1, 3, 16, 16))] ranges {0: {0: (1, 64)}}
# VULKAN-NEXT: flattennet batch 1 PASS (1, 10)
# VULKAN-NEXT: flattennet batch 7 PASS (7, 10)
# VULKAN-NEXT: flattennet batch 64 PASS (64, 10)
# VULKAN-NEXT: flattennet batch 0 Error: input 0 (arg{{[0-9]+}}) has size 0 in dimension 0, outside the range
# VULKAN-NEXT: flattennet batch 65 Error: input 0 (arg{{[0-9]+}}) has size 65 in dimension 0, outside the range


def report(what, fn, inputs, dynamic_shapes):
    try:
        fx_mlir.import_module(Fn(fn).eval(), inputs, dynamic_shapes=dynamic_shapes)
        print(what, "imported")
    except Exception as e:  # noqa: BLE001 - the message is the test
        print(what, type(e).__name__ + ":", str(e).replace("\n", " | "))


if step == "errors":
    x = torch.randn(3, 4)
    # Only the outermost dimension of an input may be dynamic.
    report("inner", lambda x: x.sum(1), (x,),
           {"x": {1: torch.export.Dim("n", min=2, max=32)}})
    # A size derived from a Dim (2 * batch) is not a Dim of its own.
    report("derived", lambda x, y: x + y.view(-1, 2, 4)[:, 0], (x, torch.randn(6, 4)),
           {"x": {0: batch}, "rest": ({0: 2 * batch},)})
    # A view with two dynamic sizes: fx.view has one -1.
    report("two sizes", lambda x, y: (x[:, None, :] * y[None, :, :]).reshape(x.shape[0], -1),
           (x, torch.randn(3, 4)), {"x": {0: batch}, "rest": ({0: batch},)})
    # The batch size as a number in arithmetic, or as a creation op's size.
    report("size as number", lambda x: x * x.shape[0], (x,), {"x": {0: batch}})
    report("creation", lambda x: torch.cat([x, torch.zeros(x.shape[0], 2)], 1), (x,),
           {"x": {0: batch}})
    # An expand that stretches a size-1 dimension to the batch.
    report("expand", lambda x, w: torch.cat([x, w.expand(x.shape[0], 4)], 1),
           (x, torch.randn(1, 4)), {"x": {0: batch}, "rest": (None,)})
    # Sizes read through aten.sym_size and aten.sym_numel as the shapes of
    # reshapes: size arithmetic, evaluated at import (no IR).
    def sizes_as_shapes(x):
        return x.reshape(x.size(0), 2, -1).reshape(x.numel() // 4, 4)
    exported = torch.export.export(Fn(sizes_as_shapes).eval(), (x,),
                                   dynamic_shapes={"x": {0: batch}})
    print("size ops:", sorted({str(n.target) for n in exported.graph.nodes
                               if "sym_" in str(n.target)}))
    report("sizes as shapes", sizes_as_shapes, (x,), {"x": {0: batch}})

# ERRORS: inner ValueError: cannot import the dynamic dimensions of the model's inputs: |   input 0 (x) dimension 1 (Dim 'n'): only the outermost (batch) dimension of an input may be dynamic {{.*}}. Make dimension 1 static: leave it out of dynamic_shapes and import once per size
# ERRORS-NEXT: derived ValueError: cannot import the dynamic dimensions of the model's inputs: |   input 1 (rest_0) dimension 0: its size 2*s{{[0-9]+}} is derived from another dimension; {{.*}} Make it static, or give it a Dim of its own
# ERRORS-NEXT: two sizes UnsupportedOpsError: cannot import: 1 node(s) use 1 unsupported ATen op(s): |   aten.view.default x1 |     a view to the shape (s{{[0-9]+}}, 4*s{{[0-9]+}}) needs 2 dynamic sizes, and fx.view infers only one (-1): the dynamic size of input {{[01]}} ({{x|rest_0}}) dimension 0 (Dim 'batch'); {{.*}} Reshape so that at most one dimension of the result is dynamic {{.*}}: at {{.*}}dynamic.py:{{[0-9]+}}
# ERRORS-NEXT: size as number UnsupportedOpsError: cannot import: 1 node(s) use 1 unsupported ATen op(s): |   aten.mul.Tensor x1 |     computes with a size: it needs the dynamic size of input 0 (x) dimension 0 (Dim 'batch') as a number, which the FX dialect cannot hold {{.*}} Make that dimension static (leave it out of dynamic_shapes: one import per size){{.*}}: at {{.*}}dynamic.py:{{[0-9]+}}
# ERRORS-NEXT: creation UnsupportedOpsError: cannot import: 1 node(s) use 1 unsupported ATen op(s): |   aten.full.default x1 |     creates a tensor of the dynamic shape ?x2 (the dynamic size of input 0 (x) dimension 0 (Dim 'batch')): FX creation ops (fx.full) have static shapes. Make that dimension static {{.*}}: at {{.*}}dynamic.py:{{[0-9]+}}
# ERRORS-NEXT: expand UnsupportedOpsError: cannot import: 1 node(s) use 1 unsupported ATen op(s): |   aten.expand.default x1 |     expands dimension 0 to the dynamic size of input 0 (x) dimension 0 (Dim 'batch'), which fx.expand cannot write {{.*}} Let broadcasting in an elementwise op stretch it, or make that dimension static: at {{.*}}dynamic.py:{{[0-9]+}}
# ERRORS-NEXT: size ops: ['aten.sym_numel.default', 'aten.sym_size.int']
# ERRORS-NEXT: sizes as shapes imported

# torch 2: fx_mlir.import_module captures with torch.export and lowers to
# Core ATen; fx_mlir.import_program takes an ExportedProgram; capture errors.
# REQUIRES: torch2
# RUN: %python %s 2>&1 | FileCheck %s

import torch
import torch.nn as nn

import fx_mlir


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


# Parameters and buffers keep their state_dict names; batch norm in eval
# mode (_native_batch_norm_legit_no_training) is fx.batch_norm; locations
# are the user's file:line.
# CHECK-LABEL: func.func @forward(%arg0: tensor<4x3x3x3xf32> {fx.param = "conv.weight"}
# CHECK-NEXT: %arg1: tensor<4xf32> {fx.param = "conv.bias"}
# CHECK: %arg4: tensor<4xf32> {fx.param = "bn.running_mean"}
# CHECK: %arg6: tensor<1x3x8x8xf32> loc("input0")
# CHECK: fx.convolution {{.*}} loc("convolution"("{{.*}}export.py":[[# @LINE-10]]:1))
# CHECK: fx.batch_norm {{.*}} loc("_native_batch_norm_legit_no_training"("{{.*}}export.py":[[# @LINE-11]]:1))
# CHECK: fx.relu
# CHECK: params: ['bn.bias', 'bn.running_mean', 'bn.running_var', 'bn.weight', 'conv.bias', 'conv.weight']
block = Block().eval()
x = torch.randn(1, 3, 8, 8)
imported = fx_mlir.import_module(block, (x,))
print(imported.mlir)
print("params:", sorted(imported.params))

# An ExportedProgram the user already has imports the same way.
# CHECK-LABEL: func.func @forward(
# CHECK: fx.convolution
# CHECK: program: same IR True
program = torch.export.export(block, (x,))
from_program = fx_mlir.import_program(program)
print(from_program.mlir)
print("program: same IR", from_program.mlir == imported.mlir)


def report(what, fn):
    try:
        fn()
        print(what, "imported")
    except Exception as e:
        print(what, type(e).__name__ + ":", str(e).replace("\n", " | "))


# CHECK: not a program TypeError: import_program takes a torch.export.ExportedProgram, not a Block
report("not a program", lambda: fx_mlir.import_program(block))


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


# torch.export's own message, then what to do.
# CHECK: data-dependent TraceError: torch.export could not capture the model: {{.*}} | What to do: torch.export needs the whole forward as one graph{{.*}}torch.cond{{.*}}backend="fx_mlir"
report("data-dependent", lambda: fx_mlir.import_module(DataDependent().eval(), (torch.randn(3),)))


# A model that fails by itself on the inputs says so, not that export failed.
# CHECK: bad inputs TraceError: the model failed on the example inputs: RuntimeError: {{.*}}
report("bad inputs", lambda: fx_mlir.import_module(block, (torch.randn(1, 5, 8, 8),)))


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x):
        self.calls.add_(1)
        return x + self.calls


# CHECK: state UnsupportedOpsError: cannot import: {{.*}} the model writes its state (calls)
report("state", lambda: fx_mlir.import_module(Counter().eval(), (torch.randn(2),)))


class Unsupported(nn.Module):
    def forward(self, t):
        return torch.kthvalue(t, 1).values.median(0, keepdim=True).values


# Core ATen ops with no FX op yet are reported together, with source lines
# (torch.export records the frames of modules' forward methods).
# CHECK: unsupported UnsupportedOpsError: cannot import: 2 node(s) use 2 unsupported ATen op(s): |   aten.kthvalue.default x1 |     no mapping to the FX dialect: at {{.*}}export.py:[[# @LINE-5]] |   aten.median.dim x1
report("unsupported", lambda: fx_mlir.import_module(Unsupported().eval(), (torch.randn(3),)))


# A dynamic batch imports as '?' (test/Python/Export/dynamic.py has the
# rest); a dynamic inner dimension is refused, not silently specialized.
# CHECK: dynamic batch: tensor<?x3x8x8xf32> {fx_import.dim_ranges = {dim0 = array<i64: 1, 64>}}
# CHECK: dynamic width ValueError: cannot import the dynamic dimensions of the model's inputs: |   input 0 (x) dimension 3 (Dim 'width'): only the outermost (batch) dimension of an input may be dynamic {{.*}} Make dimension 3 static
batch = torch.export.Dim("batch", min=1, max=64)
dynamic = fx_mlir.import_module(block, (torch.randn(2, 3, 8, 8),), dynamic_shapes={"x": {0: batch}})
print("dynamic batch:", dynamic.mlir.split("loc(\"input0\")")[0].split("%arg6: ")[1])
report("dynamic width", lambda: fx_mlir.import_module(
    block, (torch.randn(2, 3, 8, 8),),
    dynamic_shapes={"x": {3: torch.export.Dim("width", min=4, max=64)}}))

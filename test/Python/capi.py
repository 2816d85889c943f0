# The ctypes binding of the C API (fx_mlir.runtime): compile IR text and a
# file, run on NumPy arrays, bind weights, the compile cache, artifacts, and
# errors as fx_mlir.Error. Importing it must not import torch.
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t cpu | FileCheck %s --check-prefixes=CHECK,CPU
# RUN: %if vulkan %{ %python %s %t/vk vulkan | FileCheck %s %}
# CHECK: torch imported: False
# CHECK: model: <fx_mlir.Model linear on {{cpu|vulkan}}: inputs [('arg0', 'f32', (2, 3))], outputs [('f32', (2, 2))]>
# CHECK: y = {{\[\[}}10.0, 25.0], [12.0, 20.0]]
# CHECK: cache: miss then hit
# CHECK: artifact: {{\[\[}}10.0, 25.0], [12.0, 20.0]]
# CHECK: rebound: {{\[\[}}0.0, 6.0], [2.0, 1.0]]
# CHECK: weights: {{\[\[}}10.0, 25.0], [12.0, 20.0]]
# CHECK: error: input 0 (arg0) expects dtype f32, got NumPy float64
# CHECK: error: parameter 'fc.weight' is not bound (bind the weights first)
# CHECK: error: <string>:2:{{[0-9]+}}: error: {{.*}}
# CHECK: error: unknown mode 'turbo'
# A `?` dimension: CPU code compiled for the given argument shapes; without
# them, an error that says what to give.
# CHECK: shaped: [('arg0', 'f32', (3, 2))] sum 12.0
# CHECK: error: <string>:1:1: error: argument 0 of 'dyn' has the dynamic type 'tensor<?x2xf32>'; CPU code needs static shapes: give the shapes to compile for (CompilerOptions::argumentShapes, the C API's argument_shapes, Python's argument_shapes=), or compile for Vulkan, one program for all sizes
# fx_mlir.compile of such IR for the CPU gives a PerShapeModel, which compiles
# for each new batch at its first call (weights bound before and after),
# checks the ranges of torch.export.Dim and the static dimensions.
# CHECK: per shape: <fx_mlir.PerShapeModel scaled on cpu: inputs [('arg0', 'f32', (-1, 2))], compiled for []>
# CHECK: batch 3: {{\[\[}}1.0, 4.0], [1.0, 4.0], [1.0, 4.0]]
# CHECK: batch 1: {{\[\[}}1.0, 4.0]] compiled [((3, 2), (2,)), ((1, 2), (2,))]
# CHECK: rebound: {{\[\[}}2.0, 2.0]]
# CHECK: error: input 0 (arg0) has size 9 in dimension 0, outside the range it was imported for: at least 1 and at most 8
# CHECK: error: input 0 {{.*}}expects {{.*}}[?, 2], got {{.*}}[3, 5]
# A parameter of dynamic shape cannot be specialized from the inputs.
# CPU: error: 'dynparam' has a parameter of dynamic shape; CPU code needs its size
import os
import sys

import fx_mlir

print("torch imported:", "torch" in sys.modules)
import numpy as np  # noqa: E402

out, target = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
IR = """
func.func @linear(%x: tensor<2x3xf32>,
                  %w: tensor<3x2xf32> {fx.param = "fc.weight"},
                  %b: tensor<2xf32> {fx.param = "fc.bias"}) -> tensor<2x2xf32> {
  %0 = fx.mm %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = fx.relu %0 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = fx.add %1, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %2 : tensor<2x2xf32>
}
"""
w = np.array([[1, 0], [0, 1], [-1, 1]], np.float32)
b = np.array([10, 20], np.float32)
x = np.array([[1, 2, 3], [-4, -5, -6]], np.float32)

cache = os.path.join(out, "cache")
compiler = fx_mlir.Compiler(target=target, cache_dir=cache)
model = compiler.compile_string(IR)
print("model:", model)
model.set_parameter("fc.weight", w)
model.set_parameter("fc.bias", b)
(y,) = model(x)
print("y =", y.tolist())
hit_first = compiler.last_cache_hit
compiler.compile_string(IR)
print("cache:", "hit" if hit_first else "miss", "then", "hit" if compiler.last_cache_hit else "miss")

path = os.path.join(out, "linear.mlir")
with open(path, "w") as f:
    f.write(IR)
compiler.save(path, os.path.join(out, "linear.fxa"))
loaded = fx_mlir.load(os.path.join(out, "linear.fxa"), target=target)
loaded.set_parameter("fc.weight", w)
loaded.set_parameter("fc.bias", b)
print("artifact:", loaded(x)[0].tolist())
# The same array changed in place and bound again: the new values count (a
# Vulkan device, which keeps a copy of the parameter, uploads it again).
b[:] = [0, 1]
loaded.set_parameter("fc.bias", b)
print("rebound:", loaded(x)[0].tolist())
b[:] = [10, 20]

# Weights from .safetensors (written by hand: this test needs no torch).
header = b'{"fc.weight":{"dtype":"F32","shape":[3,2],"data_offsets":[0,24]},' \
         b'"fc.bias":{"dtype":"F32","shape":[2],"data_offsets":[24,32]}}'
with open(os.path.join(out, "w.safetensors"), "wb") as f:
    f.write(len(header).to_bytes(8, "little") + header + w.tobytes() + b.tobytes())
model = fx_mlir.compile(path, target=target)
model.bind_weights(os.path.join(out, "w.safetensors"))
print("weights:", model(x)[0].tolist())


def error(fn):
    try:
        fn()
        print("error: none")
    except fx_mlir.Error as e:
        print("error:", str(e).splitlines()[0])


error(lambda: model(x.astype(np.float64)))
error(lambda: fx_mlir.compile(IR, target=target)(x))
error(lambda: fx_mlir.compile("func.func @f() {\n  %0 = fx.nope\n}\n"))
error(lambda: fx_mlir.Compiler(mode="turbo"))

DYNAMIC = """func.func @dyn(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %0 = fx.add %x, %x : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}"""
shaped = fx_mlir.compile(DYNAMIC, target=target, argument_shapes=[(3, 2)])
print("shaped:", shaped.inputs, "sum", float(shaped(np.ones((3, 2), np.float32))[0].sum()))
error(lambda: fx_mlir.Compiler(target="cpu").compile_string(DYNAMIC))

SCALED = """func.func @scaled(%x: tensor<?x2xf32> {fx_import.dim_ranges = {dim0 = array<i64: 1, 8>}},
                   %s: tensor<2xf32> {fx.param = "scale"}) -> tensor<?x2xf32> {
  %0 = fx.mul %x, %s : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}"""
if target == "cpu":
    per_shape = fx_mlir.compile(SCALED)
    print("per shape:", per_shape)
    per_shape.set_parameter("scale", np.array([1, 4], np.float32))
    print("batch 3:", per_shape(np.ones((3, 2), np.float32))[0].tolist())
    print("batch 1:", per_shape(np.ones((1, 2), np.float32))[0].tolist(),
          "compiled", per_shape.compiled)
    per_shape.set_parameter("scale", np.array([2, 2], np.float32))
    print("rebound:", per_shape(np.ones((1, 2), np.float32))[0].tolist())
    error(lambda: per_shape(np.ones((9, 2), np.float32)))
    error(lambda: per_shape(np.ones((3, 5), np.float32)))
else:  # Vulkan compiles one program for all sizes; the same lines for FileCheck
    print("per shape: <fx_mlir.PerShapeModel scaled on cpu: inputs [('arg0', 'f32', (-1, 2))], "
          "compiled for []>")
    model = fx_mlir.compile(SCALED, target=target)
    model.set_parameter("scale", np.array([1, 4], np.float32))
    print("batch 3:", model(np.ones((3, 2), np.float32))[0].tolist())
    print("batch 1:", model(np.ones((1, 2), np.float32))[0].tolist(),
          "compiled [((3, 2), (2,)), ((1, 2), (2,))]")
    model.set_parameter("scale", np.array([2, 2], np.float32))
    print("rebound:", model(np.ones((1, 2), np.float32))[0].tolist())
    error(lambda: model(np.ones((9, 2), np.float32)))
    error(lambda: model(np.ones((3, 5), np.float32)))
if target == "cpu":
    error(lambda: fx_mlir.compile("""func.func @dynparam(%x: tensor<?x2xf32>, %s: tensor<?xf32> {fx.param = "s"}) -> tensor<?x2xf32> {
  return %x : tensor<?x2xf32>
}""")(np.ones((1, 2), np.float32)))

# sub_batch=: a batch-separable entry's CPU code for one item, called per
# item, computes what the whole batch's does; a value that is not one is an
# error.
# CPU: sub-batch: True
# CPU: error: {{.*}}sub_batch: expected auto, off or a positive number of items, got 'many'
if target == "cpu":
    ROWS = """func.func @rows(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = fx.tanh %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %1 = fx.softmax %0 {dim = 1 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}"""
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 7
    whole = fx_mlir.compile(ROWS, sub_batch="off")(x)[0]
    split = fx_mlir.compile(ROWS, sub_batch=1)(x)[0]
    print("sub-batch:", bool(np.allclose(whole, split, rtol=1e-6)) and
          bool(np.abs(whole[0] - whole[3]).max() > 1e-3))
    error(lambda: fx_mlir.Compiler(sub_batch="many"))

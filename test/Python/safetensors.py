# The importer's .safetensors writer: every FX dtype round-trips through the
# reader, and fx-run binds the written tensors by name.
# REQUIRES: torch
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t | FileCheck %s
# RUN: fx-run %t/add.mlir --weights %t/w.safetensors --input %t/x.npy --expect %t/expect.npy
# CHECK: f32 ok
# CHECK-NEXT: f16 ok
# CHECK-NEXT: bf16 ok
# CHECK-NEXT: i64 ok
# CHECK-NEXT: i32 ok
# CHECK-NEXT: bool ok
# CHECK-NEXT: header 8-byte aligned

import json
import os
import struct
import sys

import numpy as np
import torch

from fx_mlir import safetensors
from fx_mlir._emitter import tensor_to_numpy

out = sys.argv[1]
gen = torch.Generator().manual_seed(0)
tensors = {
    "f32": torch.randn(3, 5, generator=gen),
    "f16": torch.randn(7, generator=gen).half(),
    "bf16": torch.randn(2, 2, 2, generator=gen).bfloat16(),
    "i64": torch.tensor([-(2**40), 3, 2**62]),
    "i32": torch.arange(6, dtype=torch.int32).reshape(2, 3),
    "bool": torch.tensor([True, False, True]),
}
path = os.path.join(out, "w.safetensors")
safetensors.save(tensors, path, metadata={"format": "pt"})
loaded = safetensors.load(path)
for name, tensor in tensors.items():
    same = np.array_equal(loaded[name], tensor_to_numpy(tensor))
    print(name, "ok" if same and loaded[name].shape == tuple(tensor.shape) else "MISMATCH")
with open(path, "rb") as f:
    (size,) = struct.unpack("<Q", f.read(8))
    header = json.loads(f.read(size))
print("header 8-byte aligned" if size % 8 == 0 and header["__metadata__"] == {"format": "pt"}
      else "BAD HEADER")

# fx-run binds by name: out = x + f32.
with open(os.path.join(out, "add.mlir"), "w") as f:
    f.write('func.func @f(%w: tensor<3x5xf32> {fx.param = "f32"}, %x: tensor<3x5xf32>) '
            '-> tensor<3x5xf32> {\n'
            '  %0 = fx.add %x, %w : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>\n'
            '  return %0 : tensor<3x5xf32>\n}\n')
x = np.ones((3, 5), np.float32)
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "expect.npy"), x + tensors["f32"].numpy())

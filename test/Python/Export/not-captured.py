# The Core ATen overloads docs/CoreATen.md lists as "never in a captured
# graph" (python/fx_mlir/_aten.py NOT_CAPTURED): graphs whose source uses
# them import without UnsupportedOpsError (the importer has no handler for
# them, so an import that met one would fail), compile and match eager, on
# both torches (torch.export on 2.x, make_fx on 1.13), and through the
# Dynamo backend with its fallback off (an unsupported op is then an error,
# not an eager partition).
# REQUIRES: torch
# RUN: %python %s | FileCheck %s
# CHECK: out= atan2: imported, fx.atan2, ok
# CHECK: stride and storage_offset: imported, ok
# CHECK: stride and storage_offset, dynamic batch: {{imported, ok|skipped \(torch 1.13\)}}
# CHECK: dynamo out= atan2: {{ok|skipped \(torch 1.13\)}}
# CHECK: dynamo stride and storage_offset: {{ok|skipped \(torch 1.13\)}}

import warnings

import torch

import fx_mlir
from fx_mlir.testing import compare

TORCH2 = hasattr(torch, "export")


class OutAtan2(torch.nn.Module):
    def forward(self, a, b):
        c = torch.empty_like(a)
        torch.atan2(a, b, out=c)
        return c * 2


class Strides(torch.nn.Module):
    def forward(self, x):
        # x.stride(0) is x.size(1); the slice's storage offset is 2.
        return x * x.stride(0) + x[:, 2:].storage_offset()


def run_imported(imported, inputs):
    return fx_mlir.compile(imported.mlir, target="cpu")(*[t.numpy() for t in inputs])


torch.manual_seed(0)
a, b = torch.randn(5, 7), torch.randn(5, 7)
imported = fx_mlir.import_module(OutAtan2().eval(), (a, b))
ok = compare(run_imported(imported, (a, b)), OutAtan2()(a, b).numpy()).ok
print(f"out= atan2: imported, {'fx.atan2' if 'fx.atan2' in imported.mlir else 'no fx.atan2'}, "
      f"{'ok' if ok else 'WRONG'}")

x = torch.randn(6, 8)
imported = fx_mlir.import_module(Strides().eval(), (x,))
ok = compare(run_imported(imported, (x,)), Strides()(x).numpy()).ok
print(f"stride and storage_offset: imported, {'ok' if ok else 'WRONG'}")

if TORCH2:
    batch = torch.export.Dim("batch", min=1, max=64)
    imported = fx_mlir.import_module(Strides().eval(), (x,), dynamic_shapes={"x": {0: batch}})
    ok = compare(run_imported(imported, (x,)), Strides()(x).numpy()).ok
    print(f"stride and storage_offset, dynamic batch: imported, {'ok' if ok else 'WRONG'}")
else:
    print("stride and storage_offset, dynamic batch: skipped (torch 1.13)")

for name, module, inputs in (("out= atan2", OutAtan2(), (a, b)),
                             ("stride and storage_offset", Strides(), (x,))):
    if not TORCH2:
        print(f"dynamo {name}: skipped (torch 1.13)")
        continue
    torch._dynamo.reset()
    compiled = torch.compile(module.eval(), backend="fx_mlir", dynamic=True,
                             options={"fallback": False})
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error")
        got = compiled(*inputs)
    ok = compare(got.numpy(), module(*inputs).numpy()).ok
    print(f"dynamo {name}: {'ok' if ok else 'WRONG'}")

"""fx_mlir: the PyTorch -> FX dialect importer, and the compiler and runtime
through the C API (ctypes).

    import fx_mlir
    imported = fx_mlir.import_module(model.eval(), (torch.randn(1, 3, 224, 224),))
    imported.save("model.mlir", "model.safetensors")
    print(imported.mlir)

The model is captured at the ATen level with make_fx (functionalized, so
in-place ops become functional), every ATen op is mapped to the FX dialect,
and parameters/buffers become function arguments tagged with their qualified
names ({fx.param = "layer1.0.conv1.weight"}) whose values go to a
.safetensors file, or constants in the IR with frozen=True.

Compiling and running (fx_mlir.runtime: ctypes over libfx.so / libfxrt.so;
needs NumPy only, not torch):

    model = fx_mlir.compile("model.mlir", target="cpu", cache_dir="/tmp/fx")
    model.bind_weights("model.safetensors")
    (y,) = model(x)                         # NumPy arrays in and out
    model = fx_mlir.load("model.fxa")       # an artifact from fx-compile
"""

import sys as _sys

from .runtime import Compiler, Error, Model, PerShapeModel, compile, load  # noqa: F401

__all__ = ["import_module", "import_program", "ImportedModule", "TraceError", "UnsupportedOpsError",
           "Compiler", "Error", "Model", "PerShapeModel", "compile", "load", "explain"]

_IMPORTER_NAMES = {"import_module", "import_program", "ImportedModule", "TraceError", "UnsupportedOpsError",
                   "Importer", "safetensors"}


def __getattr__(name):
    # The importer needs torch; it loads on first use, so that the runtime
    # binding works in any Python 3 with NumPy.
    if name in _IMPORTER_NAMES:
        from . import _api
        return getattr(_api, name)
    if name == "explain":  # torch.compile(backend="fx_mlir")'s report
        from .dynamo import explain
        return explain
    raise AttributeError("module 'fx_mlir' has no attribute " + repr(name))


# torch.compile(model, backend="fx_mlir") works through the package's entry
# point once it is installed; importing fx_mlir registers the backend too,
# where PyTorch 2 is already imported (the runtime binding stays free of
# torch otherwise).
if "torch" in _sys.modules and hasattr(_sys.modules["torch"], "compile"):
    from . import dynamo as _dynamo
    _dynamo.register()

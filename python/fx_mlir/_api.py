"""The importer's public API, re-exported by fx_mlir (see its docstring)."""


import torch

from ._importer import Importer, TraceError, UnsupportedOpsError  # noqa: F401
from . import safetensors


class ImportedModule:
    """The result of import_module: `.mlir` text and the parameters it names."""

    def __init__(self, mlir, params, func_name):
        self.mlir = mlir
        self.params = params          # {qualified name: tensor}, empty when frozen
        self.func_name = func_name

    def save(self, mlir_path, weights_path=None):
        """Writes the IR and (unless frozen) the parameters as .safetensors."""
        with open(mlir_path, "w") as f:
            f.write(self.mlir)
        if weights_path is not None:
            safetensors.save(self.params, weights_path)
        elif self.params:
            raise ValueError("the module has parameters: pass weights_path, or import it "
                             "with frozen=True")

    def __str__(self):
        return self.mlir


def _parameters(module):
    if not isinstance(module, torch.nn.Module):
        return []
    seen = {}
    for name, tensor in list(module.named_parameters()) + list(module.named_buffers()):
        if tensor is not None and name not in seen:
            seen[name] = tensor.detach()
    return list(seen.items())


def import_module(module, example_inputs, frozen=False, func_name="forward"):
    """Imports an nn.Module (or a function of tensors) into the FX dialect.

    `example_inputs` is a tuple of tensors (a single tensor is accepted); their
    shapes and dtypes become the function's signature. Raises
    UnsupportedOpsError listing every unsupported op if the graph cannot be
    expressed.
    """
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    if isinstance(module, torch.nn.Module) and module.training:
        raise ValueError("the module is in training mode; call .eval() before importing "
                         "(fx-mlir compiles inference graphs)")
    params = _parameters(module)
    builder = Importer(module, example_inputs, params, frozen, func_name).run()
    tensors = dict(params)
    kept = {name: tensors[name] for name in builder.param_names}
    return ImportedModule("module {\n" + builder.text() + "}\n", kept, func_name)

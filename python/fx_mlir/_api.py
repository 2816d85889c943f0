"""The importer's public API, re-exported by fx_mlir (see its docstring)."""


import torch

from ._importer import (DynamicDim, Importer, Input, Param, TraceError,  # noqa: F401
                        UnsupportedOpsError, capture, export, exported_graph)
from . import safetensors

# torch.export arrived in torch 2.1; torch 1.x imports through make_fx.
HAS_EXPORT = hasattr(torch, "export") and hasattr(torch.export, "ExportedProgram")


class ImportedModule:
    """The result of import_module: `.mlir` text and the parameters it names."""

    def __init__(self, mlir, params, func_name, dynamic_dims=()):
        self.mlir = mlir
        self.params = params          # {qualified name: tensor}, empty when frozen
        self.func_name = func_name
        # The inputs' dynamic dimensions (`?` in the IR), each a DynamicDim:
        # .input (its index), .dim, .name (the torch.export.Dim's), .min,
        # .max (2^63-1: unbounded).
        self.dynamic_dims = list(dynamic_dims)

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


def import_module(module, example_inputs, dynamic_shapes=None, frozen=False,
                  func_name="forward"):
    """Imports an nn.Module (or a function of tensors) into the FX dialect.

    `example_inputs` is a tuple of tensors (a single tensor is accepted); their
    shapes and dtypes become the function's signature. On torch 2 the model is
    captured with torch.export (`dynamic_shapes` as torch.export takes it) and
    lowered to Core ATen; on torch 1.x with make_fx. A dynamic outermost
    dimension (a torch.export.Dim) is written as `?`, its range as the
    argument's `fx_import.dim_ranges` (see `ImportedModule.dynamic_dims`);
    other dynamic dimensions raise ValueError. Raises TraceError if the
    model cannot be captured and UnsupportedOpsError listing every unsupported
    op if the graph cannot be expressed.
    """
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    if isinstance(module, torch.nn.Module) and module.training:
        raise ValueError("the module is in training mode; call .eval() before importing "
                         "(fx-mlir compiles inference graphs)")
    if not HAS_EXPORT:
        if dynamic_shapes is not None:
            raise ValueError(f"dynamic_shapes needs torch.export (torch 2.1 or newer); this "
                             f"is torch {torch.__version__}")
        graph, placeholders = capture(module, example_inputs, _parameters(module))
        return _import(graph, placeholders, frozen, func_name, exported=False)
    return import_program(export(module, example_inputs, dynamic_shapes), frozen, func_name)


def import_program(program, frozen=False, func_name="forward"):
    """Imports a torch.export ExportedProgram into the FX dialect (torch 2).

    The program is lowered to Core ATen first (run_decompositions). Its
    parameters and buffers keep their state_dict names.
    """
    if not HAS_EXPORT or not isinstance(program, torch.export.ExportedProgram):
        raise TypeError(f"import_program takes a torch.export.ExportedProgram, not a "
                        f"{type(program).__name__}")
    graph, placeholders = exported_graph(program)
    return _import(graph, placeholders, frozen, func_name, exported=True)


def _import(graph, placeholders, frozen, func_name, exported):
    builder = Importer(graph, placeholders, frozen, func_name, exported).run()
    tensors = {p.name: p.tensor for p in placeholders if isinstance(p, Param)}
    kept = {name: tensors[name] for name in builder.param_names}
    dynamic = [d for p in placeholders if isinstance(p, Input)
               for _, d in sorted(p.dynamic.items())]
    return ImportedModule("module {\n" + builder.text() + "}\n", kept, func_name, dynamic)

"""Command line: python3 -m fx_mlir.import MODEL --input-shape 1,3,224,224 -o out.mlir

MODEL is `torchvision:NAME` (random weights unless --pretrained) or
`path/to/file.py:factory`, where factory() returns an nn.Module (or a
function) and may return (module, example_inputs) to set the inputs itself.
"""

import argparse
import importlib.util
import os
import sys
import time

import torch


def _load_model(spec, pretrained):
    kind, sep, name = spec.partition(":")
    if not sep or not name:
        raise SystemExit(f"error: MODEL must be torchvision:NAME or FILE.py:FACTORY, got '{spec}'")
    if kind == "torchvision":
        from .torchvision_models import models as torchvision_models
        models = torchvision_models()
        factory = getattr(models, name, None)
        if factory is None or name.startswith("_") or not callable(factory):
            raise SystemExit(f"error: torchvision has no model named '{name}'")
        return factory(weights="DEFAULT" if pretrained else None)
    path = kind
    if not os.path.isfile(path):
        raise SystemExit(f"error: no such file: {path}")
    module_spec = importlib.util.spec_from_file_location("fx_mlir_user_model", path)
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    module_spec.loader.exec_module(module)
    factory = getattr(module, name, None)
    if factory is None:
        raise SystemExit(f"error: {path} defines no '{name}'")
    return factory()


def imported_needs_weights(made):
    return isinstance(made, torch.nn.Module) and any(
        True for _ in list(made.parameters()) + list(made.buffers()))


def _shape(text):
    try:
        dims = tuple(int(d) for d in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of sizes")
    if any(d < 0 for d in dims):
        raise argparse.ArgumentTypeError(f"'{text}' has a negative size")
    return dims


_DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
           "i64": torch.int64, "i32": torch.int32}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m fx_mlir.import",
        description="Import a PyTorch model into the FX dialect (.mlir) and its parameters "
                    "(.safetensors).")
    parser.add_argument("model", help="torchvision:NAME or path/to/file.py:factory")
    parser.add_argument("--input-shape", type=_shape, action="append", default=[],
                        metavar="N,C,H,W", help="shape of the next input (repeat per input)")
    parser.add_argument("--input-dtype", choices=sorted(_DTYPES), action="append", default=[],
                        help="dtype of the next input (default f32)")
    parser.add_argument("-o", "--output", required=True, help="the .mlir file to write")
    parser.add_argument("--weights", help="the .safetensors file for the parameters")
    parser.add_argument("--frozen", action="store_true",
                        help="embed parameters as constants instead of arguments")
    parser.add_argument("--pretrained", action="store_true",
                        help="torchvision: load the default pretrained weights")
    parser.add_argument("--seed", type=int, default=0, help="seed for random weights (0)")
    args = parser.parse_args(argv)

    import fx_mlir
    torch.manual_seed(args.seed)
    start = time.time()
    made = _load_model(args.model, args.pretrained)
    inputs = None
    if isinstance(made, tuple):
        made, inputs = made
    if inputs is None:
        if not args.input_shape:
            parser.error("--input-shape is required unless the factory returns example inputs")
        dtypes = args.input_dtype + ["f32"] * (len(args.input_shape) - len(args.input_dtype))
        inputs = tuple(torch.randn(s).to(_DTYPES[d]) if d.startswith(("f", "b"))
                       else torch.zeros(s, dtype=_DTYPES[d])
                       for s, d in zip(args.input_shape, dtypes))
    if isinstance(made, torch.nn.Module):
        made = made.eval()
    elif not callable(made):
        print(f"error: {args.model} returned a {type(made).__name__}, not an nn.Module or "
              "function", file=sys.stderr)
        return 1
    if imported_needs_weights(made) and not args.weights and not args.frozen:
        parser.error("the model has parameters: give --weights FILE.safetensors or --frozen")
    try:
        imported = fx_mlir.import_module(made, inputs, frozen=args.frozen)
    except fx_mlir.UnsupportedOpsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except fx_mlir.TraceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    imported.save(args.output, args.weights if imported.params else None)
    ops = imported.mlir.count(" = fx.")
    print(f"imported {args.model}: {ops} ops, {len(imported.params)} parameters "
          f"in {time.time() - start:.2f} s -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

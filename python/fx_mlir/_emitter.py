"""Textual MLIR builder for one FX-dialect function.

The importer writes MLIR as text rather than through MLIR's Python bindings:
Debian ships no bindings for MLIR 22, and the FX dialect's custom assembly is
the stable interface anyway (fx-opt parses and verifies everything we write).
"""

import math
import os

import numpy as np
import torch

# torch dtype -> MLIR element type, for the dtypes the FX dialect supports.
DTYPES = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.bool: "i1",
}

# The argument attribute that records the sizes a dynamic dimension of an
# input may take, from torch.export.Dim(min=, max=): {dimN = array<i64: MIN,
# MAX>}, MAX 2^63-1 when unbounded. Outside the `fx` namespace, whose
# argument attributes the dialect verifies (fx.param): MLIR keeps it, the
# compiler ignores it, and fx_mlir.runtime checks call-time shapes against it.
DIM_RANGES_ATTR = "fx_import.dim_ranges"
UNBOUNDED = 2 ** 63 - 1

# Element type -> safetensors dtype name.
SAFETENSORS_DTYPES = {"f32": "F32", "f16": "F16", "bf16": "BF16", "i64": "I64", "i32": "I32", "i1": "BOOL"}


class Unsupported(Exception):
    """An ATen node the importer cannot express in the FX dialect."""


def element_type(dtype):
    try:
        return DTYPES[dtype]
    except KeyError:
        raise Unsupported(f"dtype {dtype} is not supported by the FX dialect "
                          "(f32, f16, bf16, i64, i32, bool)") from None


class SymDim:
    """A dimension of symbolic size (a torch.export.Dim, or an expression of
    one, such as the 256 * batch of a flattened batch): `?` in types.

    `expr` is torch's sympy expression; `origin` says where its symbols come
    from (the input and dimension), for messages. The FX dialect has no
    values for sizes, only `?` dimensions and a view's -1, so a SymDim used
    as a number (an attribute, arithmetic, a comparison) raises Unsupported
    naming the dimension and what to do.
    """

    __slots__ = ("expr", "origin")

    def __init__(self, expr, origin=None):
        self.expr = expr
        self.origin = origin

    def __eq__(self, other):
        return isinstance(other, SymDim) and self.expr == other.expr

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(("SymDim", str(self.expr)))

    def __repr__(self):
        return str(self.expr)

    def describe(self):
        """'the dynamic size of input 0 (x) dimension 0 (Dim 'batch')', or
        'the dynamic size 4*s77 (s77: input 0 ...)'."""
        if getattr(self.expr, "is_Symbol", False) and self.origin:
            return f"the dynamic size of {self.origin}"
        return f"the dynamic size {self.expr}" + (f" ({self.origin})" if self.origin else "")

    def number_error(self):
        return (f"needs {self.describe()} as a number, which the FX dialect cannot hold (it "
                "has '?' dimensions and a view's -1, no size values). Make that dimension "
                "static (leave it out of dynamic_shapes: one import per size), or write the "
                "model so that this size is only broadcast, viewed with -1 or kept in place")

    def _refuse(self, *args):
        raise Unsupported(self.number_error())

    __int__ = __index__ = __float__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __floordiv__ = __rfloordiv__ = __truediv__ = __rtruediv__ = __mod__ = __rmod__ = _refuse
    __neg__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse


def is_dynamic(shape):
    return any(isinstance(d, SymDim) for d in shape)


def shape_text(shape):
    """A shape as MLIR writes it: 4x?x8."""
    return "x".join("?" if isinstance(d, SymDim) else str(d) for d in shape)


def tensor_type(shape, etype):
    dims = "".join(("?" if isinstance(d, SymDim) else str(d)) + "x" for d in shape)
    return f"tensor<{dims}{etype}>"


def float_attr(value):
    """An f64 attribute that round-trips exactly (MLIR needs a '.' in decimals)."""
    value = float(value)
    if math.isfinite(value):
        text = repr(value)
        if "." not in text:
            mantissa, _, exponent = text.partition("e")
            text = mantissa + ".0" + ("e" + exponent if exponent else "")
        return f"{text} : f64"
    bits = np.array([value], dtype=np.float64).view(np.uint64)[0]
    return f"0x{int(bits):016X} : f64"


def int_attr(value):
    return f"{int(value)} : i64"


def array_attr(values):
    values = [int(v) for v in values]
    return "array<i64" + (": " + ", ".join(map(str, values)) if values else "") + ">"


def quote(text):
    out = []
    for ch in str(text):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable() and ord(ch) < 128:
            out.append(ch)
        else:
            out.extend(f"\\{b:02X}" for b in ch.encode())
    return '"' + "".join(out) + '"'


class Value:
    """An SSA value with a shape (ints, and SymDims for dynamic
    dimensions) and an element type."""

    __slots__ = ("name", "shape", "etype")

    def __init__(self, name, shape, etype):
        self.name = name
        self.shape = tuple(d if isinstance(d, SymDim) else int(d) for d in shape)
        self.etype = etype

    @property
    def type(self):
        return tensor_type(self.shape, self.etype)

    @property
    def rank(self):
        return len(self.shape)

    def __repr__(self):
        return f"{self.name}: {self.type}"


def dense_literal(array, etype):
    """The body of a dense<...> attribute for a NumPy array."""
    flat = array.reshape(-1)
    if flat.size and (flat == flat[0]).all() and etype != "i1":
        return _scalar_literal(flat[0], etype)
    if etype == "i1":
        return _nested(array.tolist(), lambda v: "true" if v else "false")
    if array.size > 16:
        # Raw little-endian bytes: compact and exact for large weights.
        return '"0x' + np.ascontiguousarray(array).tobytes().hex().upper() + '"'
    return _nested(array.tolist(), lambda v: _scalar_literal(v, etype))


def _scalar_literal(v, etype):
    if etype in ("i64", "i32"):
        return str(int(v))
    if etype == "i1":
        return "true" if v else "false"
    v = float(v)
    if math.isfinite(v):
        return float_attr(v).split(" : ")[0]
    return {"f32": {math.inf: "0x7F800000", -math.inf: "0xFF800000"},
            "f16": {math.inf: "0x7C00", -math.inf: "0xFC00"},
            "bf16": {math.inf: "0x7F80", -math.inf: "0xFF80"}}[etype].get(
                v, {"f32": "0x7FC00000", "f16": "0x7E00", "bf16": "0x7FC0"}[etype])


def _nested(values, fmt):
    if isinstance(values, list):
        return "[" + ", ".join(_nested(v, fmt) for v in values) + "]"
    return fmt(values)


def tensor_to_numpy(t):
    """A torch tensor as a NumPy array holding the same bytes (bf16 as uint16)."""
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


class Location:
    """An MLIR location: the FX node name, nested around the user's frame."""

    def __init__(self, name, file=None, line=None):
        self.name = name
        self.file = file
        self.line = line

    def __str__(self):
        if self.file is None:
            return f"loc({quote(self.name)})"
        return f"loc({quote(self.name)}({quote(self.file)}:{self.line}:1))"


class FunctionBuilder:
    """Accumulates the body of one func.func."""

    def __init__(self, name):
        self.name = name
        self.args = []      # (Value, attr-dict text or None, Location)
        self.param_names = []  # qualified names of the fx.param arguments
        self.lines = []
        self.results = []
        self._next = 0
        self.loc = Location(name)

    def fresh(self):
        name = f"%{self._next}"
        self._next += 1
        return name

    def add_argument(self, shape, etype, param=None, loc=None, dim_ranges=None):
        """A function argument; `param` tags it as a model parameter,
        `dim_ranges` ({dim: (min, max)}) records the sizes its dynamic
        dimensions may take (DIM_RANGES_ATTR)."""
        value = Value(f"%arg{len(self.args)}", shape, etype)
        attrs = None
        if param is not None:
            attrs = f"{{fx.param = {quote(param)}}}"
            self.param_names.append(param)
        elif dim_ranges:
            ranges = ", ".join(f"dim{d} = array<i64: {lo}, {hi}>"
                               for d, (lo, hi) in sorted(dim_ranges.items()))
            attrs = f"{{{DIM_RANGES_ATTR} = {{{ranges}}}}}"
        self.args.append((value, attrs, loc))
        return value

    def op(self, name, operands, result_types, attrs=None, keywords=(), loc=None):
        """Emits `fx.NAME operands keyword(%v)... {attrs} : (types) -> results`.

        `result_types` is a list of (shape, etype); `keywords` a list of
        (word, Value) optional-operand groups such as ("weight", w).
        Returns the result Values.
        """
        loc = loc or self.loc
        results = [Value(None, s, e) for s, e in result_types]
        if not operands and not keywords:
            for r in results:
                dynamic = [d for d in r.shape if isinstance(d, SymDim)]
                if dynamic:
                    raise Unsupported(
                        f"creates a tensor of the dynamic shape {shape_text(r.shape)} "
                        f"({dynamic[0].describe()}): FX creation ops (fx.{name}) have static "
                        "shapes. Make that dimension static (leave it out of dynamic_shapes), "
                        "or create the tensor at size 1 there and let broadcasting against "
                        "an input stretch it")
        base = self.fresh()
        if len(results) == 1:
            results[0].name = base
            lhs = base
        else:
            lhs = f"{base}:{len(results)}"
            for i, r in enumerate(results):
                r.name = f"{base}#{i}"
        text = f"{lhs} = fx.{name}"
        if operands:
            text += " " + ", ".join(v.name for v in operands)
        for word, value in keywords:
            text += f" {word}({value.name})"
        items = [f"{k} = {v}" for k, v in (attrs or {}).items() if v is not None]
        if items:
            text += " {" + ", ".join(items) + "}"
        types = [v.type for v in operands] + [v.type for _, v in keywords]
        if not types and len(results) == 1:
            # Creation ops print only their result type.
            self.lines.append(f"{text} : {results[0].type} {loc}")
            return results
        text += " : (" + ", ".join(types) + ") -> "
        if len(results) == 1:
            text += results[0].type
        else:
            text += "(" + ", ".join(r.type for r in results) + ")"
        self.lines.append(f"{text} {loc}")
        return results

    def constant(self, array, etype, loc=None):
        """An fx.constant holding a NumPy array (bf16 passed as uint16 bits)."""
        name = self.fresh()
        self.lines.append(f"{name} = fx.constant dense<{dense_literal(array, etype)}> : "
                          f"{tensor_type(array.shape, etype)} {loc or self.loc}")
        return Value(name, array.shape, etype)

    def scalar(self, value, etype, loc=None):
        """A rank-0 fx.constant."""
        name = self.fresh()
        self.lines.append(f"{name} = fx.constant dense<{_scalar_literal(value, etype)}> : "
                          f"tensor<{etype}> {loc or self.loc}")
        return Value(name, (), etype)

    def text(self):
        args = []
        for value, attrs, loc in self.args:
            text = f"{value.name}: {value.type}"
            if attrs:
                text += " " + attrs
            if loc is not None:
                text += f" {loc}"
            args.append(text)
        results = ", ".join(v.type for v in self.results)
        if len(self.results) != 1:
            results = f"({results})"
        out = [f"func.func @{self.name}(" + (",\n    ".join(args)) + f") -> {results} {{"]
        out += ["  " + line for line in self.lines]
        out.append("  return " + ", ".join(v.name for v in self.results) +
                   (" : " + ", ".join(v.type for v in self.results) if self.results else "") +
                   f" {self.loc}")
        out.append(f"}} {self.loc}")
        return "\n".join(out) + "\n"


def relative_source(path):
    """Shortens paths inside site-packages to the package-relative form."""
    for marker in ("dist-packages" + os.sep, "site-packages" + os.sep):
        if marker in path:
            return path.split(marker, 1)[1]
    return path

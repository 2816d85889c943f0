"""Captures a PyTorch module with make_fx and writes it in the FX dialect."""

import collections
import contextlib
import operator
import os

import torch
import torch.fx
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils._pytree import tree_flatten

from . import _aten
from ._decompositions import decomposition_table
from ._emitter import (UNBOUNDED, FunctionBuilder, Location, SymDim, Unsupported, Value,
                       element_type, relative_source, tensor_to_numpy)

try:
    from functorch import functionalize
except ImportError:  # pragma: no cover - torch builds without functorch
    functionalize = None

try:
    from torch.func import functional_call
except ImportError:
    from torch.nn.utils.stateless import functional_call

aten = torch.ops.aten
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
try:
    import functorch
    _FUNCTORCH_DIR = os.path.dirname(os.path.abspath(functorch.__file__)) + os.sep
except ImportError:
    _FUNCTORCH_DIR = _TORCH_DIR


class UnsupportedOpsError(Exception):
    """Raised when a graph uses ATen ops the FX dialect cannot express.

    `ops` maps each op name to its list of (reason, source location) pairs,
    covering every unsupported node in the graph, not just the first.
    """

    def __init__(self, ops):
        self.ops = ops
        lines = [f"cannot import: {sum(len(v) for v in ops.values())} node(s) use "
                 f"{len(ops)} unsupported ATen op(s):"]
        for name, uses in sorted(ops.items()):
            lines.append(f"  {name} x{len(uses)}")
            reasons = collections.OrderedDict()
            for reason, where in uses:
                reasons.setdefault(reason, []).append(where)
            for reason, wheres in reasons.items():
                shown = [f"{w[0]}:{w[1]}" if isinstance(w, tuple) else w
                         for w in sorted(set(wheres), key=_source_order)]
                more = f" (+{len(shown) - 5} more)" if len(shown) > 5 else ""
                lines.append(f"    {reason}: at {', '.join(shown[:5])}{more}")
        super().__init__("\n".join(lines))


def _source_order(where):
    return (where[0], where[1]) if isinstance(where, tuple) else (where, 0)


class TraceError(Exception):
    """Raised when the model itself fails while being traced."""


@contextlib.contextmanager
def _recording_stack_traces():
    tracer = torch.fx.proxy.TracerBase
    saved = tracer.record_stack_traces
    tracer.record_stack_traces = True
    try:
        yield
    finally:
        tracer.record_stack_traces = saved


def user_frame(stack_trace, outermost_first):
    """(file, line) of the innermost frame outside torch and this package.
    torch.export's stack traces list the outermost frame first (and hold
    only modules' forward methods); torch 1.x's make_fx lists the innermost
    first."""
    if not stack_trace:
        return None
    lines = stack_trace.splitlines()
    for text in (reversed(lines) if outermost_first else lines):
        text = text.strip()
        if not text.startswith('File "'):
            continue
        path, _, rest = text[6:].partition('", line ')
        if path.startswith("<") or os.path.abspath(path).startswith((_TORCH_DIR, _FUNCTORCH_DIR, _PACKAGE_DIR)):
            continue
        line = rest.split(",", 1)[0]
        if line.isdigit():
            return relative_source(path), int(line)
    return None


def capture(fn, example_inputs, params):
    """make_fx over fn(params..., inputs...), functionalized, decomposed: the
    torch 1.x capture. Returns (graph, placeholders)."""
    names = [name for name, _ in params]

    def flat(*args):
        values, inputs = args[:len(names)], args[len(names):]
        if isinstance(fn, torch.nn.Module):
            return functional_call(fn, dict(zip(names, values)), tuple(inputs))
        return fn(*inputs)

    traced = functionalize(flat) if functionalize is not None else flat
    try:
        with _recording_stack_traces(), torch.no_grad():
            gm = make_fx(traced, decomposition_table=decomposition_table())(
                *[t for _, t in params], *example_inputs)
    except Exception as e:  # the user's model raised on the example inputs
        raise _model_failed(e) from e
    placeholders = [Param(name, tensor) for name, tensor in params]
    placeholders += [Input(i, t) for i, t in enumerate(example_inputs)]
    return gm.graph, placeholders


def _model_failed(error):
    return TraceError(f"the model failed on the example inputs: "
                      f"{type(error).__name__}: {error}")


_SYM_TYPES = tuple(getattr(torch, name) for name in ("SymInt", "SymFloat", "SymBool")
                   if hasattr(torch, name))

_KEPT_WHOLE = [getattr(aten, name).default for name in ("scaled_dot_product_attention", "linear")
               if hasattr(aten, name)]


class _Function(torch.nn.Module):
    """A function of tensors as a module, for torch.export."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *inputs):
        return self.fn(*inputs)


def export(fn, example_inputs, dynamic_shapes=None):
    """torch.export.export of a module or function of tensors: the torch 2
    capture. Returns the ExportedProgram, not yet decomposed."""
    module = fn if isinstance(fn, torch.nn.Module) else _Function(fn)
    try:
        with torch.no_grad():
            return torch.export.export(module, tuple(example_inputs),
                                       dynamic_shapes=dynamic_shapes)
    except Exception as e:
        export_error = e
    # Tell a model that fails by itself from one torch.export cannot capture.
    try:
        with torch.no_grad():
            module(*example_inputs)
    except Exception as e:
        raise _model_failed(e) from e
    raise TraceError(
        f"torch.export could not capture the model: {type(export_error).__name__}: "
        f"{export_error}\n"
        "What to do: torch.export needs the whole forward as one graph, so Python control "
        "flow may not depend on tensor values; torch._dynamo.explain(model)(*inputs) lists "
        "where the graph breaks. Rewrite such branches with torch.cond or tensor ops, pass "
        "dynamic_shapes that match how the model uses its input sizes, or give "
        "torch.compile(model, backend=\"fx_mlir\") the model, which compiles each graph "
        "and runs the rest eagerly.") from export_error


def exported_graph(program):
    """The Core ATen graph of an ExportedProgram, and its placeholders.
    Runs the Core ATen decompositions, plus this package's for ops the FX
    dialect lacks."""
    from torch.export.graph_signature import InputKind, OutputKind
    table = torch.export.default_decompositions()
    for op, fn in decomposition_table().items():
        table[op] = fn
    # Ops the FX dialect has as one op, kept whole rather than decomposed
    # (attention becomes one fused kernel; linear keeps its batch dimensions).
    for op in _KEPT_WHOLE:
        table.pop(op, None)
    dynamic_before = _dynamic_input_dims(program)
    with _recording_stack_traces():
        program = program.run_decompositions(table)
    signature = program.graph_signature
    nodes = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    placeholders, inputs = [], []
    for spec in signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            inputs.append(Input(len(inputs), nodes[spec.arg.name].meta["val"], spec.arg.name))
            placeholders.append(inputs[-1])
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            tensor = (program.state_dict[spec.target] if spec.target in program.state_dict
                      else program.constants[spec.target])
            placeholders.append(Param(spec.target, tensor.detach()))
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            placeholders.append(Param(spec.target, program.constants[spec.target].detach()))
        else:
            raise UnsupportedOpsError({"input": [(
                f"an input of kind {spec.kind.name} (only tensors, parameters and buffers "
                "are supported)", spec.arg.name)]})
    _dynamic_dimensions(program, inputs, dynamic_before)
    mutated = [spec.target for spec in signature.output_specs
               if spec.kind != OutputKind.USER_OUTPUT]
    if mutated:
        raise UnsupportedOpsError({"output": [(
            "the model writes its state (" + ", ".join(map(str, mutated)) + "): fx-mlir "
            "compiles inference graphs; call .eval() and do not assign to buffers in forward",
            "output")]})
    return program.graph, placeholders


def _user_inputs(program):
    """(name, example) of each user input of an ExportedProgram, in order."""
    from torch.export.graph_signature import InputKind
    nodes = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    return [(spec.arg.name, nodes[spec.arg.name].meta.get("val"))
            for spec in program.graph_signature.input_specs
            if spec.kind == InputKind.USER_INPUT]


def _symbolic(size):
    """The sympy expression of a symbolic size (a SymInt, or a SymFloat or
    SymBool of size arithmetic), or None for a number."""
    if not isinstance(size, _SYM_TYPES):
        return None
    expr = size.node.expr
    return None if getattr(expr, "is_number", False) else expr


def _is_size_node(node):
    """A node of size arithmetic: its value a SymInt (SymFloat, SymBool),
    or a number from an aten::sym_* op (the size of a static dimension)."""
    if node.target is torch.ops.aten._local_scalar_dense.default:
        return False  # a number read from a tensor: a value (_aten)
    value = node.meta.get("val")
    if isinstance(value, _SYM_TYPES):
        return True
    return (isinstance(value, (int, float, bool))
            and isinstance(node.target, torch._ops.OpOverload)
            and node.target._schema.name.startswith("aten::sym_"))


def _is_item(node):
    """A number read from a tensor (`.item()`), imported as a 0-d tensor."""
    return node.target is torch.ops.aten._local_scalar_dense.default


def _sym_constant(value):
    """The number a SymInt/SymFloat/SymBool of constant value holds."""
    kind = {"SymInt": int, "SymFloat": float, "SymBool": bool}[type(value).__name__]
    return kind(value.node.expr)


def _dynamic_input_dims(program):
    """{(input index, dim)} of the dimensions torch.export made symbolic."""
    return {(i, d) for i, (_, example) in enumerate(_user_inputs(program))
            for d, size in enumerate(getattr(example, "shape", ()))
            if _symbolic(size) is not None}


def _dim_name(size):
    """The torch.export.Dim name of a symbolic input size (internal to
    torch's ShapeEnv, so best effort), or None."""
    try:
        env = size.node.shape_env
        names = getattr(env, "source_name_to_debug_name", {})
        for source in env.var_to_sources.get(size.node.expr, ()):
            name = source.name() if callable(source.name) else source.name
            if name in names:
                return names[name]
    except Exception:  # noqa: BLE001 - only a nicer message is lost
        pass
    return None


def _range_of(program, expr):
    """(min, max) of a symbol from the program's range constraints; max is
    UNBOUNDED (2^63-1) for no bound."""
    ranges = program.range_constraints.get(expr)
    if ranges is None:
        return 0, UNBOUNDED
    return max(_bound(ranges.lower, 0), 0), min(_bound(ranges.upper, UNBOUNDED), UNBOUNDED)


def _bound(value, infinite):
    """An end of a ValueRanges as an int; `infinite` for torch's int_oo."""
    try:
        return int(value)
    except Exception:  # noqa: BLE001 - int_oo (and -int_oo) do not convert
        return infinite


class DynamicDim:
    """A dynamic dimension of a model input: `?` in the IR, its size in
    [min, max] (torch.export.Dim's range; max UNBOUNDED for none). `input`
    is the input's index, `input_name` its name in forward, `name` the
    Dim's name (None where torch does not tell), `symbol` torch's."""

    def __init__(self, input, input_name, dim, name, symbol, min, max):
        self.input, self.input_name, self.dim = input, input_name, dim
        self.name, self.symbol, self.min, self.max = name, symbol, min, max

    def where(self):
        """'input 0 (x) dimension 0 (Dim 'batch')'."""
        what = f"input {self.input}" + (f" ({self.input_name})" if self.input_name else "")
        dim = f" (Dim '{self.name}')" if self.name else f" ({self.symbol})"
        return f"{what} dimension {self.dim}{dim}"

    def __repr__(self):
        top = "inf" if self.max == UNBOUNDED else self.max
        return (f"DynamicDim(input={self.input}, dim={self.dim}, name={self.name!r}, "
                f"min={self.min}, max={top})")


def _dynamic_dimensions(program, inputs, dynamic_before):
    """Marks the inputs' symbolic dimensions as DynamicDims, or raises
    ValueError for those the importer cannot write: an inner dimension, a
    size derived from another (2 * batch), or a dimension the decompositions
    made static again. Never specializes one silently."""
    problems = []
    for i, example in enumerate(inp.example for inp in inputs):
        shape = getattr(example, "shape", ())
        for d, size in enumerate(shape):
            expr = _symbolic(size)
            if expr is None:
                if (i, d) in dynamic_before:
                    problems.append(
                        f"input {i} ({inputs[i].name}) dimension {d}: the Core ATen "
                        f"decompositions made it the static size {int(size)} (a "
                        "decomposition depends on its value); import it with static shapes")
                continue
            name = _dim_name(size)
            lo, hi = _range_of(program, expr)
            dynamic = DynamicDim(i, inputs[i].name, d, name, expr, lo, hi)
            if not getattr(expr, "is_Symbol", False):
                problems.append(
                    f"input {i} ({inputs[i].name}) dimension {d}: its size {expr} is derived "
                    "from another dimension; "
                    "fx-mlir imports dynamic dimensions that are a torch.export.Dim of their "
                    "own. Make it static, or give it a Dim of its own")
            elif d != 0:
                problems.append(
                    f"{dynamic.where()}: only the outermost (batch) dimension of an input may "
                    "be dynamic (the Vulkan backend compiles one program for a dynamic "
                    "outermost dimension; kernels index inner dimensions with static strides). "
                    f"Make dimension {d} static: leave it out of dynamic_shapes and import "
                    "once per size")
            else:
                inputs[i].dynamic[d] = dynamic
    if problems:
        raise ValueError("cannot import the dynamic dimensions of the model's inputs:\n  " +
                         "\n  ".join(problems))


def reported_location(node, outermost_first):
    """Where an unsupported node is reported: (file, line) of the user's
    frame (see user_frame), else the node's name."""
    frame = user_frame(node.meta.get("stack_trace") or getattr(node, "stack_trace", None),
                       outermost_first)
    return frame if frame is not None else node.name


def _meta(node):
    tm = node.meta.get("tensor_meta")
    return tm if hasattr(tm, "shape") else None


class NodeContext:
    """What a handler sees of the node being imported."""

    def __init__(self, importer, node):
        self.importer = importer
        self.b = importer.builder
        self.node = node
        self.loc = importer.location(node)

    def result(self, index=None):
        """(shape, etype) of the node's result (or of result `index`)."""
        if index is None:
            meta = _meta(self.node)
        else:
            meta = None
            for user in self.node.users:
                if user.target is operator.getitem and user.args[1] == index:
                    meta = _meta(user)
        if meta is None:
            raise Unsupported("the traced graph has no shape for this result")
        return self.importer.dims(meta.shape), element_type(meta.dtype)

    def result_used(self, index):
        return any(u.target is operator.getitem and u.args[1] == index and u in self.importer.live
                   for u in self.node.users)

    def arg_meta(self, index):
        arg = self.node.args[index]
        return _meta(arg) if isinstance(arg, torch.fx.Node) else None

    def emit(self, name, operands, attrs=None, keywords=()):
        """One fx op whose single result has the node's traced type."""
        return self.b.op(name, operands, [self.result()], attrs, keywords, self.loc)[0]

    def emit_typed(self, name, operands, attrs=None, types=None, keywords=()):
        return self.b.op(name, operands, types, attrs, keywords, self.loc)[0]

    def emit_multi(self, name, operands, attrs, types):
        return self.b.op(name, operands, types, attrs, (), self.loc)

    def view(self, x, shape):
        if tuple(shape) == x.shape:
            return x
        return self.emit_typed("view", [x], {"size": _aten.view_size_attr(shape)},
                               [(tuple(shape), x.etype)])

    def retype(self, value):
        shape, etype = self.result()
        if value.etype != etype:
            value = self.emit_typed("convert_element_type", [value], None, [(value.shape, etype)])
        return value


class Param:
    """A placeholder that stands for a parameter, buffer or constant tensor."""

    def __init__(self, name, tensor):
        self.name, self.tensor = name, tensor


class Input:
    """A placeholder that stands for the model's `index`-th tensor input;
    `dynamic` maps its dynamic dimensions to their DynamicDims."""

    def __init__(self, index, example, name=None):
        self.index, self.example, self.name = index, example, name
        self.dynamic = {}


class Specialized:
    """A placeholder whose value the graph has baked in (a size that Dynamo
    passes as an input, traced again for one value): no argument."""


class Importer:
    """Writes one captured graph as an FX-dialect function.

    `placeholders` says what each of the graph's placeholder nodes stands for
    (a Param or an Input), in the graph's order; `exported` that
    torch.export captured it (else make_fx).
    """

    def __init__(self, graph, placeholders, frozen, func_name="forward", exported=False):
        self.graph = graph
        self.exported = exported  # captured by torch.export (else make_fx)
        self.placeholders = placeholders
        self.frozen = frozen
        self.builder = FunctionBuilder(func_name)
        self.values = {}
        self.errors = collections.OrderedDict()
        self.live = set()
        # Where each symbol of a dynamic size comes from, for messages.
        self.origins = {}
        for what in placeholders:
            for dynamic in getattr(what, "dynamic", {}).values():
                self.origins[dynamic.symbol] = dynamic.where()

    def dims(self, shape):
        """A traced shape with SymDims for its symbolic sizes."""
        return tuple(self._dim(size) for size in shape)

    def _dim(self, size):
        expr = _symbolic(size)
        if expr is None:
            return int(size)
        return self._sym(expr)

    def _sym(self, expr):
        origins = [f"{sym} is the size of {self.origins[sym]}" if sym in self.origins else
                   f"{sym} is a size computed from tensor values"
                   for sym in sorted(getattr(expr, "free_symbols", ()), key=str)]
        origin = "; ".join(origins)
        if getattr(expr, "is_Symbol", False) and expr in self.origins:
            origin = self.origins[expr]
        return SymDim(expr, origin)

    def location(self, node):
        frame = user_frame(node.meta.get("stack_trace") or getattr(node, "stack_trace", None),
                           self.exported)
        if frame is None:
            return Location(node.name)
        return Location(node.name, *frame)

    def run(self):
        graph = self.graph
        nodes = list(graph.nodes)
        output = next(n for n in nodes if n.op == "output")
        self._mark_live(output)
        placeholders = [n for n in nodes if n.op == "placeholder"]
        self._import_arguments(placeholders)
        for node in nodes:
            if node.op == "call_function" and node in self.live:
                if _is_size_node(node):
                    # Size arithmetic (sym_size, operator.mul, ...): no IR;
                    # handlers see the size as a number or a SymDim.
                    value = node.meta["val"]
                    expr = _symbolic(value)
                    self.values[node] = (self._sym(expr) if expr is not None else
                                         _sym_constant(value) if isinstance(value, _SYM_TYPES)
                                         else value)
                    continue
                self._import_call(node)
            elif node.op == "get_attr" and node in self.live:
                self._import_constant(node, getattr(graph.owning_module, node.target))
        if self.errors:
            raise UnsupportedOpsError(self.errors)
        self._import_outputs(output)
        return self.builder

    def _mark_live(self, output):
        work = [output]
        while work:
            node = work.pop()
            if node in self.live:
                continue
            self.live.add(node)
            work.extend(node.all_input_nodes)

    def _import_arguments(self, placeholders):
        assert len(placeholders) == len(self.placeholders)
        for node, what in zip(placeholders, self.placeholders):
            if isinstance(what, Specialized):
                continue
            if isinstance(what, Param):
                if node not in self.live:
                    continue
                etype = element_type(what.tensor.dtype)
                if self.frozen:
                    self.values[node] = self.builder.constant(tensor_to_numpy(what.tensor), etype,
                                                              Location(what.name))
                else:
                    self.values[node] = self.builder.add_argument(
                        what.tensor.shape, etype, param=what.name, loc=Location(what.name))
            else:
                tensor = what.example
                if not isinstance(tensor, torch.Tensor):
                    raise TypeError(f"example input {what.index} is a "
                                    f"{type(tensor).__name__}, not a tensor")
                # Inputs are arguments even when unused, so that fx-run's
                # --input order matches the model's signature.
                ranges = {d: (dyn.min, dyn.max) for d, dyn in what.dynamic.items()}
                self.values[node] = self.builder.add_argument(
                    self.dims(tensor.shape), element_type(tensor.dtype),
                    loc=Location(f"input{what.index}"), dim_ranges=ranges)

    def _import_constant(self, node, tensor):
        if not isinstance(tensor, torch.Tensor):
            self._fail(node, "a non-tensor constant attribute")
            return
        self.values[node] = self.builder.constant(tensor_to_numpy(tensor),
                                                  element_type(tensor.dtype), self.location(node))

    def _fail(self, node, reason):
        self.errors.setdefault(_op_name(node.target), []).append(
            (reason, reported_location(node, self.exported)))

    def _import_call(self, node):
        target = node.target
        if target is operator.getitem:
            source = self.values.get(node.args[0])
            if isinstance(source, tuple):
                self.values[node] = source[node.args[1]]
            elif node.args[0] in self.values:
                self._fail(node, "getitem of a single-result op")
            return
        handler = _aten.HANDLERS.get(target)
        if handler is None:
            self._fail(node, "no mapping to the FX dialect")
            return
        missing = [a for a in node.all_input_nodes if a not in self.values]
        if missing:
            return  # an input failed to import; that failure is already reported
        if target not in _aten.ITEM_CONSUMERS and any(
                _is_item(a) for a in node.all_input_nodes):
            self._fail(node, "uses a number read from a tensor (.item()) where the FX "
                       "dialect needs a size or a constant; only elementwise arithmetic "
                       "and comparisons take one (as the 0-d tensor it was read from)")
            return
        try:
            args = [self._arg(a) for a in node.args]
            kwargs = {k: self._arg(v) for k, v in node.kwargs.items()
                      if k not in ("device", "layout", "pin_memory", "memory_format", "dtype")
                      or target in (aten.sum.dim_IntList, aten.mean.dim, aten.sum.default,
                                    aten.mean.default)}
            self.values[node] = handler(NodeContext(self, node), *args, **kwargs)
        except Unsupported as e:
            self._fail(node, str(e))

    def _arg(self, a):
        if isinstance(a, torch.fx.Node):
            value = self.values[a]
            if value is None:
                raise Unsupported("uses a result the importer dropped")
            return value
        if isinstance(a, (list, tuple)):
            return type(a)(self._arg(x) for x in a)
        return a

    def _import_outputs(self, output):
        flat, _ = tree_flatten(output.args[0])
        results = []
        for item in flat:
            if isinstance(item, torch.fx.Node) and _is_item(item):
                raise UnsupportedOpsError({"output": [(
                    "the model returns a number read from a tensor (.item()), not a "
                    "tensor", "output")]})
            if not isinstance(item, torch.fx.Node) or not isinstance(self.values.get(item), Value):
                raise UnsupportedOpsError({"output": [(
                    f"the model returns a {type(item).__name__}, not a tensor", "output")]})
            results.append(self.values[item])
        self.builder.results = results


def _op_name(target):
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    return getattr(target, "__name__", str(target))


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
from ._emitter import (FunctionBuilder, Location, Unsupported, Value, element_type,
                       relative_source, tensor_to_numpy)

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


def user_frame(stack_trace):
    """(file, line) of the innermost frame outside torch and this package."""
    if not stack_trace:
        return None
    lines = stack_trace.splitlines()
    for text in lines:
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
    """make_fx over fn(params..., inputs...), functionalized, decomposed."""
    names = [name for name, _ in params]

    def flat(*args):
        values, inputs = args[:len(names)], args[len(names):]
        if isinstance(fn, torch.nn.Module):
            return functional_call(fn, dict(zip(names, values)), tuple(inputs))
        return fn(*inputs)

    traced = functionalize(flat) if functionalize is not None else flat
    with _recording_stack_traces(), torch.no_grad():
        return make_fx(traced, decomposition_table=decomposition_table())(
            *[t for _, t in params], *example_inputs)


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
        return tuple(meta.shape), element_type(meta.dtype)

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
        return self.emit_typed("view", [x], {"size": _aten.array_attr(shape)},
                               [(tuple(shape), x.etype)])

    def retype(self, value):
        shape, etype = self.result()
        if value.etype != etype:
            value = self.emit_typed("convert_element_type", [value], None, [(value.shape, etype)])
        return value


class Importer:
    def __init__(self, fn, example_inputs, params, frozen, func_name="forward"):
        self.fn = fn
        self.example_inputs = list(example_inputs)
        self.params = params
        self.frozen = frozen
        self.builder = FunctionBuilder(func_name)
        self.values = {}
        self.errors = collections.OrderedDict()
        self.live = set()

    def location(self, node):
        frame = user_frame(node.meta.get("stack_trace") or getattr(node, "stack_trace", None))
        if frame is None:
            return Location(node.name)
        return Location(node.name, *frame)

    def run(self):
        try:
            graph = capture(self.fn, self.example_inputs, self.params).graph
        except Exception as e:  # the user's model raised on the example inputs
            raise TraceError(f"the model failed on the example inputs: "
                             f"{type(e).__name__}: {e}") from e
        nodes = list(graph.nodes)
        output = next(n for n in nodes if n.op == "output")
        self._mark_live(output)
        placeholders = [n for n in nodes if n.op == "placeholder"]
        self._import_arguments(placeholders)
        for node in nodes:
            if node.op == "call_function" and node in self.live:
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
        n_params = len(self.params)
        for i, node in enumerate(placeholders):
            if i < n_params:
                name, tensor = self.params[i]
                if node not in self.live:
                    continue
                etype = element_type(tensor.dtype)
                if self.frozen:
                    self.values[node] = self.builder.constant(tensor_to_numpy(tensor), etype,
                                                              Location(name))
                else:
                    self.values[node] = self.builder.add_argument(tensor.shape, etype, param=name,
                                                                  loc=Location(name))
            else:
                tensor = self.example_inputs[i - n_params]
                if not isinstance(tensor, torch.Tensor):
                    raise TypeError(f"example input {i - n_params} is a "
                                    f"{type(tensor).__name__}, not a tensor")
                # Inputs are arguments even when unused, so that fx-run's
                # --input order matches the model's signature.
                self.values[node] = self.builder.add_argument(
                    tensor.shape, element_type(tensor.dtype),
                    loc=Location(f"input{i - n_params}"))

    def _import_constant(self, node, tensor):
        if not isinstance(tensor, torch.Tensor):
            self._fail(node, "a non-tensor constant attribute")
            return
        self.values[node] = self.builder.constant(tensor_to_numpy(tensor),
                                                  element_type(tensor.dtype), self.location(node))

    def _fail(self, node, reason):
        where = self.location(node)
        text = (where.file, where.line) if where.file else node.name
        self.errors.setdefault(_op_name(node.target), []).append((reason, text))

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
            if not isinstance(item, torch.fx.Node) or not isinstance(self.values.get(item), Value):
                raise UnsupportedOpsError({"output": [(
                    f"the model returns a {type(item).__name__}, not a tensor", "output")]})
            results.append(self.values[item])
        self.builder.results = results


def _op_name(target):
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    return getattr(target, "__name__", str(target))


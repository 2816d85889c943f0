"""torch.compile(model, backend="fx_mlir"): fx-mlir as a TorchDynamo backend.

    import torch
    model = torch.compile(model, backend="fx_mlir")            # the CPU
    model = torch.compile(model, backend="fx_mlir", options={"target": "vulkan"})

The package declares the backend under the `torch_dynamo_backends` entry
point (pyproject.toml), so torch.compile finds it by name once fx_mlir is
installed (scripts/setup.sh installs it into the project venv, editable);
`import fx_mlir` registers it too when torch is already imported.

Each graph Dynamo captures goes through AOTAutograd with the importer's
decompositions (Core ATen plus fx-mlir's own), is imported into the FX
dialect and compiled through fx::Compiler (the C API, over ctypes: the
runtime binding the package already has, no extension to build). Graph
breaks behave as with any backend: each graph is compiled on its own.

Parameters and buffers that Dynamo passes as graph inputs are bound to the
compiled model as parameters (so CPU code may pack them once, and a Vulkan
device keeps them resident): they are bound again when the tensor or its
version counter (an in-place update) changes. Other inputs are passed per
call; CPU tensors are used in place when contiguous.

Options (`torch.compile(..., options={...})`):
  target      "cpu" (default) or "vulkan"
  fallback    True (default): the parts of a graph fx-mlir cannot compile
              (unsupported ops) run eagerly, with one warning per graph
              naming the ops and their source lines;
              False: that is an error instead
  cache_dir   fx::Compiler's on-disk compile cache
  mode        as torch.compile's mode, which torch.compile does not take
              together with options
  dump_dir    fx::Compiler writes each graph's input IR and generated code
              there
`mode` ("default", "reduce-overhead", "max-autotune") is fx::Compiler's
("max-autotune-no-cudagraphs" is max-autotune).

A graph with symbolic sizes (Dynamo makes sizes dynamic when a second one
comes) is compiled once per combination of sizes that calls bring: traced
again with the call's values, so that no call runs another size's code.

A graph with ops fx-mlir does not support is partitioned: the supported
partitions are compiled, one graph each, and the rest runs eagerly; one
warning per graph names the unsupported ops and their source lines
(options={"fallback": False} makes that an error).

fx_mlir.explain(model, *inputs) reports Dynamo's graph breaks and, per
graph, the ops, the unsupported ones, the partitions, compile times and
(CPU) the dispatch regions, as Graphviz graphs too.
Logs go to the "fx_mlir" logger; FX_MLIR_LOGS=info|debug prints them.

On the Vulkan target such a graph is one program for all sizes where the
compiler can make its symbolic sizes `?` dimensions (the runtime binds them
per call); else it too is compiled per size.

Not yet: one CPU program for all sizes, backward graphs (eager).
"""

import collections
import itertools
import logging
import operator
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import torch

from . import runtime
from ._api import HAS_EXPORT
from . import _aten
from ._importer import (_KEPT_WHOLE, Importer, Input, Param, Specialized, UnsupportedOpsError,
                        _op_name, _recording_stack_traces, reported_location)
from ._decompositions import decomposition_table

_OPTIONS = ("target", "fallback", "cache_dir", "mode", "dump_dir")
_MODES = ("default", "reduce-overhead", "max-autotune")


# Logs under the "fx_mlir" logger (off by default, as Python's logging
# is): INFO one line per compiled graph or partition, DEBUG also the IR.
# FX_MLIR_LOGS=info|debug (in the spirit of TORCH_LOGS) turns them on to
# stderr without configuring logging.
log = logging.getLogger("fx_mlir")


def _configure_logging():
    level = os.environ.get("FX_MLIR_LOGS", "").strip().lower()
    if not level:
        return
    log.setLevel(logging.DEBUG if level in ("debug", "+fx_mlir", "+") else logging.INFO)
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("fx_mlir: %(message)s"))
        log.addHandler(handler)


_configure_logging()
_GRAPH_NUMBERS = itertools.count(1)

# In this process: graphs compiled ("compiled": one per static shape and
# per partition) and, of those, partitions of partly supported graphs
# ("partitions"). For tests, and for users who wonder.
STATS = collections.Counter()


class CompileError(RuntimeError):
    """A graph fx-mlir cannot compile, raised with options={"fallback": False}."""


def _decompositions():
    table = dict(torch._decomp.core_aten_decompositions())
    table.update(decomposition_table())
    for op in _KEPT_WHOLE:
        table.pop(op, None)
    return table


def _is_parameter(node):
    """Whether a placeholder of Dynamo's graph is a module's parameter or
    buffer (inlined nn.Modules pass them as graph inputs)."""
    arg = node.meta.get("grapharg")
    source = getattr(arg, "source", None)
    name = getattr(source, "name", "") if source is not None else ""
    if callable(name):  # a method in older torch 2 releases
        name = name()
    return "_parameters[" in name or "_buffers[" in name


def _fail(message, options, graph_name):
    if not options.get("fallback", True):
        raise CompileError(message)
    warnings.warn(f"fx_mlir: {graph_name} runs partly eagerly: {message}", stacklevel=2)


class _PerShape:
    """A graph with symbolic sizes, compiled once per combination of the
    calls' sizes (traced again with real values, so sizes become constants)."""

    def __init__(self, graph_module, compile_graph):
        self.graph_module = graph_module
        self.compile_graph = compile_graph
        self.by_shape = {}

    def __call__(self, *args):
        key = tuple((tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else a
                    for a in args)
        compiled = self.by_shape.get(key)
        if compiled is None:
            from torch.fx.experimental.proxy_tensor import make_fx
            with torch.no_grad():
                traced = make_fx(self.graph_module)(*args)
            compiled = self.by_shape[key] = self.compile_graph(traced, list(args))
        return compiled(*args)


# Ops that only view or reshape: a partition of nothing else is not worth
# a compiled graph of its own.
_VIEW_OPS = [f"torch.ops.aten.{name}.default" for name in (
    "view", "_unsafe_view", "reshape", "permute", "t", "transpose", "expand", "unsqueeze",
    "squeeze", "alias", "clone", "slice", "select")] + ["_operator.getitem"]


class _Partition(torch.nn.Module):
    """A compiled partition in the eager graph's place."""

    def __init__(self, compiled, single):
        super().__init__()
        self.compiled, self.single = compiled, single

    def forward(self, *args):
        results = self.compiled(*args)
        return results[0] if self.single else tuple(results)


def _partitioned(gm, is_param, compile_whole):
    """`gm` with its partitions of supported ops compiled (each one graph,
    through compile_whole) and the rest left to eager mode."""
    from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
    from torch.fx.passes.operator_support import OperatorSupport

    class Supported(OperatorSupport):
        def is_node_supported(self, submodules, node):
            return node.op == "call_function" and _mapped(node.target)

    inputs = {n: i for i, n in enumerate(n for n in gm.graph.nodes if n.op == "placeholder")}
    partitioner = CapabilityBasedPartitioner(gm, Supported(), allows_single_node_partition=True,
                                             non_compute_ops=_VIEW_OPS)
    fused = partitioner.fuse_partitions(partitioner.propose_partitions())
    for node in list(fused.graph.nodes):
        if node.op != "call_module":
            continue
        sub = getattr(fused, node.target)
        examples = [a.meta.get("val") if isinstance(a, torch.fx.Node) else a
                    for a in node.args]
        params = [a in inputs and is_param(inputs[a]) for a in node.args]
        output = next(n for n in sub.graph.nodes if n.op == "output")
        if any(e is None for e in examples):
            continue  # sizes unknown: stays eager
        try:
            with _recording_stack_traces():
                compiled = compile_whole(sub.graph, examples, lambda i: params[i])
        except UnsupportedOpsError:
            continue  # this partition stays eager
        setattr(fused, node.target, _Partition(compiled, isinstance(output.args[0], torch.fx.Node)))
        STATS["partitions"] += 1
    fused.recompile()
    return fused


def _unsupported_ops(graph):
    """UnsupportedOpsError for the ops of `graph` the importer has no mapping
    for (checked before sizes are known), or None."""
    ops = {}
    for node in graph.nodes:
        if node.op != "call_function" or _mapped(node.target) or _is_size_op(node.target):
            continue
        ops.setdefault(_op_name(node.target), []).append(
            ("no mapping to the FX dialect", reported_location(node, False)))
    return UnsupportedOpsError(ops) if ops else None


def _mapped(target):
    """Whether the importer maps calls of `target`."""
    return target is operator.getitem or target in _aten.HANDLERS


def _is_size_op(target):
    # Size arithmetic on SymInts (sym_size, operator.mul, ...) is traced
    # away when the graph is traced again with real sizes.
    return not isinstance(target, torch._ops.OpOverload) or \
        target._schema.name.startswith("aten::sym_")


class _Compiled:
    """The compiled forward of one graph: binds parameters, converts tensors."""

    def __init__(self, model, param_positions, input_positions, device):
        self.model = model
        self.param_positions = param_positions  # graph input index -> parameter name
        self.input_positions = input_positions
        self.device = device
        self.bound = {}                         # name -> (tensor, version)

    @staticmethod
    def _array(t):
        t = t.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        return t.contiguous().numpy()

    def __call__(self, *args):
        for index, name in self.param_positions.items():
            t = args[index]
            seen = self.bound.get(name)
            if seen is None or seen[0] is not t or seen[1] != t._version:
                self.model.set_parameter(name, self._array(t))
                self.bound[name] = (t, t._version)
        arrays = [self._array(args[i]) for i in self.input_positions]
        results = self.model(*arrays)
        return [torch.from_numpy(r).to(self.device) for r in results]


def fx_mlir_backend(gm, example_inputs, mode=None, options=None):
    """The TorchDynamo backend: compiles `gm` through AOTAutograd into an
    fx-mlir model (see the module docstring)."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise ValueError(f"fx_mlir: unknown option(s) {unknown}; the options are "
                         f"{list(_OPTIONS)}")
    # torch.compile takes mode or options, not both: options may say mode.
    mode = options.get("mode", mode) or "default"
    # Without CUDA graphs to leave out, Inductor's fourth mode is max-autotune.
    if mode == "max-autotune-no-cudagraphs":
        mode = "max-autotune"
    if mode not in _MODES:
        raise ValueError(f"fx_mlir: unknown mode {mode!r}; the modes are {list(_MODES)}")
    target = options.get("target", "cpu")
    if target not in ("cpu", "vulkan"):
        raise ValueError(f"fx_mlir: unknown target {target!r} (cpu or vulkan)")
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    params = [_is_parameter(n) for n in placeholders]
    graph_name = f"graph {next(_GRAPH_NUMBERS)}"

    def compile_whole(graph, examples, is_param):
        """Imports and compiles a graph of static shapes (raising
        UnsupportedOpsError); examples: its inputs (tensors, real or fake,
        and ints it has baked in); is_param(i): input i is a parameter."""
        holders, param_positions, input_positions = [], {}, []
        for i, example in enumerate(examples):
            if not isinstance(example, torch.Tensor):
                holders.append(Specialized())
            elif is_param(i):
                holders.append(Param(f"param{i}", example))
                param_positions[i] = f"param{i}"
            else:
                holders.append(Input(len(input_positions), example))
                input_positions.append(i)
        builder = Importer(graph, holders, frozen=False).run()
        text = "module {\n" + builder.text() + "}\n"
        log.debug("%s: the FX dialect:\n%s", graph_name, text)
        start = time.perf_counter()
        # explain() wants each CPU graph's dispatch regions: fx::Compiler
        # writes them (<entry>.dispatch.dot) into a dump directory (a
        # temporary one; with the user's own, the files are theirs).
        dump_dir, graph_dir = options.get("dump_dir"), None
        if _RECORDS and target == "cpu" and dump_dir is None:
            dump_dir = graph_dir = tempfile.mkdtemp(prefix="fx-mlir-explain-")
        try:
            compiled = runtime.compile(text, target=target, mode=mode,
                                       cache_dir=options.get("cache_dir"),
                                       dump_dir=dump_dir)
            if graph_dir:
                _RECORDS[-1].setdefault("dispatch_graphs", []).extend(
                    _read_dispatch_graphs(graph_dir))
        finally:
            if graph_dir:
                shutil.rmtree(graph_dir, ignore_errors=True)
        STATS["compiled"] += 1
        ops = sum(1 for n in graph.nodes if n.op == "call_function")
        log.info("%s: %d ATen ops compiled for %s (mode %s) in %.2f s", graph_name, ops,
                 target, mode, time.perf_counter() - start)
        device = next((t.device for t in examples if isinstance(t, torch.Tensor)),
                      torch.device("cpu"))
        return _Compiled(compiled, param_positions, input_positions, device)

    def is_graph_param(examples):
        # AOTAutograd keeps Dynamo's inputs in order for an inference graph;
        # otherwise every input is passed per call.
        same = len(examples) == len(params)
        return lambda i: same and params[i]

    def compile_graph(gm, examples, warn=False):
        """The whole graph compiled, or (with unsupported ops) its supported
        partitions compiled and the rest eager; `warn`: name the unsupported
        ops (an error without fallback)."""
        is_param = is_graph_param(examples)
        try:
            with _recording_stack_traces():
                return compile_whole(gm.graph, examples, is_param)
        except UnsupportedOpsError as e:
            if warn:
                _fail(str(e), options, graph_name)
            elif not options.get("fallback", True):
                raise CompileError(str(e)) from e
        return _partitioned(gm, is_param, compile_whole)

    def record_compile(start, before, **more):
        """For explain(): what compiling this graph took, since `start`
        (perf_counter) and STATS as `before`."""
        if _RECORDS is not None:
            _RECORDS[-1].update(
                compile_s=time.perf_counter() - start,
                compiled_graphs=STATS["compiled"] - before.get("compiled", 0),
                partitions=STATS["partitions"] - before.get("partitions", 0), **more)

    def forward_compiler(fw, fw_inputs):
        from functorch.compile import make_boxed_func
        symbolic = any(not isinstance(t, torch.Tensor) or
                       any(isinstance(d, torch.SymInt) for d in t.shape) for t in fw_inputs)
        if _RECORDS is not None:
            _record(fw, symbolic)
        if not symbolic:
            start, before = time.perf_counter(), dict(STATS)
            result = compile_graph(fw, fw_inputs, warn=True)
            record_compile(start, before)
            return make_boxed_func(result)
        # Sizes Dynamo made dynamic. Ops without a mapping are named now.
        unsupported = _unsupported_ops(fw.graph)
        if unsupported:
            _fail(str(unsupported), options, graph_name)
        elif target == "vulkan":
            # One program for all sizes: the graph's symbolic sizes become
            # `?` dimensions, which the Vulkan runtime binds per call.
            # Where the compiler cannot (a dynamic dimension that is not
            # outermost in a matmul, a size an op takes as a value), the
            # graph is compiled per size instead.
            start, before = time.perf_counter(), dict(STATS)
            try:
                with _recording_stack_traces():
                    result = compile_whole(fw.graph, fw_inputs, is_graph_param(fw_inputs))
            except (UnsupportedOpsError, runtime.Error, TypeError, ValueError) as e:
                reason = " ".join(line.strip() for line in str(e).splitlines()) or repr(e)
                log.info("%s: no program for all sizes (%s); compiled per size instead",
                         graph_name, reason)
            else:
                STATS["dynamic"] += 1
                record_compile(start, before, one_program=True)
                return make_boxed_func(result)
        # Compiled per size when a call meets it (the graph traced again with
        # the call's values), never run with another size's code.
        return make_boxed_func(_PerShape(fw, compile_graph))

    def backward_compiler(bw, bw_inputs):
        from functorch.compile import make_boxed_func
        return make_boxed_func(bw)

    from torch._dynamo.backends.common import aot_autograd
    return aot_autograd(fw_compiler=forward_compiler, bw_compiler=backward_compiler,
                        decompositions=_decompositions())(gm, example_inputs)


# While explain() runs: one dict per graph the backend compiles.
_RECORDS = None


def _record(graph_module, symbolic):
    ops = collections.Counter()
    for node in graph_module.graph.nodes:
        if node.op == "call_function" and not _is_size_op(node.target) and \
                node.target is not operator.getitem:
            ops[_op_name(node.target)] += 1
    unsupported = _unsupported_ops(graph_module.graph)
    _RECORDS.append({
        "ops": dict(ops),
        "unsupported": {name: [f"{w[0]}:{w[1]}" if isinstance(w, tuple) else w
                               for _, w in uses]
                        for name, uses in (unsupported.ops.items() if unsupported else [])},
        "symbolic_sizes": symbolic,
    })


def _read_dispatch_graphs(directory):
    """The DOT digraphs fx::Compiler wrote into `directory`, oldest first."""
    paths = [os.path.join(directory, name) for name in os.listdir(directory)
             if name.endswith(".dispatch.dot")]
    graphs = []
    for path in sorted(paths, key=os.path.getmtime):
        with open(path) as f:
            graphs.append(f.read())
    return graphs


def _region_count(dot):
    m = re.search(r"// (\d+) dispatch region", dot)
    return int(m.group(1)) if m else 0


class Explanation:
    """What explain() found: `.as_dict()` and the text (str())."""

    def __init__(self, info):
        self.info = info

    def as_dict(self):
        return self.info

    def __str__(self):
        info = self.info
        lines = [f"{info['graph_count']} graph(s), {info['graph_break_count']} graph "
                 f"break(s) (Dynamo)"]
        for i, reason in enumerate(info["break_reasons"]):
            text = [line for line in reason.strip().splitlines() if line.strip()]
            lines.append(f"  break {i + 1}: " + "\n    ".join(text))
        for i, graph in enumerate(info["graphs"]):
            total = sum(graph["ops"].values())
            bad = sum(len(v) for v in graph["unsupported"].values())
            lines.append(f"graph {i + 1}: {total} ATen ops, {total - bad} supported"
                         + ((", symbolic sizes (one program for all sizes)"
                             if graph.get("one_program") else
                             ", symbolic sizes (compiled per size)")
                            if graph["symbolic_sizes"] else ""))
            if "compile_s" in graph:
                dots = graph.get("dispatch_graphs", [])
                regions = sum(_region_count(dot) for dot in dots)
                lines.append(f"  compiled in {graph['compile_s']:.2f} s: "
                             + (f"{graph['partitions']} partition(s), the rest eager"
                                if graph["partitions"] else "one graph")
                             + (f", {regions} CPU dispatch region(s)" if dots else ""))
            for name, where in sorted(graph["unsupported"].items()):
                lines.append(f"  unsupported: {name} x{len(where)} at {', '.join(where[:5])}")
        return "\n".join(lines)

    def dispatch_graphs(self):
        """The dispatch regions of every graph compiled for the CPU, as
        Graphviz DOT digraphs (one per compiled graph or partition)."""
        return [dot for graph in self.info["graphs"]
                for dot in graph.get("dispatch_graphs", [])]

    def save_dispatch_graphs(self, prefix, format="svg"):
        """Writes each dispatch graph to `prefix`<n>.dot, or drawn by
        Graphviz's dot to `prefix`<n>.svg (format="svg": dot must be on
        PATH). Returns the paths written."""
        if format not in ("svg", "dot"):
            raise ValueError(f"format must be 'svg' or 'dot', not {format!r}")
        dot_program = shutil.which("dot") if format == "svg" else None
        if format == "svg" and dot_program is None:
            raise RuntimeError("drawing SVG needs Graphviz's dot on PATH (apt install "
                               "graphviz); save_dispatch_graphs(prefix, format='dot') "
                               "writes the DOT text instead")
        paths = []
        for i, dot in enumerate(self.dispatch_graphs(), 1):
            path = f"{prefix}{i}.{format}"
            if dot_program:
                subprocess.run([dot_program, "-Tsvg", "-o", path], input=dot, text=True,
                               check=True)
            else:
                with open(path, "w") as f:
                    f.write(dot)
            paths.append(path)
        return paths


def explain(model, *inputs, target="cpu"):
    """Compiles and runs `model(*inputs)` through torch.compile(backend=
    "fx_mlir") under no_grad and reports Dynamo's graph breaks and their
    reasons, then per graph: its ATen ops, those fx-mlir does not support
    (with source lines), how it was compiled (one graph, or partitions
    with the rest eager), the compile time and, for the CPU, its dispatch
    regions (what fused with what) as Graphviz graphs. Returns an
    Explanation (str() for text, .as_dict() for a dict,
    .dispatch_graphs() for the DOT text, .save_dispatch_graphs(prefix) to
    draw them as SVG)."""
    global _RECORDS
    import torch._dynamo
    torch._dynamo.reset()
    with torch.no_grad():
        dynamo = torch._dynamo.explain(model)(*inputs)
    torch._dynamo.reset()
    records = _RECORDS = []
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.compile(model, backend="fx_mlir", options={"target": target})(*inputs)
    finally:
        _RECORDS = None
        torch._dynamo.reset()
    return Explanation({
        "graph_count": dynamo.graph_count,
        "graph_break_count": dynamo.graph_break_count,
        "break_reasons": [str(r.reason) for r in dynamo.break_reasons],
        "graphs": records,
    })


def register():
    """Registers the backend with TorchDynamo under the name "fx_mlir" (a no-op
    if it is registered already)."""
    if not HAS_EXPORT:
        raise RuntimeError(f"torch.compile needs PyTorch 2; this is torch {torch.__version__}")
    from torch._dynamo.backends import registry
    # Registered already, or found through the entry point (whose lookup
    # registers it: this import may be that lookup's).
    if "fx_mlir" in registry._COMPILER_FNS or registry._BACKENDS.get("fx_mlir") is not None:
        return
    registry.register_backend(fx_mlir_backend, name="fx_mlir")

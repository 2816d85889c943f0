# torch.compile(model, backend="fx_mlir") as a user writes it: the backend
# found by name through the package's entry point (no import of fx_mlir in
# that process) and listed by torch._dynamo.list_backends(); a conv net and
# a graph break under no_grad, matching eager; a parameter updated in place
# bound again; a forward with gradients (backward eager); an unsupported op
# running eagerly between two compiled partitions, with a warning that
# names it and its source line, or an error with options={"fallback":
# False}; new batch sizes (symbolic sizes) compiled once per size, or on
# Vulkan one program for all sizes;
# fx_mlir.explain's report (graph breaks, ops per graph, partitions); bad
# options refused. On the CPU and, where a Vulkan device is present, on it.
# REQUIRES: torch2
# RUN: %python -c "import torch; print('listed:', 'fx_mlir' in torch._dynamo.list_backends())" | FileCheck %s --check-prefix=LISTED
# LISTED: listed: True
# RUN: %python %s cpu | FileCheck %s --check-prefixes=CHECK,CPU
# RUN: env FX_MLIR_LOGS=info %python -c "import torch; torch.compile(torch.nn.Linear(2, 3), backend='fx_mlir')(torch.randn(4, 2))" 2>&1 | FileCheck %s --check-prefix=LOGS
# LOGS: fx_mlir: graph {{[0-9]+}}: {{[0-9]+}} ATen ops compiled for cpu (mode default) in {{[0-9.]+}} s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s --check-prefixes=CHECK,VULKAN %}
# CHECK: by name: ok
# CHECK: conv net: ok
# CHECK: graph break: ok (2 graphs)
# CHECK: updated in place: ok
# CHECK: with gradients: ok
# CHECK: unsupported: ok, 2 partitions compiled, warned: fx_mlir: graph {{[0-9]+}} runs partly eagerly: cannot import: 1 node(s) use 1 unsupported ATen op(s):
# CHECK-NEXT: aten.median.dim x1
# CHECK-NEXT: no mapping to the FX dialect: at {{.*}}dynamo.py:[[#]]
# CHECK: no fallback: CompileError: cannot import: 1 node(s) use 1 unsupported ATen op(s):
# CHECK: new batch sizes: ['ok', 'ok', 'ok', 'ok'] compiled 3
# CPU: one program: ['ok', 'ok', 'ok', 'ok', 'ok'] compiled 4 for all sizes 0
# VULKAN: one program: ['ok', 'ok', 'ok', 'ok', 'ok'] compiled 2 for all sizes 1
# CHECK: explain: 2 graph(s), 1 graph break(s) (Dynamo)
# CHECK: graph 1: 3 ATen ops, 3 supported
# CHECK-NEXT: compiled in {{[0-9.]+}} s: one graph{{(, [0-9]+ CPU dispatch region\(s\))?$}}
# CHECK-NEXT: graph 2: 3 ATen ops, 2 supported
# CHECK-NEXT: compiled in {{[0-9.]+}} s: 2 partition(s), the rest eager{{(, [0-9]+ CPU dispatch region\(s\))?$}}
# CHECK-NEXT: unsupported: aten.median.dim x1 at {{.*}}dynamo.py:[[#]]
# CHECK-NEXT: dict: 2 graphs, unsupported {'aten.median.dim': 1}
# On the CPU, each compiled graph's dispatch regions as a DOT digraph (the
# linear layer and its relu one region, its weight transposed another),
# drawn as SVG by dot.
# CPU: dispatch graphs: 3 digraphs, first: 2 dispatch regions
# CPU: saved: ['g1.svg', 'g2.svg', 'g3.svg'] <svg
# CPU: bad format: ValueError: format must be 'svg' or 'dot', not 'png'
# CHECK: mode in options: ok
# CHECK: dump_dir: has files True
# CHECK: bad option: ValueError: fx_mlir: unknown option(s) ['targett']; the options are ['target', 'fallback', 'cache_dir', 'mode', 'dump_dir']
# CHECK: bad target: ValueError: fx_mlir: unknown target 'metal' (cpu or vulkan)
# CHECK: bad mode: ValueError: fx_mlir: unknown mode 'fastest'; the modes are ['default', 'reduce-overhead', 'max-autotune']

import os
import sys
import tempfile
import warnings

import torch
import torch._dynamo

target = sys.argv[1]
torch.manual_seed(0)


def compiled(fn, **options):
    return torch.compile(fn, backend="fx_mlir", options=dict(options, target=target))


# By name before this process imports fx_mlir (the entry point).
lin = torch.nn.Linear(5, 3).eval()
x = torch.randn(2, 5)
with torch.no_grad():
    got, want = compiled(lin)(x), lin(x)
print("by name:", "ok" if "fx_mlir.dynamo" in sys.modules and
      torch.allclose(got, want, rtol=1e-5, atol=1e-6) else "failed")
torch._dynamo.reset()

from fx_mlir.testing import compare  # noqa: E402


def check(what, got, want):
    got = [g.detach().numpy() for g in got]
    want = [w.detach().numpy() for w in want]
    result = compare(got, want)
    print(what + ":", "ok" if result.ok else result.message)


net = torch.nn.Sequential(
    torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
    torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(8 * 8 * 8, 10)).eval()
images = torch.randn(2, 3, 16, 16)
with torch.no_grad():
    check("conv net", [compiled(net)(images)], [net(images)])


class Broken(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(16, 32)
        self.b = torch.nn.Linear(32, 4)

    def forward(self, x):
        y = torch.relu(self.a(x))
        torch._dynamo.graph_break()
        return torch.softmax(self.b(y), -1)


graphs = []


def counting(gm, inputs, **kwargs):
    graphs.append(gm)
    from fx_mlir.dynamo import fx_mlir_backend
    return fx_mlir_backend(gm, inputs, options={"target": target})


broken = Broken().eval()
x = torch.randn(3, 16)
c = torch.compile(broken, backend=counting)
with torch.no_grad():
    got = c(x)
    result = compare([got.numpy()], [broken(x).numpy()])
    print("graph break:", "ok" if result.ok else result.message, f"({len(graphs)} graphs)")
    broken.b.weight.mul_(2)  # in place: the compiled graph binds it again
    check("updated in place", [c(x)], [broken(x)])

# Gradients: the forward compiled, the backward eager.
torch._dynamo.reset()
mlp = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh())
x = torch.randn(4, 8, requires_grad=True)
out = compiled(mlp)(x)
out.sum().backward()
grad = x.grad.clone()
x.grad = None
want = mlp(x)
want.sum().backward()
check("with gradients", [out, grad], [want, x.grad])


def uses_median(x):
    return torch.median(x * 2, 0, keepdim=True).values + x


v = torch.randn(5)
from fx_mlir.dynamo import STATS  # noqa: E402
before = STATS["partitions"]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    got = compiled(uses_median)(v)
messages = [str(w.message) for w in caught if "fx_mlir" in str(w.message)]
result = compare([got.numpy()], [uses_median(v).numpy()])
print("unsupported:", "ok" if result.ok else result.message, end=", ")
print(STATS["partitions"] - before, "partitions compiled", end=", ")
print("warned:", messages[0] if messages else "nothing")
torch._dynamo.reset()
try:
    compiled(uses_median, fallback=False)(torch.randn(6))
    print("no fallback: no error")
except Exception as e:  # Dynamo wraps the backend's error
    cause = getattr(e, "inner_exception", None) or e
    print("no fallback:", type(cause).__name__ + ":", str(cause).splitlines()[0])
# New batch sizes: Dynamo recompiles with the batch symbolic (its size an
# input of the graph); fx-mlir compiles that graph once per size a call
# brings (2, then 3 and 5), and a size seen before reuses its code.
torch._dynamo.reset()
before = dict(STATS)
scaled = compiled(lambda t: torch.tanh(t) * t.shape[0])
results = []
for n in (2, 3, 5, 3):
    t = torch.randn(n, 4)
    result = compare([scaled(t).numpy()], [(torch.tanh(t) * n).numpy()])
    results.append("ok" if result.ok else result.message)
print("new batch sizes:", results, "compiled", STATS["compiled"] - before.get("compiled", 0))
# A small net over a batch Dynamo made symbolic: on Vulkan one program for
# all sizes (the batch a `?` dimension), after the first call's static
# graph; on the CPU one compile per size.
torch._dynamo.reset()
before = dict(STATS)
net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)).eval()
compiled_net = compiled(net)
results = []
with torch.no_grad():
    for n in (2, 3, 5, 3, 7):
        t = torch.randn(n, 4)
        result = compare([compiled_net(t).numpy()], [net(t).numpy()])
        results.append("ok" if result.ok else result.message)
print("one program:", results, "compiled", STATS["compiled"] - before.get("compiled", 0),
      "for all sizes", STATS["dynamic"] - before.get("dynamic", 0))


class Explained(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = torch.relu(self.a(x))
        torch._dynamo.graph_break()
        return torch.median(y * 3, 1, keepdim=True).values * 2


import fx_mlir  # noqa: E402
explained = fx_mlir.explain(Explained().eval(), torch.randn(2, 8), target=target)
text = str(explained).splitlines()
print("explain:", text[0])
print("\n".join(line for line in text[1:] if not line.startswith(("  break", "    "))))
graphs = explained.as_dict()["graphs"]
print("dict:", len(graphs), "graphs, unsupported",
      {k: len(v) for g in graphs for k, v in g["unsupported"].items()})
if target == "cpu":
    dots = explained.dispatch_graphs()
    print("dispatch graphs:", len(dots), "digraphs, first:",
          dots[0].splitlines()[1].strip(" /") if dots else None)
    prefix = os.path.join(tempfile.mkdtemp(), "g")
    saved = explained.save_dispatch_graphs(prefix)
    with open(saved[0]) as f:
        print("saved:", [os.path.basename(p) for p in saved], "<svg" if "<svg" in f.read() else "")
    try:
        explained.save_dispatch_graphs(prefix, format="png")
    except ValueError as e:
        print("bad format: ValueError:", e)
torch._dynamo.reset()
x = torch.randn(2, 5)
with torch.no_grad():
    check("mode in options", [compiled(lin, mode="reduce-overhead")(x)], [lin(x)])
torch._dynamo.reset()
dump = tempfile.mkdtemp()
with torch.no_grad():
    compiled(lin, dump_dir=dump)(x)
print("dump_dir: has files", any(files for _, _, files in os.walk(dump)))
for what, options, mode in (("bad option", {"targett": "cpu"}, None),
                            ("bad target", {"target": "metal"}, None),
                            ("bad mode", None, "fastest")):
    torch._dynamo.reset()
    try:
        torch.compile(lin, backend="fx_mlir", options=options, mode=mode)(torch.randn(2, 5))
        print(what + ": no error")
    except Exception as e:
        cause = getattr(e, "inner_exception", None) or e
        print(what + ":", type(cause).__name__ + ":", str(cause).splitlines()[0])

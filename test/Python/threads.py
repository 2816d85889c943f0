# Concurrency: distinct models, each run from its own threads, and one model
# run from several threads at once, through the Python binding (which
# releases the GIL while a model runs). Every output must equal the
# single-threaded run's, bit for bit; a deadlock fails by lit's timeout.
# RUN: %python %s cpu | FileCheck %s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s %}
# CHECK: models: 3
# CHECK: distinct models from their own threads: 3 threads x 30 calls ok
# CHECK: one model from several threads: 4 threads x 30 calls ok
# CHECK: mixed: 6 threads x 20 calls ok
import sys
import threading

import numpy as np

import fx_mlir

target = sys.argv[1]

# Large enough that the CPU code splits its loops over the thread pool.
ROWS = """
func.func @rows(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %0 = fx.softmax %x {dim = 1 : i64} : (tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %1 = fx.sigmoid %0 : (tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %1 : tensor<256x1024xf32>
}
"""
MATMUL = """
func.func @mm(%a: tensor<192x160xf32>, %b: tensor<160x224xf32>) -> tensor<192x224xf32> {
  %0 = fx.mm %a, %b : (tensor<192x160xf32>, tensor<160x224xf32>) -> tensor<192x224xf32>
  %1 = fx.relu %0 : (tensor<192x224xf32>) -> tensor<192x224xf32>
  return %1 : tensor<192x224xf32>
}
"""
SUM = """
func.func @sum(%x: tensor<512x300xf32>) -> tensor<300xf32> {
  %0 = fx.exp %x : (tensor<512x300xf32>) -> tensor<512x300xf32>
  %1 = fx.sum %0 {dim = array<i64: 0>} : (tensor<512x300xf32>) -> tensor<300xf32>
  return %1 : tensor<300xf32>
}
"""

rng = np.random.default_rng(0)
cases = []
for text, shapes in [(ROWS, [(256, 1024)]), (MATMUL, [(192, 160), (160, 224)]),
                     (SUM, [(512, 300)])]:
    model = fx_mlir.compile(text, target=target)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    expected = [np.array(o, copy=True) for o in model(*inputs)]
    cases.append((model, inputs, expected))
print("models:", len(cases))

errors = []


def hammer(case, calls):
    model, inputs, expected = case
    try:
        for _ in range(calls):
            outputs = model(*inputs)
            for got, want in zip(outputs, expected):
                if not np.array_equal(got, want):
                    errors.append(f"{model!r}: output differs from the single-threaded run")
                    return
    except Exception as e:  # noqa: BLE001 - reported below
        errors.append(repr(e))


def run(assignments, calls, label):
    threads = [threading.Thread(target=hammer, args=(case, calls)) for case in assignments]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    if any(t.is_alive() for t in threads):
        print(f"{label}: a thread did not finish (deadlock?)", flush=True)
        sys.exit(1)
    if errors:
        print(f"{label}: " + "; ".join(errors[:3]), flush=True)
        sys.exit(1)
    print(f"{label}: {len(threads)} threads x {calls} calls ok", flush=True)


run([cases[0], cases[1], cases[2]], 30, "distinct models from their own threads")
run([cases[1]] * 4, 30, "one model from several threads")
run([cases[i % 3] for i in range(6)], 20, "mixed")

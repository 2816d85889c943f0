#!/usr/bin/env python3
"""ONNX Runtime's time per node for a torchvision model, to set beside
`fx-run --profile` (our time per loop) for the same model.

Usage: .venv/bin/python bench/models/ort_nodes.py [MODEL] [--threads T]
                                                  [--runs N] [--top K] [--batch B]

Exports MODEL (default mobilenet_v2, seeded weights, input Bx3x224x224)
with the legacy ONNX exporter, runs it on the CPU provider with profiling
on (graph optimizations all: ORT's NCHWc layout and fused Conv+Clip), and
prints the median call time, the median time of each node over the timed
runs, totals by op type, and the slowest K nodes.
"""
import argparse
import collections
import io
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
from machine import cpu_name  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", nargs="?", default="mobilenet_v2")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--batch", type=int, default=1, help="images per call")
    args = parser.parse_args()

    import onnxruntime
    import torch
    from fx_mlir.torchvision_models import models

    torch.manual_seed(0)
    model = getattr(models(), args.model)().eval()
    x = torch.randn(args.batch, 3, 224, 224)
    buffer = io.BytesIO()
    torch.onnx.export(model, (x,), buffer, dynamo=False)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.enable_profiling = True
    # The profile's JSON goes to a temporary directory, not the caller's.
    options.profile_file_prefix = os.path.join(tempfile.mkdtemp(prefix="fx-ort-"), "profile")
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = onnxruntime.InferenceSession(buffer.getvalue(), options,
                                           providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: x.numpy()}
    for _ in range(10):
        session.run(None, feed)
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - start) * 1e3)
    with open(session.end_profiling()) as f:
        events = json.load(f)
    per_node = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            per_node[(e["name"][:-len("_kernel_time")], e["args"].get("op_name"))].append(e["dur"])
    medians = sorted(((statistics.median(v), k) for k, v in per_node.items()), reverse=True)
    by_op = collections.Counter()
    for us, (_, op) in medians:
        by_op[op] += us
    print(f"{args.model} on {cpu_name()}, {args.threads} threads, onnxruntime "
          f"{onnxruntime.__version__}, batch {args.batch}: median call {statistics.median(times):.3f} ms "
          f"(profiling on); sum of node medians {sum(m for m, _ in medians):.0f} us")
    print("by op type (us): " + ", ".join(f"{op} {us:.0f}" for op, us in by_op.most_common()))
    for us, (name, op) in medians[:args.top]:
        print(f"{us:9.1f} us  {op:12s} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What running fx-mlir's Vulkan code on CUDA tensors costs: the copies
through the host that the torch.compile backend (python/fx_mlir/dynamo.py)
makes, measured beside the same call on host arrays.

  bench/vulkan/run.py prepare --dir D --only resnet18 ...   (here)
  cp build/lib/libfxrt.so D/                                (here)
  bench/vulkan/cuda_copy.py --dir D --only resnet18 ...     (GPU machine)

For each model of D/workloads.json (seeded as run.py seeds them), through
the Python runtime binding (fx_mlir.runtime, libfxrt.so: no compiler),
median wall milliseconds over --runs calls of:
  host:  NumPy input -> Vulkan model -> NumPy output (fx-mlir's own
         staging copies included);
  cuda:  the backend's path: a CUDA tensor .cpu().numpy() -> the model ->
         torch.from_numpy(...).to("cuda"), synchronized;
  d2h, h2d: torch's copy of the input to the host and of the output to the
         device alone;
  eager: the PyTorch model on CUDA, for scale.
The cuda call's output is checked against the host call's (they must
agree exactly: same artifact, same input) and both against float64 eager
(relative L2). Prints a markdown table.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)


def median_ms(fn, runs, sync):
    fn()
    times = []
    for _ in range(runs):
        sync()
        t = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, help="artifacts of run.py prepare, "
                        "with libfxrt.so copied in (or FX_MLIR_LIB set)")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    lib = os.path.join(args.dir, "libfxrt.so")
    if "FX_MLIR_LIB" not in os.environ and os.path.exists(lib):
        os.environ["FX_MLIR_LIB"] = lib
    import numpy as np
    import torch
    from fx_mlir import runtime
    from run import make_model
    if not torch.cuda.is_available():
        sys.exit("cuda_copy.py: no CUDA device: the measurement is of copies "
                 "between CUDA tensors and fx-mlir's Vulkan buffers")
    sync = torch.cuda.synchronize
    manifest = json.load(open(os.path.join(args.dir, "workloads.json")))
    rows = []
    for w in manifest["workloads"]:
        name = w["name"]
        if w["kind"] != "model" or (args.only and name not in args.only):
            continue
        model = make_model(name, torch)
        state = dict(model.named_parameters())
        state.update(dict(model.named_buffers()))
        fx = runtime.load(os.path.join(args.dir, w["artifact"]), target="vulkan")
        for p in w["params"]:
            fx.set_parameter(p, state[p].detach().contiguous().numpy())
        gen = torch.Generator().manual_seed(1)
        x = torch.randn(*w["shapes"][0], generator=gen)
        x_np = x.numpy()
        x_cuda = x.to("cuda")
        model_cuda = model.to("cuda")

        def host():
            return fx(x_np)[0]

        def cuda():
            return torch.from_numpy(fx(x_cuda.cpu().numpy())[0]).to("cuda")

        phases = {"d2h": [], "fx": [], "h2d": []}

        def cuda_phases():
            t0 = time.perf_counter()
            a = x_cuda.cpu().numpy()
            t1 = time.perf_counter()
            r = fx(a)[0]
            t2 = time.perf_counter()
            out = torch.from_numpy(r).to("cuda")
            sync()
            t3 = time.perf_counter()
            for key, dt in (("d2h", t1 - t0), ("fx", t2 - t1), ("h2d", t3 - t2)):
                phases[key].append(dt * 1e3)
            return out

        out_host = host()
        out_cuda = cuda()
        same = np.array_equal(out_host, out_cuda.cpu().numpy())
        with torch.no_grad():
            ref = make_model(name, torch).double().to("cuda")(x_cuda.double()).cpu().numpy()
        rel = float(np.linalg.norm(out_host - ref) / np.linalg.norm(ref))
        with torch.no_grad():
            row = {
                "model": name, "input MB": x.numel() * 4 / 1e6,
                "output MB": out_host.size * 4 / 1e6,
                "host": median_ms(host, args.runs, sync),
                "cuda": median_ms(cuda, args.runs, sync),
                "d2h": median_ms(lambda: x_cuda.cpu(), args.runs, sync),
                "h2d": median_ms(lambda: torch.from_numpy(out_host).to("cuda"),
                                 args.runs, sync),
                "eager": median_ms(lambda: model_cuda(x_cuda), args.runs, sync),
                "host nosync": median_ms(host, args.runs, lambda: None),
                "same": same, "rel": rel}
        median_ms(cuda_phases, args.runs, sync)
        for key, values in phases.items():
            row["phase " + key] = statistics.median(values)
        rows.append(row)
        print(name, row, file=sys.stderr, flush=True)
    print(f"Device: {torch.cuda.get_device_name()}, torch {torch.__version__}; "
          f"median wall ms of {args.runs} calls.\n")
    print("| model | input MB | output MB | fx host arrays | fx CUDA tensors (via host) "
          "| extra | torch D2H of input | torch H2D of output | eager CUDA "
          "| CUDA path = host path | rel L2 vs float64 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['input MB']:.2f} | {r['output MB']:.3f} | "
              f"{r['host']:.3f} | {r['cuda']:.3f} | {r['cuda'] - r['host']:+.3f} | "
              f"{r['d2h']:.3f} | {r['h2d']:.3f} | {r['eager']:.3f} | "
              f"{'yes' if r['same'] else 'NO'} | {r['rel']:.1e} |")
    print("\nThe CUDA path's call in phases (median ms): the input's copy to the "
          "host, the fx-mlir call on it, the output's copy to the device; and "
          "the host call timed without torch.cuda.synchronize() between calls.\n")
    print("| model | D2H | fx call | H2D | fx host arrays, no CUDA calls |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['phase d2h']:.3f} | {r['phase fx']:.3f} | "
              f"{r['phase h2d']:.3f} | {r['host nosync']:.3f} |")
    if not all(r["same"] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()

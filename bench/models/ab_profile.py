#!/usr/bin/env python3
"""Two or more CPU artifacts of one model, alternated on a noisy host:
the sum over loops of each loop's fastest time (`fxrt-run --profile`).

Usage: python3 bench/models/ab_profile.py A.fxa B.fxa [...] --weights W
                                         --input X [--reps R] [--runs N]
                                         [--group NAME ...] [--wall]

Runs each artifact R times in turn (`fxrt-run --bench N --profile`, whose
per-loop times are medians over the N profiled runs) and keeps, per loop
and artifact, the minimum over the R rounds: a host whose wall times vary
by 30-40% from minute to minute still compares artifacts loop by loop.
Prints, per artifact, the total and the sums of loops whose names contain
each --group word (the rest as `other`, serial code as `serial`). Artifacts
compiled from different IR may have different loops: compare their totals
and groups, not loop by loop. Prints the CPU; writes no result file.

With --wall, each round takes each artifact's median wall time of
`fxrt-run --bench N` (no profile) and the minimum over rounds is printed:
the way to compare artifacts that run different numbers of loops (a
sub-batched one runs its loops once per slice, and the profile's tracing
costs per loop).
"""
import argparse
import collections
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from machine import cpu_name  # noqa: E402

STEP = re.compile(r"\s+\d+\s+([0-9.]+) us\s+[0-9.]+%\s+(.*)")


def profile(fxrt, artifact, args):
    out = subprocess.run(
        [fxrt, artifact, "--weights", args.weights, "--input", args.input,
         "--bench", str(args.runs), "--profile"],
        capture_output=True, text=True, check=True).stdout
    steps = [(float(m.group(1)), m.group(2))
             for m in map(STEP.match, out.splitlines()) if m]
    if not steps:
        sys.exit(f"no profile from {artifact}:\n{out}")
    return steps


def wall(fxrt, artifact, args):
    out = subprocess.run(
        [fxrt, artifact, "--weights", args.weights, "--input", args.input,
         "--bench", str(args.runs)],
        capture_output=True, text=True, check=True).stdout
    m = re.search(r"run \(\d+ runs\): median ([0-9.]+) ms", out)
    if not m:
        sys.exit(f"no timing from {artifact}:\n{out}")
    return float(m.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("artifacts", nargs="+")
    parser.add_argument("--weights", required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--group", nargs="*", action="extend", default=[],
                        help="sum the loops whose names contain this (repeatable; several words each)")
    parser.add_argument("--wall", action="store_true",
                        help="compare median wall times without profiling")
    args = parser.parse_args()
    fxrt = os.path.join(args.build, "bin", "fxrt-run")
    if args.wall:
        fastest = {}
        for _ in range(args.reps):
            for artifact in args.artifacts:
                ms = wall(fxrt, artifact, args)
                fastest[artifact] = min(ms, fastest.get(artifact, ms))
        print(f"CPU: {cpu_name()}; minima over {args.reps} rounds of the median "
              f"of `fxrt-run --bench {args.runs}`")
        for artifact in args.artifacts:
            print(f"{artifact}: {fastest[artifact]:.2f} ms")
        return
    best = {}
    for _ in range(args.reps):
        for artifact in args.artifacts:
            steps = profile(fxrt, artifact, args)
            old = best.get(artifact)
            if old is not None and len(old) != len(steps):
                sys.exit(f"{artifact}: the loop count changed between runs")
            best[artifact] = steps if old is None else [
                (min(a[0], b[0]), a[1]) for a, b in zip(old, steps)]
    print(f"CPU: {cpu_name()}; minima over {args.reps} rounds of "
          f"`fxrt-run --bench {args.runs} --profile`")
    for artifact in args.artifacts:
        sums = collections.Counter()
        for us, name in best[artifact]:
            key = "serial" if name.startswith("serial code") else next(
                (g for g in args.group if g in name), "other")
            sums[key] += us
        parts = " ".join(f"{k}={v / 1000:.2f} ms"
                         for k, v in sorted(sums.items()))
        print(f"{artifact}: total {sum(sums.values()) / 1000:.2f} ms ({parts})")


if __name__ == "__main__":
    main()

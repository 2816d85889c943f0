#!/usr/bin/env python3
"""A/B runs of compiler variants on the GPU machine: the same models
compiled several ways, measured alternately in one device call, so that
differences between variants are not differences between machines (the
H200s of the device pool differ from each other by more than most
changes gain).

  bench/vulkan/ab.py make --models resnet50_b32,densenet121_b16 \\
      base: nhwc:--channels-last tiles:ENV=VALUE
      (here) compiles each model's FX IR from bench/vulkan/artifacts (run
      `run.py prepare` first) once per variant into
      bench/vulkan/artifacts-<variant>, with that variant's extra
      fx-compile flags (words starting with --) and environment
      (NAME=VALUE words, for temporary switches in a working tree); copies
      fxrt-run beside them.
  bench/vulkan/ab.py measure --rounds 2 base nhwc serial=base:ENV=VALUE
      (on the GPU machine, the Vulkan loader installed) runs `run.py
      measure --eager-only` on each variant in turn, `--rounds` times
      (NAME=DIR measures artifacts-DIR under the name NAME, and NAME=VALUE
      words after a colon set the runtime's environment: the same
      artifacts run two ways),
      prints per model and variant the GPU, wall and in-place wall
      (fxrt-run --in-place-io) milliseconds of every round and the relative L2 error, and writes $OUT/summary.txt and
      $OUT/prof-<variant>.txt (the first round's per-step profiles).

The variants' directories are git-ignored; pass them to the device in
`carry` (64 MiB in all).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def make(args):
    src = os.path.join(HERE, "artifacts")
    manifest = json.load(open(os.path.join(src, "workloads.json")))
    models = args.models.split(",")
    for spec in args.variants:
        name, _, rest = spec.partition(":")
        flags = [w for w in rest.split(",") if w.startswith("--")]
        env = dict(os.environ)
        env.update(w.split("=", 1) for w in rest.split(",") if w and not w.startswith("--"))
        out = os.path.join(HERE, "artifacts-" + name)
        os.makedirs(out, exist_ok=True)
        chosen = [w for w in manifest["workloads"]
                  if w["name"] in models and w["precision"] == args.precision]
        missing = set(models) - {w["name"] for w in chosen}
        if missing:
            sys.exit(f"not in {src}/workloads.json at precision {args.precision}: "
                     f"{', '.join(sorted(missing))}")
        for w in chosen:
            mlir = os.path.join(src, w["name"] + ".mlir")
            shutil.copy(mlir, out)
            cmd = [os.path.join(args.build, "bin", "fx-compile"), mlir, "--target=vulkan",
                   "--vulkan-target=" + manifest["target"], "--precision=" + args.precision,
                   "-o", os.path.join(out, w["artifact"])] + flags
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if proc.returncode:
                sys.exit(f"{name}: {w['name']}: fx-compile failed:\n{proc.stderr}")
        shutil.copy(os.path.join(args.build, "bin", "fxrt-run"), out)
        with open(os.path.join(out, "workloads.json"), "w") as f:
            json.dump(dict(manifest, workloads=chosen), f, indent=1)
        print(f"{name}: {', '.join(w['name'] for w in chosen)} -> {out}")


def measure(args):
    work = os.environ.get("TMPDIR", "/tmp")
    out_dir = os.environ.get("OUT", work)
    rows = {}
    for r in range(1, args.rounds + 1):
        for spec in args.variants:
            v, _, rest = spec.partition(":")
            v, _, src = v.partition("=")
            env = dict(os.environ)
            env.update(w.split("=", 1) for w in rest.split(",") if w)
            out = os.path.join(work, f"ab-{v}-{r}")
            proc = subprocess.run(
                [sys.executable, os.path.join(HERE, "run.py"), "measure", "--eager-only",
                 "--dir", os.path.join(HERE, "artifacts-" + (src or v)), "--out", out,
                 "--runs", str(args.runs)], capture_output=True, text=True, env=env)
            if proc.returncode:
                print(f"{v} round {r}: run.py measure failed:\n{proc.stderr[-2000:]}")
                continue
            for row in json.load(open(os.path.join(out, "vulkan.json")))["rows"]:
                rows.setdefault(row["name"], {}).setdefault(v, []).append(row)
            if r == 1:
                shutil.copy(os.path.join(out, "profiles.txt"),
                            os.path.join(out_dir, f"prof-{v}.txt"))
    lines = []
    for name, by_variant in rows.items():
        lines.append(name)
        for v, runs in by_variant.items():
            cells = [f"{x['fx_gpu_ms']:.4f} / {x['fx_wall_ms']:.4f} / "
                     f"{x.get('fx_wall_inplace_ms') or float('nan'):.4f}"
                     if "fx_gpu_ms" in x else "error" for x in runs]
            l2 = runs[0].get("rel_l2")
            lines.append(f"  {v:12} GPU / wall / in-place wall ms: {'  '.join(cells)}"
                         f"   rel L2 {l2}")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out_dir, "summary.txt"), "w") as f:
        f.write(text + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--models", required=True, help="comma-separated workload names")
    m.add_argument("--build", default=os.path.join(ROOT, "build"))
    m.add_argument("--precision", default="high")
    m.add_argument("variants", nargs="+", help="NAME:[--flag,NAME=VALUE,...]")
    s = sub.add_parser("measure")
    s.add_argument("--rounds", type=int, default=2)
    s.add_argument("--runs", type=int, default=20)
    s.add_argument("variants", nargs="+")
    args = parser.parse_args()
    make(args) if args.cmd == "make" else measure(args)


if __name__ == "__main__":
    main()

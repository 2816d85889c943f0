#!/usr/bin/env python3
"""The CPU op tests (test/Integration/CPU/*.mlir) on a Vulkan device without
MLIR: the GPU machine.

  bench/vulkan/ops.py prepare [--build DIR] [--dir D] [--target nvidia-h200]
      (here) compiles every test function with a static signature to
      D/<file>.<function>.fxa with fx-compile; lists the skipped ones.
  bench/vulkan/ops.py run [--dir D]
      (there) runs utils/fx-check.py on every file with fxrt-run standing in
      for fx-run (bench/vulkan/fxrt-as-fx-run): PyTorch computes the
      references on that machine. Prints fx-check's lines and a total.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FILES = sorted(glob.glob(os.path.join(ROOT, "test", "Integration", "CPU", "*.mlir")))


def prepare(args):
    os.makedirs(args.dir, exist_ok=True)
    compiled, skipped = 0, []
    for path in FILES:
        stem = os.path.basename(path)[:-len(".mlir")]
        names = re.findall(r"^func\.func @([\w]+)\(", open(path).read(), re.M)
        for name in names:
            out = os.path.join(args.dir, f"{stem}.{name}.fxa")
            cmd = [os.path.join(args.build, "bin", "fx-compile"), path, "--entry", name,
                   "--target=vulkan", f"--vulkan-target={args.target}", "-o", out]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0 and ("has the dynamic type" in proc.stderr or
                                         "compile for fixed sizes" in proc.stderr):
                # Dynamic dimensions a Vulkan program cannot take at run
                # time (inner ones): one entry per size, the test's inputs
                # pick theirs.
                proc = subprocess.run(cmd + ["--dynamic-sizes=1,2,3,4,5,6,7,8"],
                                      capture_output=True, text=True)
            if proc.returncode == 0:
                compiled += 1
            else:
                skipped.append(f"{stem}.{name}: {proc.stderr.strip().splitlines()[0]}")
    print(f"{compiled} functions compiled, {len(skipped)} skipped")
    for line in skipped:
        print("  skipped " + line)


def run(args):
    env = dict(os.environ, FXA_DIR=os.path.abspath(args.dir),
               FXRT_RUN=os.path.abspath(os.path.join(args.dir, "..", "fxrt-run"))
               if not args.fxrt else args.fxrt)
    passed = failed = skipped = 0
    for path in FILES:
        proc = subprocess.run([sys.executable, os.path.join(ROOT, "utils", "fx-check.py"),
                               os.path.join(HERE, "fxrt-as-fx-run"), path],
                              capture_output=True, text=True, env=env)
        for line in proc.stdout.splitlines():
            if line.startswith("PASS"):
                passed += 1
            elif line.startswith("FAIL") and ("no artifact" in line or
                                              "no compiled shape" in line):
                # Not compiled, or not for these shapes: --dynamic-sizes gives
                # every dynamic dimension one size.
                skipped += 1
                print(line[:300])
            elif line.startswith("FAIL"):
                failed += 1
                print(line[:400])
        print(f"{os.path.basename(path)}: {proc.stdout.count(chr(10))} cases", flush=True)
        errors = [l for l in proc.stderr.splitlines() if "no test cases" not in l]
        if errors:
            print("\n".join(errors)[-1000:])
    print(f"ops on the device: {passed} passed, {failed} failed, {skipped} not compiled "
          "for their shapes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--dir", default=os.path.join(HERE, "artifacts", "ops"))
    p.add_argument("--target", default="nvidia-h200")
    r = sub.add_parser("run")
    r.add_argument("--dir", default=os.path.join(HERE, "artifacts", "ops"))
    r.add_argument("--fxrt", help="fxrt-run binary (default: DIR/../fxrt-run)")
    args = parser.parse_args()
    prepare(args) if args.cmd == "prepare" else run(args)


if __name__ == "__main__":
    main()

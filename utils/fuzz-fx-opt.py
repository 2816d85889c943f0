#!/usr/bin/env python3
"""Mutation fuzzer for fx-opt's parser, verifiers and folds.

Usage: fuzz-fx-opt.py FX_OPT SEED_FILE [--seed N] [--iterations N] [--passes ARGS]

Splits SEED_FILE into functions, mutates numbers, shapes, dtypes and tokens in
one function at a time, and runs `fx-opt` on each mutant (with the given
passes). Any mutant on which fx-opt dies from a signal, or exits with
anything but 0 or 1, is a crash: it is printed and the script exits 1. Runs
are deterministic for a given --seed.
"""
import argparse
import random
import re
import subprocess
import sys
import tempfile

NUMBER = re.compile(r"(?<![\w#%])-?\d+(\.\d+)?(e[+-]?\d+)?")
DTYPES = ["f32", "f16", "bf16", "i64", "i32", "i1", "f64", "i8", "index"]
INTERESTING = ["0", "1", "-1", "2", "-2", "3", "7", "-9223372036854775808",
               "9223372036854775807", "4294967296", "0.0", "-1.5", "1e308",
               "nan"]


def split_functions(text):
    funcs, cur = [], []
    for line in text.splitlines():
        if line.startswith("func.func"):
            cur = [line]
        elif cur:
            cur.append(line)
            if line.startswith("}"):
                funcs.append("\n".join(cur))
                cur = []
    return funcs


def mutate(rng, func):
    kind = rng.randrange(6)
    if kind <= 2:
        # Replace one number (a dimension, an attribute value, an index).
        spots = list(NUMBER.finditer(func))
        if not spots:
            return func
        m = rng.choice(spots)
        return func[:m.start()] + rng.choice(INTERESTING) + func[m.end():]
    if kind == 3:
        # Change one dtype.
        spots = list(re.finditer(r"x(f32|f16|bf16|i64|i32|i1)>", func))
        if not spots:
            return func
        m = rng.choice(spots)
        return func[:m.start(1)] + rng.choice(DTYPES) + func[m.end(1):]
    if kind == 4:
        # Drop or duplicate a dimension of one tensor type.
        spots = list(re.finditer(r"tensor<((?:[?\d]+x)*)", func))
        if not spots:
            return func
        m = rng.choice(spots)
        dims = m.group(1)
        parts = [p for p in dims.split("x") if p]
        if parts and rng.random() < 0.5:
            parts.pop(rng.randrange(len(parts)))
        else:
            parts.insert(0, rng.choice(["1", "?", "3"]))
        new = "".join(p + "x" for p in parts)
        return func[:m.start(1)] + new + func[m.end(1):]
    # Delete one token.
    tokens = list(re.finditer(r"\S+", func))
    m = rng.choice(tokens)
    return func[:m.start()] + func[m.end():]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("fx_opt")
    ap.add_argument("seed_file")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--passes", default="--canonicalize --fx-refine-shapes")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    funcs = split_functions(open(args.seed_file).read())
    crashes = 0
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        path = f.name
    for i in range(args.iterations):
        func = rng.choice(funcs)
        for _ in range(rng.randint(1, 3)):
            func = mutate(rng, func)
        with open(path, "w") as f:
            f.write(func + "\n")
        proc = subprocess.run([args.fx_opt, path] + args.passes.split(),
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode not in (0, 1):
            crashes += 1
            print(f"CRASH (exit {proc.returncode}) on mutant {i}:\n{func}\n"
                  f"{proc.stderr[-2000:]}\n")
    print(f"{args.iterations} mutants, {crashes} crashes")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())

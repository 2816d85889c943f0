#!/usr/bin/env python3
"""Writes FileCheck lines for a round-trip test from fx-opt's printed output.

Usage: fx-opt IN.mlir | utils/gen-roundtrip-checks.py IN.mlir > OUT.mlir

Each function of IN.mlir is preceded by CHECK lines matching what fx-opt
printed for it, with SSA names turned into FileCheck captures, so a later
change in printing or parsing shows up as a test failure. Review the result:
the CHECK lines state what the printer does now, which must be what it should
do.
"""
import re
import sys

SSA = re.compile(r"%([A-Za-z0-9_]+)(:\d+)?(#\d+)?")


def checks_for(func_lines):
    names = {}
    out = []

    def name_of(raw, is_def):
        if is_def:
            var = ("ARG" + raw[3:]) if raw.startswith("arg") else "V" + raw
            names[raw] = var
            return "%[[" + var + ":[a-z0-9]+]]"
        return "%[[" + names[raw] + "]]"

    for i, line in enumerate(func_lines):
        text = line.strip()
        if text in ("}", "module {") or not text:
            continue
        if text.startswith("func.func"):
            head = SSA.sub(lambda m: name_of(m.group(1), True) + (m.group(2) or ""), text)
            name = re.match(r"func\.func @(\w+)", text).group(1)
            out.append("// CHECK-LABEL: func.func @" + name + "(")
            out.append("// CHECK-SAME: " + head.split("(", 1)[1])
            continue
        defs = text.split(" = ", 1)
        if len(defs) == 2 and defs[0].startswith("%"):
            lhs = SSA.sub(lambda m: name_of(m.group(1), True) + (m.group(2) or ""), defs[0])
            rhs = defs[1]
        else:
            lhs, rhs = "", text
        rhs = SSA.sub(lambda m: name_of(m.group(1), False) + (m.group(3) or ""), rhs)
        # Literal text must not contain FileCheck's regex brackets.
        out.append("// CHECK-NEXT: " + (lhs + " = " if lhs else "") + rhs)
    return out


def main():
    source = open(sys.argv[1]).read().splitlines()
    printed = sys.stdin.read().splitlines()
    # Split printed output into functions.
    funcs, cur = {}, None
    for line in printed:
        m = re.match(r"\s*func\.func @(\w+)", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
        if cur:
            funcs[cur].append(line)
            if line.strip() == "}" and line.startswith("  }"):
                cur = None
    result = []
    for line in source:
        m = re.match(r"func\.func @(\w+)", line)
        if m and m.group(1) in funcs:
            result.extend(checks_for(funcs[m.group(1)]))
        result.append(line)
    print("\n".join(result))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes seeded random weights (.safetensors) and one input (.npy) for an
example model: MODEL.mlir OUT_PREFIX. Parameters are the arguments tagged
{fx.param = "name"}; the input is the first other argument, with dynamic
dimensions set to 2."""
import json
import re
import struct
import sys

import numpy as np

src = open(sys.argv[1]).read()
sig = re.search(r"func\.func @\w+\((.*?)\)\s*->", src, re.S).group(1)
rng = np.random.default_rng(0)
weights, data, offset, header = {}, [], 0, {}
input_written = False
for m in re.finditer(r"%\w+: tensor<([^>]*)>(\s*\{fx\.param = \"([^\"]+)\"\})?", sig):
    dims = [2 if d == "?" else int(d) for d in m.group(1).split("x")[:-1]]
    assert m.group(1).endswith("f32"), "examples use f32"
    if m.group(3):
        name = m.group(3)
        value = rng.standard_normal(dims).astype(np.float32) * 0.1
        if name.endswith("running_var"):
            value = np.abs(value) + 1.0
        blob = value.tobytes()
        header[name] = {"dtype": "F32", "shape": dims,
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        data.append(blob)
    elif not input_written:
        np.save(sys.argv[2] + ".input.npy",
                rng.standard_normal(dims).astype(np.float32))
        input_written = True
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
with open(sys.argv[2] + ".safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(data))

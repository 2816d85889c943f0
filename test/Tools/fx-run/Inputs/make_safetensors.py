"""Writes a .safetensors file from numpy arrays (the format is simple enough
to write directly: an 8-byte header length, a JSON header, raw data)."""
import json
import struct
import sys

import numpy as np

DTYPES = {np.float32: "F32", np.float16: "F16", np.int64: "I64"}


def write(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, array in tensors.items():
        data = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": DTYPES[array.dtype.type],
                        "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))

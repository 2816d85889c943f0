"""A minimal .safetensors writer and reader (the format is small enough that
the importer does not need the `safetensors` package)."""

import json
import struct

import numpy as np

from ._emitter import SAFETENSORS_DTYPES, element_type, tensor_to_numpy

_NUMPY = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16, "I64": np.int64,
          "I32": np.int32, "BOOL": np.bool_}


def save(tensors, path, metadata=None):
    """Writes {name: torch.Tensor} to `path` in the safetensors format."""
    header = {}
    blobs = []
    offset = 0
    for name, tensor in tensors.items():
        data = tensor_to_numpy(tensor).tobytes()
        header[name] = {"dtype": SAFETENSORS_DTYPES[element_type(tensor.dtype)],
                        "shape": list(tensor.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


def load(path):
    """Reads a safetensors file into {name: numpy array} (bf16 as uint16 bits)."""
    with open(path, "rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(size))
        base = 8 + size
        out = {}
        for name, info in header.items():
            if name == "__metadata__":
                continue
            begin, end = info["data_offsets"]
            f.seek(base + begin)
            out[name] = np.frombuffer(f.read(end - begin), dtype=_NUMPY[info["dtype"]]).reshape(
                info["shape"])
        return out

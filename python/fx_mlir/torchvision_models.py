"""torchvision's model definitions, in any PyTorch this project supports.

    from fx_mlir.torchvision_models import models
    net = models().resnet18()

torchvision's model code is pure Python, but `import torchvision` also loads
its C++ operators (`torchvision/_C.so`: nms, roi_align, ...). PyPI has no
CPU build of torchvision 0.28: its wheel links CUDA's libc10_cuda.so, which
a CPU build of torch 2.13 lacks, so the library does not load, and
torchvision 0.28 then fails in `import torchvision` itself
(`_meta_registrations.py` registers a fake kernel for `torchvision::nms`,
which then does not exist: "operator torchvision::nms does not exist").

When (and only when) the operator library cannot be loaded, this module
declares the schemas of the two operators that import needs, with no kernel:
the models import, and calling `torchvision.ops.nms` raises PyTorch's
"no kernel" error instead of computing anything. Classification,
segmentation and video models do not use these operators; detection models
(which do) are out of reach on such an install, and say so when run.
"""

import functools
import glob
import os

import torch

# The operators torchvision's import registers fake kernels for
# unconditionally (torchvision/_meta_registrations.py), with their schemas.
_IMPORT_TIME_OPERATORS = {
    "nms": "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms": "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
}
_stub_library = None


def _operator_library_loads():
    import importlib.util
    spec = importlib.util.find_spec("torchvision")
    if spec is None or not spec.submodule_search_locations:
        return True  # no torchvision: let the import below report it
    for directory in spec.submodule_search_locations:
        for path in glob.glob(os.path.join(directory, "_C*.so")):
            try:
                torch.ops.load_library(path)
                return True
            except (OSError, RuntimeError):
                return False
    return True


@functools.lru_cache(None)
def models():
    """`torchvision.models`, importable even where torchvision's operators
    are not (see the module docstring)."""
    global _stub_library
    if not _operator_library_loads() and not hasattr(torch.ops.torchvision, "nms"):
        _stub_library = torch.library.Library("torchvision", "DEF")
        for schema in _IMPORT_TIME_OPERATORS.values():
            _stub_library.define(schema)
    import torchvision.models
    return torchvision.models


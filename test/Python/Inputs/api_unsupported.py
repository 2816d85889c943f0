import torch

import fx_mlir
import models

try:
    fx_mlir.import_module(models.unsupported().eval(), (torch.randn(3, 4),))
    print("imported")
except fx_mlir.UnsupportedOpsError as e:
    print(sorted(e.ops), len(e.ops["aten.median.dim"]))

# A module in training mode is refused (batch norm/dropout would differ).
try:
    fx_mlir.import_module(torch.nn.BatchNorm1d(3), (torch.randn(2, 3),))
except ValueError as e:
    print(e)

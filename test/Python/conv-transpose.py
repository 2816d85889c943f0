# Transposed convolutions (nn.ConvTranspose1d/2d: strides, padding,
# output padding, groups, dilation, with and without bias), F.fold
# (aten.col2im, a transposed convolution by one-hot filters) and
# masked_scatter, as the importer decomposes them into FX ops, against
# eager PyTorch with the modules' weights bound from .safetensors. On the
# CPU and, where a Vulkan device is present, on it.
# REQUIRES: torch
# RUN: %python %s cpu | FileCheck %s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s %}
# CHECK-COUNT-14: PASS
# CHECK-NOT: FAIL

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from opcheck import Fn, check_module  # noqa: E402

target = sys.argv[1]
torch.manual_seed(0)


def check(name, module, *inputs):
    check_module(target, name, module, *inputs)


check("convT stride 1", nn.ConvTranspose2d(4, 6, 3), torch.randn(2, 4, 5, 6))
check("convT stride 2 padding output_padding",
      nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1), torch.randn(2, 4, 5, 6))
check("convT groups dilation no bias",
      nn.ConvTranspose2d(4, 6, 3, stride=2, padding=2, groups=2, dilation=2, bias=False),
      torch.randn(1, 4, 5, 4))
check("convT kernel 4 stride 2 (DCGAN)", nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1),
      torch.randn(1, 8, 7, 7))
check("convT padding beyond kernel", nn.ConvTranspose2d(3, 2, 2, stride=3, padding=2),
      torch.randn(1, 3, 6, 5))
check("convT 1d", nn.ConvTranspose1d(3, 5, 3, stride=2), torch.randn(2, 3, 9))
check("convT relu decoder", nn.Sequential(nn.ConvTranspose2d(6, 4, 2, stride=2), nn.ReLU(),
                                          nn.ConvTranspose2d(4, 2, 2, stride=2)),
      torch.randn(1, 6, 4, 4))

check("fold", Fn(lambda t: F.fold(t, (4, 5), 2)), torch.randn(1, 12, 12))
check("fold stride padding dilation",
      Fn(lambda t: F.fold(t, (7, 8), (2, 3), dilation=(1, 2), padding=1, stride=2)),
      torch.randn(2, 12, 12))
check("fold unbatched", Fn(lambda t: F.fold(t, (5, 5), 3, stride=1)), torch.randn(18, 9))
check("fold uncovered border", Fn(lambda t: F.fold(t, (6, 6), 3, stride=2)), torch.randn(1, 9, 4))
check("unfold then fold", Fn(lambda t: F.fold(F.unfold(t, 3, padding=1), (6, 7), 3, padding=1)),
      torch.randn(2, 3, 6, 7))

check("masked_scatter", Fn(lambda t, m, s: t.masked_scatter(m, s)), torch.randn(3, 4),
      torch.rand(3, 4) > 0.5, torch.randn(12))
check("masked_scatter broadcast mask", Fn(lambda t, m, s: t.masked_scatter(m, s)),
      torch.randn(3, 4), torch.rand(1, 4) > 0.5, torch.randn(5, 3))

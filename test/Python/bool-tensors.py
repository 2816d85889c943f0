# Boolean tensors in and out of vectorized code: masks as inputs (where,
# masked_fill, attention masks), comparisons as outputs and as
# temporaries, at sizes the CPU code vectorizes (a row of 32 elements is
# two 16-lane vectors). The CPU code once read and wrote such vectors as
# packed bits instead of a byte per element (fx-byte-bool-vectors). On
# the CPU and, where a Vulkan device is present, on it.
# REQUIRES: torch
# RUN: %python %s cpu | FileCheck %s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s %}
# CHECK-COUNT-10: ok
# CHECK-NOT: MISMATCH

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from opcheck import check_fn  # noqa: E402

target = sys.argv[1]
torch.manual_seed(0)


def check(name, fn, *xs):
    check_fn(target, name, fn, *xs)


a, b = torch.randn(4, 32), torch.randn(4, 32)
mask = torch.rand(4, 32) > 0.5
q, k, v = (torch.randn(1, 4, 17, 32) for _ in range(3))
check("where, mask input", lambda m, x, y: torch.where(m, x, y), mask, a, b)
check("masked_fill", lambda x, m: x.masked_fill(m, 0.0), a, mask)
check("masked_fill, broadcast mask", lambda x, m: x.masked_fill(m, -1.0), torch.randn(4, 4, 32),
      torch.rand(1, 4, 32) > 0.5)
check("comparison output", lambda x: x > 0, a)
check("logical ops output", lambda m, x: (x > 0) & ~m, mask, a)
check("bool through a temporary", lambda m, x, y: torch.where((x > y) | m, x, y) * 2, mask, a, b)


def attend(x, y, z, m):
    # Attention with a boolean mask (True: attend), as torch 2 spells it,
    # or written out on torch 1.13 (no scaled_dot_product_attention).
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(x, y, z, attn_mask=m)
    scores = (x @ y.transpose(-2, -1)) / x.shape[-1] ** 0.5
    return torch.softmax(scores.masked_fill(~m, float("-inf")), -1) @ z


check("attention, bool mask input", attend, q, k, v, torch.rand(1, 1, 17, 17) > 0.3)
check("attention, computed all-true mask",
      lambda x, y, z: attend(x, y, z, torch.arange(17).reshape(1, 1, 17, 1) >= 0), q, k, v)
check("count of trues", lambda m: m.sum(-1), mask)
check("bool to float", lambda m: m.float() * 3, mask)

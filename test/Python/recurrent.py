# Recurrent layers as a user writes them: nn.LSTM (two layers,
# bidirectional, batch first, with and without initial states), nn.GRU
# (bidirectional) and nn.RNN, imported (torch.export's or make_fx's
# decompositions into cells over time steps; the reversed direction through
# prims.rev, i.e. torch.flip, and torch 1.13's unsafe_split), compiled and
# run with their weights bound, against eager PyTorch; torch.flip itself on
# several dimensions and on an integer tensor. On the CPU and, where a
# Vulkan device is present, on it.
# REQUIRES: torch
# RUN: %python %s cpu | FileCheck %s
# RUN: %if vulkan %{ %python %s vulkan | FileCheck %s %}

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from opcheck import check_module  # noqa: E402

target = sys.argv[1]


def check(name, module, *inputs):
    check_module(target, name, module, *inputs)


class Flip(torch.nn.Module):
    def forward(self, x, i):
        return torch.flip(x, [0, 2]), torch.flip(i, [1]), x.flip(-1)


class WithState(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(6, 10, num_layers=2)

    def forward(self, x, h0, c0):
        return self.lstm(x, (h0, c0))


torch.manual_seed(0)
# CHECK: flip PASS [(3, 4, 5), (2, 3), (3, 4, 5)]
check("flip", Flip(), torch.randn(3, 4, 5), torch.arange(6).reshape(2, 3))
# CHECK-NEXT: lstm-bidirectional PASS [(2, 5, 32), (4, 2, 16), (4, 2, 16)]
check("lstm-bidirectional",
      torch.nn.LSTM(8, 16, num_layers=2, batch_first=True, bidirectional=True),
      torch.randn(2, 5, 8))
# CHECK-NEXT: lstm-initial-state PASS [(7, 3, 10), (2, 3, 10), (2, 3, 10)]
check("lstm-initial-state", WithState(), torch.randn(7, 3, 6), torch.randn(2, 3, 10),
      torch.randn(2, 3, 10))
# CHECK-NEXT: gru-bidirectional PASS [(2, 5, 32), (2, 2, 16)]
check("gru-bidirectional", torch.nn.GRU(8, 16, batch_first=True, bidirectional=True),
      torch.randn(2, 5, 8))
# CHECK-NEXT: rnn-tanh PASS [(5, 2, 16), (1, 2, 16)]
check("rnn-tanh", torch.nn.RNN(8, 16), torch.randn(5, 2, 8))

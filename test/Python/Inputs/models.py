"""Factories for the importer's command-line tests."""

import torch
import torch.nn as nn


class Unsupported(nn.Module):
    def forward(self, x):
        a = torch.median(x, dim=1, keepdim=True).values
        b = torch.median(a * x, dim=0, keepdim=True).values
        c = torch.kthvalue(b + x, 2, dim=1, keepdim=True).values
        return torch.relu(c) + torch.mode(x, dim=1, keepdim=True).indices


def unsupported():
    return Unsupported()


def with_inputs():
    return nn.Sequential(nn.Linear(4, 3), nn.GELU(approximate="tanh")), (torch.randn(2, 4),)


def training_batch_norm():
    # Returned in training mode; the CLI calls .eval() so this imports.
    return nn.BatchNorm1d(3)


def not_a_module():
    return 42

"""Model factories for the model-zoo tests (MODEL = zoo.py:NAME).

Each returns a module or function, and optionally its example inputs.
The last three are the examples of PyTorch's torch.compile tutorial.
"""

import torch
import torch.nn as nn


def transformer_encoder_layer():
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, batch_first=True)
    gen = torch.Generator().manual_seed(3)
    return layer, (torch.randn(2, 16, 256, generator=gen),)


def transformer_encoder_layer_gelu_norm_first():
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=8, dim_feedforward=128,
                                       activation="gelu", norm_first=True, batch_first=True)
    gen = torch.Generator().manual_seed(4)
    return layer, (torch.randn(3, 10, 64, generator=gen),)


def multihead_attention_with_mask():
    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(32, 4, batch_first=True)

        def forward(self, x, padding):
            return self.mha(x, x, x, key_padding_mask=padding, need_weights=False)[0]

    gen = torch.Generator().manual_seed(5)
    padding = torch.zeros(2, 6, dtype=torch.bool)
    padding[1, 4:] = True
    return Attention(), (torch.randn(2, 6, 32, generator=gen), padding)


def sin_cos():
    # torch.compile tutorial: def foo(x, y): return torch.sin(x) + torch.cos(y)
    def foo(x, y):
        a = torch.sin(x)
        b = torch.cos(y)
        return a + b

    gen = torch.Generator().manual_seed(6)
    return foo, (torch.randn(10, 10, generator=gen), torch.randn(10, 10, generator=gen))


class MyModule(nn.Module):
    # torch.compile tutorial: Linear + ReLU module.
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(100, 10)

    def forward(self, x):
        return nn.functional.relu(self.lin(x))


def linear_relu():
    gen = torch.Generator().manual_seed(7)
    return MyModule(), (torch.randn(10, 100, generator=gen),)


class OuterModule(nn.Module):
    # torch.compile tutorial: nested modules.
    def __init__(self):
        super().__init__()
        self.inner = MyModule()
        self.outer_lin = nn.Linear(10, 2)

    def forward(self, x):
        x = self.inner(x)
        return nn.functional.relu(self.outer_lin(x))


def nested_modules():
    gen = torch.Generator().manual_seed(8)
    return OuterModule(), (torch.randn(10, 100, generator=gen),)


def data_movement():
    # Ops that reach the FX dialect through decompositions and
    # functionalization: roll, constant padding, in-place slice/select
    # assignment (slice_scatter/select_scatter), masked_fill, norm, row
    # gathers, unbind and stack.
    class DataMovement(nn.Module):
        def __init__(self):
            super().__init__()
            self.table = nn.Parameter(torch.randn(7, 4))
            self.register_buffer("index", torch.tensor([[6, 0, 3], [2, 2, 5]]))

        def forward(self, x, mask):
            y = torch.roll(x, shifts=(1, -2), dims=(1, 2))
            y = nn.functional.pad(y, (1, 2, 0, 1), value=0.5)
            z = y.clone()
            z[:, 1:3] = 0.0
            z[:, 0, 2] = z[:, 0, 2] * 3.0
            z = z.masked_fill(mask, -1.0)
            n = torch.norm(z, dim=-1, keepdim=True).clamp_min(1e-3)
            rows = self.table[self.index]                       # [2, 3, 4]
            parts = torch.unbind(z[:, :3, :4], dim=1)
            return z / n, torch.stack(parts, dim=0) + rows.sum(), rows

    gen = torch.Generator().manual_seed(9)
    x = torch.randn(2, 5, 6, generator=gen)
    mask = torch.rand(2, 6, 9, generator=gen) > 0.7
    return DataMovement(), (x, mask)


def integer_ops():
    def f(i, x):
        q = torch.div(i * 3 - 7, 2, rounding_mode="floor")
        r = torch.where(i > 2, q, torch.zeros_like(q)) + torch.arange(i.shape[-1])
        return r, x[r.clamp(0, 3)] * (i >= 1).float()[..., None]

    i = torch.tensor([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
    gen = torch.Generator().manual_seed(10)
    return f, (i, torch.randn(4, 3, generator=gen))


def logsumexp_inf_rows():
    # logsumexp over rows, one of them all -inf (eager gives -inf, not NaN)
    # and one holding +inf.
    def f(x):
        return torch.logsumexp(x, dim=1), torch.logsumexp(x, dim=(0, 1), keepdim=True)

    gen = torch.Generator().manual_seed(11)
    x = torch.randn(4, 6, generator=gen)
    x[1] = float("-inf")
    x[2, 3] = float("inf")
    x[3, :5] = float("-inf")
    return f, (x,)


def dense_block():
    # A DenseNet block: every layer reads the concatenation of the block's
    # input and all earlier layers' outputs (fx-concat-in-place makes them
    # views of one buffer the layers write into), then a transition.
    class Layer(nn.Module):
        def __init__(self, channels, growth):
            super().__init__()
            self.norm1 = nn.BatchNorm2d(channels)
            self.conv1 = nn.Conv2d(channels, 4 * growth, 1, bias=False)
            self.norm2 = nn.BatchNorm2d(4 * growth)
            self.conv2 = nn.Conv2d(4 * growth, growth, 3, padding=1, bias=False)

        def forward(self, features):
            x = torch.cat(features, 1)
            x = self.conv1(torch.relu(self.norm1(x)))
            return self.conv2(torch.relu(self.norm2(x)))

    class Block(nn.Module):
        def __init__(self, channels=16, growth=8, layers=4):
            super().__init__()
            self.stem = nn.Conv2d(3, channels, 3, padding=1)
            self.layers = nn.ModuleList(
                Layer(channels + i * growth, growth) for i in range(layers))
            self.norm = nn.BatchNorm2d(channels + layers * growth)

        def forward(self, x):
            # The block's input is a max pooling's output (written into
            # the concatenation's first slab).
            features = [nn.functional.max_pool2d(torch.relu(self.stem(x)), 3, 2, 1)]
            for layer in self.layers:
                features.append(layer(features))
            x = torch.relu(self.norm(torch.cat(features, 1)))
            return nn.functional.avg_pool2d(x, 2)

    gen = torch.Generator().manual_seed(7)
    block = Block()
    with torch.no_grad():
        for module in block.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5, generator=gen)
                module.running_var.uniform_(0.5, 1.5, generator=gen)
                module.weight.uniform_(0.5, 1.5, generator=gen)
                module.bias.uniform_(-0.5, 0.5, generator=gen)
    return block.eval(), (torch.randn(2, 3, 16, 16, generator=gen),)

# The importer's mapping of ATen graphs to the FX dialect. TORCH1 lines are
# what make_fx captures on torch 1.x; TORCH2 lines what torch.export's Core
# ATen graphs hold (linear and attention stay whole; transposes are permutes).
# REQUIRES: torch
# RUN: %python %s > %t.mlir
# RUN: FileCheck %s --check-prefixes=CHECK,%torch-checks < %t.mlir
# RUN: fx-opt %t.mlir -o /dev/null

import torch
import torch.nn as nn

import fx_mlir


def show(fn, *inputs, **kwargs):
    print(fx_mlir.import_module(fn, inputs, **kwargs).mlir)


class InPlace(nn.Module):
    def forward(self, x):
        y = x.clone()
        y.relu_()
        y.add_(x, alpha=2.0)
        return y


# In-place ops are functionalized; clone is a value-semantics no-op.
# CHECK-LABEL: func.func @forward(%arg0: tensor<2x3xf32> loc("input0")) -> tensor<2x3xf32>
# CHECK-NEXT: %[[R:.*]] = fx.relu %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("relu"("{{.*}}import-ops.py":[[# @LINE-7]]:1))
# CHECK-NEXT: %[[A:.*]] = fx.add %[[R]], %arg0 {alpha = 2.0 : f64}
# CHECK-NEXT: return %[[A]]
show(InPlace().eval(), torch.randn(2, 3))


class ConvBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4, eps=1e-3)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(torch.relu(self.bn(self.conv(x))))


# Parameters and buffers are tagged arguments; the unused buffer
# num_batches_tracked is dropped; batch norm's saved statistics and the
# unused pooling indices are dropped.
# CHECK-LABEL: func.func @forward(
# CHECK-SAME: %arg0: tensor<4x3x3x3xf32> {fx.param = "conv.weight"} loc("conv.weight")
# CHECK-NEXT: %arg1: tensor<4xf32> {fx.param = "bn.weight"}
# CHECK-NEXT: %arg2: tensor<4xf32> {fx.param = "bn.bias"}
# CHECK-NEXT: %arg3: tensor<4xf32> {fx.param = "bn.running_mean"}
# CHECK-NEXT: %arg4: tensor<4xf32> {fx.param = "bn.running_var"}
# CHECK-NEXT: %arg5: tensor<1x3x8x8xf32> loc("input0")) -> tensor<1x4x4x4xf32>
# CHECK-NEXT: %[[C:.*]] = fx.convolution %arg5, %arg0 {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> loc("convolution"("{{.*}}import-ops.py":[[# @LINE-13]]:1))
# CHECK-NEXT: %[[B:.*]] = fx.batch_norm %[[C]], %arg3, %arg4 weight(%arg1) bias(%arg2) {eps = 0.001 : f64}
# CHECK-NEXT: %[[R:.*]] = fx.relu %[[B]]
# CHECK-NEXT: %[[P:.*]] = fx.max_pool2d %[[R]] {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>}
# CHECK-NEXT: return %[[P]]
show(ConvBlock().eval(), torch.randn(1, 3, 8, 8))


def scalars(x, i):
    return x * 2.0 + 1, (i * 3) // 2, i + 0.5


# Python numbers become rank-0 constants typed so that PyTorch's promotion
# (wrapped numbers rank below tensors) gives the traced result types.
# CHECK-LABEL: func.func @forward(%arg0: tensor<4xf16> loc("input0"),
# CHECK-NEXT: %arg1: tensor<4xi32> loc("input1")) -> (tensor<4xf16>, tensor<4xi32>, tensor<4xf32>)
# CHECK: fx.constant dense<2.0> : tensor<f32>
# CHECK: fx.mul %arg0, %{{.*}} : (tensor<4xf16>, tensor<f32>) -> tensor<4xf16>
# CHECK: fx.constant dense<1> : tensor<i64>
# CHECK: fx.add %{{.*}}, %{{.*}} : (tensor<4xf16>, tensor<i64>) -> tensor<4xf16>
# CHECK: fx.constant dense<3> : tensor<i64>
# CHECK: fx.mul %arg1, %{{.*}} : (tensor<4xi32>, tensor<i64>) -> tensor<4xi32>
# CHECK: fx.div %{{.*}}, %{{.*}} {rounding_mode = #fx.rounding_mode<floor>} : (tensor<4xi32>, tensor<i64>) -> tensor<4xi32>
# CHECK: fx.add %arg1, %{{.*}} : (tensor<4xi32>, tensor<f32>) -> tensor<4xf32>
show(scalars, torch.randn(4).half(), torch.arange(4, dtype=torch.int32))


def views(x):
    a = x.view(6, 4).t()
    b = x.permute(2, 0, 1)[1:3, :, 0]
    c, d = torch.split(x, [1, 2], dim=1)
    return a, b, torch.cat([d, c], dim=1).transpose(0, 2).reshape(-1), x[0, 1]


# CHECK-LABEL: func.func @forward(%arg0: tensor<2x3x4xf32>
# CHECK: fx.view %arg0 {size = array<i64: 6, 4>}
# TORCH1: fx.t
# TORCH2: fx.permute %{{.*}} {dims = array<i64: 1, 0>}
# CHECK: fx.permute %arg0 {dims = array<i64: 2, 0, 1>}
# CHECK: fx.slice %{{.*}} {dim = 0 : i64, start = 1 : i64, end = 3 : i64, step = 1 : i64}
# CHECK: fx.select %{{.*}} {dim = 2 : i64, index = 0 : i64}
# CHECK: %[[S:.*]]:2 = fx.split %arg0 {split_sizes = array<i64: 1, 2>, dim = 1 : i64}
# CHECK: fx.cat %[[S]]#1, %[[S]]#0 {dim = 1 : i64}
# TORCH1: fx.transpose
# TORCH2: fx.permute %{{.*}} {dims = array<i64: 2, 1, 0>}
# CHECK: fx.view %{{.*}} {size = array<i64: 24>}
# CHECK: fx.select %arg0 {dim = 0 : i64, index = 0 : i64}
# CHECK: fx.select %{{.*}} {dim = 0 : i64, index = 1 : i64}
show(views, torch.randn(2, 3, 4))


class Frozen(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 4)

    def forward(self, x):
        return self.lin(x)


# Frozen parameters are constants (hex for large ones) and not arguments.
# CHECK-LABEL: func.func @forward(%arg0: tensor<1x8xf32> loc("input0")) -> tensor<1x4xf32>
# CHECK-NEXT: fx.constant dense<"0x{{[0-9A-F]+}}"> : tensor<4x8xf32> loc("lin.weight")
# CHECK-NEXT: fx.constant dense<[{{.*}}]> : tensor<4xf32> loc("lin.bias")
# TORCH1: fx.addmm
# TORCH2: fx.linear %arg0, %0, %1
show(Frozen().eval(), torch.randn(1, 8), frozen=True)


class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(5, 3))
        self.register_buffer("index", torch.tensor([[0, 4], [2, 2]]))

    def forward(self, x):
        return x + self.table[self.index]


# Indexing rows by an index tensor is a gather (fx.embedding).
# CHECK-LABEL: func.func @forward(
# CHECK-SAME: {fx.param = "table"}
# CHECK-NEXT: %arg1: tensor<2x2xi64> {fx.param = "index"}
# CHECK: fx.embedding %arg0, %arg1 : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2x2x3xf32>
show(Table().eval(), torch.randn(2, 2, 3))


def transformer_fast_path(x):
    return layer(x)


# On torch 1.x nn.TransformerEncoderLayer takes the fused CPU fast path
# under no_grad (aten::_transformer_encoder_layer_fwd); the importer
# decomposes it. torch.export keeps scaled_dot_product_attention, one op.
# CHECK-LABEL: func.func @forward(
# CHECK-SAME: {fx.param = "self_attn.in_proj_weight"}
# TORCH1: fx.softmax %{{.*}} {dim = -1 : i64} {{.*}} loc("_softmax"("{{.*}}import-ops.py":{{[0-9]+}}:1))
# TORCH2: fx.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} : {{.*}} loc("scaled_dot_product_attention")
# CHECK: fx.layer_norm
# CHECK: fx.layer_norm
layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True).eval()
show(layer, torch.randn(1, 4, 16))

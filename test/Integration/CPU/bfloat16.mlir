// bf16 tensors that live in buffers between kernels, on the CPU against
// PyTorch (and on Vulkan through ../Vulkan/ops.test, where bf16 buffers are
// i16 storage with integer conversions). NumPy has no bf16, so each graph
// converts at its edges. fx-mlir computes bf16 ops in f32 and rounds each
// op's result. The references spell the matmuls out that way (f32 products
// of the bf16 operands, rounded to bf16) rather than calling torch.mm on bf16
// tensors: torch 1.13's CPU bf16 matmul accumulates in f32 only where oneDNN
// has a bf16 kernel (AVX-512 hosts); on an AVX2 host its own kernel rounds
// to bf16 along the way and misses the exact product by up to 0.44 here.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// Code for AVX2 (no AVX512-BF16 instructions) converts f32 to bf16 through
// __truncsfbf2, which the JIT itself provides.
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s -- --cpu=x86-64-v3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed

// A matmul kernel reading and writing bf16 buffers.
// TOL: rtol=2e-2 atol=2e-2
// REF: torch.mm(a0.bfloat16().float(), a1.bfloat16().float()).bfloat16().float()
func.func @bf16_mm(%a0: tensor<70x48xf32>, %a1: tensor<48x66xf32>) -> tensor<70x66xf32> {
  %x = fx.convert_element_type %a0 : (tensor<70x48xf32>) -> tensor<70x48xbf16>
  %y = fx.convert_element_type %a1 : (tensor<48x66xf32>) -> tensor<48x66xbf16>
  %0 = fx.mm %x, %y : (tensor<70x48xbf16>, tensor<48x66xbf16>) -> tensor<70x66xbf16>
  %1 = fx.convert_element_type %0 : (tensor<70x66xbf16>) -> tensor<70x66xf32>
  return %1 : tensor<70x66xf32>
}

// Shapes the cooperative-matrix kernel takes (M, N multiples of 64, K of
// 16): on a device with bf16 cooperative matrices (the H200) its fragments
// are bf16; elsewhere the tiled kernel runs it.
// TOL: rtol=2e-2 atol=2e-2
// REF: torch.mm(a0.bfloat16().float(), a1.bfloat16().float()).bfloat16().float()
func.func @bf16_mm_cooperative(%a0: tensor<128x96xf32>, %a1: tensor<96x192xf32>) -> tensor<128x192xf32> {
  %x = fx.convert_element_type %a0 : (tensor<128x96xf32>) -> tensor<128x96xbf16>
  %y = fx.convert_element_type %a1 : (tensor<96x192xf32>) -> tensor<96x192xbf16>
  %0 = fx.mm %x, %y : (tensor<128x96xbf16>, tensor<96x192xbf16>) -> tensor<128x192xbf16>
  %1 = fx.convert_element_type %0 : (tensor<128x192xbf16>) -> tensor<128x192xf32>
  return %1 : tensor<128x192xf32>
}

// Row kernels (softmax, layer norm) and a reduction over bf16 rows.
// TOL: rtol=2e-2 atol=2e-2
// REF: (torch.softmax(torch.mm(a0.bfloat16().float(), a1.bfloat16().float()).bfloat16().float(), -1).bfloat16().float(), F.layer_norm(torch.mm(a0.bfloat16().float(), a1.bfloat16().float()).bfloat16().float(), [40]).bfloat16().float(), torch.mm(a0.bfloat16().float(), a1.bfloat16().float()).bfloat16().float().sum(0).bfloat16().float())
func.func @bf16_rows(%a0: tensor<8x16xf32>, %a1: tensor<16x40xf32>) -> (tensor<8x40xf32>, tensor<8x40xf32>, tensor<40xf32>) {
  %x = fx.convert_element_type %a0 : (tensor<8x16xf32>) -> tensor<8x16xbf16>
  %y = fx.convert_element_type %a1 : (tensor<16x40xf32>) -> tensor<16x40xbf16>
  %m = fx.mm %x, %y : (tensor<8x16xbf16>, tensor<16x40xbf16>) -> tensor<8x40xbf16>
  %s = fx.softmax %m {dim = -1 : i64} : (tensor<8x40xbf16>) -> tensor<8x40xbf16>
  %n = fx.layer_norm %m {normalized_shape = array<i64: 40>} : (tensor<8x40xbf16>) -> tensor<8x40xbf16>
  %r = fx.sum %m {dim = array<i64: 0>} : (tensor<8x40xbf16>) -> tensor<40xbf16>
  %0 = fx.convert_element_type %s : (tensor<8x40xbf16>) -> tensor<8x40xf32>
  %1 = fx.convert_element_type %n : (tensor<8x40xbf16>) -> tensor<8x40xf32>
  %2 = fx.convert_element_type %r : (tensor<40xbf16>) -> tensor<40xf32>
  return %0, %1, %2 : tensor<8x40xf32>, tensor<8x40xf32>, tensor<40xf32>
}

// Data movement on bf16 (a transpose and a select) and a bf16 constant.
// TOL: rtol=1e-2 atol=1e-2
// REF: torch.where(a2, torch.mm(a0.bfloat16().float(), a1.bfloat16().float()).bfloat16().t(), torch.tensor(0.375, dtype=torch.bfloat16)).float()
func.func @bf16_moves(%a0: tensor<6x10xf32>, %a1: tensor<10x6xf32>, %a2: tensor<6x6xi1>) -> tensor<6x6xf32> {
  %x = fx.convert_element_type %a0 : (tensor<6x10xf32>) -> tensor<6x10xbf16>
  %y = fx.convert_element_type %a1 : (tensor<10x6xf32>) -> tensor<10x6xbf16>
  %m = fx.mm %x, %y : (tensor<6x10xbf16>, tensor<10x6xbf16>) -> tensor<6x6xbf16>
  %t = fx.transpose %m {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<6x6xbf16>) -> tensor<6x6xbf16>
  %c = fx.constant dense<0.375> : tensor<bf16>
  %w = fx.where %a2, %t, %c : (tensor<6x6xi1>, tensor<6x6xbf16>, tensor<bf16>) -> tensor<6x6xbf16>
  %0 = fx.convert_element_type %w : (tensor<6x6xbf16>) -> tensor<6x6xf32>
  return %0 : tensor<6x6xf32>
}

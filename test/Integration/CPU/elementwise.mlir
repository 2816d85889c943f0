// Every elementwise FX op, run on the CPU and compared with PyTorch.
// REQUIRES: torch
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s | FileCheck %s
// RUN: %python %fx_src_root/utils/fx-check.py fx-run %s --only bf16_chain -- --cpu=x86-64-v3 | FileCheck %s --check-prefix=V3
// V3: PASS @bf16_chain
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed

// REF: torch.relu(a0)
func.func @relu(%a0: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = fx.relu %a0 : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// REF: torch.relu(a0)
func.func @relu_i64(%a0: tensor<7xi64>) -> tensor<7xi64> {
  %0 = fx.relu %a0 : (tensor<7xi64>) -> tensor<7xi64>
  return %0 : tensor<7xi64>
}

// REF: torch.sigmoid(a0)
func.func @sigmoid(%a0: tensor<3x17xf32>) -> tensor<3x17xf32> {
  %0 = fx.sigmoid %a0 : (tensor<3x17xf32>) -> tensor<3x17xf32>
  return %0 : tensor<3x17xf32>
}

// REF: torch.sigmoid(a0)
func.func @sigmoid_int_to_float(%a0: tensor<6xi32>) -> tensor<6xf32> {
  %0 = fx.sigmoid %a0 : (tensor<6xi32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// REF: torch.tanh(a0)
func.func @tanh(%a0: tensor<33xf32>) -> tensor<33xf32> {
  %0 = fx.tanh %a0 : (tensor<33xf32>) -> tensor<33xf32>
  return %0 : tensor<33xf32>
}

// REF: F.silu(a0)
func.func @silu(%a0: tensor<2x9xf32>) -> tensor<2x9xf32> {
  %0 = fx.silu %a0 : (tensor<2x9xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// REF: F.gelu(a0)
func.func @gelu(%a0: tensor<2x9xf32>) -> tensor<2x9xf32> {
  %0 = fx.gelu %a0 : (tensor<2x9xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// REF: F.gelu(a0, approximate="tanh")
func.func @gelu_tanh(%a0: tensor<2x9xf32>) -> tensor<2x9xf32> {
  %0 = fx.gelu %a0 {approximate = #fx.gelu_approximate<tanh>} : (tensor<2x9xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// REF: F.hardtanh(a0, 0.0, 6.0)
func.func @hardtanh_relu6(%a0: tensor<20xf32>) -> tensor<20xf32> {
  %0 = fx.hardtanh %a0 {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<20xf32>) -> tensor<20xf32>
  return %0 : tensor<20xf32>
}

// INPUT a0: np.linspace(-5, 5, 21)
// REF: F.hardswish(a0)
func.func @hardswish(%a0: tensor<21xf32>) -> tensor<21xf32> {
  %0 = fx.hardswish %a0 : (tensor<21xf32>) -> tensor<21xf32>
  return %0 : tensor<21xf32>
}

// INPUT a0: np.linspace(-5, 5, 21)
// REF: F.hardsigmoid(a0)
func.func @hardsigmoid(%a0: tensor<21xf32>) -> tensor<21xf32> {
  %0 = fx.hardsigmoid %a0 : (tensor<21xf32>) -> tensor<21xf32>
  return %0 : tensor<21xf32>
}

// REF: torch.exp(a0)
func.func @exp(%a0: tensor<10xf32>) -> tensor<10xf32> {
  %0 = fx.exp %a0 : (tensor<10xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// INPUT a0: np.abs(np.random.default_rng(1).standard_normal(10)) + 0.1
// REF: (torch.log(a0), torch.sqrt(a0), torch.rsqrt(a0), torch.reciprocal(a0))
func.func @log_sqrt_rsqrt_reciprocal(%a0: tensor<10xf32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) {
  %0 = fx.log %a0 : (tensor<10xf32>) -> tensor<10xf32>
  %1 = fx.sqrt %a0 : (tensor<10xf32>) -> tensor<10xf32>
  %2 = fx.rsqrt %a0 : (tensor<10xf32>) -> tensor<10xf32>
  %3 = fx.reciprocal %a0 : (tensor<10xf32>) -> tensor<10xf32>
  return %0, %1, %2, %3 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
}

// REF: (torch.neg(a0), torch.abs(a0), torch.sin(a0), torch.cos(a0), torch.erf(a0))
func.func @neg_abs_sin_cos_erf(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = fx.neg %a0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = fx.abs %a0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = fx.sin %a0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %3 = fx.cos %a0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %4 = fx.erf %a0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// Inverse trigonometric and hyperbolic functions inside their domains.
// GLSL.std.450's transcendentals (the Vulkan lowering) promise a few ulp
// to thousands, less than libm: rtol 1e-4.
// INPUT a0: np.linspace(-0.95, 0.95, 10).reshape(2, 5)
// TOL: rtol=1e-4 atol=1e-6
// REF: (torch.tan(a0), torch.asin(a0), torch.acos(a0), torch.atan(a0), torch.atanh(a0))
func.func @tan_asin_acos_atan_atanh(%a0: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = fx.tan %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = fx.asin %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %2 = fx.acos %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %3 = fx.atan %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %4 = fx.atanh %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0, %1, %2, %3, %4 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

// INPUT a0: np.linspace(1.0, 6.0, 10).reshape(2, 5)
// TOL: rtol=1e-4 atol=1e-6
// REF: (torch.sinh(a0), torch.cosh(a0), torch.asinh(a0), torch.acosh(a0), torch.log2(a0), torch.log10(a0))
func.func @hyperbolic_log2_log10(%a0: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = fx.sinh %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = fx.cosh %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %2 = fx.asinh %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %3 = fx.acosh %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %4 = fx.log2 %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %5 = fx.log10 %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

// The inverse hyperbolic functions at their edges: tiny arguments (where
// log(x + sqrt(x^2 + 1)) loses every digit), huge ones (where x^2
// overflows), the poles of atanh and NaN outside the domains.
// INPUT a0: np.array([1e-8, -1e-5, 0.3, -30.0, 1e30], dtype=np.float32)
// INPUT a1: np.array([1.0, 1.000001, 3.0, 1e30, 0.5], dtype=np.float32)
// INPUT a2: np.array([1e-8, -0.5, 0.999, 1.0, -1.5], dtype=np.float32)
// TOL: rtol=1e-4 atol=1e-6
// REF: (torch.asinh(a0), torch.acosh(a1), torch.atanh(a2))
func.func @inverse_hyperbolic_edges(%a0: tensor<5xf32>, %a1: tensor<5xf32>, %a2: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %0 = fx.asinh %a0 : (tensor<5xf32>) -> tensor<5xf32>
  %1 = fx.acosh %a1 : (tensor<5xf32>) -> tensor<5xf32>
  %2 = fx.atanh %a2 : (tensor<5xf32>) -> tensor<5xf32>
  return %0, %1, %2 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}

// log1p and expm1 where log(1 + x) and exp(x) - 1 lose every digit (|x|
// down to 1e-10) and at the edges: -1 and infinities.
// INPUT a0: np.array([[1e-10, -3e-8, 2e-5, -0.25, 0.5], [3.0, -1.0, 80.0, -np.inf, np.inf]], dtype=np.float32)
// REF: (torch.log1p(a0), torch.expm1(a0))
func.func @log1p_expm1(%a0: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = fx.log1p %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = fx.expm1 %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0, %1 : tensor<2x5xf32>, tensor<2x5xf32>
}

// Halves round to even; -0, NaN and infinities pass through; sign of NaN
// is 0.
// INPUT a0: np.array([[2.5, -2.5, 0.5, 1.5, -0.7], [3.7, -0.0, np.nan, np.inf, -np.inf]], dtype=np.float32)
// REF: (torch.floor(a0), torch.ceil(a0), torch.round(a0), torch.trunc(a0), torch.sign(a0))
func.func @floor_ceil_round_trunc_sign(%a0: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = fx.floor %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = fx.ceil %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %2 = fx.round %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %3 = fx.trunc %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %4 = fx.sign %a0 : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0, %1, %2, %3, %4 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

// Integers: rounding is the identity, sign is -1, 0 or 1; asin of an
// integer tensor is f32, as in ATen.
// INPUT a0: np.array([-3, -1, 0, 1, 5], dtype=np.int32)
// REF: (torch.floor(a0), torch.round(a0), torch.sign(a0), torch.asin(a0))
func.func @rounding_sign_int(%a0: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xf32>) {
  %0 = fx.floor %a0 : (tensor<5xi32>) -> tensor<5xi32>
  %1 = fx.round %a0 : (tensor<5xi32>) -> tensor<5xi32>
  %2 = fx.sign %a0 : (tensor<5xi32>) -> tensor<5xi32>
  %3 = fx.asin %a0 : (tensor<5xi32>) -> tensor<5xf32>
  return %0, %1, %2, %3 : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xf32>
}

// Python's and C's remainders: the sign of the divisor and of the
// dividend; infinite divisors.
// INPUT a0: np.array([[5.5, -5.5, 5.5, -5.5, 3.0], [-2.0, 7.0, -7.0, 4.0, 0.0]], dtype=np.float32)
// INPUT a1: np.array([[2.0, 2.0, -2.0, -2.0, 1.5], [np.inf, np.inf, np.inf, -3.0, 2.0]], dtype=np.float32)
// REF: (torch.remainder(a0, a1), torch.fmod(a0, a1))
func.func @remainder_fmod(%a0: tensor<2x5xf32>, %a1: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = fx.remainder %a0, %a1 : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = fx.fmod %a0, %a1 : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0, %1 : tensor<2x5xf32>, tensor<2x5xf32>
}

// INPUT a0: np.array([7, -7, 7, -7, 0, 9])
// INPUT a1: np.array([3, 3, -3, -3, 5, 4])
// REF: (torch.remainder(a0, a1), torch.fmod(a0, a1))
func.func @remainder_fmod_int(%a0: tensor<6xi64>, %a1: tensor<6xi64>) -> (tensor<6xi64>, tensor<6xi64>) {
  %0 = fx.remainder %a0, %a1 : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  %1 = fx.fmod %a0, %a1 : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  return %0, %1 : tensor<6xi64>, tensor<6xi64>
}

// Every quadrant, the axes, signed zeros and infinities; integers give f32.
// INPUT a0: np.array([[1.0, 1.0, -1.0, -1.0, 0.0, -0.0], [0.0, -0.0, 2.0, np.inf, np.inf, -np.inf]], dtype=np.float32)
// INPUT a1: np.array([[1.0, -1.0, 1.0, -1.0, -1.0, -1.0], [0.0, -0.0, 0.0, np.inf, -np.inf, 3.0]], dtype=np.float32)
// INPUT a2: np.array([3, -4, 0])
// TOL: rtol=1e-4 atol=1e-6
// REF: (torch.atan2(a0, a1), torch.atan2(a2, torch.tensor([1, 2, -5])))
func.func @atan2(%a0: tensor<2x6xf32>, %a1: tensor<2x6xf32>, %a2: tensor<3xi64>) -> (tensor<2x6xf32>, tensor<3xf32>) {
  %0 = fx.atan2 %a0, %a1 : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  %c = fx.constant dense<[1, 2, -5]> : tensor<3xi64>
  %1 = fx.atan2 %a2, %c : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xf32>
  return %0, %1 : tensor<2x6xf32>, tensor<3xf32>
}

// INPUT a0: np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -2.0], dtype=np.float32)
// INPUT a1: np.array([0.0, 1.0, 0.0, -1.0, 0.0, 3.0], dtype=np.float32)
// REF: (torch.isnan(a0), torch.isinf(a0), torch.logical_not(a0), torch.logical_and(a0, a1), torch.logical_or(a0, a1), torch.logical_xor(a0, a1))
func.func @predicates_logical(%a0: tensor<6xf32>, %a1: tensor<6xf32>) -> (tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>) {
  %0 = fx.isnan %a0 : (tensor<6xf32>) -> tensor<6xi1>
  %1 = fx.isinf %a0 : (tensor<6xf32>) -> tensor<6xi1>
  %2 = fx.logical_not %a0 : (tensor<6xf32>) -> tensor<6xi1>
  %3 = fx.logical_and %a0, %a1 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %4 = fx.logical_or %a0, %a1 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %5 = fx.logical_xor %a0, %a1 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>
}

// INPUT a0: np.array([12, -7, 0, 255, 1 << 40, -1])
// INPUT a1: np.array([10, 3, -1, 15, 1 << 40, 0])
// INPUT a2: np.array([True, False, True, False])
// INPUT a3: np.array([True, True, False, False])
// REF: (torch.bitwise_and(a0, a1), torch.bitwise_or(a0, a1), torch.bitwise_xor(a0, a1), torch.bitwise_not(a0), torch.bitwise_not(a2), torch.bitwise_xor(a2, a3), torch.isnan(a0), torch.logical_not(a0))
func.func @bitwise(%a0: tensor<6xi64>, %a1: tensor<6xi64>, %a2: tensor<4xi1>, %a3: tensor<4xi1>) -> (tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<4xi1>, tensor<4xi1>, tensor<6xi1>, tensor<6xi1>) {
  %0 = fx.bitwise_and %a0, %a1 : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  %1 = fx.bitwise_or %a0, %a1 : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  %2 = fx.bitwise_xor %a0, %a1 : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
  %3 = fx.bitwise_not %a0 : (tensor<6xi64>) -> tensor<6xi64>
  %4 = fx.bitwise_not %a2 : (tensor<4xi1>) -> tensor<4xi1>
  %5 = fx.bitwise_xor %a2, %a3 : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %6 = fx.isnan %a0 : (tensor<6xi64>) -> tensor<6xi1>
  %7 = fx.logical_not %a0 : (tensor<6xi64>) -> tensor<6xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<4xi1>, tensor<4xi1>, tensor<6xi1>, tensor<6xi1>
}

// i64 too (index arithmetic: reflection padding's decomposition).
// INPUT a0: np.array([-3, -1, 0, 2, -(1 << 40)])
// REF: torch.abs(a0)
func.func @abs_i64(%a0: tensor<5xi64>) -> tensor<5xi64> {
  %0 = fx.abs %a0 : (tensor<5xi64>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}

// INPUT a0: np.array([-3, -1, 0, 2, 5])
// REF: (torch.neg(a0), torch.abs(a0))
func.func @neg_abs_int(%a0: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>) {
  %0 = fx.neg %a0 : (tensor<5xi32>) -> tensor<5xi32>
  %1 = fx.abs %a0 : (tensor<5xi32>) -> tensor<5xi32>
  return %0, %1 : tensor<5xi32>, tensor<5xi32>
}

// PyTorch 1.13 has no f16 tanh on the CPU: the reference runs in f32.
// TOL: rtol=2e-3 atol=2e-3
// REF: (torch.tanh(a0.float()) * F.silu(a0.float())).half()
func.func @f16_chain(%a0: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = fx.tanh %a0 : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %1 = fx.silu %a0 : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %2 = fx.mul %0, %1 : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  return %2 : tensor<4x8xf16>
}

// REF: torch.add(a0, a1, alpha=2.5)
func.func @add_broadcast_alpha(%a0: tensor<4x1x3xf32>, %a1: tensor<5x1xf32>) -> tensor<4x5x3xf32> {
  %0 = fx.add %a0, %a1 {alpha = 2.5 : f64} : (tensor<4x1x3xf32>, tensor<5x1xf32>) -> tensor<4x5x3xf32>
  return %0 : tensor<4x5x3xf32>
}

// REF: (a0 - 3 * a1, a0 * a1, a0 / a1, torch.maximum(a0, a1), torch.minimum(a0, a1))
func.func @binary_f32(%a0: tensor<3x4xf32>, %a1: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = fx.sub %a0, %a1 {alpha = 3.0 : f64} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = fx.mul %a0, %a1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %2 = fx.div %a0, %a1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %3 = fx.maximum %a0, %a1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %4 = fx.minimum %a0, %a1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// Floating-point division with rounding (trunc emits no math.trunc, which
// the Vulkan lowering lacks).
// INPUT a0: np.array([[7.5, -7.5, 9.0, -9.0], [3.0, 0.5, -5.25, 6.0]], dtype=np.float32)
// INPUT a1: np.array([2.0, 2.0, -4.0, 3.5], dtype=np.float32)
// REF: (torch.div(a0, a1, rounding_mode="trunc"), torch.div(a0, a1, rounding_mode="floor"))
func.func @div_rounding_f32(%a0: tensor<2x4xf32>, %a1: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = fx.div %a0, %a1 {rounding_mode = #fx.rounding_mode<trunc>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = fx.div %a0, %a1 {rounding_mode = #fx.rounding_mode<floor>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// INPUT a0: np.array([[7, -7, 9, -9], [3, 4, -5, 6]])
// INPUT a1: np.array([2, 2, -4, 3])
// REF: (a0 / a1, torch.div(a0, a1, rounding_mode="trunc"), torch.div(a0, a1, rounding_mode="floor"), a0 + a1, torch.pow(a1, 2))
func.func @binary_int(%a0: tensor<2x4xi64>, %a1: tensor<4xi32>) -> (tensor<2x4xf32>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<4xi32>) {
  %0 = fx.div %a0, %a1 : (tensor<2x4xi64>, tensor<4xi32>) -> tensor<2x4xf32>
  %1 = fx.div %a0, %a1 {rounding_mode = #fx.rounding_mode<trunc>} : (tensor<2x4xi64>, tensor<4xi32>) -> tensor<2x4xi64>
  %2 = fx.div %a0, %a1 {rounding_mode = #fx.rounding_mode<floor>} : (tensor<2x4xi64>, tensor<4xi32>) -> tensor<2x4xi64>
  %3 = fx.add %a0, %a1 : (tensor<2x4xi64>, tensor<4xi32>) -> tensor<2x4xi64>
  %two = fx.constant dense<2> : tensor<i32>
  %4 = fx.pow %a1, %two : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<2x4xf32>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<2x4xi64>, tensor<4xi32>
}

// INPUT a0: np.abs(np.random.default_rng(2).standard_normal((2, 3))) + 0.5
// REF: torch.pow(a0, a1)
func.func @pow_f32(%a0: tensor<2x3xf32>, %a1: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = fx.pow %a0, %a1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Powers by constants, which fx-fuse-elementwise turns into multiplies,
// square roots and divisions: negative bases included (x^3 keeps the sign,
// as GPT-2's GELU needs), x^0.5 of non-negative ones, x^-1, x^-2.
// INPUT a1: np.abs(np.random.default_rng(5).standard_normal((3, 5))).astype(np.float32)
// REF: (torch.pow(a0, 3.0), torch.pow(a0, 2.0), torch.pow(a1, 0.5), torch.pow(a0, -1.0), torch.pow(a0, -2.0))
func.func @pow_by_constants(%a0: tensor<3x5xf32>, %a1: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %c3 = fx.constant dense<3.0> : tensor<f32>
  %c2 = fx.constant dense<2.0> : tensor<f32>
  %ch = fx.constant dense<0.5> : tensor<f32>
  %cm1 = fx.constant dense<-1.0> : tensor<f32>
  %cm2 = fx.constant dense<-2.0> : tensor<f32>
  %0 = fx.pow %a0, %c3 : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %1 = fx.pow %a0, %c2 : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %2 = fx.pow %a1, %ch : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %3 = fx.pow %a0, %cm1 : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %4 = fx.pow %a0, %cm2 : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  return %0, %1, %2, %3, %4 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}

// The f32 scalar keeps its precision in the f32 computation, then the result
// rounds to f16: what PyTorch 2.11 (on the GPU machine) and Inductor compute.
// PyTorch 1.13 rounded the scalar to f16 first, so the reference spells it
// out.
// INPUT a1: np.array(0.30000001192092896)
// REF: ((a0.float() + a1).half(), (a0.float() * a1).half())
func.func @promotion_f16_scalar(%a0: tensor<5xf16>, %a1: tensor<f32>) -> (tensor<5xf16>, tensor<5xf16>) {
  %0 = fx.add %a0, %a1 : (tensor<5xf16>, tensor<f32>) -> tensor<5xf16>
  %1 = fx.mul %a0, %a1 : (tensor<5xf16>, tensor<f32>) -> tensor<5xf16>
  return %0, %1 : tensor<5xf16>, tensor<5xf16>
}

// INPUT a1: np.array([0.0, 1.0, np.nan, -2.0])
// INPUT a0: np.array([0.0, 2.0, np.nan, -2.0])
// REF: (a0 == a1, a0 != a1, a0 < a1, a0 <= a1, a0 > a1, a0 >= a1)
func.func @compare_nan(%a0: tensor<4xf32>, %a1: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = fx.eq %a0, %a1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = fx.ne %a0, %a1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = fx.lt %a0, %a1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %3 = fx.le %a0, %a1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %4 = fx.gt %a0, %a1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %5 = fx.ge %a0, %a1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// REF: (a0 < a1, a0 > a1)
func.func @compare_bool(%a0: tensor<8xi1>, %a1: tensor<8xi1>) -> (tensor<8xi1>, tensor<8xi1>) {
  %0 = fx.lt %a0, %a1 : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
  %1 = fx.gt %a0, %a1 : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
  return %0, %1 : tensor<8xi1>, tensor<8xi1>
}

// REF: torch.where(a0, a1, a2)
func.func @where(%a0: tensor<4x1xi1>, %a1: tensor<4x3xf32>, %a2: tensor<3xi64>) -> tensor<4x3xf32> {
  %0 = fx.where %a0, %a1, %a2 : (tensor<4x1xi1>, tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// INPUT a1: np.array([-4, 0, 3, 8, 12])
// REF: (torch.clamp(a0, min=-0.5), torch.clamp(a0, max=0.25), torch.clamp(a1, 0, 9))
func.func @clamp(%a0: tensor<3x5xf32>, %a1: tensor<5xi64>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<5xi64>) {
  %0 = fx.clamp %a0 {min = -0.5 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %1 = fx.clamp %a0 {max = 0.25 : f64} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %2 = fx.clamp %a1 {min = 0.0 : f64, max = 9.0 : f64} : (tensor<5xi64>) -> tensor<5xi64>
  return %0, %1, %2 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<5xi64>
}

// INPUT a0: np.array([-2.7, -0.5, 0.0, 0.4, 3.9, np.nan])
// REF: (a0.to(torch.int64), a0.to(torch.float16), a0.to(torch.bool))
func.func @convert_element_type(%a0: tensor<6xf32>) -> (tensor<6xi64>, tensor<6xf16>, tensor<6xi1>) {
  %0 = fx.convert_element_type %a0 : (tensor<6xf32>) -> tensor<6xi64>
  %1 = fx.convert_element_type %a0 : (tensor<6xf32>) -> tensor<6xf16>
  %2 = fx.convert_element_type %a0 : (tensor<6xf32>) -> tensor<6xi1>
  return %0, %1, %2 : tensor<6xi64>, tensor<6xf16>, tensor<6xi1>
}

// INPUT a0: np.random.default_rng(5).standard_normal((3, 4))
// INPUT a1: np.random.default_rng(6).standard_normal((1, 4))
// REF: a0 * 2 + a1
func.func @dynamic_batch(%a0: tensor<?x4xf32>, %a1: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = fx.constant dense<2.0> : tensor<f32>
  %0 = fx.mul %a0, %c : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %1 = fx.add %0, %a1 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// bf16 (NumPy has no bf16, so the graph converts at its edges). PyTorch's
// bf16 CPU kernels also compute in f32 and round each op's result.
// TOL: rtol=1e-2 atol=1e-2
// REF: (F.silu(a0.bfloat16() * a1.bfloat16()) + a0.bfloat16()).float()
func.func @bf16_chain(%a0: tensor<4x16xf32>, %a1: tensor<16xf32>) -> tensor<4x16xf32> {
  %x = fx.convert_element_type %a0 : (tensor<4x16xf32>) -> tensor<4x16xbf16>
  %y = fx.convert_element_type %a1 : (tensor<16xf32>) -> tensor<16xbf16>
  %0 = fx.mul %x, %y : (tensor<4x16xbf16>, tensor<16xbf16>) -> tensor<4x16xbf16>
  %1 = fx.silu %0 : (tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %2 = fx.add %1, %x : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %3 = fx.convert_element_type %2 : (tensor<4x16xbf16>) -> tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}

// Clamps by constants (ReLU, ReLU6 as hardtanh, clamp, hardsigmoid) keep
// NaN as eager PyTorch does, and infinities and signed zeros clamp to the
// bounds; 40 elements are two whole vectors and a remainder.
// INPUT a0: np.concatenate([np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 6.0, -3.0, 3.0], dtype=np.float32), np.linspace(-8, 8, 32, dtype=np.float32)])
// REF: (F.relu(a0), F.relu6(a0), torch.clamp(a0, min=-0.5, max=0.25), F.hardsigmoid(a0), F.hardswish(a0))
func.func @clamps_nan(%a0: tensor<40xf32>) -> (tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>) {
  %0 = fx.relu %a0 : (tensor<40xf32>) -> tensor<40xf32>
  %1 = fx.hardtanh %a0 {min_val = 0.0 : f64, max_val = 6.0 : f64} : (tensor<40xf32>) -> tensor<40xf32>
  %2 = fx.clamp %a0 {min = -0.5 : f64, max = 0.25 : f64} : (tensor<40xf32>) -> tensor<40xf32>
  %3 = fx.hardsigmoid %a0 : (tensor<40xf32>) -> tensor<40xf32>
  %4 = fx.hardswish %a0 : (tensor<40xf32>) -> tensor<40xf32>
  return %0, %1, %2, %3, %4 : tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>, tensor<40xf32>
}

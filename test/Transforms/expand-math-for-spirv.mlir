// RUN: fx-opt %s --fx-expand-math-for-spirv | FileCheck %s

// erf has no GLSL.std.450 instruction: a polynomial approximation.
// CHECK-LABEL: func.func @erf
// CHECK-NOT: math.erf
// CHECK: math.fma
// CHECK: return
func.func @erf(%x: f32) -> f32 {
  %0 = math.erf %x : f32
  return %0 : f32
}

// ipowi: square-and-multiply over the exponent's 31 value bits (bit 0
// needs no shift: 30 shifts), then the negative-exponent cases (1 -> 1,
// -1 -> +-1, else 0).
// CHECK-LABEL: func.func @ipowi
// CHECK-NOT: math.ipowi
// CHECK-COUNT-30: arith.shrui
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %arg1, %{{.*}} : i32
// CHECK: arith.select %[[NEG]]
// CHECK-NEXT: return
func.func @ipowi(%x: i32, %n: i32) -> i32 {
  %0 = math.ipowi %x, %n : i32
  return %0 : i32
}

// Index divisions SPIR-V lacks become basic ops.
// CHECK-LABEL: func.func @divisions
// CHECK-NOT: arith.floordivsi
// CHECK-NOT: arith.ceildivui
// CHECK: return
func.func @divisions(%a: index, %b: index) -> (index, index) {
  %0 = arith.floordivsi %a, %b : index
  %1 = arith.ceildivui %a, %b : index
  return %0, %1 : index, index
}

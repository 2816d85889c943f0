// RUN: fx-opt %s --fx-flatten-globals | FileCheck %s

// An n-d constant global becomes 1-d (one LLVM constant, not one per
// innermost row); each read expands it back to the shape its users expect.
// A 1-d global, one without a dense value and one with a strided layout
// stay as they are.
// CHECK-LABEL: memref.global "private" constant @w : memref<12xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01]> {alignment = 64 : i64}
// CHECK: memref.global "private" constant @v : memref<3xf32>
// CHECK: memref.global "private" @u : memref<2x2xf32> = uninitialized
// CHECK: memref.global "private" constant @s : memref<2x2xf32, strided<[4, 1]>>
// CHECK-LABEL: func.func @read(
// CHECK: %[[F:.*]] = memref.get_global @w : memref<12xf32>
// CHECK: %[[E:.*]] = memref.expand_shape %[[F]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 2] : memref<12xf32> into memref<2x3x2xf32>
// CHECK: memref.copy %[[E]], %{{.*}} : memref<2x3x2xf32> to memref<2x3x2xf32>
// CHECK: memref.get_global @v : memref<3xf32>
// CHECK: memref.get_global @u : memref<2x2xf32>
memref.global "private" constant @w : memref<2x3x2xf32> = dense<[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]]> {alignment = 64 : i64}
memref.global "private" constant @v : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
memref.global "private" @u : memref<2x2xf32> = uninitialized
memref.global "private" constant @s : memref<2x2xf32, strided<[4, 1]>> = dense<1.0>
func.func @read(%out: memref<2x3x2xf32>, %out1: memref<3xf32>) -> memref<2x2xf32> {
  %w = memref.get_global @w : memref<2x3x2xf32>
  memref.copy %w, %out : memref<2x3x2xf32> to memref<2x3x2xf32>
  %v = memref.get_global @v : memref<3xf32>
  memref.copy %v, %out1 : memref<3xf32> to memref<3xf32>
  %u = memref.get_global @u : memref<2x2xf32>
  return %u : memref<2x2xf32>
}

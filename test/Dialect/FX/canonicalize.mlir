// RUN: fx-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @relu_idempotent(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = fx.relu %[[X]]
// CHECK-NEXT: return %[[R]], %[[R]]
func.func @relu_idempotent(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = fx.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = fx.relu %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @neg_involution(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>
// CHECK-NEXT: return %[[X]]
func.func @neg_involution(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fx.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = fx.neg %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Folding would change the type of the returned value.
// CHECK-LABEL: func.func @negative_neg_involution_refined_type(
// CHECK: fx.neg
// CHECK: fx.neg
func.func @negative_neg_involution_refined_type(%x: tensor<?xf32>) -> tensor<4xf32> {
  %0 = fx.neg %x : (tensor<?xf32>) -> tensor<?xf32>
  %1 = fx.neg %0 : (tensor<?xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @abs_of_abs_and_neg(
// CHECK-SAME: %[[X:.*]]: tensor<4xi64>
// CHECK-NEXT: %[[A:.*]] = fx.abs %[[X]]
// CHECK-NEXT: %[[B:.*]] = fx.abs %[[X]]
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @abs_of_abs_and_neg(%x: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %0 = fx.abs %x : (tensor<4xi64>) -> tensor<4xi64>
  %1 = fx.abs %0 : (tensor<4xi64>) -> tensor<4xi64>
  %2 = fx.neg %x : (tensor<4xi64>) -> tensor<4xi64>
  %3 = fx.abs %2 : (tensor<4xi64>) -> tensor<4xi64>
  return %1, %3 : tensor<4xi64>, tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @view_same_shape(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT: return %[[X]]
func.func @view_same_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fx.view %x {size = array<i64: -1, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @view_of_view(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT: %[[V:.*]] = fx.view %[[X]] {size = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %[[V]]
func.func @view_of_view(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = fx.view %x {size = array<i64: 24>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %1 = fx.view %0 {size = array<i64: 4, 6>} : (tensor<24xf32>) -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @t_of_t(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<5xf32>
// CHECK-NEXT: return %[[X]], %[[Y]]
func.func @t_of_t(%x: tensor<2x3xf32>, %y: tensor<5xf32>) -> (tensor<2x3xf32>, tensor<5xf32>) {
  %0 = fx.t %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = fx.t %0 : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %2 = fx.t %y : (tensor<5xf32>) -> tensor<5xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<5xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_folds(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @transpose_folds(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = fx.transpose %x {dim0 = 1 : i64, dim1 = -2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = fx.transpose %x {dim0 = 0 : i64, dim1 = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %2 = fx.transpose %1 {dim0 = -1 : i64, dim1 = 0 : i64} : (tensor<4x3x2xf32>) -> tensor<2x3x4xf32>
  return %0, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_transpose_different_dims(
// CHECK: fx.transpose
// CHECK: fx.transpose
func.func @negative_transpose_different_dims(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = fx.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = fx.transpose %0 {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// CHECK-LABEL: func.func @permute_identity_and_composition(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT: %[[P:.*]] = fx.permute %[[X]] {dims = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[X]], %[[P]]
func.func @permute_identity_and_composition(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x3x2xf32>) {
  %0 = fx.permute %x {dims = array<i64: 0, -2, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = fx.permute %x {dims = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %2 = fx.permute %1 {dims = array<i64: 1, 0, 2>} : (tensor<3x4x2xf32>) -> tensor<4x3x2xf32>
  return %0, %2 : tensor<2x3x4xf32>, tensor<4x3x2xf32>
}

// -----

// CHECK-LABEL: func.func @expand_same_shape(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT: %[[E:.*]] = fx.expand %[[X]]
// CHECK-NEXT: return %[[X]], %[[E]]
func.func @expand_same_shape(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %0 = fx.expand %x {size = array<i64: -1, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = fx.expand %x {size = array<i64: 4, 2, 3>} : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_flatten_noop(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @squeeze_flatten_noop(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = fx.squeeze %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = fx.flatten %x {start_dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @slice_whole(
// CHECK-SAME: %[[X:.*]]: tensor<4x10xf32>, %[[D:.*]]: tensor<?x10xf32>
// CHECK-NEXT: %[[S:.*]] = fx.slice %[[X]] {dim = 1 : i64, end = 9 : i64}
// CHECK-NEXT: return %[[X]], %[[D]], %[[S]]
func.func @slice_whole(%x: tensor<4x10xf32>, %d: tensor<?x10xf32>) -> (tensor<4x10xf32>, tensor<?x10xf32>, tensor<4x9xf32>) {
  %0 = fx.slice %x {dim = 1 : i64, start = -10 : i64, end = 100 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %1 = fx.slice %d : (tensor<?x10xf32>) -> tensor<?x10xf32>
  %2 = fx.slice %x {dim = 1 : i64, end = 9 : i64} : (tensor<4x10xf32>) -> tensor<4x9xf32>
  return %0, %1, %2 : tensor<4x10xf32>, tensor<?x10xf32>, tensor<4x9xf32>
}

// -----

// CHECK-LABEL: func.func @identity_copies(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identity_copies(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = fx.clone %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = fx.contiguous %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = fx.cat %x {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = fx.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @negative_convert_element_type(
// CHECK: fx.convert_element_type
func.func @negative_convert_element_type(%x: tensor<2x3xf32>) -> tensor<2x3xf16> {
  %0 = fx.convert_element_type %x : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// CHECK-LABEL: func.func @fill_to_constant(
// CHECK-DAG: %[[F:.*]] = fx.constant dense<5.000000e-01> : tensor<2x3xbf16>
// CHECK-DAG: %[[Z:.*]] = fx.constant dense<0> : tensor<4xi32>
// CHECK-DAG: %[[O:.*]] = fx.constant dense<true> : tensor<2xi1>
// CHECK-NOT: fx.full
// CHECK-NOT: fx.zeros
// CHECK-NOT: fx.ones
// CHECK: return %[[F]], %[[Z]], %[[O]]
func.func @fill_to_constant() -> (tensor<2x3xbf16>, tensor<4xi32>, tensor<2xi1>) {
  %0 = fx.full {fill_value = 0.5 : f64} : tensor<2x3xbf16>
  %1 = fx.zeros : tensor<4xi32>
  %2 = fx.ones : tensor<2xi1>
  return %0, %1, %2 : tensor<2x3xbf16>, tensor<4xi32>, tensor<2xi1>
}

// -----

// Matrix products of a transposed weight become linears (the weight is read
// transposed in place); a scaled addmm or a 2-d bias stays.
// CHECK-LABEL: func.func @transposed_weight
// CHECK-SAME: (%[[B:.*]]: tensor<16xf32>, %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B2:.*]]: tensor<4x16xf32>)
// CHECK: %[[T:.*]] = fx.t %[[W]]
// CHECK: %[[L0:.*]] = fx.linear %[[X]], %[[W]], %[[B]] :
// CHECK: %[[L1:.*]] = fx.linear %[[X]], %[[W]] :
// CHECK: %[[L2:.*]] = fx.linear %[[X]], %[[W]] :
// CHECK: %[[S:.*]] = fx.addmm %[[B]], %[[X]], %[[T]] {beta = 2.0
// CHECK: %[[M:.*]] = fx.addmm %[[B2]], %[[X]], %[[T]] :
// CHECK: return %[[L0]], %[[L1]], %[[L2]], %[[S]], %[[M]]
func.func @transposed_weight(%b: tensor<16xf32>, %x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b2: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %t = fx.t %w : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %tt = fx.transpose %w {dim0 = -1 : i64, dim1 = 0 : i64} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %0 = fx.addmm %b, %x, %t : (tensor<16xf32>, tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = fx.mm %x, %t : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %2 = fx.mm %x, %tt : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %3 = fx.addmm %b, %x, %t {beta = 2.0 : f64} : (tensor<16xf32>, tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %4 = fx.addmm %b2, %x, %t : (tensor<4x16xf32>, tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0, %1, %2, %3, %4 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

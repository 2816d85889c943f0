// RUN: fx-opt %s --split-input-file --fx-concat-in-place | FileCheck %s

// A DenseNet-like family: %cat1 = [x, f1] is the leading part of
// %cat2 = [x, f1, f2]. Both become one chain into one tensor of %cat2's
// size; f1 (into an empty tensor) and f2 (into a zero fill) are computed
// into their slabs of it, %cat1 is a slice of the chain, and the function
// argument is copied in once.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @family
//  CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[W:.*]]: tensor<8x4xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x12xf32>
//       CHECK:   %[[T1:.*]] = tensor.insert_slice %[[X]] into %[[E]][0, 0] [2, 4] [1, 1]
//       CHECK:   %[[S1:.*]] = tensor.extract_slice %[[T1]][0, 4] [2, 4] [1, 1]
//       CHECK:   %[[F1:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x4xf32>) outs(%[[S1]] : tensor<2x4xf32>)
//       CHECK:   %[[T2:.*]] = tensor.insert_slice %[[F1]] into %[[T1]][0, 4] [2, 4] [1, 1]
//       CHECK:   %[[CAT1:.*]] = tensor.extract_slice %[[T2]][0, 0] [2, 8] [1, 1]
//       CHECK:   %[[S2:.*]] = tensor.extract_slice %[[T2]][0, 8] [2, 4] [1, 1]
//       CHECK:   %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S2]] : tensor<2x4xf32>)
//       CHECK:   %[[F2:.*]] = linalg.matmul ins(%[[CAT1]], %[[W]] : {{.*}}) outs(%[[Z]] : tensor<2x4xf32>)
//       CHECK:   %[[T3:.*]] = tensor.insert_slice %[[F2]] into %[[T2]][0, 8] [2, 4] [1, 1]
//       CHECK:   return %[[T3]]
//   CHECK-NOT:   tensor.empty
func.func @family(%x: tensor<2x4xf32>, %w: tensor<8x4xf32>) -> tensor<2x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<2x4xf32>
  %f1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %e8 = tensor.empty() : tensor<2x8xf32>
  %c1a = tensor.insert_slice %x into %e8[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  %cat1 = tensor.insert_slice %f1 into %c1a[0, 4] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %f2 = linalg.matmul ins(%cat1, %w : tensor<2x8xf32>, tensor<8x4xf32>) outs(%filled : tensor<2x4xf32>) -> tensor<2x4xf32>
  %e12 = tensor.empty() : tensor<2x12xf32>
  %c2a = tensor.insert_slice %x into %e12[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x12xf32>
  %c2b = tensor.insert_slice %f1 into %c2a[0, 4] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x12xf32>
  %cat2 = tensor.insert_slice %f2 into %c2b[0, 8] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x12xf32>
  return %cat2 : tensor<2x12xf32>
}

// -----

// A part computed into a tensor that holds data (an accumulation into the
// argument %acc) keeps it and is copied into its slab; a value that is two
// parts is computed once and copied into the second slab.
// CHECK-LABEL: func.func @copied_parts
//  CHECK-SAME: (%[[A:.*]]: tensor<2x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[ACC:.*]]: tensor<2x4xf32>)
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x12xf32>
//       CHECK:   %[[M:.*]] = linalg.matmul ins(%[[A]], %[[W]] : {{.*}}) outs(%[[ACC]] : tensor<2x4xf32>)
//       CHECK:   %[[T1:.*]] = tensor.insert_slice %[[M]] into %[[E]][0, 0] [2, 4] [1, 1]
//       CHECK:   %[[S:.*]] = tensor.extract_slice %[[T1]][0, 4] [2, 4] [1, 1]
//       CHECK:   %[[X:.*]] = linalg.generic {{.*}} outs(%[[S]] : tensor<2x4xf32>)
//       CHECK:   %[[T2:.*]] = tensor.insert_slice %[[X]] into %[[T1]][0, 4] [2, 4] [1, 1]
//       CHECK:   %[[T3:.*]] = tensor.insert_slice %[[X]] into %[[T2]][0, 8] [2, 4] [1, 1]
//       CHECK:   return %[[T3]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @copied_parts(%a: tensor<2x4xf32>, %w: tensor<4x4xf32>, %acc: tensor<2x4xf32>) -> tensor<2x12xf32> {
  %m = linalg.matmul ins(%a, %w : tensor<2x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<2x4xf32>) -> tensor<2x4xf32>
  %e4 = tensor.empty() : tensor<2x4xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x12xf32>
  %c1 = tensor.insert_slice %m into %e[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x12xf32>
  %c2 = tensor.insert_slice %x into %c1[0, 4] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x12xf32>
  %c3 = tensor.insert_slice %x into %c2[0, 8] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x12xf32>
  return %c3 : tensor<2x12xf32>
}

// -----

// Insertions that leave a gap are not a concatenation: left alone.
// CHECK-LABEL: func.func @gap
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<2x12xf32>
//       CHECK:   tensor.insert_slice %{{.*}} into %[[E]][0, 0] [2, 4] [1, 1]
//       CHECK:   tensor.insert_slice %{{.*}} into %{{.*}}[0, 8] [2, 4] [1, 1]
func.func @gap(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x12xf32> {
  %e = tensor.empty() : tensor<2x12xf32>
  %c1 = tensor.insert_slice %a into %e[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x12xf32>
  %c2 = tensor.insert_slice %b into %c1[0, 8] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x12xf32>
  return %c2 : tensor<2x12xf32>
}

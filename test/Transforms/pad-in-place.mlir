// RUN: fx-opt %s --split-input-file --fx-pad-in-place | FileCheck %s

// The producer writes the interior of the padded tensor; only the border is
// filled.
// CHECK-LABEL: func.func @producer_writes_interior
//   CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK: %[[PADDED:.*]] = tensor.empty() : tensor<1x4x10x12xf32>
//       CHECK: %[[TOP:.*]] = tensor.extract_slice %[[PADDED]][0, 0, 0, 0] [1, 4, 1, 12]
//       CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[TOP]] : tensor<1x4x1x12xf32>)
//       CHECK: tensor.insert_slice {{.*}}[0, 0, 0, 0] [1, 4, 1, 12]
//       CHECK: tensor.extract_slice {{.*}}[0, 0, 9, 0] [1, 4, 1, 12]
//       CHECK: tensor.extract_slice {{.*}}[0, 0, 0, 0] [1, 4, 10, 2]
//       CHECK: tensor.extract_slice {{.*}}[0, 0, 0, 10] [1, 4, 10, 2]
//       CHECK: %[[FILLED:.*]] = tensor.insert_slice {{.*}}[0, 0, 0, 10] [1, 4, 10, 2]
//       CHECK: %[[INTERIOR:.*]] = tensor.extract_slice %[[FILLED]][0, 0, 1, 2] [1, 4, 8, 8] [1, 1, 1, 1]
//       CHECK: %[[RESULT:.*]] = linalg.generic {{.*}} outs(%[[INTERIOR]] : tensor<1x4x8x8xf32>)
//   CHECK-NOT: tensor.pad
//       CHECK: tensor.insert_slice %[[RESULT]] into %[[FILLED]][0, 0, 1, 2] [1, 4, 8, 8] [1, 1, 1, 1]
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @producer_writes_interior(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x10x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 2] high[0, 0, 1, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x12xf32>
  return %p : tensor<1x4x10x12xf32>
}

// -----

// Through a dispatch region's loops: the scf.forall's shared output is the
// interior.
// CHECK-LABEL: func.func @through_forall
//       CHECK: %[[INTERIOR:.*]] = tensor.extract_slice {{.*}}[0, 1] [8, 8] [1, 1] : tensor<8x10xf32> to tensor<8x8xf32>
//       CHECK: %[[RESULT:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[INTERIOR]])
//       CHECK: tensor.insert_slice %[[RESULT]] into %{{.*}}[0, 1] [8, 8] [1, 1]
func.func @through_forall(%x: tensor<8x8xf32>) -> tensor<8x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %r = scf.forall (%i) = (0) to (8) step (4) shared_outs(%o = %e) -> (tensor<8x8xf32>) {
    %in = tensor.extract_slice %x[%i, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %in into %o[%i, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
    }
  }
  %p = tensor.pad %r low[0, 1] high[0, 1] {
  ^bb0(%a: index, %b: index):
    tensor.yield %zero : f32
  } : tensor<8x8xf32> to tensor<8x10xf32>
  return %p : tensor<8x10xf32>
}

// -----

// Left alone: a pad of a function argument (no producer to redirect), and
// a pad of a tensor computed into a non-empty one (its initial value counts).
// CHECK-LABEL: func.func @left_alone
//       CHECK: tensor.pad %arg0
//       CHECK: tensor.pad
//   CHECK-NOT: tensor.insert_slice
#id = affine_map<(d0) -> (d0)>
func.func @left_alone(%x: tensor<8xf32>, %init: tensor<8xf32>) -> (tensor<10xf32>, tensor<10xf32>) {
  %zero = arith.constant 0.0 : f32
  %p0 = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<8xf32> to tensor<10xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %p1 = tensor.pad %r low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<8xf32> to tensor<10xf32>
  return %p0, %p1 : tensor<10xf32>, tensor<10xf32>
}

// -----

// A result read by the pad and by a later op (a residual add): the result
// goes into the padded tensor right after it is made, and the add reads the
// padded tensor's interior, so that nothing reads the result itself after
// the insertion (bufferized, the producer writes the padded buffer once,
// without a buffer and copies of its own).
// CHECK-LABEL: func.func @second_reader
//       CHECK: %[[FILLED:.*]] = tensor.insert_slice {{.*}}[0, 0, 0, 10] [1, 4, 10, 2]
//       CHECK: %[[RESULT:.*]] = linalg.generic
//  CHECK-NEXT: ^bb0
//       CHECK: arith.maximumf
//       CHECK: %[[PADDED:.*]] = tensor.insert_slice %[[RESULT]] into %[[FILLED]][0, 0, 1, 2] [1, 4, 8, 8] [1, 1, 1, 1]
//  CHECK-NEXT: %[[VIEW:.*]] = tensor.extract_slice %[[PADDED]][0, 0, 1, 2] [1, 4, 8, 8] [1, 1, 1, 1]
//       CHECK: %[[CONV:.*]] = linalg.generic {{.*}} ins(%[[PADDED]] : tensor<1x4x10x12xf32>)
//       CHECK: linalg.generic {{.*}} ins(%[[VIEW]], %[[CONV]] : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#window = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 2)>
func.func @second_reader(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 2] high[0, 0, 1, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x12xf32>
  %e2 = tensor.empty() : tensor<1x4x8x8xf32>
  %c = linalg.generic {indexing_maps = [#window, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x4x10x12xf32>) outs(%e2 : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x8x8xf32>
  %e3 = tensor.empty() : tensor<1x4x8x8xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%e3 : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  return %sum : tensor<1x4x8x8xf32>
}

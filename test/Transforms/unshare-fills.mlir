// RUN: fx-opt %s --split-input-file --fx-unshare-fills | FileCheck %s

// Two matmuls accumulate into one zero fill: the second gets a fill (and
// an empty tensor) of its own, made right before it; the read of the fill
// as an input keeps the shared one.
// CHECK-LABEL: func.func @two_writers
//       CHECK: %[[E:.*]] = tensor.empty() : tensor<8x8xf32>
//       CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<8x8xf32>)
//       CHECK: %[[A:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : {{.*}}) outs(%[[F]] : tensor<8x8xf32>)
//       CHECK: %[[E2:.*]] = tensor.empty() : tensor<8x8xf32>
//       CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<8x8xf32>)
//       CHECK: %[[B:.*]] = linalg.matmul ins(%{{.*}}, %[[F]] : {{.*}}) outs(%[[F2]] : tensor<8x8xf32>)
func.func @two_writers(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %a = linalg.matmul ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = linalg.matmul ins(%x, %f : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A fill tiled into an scf.forall (the CPU tiling's parallel fill), the
// shared output of two dispatch regions' loops: the second loop gets a
// copy of the fill's loop.
// CHECK-LABEL: func.func @tiled_fill
//       CHECK: %[[F:.*]] = scf.forall
//       CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[F]])
//       CHECK: %[[F2:.*]] = scf.forall
//       CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[F2]])
func.func @tiled_fill(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = scf.forall (%i) = (0) to (8) step (4) shared_outs(%o = %e) -> (tensor<8x8xf32>) {
    %s = tensor.extract_slice %o[%i, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
    %t = linalg.fill ins(%zero : f32) outs(%s : tensor<4x8xf32>) -> tensor<4x8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%i, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
    }
  }
  %r1 = scf.forall (%i) = (0) to (8) step (4) shared_outs(%o = %f) -> (tensor<8x8xf32>) {
    %s = tensor.extract_slice %x[%i, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
    }
  }
  %r2 = scf.forall (%i) = (0) to (8) step (4) shared_outs(%o = %f) -> (tensor<8x8xf32>) {
    %s = tensor.extract_slice %x[%i, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
    }
  }
  return %r1, %r2 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A fill of a value computed at run time stays shared.
// CHECK-LABEL: func.func @not_constant
//       CHECK: linalg.fill
//   CHECK-NOT: linalg.fill
func.func @not_constant(%x: tensor<8x8xf32>, %v: f32) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %a = linalg.matmul ins(%x, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = linalg.matmul ins(%x, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
}

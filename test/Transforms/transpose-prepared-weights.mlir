// `linear` weights prepared once (parameters, weight constants) are
// transposed for the outer-product tiles whatever their k when the pipeline
// hoists computations on them (transpose-prepared-weights), up to 1 MiB.
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(fx-form-dispatch-regions{threads=1 transpose-prepared-weights=true}),canonicalize,cse)' | FileCheck %s
// RUN: fx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg),canonicalize,cse,func.func(fx-form-dispatch-regions{threads=1}),canonicalize,cse)' | FileCheck %s --check-prefix=OFF

// k = 384 (dot products without the option), a 147 KiB parameter weight.
// CHECK-LABEL: func.func @long_k_parameter
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg1 : tensor<96x384xf32>) outs(%{{.*}} : tensor<384x96xf32>) permutation = [1, 0]
// CHECK: linalg.matmul {{.*}}ins(%arg0, %[[T]] : tensor<64x384xf32>, tensor<384x96xf32>)
// OFF-LABEL: func.func @long_k_parameter
// OFF-NOT: linalg.transpose
func.func @long_k_parameter(%x: tensor<64x384xf32>, %w: tensor<96x384xf32> {fx.param = "w"}) -> tensor<64x96xf32> {
  %0 = fx.linear %x, %w : (tensor<64x384xf32>, tensor<96x384xf32>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

// A weight computed at run time: read as it is (dot products).
// CHECK-LABEL: func.func @long_k_input
// CHECK-NOT: linalg.transpose
func.func @long_k_input(%x: tensor<64x384xf32>, %w: tensor<96x384xf32>) -> tensor<64x96xf32> {
  %0 = fx.linear %x, %w : (tensor<64x384xf32>, tensor<96x384xf32>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

// A 2.25 MiB weight stays: each row block of the region would stream it.
// CHECK-LABEL: func.func @large_weight
// CHECK-NOT: linalg.transpose
func.func @large_weight(%x: tensor<64x1536xf32>, %w: tensor<384x1536xf32> {fx.param = "w"}) -> tensor<64x384xf32> {
  %0 = fx.linear %x, %w : (tensor<64x1536xf32>, tensor<384x1536xf32>) -> tensor<64x384xf32>
  return %0 : tensor<64x384xf32>
}

// RUN: fx-opt %s --split-input-file --fx-sub-batch=sub-batch=1 --verify-diagnostics | FileCheck %s
// RUN: fx-opt %s --split-input-file --fx-sub-batch=sub-batch=2 --verify-diagnostics | FileCheck %s --check-prefix=TWO

// A convolution net's head: every value that depends on the input takes the
// sub-batch as its outermost dimension; parameters keep their types; the
// view's size follows.
// CHECK-LABEL: func.func @net(
// CHECK-SAME: %{{.*}}: tensor<8x3x3x3xf32> {fx.param = "w"}
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x3x8x8xf32>) -> (tensor<1x10xf32>, tensor<1x8xf32>)
// CHECK: fx.convolution %[[X]], {{.*}} -> tensor<1x8x8x8xf32>
// CHECK: fx.batch_norm {{.*}} -> tensor<1x8x8x8xf32>
// CHECK: fx.add {{.*}} : (tensor<1x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<1x8x8x8xf32>
// CHECK: fx.max_pool2d {{.*}} -> tensor<1x8x4x4xf32>
// CHECK: fx.mean {{.*}} -> tensor<1x8x1x1xf32>
// CHECK: fx.view {{.*}} {size = array<i64: 1, 8>} : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
// CHECK: fx.linear {{.*}} : (tensor<1x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<1x10xf32>
// CHECK: fx.softmax {{.*}} -> tensor<1x10xf32>
// TWO-LABEL: func.func @net(
// TWO-SAME: tensor<2x3x8x8xf32>) -> (tensor<2x10xf32>, tensor<2x8xf32>)
// TWO: fx.view {{.*}} {size = array<i64: 2, 8>}
func.func @net(%w: tensor<8x3x3x3xf32> {fx.param = "w"},
               %mean: tensor<8xf32> {fx.param = "mean"},
               %var: tensor<8xf32> {fx.param = "var"},
               %shift: tensor<8x1x1xf32> {fx.param = "shift"},
               %fc: tensor<10x8xf32> {fx.param = "fc.weight"},
               %fcb: tensor<10xf32> {fx.param = "fc.bias"},
               %x: tensor<4x3x8x8xf32>) -> (tensor<4x10xf32>, tensor<4x8xf32>) {
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<4x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<4x8x8x8xf32>
  %1 = fx.batch_norm %0, %mean, %var : (tensor<4x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8x8x8xf32>
  %2 = fx.add %1, %shift : (tensor<4x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<4x8x8x8xf32>
  %3 = fx.max_pool2d %2 {dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<4x8x8x8xf32>) -> tensor<4x8x4x4xf32>
  %4 = fx.mean %3 {dim = array<i64: -1, -2>, keepdim = true} : (tensor<4x8x4x4xf32>) -> tensor<4x8x1x1xf32>
  %5 = fx.view %4 {size = array<i64: 4, 8>} : (tensor<4x8x1x1xf32>) -> tensor<4x8xf32>
  %6 = fx.linear %5, %fc, %fcb : (tensor<4x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %7 = fx.softmax %6 {dim = 1 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return %7, %5 : tensor<4x10xf32>, tensor<4x8xf32>
}

// -----

// A reduction over the batch mixes its items.
func.func @reduce_batch(%x: tensor<4x3xf32>) -> tensor<3xf32> {
  // expected-error @below {{cannot split the batch of 'reduce_batch': it reduces over dimension 0}}
  %0 = fx.sum %x {dim = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @softmax_batch(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{it works along dimension 0 (its dim)}}
  %0 = fx.softmax %x {dim = -2 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A view that merges the batch into another dimension.
func.func @merge_batch(%x: tensor<4x3xf32>) -> tensor<12xf32> {
  // expected-error @below {{it moves the batch out of dimension 0}}
  %0 = fx.view %x {size = array<i64: 12>} : (tensor<4x3xf32>) -> tensor<12xf32>
  return %0 : tensor<12xf32>
}

// -----

// A parameter with the batch dimension that does not broadcast along it.
func.func @batched_parameter(%p: tensor<4x3xf32> {fx.param = "p"}, %x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{an operand that does not depend on the inputs has the batch dimension without broadcasting along it}}
  %0 = fx.add %x, %p : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @squeeze_all(%x: tensor<4x1x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{it squeezes every dimension of size 1, which a sub-batch of 1 would change}}
  %0 = fx.squeeze %x : (tensor<4x1x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @cat_batch(%x: tensor<4x3xf32>) -> tensor<8x3xf32> {
  // expected-error @below {{it works along dimension 0 (its dim)}}
  %0 = fx.cat %x, %x {dim = 0 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @matmul_by_input(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{its second operand depends on the inputs}}
  %0 = fx.mm %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A result computed from the parameters alone has no batch to slice.
func.func @parameter_result(%p: tensor<3xf32> {fx.param = "p"}, %x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  %0 = fx.relu %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %1 = fx.relu %p : (tensor<3xf32>) -> tensor<3xf32>
  // expected-error @below {{cannot split the batch of 'parameter_result': a result does not depend on the inputs}}
  return %0, %1 : tensor<4x3xf32>, tensor<3xf32>
}

// -----

// expected-error @below {{cannot split the batch of 'other_batches': the inputs' outermost dimensions differ (4 and 2)}}
func.func @other_batches(%x: tensor<4x3xf32>, %y: tensor<2x3xf32>) -> tensor<4x3xf32> {
  return %x : tensor<4x3xf32>
}

// -----

// expected-error @below {{cannot split the batch of 'batch_one': the batch is 1}}
func.func @batch_one(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = fx.relu %x : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @permute_batch(%x: tensor<4x3xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{it moves dimension 0}}
  %0 = fx.permute %x {dims = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @transpose_batch(%x: tensor<4x3x2xf32>) -> tensor<2x3x4xf32> {
  // expected-error @below {{it works along dimension 0 (its dim0)}}
  %0 = fx.transpose %x {dim0 = 0 : i64, dim1 = 2 : i64} : (tensor<4x3x2xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @flatten_batch(%x: tensor<4x3xf32>) -> tensor<12xf32> {
  // expected-error @below {{it works along dimension 0 (its start_dim)}}
  %0 = fx.flatten %x : (tensor<4x3xf32>) -> tensor<12xf32>
  return %0 : tensor<12xf32>
}

// -----

func.func @unsqueeze_batch(%x: tensor<4x3xf32>) -> tensor<1x4x3xf32> {
  // expected-error @below {{it works along dimension 0 (its dim)}}
  %0 = fx.unsqueeze %x {dim = 0 : i64} : (tensor<4x3xf32>) -> tensor<1x4x3xf32>
  return %0 : tensor<1x4x3xf32>
}

// -----

func.func @layer_norm_batch(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{it normalizes over dimension 0}}
  %0 = fx.layer_norm %x {normalized_shape = array<i64: 4, 3>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @not_fx(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{'tensor.cast' is not an FX op}}
  %0 = tensor.cast %x : tensor<4x3xf32> to tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// expected-error @below {{cannot split the batch of 'dynamic': input 0 has no static outermost dimension}}
func.func @dynamic(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  return %x : tensor<?x3xf32>
}

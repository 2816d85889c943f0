// ((x * 2 + 1).relu() * y).tanh() over 2^24 f32 elements: 4 ops, 2 inputs,
// 1 output, 192 MiB of minimal traffic.
func.func @chain4(%x: tensor<16777216xf32>, %y: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %two = fx.constant dense<2.0> : tensor<f32>
  %one = fx.constant dense<1.0> : tensor<f32>
  %0 = fx.mul %x, %two : (tensor<16777216xf32>, tensor<f32>) -> tensor<16777216xf32>
  %1 = fx.add %0, %one : (tensor<16777216xf32>, tensor<f32>) -> tensor<16777216xf32>
  %2 = fx.relu %1 : (tensor<16777216xf32>) -> tensor<16777216xf32>
  %3 = fx.mul %2, %y : (tensor<16777216xf32>, tensor<16777216xf32>) -> tensor<16777216xf32>
  %4 = fx.tanh %3 : (tensor<16777216xf32>) -> tensor<16777216xf32>
  return %4 : tensor<16777216xf32>
}
// softmax over the rows of a 4096x4096 f32 matrix: 128 MiB of traffic.
func.func @softmax(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = fx.softmax %x {dim = -1 : i64} : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
// layer norm over the rows of a 4096x4096 f32 matrix (weight and bias of
// 4096): 128 MiB of traffic.
func.func @layer_norm(%x: tensor<4096x4096xf32>, %w: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %0 = fx.layer_norm %x weight(%w) bias(%b) {normalized_shape = array<i64: 4096>} : (tensor<4096x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}

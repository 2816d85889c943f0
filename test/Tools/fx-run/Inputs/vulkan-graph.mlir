func.func @forward(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>) {
  %0 = fx.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = fx.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = fx.softmax %1 {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = fx.mm %2, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %2, %3 : tensor<4x8xf32>, tensor<4x16xf32>
}

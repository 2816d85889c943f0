func.func @square(%x: tensor<2x3xf32>, %w: tensor<3x3xf32> {fx.param = "w"}) -> tensor<2x3xf32> {
  %0 = fx.mm %w, %w : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %1 = fx.mm %x, %0 : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

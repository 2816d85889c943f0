func.func @linear_relu(%x: tensor<2x4xf32>,
    %w: tensor<3x4xf32> {fx.param = "fc.weight"},
    %b: tensor<3xf32> {fx.param = "fc.bias"}) -> tensor<2x3xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = fx.relu %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

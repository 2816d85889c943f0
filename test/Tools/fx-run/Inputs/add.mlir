func.func @add(%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = fx.add %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @second(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = fx.neg %x : (tensor<2xf32>) -> tensor<2xf32>
  return %0, %x : tensor<2xf32>, tensor<2xf32>
}

func.func @forward(%a: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = fx.relu %a : (tensor<1000xf32>) -> tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

func.func @f64(%x: tensor<2xf64>) -> tensor<2xf64> {
  return %x : tensor<2xf64>
}

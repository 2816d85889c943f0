func.func @neg(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = fx.neg %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

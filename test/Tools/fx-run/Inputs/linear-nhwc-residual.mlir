// ConvNeXt's block end: a linear layer over channels-last pixels, back to
// NCHW, the layer scale and the residual add.
func.func @block_end(%x: tensor<1x8x8x64xf32>, %w: tensor<32x64xf32>,
                     %b: tensor<32xf32>, %s: tensor<32x1x1xf32>,
                     %r: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<1x8x8x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<1x8x8x32xf32>
  %1 = fx.permute %0 {dims = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x32xf32>) -> tensor<1x32x8x8xf32>
  %2 = fx.mul %s, %1 : (tensor<32x1x1xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %3 = fx.add %2, %r : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %3 : tensor<1x32x8x8xf32>
}

func.func @conv3x3(%x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %0 = fx.convolution %x, %w {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  return %0 : tensor<1x64x56x56xf32>
}

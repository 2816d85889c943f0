// A batch-1 3x3 convolution and ReLU whose 49 output tiles split k 6 ways
// on the tensor cores (test/Tools/fx-compile/split-k-counters.test).
func.func @forward(%x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  %1 = fx.relu %0 : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %1 : tensor<1x64x56x56xf32>
}

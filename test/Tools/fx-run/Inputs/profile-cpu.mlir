// A convolution with a fused epilogue and a lone elementwise op, large
// enough for parallel loops (test/Tools/fx-run/cpu-profile.test).
func.func @forward(%x: tensor<1x16x64x64xf32>, %w: tensor<32x16x3x3xf32>)
    -> tensor<1x32x62x62xf32> {
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x16x64x64xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x62x62xf32> loc("convolution"("model.py":7:1))
  %1 = fx.relu %0 : (tensor<1x32x62x62xf32>) -> tensor<1x32x62x62xf32> loc("relu"("model.py":8:1))
  %2 = fx.exp %1 : (tensor<1x32x62x62xf32>) -> tensor<1x32x62x62xf32> loc("exp"("model.py":9:1))
  return %2 : tensor<1x32x62x62xf32>
}

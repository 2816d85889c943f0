// A torchvision ResNet-18 basic block (layer1.0) in the FX dialect, as the
// importer lays it out: parameters are arguments tagged with their qualified
// names, the batch dimension is dynamic.
//
//   out = relu(bn2(conv2(relu(bn1(conv1(x))))) + x)
func.func @basic_block(
    %x: tensor<?x64x56x56xf32>,
    %conv1_w: tensor<64x64x3x3xf32> {fx.param = "layer1.0.conv1.weight"},
    %bn1_w: tensor<64xf32> {fx.param = "layer1.0.bn1.weight"},
    %bn1_b: tensor<64xf32> {fx.param = "layer1.0.bn1.bias"},
    %bn1_mean: tensor<64xf32> {fx.param = "layer1.0.bn1.running_mean"},
    %bn1_var: tensor<64xf32> {fx.param = "layer1.0.bn1.running_var"},
    %conv2_w: tensor<64x64x3x3xf32> {fx.param = "layer1.0.conv2.weight"},
    %bn2_w: tensor<64xf32> {fx.param = "layer1.0.bn2.weight"},
    %bn2_b: tensor<64xf32> {fx.param = "layer1.0.bn2.bias"},
    %bn2_mean: tensor<64xf32> {fx.param = "layer1.0.bn2.running_mean"},
    %bn2_var: tensor<64xf32> {fx.param = "layer1.0.bn2.running_var"})
    -> tensor<?x64x56x56xf32> {
  %0 = fx.convolution %x, %conv1_w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}
      : (tensor<?x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<?x64x56x56xf32> loc("conv1")
  %1 = fx.batch_norm %0, %bn1_mean, %bn1_var weight(%bn1_w) bias(%bn1_b) {eps = 1.0e-05 : f64}
      : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32> loc("bn1")
  %2 = fx.relu %1 : (tensor<?x64x56x56xf32>) -> tensor<?x64x56x56xf32> loc("relu")
  %3 = fx.convolution %2, %conv2_w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}
      : (tensor<?x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<?x64x56x56xf32> loc("conv2")
  %4 = fx.batch_norm %3, %bn2_mean, %bn2_var weight(%bn2_w) bias(%bn2_b) {eps = 1.0e-05 : f64}
      : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32> loc("bn2")
  %5 = fx.add %4, %x : (tensor<?x64x56x56xf32>, tensor<?x64x56x56xf32>) -> tensor<?x64x56x56xf32> loc("add")
  %6 = fx.relu %5 : (tensor<?x64x56x56xf32>) -> tensor<?x64x56x56xf32> loc("relu_1")
  return %6 : tensor<?x64x56x56xf32>
}

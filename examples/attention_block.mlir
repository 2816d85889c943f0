// Self-attention of nn.TransformerEncoderLayer(d_model=256, nhead=4,
// batch_first=True) on a [2, 16, 256] input, as make_fx decomposes it,
// followed by the residual add and layer norm.
func.func @attention_block(
    %x: tensor<2x16x256xf32>,
    %in_w: tensor<768x256xf32> {fx.param = "self_attn.in_proj_weight"},
    %in_b: tensor<768xf32> {fx.param = "self_attn.in_proj_bias"},
    %out_w: tensor<256x256xf32> {fx.param = "self_attn.out_proj.weight"},
    %out_b: tensor<256xf32> {fx.param = "self_attn.out_proj.bias"},
    %ln_w: tensor<256xf32> {fx.param = "norm1.weight"},
    %ln_b: tensor<256xf32> {fx.param = "norm1.bias"}) -> tensor<2x16x256xf32> {
  %qkv = fx.linear %x, %in_w, %in_b : (tensor<2x16x256xf32>, tensor<768x256xf32>, tensor<768xf32>) -> tensor<2x16x768xf32>
  %parts:3 = fx.split %qkv {split_sizes = array<i64: 256, 256, 256>, dim = -1 : i64}
      : (tensor<2x16x768xf32>) -> (tensor<2x16x256xf32>, tensor<2x16x256xf32>, tensor<2x16x256xf32>)
  %q0 = fx.view %parts#0 {size = array<i64: 2, 16, 4, 64>} : (tensor<2x16x256xf32>) -> tensor<2x16x4x64xf32>
  %k0 = fx.view %parts#1 {size = array<i64: 2, 16, 4, 64>} : (tensor<2x16x256xf32>) -> tensor<2x16x4x64xf32>
  %v0 = fx.view %parts#2 {size = array<i64: 2, 16, 4, 64>} : (tensor<2x16x256xf32>) -> tensor<2x16x4x64xf32>
  %q = fx.transpose %q0 {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x16x4x64xf32>) -> tensor<2x4x16x64xf32>
  %k = fx.transpose %k0 {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x16x4x64xf32>) -> tensor<2x4x16x64xf32>
  %v = fx.transpose %v0 {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x16x4x64xf32>) -> tensor<2x4x16x64xf32>
  %attn = fx.scaled_dot_product_attention %q, %k, %v
      : (tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>) -> tensor<2x4x16x64xf32>
  %heads = fx.transpose %attn {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x4x16x64xf32>) -> tensor<2x16x4x64xf32>
  %merged = fx.view %heads {size = array<i64: 2, 16, 256>} : (tensor<2x16x4x64xf32>) -> tensor<2x16x256xf32>
  %proj = fx.linear %merged, %out_w, %out_b : (tensor<2x16x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<2x16x256xf32>
  %res = fx.add %x, %proj : (tensor<2x16x256xf32>, tensor<2x16x256xf32>) -> tensor<2x16x256xf32>
  %out = fx.layer_norm %res weight(%ln_w) bias(%ln_b) {normalized_shape = array<i64: 256>, eps = 1.0e-05 : f64}
      : (tensor<2x16x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<2x16x256xf32>
  return %out : tensor<2x16x256xf32>
}

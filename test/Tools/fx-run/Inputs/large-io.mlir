// 1 MiB in and out, over the runtime's parallel copies (256 KiB and up).
func.func @forward(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = fx.mul %x, %x : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %1 = fx.sin %0 : (tensor<512x512xf32>) -> tensor<512x512xf32>
  return %1 : tensor<512x512xf32>
}

func.func @matmul_256(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = fx.mm %a, %b : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
func.func @matmul_512(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = fx.mm %a, %b : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}
func.func @matmul_1024(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = fx.mm %a, %b : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
func.func @matmul_1000(%a: tensor<1000x1000xf32>, %b: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  %0 = fx.mm %a, %b : (tensor<1000x1000xf32>, tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}

// Two branches from one input: x @ w1 @ w2 and x @ w3.
func.func @branches(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>,
                    %w2: tensor<16x16xf32>, %w3: tensor<16x16xf32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %a = fx.mm %x, %w1 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %c = fx.mm %a, %w2 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = fx.mm %x, %w3 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %c, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

//===- FXMatmulOps.td - matrix products --------------------*- tablegen -*-===//

#ifndef FX_LINALG_OPS_TD
#define FX_LINALG_OPS_TD

include "FXBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class FX_MatmulLikeOp<string mnemonic, list<Trait> traits = []> :
    FX_Op<mnemonic, !listconcat([Pure, FX_InferResultTypes], traits)> {
  let results = (outs FX_NumericTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def FX_MmOp : FX_MatmulLikeOp<"mm"> {
  let summary = "`aten::mm`: matrix product of two matrices";
  let description = [{
    Mirrors `aten::mm(Tensor self, Tensor mat2) -> Tensor`: `[M, K] x [K, N]
    -> [M, N]`. Both operands have the same dtype (ATen does not promote in
    matrix products).

    ```mlir
    %0 = fx.mm %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    ```

    Canonicalization: `mm(x, t(w))` becomes `linear(x, w)`, which reads the
    weight transposed in place instead of transposing it first.
  }];
  let arguments = (ins FX_NumericTensor:$self, FX_NumericTensor:$mat2);
  let hasCanonicalizer = 1;
}

def FX_BmmOp : FX_MatmulLikeOp<"bmm"> {
  let summary = "`aten::bmm`: batched matrix product";
  let description = [{
    Mirrors `aten::bmm(Tensor self, Tensor mat2) -> Tensor`: `[B, M, K] x
    [B, K, N] -> [B, M, N]`, no broadcasting of the batch dimension.
  }];
  let arguments = (ins FX_NumericTensor:$self, FX_NumericTensor:$mat2);
}

def FX_AddmmOp : FX_MatmulLikeOp<"addmm"> {
  let summary = "`aten::addmm`: scaled matrix product plus a scaled tensor";
  let description = [{
    Mirrors `aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar
    beta=1, Scalar alpha=1) -> Tensor`: `beta * self + alpha * (mat1 @
    mat2)`, where `self` broadcasts to `[M, N]` (typically a bias `[N]`). This
    is what `nn.Linear` becomes under `make_fx` for 2-D inputs.

    ```mlir
    %0 = fx.addmm %bias, %x, %wt
        : (tensor<16xf32>, tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    ```

    Canonicalization: `addmm(b, x, t(w))` with `beta = alpha = 1` and a bias
    `b` of shape `[N]` (what `nn.Linear` traces to) becomes `linear(x, w, b)`:
    a matmul reading the weight transposed in place, with the bias as its
    epilogue.
  }];
  let arguments = (ins FX_NumericTensor:$self, FX_NumericTensor:$mat1,
                   FX_NumericTensor:$mat2,
                   DefaultValuedAttr<F64Attr, "1.0">:$beta,
                   DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let hasCanonicalizer = 1;
}

def FX_LinearOp : FX_MatmulLikeOp<"linear"> {
  let summary = "`aten::linear`: `input @ weight^T + bias`";
  let description = [{
    Mirrors `aten::linear(Tensor input, Tensor weight, Tensor? bias=None) ->
    Tensor`: `[..., K] x [N, K]^T (+ [N]) -> [..., N]`. `weight` is stored as
    `nn.Linear` stores it, `[out_features, in_features]`.

    ```mlir
    %0 = fx.linear %x, %w, %b
        : (tensor<2x5x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
    ```
  }];
  let arguments = (ins FX_NumericTensor:$input, FX_NumericTensor:$weight,
                   Optional<FX_NumericTensor>:$bias);
}

#endif // FX_LINALG_OPS_TD

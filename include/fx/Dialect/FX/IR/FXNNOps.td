//===- FXNNOps.td - convolution, pooling, normalization, attention -*- tablegen -*-===//

#ifndef FX_NN_OPS_TD
#define FX_NN_OPS_TD

include "FXBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def FX_ConvolutionOp : FX_Op<"convolution", [Pure, FX_InferResultTypes]> {
  let summary = "`aten::convolution`: N-d (transposed) convolution";
  let description = [{
    Mirrors `aten::convolution(Tensor input, Tensor weight, Tensor? bias,
    SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed,
    SymInt[] output_padding, SymInt groups) -> Tensor`, the op every
    `nn.Conv{1,2,3}d` becomes.

    `input` is `[N, C_in, *spatial]` with 1 to 3 spatial dimensions. For a
    plain convolution `weight` is `[C_out, C_in / groups, *kernel]`; for a
    transposed one `[C_in, C_out / groups, *kernel]`. `bias`, if present, is
    `[C_out]`. `stride`, `padding`, `dilation` and `output_padding` have one
    entry per spatial dimension (the importer expands ATen's single-value
    forms). Output size per spatial dimension:

    * plain: `(in + 2 * pad - dilation * (k - 1) - 1) / stride + 1`
    * transposed: `(in - 1) * stride - 2 * pad + dilation * (k - 1) +
      output_padding + 1`

    ```mlir
    %0 = fx.convolution %x, %w, %b {stride = array<i64: 1, 1>,
        padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
        output_padding = array<i64: 0, 0>, groups = 1 : i64}
        : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>)
        -> tensor<1x16x32x32xf32>
    ```
  }];
  let arguments = (ins FX_FloatTensor:$input, FX_FloatTensor:$weight,
                   Optional<FX_FloatTensor>:$bias,
                   DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                   DenseI64ArrayAttr:$dilation,
                   DefaultValuedAttr<BoolAttr, "false">:$transposed,
                   DenseI64ArrayAttr:$output_padding,
                   DefaultValuedAttr<FX_I64Attr, "1">:$groups);
  let results = (outs FX_FloatTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

class FX_Pool2dOp<string mnemonic, list<Trait> traits = []> :
    FX_Op<mnemonic, !listconcat([Pure, FX_InferResultTypes], traits)> {
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
}

def FX_MaxPool2dOp : FX_Pool2dOp<"max_pool2d"> {
  let summary = "`aten::max_pool2d`";
  let description = [{
    Mirrors `aten::max_pool2d(Tensor self, int[2] kernel_size, int[2]
    stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) ->
    Tensor` on `[N, C, H, W]` or `[C, H, W]` input. All four lists have two
    entries (ATen's empty `stride` means `stride = kernel_size`; the importer
    makes it explicit). Padding is at most half the effective kernel size.
    Output size: `floor_or_ceil((in + 2 * pad - dilation * (k - 1) - 1) /
    stride) + 1`, where in ceil mode the last window must start inside the
    input or its left padding.

    ```mlir
    %0 = fx.max_pool2d %x {kernel_size = array<i64: 3, 3>,
        stride = array<i64: 2, 2>, padding = array<i64: 1, 1>,
        dilation = array<i64: 1, 1>}
        : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins FX_NumericTensor:$self,
                   DenseI64ArrayAttr:$kernel_size, DenseI64ArrayAttr:$stride,
                   DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs FX_NumericTensor:$result);
}

def FX_MaxPool2dWithIndicesOp : FX_Pool2dOp<"max_pool2d_with_indices"> {
  let summary = "`aten::max_pool2d_with_indices`";
  let description = [{
    Mirrors `aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size,
    int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool
    ceil_mode=False) -> (Tensor, Tensor)`: like `fx.max_pool2d`, and also
    returns, as `i64`, the flat index within each `H * W` input plane of the
    element each maximum came from.
  }];
  let arguments = (ins FX_NumericTensor:$self,
                   DenseI64ArrayAttr:$kernel_size, DenseI64ArrayAttr:$stride,
                   DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs FX_NumericTensor:$result,
                 RankedTensorOf<[I64]>:$indices);
}

def FX_AvgPool2dOp : FX_Pool2dOp<"avg_pool2d"> {
  let summary = "`aten::avg_pool2d`";
  let description = [{
    Mirrors `aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2]
    stride=[], int[2] padding=0, bool ceil_mode=False, bool
    count_include_pad=True, int? divisor_override=None) -> Tensor` on
    `[N, C, H, W]` or `[C, H, W]` input. Padding is at most half the kernel
    size. Each window sum is divided by `divisor_override` if given
    (non-zero), else by the window size including padding
    (`count_include_pad`) or by the number of input elements it covers.
  }];
  let arguments = (ins FX_FloatTensor:$self,
                   DenseI64ArrayAttr:$kernel_size, DenseI64ArrayAttr:$stride,
                   DenseI64ArrayAttr:$padding,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
                   OptionalAttr<FX_I64Attr>:$divisor_override);
  let results = (outs FX_FloatTensor:$result);
}

def FX_AdaptiveAvgPool2dOp : FX_Pool2dOp<"adaptive_avg_pool2d"> {
  let summary = "`aten::_adaptive_avg_pool2d`";
  let description = [{
    Mirrors `aten::_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size)
    -> Tensor`: output cell `(i, j)` averages input rows
    `[floor(i * H / OH), ceil((i + 1) * H / OH))` and the same for columns.

    ```mlir
    %0 = fx.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>}
        : (tensor<1x512x7x7xf32>) -> tensor<1x512x1x1xf32>
    ```
  }];
  let arguments = (ins FX_FloatTensor:$self, DenseI64ArrayAttr:$output_size);
  let results = (outs FX_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Normalization and softmax
//===----------------------------------------------------------------------===//

def FX_BatchNormOp : FX_Op<"batch_norm",
    [Pure, FX_InferResultTypes, AttrSizedOperandSegments]> {
  let summary = "batch normalization in inference form";
  let description = [{
    Mirrors `aten::_native_batch_norm_legit_no_training(Tensor input, Tensor?
    weight, Tensor? bias, Tensor running_mean, Tensor running_var, float
    momentum, float eps) -> (Tensor, Tensor, Tensor)`, keeping only the
    normalized output (the other two results are empty in inference):

    `(input - running_mean) / sqrt(running_var + eps) * weight + bias`

    over channel dimension 1 of an `[N, C, ...]` input. `weight`, `bias` and
    the running statistics are `[C]`. The momentum is irrelevant in inference
    and not kept.

    ```mlir
    %0 = fx.batch_norm %x, %mean, %var weight(%w) bias(%b) {eps = 1.0e-05 : f64}
        : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>,
           tensor<16xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = (ins FX_FloatTensor:$input, FX_FloatTensor:$running_mean,
                   FX_FloatTensor:$running_var,
                   Optional<FX_FloatTensor>:$weight,
                   Optional<FX_FloatTensor>:$bias,
                   DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs FX_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $running_mean `,` $running_var
    (`weight` `(` $weight^ `)`)? (`bias` `(` $bias^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def FX_LayerNormOp : FX_Op<"layer_norm",
    [Pure, FX_InferResultTypes, AttrSizedOperandSegments]> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    Mirrors `aten::native_layer_norm(Tensor input, SymInt[] normalized_shape,
    Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)`,
    keeping only the normalized output: the trailing
    `rank(normalized_shape)` dimensions of `input` (which must equal
    `normalized_shape`) are normalized to zero mean and unit (biased)
    variance, then scaled by `weight` and shifted by `bias`, both of shape
    `normalized_shape`.

    ```mlir
    %0 = fx.layer_norm %x weight(%w) bias(%b)
        {normalized_shape = array<i64: 256>, eps = 1.0e-05 : f64}
        : (tensor<2x7x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<2x7x256xf32>
    ```
  }];
  let arguments = (ins FX_FloatTensor:$input, Optional<FX_FloatTensor>:$weight,
                   Optional<FX_FloatTensor>:$bias,
                   DenseI64ArrayAttr:$normalized_shape,
                   DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs FX_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` `(` $weight^ `)`)? (`bias` `(` $bias^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
}

class FX_SoftmaxOp<string mnemonic, string aten, string semantics> :
    FX_Op<mnemonic, [Pure, FX_InferResultTypes]> {
  let summary = "`aten::" # aten # "`";
  let description = [{
    Mirrors `aten::}] # aten # [{(Tensor self, int dim, bool half_to_float)
    -> Tensor` with `half_to_float = false`: }] # semantics # [{ along `dim`
    (negative values count from the end).
  }];
  let arguments = (ins FX_FloatTensor:$self, FX_I64Attr:$dim);
  let results = (outs FX_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      auto type = ::llvm::cast<::mlir::RankedTensorType>(adaptor.getSelf().getType());
      if (::mlir::failed(::mlir::fx::normalizeDim(
              ::mlir::fx::ShapeError(loc, getOperationName()), "dim",
              adaptor.getDim(), type.getRank())))
        return ::mlir::failure();
      results.push_back(type);
      return ::mlir::success();
    }
  }];
}

def FX_SoftmaxOp : FX_SoftmaxOp<"softmax", "_softmax",
    "`exp(x - max(x)) / sum(exp(x - max(x)))`">;
def FX_LogSoftmaxOp : FX_SoftmaxOp<"log_softmax", "_log_softmax",
    "`x - max(x) - log(sum(exp(x - max(x))))`">;

//===----------------------------------------------------------------------===//
// Embedding and attention
//===----------------------------------------------------------------------===//

def FX_EmbeddingOp : FX_Op<"embedding", [Pure, FX_InferResultTypes]> {
  let summary = "`aten::embedding`: gather rows of a table";
  let description = [{
    Mirrors `aten::embedding(Tensor weight, Tensor indices, SymInt
    padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) ->
    Tensor`: `result[i..., :] = weight[indices[i...], :]`, so the result
    shape is `indices.shape + [D]` for a `[V, D]` table. `padding_idx` only
    matters for training and is kept for fidelity (`-1` means none).

    ```mlir
    %0 = fx.embedding %table, %ids
        : (tensor<1000x64xf32>, tensor<2x7xi64>) -> tensor<2x7x64xf32>
    ```
  }];
  let arguments = (ins FX_Tensor:$weight, FX_IntTensor:$indices,
                   DefaultValuedAttr<FX_I64Attr, "-1">:$padding_idx);
  let results = (outs FX_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def FX_ScaledDotProductAttentionOp : FX_Op<"scaled_dot_product_attention",
    [Pure, FX_InferResultTypes]> {
  let summary = "fused attention: softmax(q k^T * scale + mask) v";
  let description = [{
    Mirrors `aten::scaled_dot_product_attention(Tensor query, Tensor key,
    Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool
    is_causal=False, *, float? scale=None) -> Tensor`, as a first-class op so
    that the whole attention can be fused into one kernel.

    `query` is `[..., L, E]`, `key` `[..., S, E]`, `value` `[..., S, Ev]`
    with equal leading (batch, head) dimensions; the result is
    `[..., L, Ev]`. `scale` defaults to `1 / sqrt(E)`. `attn_mask`
    broadcasts to `[..., L, S]`: an `i1` mask keeps the positions where it is
    true, a floating mask is added to the scores. `is_causal` applies a
    lower-triangular mask and excludes `attn_mask`. Only inference is
    modelled, so `dropout_p` must be 0.

    ```mlir
    %0 = fx.scaled_dot_product_attention %q, %k, %v {is_causal = true}
        : (tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>)
        -> tensor<2x4x16x32xf32>
    ```
  }];
  let arguments = (ins FX_FloatTensor:$query, FX_FloatTensor:$key,
                   FX_FloatTensor:$value, Optional<FX_Tensor>:$attn_mask,
                   DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
                   DefaultValuedAttr<BoolAttr, "false">:$is_causal,
                   OptionalAttr<F64Attr>:$scale);
  let results = (outs FX_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $attn_mask^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
}

#endif // FX_NN_OPS_TD

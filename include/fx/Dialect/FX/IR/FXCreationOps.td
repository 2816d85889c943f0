//===- FXCreationOps.td - constants, creation, conversion ------*- tablegen -*-===//

#ifndef FX_CREATION_OPS_TD
#define FX_CREATION_OPS_TD

include "FXBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def FX_ConstantOp : FX_Op<"constant",
    [ConstantLike, Pure, FX_InferResultTypes]> {
  let summary = "a constant tensor";
  let description = [{
    A tensor literal: frozen parameters and buffers, `aten::lift_fresh_copy`
    of a literal, and Python scalars taking part in arithmetic (as rank-0
    tensors). The result type is the type of `value`.

    ```mlir
    %0 = fx.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %1 = fx.constant dense<3> : tensor<i64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs FX_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

class FX_FullLikeOp<string mnemonic, string aten, string semantics> :
    FX_Op<mnemonic, [Pure]> {
  let summary = "`aten::" # mnemonic # "`: a tensor filled with one value";
  let description = [{
    Mirrors `}] # aten # [{`. }] # semantics # [{ The shape and dtype are
    those of the result type (ATen's `size` and `dtype`), which must be
    static. Folds to a splat `fx.constant`.
  }];
  let results = (outs FX_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def FX_FullOp : FX_FullLikeOp<"full",
    "aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, ...) -> Tensor",
    [{Every element is `fill_value`, which must be representable in the
    dtype: integral for integer types, 0 or 1 for `i1`.

    ```mlir
    %0 = fx.full {fill_value = 0.5 : f64} : tensor<2x3xf32>
    ```
  }]> {
  let arguments = (ins F64Attr:$fill_value);
}
def FX_ZerosOp : FX_FullLikeOp<"zeros",
    "aten::zeros(SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor",
    "Every element is 0.">;
def FX_OnesOp : FX_FullLikeOp<"ones",
    "aten::ones(SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor",
    "Every element is 1.">;

def FX_ArangeOp : FX_Op<"arange", [Pure]> {
  let summary = "`aten::arange`: evenly spaced values";
  let description = [{
    Mirrors `aten::arange.start_step(Scalar start, Scalar end, Scalar step=1,
    *, ScalarType? dtype=None, ...) -> Tensor`: the values `start + i * step`
    for `i` in `[0, ceil((end - start) / step))`. The result is 1-D and its
    static size must equal that count; `step` is non-zero and points from
    `start` towards `end`. For integer results, as in ATen, `start`, `end`
    and `step` are first truncated to integers.

    ```mlir
    %0 = fx.arange {start = 0.0 : f64, end = 10.0 : f64, step = 3.0 : f64}
        : tensor<4xi64>
    ```
  }];
  let arguments = (ins DefaultValuedAttr<F64Attr, "0.0">:$start,
                   F64Attr:$end, DefaultValuedAttr<F64Attr, "1.0">:$step);
  let results = (outs FX_NumericTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def FX_ConvertElementTypeOp : FX_Op<"convert_element_type", [Pure]> {
  let summary = "dtype conversion";
  let description = [{
    Mirrors `prims::convert_element_type(Tensor a, ScalarType dtype) ->
    Tensor`, which is also what `aten::_to_copy(self, dtype=...)` and
    `Tensor.to(dtype)` become. The target dtype is the result's element type;
    the shape is unchanged. Conversion to an integer type truncates towards
    zero, to `i1` tests for non-zero. A conversion to the same type folds
    away.

    ```mlir
    %0 = fx.convert_element_type %x : (tensor<4xf32>) -> tensor<4xf16>
    ```
  }];
  let arguments = (ins FX_Tensor:$self);
  let results = (outs FX_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

#endif // FX_CREATION_OPS_TD

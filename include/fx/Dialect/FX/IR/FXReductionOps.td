//===- FXReductionOps.td - reductions --------------------------*- tablegen -*-===//

#ifndef FX_REDUCTION_OPS_TD
#define FX_REDUCTION_OPS_TD

include "FXBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// `dim` lists the reduced dimensions (negative values count from the end);
// an empty list reduces over all of them, as ATen's `dim=None` and `dim=[]`
// do for sum and mean.
class FX_ReductionOp<string mnemonic, string aten, string semantics,
                     Type inputType> :
    FX_Op<mnemonic, [Pure, FX_InferResultTypes]> {
  let summary = "`aten::" # mnemonic # "` over dimensions";
  let description = [{
    Mirrors `}] # aten # [{`: }] # semantics # [{

    `dim` lists the reduced dimensions, each at most once (negative values
    count from the end); an empty list reduces over every dimension. With
    `keepdim` the reduced dimensions stay as size 1.

    ```mlir
    %0 = fx.}] # mnemonic # [{ %x {dim = array<i64: -1>, keepdim = true}
        : (tensor<4x8xf32>) -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins inputType:$self,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$dim,
                   DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs FX_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
}

def FX_SumOp : FX_ReductionOp<"sum",
    "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "the sum of the elements. Integer and bool inputs accumulate and return "
    "`i64`, as in ATen; `dtype`, if given, is the accumulation and result "
    "dtype.", FX_Tensor> {
  let arguments = (ins FX_Tensor:$self,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$dim,
                   DefaultValuedAttr<BoolAttr, "false">:$keepdim,
                   OptionalAttr<TypeAttrOf<FX_ElementType>>:$dtype);
}
def FX_MeanOp : FX_ReductionOp<"mean",
    "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "the arithmetic mean. The input (or `dtype`, if given) must be floating "
    "point.", FX_Tensor> {
  let arguments = (ins FX_Tensor:$self,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$dim,
                   DefaultValuedAttr<BoolAttr, "false">:$keepdim,
                   OptionalAttr<TypeAttrOf<FX_FloatType>>:$dtype);
}
def FX_AmaxOp : FX_ReductionOp<"amax",
    "aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "the maximum; NaN propagates.", FX_Tensor>;
def FX_AminOp : FX_ReductionOp<"amin",
    "aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "the minimum; NaN propagates.", FX_Tensor>;

#endif // FX_REDUCTION_OPS_TD

//===- FXShapeOps.td - shape and data movement -----------------*- tablegen -*-===//
//
// ATen views (view, t, transpose, permute, expand, squeeze, unsqueeze, slice,
// select) are value-semantics ops here: they produce a new tensor value and
// leave the aliasing question to bufferization.
//
//===----------------------------------------------------------------------===//

#ifndef FX_SHAPE_OPS_TD
#define FX_SHAPE_OPS_TD

include "FXBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class FX_ShapeOp<string mnemonic, list<Trait> traits = []> :
    FX_Op<mnemonic, !listconcat([Pure, FX_InferResultTypes], traits)> {
  let results = (outs FX_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
}

def FX_ViewOp : FX_ShapeOp<"view"> {
  let summary = "`aten::view` / `aten::reshape`: the same elements, a new shape";
  let description = [{
    Mirrors `aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)`, and
    also `aten::reshape`, `aten::_reshape_alias` and `aten::_unsafe_view`,
    which are the same thing with value semantics. At most one entry of
    `size` may be `-1`; it is inferred from the element count. A view to the
    same type folds away and a view of a view becomes one view.

    ```mlir
    %0 = fx.view %x {size = array<i64: -1, 512>}
        : (tensor<2x512x1x1xf32>) -> tensor<2x512xf32>
    ```
  }];
  let arguments = (ins FX_Tensor:$self, DenseI64ArrayAttr:$size);
  let hasFolder = 1;
}

def FX_TOp : FX_ShapeOp<"t"> {
  let summary = "`aten::t`: transpose a matrix";
  let description = [{
    Mirrors `aten::t(Tensor(a) self) -> Tensor(a)`: swaps the two dimensions
    of a rank-2 tensor; rank 0 and 1 tensors are returned unchanged.
    `t(t(x))` folds to `x`.
  }];
  let arguments = (ins FX_Tensor:$self);
  let hasFolder = 1;
}

def FX_TransposeOp : FX_ShapeOp<"transpose"> {
  let summary = "`aten::transpose.int`: swap two dimensions";
  let description = [{
    Mirrors `aten::transpose.int(Tensor(a) self, int dim0, int dim1) ->
    Tensor(a)`. Swapping a dimension with itself, and undoing the previous
    transpose, fold away.

    ```mlir
    %0 = fx.transpose %x {dim0 = 1 : i64, dim1 = 2 : i64}
        : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
    ```
  }];
  let arguments = (ins FX_Tensor:$self, FX_I64Attr:$dim0, FX_I64Attr:$dim1);
  let hasFolder = 1;
}

def FX_PermuteOp : FX_ShapeOp<"permute"> {
  let summary = "`aten::permute`: reorder dimensions";
  let description = [{
    Mirrors `aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)`:
    result dimension `i` is input dimension `dims[i]`. `dims` must be a
    permutation (negative entries count from the end). The identity folds
    away and a permute of a permute becomes one permute.

    ```mlir
    %0 = fx.permute %x {dims = array<i64: 0, 2, 1, 3>}
        : (tensor<2x16x4x32xf32>) -> tensor<2x4x16x32xf32>
    ```
  }];
  let arguments = (ins FX_Tensor:$self, DenseI64ArrayAttr:$dims);
  let hasFolder = 1;
}

def FX_ExpandOp : FX_ShapeOp<"expand"> {
  let summary = "`aten::expand`: broadcast to a larger shape";
  let description = [{
    Mirrors `aten::expand(Tensor(a) self, SymInt[] size, *, bool
    implicit=False) -> Tensor(a)`. `size` has at least as many entries as
    `self` has dimensions; `self` is aligned with its trailing entries, where
    `-1` keeps the dimension and a size-1 dimension may stretch. New leading
    dimensions must be given explicitly. An expand to the same type folds
    away.

    ```mlir
    %0 = fx.expand %x {size = array<i64: 4, -1, 8>}
        : (tensor<3x1xf32>) -> tensor<4x3x8xf32>
    ```
  }];
  let arguments = (ins FX_Tensor:$self, DenseI64ArrayAttr:$size);
  let hasFolder = 1;
}

def FX_SqueezeOp : FX_ShapeOp<"squeeze"> {
  let summary = "`aten::squeeze`: drop size-1 dimensions";
  let description = [{
    Mirrors `aten::squeeze(Tensor(a) self)`, `aten::squeeze.dim` and
    `aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)`. Without
    `dim` every size-1 dimension is removed; with it only the listed ones
    that have size 1 (others are kept, as in ATen). Because the result rank
    depends on it, a dimension that may be squeezed must be static. A squeeze
    that removes nothing folds away.
  }];
  let arguments = (ins FX_Tensor:$self, OptionalAttr<DenseI64ArrayAttr>:$dim);
  let hasFolder = 1;
}

def FX_UnsqueezeOp : FX_ShapeOp<"unsqueeze"> {
  let summary = "`aten::unsqueeze`: insert a size-1 dimension";
  let description = [{
    Mirrors `aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)`; `dim`
    is in `[-rank - 1, rank]`, negative values counting from the end of the
    result.
  }];
  let arguments = (ins FX_Tensor:$self, FX_I64Attr:$dim);
}

def FX_FlattenOp : FX_ShapeOp<"flatten"> {
  let summary = "`aten::flatten.using_ints`: merge a range of dimensions";
  let description = [{
    Mirrors `aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int
    end_dim=-1) -> Tensor(a)`: dimensions `start_dim..end_dim` (inclusive)
    become one. A rank-0 input becomes rank 1. A flatten of a single
    dimension folds away.
  }];
  let arguments = (ins FX_Tensor:$self,
                   DefaultValuedAttr<FX_I64Attr, "0">:$start_dim,
                   DefaultValuedAttr<FX_I64Attr, "-1">:$end_dim);
  let hasFolder = 1;
}

def FX_SliceOp : FX_ShapeOp<"slice"> {
  let summary = "`aten::slice.Tensor`: a strided range of one dimension";
  let description = [{
    Mirrors `aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None,
    SymInt? end=None, SymInt step=1) -> Tensor(a)`. Like Python slicing,
    negative `start`/`end` count from the end and out-of-range values are
    clamped (the default `end` is `INT64_MAX`); `step` must be positive. A
    slice that keeps the whole dimension folds away.

    ```mlir
    %0 = fx.slice %x {dim = 1 : i64, start = 1 : i64, end = -1 : i64, step = 2 : i64}
        : (tensor<4x10xf32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins FX_Tensor:$self, DefaultValuedAttr<FX_I64Attr, "0">:$dim,
                   DefaultValuedAttr<FX_I64Attr, "0">:$start,
                   DefaultValuedAttr<FX_I64Attr, "9223372036854775807">:$end,
                   DefaultValuedAttr<FX_I64Attr, "1">:$step);
  let hasFolder = 1;
}

def FX_SelectOp : FX_ShapeOp<"select"> {
  let summary = "`aten::select.int`: index one dimension";
  let description = [{
    Mirrors `aten::select.int(Tensor(a) self, int dim, SymInt index) ->
    Tensor(a)`: the slice at `index` (negative counts from the end), with
    dimension `dim` removed.
  }];
  let arguments = (ins FX_Tensor:$self, FX_I64Attr:$dim, FX_I64Attr:$index);
}

def FX_CatOp : FX_Op<"cat", [Pure, FX_InferResultTypes]> {
  let summary = "`aten::cat`: concatenate along a dimension";
  let description = [{
    Mirrors `aten::cat(Tensor[] tensors, int dim=0) -> Tensor`. The operands
    have equal rank and equal sizes except along `dim`; their dtypes are
    promoted. A cat of one tensor folds away.

    ```mlir
    %0 = fx.cat %a, %b {dim = 1 : i64}
        : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<FX_Tensor>:$tensors,
                   DefaultValuedAttr<FX_I64Attr, "0">:$dim);
  let results = (outs FX_Tensor:$result);
  let assemblyFormat =
      "$tensors attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def FX_StackOp : FX_Op<"stack", [Pure, FX_InferResultTypes]> {
  let summary = "`aten::stack`: join tensors along a new dimension";
  let description = [{
    Mirrors `aten::stack(Tensor[] tensors, int dim=0) -> Tensor`. The
    operands have equal shapes; `dim` is in `[-rank - 1, rank]`; dtypes are
    promoted.
  }];
  let arguments = (ins Variadic<FX_Tensor>:$tensors,
                   DefaultValuedAttr<FX_I64Attr, "0">:$dim);
  let results = (outs FX_Tensor:$result);
  let assemblyFormat =
      "$tensors attr-dict `:` functional-type(operands, results)";
}

def FX_SplitOp : FX_Op<"split", [Pure, FX_InferResultTypes]> {
  let summary = "`aten::split_with_sizes`: cut a dimension into pieces";
  let description = [{
    Mirrors `aten::split_with_sizes(Tensor(a) self, SymInt[] split_sizes,
    int dim=0) -> Tensor(a)[]`; `aten::split.Tensor` (equal chunks of
    `split_size`, the last one smaller) is imported in this form. There is
    one result per entry of `split_sizes`; the sizes are non-negative and add
    up to the size of dimension `dim`.

    ```mlir
    %0:3 = fx.split %x {split_sizes = array<i64: 4, 4, 2>, dim = 1 : i64}
        : (tensor<2x10xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2xf32>)
    ```
  }];
  let arguments = (ins FX_Tensor:$self, DenseI64ArrayAttr:$split_sizes,
                   DefaultValuedAttr<FX_I64Attr, "0">:$dim);
  let results = (outs Variadic<FX_Tensor>:$results);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
}

def FX_CloneOp : FX_ShapeOp<"clone"> {
  let summary = "`aten::clone`: a copy";
  let description = [{
    Mirrors `aten::clone(Tensor self, *, MemoryFormat? memory_format=None)
    -> Tensor`. Values are immutable here, so it folds to its operand.
  }];
  let arguments = (ins FX_Tensor:$self);
  let hasFolder = 1;
}

def FX_ContiguousOp : FX_ShapeOp<"contiguous"> {
  let summary = "`aten::contiguous`: a densely laid out copy";
  let description = [{
    Mirrors `aten::contiguous(Tensor(a) self, *, MemoryFormat
    memory_format=contiguous_format) -> Tensor(a)`. Layout is the compiler's
    choice after this dialect, so it folds to its operand.
  }];
  let arguments = (ins FX_Tensor:$self);
  let hasFolder = 1;
}

#endif // FX_SHAPE_OPS_TD

//===- FXBase.td - FX dialect definition, types and attributes -*- tablegen -*-===//
//
// The FX dialect mirrors the ATen operator set that torch.fx's `make_fx`
// produces, in functional (value-semantics) form.
//
//===----------------------------------------------------------------------===//

#ifndef FX_BASE_TD
#define FX_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def FX_Dialect : Dialect {
  let name = "fx";
  let cppNamespace = "::mlir::fx";
  let summary = "ATen operators as captured by torch.fx, in functional form";
  let description = [{
    The FX dialect is the front door of fx-mlir. Each op mirrors one ATen
    operator at the level that `torch.fx.experimental.proxy_tensor.make_fx`
    produces for real models (torchvision classifiers, transformer blocks,
    MLPs), after functionalization: in-place variants (`relu_`, `add_`) are
    imported as their functional forms and views become value-semantics ops.

    Conventions:

    * Values are builtin ranked tensors. Element types are `f32`, `f16`,
      `bf16`, `i64`, `i32` (signless, read as signed like ATen's `Long` and
      `Int`) and `i1` (ATen's `Bool`). Dimensions may be dynamic (`?`).
    * Scalars of the ATen schema are attributes; Python scalars that take part
      in arithmetic are imported as rank-0 tensors, which is also how ATen's
      type promotion sees them (a rank-0 operand only decides the result
      dtype when it is of a higher category than the ranked operands).
    * A graph is a `func.func`: FX placeholders are block arguments (model
      parameters carry `{fx.param = "qualified.name"}`) and `output` is
      `func.return`.
    * Binary elementwise ops broadcast like PyTorch: shapes are aligned at
      the trailing dimension and a dimension of size 1 stretches. A dynamic
      dimension against a static size `n != 1` is taken to be `n` (checked at
      run time by the lowering); against `1` or `?` it stays dynamic.
    * Every op infers its result type from its operands and attributes; the
      printed result type may be more static than the inferred one
      (refinement) but must be compatible with it.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  // Dialect-wide patterns: zero-element tensors are folded away
  // (EmptyTensors.cpp).
  let hasCanonicalizer = 1;
  // Checks `fx.param` on function arguments.
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The argument attribute naming the model parameter an argument binds.
    static constexpr ::llvm::StringLiteral getParamAttrName() {
      return ::llvm::StringLiteral("fx.param");
    }
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def FX_FloatType : AnyTypeOf<[F32, F16, BF16], "floating-point (f32, f16, bf16)">;
def FX_IntType : AnyTypeOf<[I64, I32], "integer (i64, i32)">;
def FX_NumericType : AnyTypeOf<[F32, F16, BF16, I64, I32],
                               "numeric (f32, f16, bf16, i64, i32)">;
def FX_ElementType : AnyTypeOf<[F32, F16, BF16, I64, I32, I1],
                               "f32, f16, bf16, i64, i32 or i1">;

def FX_Tensor : RankedTensorOf<[FX_ElementType]>;
def FX_FloatTensor : RankedTensorOf<[FX_FloatType]>;
def FX_NumericTensor : RankedTensorOf<[FX_NumericType]>;
def FX_IntTensor : RankedTensorOf<[FX_IntType]>;
def FX_BoolTensor : RankedTensorOf<[I1]>;
def FX_IntOrBoolTensor : RankedTensorOf<[I64, I32, I1]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def FX_GeluApproximate : I32EnumAttr<"GeluApproximate",
    "the `approximate` argument of aten::gelu", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>
    ]> {
  let cppNamespace = "::mlir::fx";
  let genSpecializedAttr = 0;
}
def FX_GeluApproximateAttr :
    EnumAttr<FX_Dialect, FX_GeluApproximate, "gelu_approximate"> {
  let assemblyFormat = "`<` $value `>`";
}

def FX_RoundingMode : I32EnumAttr<"RoundingMode",
    "the `rounding_mode` argument of aten::div.Tensor_mode", [
      I32EnumAttrCase<"trunc", 0>,
      I32EnumAttrCase<"floor", 1>
    ]> {
  let cppNamespace = "::mlir::fx";
  let genSpecializedAttr = 0;
}
def FX_RoundingModeAttr :
    EnumAttr<FX_Dialect, FX_RoundingMode, "rounding_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// ODS's I64Attr returns uint64_t; ATen dims and indices are signed, so
// every integer attribute of the dialect reads back as int64_t.
def FX_I64Attr : TypedSignlessIntegerAttrBase<
    I64, "int64_t", "64-bit integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

//===----------------------------------------------------------------------===//
// Op base classes
//===----------------------------------------------------------------------===//

class FX_Op<string mnemonic, list<Trait> traits = []> :
    Op<FX_Dialect, mnemonic, traits>;

// Result types are inferred from operands and attributes. A written result
// type may refine dynamic dimensions of the inferred type (see
// fx::areCompatibleResultTypes), so IR that already knows more than the local
// inference (for example after `fx-refine-shapes` or from the importer) stays
// valid.
def FX_InferResultTypes : InferTypeOpAdaptorBase<[{
    static bool isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                        ::mlir::TypeRange actual) {
      return ::mlir::fx::areCompatibleResultTypes(inferred, actual);
    }
  }]>;

#endif // FX_BASE_TD

//===- FXElementwiseOps.td - elementwise FX ops ----------------*- tablegen -*-===//

#ifndef FX_ELEMENTWISE_OPS_TD
#define FX_ELEMENTWISE_OPS_TD

include "FXBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

// How a unary op's result dtype follows from its input dtype.
//   "Same":      result dtype == input dtype.
//   "IntToFloat": ATen's unary float ops: integer and bool inputs give the
//                 default dtype (f32), floating inputs keep theirs.
class FX_UnaryOp<string mnemonic, string aten, string semantics,
                 Type inputType = FX_NumericTensor,
                 string promotion = "Same", list<Trait> traits = []> :
    FX_Op<mnemonic, !listconcat([Pure, FX_InferResultTypes], traits)> {
  let summary = "`aten::" # mnemonic # "`";
  let description = [{
    Mirrors `}] # aten # [{`.

    }] # semantics # [{
  }];
  let arguments = (ins inputType:$self);
  let results = (outs FX_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location>,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      results.push_back(::mlir::fx::inferUnaryResultType(
          adaptor.getSelf().getType(),
          ::mlir::fx::UnaryPromotion::}] # promotion # [{));
      return ::mlir::success();
    }
  }];
}

// Floating-point only activations that keep their dtype.
class FX_UnaryFloatOp<string mnemonic, string aten, string semantics,
                      list<Trait> traits = []> :
    FX_UnaryOp<mnemonic, aten, semantics, FX_FloatTensor, "Same", traits>;

// Transcendental ops: any input dtype, integer and bool inputs give f32.
class FX_UnaryIntToFloatOp<string mnemonic, string semantics> :
    FX_UnaryOp<mnemonic, "aten::" # mnemonic # "(Tensor self) -> Tensor",
               semantics, FX_Tensor, "IntToFloat">;

def FX_ReluOp : FX_UnaryOp<"relu", "aten::relu(Tensor self) -> Tensor",
    "Computes `max(self, 0)` elementwise. `relu(relu(x))` folds to `relu(x)`.",
    FX_NumericTensor> {
  let hasFolder = 1;
}
def FX_SigmoidOp : FX_UnaryIntToFloatOp<"sigmoid", "Computes `1 / (1 + exp(-self))`.">;
def FX_TanhOp : FX_UnaryIntToFloatOp<"tanh", "Computes the hyperbolic tangent.">;
def FX_ExpOp : FX_UnaryIntToFloatOp<"exp", "Computes `e^self`.">;
def FX_LogOp : FX_UnaryIntToFloatOp<"log", "Computes the natural logarithm.">;
def FX_SqrtOp : FX_UnaryIntToFloatOp<"sqrt", "Computes the square root.">;
def FX_RsqrtOp : FX_UnaryIntToFloatOp<"rsqrt", "Computes `1 / sqrt(self)`.">;
def FX_ReciprocalOp : FX_UnaryIntToFloatOp<"reciprocal", "Computes `1 / self`.">;
def FX_SinOp : FX_UnaryIntToFloatOp<"sin", "Computes the sine.">;
def FX_CosOp : FX_UnaryIntToFloatOp<"cos", "Computes the cosine.">;
def FX_ErfOp : FX_UnaryIntToFloatOp<"erf", "Computes the Gauss error function.">;
def FX_TanOp : FX_UnaryIntToFloatOp<"tan", "Computes the tangent.">;
def FX_AsinOp : FX_UnaryIntToFloatOp<"asin",
    "Computes the arcsine (NaN outside [-1, 1]).">;
def FX_AcosOp : FX_UnaryIntToFloatOp<"acos",
    "Computes the arccosine (NaN outside [-1, 1]).">;
def FX_AtanOp : FX_UnaryIntToFloatOp<"atan", "Computes the arctangent.">;
def FX_SinhOp : FX_UnaryIntToFloatOp<"sinh", "Computes the hyperbolic sine.">;
def FX_CoshOp : FX_UnaryIntToFloatOp<"cosh", "Computes the hyperbolic cosine.">;
def FX_AsinhOp : FX_UnaryIntToFloatOp<"asinh",
    "Computes the inverse hyperbolic sine.">;
def FX_AcoshOp : FX_UnaryIntToFloatOp<"acosh",
    "Computes the inverse hyperbolic cosine (NaN below 1).">;
def FX_AtanhOp : FX_UnaryIntToFloatOp<"atanh",
    "Computes the inverse hyperbolic tangent (NaN outside [-1, 1]).">;
def FX_Log1pOp : FX_UnaryIntToFloatOp<"log1p",
    "Computes `log(1 + self)`, accurate for small `self`.">;
def FX_Expm1Op : FX_UnaryIntToFloatOp<"expm1",
    "Computes `exp(self) - 1`, accurate for small `self`.">;
def FX_Log2Op : FX_UnaryIntToFloatOp<"log2", "Computes the base-2 logarithm.">;
def FX_Log10Op : FX_UnaryIntToFloatOp<"log10",
    "Computes the base-10 logarithm.">;

def FX_FloorOp : FX_UnaryOp<"floor", "aten::floor(Tensor self) -> Tensor",
    "Rounds down to an integer value; integers are unchanged.",
    FX_NumericTensor>;
def FX_CeilOp : FX_UnaryOp<"ceil", "aten::ceil(Tensor self) -> Tensor",
    "Rounds up to an integer value; integers are unchanged.",
    FX_NumericTensor>;
def FX_RoundOp : FX_UnaryOp<"round", "aten::round(Tensor self) -> Tensor",
    "Rounds to the nearest integer value, halves to even (`round(2.5)` is "
    "2); integers are unchanged.", FX_NumericTensor>;
def FX_TruncOp : FX_UnaryOp<"trunc", "aten::trunc(Tensor self) -> Tensor",
    "Rounds toward zero; integers are unchanged.", FX_NumericTensor>;
def FX_SignOp : FX_UnaryOp<"sign", "aten::sign(Tensor self) -> Tensor",
    "Gives 1, -1 or 0 by the sign of `self` (0 for NaN, as ATen).",
    FX_NumericTensor>;

// Predicates: any input dtype, an i1 result.
class FX_UnaryBoolOp<string mnemonic, string semantics> :
    FX_UnaryOp<mnemonic, "aten::" # mnemonic # "(Tensor self) -> Tensor",
               semantics, FX_Tensor, "Bool">;
def FX_IsnanOp : FX_UnaryBoolOp<"isnan",
    "Whether each element is NaN (never for integers and bools).">;
def FX_IsinfOp : FX_UnaryBoolOp<"isinf",
    "Whether each element is an infinity of either sign.">;
def FX_LogicalNotOp : FX_UnaryBoolOp<"logical_not",
    "Whether each element is zero (NaN is true, so its negation false).">;
def FX_BitwiseNotOp : FX_UnaryOp<"bitwise_not",
    "aten::bitwise_not(Tensor self) -> Tensor",
    "Computes `~self` for integers and `not self` for bools; floating-point "
    "tensors are rejected, as in ATen.", FX_IntOrBoolTensor>;

def FX_SiluOp : FX_UnaryFloatOp<"silu", "aten::silu(Tensor self) -> Tensor",
    "Computes `self * sigmoid(self)`.">;
def FX_HardswishOp : FX_UnaryFloatOp<"hardswish",
    "aten::hardswish(Tensor self) -> Tensor",
    "Computes `self * relu6(self + 3) / 6`.">;
def FX_HardsigmoidOp : FX_UnaryFloatOp<"hardsigmoid",
    "aten::hardsigmoid(Tensor self) -> Tensor",
    "Computes `relu6(self + 3) / 6`.">;
def FX_NegOp : FX_UnaryOp<"neg", "aten::neg(Tensor self) -> Tensor",
    "Computes `-self`. `neg(neg(x))` folds to `x`.", FX_NumericTensor> {
  let hasFolder = 1;
}
def FX_AbsOp : FX_UnaryOp<"abs", "aten::abs(Tensor self) -> Tensor",
    "Computes `|self|`. `abs(abs(x))` and `abs(neg(x))` fold to `abs(x)`.",
    FX_NumericTensor> {
  let hasFolder = 1;
}

def FX_GeluOp : FX_UnaryFloatOp<"gelu",
    "aten::gelu(Tensor self, *, str approximate='none') -> Tensor", [{
    With `approximate = none` computes `self * 0.5 * (1 + erf(self / sqrt(2)))`;
    with `approximate = tanh` computes
    `0.5 * self * (1 + tanh(sqrt(2 / pi) * (self + 0.044715 * self^3)))`.

    ```mlir
    %0 = fx.gelu %x {approximate = #fx.gelu_approximate<tanh>}
        : (tensor<2x8xf32>) -> tensor<2x8xf32>
    ```
  }]> {
  let arguments = (ins FX_FloatTensor:$self,
                   DefaultValuedAttr<FX_GeluApproximateAttr,
                                     "::mlir::fx::GeluApproximate::none">:$approximate);
}

def FX_HardtanhOp : FX_UnaryOp<"hardtanh",
    "aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    [{
    Clamps every element to `[min_val, max_val]`. `nn.ReLU6` is
    `hardtanh(x, 0, 6)`. Requires `min_val <= max_val` (ATen:
    "hardtanh: min_val cannot be greater than max_val").
  }]> {
  let arguments = (ins FX_NumericTensor:$self,
                   DefaultValuedAttr<F64Attr, "-1.0">:$min_val,
                   DefaultValuedAttr<F64Attr, "1.0">:$max_val);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Binary with broadcasting and type promotion
//===----------------------------------------------------------------------===//

// How a binary op's result dtype follows from the promoted operand dtype.
//   "Promote":         torch.result_type(self, other).
//   "PromoteIntToFloat": true division: integer results become f32.
//   "Bool":            comparisons, the result is i1.
class FX_BinaryOp<string mnemonic, string aten, string semantics,
                  string promotion = "Promote", list<Trait> traits = []> :
    FX_Op<mnemonic, !listconcat([Pure, FX_InferResultTypes], traits)> {
  let summary = "`aten::" # mnemonic # "` with broadcasting";
  let description = [{
    Mirrors `}] # aten # [{`.

    }] # semantics # [{

    The operands broadcast against each other (PyTorch/NumPy rules) and their
    dtypes are promoted with `torch.result_type`: the higher category (bool <
    integer < floating) wins, within a category the wider type, `f16` with
    `bf16` gives `f32`, and a rank-0 operand only raises the category, never
    the width within it.
  }];
  let arguments = (ins FX_Tensor:$self, FX_Tensor:$other);
  let results = (outs FX_Tensor:$result);
  let assemblyFormat =
      "$self `,` $other attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::fx::inferBinaryResultType(
          ::mlir::fx::ShapeError(loc, getOperationName()),
          adaptor.getSelf().getType(), adaptor.getOther().getType(),
          ::mlir::fx::BinaryPromotion::}] # promotion # [{, results);
    }
  }];
}

class FX_AddSubOp<string mnemonic, string semantics> : FX_BinaryOp<mnemonic,
    "aten::" # mnemonic # ".Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    semantics> {
  let arguments = (ins FX_Tensor:$self, FX_Tensor:$other,
                   DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let hasVerifier = 1;
}

def FX_AddOp : FX_AddSubOp<"add", [{
    Computes `self + alpha * other`. For integer and bool results `alpha`
    must be integral.

    ```mlir
    %0 = fx.add %a, %b {alpha = 2.0 : f64}
        : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    ```
  }]>;
def FX_SubOp : FX_AddSubOp<"sub", [{
    Computes `self - alpha * other`. For integer results `alpha` must be
    integral; a bool operand on either side is rejected, as in ATen.
  }]>;
def FX_MulOp : FX_BinaryOp<"mul",
    "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor",
    "Computes `self * other`.", "Promote", [Commutative]>;
def FX_DivOp : FX_BinaryOp<"div",
    "aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    [{
    Without `rounding_mode` computes true division, so integer operands give
    an `f32` result (`aten::div.Tensor`). With `rounding_mode = trunc` or
    `floor` the quotient is rounded and integer operands stay integer.
  }]> {
  let arguments = (ins FX_Tensor:$self, FX_Tensor:$other,
                   OptionalAttr<FX_RoundingModeAttr>:$rounding_mode);
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::fx::inferBinaryResultType(
          ::mlir::fx::ShapeError(loc, getOperationName()),
          adaptor.getSelf().getType(), adaptor.getOther().getType(),
          adaptor.getRoundingMode()
              ? ::mlir::fx::BinaryPromotion::Promote
              : ::mlir::fx::BinaryPromotion::PromoteIntToFloat,
          results);
    }
  }];
}
def FX_PowOp : FX_BinaryOp<"pow",
    "aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    "Computes `self ^ other`.">;
def FX_MaximumOp : FX_BinaryOp<"maximum",
    "aten::maximum(Tensor self, Tensor other) -> Tensor",
    "Computes the elementwise maximum; NaN propagates.", "Promote",
    [Commutative]>;
def FX_MinimumOp : FX_BinaryOp<"minimum",
    "aten::minimum(Tensor self, Tensor other) -> Tensor",
    "Computes the elementwise minimum; NaN propagates.", "Promote",
    [Commutative]>;

def FX_RemainderOp : FX_BinaryOp<"remainder",
    "aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor", [{
    Computes Python's `self % other`: the remainder of floor division, with
    the sign of `other`. For integers, division by zero is an error in ATen;
    here its elements are unspecified.
  }]>;
def FX_FmodOp : FX_BinaryOp<"fmod",
    "aten::fmod.Tensor(Tensor self, Tensor other) -> Tensor", [{
    Computes C's `fmod(self, other)`: the remainder of truncated division,
    with the sign of `self`. Integer division by zero as in `remainder`.
  }]>;
def FX_Atan2Op : FX_BinaryOp<"atan2",
    "aten::atan2(Tensor self, Tensor other) -> Tensor", [{
    Computes the angle of the point `(other, self)`: `atan(self / other)`
    in the right quadrant, in [-pi, pi], with C's signed zeros and
    infinities. Integer operands give `f32`.
  }], "PromoteIntToFloat">;

class FX_LogicalOp<string mnemonic, string semantics>
    : FX_BinaryOp<mnemonic,
      "aten::" # mnemonic # "(Tensor self, Tensor other) -> Tensor",
      semantics # " Nonzero elements (NaN too) are true; the result is `i1`.",
      "Bool", [Commutative]>;
def FX_LogicalAndOp : FX_LogicalOp<"logical_and", "Computes `self and other`.">;
def FX_LogicalOrOp : FX_LogicalOp<"logical_or", "Computes `self or other`.">;
def FX_LogicalXorOp : FX_LogicalOp<"logical_xor", "Computes `self xor other`.">;

class FX_BitwiseOp<string mnemonic, string semantics>
    : FX_BinaryOp<mnemonic,
      "aten::" # mnemonic # ".Tensor(Tensor self, Tensor other) -> Tensor",
      semantics # " Integer and bool operands only, as in ATen.", "Promote",
      [Commutative]> {
  let arguments = (ins FX_IntOrBoolTensor:$self, FX_IntOrBoolTensor:$other);
}
def FX_BitwiseAndOp : FX_BitwiseOp<"bitwise_and", "Computes `self & other`.">;
def FX_BitwiseOrOp : FX_BitwiseOp<"bitwise_or", "Computes `self | other`.">;
def FX_BitwiseXorOp : FX_BitwiseOp<"bitwise_xor", "Computes `self ^ other`.">;

class FX_CompareOp<string mnemonic, string semantics, list<Trait> traits = []>
    : FX_BinaryOp<mnemonic,
      "aten::" # mnemonic # ".Tensor(Tensor self, Tensor other) -> Tensor",
      semantics # " The operands are compared in their promoted dtype; the "
      "result is `i1`.", "Bool", traits>;

def FX_EqOp : FX_CompareOp<"eq", "Computes `self == other`.", [Commutative]>;
def FX_NeOp : FX_CompareOp<"ne", "Computes `self != other`.", [Commutative]>;
def FX_LtOp : FX_CompareOp<"lt", "Computes `self < other`.">;
def FX_LeOp : FX_CompareOp<"le", "Computes `self <= other`.">;
def FX_GtOp : FX_CompareOp<"gt", "Computes `self > other`.">;
def FX_GeOp : FX_CompareOp<"ge", "Computes `self >= other`.">;

def FX_WhereOp : FX_Op<"where", [Pure, FX_InferResultTypes]> {
  let summary = "`aten::where`: select elements by a boolean condition";
  let description = [{
    Mirrors `aten::where.self(Tensor condition, Tensor self, Tensor other) ->
    Tensor`: `condition ? self : other`, with all three operands broadcast
    together and the dtypes of `self` and `other` promoted.

    ```mlir
    %0 = fx.where %c, %a, %b
        : (tensor<4x1xi1>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins FX_BoolTensor:$condition, FX_Tensor:$self,
                   FX_Tensor:$other);
  let results = (outs FX_Tensor:$result);
  let assemblyFormat = "$condition `,` $self `,` $other attr-dict `:` "
                       "functional-type(operands, results)";
}

def FX_ClampOp : FX_Op<"clamp", [Pure, FX_InferResultTypes]> {
  let summary = "`aten::clamp` with scalar bounds";
  let description = [{
    Mirrors `aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) ->
    Tensor`: `min(max(self, min), max)`. At least one bound must be given.
    The result keeps the dtype of `self`; for integer tensors the bounds must
    be integral.
  }];
  let arguments = (ins FX_NumericTensor:$self, OptionalAttr<F64Attr>:$min,
                   OptionalAttr<F64Attr>:$max);
  let results = (outs FX_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // FX_ELEMENTWISE_OPS_TD

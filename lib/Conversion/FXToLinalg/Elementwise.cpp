//===- Elementwise.cpp - FX elementwise ops to linalg.generic -------------===//
//
// Every elementwise FX op becomes one linalg.generic over the broadcast result
// shape. Operands are converted to the op's compute type (the promoted dtype,
// f32 for f16/bf16), the scalar body is computed, and the result is converted
// to the result dtype.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::tolinalg;

namespace {

bool isFloat(Type type) { return isa<FloatType>(type); }

Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return createScalarConstant(b, loc, type, value);
}

/// Clamps `x` (compute type) to optional bounds, NaN propagating.
Value clampScalar(OpBuilder &b, Location loc, Value x, std::optional<double> lo,
                  std::optional<double> hi) {
  if (lo)
    x = createMaximum(b, loc, x, constant(b, loc, x.getType(), *lo),
                      kClampFastMath);
  if (hi)
    x = createMinimum(b, loc, x, constant(b, loc, x.getType(), *hi),
                      kClampFastMath);
  return x;
}

/// relu6(x + 3) / 6, shared by hardswish and hardsigmoid.
Value hardsigmoid(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value shifted = arith::AddFOp::create(b, loc, x, constant(b, loc, t, 3));
  return arith::DivFOp::create(b, loc, clampScalar(b, loc, shifted, 0, 6),
                               constant(b, loc, t, 6));
}

/// Rounds toward zero: ceil below zero, floor above. MLIR 22's SPIR-V
/// conversion has no math.trunc (GLSL.std.450's Trunc is not in its GL
/// dialect), so neither trunc nor div's trunc mode emit it.
Value truncFloat(OpBuilder &b, Location loc, Value x) {
  Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                         constant(b, loc, x.getType(), 0));
  return arith::SelectOp::create(b, loc, negative,
                                 math::CeilOp::create(b, loc, x),
                                 math::FloorOp::create(b, loc, x));
}

Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value negExp = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value denom = arith::AddFOp::create(b, loc, constant(b, loc, t, 1), negExp);
  return arith::DivFOp::create(b, loc, constant(b, loc, t, 1), denom);
}

// The scalar computation of each unary op, in its compute type.
Value computeUnary(ReluOp, OpBuilder &b, Location loc, Value x) {
  return createMaximum(b, loc, x, constant(b, loc, x.getType(), 0),
                       kClampFastMath);
}
Value computeUnary(SigmoidOp, OpBuilder &b, Location loc, Value x) {
  return sigmoid(b, loc, x);
}
Value computeUnary(TanhOp, OpBuilder &b, Location loc, Value x) {
  return math::TanhOp::create(b, loc, x);
}
Value computeUnary(ExpOp, OpBuilder &b, Location loc, Value x) {
  return math::ExpOp::create(b, loc, x);
}
Value computeUnary(LogOp, OpBuilder &b, Location loc, Value x) {
  return math::LogOp::create(b, loc, x);
}
Value computeUnary(SqrtOp, OpBuilder &b, Location loc, Value x) {
  return math::SqrtOp::create(b, loc, x);
}
Value computeUnary(RsqrtOp, OpBuilder &b, Location loc, Value x) {
  return math::RsqrtOp::create(b, loc, x);
}
Value computeUnary(ReciprocalOp, OpBuilder &b, Location loc, Value x) {
  return arith::DivFOp::create(b, loc, constant(b, loc, x.getType(), 1), x);
}
Value computeUnary(SinOp, OpBuilder &b, Location loc, Value x) {
  return math::SinOp::create(b, loc, x);
}
Value computeUnary(CosOp, OpBuilder &b, Location loc, Value x) {
  return math::CosOp::create(b, loc, x);
}
Value computeUnary(ErfOp, OpBuilder &b, Location loc, Value x) {
  return math::ErfOp::create(b, loc, x);
}
Value computeUnary(TanOp, OpBuilder &b, Location loc, Value x) {
  return math::TanOp::create(b, loc, x);
}
/// `value`, NaN where `outside` holds: GLSL.std.450 leaves Sqrt and Log of
/// negative numbers undefined (lavapipe's square root of -24 was no NaN),
/// so results outside a function's domain are made NaN explicitly.
Value nanWhere(OpBuilder &b, Location loc, Value outside, Value value) {
  return arith::SelectOp::create(
      b, loc, outside,
      constant(b, loc, value.getType(),
               std::numeric_limits<double>::quiet_NaN()),
      value);
}
/// |x| > 1 (false for NaN, which stays NaN anyway).
Value beyondOne(OpBuilder &b, Location loc, Value x) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                               math::AbsFOp::create(b, loc, x),
                               constant(b, loc, x.getType(), 1));
}

// asin and acos through atan: Mesa's GLSL.std.450 Asin and Acos (lavapipe)
// were 4e-4 off, its Atan 1.4e-5. (1 - x)(1 + x) keeps 1 - x^2 exact near
// |x| = 1; |x| > 1 gives a NaN root, x = +-1 an infinite ratio.
Value computeUnary(AsinOp, OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value one = constant(b, loc, t, 1);
  Value root = math::SqrtOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, arith::SubFOp::create(b, loc, one, x),
                            arith::AddFOp::create(b, loc, one, x)));
  return nanWhere(
      b, loc, beyondOne(b, loc, x),
      math::AtanOp::create(b, loc, arith::DivFOp::create(b, loc, x, root)));
}
Value computeUnary(AcosOp, OpBuilder &b, Location loc, Value x) {
  // acos(x) = 2 atan(sqrt((1 - x) / (1 + x))).
  Type t = x.getType();
  Value one = constant(b, loc, t, 1);
  Value root = math::SqrtOp::create(
      b, loc,
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, one, x),
                            arith::AddFOp::create(b, loc, one, x)));
  return nanWhere(b, loc, beyondOne(b, loc, x),
                  arith::MulFOp::create(b, loc,
                                        math::AtanOp::create(b, loc, root),
                                        constant(b, loc, t, 2)));
}
Value computeUnary(AtanOp, OpBuilder &b, Location loc, Value x) {
  return math::AtanOp::create(b, loc, x);
}
Value computeUnary(SinhOp, OpBuilder &b, Location loc, Value x) {
  return math::SinhOp::create(b, loc, x);
}
Value computeUnary(CoshOp, OpBuilder &b, Location loc, Value x) {
  return math::CoshOp::create(b, loc, x);
}
Value computeUnary(Log2Op, OpBuilder &b, Location loc, Value x) {
  return math::Log2Op::create(b, loc, x);
}
Value computeUnary(Log10Op, OpBuilder &b, Location loc, Value x) {
  return math::Log10Op::create(b, loc, x);
}
// log1p and expm1 from log and exp with Kahan's correction: MLIR 22 lowers
// math.log1p and math.expm1 to log(1 + x) and exp(x) - 1 for LLVM and
// SPIR-V alike, which lose every digit for |x| near 1e-8. With u = 1 + x
// rounded, log(u) * x / (u - 1) cancels the rounding of u; likewise
// (exp(x) - 1) * x / log(exp(x)).
Value log1p(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value one = constant(b, loc, t, 1);
  Value u = arith::AddFOp::create(b, loc, one, x);
  Value corrected = arith::DivFOp::create(
      b, loc, arith::MulFOp::create(b, loc, math::LogOp::create(b, loc, u), x),
      arith::SubFOp::create(b, loc, u, one));
  Value exact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, one);
  Value infinite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, u,
      constant(b, loc, t, std::numeric_limits<double>::infinity()));
  // u == 1: x is below half an ulp of 1 and log1p(x) is x; u == inf: inf.
  Value result = arith::SelectOp::create(
      b, loc, exact, x,
      arith::SelectOp::create(b, loc, infinite, u, corrected));
  Value outside = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                        constant(b, loc, t, -1));
  return nanWhere(b, loc, outside, result);
}
Value computeUnary(Log1pOp, OpBuilder &b, Location loc, Value x) {
  return log1p(b, loc, x);
}
Value computeUnary(Expm1Op, OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value one = constant(b, loc, t, 1);
  Value u = math::ExpOp::create(b, loc, x);
  Value um1 = arith::SubFOp::create(b, loc, u, one);
  Value corrected =
      arith::DivFOp::create(b, loc, arith::MulFOp::create(b, loc, um1, x),
                            math::LogOp::create(b, loc, u));
  Value exact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, one);
  // exp(x) - 1 == -1 (x very negative) and exp(x) == inf are exact.
  Value saturated = arith::OrIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, um1,
                            constant(b, loc, t, -1)),
      arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::OEQ, u,
          constant(b, loc, t, std::numeric_limits<double>::infinity())));
  return arith::SelectOp::create(
      b, loc, exact, x,
      arith::SelectOp::create(b, loc, saturated, um1, corrected));
}
// The inverse hyperbolic functions through log1p: MLIR 22 lowers
// math.asinh, math.acosh and math.atanh neither to LLVM nor to SPIR-V.
// Beyond 2^28 the square roots' 1 is below an ulp of x^2, and x^2 would
// overflow from about 1.8e19: log(2|x|) there.
Value largeArgumentLog(OpBuilder &b, Location loc, Value a) {
  return arith::AddFOp::create(b, loc, math::LogOp::create(b, loc, a),
                               constant(b, loc, a.getType(), M_LN2));
}
Value computeUnary(AsinhOp, OpBuilder &b, Location loc, Value x) {
  // asinh(|x|) = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), odd.
  Type t = x.getType();
  Value one = constant(b, loc, t, 1);
  Value a = math::AbsFOp::create(b, loc, x);
  Value a2 = arith::MulFOp::create(b, loc, a, a);
  Value root =
      math::SqrtOp::create(b, loc, arith::AddFOp::create(b, loc, one, a2));
  Value small =
      log1p(b, loc,
            arith::AddFOp::create(
                b, loc, a,
                arith::DivFOp::create(
                    b, loc, a2, arith::AddFOp::create(b, loc, one, root))));
  Value large = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a,
                                      constant(b, loc, t, 0x1p28));
  Value magnitude = arith::SelectOp::create(b, loc, large,
                                            largeArgumentLog(b, loc, a), small);
  return math::CopySignOp::create(b, loc, magnitude, x);
}
Value computeUnary(AcoshOp, OpBuilder &b, Location loc, Value x) {
  // acosh(x) = log1p((x - 1) + sqrt((x - 1)(x + 1))), NaN below 1.
  Type t = x.getType();
  Value one = constant(b, loc, t, 1);
  Value below = arith::SubFOp::create(b, loc, x, one);
  Value root = math::SqrtOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, below,
                            arith::AddFOp::create(b, loc, x, one)));
  Value small = log1p(b, loc, arith::AddFOp::create(b, loc, below, root));
  Value large = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                      constant(b, loc, t, 0x1p28));
  Value outside =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, one);
  return nanWhere(b, loc, outside,
                  arith::SelectOp::create(b, loc, large,
                                          largeArgumentLog(b, loc, x), small));
}
Value computeUnary(AtanhOp, OpBuilder &b, Location loc, Value x) {
  // atanh(x) = log1p(2x / (1 - x)) / 2: NaN outside [-1, 1], +-inf at +-1.
  Type t = x.getType();
  Value twice = arith::AddFOp::create(b, loc, x, x);
  Value ratio = arith::DivFOp::create(
      b, loc, twice, arith::SubFOp::create(b, loc, constant(b, loc, t, 1), x));
  return nanWhere(b, loc, beyondOne(b, loc, x),
                  arith::MulFOp::create(b, loc, log1p(b, loc, ratio),
                                        constant(b, loc, t, 0.5)));
}
Value computeUnary(FloorOp, OpBuilder &b, Location loc, Value x) {
  if (!isFloat(x.getType()))
    return x;
  return math::FloorOp::create(b, loc, x);
}
Value computeUnary(CeilOp, OpBuilder &b, Location loc, Value x) {
  if (!isFloat(x.getType()))
    return x;
  return math::CeilOp::create(b, loc, x);
}
Value computeUnary(RoundOp, OpBuilder &b, Location loc, Value x) {
  if (!isFloat(x.getType()))
    return x;
  return math::RoundEvenOp::create(b, loc, x);
}
Value computeUnary(TruncOp, OpBuilder &b, Location loc, Value x) {
  if (!isFloat(x.getType()))
    return x;
  return truncFloat(b, loc, x);
}
Value computeUnary(SignOp, OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value zero = constant(b, loc, t, 0);
  Value positive, negative;
  if (isFloat(t)) {
    // Unordered comparisons are false: NaN gives 0.
    positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    negative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  } else {
    positive =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero);
    negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  }
  return arith::SelectOp::create(
      b, loc, positive, constant(b, loc, t, 1),
      arith::SelectOp::create(b, loc, negative, constant(b, loc, t, -1), zero));
}
Value computeUnary(BitwiseNotOp, OpBuilder &b, Location loc, Value x) {
  auto type = cast<IntegerType>(x.getType());
  Value ones = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, APInt::getAllOnes(type.getWidth())));
  return arith::XOrIOp::create(b, loc, x, ones);
}

/// Whether `x` is nonzero (NaN is), as an i1.
Value truthy(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  if (t.isInteger(1))
    return x;
  if (isFloat(t))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                 constant(b, loc, t, 0));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                               constant(b, loc, t, 0));
}

// Predicates of one operand, computed in the input's compute type.
Value computePredicate(IsnanOp, OpBuilder &b, Location loc, Value x) {
  if (!isFloat(x.getType()))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
}
Value computePredicate(IsinfOp, OpBuilder &b, Location loc, Value x) {
  if (!isFloat(x.getType()))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  return arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, math::AbsFOp::create(b, loc, x),
      constant(b, loc, x.getType(), std::numeric_limits<double>::infinity()));
}
Value computePredicate(LogicalNotOp, OpBuilder &b, Location loc, Value x) {
  return arith::XOrIOp::create(
      b, loc, truthy(b, loc, x),
      arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
}

Value computeUnary(SiluOp, OpBuilder &b, Location loc, Value x) {
  return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
}
Value computeUnary(HardswishOp, OpBuilder &b, Location loc, Value x) {
  return arith::MulFOp::create(b, loc, x, hardsigmoid(b, loc, x));
}
Value computeUnary(HardsigmoidOp, OpBuilder &b, Location loc, Value x) {
  return hardsigmoid(b, loc, x);
}
Value computeUnary(NegOp, OpBuilder &b, Location loc, Value x) {
  if (isFloat(x.getType()))
    return arith::NegFOp::create(b, loc, x);
  return arith::SubIOp::create(b, loc, constant(b, loc, x.getType(), 0), x);
}
Value computeUnary(AbsOp, OpBuilder &b, Location loc, Value x) {
  if (isFloat(x.getType()))
    return math::AbsFOp::create(b, loc, x);
  // x < 0 ? -x : x: MLIR 22 lowers math.absi to LLVM but not to SPIR-V
  // (reflection padding's index arithmetic met it on Vulkan).
  Type t = x.getType();
  Value zero = constant(b, loc, t, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  return arith::SelectOp::create(b, loc, negative,
                                 arith::SubIOp::create(b, loc, zero, x), x);
}

template <typename OpTy> struct UnaryPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    Type element = resultType.getElementType();
    Type compute = getComputeType(element);
    Value result = createElementwise(
        rewriter, op.getLoc(), op, adaptor.getSelf(), resultType,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = convertScalar(b, loc, args[0], compute);
          return convertScalar(b, loc, computeUnary(op, b, loc, x), element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// isnan, isinf, logical_not: an i1 result computed from the input in its
/// own compute type.
template <typename OpTy> struct PredicatePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type compute = getComputeType(
        cast<RankedTensorType>(adaptor.getSelf().getType()).getElementType());
    Value result = createElementwise(
        rewriter, op.getLoc(), op, adaptor.getSelf(), op.getType(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return computePredicate(op, b, loc,
                                  convertScalar(b, loc, args[0], compute));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Unary ops with attributes: gelu, hardtanh, clamp.
struct GeluPattern : OpConversionPattern<GeluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = op.getType().getElementType();
    Type t = getComputeType(element);
    bool useTanh = op.getApproximate() == GeluApproximate::tanh;
    Value result = createElementwise(
        rewriter, op.getLoc(), op, adaptor.getSelf(), op.getType(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = convertScalar(b, loc, args[0], t);
          Value half = constant(b, loc, t, 0.5), one = constant(b, loc, t, 1);
          Value inner;
          if (useTanh) {
            // sqrt(2/pi) * (x + 0.044715 x^3)
            Value x3 = arith::MulFOp::create(
                b, loc, x, arith::MulFOp::create(b, loc, x, x));
            Value poly = arith::AddFOp::create(
                b, loc, x,
                arith::MulFOp::create(b, loc, constant(b, loc, t, 0.044715),
                                      x3));
            inner = math::TanhOp::create(
                b, loc,
                arith::MulFOp::create(
                    b, loc, constant(b, loc, t, std::sqrt(2.0 / M_PI)), poly));
          } else {
            inner = math::ErfOp::create(
                b, loc,
                arith::MulFOp::create(b, loc, x,
                                      constant(b, loc, t, M_SQRT1_2)));
          }
          Value scaled = arith::MulFOp::create(
              b, loc, arith::MulFOp::create(b, loc, half, x),
              arith::AddFOp::create(b, loc, one, inner));
          return convertScalar(b, loc, scaled, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy> struct ClampLikePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = op.getType().getElementType();
    Type compute = getComputeType(element);
    // Not a structured binding: lambdas capture those only from C++20.
    std::pair<std::optional<double>, std::optional<double>> bounds =
        getBounds(op);
    std::optional<double> lo = bounds.first, hi = bounds.second;
    Value result = createElementwise(
        rewriter, op.getLoc(), op, adaptor.getSelf(), op.getType(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = convertScalar(b, loc, args[0], compute);
          return convertScalar(b, loc, clampScalar(b, loc, x, lo, hi), element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  static std::pair<std::optional<double>, std::optional<double>>
  getBounds(HardtanhOp op) {
    return {op.getMinVal().convertToDouble(), op.getMaxVal().convertToDouble()};
  }
  static std::pair<std::optional<double>, std::optional<double>>
  getBounds(ClampOp op) {
    std::optional<double> lo, hi;
    if (auto min = op.getMinAttr())
      lo = min.getValueAsDouble();
    if (auto max = op.getMaxAttr())
      hi = max.getValueAsDouble();
    return {lo, hi};
  }
};

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

/// The common dtype of a binary op's operands (torch.result_type, widened to
/// the result's dtype for true division of integers). Like PyTorch's
/// TensorIterator, operands are first cast to it and then computed in its
/// compute type, so an f32 scalar added to an f16 tensor is rounded to f16.
Type getCommonType(Operation *op, Value lhs, Value rhs) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  Type promoted = resultElementType({lt, rt});
  Type result =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  if (isFloat(result) && !isFloat(promoted))
    promoted = result;
  return promoted;
}

Value scaleByAlpha(OpBuilder &b, Location loc, Value y, double alpha) {
  if (alpha == 1.0)
    return y;
  if (y.getType().isInteger(1))
    return alpha == 0.0 ? constant(b, loc, y.getType(), 0) : y;
  return createMul(b, loc, y, constant(b, loc, y.getType(), alpha));
}

Value computeBinary(AddOp op, OpBuilder &b, Location loc, Value x, Value y) {
  return createAdd(b, loc, x,
                   scaleByAlpha(b, loc, y, op.getAlpha().convertToDouble()));
}
Value computeBinary(SubOp op, OpBuilder &b, Location loc, Value x, Value y) {
  return createSub(b, loc, x,
                   scaleByAlpha(b, loc, y, op.getAlpha().convertToDouble()));
}
Value computeBinary(MulOp, OpBuilder &b, Location loc, Value x, Value y) {
  return createMul(b, loc, x, y);
}
/// Integer `x / y` and `x % y` divisors: 1 where `y` is zero (a trap on the
/// CPU; ATen raises an error there, the elements are unspecified here).
Value safeDivisor(OpBuilder &b, Location loc, Value y) {
  Type t = y.getType();
  Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                                       constant(b, loc, t, 0));
  return arith::SelectOp::create(b, loc, isZero, constant(b, loc, t, 1), y);
}
/// C's fmod: SPIR-V's OpFRem leaves a zero divisor undefined and lavapipe
/// gave NaN for an infinite one (x - inf * 0): those are set explicitly.
Value fmodFloat(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value inf = constant(b, loc, t, std::numeric_limits<double>::infinity());
  Value yInfinite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          math::AbsFOp::create(b, loc, y), inf);
  Value xFinite = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                        math::AbsFOp::create(b, loc, x), inf);
  Value yZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, y,
                                      constant(b, loc, t, 0));
  Value r = arith::RemFOp::create(b, loc, x, y);
  r = arith::SelectOp::create(
      b, loc, arith::AndIOp::create(b, loc, yInfinite, xFinite), x, r);
  return nanWhere(b, loc, yZero, r);
}
Value computeBinary(DivOp op, OpBuilder &b, Location loc, Value x, Value y) {
  std::optional<RoundingMode> mode = op.getRoundingMode();
  if (isFloat(x.getType())) {
    Value q = arith::DivFOp::create(b, loc, x, y);
    if (!mode)
      return q;
    if (*mode == RoundingMode::trunc)
      return truncFloat(b, loc, q);
    return math::FloorOp::create(b, loc, q);
  }
  Value safe = safeDivisor(b, loc, y);
  if (mode && *mode == RoundingMode::floor)
    return arith::FloorDivSIOp::create(b, loc, x, safe);
  return arith::DivSIOp::create(b, loc, x, safe);
}
Value computeBinary(PowOp, OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloat(x.getType()))
    return math::PowFOp::create(b, loc, x, y);
  return math::IPowIOp::create(b, loc, x, y);
}
Value computeBinary(MaximumOp, OpBuilder &b, Location loc, Value x, Value y) {
  return createMaximum(b, loc, x, y);
}
Value computeBinary(MinimumOp, OpBuilder &b, Location loc, Value x, Value y) {
  return createMinimum(b, loc, x, y);
}

Value computeBinary(FmodOp, OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloat(x.getType()))
    return fmodFloat(b, loc, x, y);
  return arith::RemSIOp::create(b, loc, x, safeDivisor(b, loc, y));
}
Value computeBinary(RemainderOp, OpBuilder &b, Location loc, Value x, Value y) {
  // fmod, moved by y where it is nonzero with the other sign than y.
  Type t = x.getType();
  Value zero = constant(b, loc, t, 0);
  Value r, nonzero, rNegative, yNegative;
  if (isFloat(t)) {
    r = fmodFloat(b, loc, x, y);
    nonzero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, r, zero);
    rNegative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero);
    yNegative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, zero);
  } else {
    y = safeDivisor(b, loc, y);
    r = arith::RemSIOp::create(b, loc, x, y);
    nonzero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
    rNegative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
    yNegative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero);
  }
  Value moved = arith::AndIOp::create(
      b, loc, nonzero, arith::XOrIOp::create(b, loc, rNegative, yNegative));
  return arith::SelectOp::create(b, loc, moved, createAdd(b, loc, r, y), r);
}
// atan2 through atan with the quadrant fixed up (MLIR 22 has no SPIR-V
// lowering of math.atan2, GLSL.std.450's Atan2 not being in its dialect).
Value computeBinary(Atan2Op, OpBuilder &b, Location loc, Value y, Value x) {
  Type t = y.getType();
  auto cst = [&](double v) { return constant(b, loc, t, v); };
  auto withSignOfY = [&](double magnitude) -> Value {
    return math::CopySignOp::create(b, loc, cst(magnitude), y);
  };
  // x < 0, or x is -0: the left half-plane.
  Value left = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OLT,
      math::CopySignOp::create(b, loc, cst(1), x), cst(0));
  Value base =
      math::AtanOp::create(b, loc, arith::DivFOp::create(b, loc, y, x));
  Value general = arith::SelectOp::create(
      b, loc, left, arith::AddFOp::create(b, loc, base, withSignOfY(M_PI)),
      base);
  // 0 / 0 and inf / inf are NaN: C's values for them.
  auto both = [&](double v) -> Value {
    auto is = [&](Value z) -> Value {
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                   math::AbsFOp::create(b, loc, z), cst(v));
    };
    return arith::AndIOp::create(b, loc, is(y), is(x));
  };
  Value zeros =
      arith::SelectOp::create(b, loc, left, withSignOfY(M_PI), withSignOfY(0));
  Value infinities = arith::SelectOp::create(
      b, loc, left, withSignOfY(3 * M_PI_4), withSignOfY(M_PI_4));
  return arith::SelectOp::create(
      b, loc, both(0), zeros,
      arith::SelectOp::create(b, loc,
                              both(std::numeric_limits<double>::infinity()),
                              infinities, general));
}
Value computeBinary(BitwiseAndOp, OpBuilder &b, Location loc, Value x,
                    Value y) {
  return arith::AndIOp::create(b, loc, x, y);
}
Value computeBinary(BitwiseOrOp, OpBuilder &b, Location loc, Value x, Value y) {
  return arith::OrIOp::create(b, loc, x, y);
}
Value computeBinary(BitwiseXorOp, OpBuilder &b, Location loc, Value x,
                    Value y) {
  return arith::XOrIOp::create(b, loc, x, y);
}

/// Comparison predicates: ordered for floats except `ne` (NaN != NaN is
/// true), signed for integers, unsigned for bools (false < true).
struct Predicates {
  arith::CmpFPredicate f;
  arith::CmpIPredicate si, ui;
};
Predicates getPredicates(EqOp) {
  return {arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq,
          arith::CmpIPredicate::eq};
}
Predicates getPredicates(NeOp) {
  return {arith::CmpFPredicate::UNE, arith::CmpIPredicate::ne,
          arith::CmpIPredicate::ne};
}
Predicates getPredicates(LtOp) {
  return {arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt,
          arith::CmpIPredicate::ult};
}
Predicates getPredicates(LeOp) {
  return {arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle,
          arith::CmpIPredicate::ule};
}
Predicates getPredicates(GtOp) {
  return {arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt,
          arith::CmpIPredicate::ugt};
}
Predicates getPredicates(GeOp) {
  return {arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge,
          arith::CmpIPredicate::uge};
}

template <typename OpTy> struct BinaryPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  static constexpr bool kKeepsWideScalar =
      llvm::is_one_of<OpTy, AddOp, SubOp, MulOp, DivOp>::value;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = op.getType().getElementType();
    Type common = getCommonType(op, adaptor.getSelf(), adaptor.getOther());
    Type compute = getComputeType(common);
    Value result = createElementwise(
        rewriter, op.getLoc(), op, {adaptor.getSelf(), adaptor.getOther()},
        op.getType(), [&](OpBuilder &b, Location loc, ValueRange args) {
          auto operand = [&](Value v) {
            // PyTorch's add, sub, mul and div take a wider float scalar
            // (a 0-dim f32 tensor beside f16 data) at its original value in
            // the compute type, not rounded to the result type first
            // (TensorIterator's original_scalar_value; Inductor does the
            // same). Other ops round it to the common type.
            if (kKeepsWideScalar && isa<FloatType>(v.getType()) &&
                isa<FloatType>(compute) &&
                v.getType().getIntOrFloatBitWidth() >
                    common.getIntOrFloatBitWidth())
              return convertScalar(b, loc, v, compute);
            return convertScalar(b, loc, convertScalar(b, loc, v, common),
                                 compute);
          };
          Value x = operand(args[0]), y = operand(args[1]);
          return convertScalar(b, loc, computeScalar(op, b, loc, x, y),
                               element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value computeScalar(OpTy op, OpBuilder &b, Location loc, Value x,
                             Value y) {
    if constexpr (std::is_same_v<OpTy, LogicalAndOp>) {
      return arith::AndIOp::create(b, loc, truthy(b, loc, x),
                                   truthy(b, loc, y));
    } else if constexpr (std::is_same_v<OpTy, LogicalOrOp>) {
      return arith::OrIOp::create(b, loc, truthy(b, loc, x), truthy(b, loc, y));
    } else if constexpr (std::is_same_v<OpTy, LogicalXorOp>) {
      return arith::XOrIOp::create(b, loc, truthy(b, loc, x),
                                   truthy(b, loc, y));
    } else if constexpr (llvm::is_one_of<OpTy, EqOp, NeOp, LtOp, LeOp, GtOp,
                                         GeOp>::value) {
      Predicates p = getPredicates(op);
      if (isFloat(x.getType()))
        return arith::CmpFOp::create(b, loc, p.f, x, y);
      return arith::CmpIOp::create(
          b, loc, x.getType().isInteger(1) ? p.ui : p.si, x, y);
    } else {
      return computeBinary(op, b, loc, x, y);
    }
  }
};

struct WherePattern : OpConversionPattern<WhereOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WhereOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = op.getType().getElementType();
    Value result = createElementwise(
        rewriter, op.getLoc(), op,
        {adaptor.getCondition(), adaptor.getSelf(), adaptor.getOther()},
        op.getType(), [&](OpBuilder &b, Location loc, ValueRange args) {
          return arith::SelectOp::create(
              b, loc, args[0], convertScalar(b, loc, args[1], element),
              convertScalar(b, loc, args[2], element));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertElementTypePattern : OpConversionPattern<ConvertElementTypeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertElementTypeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = op.getType().getElementType();
    Value result = createElementwise(
        rewriter, op.getLoc(), op, adaptor.getSelf(), op.getType(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return convertScalar(b, loc, args[0], element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tolinalg::populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      UnaryPattern<ReluOp>, UnaryPattern<SigmoidOp>, UnaryPattern<TanhOp>,
      UnaryPattern<ExpOp>, UnaryPattern<LogOp>, UnaryPattern<SqrtOp>,
      UnaryPattern<RsqrtOp>, UnaryPattern<ReciprocalOp>, UnaryPattern<SinOp>,
      UnaryPattern<CosOp>, UnaryPattern<ErfOp>, UnaryPattern<SiluOp>,
      UnaryPattern<HardswishOp>, UnaryPattern<HardsigmoidOp>,
      UnaryPattern<NegOp>, UnaryPattern<AbsOp>, UnaryPattern<TanOp>,
      UnaryPattern<AsinOp>, UnaryPattern<AcosOp>, UnaryPattern<AtanOp>,
      UnaryPattern<SinhOp>, UnaryPattern<CoshOp>, UnaryPattern<AsinhOp>,
      UnaryPattern<AcoshOp>, UnaryPattern<AtanhOp>, UnaryPattern<Log1pOp>,
      UnaryPattern<Expm1Op>, UnaryPattern<Log2Op>, UnaryPattern<Log10Op>,
      UnaryPattern<FloorOp>, UnaryPattern<CeilOp>, UnaryPattern<RoundOp>,
      UnaryPattern<TruncOp>, UnaryPattern<SignOp>, UnaryPattern<BitwiseNotOp>,
      PredicatePattern<IsnanOp>, PredicatePattern<IsinfOp>,
      PredicatePattern<LogicalNotOp>>(ctx);
  patterns
      .add<GeluPattern, ClampLikePattern<HardtanhOp>, ClampLikePattern<ClampOp>,
           WherePattern, ConvertElementTypePattern>(ctx);
  patterns
      .add<BinaryPattern<AddOp>, BinaryPattern<SubOp>, BinaryPattern<MulOp>,
           BinaryPattern<DivOp>, BinaryPattern<PowOp>, BinaryPattern<MaximumOp>,
           BinaryPattern<MinimumOp>, BinaryPattern<EqOp>, BinaryPattern<NeOp>,
           BinaryPattern<LtOp>, BinaryPattern<LeOp>, BinaryPattern<GtOp>,
           BinaryPattern<GeOp>, BinaryPattern<RemainderOp>,
           BinaryPattern<FmodOp>, BinaryPattern<Atan2Op>,
           BinaryPattern<LogicalAndOp>, BinaryPattern<LogicalOrOp>,
           BinaryPattern<LogicalXorOp>, BinaryPattern<BitwiseAndOp>,
           BinaryPattern<BitwiseOrOp>, BinaryPattern<BitwiseXorOp>>(ctx);
}

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

using namespace mlir;
using namespace mlir::fx;
using namespace mlir::fx::tolinalg;

namespace {

bool isFloat(Type type) { return isa<FloatType>(type); }

Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return createScalarConstant(b, loc, type, value);
}

/// relu6(x + 3) / 6, shared by hardswish and hardsigmoid.
Value hardsigmoid(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value shifted = arith::AddFOp::create(b, loc, x, constant(b, loc, t, 3));
  Value clamped = createMinimum(
      b, loc, createMaximum(b, loc, shifted, constant(b, loc, t, 0)),
      constant(b, loc, t, 6));
  return arith::DivFOp::create(b, loc, clamped, constant(b, loc, t, 6));
}

Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value negExp = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value denom = arith::AddFOp::create(b, loc, constant(b, loc, t, 1), negExp);
  return arith::DivFOp::create(b, loc, constant(b, loc, t, 1), denom);
}

// The scalar computation of each unary op, in its compute type.
Value computeUnary(ReluOp, OpBuilder &b, Location loc, Value x) {
  return createMaximum(b, loc, x, constant(b, loc, x.getType(), 0));
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
  return math::AbsIOp::create(b, loc, x);
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

/// Clamps `x` (compute type) to optional bounds, NaN propagating.
Value clampScalar(OpBuilder &b, Location loc, Value x, std::optional<double> lo,
                  std::optional<double> hi) {
  if (lo)
    x = createMaximum(b, loc, x, constant(b, loc, x.getType(), *lo));
  if (hi)
    x = createMinimum(b, loc, x, constant(b, loc, x.getType(), *hi));
  return x;
}

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
Value computeBinary(DivOp op, OpBuilder &b, Location loc, Value x, Value y) {
  std::optional<RoundingMode> mode = op.getRoundingMode();
  if (isFloat(x.getType())) {
    Value q = arith::DivFOp::create(b, loc, x, y);
    if (!mode)
      return q;
    if (*mode == RoundingMode::trunc)
      return math::TruncOp::create(b, loc, q);
    return math::FloorOp::create(b, loc, q);
  }
  // Integer division by zero would trap; PyTorch raises an error there. The
  // divisor is replaced by 1 so the process survives (the result for those
  // elements is unspecified).
  Type t = x.getType();
  Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                                       constant(b, loc, t, 0));
  Value safe =
      arith::SelectOp::create(b, loc, isZero, constant(b, loc, t, 1), y);
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
    if constexpr (llvm::is_one_of<OpTy, EqOp, NeOp, LtOp, LeOp, GtOp,
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
  patterns.add<UnaryPattern<ReluOp>, UnaryPattern<SigmoidOp>,
               UnaryPattern<TanhOp>, UnaryPattern<ExpOp>, UnaryPattern<LogOp>,
               UnaryPattern<SqrtOp>, UnaryPattern<RsqrtOp>,
               UnaryPattern<ReciprocalOp>, UnaryPattern<SinOp>,
               UnaryPattern<CosOp>, UnaryPattern<ErfOp>, UnaryPattern<SiluOp>,
               UnaryPattern<HardswishOp>, UnaryPattern<HardsigmoidOp>,
               UnaryPattern<NegOp>, UnaryPattern<AbsOp>>(ctx);
  patterns
      .add<GeluPattern, ClampLikePattern<HardtanhOp>, ClampLikePattern<ClampOp>,
           WherePattern, ConvertElementTypePattern>(ctx);
  patterns.add<BinaryPattern<AddOp>, BinaryPattern<SubOp>, BinaryPattern<MulOp>,
               BinaryPattern<DivOp>, BinaryPattern<PowOp>,
               BinaryPattern<MaximumOp>, BinaryPattern<MinimumOp>,
               BinaryPattern<EqOp>, BinaryPattern<NeOp>, BinaryPattern<LtOp>,
               BinaryPattern<LeOp>, BinaryPattern<GtOp>, BinaryPattern<GeOp>>(
      ctx);
}

//===- ExpApproximation.cpp - f32 exp in vector registers -----------------===//
//
// exp(x) for f32 scalars and vectors as a polynomial and a power of two
// built in the exponent bits, in 16 operations (fma, min, max, a shift),
// instead of the 25 of MLIR's polynomial approximation (which clamps the
// exponent as a float, converts it to an integer, adds the bias
// separately, and evaluates a polynomial of degree 7). Softmax spends most
// of its time here: a 4096x4096 softmax on one core of a Zen 5 EPYC was
// compute-bound on its exp loop (62% of the samples).
//
//   xc = clamp(x, -87.3365, 88.7228394)   NaN stays NaN
//   v  = xc * log2(e) + (1.5 * 2^23 + 126)    rounds: v = M + n + 126
//   s  = bits((n + 126) << 23) = 2^(n - 1)     from v's low mantissa bits
//   n  = v - M - 126 (as a float), r = xc - n * ln2 (two parts, Cody-Waite)
//   e^r ~ 1 + r * P(r), |r| <= ln2 / 2         (P of degree 5)
//   exp(x) = 2 * (s + (s * r) * P(r))
//
// P's coefficients minimize the largest relative error of 1 + r * P(r)
// on [-ln2/2, ln2/2]: a linear program over 4001 Chebyshev points, solved
// again after rounding each coefficient to f32 in turn. Measured on 10^6
// points of [-90, 90] against float64, at most 1.23 * 2^-24 relative
// (MLIR's: 1.2 * 2^-24); with P of degree 4, one FMA fewer, 3.6 * 2^-24.
//
// n lies in [-126, 128]; with 2^(n - 1) in the exponent bits every such n
// is a normal power of two but -126, whose 0 makes exp of x <= -86.99 zero
// (results below 2.2e-38; MLIR's flushed below 1.2e-38). The upper clamp is
// the smallest float whose exp overflows: the final doubling makes it +inf
// there and above. -inf gives 0, +inf gives +inf, NaN gives NaN.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

struct ExpF32 : public OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    auto vector = dyn_cast<VectorType>(type);
    if (vector && vector.isScalable())
      return rewriter.notifyMatchFailure(op, "scalable vector");
    Location loc = op.getLoc();
    Type intType = rewriter.getI32Type();
    if (vector)
      intType = vector.clone(intType);
    // A constant of `shaped` (f32 or i32, scalar or vector) from `scalar`.
    auto splat = [&](Type shaped, TypedAttr scalar) -> Value {
      if (auto vectorType = dyn_cast<VectorType>(shaped))
        scalar = DenseElementsAttr::get(vectorType, Attribute(scalar));
      return arith::ConstantOp::create(rewriter, loc, shaped, scalar);
    };
    auto f = [&](float value) {
      return splat(type, rewriter.getF32FloatAttr(value));
    };
    auto fma = [&](Value a, Value b, Value c) -> Value {
      return math::FmaOp::create(rewriter, loc, a, b, c);
    };
    // Clamps as compare-and-select, x kept where the compare is unordered
    // (NaN): one vmaxps / vminps each on x86.
    Value x = op.getOperand();
    Value lo = f(-87.3365478515625f), hi = f(88.72283935546875f);
    Value aboveLo =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UGE, x, lo);
    Value xc = arith::SelectOp::create(rewriter, loc, aboveLo, x, lo);
    Value belowHi =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::ULE, xc, hi);
    xc = arith::SelectOp::create(rewriter, loc, belowHi, xc, hi);

    const float magic = 12582912.0f + 126.0f; // 1.5 * 2^23 + 126
    Value v = fma(xc, f(1.44269502162933349609375f), f(magic));
    Value bits = arith::ShLIOp::create(
        rewriter, loc, arith::BitcastOp::create(rewriter, loc, intType, v),
        splat(intType, rewriter.getI32IntegerAttr(23)));
    Value scale = arith::BitcastOp::create(rewriter, loc, type, bits);
    Value n = arith::SubFOp::create(rewriter, loc, v, f(magic));
    Value r = fma(n, f(-0.693359375f), xc);
    r = fma(n, f(2.12194440e-4f), r);
    Value p = fma(f(0.001385162235237658f), r, f(0.008373090997338295f));
    p = fma(p, r, f(0.04166789725422859f));
    p = fma(p, r, f(0.1666647344827652f));
    p = fma(p, r, f(0.4999999403953552f));
    p = fma(p, r, f(1.0f));
    Value sr = arith::MulFOp::create(rewriter, loc, scale, r);
    Value half = fma(sr, p, scale);
    rewriter.replaceOpWithNewOp<arith::AddFOp>(op, half, half);
    return success();
  }
};

} // namespace

void mlir::fx::populateCPUExpApproximationPatterns(RewritePatternSet &patterns,
                                                   PatternBenefit benefit) {
  patterns.add<ExpF32>(patterns.getContext(), benefit);
}

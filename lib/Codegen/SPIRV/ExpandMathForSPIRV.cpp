//===- ExpandMathForSPIRV.cpp - math SPIR-V lacks -------------------------===//
//
// fx-expand-math-for-spirv: expands the math and arith ops that SPIR-V has
// no instruction for (integer powers among them) into ones it has.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/SPIRV/GPUUtils.h"
#include "fx/Codegen/SPIRV/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <map>

namespace mlir::fx {
#define GEN_PASS_DEF_FXEXPANDMATHFORSPIRV
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// math.ipowi as square-and-multiply over the exponent's bits, without
/// control flow. Negative exponents give what the CPU path (MLIR's
/// math-to-funcs expansion) gives: 1 for a base of 1, +-1 for -1, else 0.
struct ExpandIPowI : public OpRewritePattern<math::IPowIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IPowIOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<IntegerType>(op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    unsigned bits = type.getWidth();
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, type, v);
    };
    Value base = op.getLhs(), exponent = op.getRhs();
    Value one = cst(1), zero = cst(0), minusOne = cst(-1);
    Value result = one;
    Value power = base;
    for (unsigned i = 0; i + 1 < bits; ++i) {
      Value bit = arith::AndIOp::create(
          rewriter, loc,
          arith::ShRUIOp::create(rewriter, loc, exponent, cst(i)), one);
      Value set = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                        bit, zero);
      result = arith::SelectOp::create(
          rewriter, loc, set,
          arith::MulIOp::create(rewriter, loc, result, power), result);
      power = arith::MulIOp::create(rewriter, loc, power, power);
    }
    // Negative exponents.
    Value odd = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(rewriter, loc, exponent, one), zero);
    Value ofMinusOne =
        arith::SelectOp::create(rewriter, loc, odd, minusOne, one);
    Value isOne = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        base, one);
    Value isMinusOne = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, base, minusOne);
    Value negative = arith::SelectOp::create(
        rewriter, loc, isOne, one,
        arith::SelectOp::create(rewriter, loc, isMinusOne, ofMinusOne, zero));
    Value isNegative = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, exponent, zero);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isNegative, negative,
                                                 result);
    return success();
  }
};

struct ExpandMathForSPIRVPass
    : public fx::impl::FXExpandMathForSPIRVBase<ExpandMathForSPIRVPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateErfPattern(patterns);
    patterns.add<ExpandIPowI>(&getContext());
    arith::populateArithExpandOpsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // convert-gpu-to-spirv lowers a `uniform` subgroup reduction to the
    // SPIR-V Groups instructions (OpenCL kernels only); Vulkan has the
    // GroupNonUniform ones. (Canonicalization marks reductions uniform
    // when every thread of the launch reaches them.)
    getOperation()->walk(
        [](gpu::SubgroupReduceOp op) { op.setUniform(false); });
  }
};

} // namespace

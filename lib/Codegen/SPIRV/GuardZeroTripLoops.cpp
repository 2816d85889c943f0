//===- GuardZeroTripLoops.cpp - defined zero-trip results -----------------===//
//
// fx-guard-zero-trip-loops: gives loop results a defined value when a loop
// runs zero times (see the pass description in Passes.td).
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
#define GEN_PASS_DEF_FXGUARDZEROTRIPLOOPS
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct GuardZeroTripLoopsPass
    : public fx::impl::FXGuardZeroTripLoopsBase<GuardZeroTripLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop.getNumResults() == 0)
        return;
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (!trips || trips->isZero())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      OpBuilder b(loop);
      Location loc = loop.getLoc();
      Value runs = arith::CmpIOp::create(
          b, loc,
          loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                : arith::CmpIPredicate::slt,
          loop.getLowerBound(), loop.getUpperBound());
      auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                     /*withElseRegion=*/true);
      loop->replaceAllUsesWith(guard.getResults());
      b.setInsertionPointToStart(guard.thenBlock());
      auto yield = scf::YieldOp::create(b, loc, loop.getResults());
      loop->moveBefore(yield);
      b.setInsertionPointToStart(guard.elseBlock());
      scf::YieldOp::create(b, loc, loop.getInitArgs());
    }
  }
};

} // namespace

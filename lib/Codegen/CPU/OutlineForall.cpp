//===- OutlineForall.cpp - scf.forall bodies outlined ---------------------===//
//
// fx-outline-forall (on buffers) moves the body of each outermost scf.forall
// into its own function and replaces the loop with a call to a dispatch
// declaration; fx-forall-to-runtime (ForallToRuntime.cpp) lowers that call
// once the LLVM dialect has expanded the captured buffers of the body and
// of the dispatch identically.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"

#include "ForallNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXOUTLINEFORALL
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using mlir::fx::kBodyPrefix;
using mlir::fx::kDispatchPrefix;

namespace {

struct OutlineForallPass
    : public fx::impl::FXOutlineForallBase<OutlineForallPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ForallOp> loops;
    module.walk([&](scf::ForallOp op) {
      if (!op->getParentOfType<scf::ForallOp>() && op.getRank() == 1 &&
          op.getNumResults() == 0)
        loops.push_back(op);
    });
    unsigned counter = 0;
    for (scf::ForallOp loop : loops)
      outline(loop, counter++);
  }

  void outline(scf::ForallOp loop, unsigned id) {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    Value lower = getValueOrCreateConstantIndexOp(
        b, loc, loop.getMixedLowerBound().front());
    Value upper = getValueOrCreateConstantIndexOp(
        b, loc, loop.getMixedUpperBound().front());
    Value step =
        getValueOrCreateConstantIndexOp(b, loc, loop.getMixedStep().front());
    // Iteration count: ceil((upper - lower) / step).
    Value count = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, upper, lower), step);

    SetVector<Value> used, captured;
    getUsedValuesDefinedAbove(loop.getRegion(), used);
    // Constants are re-created in the body rather than passed through the
    // context.
    SmallVector<Operation *> constants;
    for (Value v : used) {
      Operation *def = v.getDefiningOp();
      if (def && def->hasTrait<OpTrait::ConstantLike>())
        constants.push_back(def);
      else
        captured.insert(v);
    }
    Type index = b.getIndexType();
    SmallVector<Type> captureTypes =
        llvm::map_to_vector(captured, [](Value v) { return v.getType(); });

    // The body: (begin, end, lower, step, captures...) runs its iterations.
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    SmallVector<Type> bodyInputs = {index, index, index, index};
    llvm::append_range(bodyInputs, captureTypes);
    auto body = func::FuncOp::create(mb, loc, (kBodyPrefix + Twine(id)).str(),
                                     FunctionType::get(ctx, bodyInputs, {}));
    body.setPrivate();
    Block *entry = body.addEntryBlock();
    OpBuilder bb = OpBuilder::atBlockEnd(entry);
    IRMapping mapping;
    for (auto [value, arg] :
         llvm::zip_equal(captured, entry->getArguments().drop_front(4)))
      mapping.map(value, arg);
    for (Operation *constant : constants)
      bb.clone(*constant, mapping);
    Value one = arith::ConstantIndexOp::create(bb, loc, 1);
    auto forOp = scf::ForOp::create(bb, loc, entry->getArgument(0),
                                    entry->getArgument(1), one);
    {
      OpBuilder fb = OpBuilder::atBlockBegin(forOp.getBody());
      // A constant lower bound and step (the usual case: chunks of a
      // static loop) are constants in the body too, not only arguments:
      // what the body's code knows of its offsets (their alignment, for
      // fx-cpu-streaming-stores and LLVM) survives the outlining.
      auto known = [&](Value value, unsigned arg) -> Value {
        if (std::optional<int64_t> c = getConstantIntValue(value))
          return arith::ConstantIndexOp::create(fb, loc, *c);
        return entry->getArgument(arg);
      };
      Value iv = arith::AddIOp::create(
          fb, loc, known(lower, 2),
          arith::MulIOp::create(fb, loc, forOp.getInductionVar(),
                                known(step, 3)));
      mapping.map(loop.getInductionVars().front(), iv);
      for (Operation &op : loop.getBody()->without_terminator())
        fb.clone(op, mapping);
    }
    func::ReturnOp::create(bb, loc);

    // The dispatch declaration and the call replacing the loop.
    SmallVector<Type> dispatchInputs = {index, index, index};
    llvm::append_range(dispatchInputs, captureTypes);
    auto dispatch =
        func::FuncOp::create(mb, loc, (kDispatchPrefix + Twine(id)).str(),
                             FunctionType::get(ctx, dispatchInputs, {}));
    dispatch.setPrivate();
    SmallVector<Value> args = {count, lower, step};
    llvm::append_range(args, captured);
    func::CallOp::create(b, loc, dispatch, args);
    loop.erase();
  }
};

} // namespace

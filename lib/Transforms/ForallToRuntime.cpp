//===- ForallToRuntime.cpp - scf.forall to the runtime's thread pool ------===//
//
// Two passes. fx-outline-forall (on buffers) moves the body of each outermost
// scf.forall into its own function and replaces the loop with a call to a
// dispatch declaration. fx-forall-to-runtime (on the LLVM dialect, where the
// arguments are plain scalars and pointers) turns that call into a context
// struct, a trampoline and a call to fxrtParallelFor. Splitting it this way
// lets the memref-to-LLVM lowering expand the captured buffers of the body
// and of the dispatch identically, so packing them needs no knowledge of the
// memref descriptor layout.
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXOUTLINEFORALL
#define GEN_PASS_DEF_FXFORALLTORUNTIME
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

static constexpr StringLiteral kDispatchPrefix = "__fx_forall_dispatch_";
static constexpr StringLiteral kBodyPrefix = "__fx_forall_body_";
static constexpr StringLiteral kTrampolinePrefix = "__fx_forall_trampoline_";

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
      Value iv = arith::AddIOp::create(
          fb, loc, entry->getArgument(2),
          arith::MulIOp::create(fb, loc, forOp.getInductionVar(),
                                entry->getArgument(3)));
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

struct ForallToRuntimePass
    : public fx::impl::FXForallToRuntimeBase<ForallToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCallee();
          callee && callee->starts_with(kDispatchPrefix))
        calls.push_back(call);
    });
    if (calls.empty())
      return;
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    auto runtime = module.lookupSymbol<LLVM::LLVMFuncOp>("fxrtParallelFor");
    if (!runtime)
      runtime = LLVM::LLVMFuncOp::create(
          mb, module.getLoc(), "fxrtParallelFor",
          LLVM::LLVMFunctionType::get(voidType, {i64, ptr, ptr}));

    for (LLVM::CallOp call : calls) {
      StringRef id = call.getCallee()->drop_front(kDispatchPrefix.size());
      auto body =
          module.lookupSymbol<LLVM::LLVMFuncOp>((kBodyPrefix + id).str());
      if (!body) {
        call.emitError("no outlined body for ") << *call.getCallee();
        return signalPassFailure();
      }
      Location loc = call.getLoc();
      // Context: every argument after the iteration count.
      ValueRange fields = call.getArgOperands().drop_front(1);
      SmallVector<Type> fieldTypes =
          llvm::map_to_vector(fields, [](Value v) { return v.getType(); });
      auto structType = LLVM::LLVMStructType::getLiteral(ctx, fieldTypes);

      // Trampoline(begin, end, context): load the fields, call the body.
      auto trampoline = LLVM::LLVMFuncOp::create(
          mb, loc, (kTrampolinePrefix + id).str(),
          LLVM::LLVMFunctionType::get(voidType, {i64, i64, ptr}));
      trampoline.setLinkage(LLVM::Linkage::Internal);
      Block *entry = trampoline.addEntryBlock(mb);
      OpBuilder tb = OpBuilder::atBlockEnd(entry);
      SmallVector<Value> bodyArgs = {entry->getArgument(0),
                                     entry->getArgument(1)};
      for (auto [i, type] : llvm::enumerate(fieldTypes)) {
        Value addr = LLVM::GEPOp::create(
            tb, loc, ptr, structType, entry->getArgument(2),
            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
        bodyArgs.push_back(LLVM::LoadOp::create(tb, loc, type, addr));
      }
      LLVM::CallOp::create(tb, loc, body, bodyArgs);
      LLVM::ReturnOp::create(tb, loc, ValueRange{});

      // Call site: fill the context on the stack, run the pool.
      OpBuilder b(call);
      Value one = LLVM::ConstantOp::create(b, loc, i64, 1);
      Value context = LLVM::AllocaOp::create(b, loc, ptr, structType, one);
      for (auto [i, value] : llvm::enumerate(fields)) {
        Value addr = LLVM::GEPOp::create(
            b, loc, ptr, structType, context,
            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
        LLVM::StoreOp::create(b, loc, value, addr);
      }
      Value fn = LLVM::AddressOfOp::create(b, loc, ptr, trampoline.getName());
      LLVM::CallOp::create(
          b, loc, runtime,
          ValueRange{call.getArgOperands().front(), fn, context});
      call.erase();
    }
    // The dispatch declarations have no uses left.
    for (auto fn :
         llvm::make_early_inc_range(module.getOps<LLVM::LLVMFuncOp>()))
      if (fn.getName().starts_with(kDispatchPrefix) && fn.isExternal())
        fn.erase();
  }
};

} // namespace

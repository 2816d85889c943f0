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
#include "fx/Codegen/CPU/Passes.h"

#include "ForallNames.h"

#include "fx/Runtime/CPULibrary.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXFORALLTORUNTIME
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using mlir::fx::kBodyPrefix;
using mlir::fx::kDispatchPrefix;
using mlir::fx::kTrampolinePrefix;

namespace {

/// Defines rt::kCPULoopTable: {trampoline, name} for each of `loops`, then
/// {null, null}.
void defineLoopTable(ModuleOp module,
                     ArrayRef<std::pair<LLVM::LLVMFuncOp, std::string>> loops) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto entryType = LLVM::LLVMStructType::getLiteral(ctx, {ptr, ptr});
  auto tableType = LLVM::LLVMArrayType::get(entryType, loops.size() + 1);
  SmallVector<LLVM::GlobalOp> names;
  for (auto [i, loop] : llvm::enumerate(loops)) {
    std::string text = loop.second + '\0';
    names.push_back(LLVM::GlobalOp::create(
        mb, loc, LLVM::LLVMArrayType::get(mb.getI8Type(), text.size()),
        /*isConstant=*/true, LLVM::Linkage::Internal,
        "__fx_loop_name_" + std::to_string(i), mb.getStringAttr(text)));
  }
  auto table = LLVM::GlobalOp::create(mb, loc, tableType, /*isConstant=*/true,
                                      LLVM::Linkage::External,
                                      ::fx::rt::kCPULoopTable, Attribute());
  Block *init = mb.createBlock(&table.getInitializerRegion());
  OpBuilder ib = OpBuilder::atBlockEnd(init);
  Value value = LLVM::ZeroOp::create(ib, loc, tableType);
  for (auto [i, loop] : llvm::enumerate(loops)) {
    LLVM::LLVMFuncOp trampoline = loop.first;
    int64_t index = static_cast<int64_t>(i);
    Value fn = LLVM::AddressOfOp::create(ib, loc, ptr, trampoline.getName());
    Value name = LLVM::AddressOfOp::create(ib, loc, names[i]);
    value = LLVM::InsertValueOp::create(ib, loc, value, fn,
                                        ArrayRef<int64_t>{index, 0});
    value = LLVM::InsertValueOp::create(ib, loc, value, name,
                                        ArrayRef<int64_t>{index, 1});
  }
  LLVM::ReturnOp::create(ib, loc, value);
}

struct ForallToRuntimePass
    : public mlir::fx::impl::FXForallToRuntimeBase<ForallToRuntimePass> {
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

    SmallVector<std::pair<LLVM::LLVMFuncOp, std::string>> loops;
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
      loops.emplace_back(trampoline, mlir::fx::describeLocation(loc));
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
    defineLoopTable(module, loops);
  }
};

} // namespace

//===- MarkInputsReadOnly.cpp - the fx-mark-inputs-read-only pass ---------===//
//
// Upstream one-shot bufferization treats function arguments as writable
// unless they carry `bufferization.writable = false`; there is no pass
// option for "every argument is read-only", so this pass sets the attribute.
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXMARKINPUTSREADONLY
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct MarkInputsReadOnlyPass
    : public fx::impl::FXMarkInputsReadOnlyBase<MarkInputsReadOnlyPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      for (BlockArgument arg : func.getArguments())
        if (isa<TensorType>(arg.getType()))
          func.setArgAttr(
              arg.getArgNumber(),
              bufferization::BufferizationDialect::kWritableAttrName,
              b.getBoolAttr(false));
    }
  }
};

} // namespace

//===- RefineShapes.cpp - the fx-refine-shapes pass -----------------------===//

#include "fx/Dialect/FX/IR/FXOps.h"
#include "fx/Dialect/FX/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXREFINESHAPES
#include "fx/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

namespace {

/// The meet of two compatible ranked tensor types: static wherever either is.
/// Returns null if the types are not compatible ranked tensors.
RankedTensorType meet(Type a, Type b) {
  auto at = dyn_cast<RankedTensorType>(a), bt = dyn_cast<RankedTensorType>(b);
  if (!at || !bt || !areCompatibleResultTypes(at, bt))
    return {};
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip_equal(at.getShape(), bt.getShape()))
    shape.push_back(ShapedType::isDynamic(x) ? y : x);
  return at.clone(shape);
}

/// Whether `value`'s type may change: all users are FX ops, or returns when
/// the function signature may follow.
bool canRefine(Value value, bool returnMayChange) {
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    return isa<FXDialect>(user->getDialect()) ||
           (returnMayChange && isa<func::ReturnOp>(user));
  });
}

/// A function's result types may follow its return operands when it has one
/// block and no callers.
bool isSignatureUpdatable(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return false;
  auto module = func->getParentOfType<ModuleOp>();
  return !module || SymbolTable::symbolKnownUseEmpty(func, module);
}

struct RefineShapesPass
    : public fx::impl::FXRefineShapesBase<RefineShapesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    bool signatureUpdatable = isSignatureUpdatable(func);
    func.walk([&](Operation *op) {
      if (!isa<FXDialect>(op->getDialect()))
        return;
      SmallVector<Type> inferred;
      if (auto convert = dyn_cast<fx::ConvertElementTypeOp>(op)) {
        // The result type names the dtype; the shape is the operand's.
        auto operand = dyn_cast<RankedTensorType>(convert.getSelf().getType());
        auto result = dyn_cast<RankedTensorType>(convert.getType());
        if (!operand || !result)
          return;
        inferred.push_back(result.clone(operand.getShape()));
      } else if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
        if (failed(infer.inferReturnTypes(
                op->getContext(), op->getLoc(), op->getOperands(),
                op->getAttrDictionary(), op->getPropertiesStorage(),
                op->getRegions(), inferred)))
          return;
      } else {
        return;
      }
      for (auto [result, type] : llvm::zip_equal(op->getResults(), inferred)) {
        RankedTensorType refined = meet(result.getType(), type);
        if (refined && refined != result.getType() &&
            canRefine(result, signatureUpdatable))
          result.setType(refined);
      }
    });
    if (signatureUpdatable)
      updateSignature(func);
  }

  /// Makes the function's result types follow refined return operands.
  void updateSignature(func::FuncOp func) {
    auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
    FunctionType type = func.getFunctionType();
    if (TypeRange(ret.getOperandTypes()) == type.getResults())
      return;
    func.setFunctionType(FunctionType::get(func.getContext(), type.getInputs(),
                                           ret.getOperandTypes()));
  }
};

} // namespace

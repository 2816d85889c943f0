//===- ElementwiseOps.cpp - verifiers and folds of elementwise FX ops -----===//

#include "fx/Dialect/FX/IR/FXOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fx;

static bool isIntegerTensor(Type type) {
  return getCategory(cast<RankedTensorType>(type).getElementType()) ==
         DtypeCategory::Integer;
}

static bool isIntegral(double value) { return std::trunc(value) == value; }

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

OpFoldResult ReluOp::fold(FoldAdaptor) {
  // relu is idempotent.
  if (auto inner = getSelf().getDefiningOp<ReluOp>())
    if (inner.getType() == getType())
      return inner.getResult();
  return {};
}

OpFoldResult NegOp::fold(FoldAdaptor) {
  // neg is an involution.
  if (auto inner = getSelf().getDefiningOp<NegOp>())
    if (inner.getSelf().getType() == getType())
      return inner.getSelf();
  return {};
}

OpFoldResult AbsOp::fold(FoldAdaptor) {
  if (auto inner = getSelf().getDefiningOp<AbsOp>())
    if (inner.getType() == getType())
      return inner.getResult();
  // abs(neg(x)) == abs(x): read x directly (an in-place fold).
  if (auto neg = getSelf().getDefiningOp<NegOp>()) {
    getSelfMutable().assign(neg.getSelf());
    return getResult();
  }
  return {};
}

LogicalResult HardtanhOp::verify() {
  if (getMinVal().convertToDouble() > getMaxVal().convertToDouble())
    return emitOpError("requires min_val <= max_val, got ")
           << getMinVal().convertToDouble() << " > "
           << getMaxVal().convertToDouble();
  return success();
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

template <typename OpTy> static LogicalResult verifyAddSub(OpTy op) {
  // ATen's alpha_check: integral (and bool) results need an integral alpha.
  double alpha = op.getAlpha().convertToDouble();
  Type element = op.getType().getElementType();
  if (getCategory(element) != DtypeCategory::Floating && !isIntegral(alpha))
    return op.emitOpError("requires an integral alpha for integer and bool "
                          "results, got ")
           << alpha;
  return success();
}

LogicalResult AddOp::verify() { return verifyAddSub(*this); }

LogicalResult SubOp::verify() {
  // ATen's sub_check rejects a bool tensor on either side.
  if (getSelf().getType().getElementType().isInteger(1) ||
      getOther().getType().getElementType().isInteger(1))
    return emitOpError("does not support bool operands, as in ATen (use "
                       "fx.ne for logical xor, or fx.eq with false to invert "
                       "a mask)");
  return verifyAddSub(*this);
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  auto cond = cast<RankedTensorType>(adaptor.getCondition().getType());
  auto self = cast<RankedTensorType>(adaptor.getSelf().getType());
  auto other = cast<RankedTensorType>(adaptor.getOther().getType());
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(emitError, self.getShape(), other.getShape());
  if (failed(shape))
    return failure();
  shape = broadcastShapes(emitError, cond.getShape(), *shape);
  if (failed(shape))
    return failure();
  results.push_back(
      RankedTensorType::get(*shape, resultElementType({self, other})));
  return success();
}

LogicalResult ClampOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  results.push_back(adaptor.getSelf().getType());
  return success();
}

LogicalResult ClampOp::verify() {
  std::optional<double> lo, hi;
  if (auto min = getMinAttr())
    lo = min.getValueAsDouble();
  if (auto max = getMaxAttr())
    hi = max.getValueAsDouble();
  if (!lo && !hi)
    return emitOpError("requires at least one of min and max");
  if (isIntegerTensor(getType()) &&
      ((lo && !isIntegral(*lo)) || (hi && !isIntegral(*hi))))
    return emitOpError("requires integral bounds for integer tensors");
  return success();
}

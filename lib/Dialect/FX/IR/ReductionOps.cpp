//===- ReductionOps.cpp - result types of reductions ----------------------===//

#include "fx/Dialect/FX/IR/FXOps.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::fx;

/// The shape after reducing `dims` (all dimensions if empty) of `input`.
static FailureOr<SmallVector<int64_t>>
inferReducedShape(const ShapeError &emitError, RankedTensorType input,
                  ArrayRef<int64_t> dims, bool keepdim) {
  int64_t rank = input.getRank();
  // A scalar has one addressable dim (0 or -1), as in ATen.
  llvm::SmallBitVector reduced(std::max<int64_t>(rank, 1), dims.empty());
  for (int64_t dim : dims) {
    FailureOr<int64_t> d = normalizeDim(emitError, "dim", dim, rank);
    if (failed(d))
      return failure();
    if (reduced.test(*d)) {
      (void)emitError("expects dim ", *d, " to appear at most once");
      return failure();
    }
    reduced.set(*d);
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.test(i))
      shape.push_back(input.getDimSize(i));
    else if (keepdim)
      shape.push_back(1);
  }
  return shape;
}

template <typename OpAdaptor>
static LogicalResult inferReduction(const ShapeError &emitError,
                                    OpAdaptor adaptor, Type elementType,
                                    SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getSelf().getType());
  FailureOr<SmallVector<int64_t>> shape = inferReducedShape(
      emitError, input, adaptor.getDim(), adaptor.getKeepdim());
  if (failed(shape))
    return failure();
  results.push_back(RankedTensorType::get(*shape, elementType));
  return success();
}

LogicalResult SumOp::inferReturnTypes(MLIRContext *ctx,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  Type element =
      cast<RankedTensorType>(adaptor.getSelf().getType()).getElementType();
  // ATen sums integers and bools in int64.
  if (std::optional<Type> dtype = adaptor.getDtype())
    element = *dtype;
  else if (getCategory(element) != DtypeCategory::Floating)
    element = IntegerType::get(ctx, 64);
  return inferReduction(ShapeError(loc, getOperationName()), adaptor, element,
                        results);
}

LogicalResult MeanOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  Type element =
      cast<RankedTensorType>(adaptor.getSelf().getType()).getElementType();
  if (std::optional<Type> dtype = adaptor.getDtype())
    element = *dtype;
  else if (getCategory(element) != DtypeCategory::Floating)
    return emitError("expects a floating-point input or dtype, got ", element);
  return inferReduction(emitError, adaptor, element, results);
}

LogicalResult AmaxOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  return inferReduction(
      ShapeError(loc, getOperationName()), adaptor,
      cast<RankedTensorType>(adaptor.getSelf().getType()).getElementType(),
      results);
}

LogicalResult AminOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  return inferReduction(
      ShapeError(loc, getOperationName()), adaptor,
      cast<RankedTensorType>(adaptor.getSelf().getType()).getElementType(),
      results);
}

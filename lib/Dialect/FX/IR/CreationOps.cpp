//===- CreationOps.cpp - constants, filled tensors, dtype conversion ------===//

#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fx;

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location>,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  results.push_back(adaptor.getValue().getType());
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

//===----------------------------------------------------------------------===//
// full, zeros, ones
//===----------------------------------------------------------------------===//

/// Whether `value` is exactly representable in the FX element type.
static bool isRepresentable(double value, Type elementType) {
  switch (getCategory(elementType)) {
  case DtypeCategory::Floating:
    return true;
  case DtypeCategory::Bool:
    return value == 0.0 || value == 1.0;
  case DtypeCategory::Integer: {
    if (std::trunc(value) != value)
      return false;
    double limit = std::ldexp(1.0, elementType.getIntOrFloatBitWidth() - 1);
    return value >= -limit && value < limit;
  }
  }
  llvm_unreachable("unknown dtype category");
}

/// A splat of `value` with type `type`, which must be static.
static DenseElementsAttr getSplat(RankedTensorType type, double value) {
  Type element = type.getElementType();
  Attribute scalar;
  if (isa<FloatType>(element))
    scalar = FloatAttr::get(element, value);
  else
    scalar = IntegerAttr::get(element, static_cast<int64_t>(value));
  return DenseElementsAttr::get(type, scalar);
}

template <typename OpTy>
static LogicalResult verifyFullLike(OpTy op, double value) {
  RankedTensorType type = op.getType();
  if (!type.hasStaticShape())
    return op.emitOpError("expects a static result shape, got ") << type;
  if (!isRepresentable(value, type.getElementType()))
    return op.emitOpError("fill value ")
           << value << " is not representable in " << type.getElementType();
  return success();
}

LogicalResult FullOp::verify() {
  return verifyFullLike(*this, getFillValue().convertToDouble());
}
LogicalResult ZerosOp::verify() { return verifyFullLike(*this, 0.0); }
LogicalResult OnesOp::verify() { return verifyFullLike(*this, 1.0); }

OpFoldResult FullOp::fold(FoldAdaptor) {
  return getSplat(getType(), getFillValue().convertToDouble());
}
OpFoldResult ZerosOp::fold(FoldAdaptor) { return getSplat(getType(), 0.0); }
OpFoldResult OnesOp::fold(FoldAdaptor) { return getSplat(getType(), 1.0); }

//===----------------------------------------------------------------------===//
// arange
//===----------------------------------------------------------------------===//

LogicalResult ArangeOp::verify() {
  double start = getStart().convertToDouble(), end = getEnd().convertToDouble(),
         step = getStep().convertToDouble();
  // Beyond 2^62 no element count or integer conversion below can overflow,
  // and no real tensor is that long.
  const double limit = std::ldexp(1.0, 62);
  for (double v : {start, end, step})
    if (!std::isfinite(v) || std::fabs(v) >= limit)
      return emitOpError("expects finite start, end and step of magnitude "
                         "below 2^62");
  RankedTensorType type = getType();
  if (type.getRank() != 1)
    return emitOpError("expects a 1-D result, got rank ") << type.getRank();
  int64_t count;
  if (getCategory(type.getElementType()) == DtypeCategory::Integer) {
    // ATen computes integer ranges in int64: the bounds and the step are
    // truncated first (arange(0, 2.5) has 2 elements as int64).
    auto s = static_cast<int64_t>(start), e = static_cast<int64_t>(end),
         st = static_cast<int64_t>(step);
    if (st == 0)
      return emitOpError("expects a non-zero step after truncation to an "
                         "integer, got ")
             << step;
    if ((e > s && st < 0) || (e < s && st > 0))
      return emitOpError("expects step ")
             << st << " to point from start " << s << " towards end " << e;
    int64_t sign = st > 0 ? 1 : -1;
    count = (e - s + st - sign) / st;
  } else {
    if (step == 0)
      return emitOpError("expects a non-zero step");
    if ((end - start) / step < 0)
      return emitOpError("expects step ") << step << " to point from start "
                                          << start << " towards end " << end;
    // ATen computes the element count in double precision.
    count = static_cast<int64_t>(std::ceil((end - start) / step));
  }
  if (type.isDynamicDim(0) || type.getDimSize(0) != count)
    return emitOpError("expects a result of ")
           << count << " elements for start " << start << ", end " << end
           << ", step " << step << ", got " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// convert_element_type
//===----------------------------------------------------------------------===//

LogicalResult ConvertElementTypeOp::verify() {
  if (!areCompatibleShapes(getSelf().getType().getShape(),
                           getType().getShape()))
    return emitOpError("expects the result shape ")
           << formatShape(getType().getShape()) << " to match the input shape "
           << formatShape(getSelf().getType().getShape());
  return success();
}

OpFoldResult ConvertElementTypeOp::fold(FoldAdaptor) {
  if (getSelf().getType() == getType())
    return getSelf();
  return {};
}

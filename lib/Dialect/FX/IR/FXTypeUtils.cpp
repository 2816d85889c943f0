//===- FXTypeUtils.cpp - broadcasting, type promotion, shape helpers ------===//

#include "fx/Dialect/FX/IR/FXTypeUtils.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fx;

DtypeCategory fx::getCategory(Type elementType) {
  if (elementType.isInteger(1))
    return DtypeCategory::Bool;
  if (isa<FloatType>(elementType))
    return DtypeCategory::Floating;
  return DtypeCategory::Integer;
}

Type fx::getDefaultFloatType(MLIRContext *ctx) { return Float32Type::get(ctx); }

Type fx::promoteTypes(Type lhs, Type rhs) {
  if (lhs == rhs)
    return lhs;
  DtypeCategory lc = getCategory(lhs), rc = getCategory(rhs);
  if (lc != rc)
    return lc > rc ? lhs : rhs;
  if (lc == DtypeCategory::Floating) {
    // f16 and bf16 have the same width but neither holds the other.
    unsigned lw = lhs.getIntOrFloatBitWidth(), rw = rhs.getIntOrFloatBitWidth();
    if (lw == rw)
      return Float32Type::get(lhs.getContext());
    return lw > rw ? lhs : rhs;
  }
  return lhs.getIntOrFloatBitWidth() >= rhs.getIntOrFloatBitWidth() ? lhs : rhs;
}

// ATen's ResultTypeState keeps one promoted dtype per priority tier and then
// combines them (c10/core/ScalarType.h: combine_categories).
static Type combineCategories(Type higher, Type lower) {
  if (!higher)
    return lower;
  if (!lower)
    return higher;
  DtypeCategory hc = getCategory(higher), lc = getCategory(lower);
  if (hc == DtypeCategory::Floating)
    return higher;
  if (hc == DtypeCategory::Bool || lc == DtypeCategory::Floating)
    return promoteTypes(higher, lower);
  return higher;
}

Type fx::resultElementType(ArrayRef<RankedTensorType> operands) {
  Type dimResult, zeroDimResult;
  for (RankedTensorType type : operands) {
    Type &tier = type.getRank() == 0 ? zeroDimResult : dimResult;
    tier = tier ? promoteTypes(tier, type.getElementType())
                : type.getElementType();
  }
  return combineCategories(dimResult, zeroDimResult);
}

FailureOr<SmallVector<int64_t>> fx::broadcastShapes(ArrayRef<int64_t> lhs,
                                                    ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align at the trailing dimension; missing leading dims act as 1.
    int64_t l = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t r = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (l == 1) {
      result[i] = r;
    } else if (r == 1) {
      result[i] = l;
    } else if (ShapedType::isDynamic(l)) {
      result[i] = r;
    } else if (ShapedType::isDynamic(r) || l == r) {
      result[i] = l;
    } else {
      return failure();
    }
  }
  return result;
}

std::optional<int64_t> fx::checkedProduct(ArrayRef<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes)
    if (llvm::MulOverflow(n, s, n))
      return std::nullopt;
  return n;
}

std::string fx::formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return s;
}

FailureOr<SmallVector<int64_t>> fx::broadcastShapes(const ShapeError &emitError,
                                                    ArrayRef<int64_t> lhs,
                                                    ArrayRef<int64_t> rhs) {
  FailureOr<SmallVector<int64_t>> result = broadcastShapes(lhs, rhs);
  if (failed(result))
    (void)emitError("operand shapes ", formatShape(lhs), " and ",
                    formatShape(rhs), " are not broadcast-compatible");
  return result;
}

FailureOr<int64_t> fx::normalizeDim(const ShapeError &emitError, StringRef what,
                                    int64_t dim, int64_t rank) {
  // ATen wraps dims of scalars as if the rank were 1.
  int64_t effectiveRank = std::max<int64_t>(rank, 1);
  if (dim < -effectiveRank || dim >= effectiveRank) {
    (void)emitError(what, " ", dim, " is out of range (expected [",
                    -effectiveRank, ", ", effectiveRank - 1, "])");
    return failure();
  }
  return dim < 0 ? dim + effectiveRank : dim;
}

std::pair<int64_t, int64_t> fx::getSliceOffsetAndLength(int64_t start,
                                                        int64_t end,
                                                        int64_t step,
                                                        int64_t size) {
  auto clamp = [&](int64_t bound) {
    if (bound < 0)
      bound = bound < -size ? 0 : bound + size;
    return std::min(bound, size);
  };
  int64_t first = clamp(start), last = clamp(end);
  return {first, last > first ? (last - first - 1) / step + 1 : 0};
}

bool fx::areCompatibleShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return a.size() == b.size() &&
         llvm::all_of(llvm::zip_equal(a, b), [](auto p) {
           return areCompatibleDims(std::get<0>(p), std::get<1>(p));
         });
}

bool fx::areCompatibleResultTypes(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [i, a] : llvm::zip_equal(inferred, actual)) {
    auto it = dyn_cast<RankedTensorType>(i);
    auto at = dyn_cast<RankedTensorType>(a);
    if (!it || !at) {
      if (i != a)
        return false;
      continue;
    }
    if (it.getElementType() != at.getElementType() ||
        !areCompatibleShapes(it.getShape(), at.getShape()))
      return false;
  }
  return true;
}

Type fx::inferUnaryResultType(Type input, UnaryPromotion promotion) {
  auto type = cast<RankedTensorType>(input);
  if (promotion == UnaryPromotion::Bool)
    return type.clone(IntegerType::get(type.getContext(), 1));
  if (promotion == UnaryPromotion::IntToFloat &&
      getCategory(type.getElementType()) != DtypeCategory::Floating)
    return type.clone(getDefaultFloatType(type.getContext()));
  return type;
}

LogicalResult fx::inferBinaryResultType(const ShapeError &emitError, Type lhs,
                                        Type rhs, BinaryPromotion promotion,
                                        SmallVectorImpl<Type> &results) {
  auto lt = cast<RankedTensorType>(lhs), rt = cast<RankedTensorType>(rhs);
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(emitError, lt.getShape(), rt.getShape());
  if (failed(shape))
    return failure();
  Type element = resultElementType({lt, rt});
  switch (promotion) {
  case BinaryPromotion::Promote:
    break;
  case BinaryPromotion::PromoteIntToFloat:
    if (getCategory(element) != DtypeCategory::Floating)
      element = getDefaultFloatType(lhs.getContext());
    break;
  case BinaryPromotion::Bool:
    element = IntegerType::get(lhs.getContext(), 1);
    break;
  }
  results.push_back(RankedTensorType::get(*shape, element));
  return success();
}

LogicalResult fx::verifyIntList(const ShapeError &emitError, StringRef name,
                                ArrayRef<int64_t> values, size_t size,
                                int64_t minValue) {
  if (values.size() != size)
    return emitError("expects ", name, " to have ", size, " entries, got ",
                     values.size());
  for (int64_t v : values)
    if (v < minValue)
      return emitError("expects ", name, " entries to be at least ", minValue,
                       ", got ", v);
  return success();
}

LogicalResult fx::verifyOperandShape(const ShapeError &emitError,
                                     StringRef name, RankedTensorType type,
                                     ArrayRef<int64_t> shape) {
  if (!areCompatibleShapes(type.getShape(), shape))
    return emitError("expects ", name, " of shape ", formatShape(shape),
                     ", got ", formatShape(type.getShape()));
  return success();
}

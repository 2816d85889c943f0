//===- FXTypeUtils.h - broadcasting and type promotion ----------*- C++ -*-===//
//
// The PyTorch typing rules the FX ops follow: broadcasting of shapes,
// torch.result_type promotion of dtypes, and dimension normalization. Result
// type inference of every op is written in terms of these, so they are the one
// place where those rules live.
//
//===----------------------------------------------------------------------===//

#ifndef FX_DIALECT_FXTYPEUTILS_H
#define FX_DIALECT_FXTYPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace mlir::fx {

/// Emits a diagnostic for op `opName` at an optional location, in the same
/// form as Operation::emitOpError. Result type inference runs both during
/// verification (with the op's location) and from builders, so it reports
/// through this rather than through an Operation.
class ShapeError {
public:
  ShapeError(std::optional<Location> loc, StringRef opName)
      : loc(loc), opName(opName) {}

  template <typename... Args> LogicalResult operator()(Args &&...args) const {
    return emitOptionalError(loc, "'", opName, "' op ",
                             std::forward<Args>(args)...);
  }

private:
  std::optional<Location> loc;
  StringRef opName;
};

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

/// ATen's dtype categories, in promotion order.
enum class DtypeCategory { Bool, Integer, Floating };

/// Returns the category of an FX element type (f32/f16/bf16, i64/i32, i1).
DtypeCategory getCategory(Type elementType);

/// torch.promote_types for two FX element types: the higher category wins;
/// within integers the wider, within floats the wider, and f16 with bf16
/// gives f32.
Type promoteTypes(Type lhs, Type rhs);

/// torch.result_type over tensor operands: ranked (rank >= 1) operands decide
/// first; rank-0 operands only matter when their category is higher, and
/// then within that category they decide the width.
Type resultElementType(ArrayRef<RankedTensorType> operands);

/// The default floating dtype (torch.get_default_dtype()), f32.
Type getDefaultFloatType(MLIRContext *ctx);

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// Broadcasts two shapes with PyTorch rules. A dynamic dimension against a
/// static `n != 1` gives `n`; against `1` or another dynamic dimension it
/// stays dynamic. Returns failure if two static sizes differ and neither is 1.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs);

/// Like broadcastShapes, reporting the first incompatible pair of dimensions
/// through `emitError`.
FailureOr<SmallVector<int64_t>> broadcastShapes(const ShapeError &emitError,
                                                ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs);

/// Maps a possibly negative dimension index into [0, rank). `what` names the
/// attribute in the diagnostic. As in ATen, a rank-0 tensor accepts dims -1
/// and 0. Ops that insert a dimension (unsqueeze, stack) pass rank + 1.
FailureOr<int64_t> normalizeDim(const ShapeError &emitError, StringRef what,
                                int64_t dim, int64_t rank);

/// Whether two static-or-dynamic sizes may be equal at run time.
inline bool areCompatibleDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Multiplies sizes, returning std::nullopt on int64 overflow. Attributes
/// can hold any int64, so shape arithmetic on them must not overflow.
std::optional<int64_t> checkedProduct(ArrayRef<int64_t> sizes);

/// Prints a shape as `[2, ?, 4]` for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);

/// Checks that the integer list attribute `name` has `size` entries, each at
/// least `minValue`.
LogicalResult verifyIntList(const ShapeError &emitError, StringRef name,
                            ArrayRef<int64_t> values, size_t size,
                            int64_t minValue);

/// Checks that operand `name` of type `type` has shape `shape` (dynamic
/// dimensions on either side match anything).
LogicalResult verifyOperandShape(const ShapeError &emitError, StringRef name,
                                 RankedTensorType type,
                                 ArrayRef<int64_t> shape);

/// Python slicing of a static dimension of `size`: the first index and the
/// number of elements of `[start:end:step]` (negative bounds count from the
/// end, out-of-range bounds clamp; `step` > 0).
std::pair<int64_t, int64_t> getSliceOffsetAndLength(int64_t start, int64_t end,
                                                    int64_t step, int64_t size);

/// Whether two shapes have the same rank and pairwise compatible dimensions.
bool areCompatibleShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b);

/// The result-type compatibility rule of every FX op: same count, same
/// element types, same ranks, and each dimension either equal or dynamic on
/// one side (so written types may refine inferred ones).
bool areCompatibleResultTypes(TypeRange inferred, TypeRange actual);

//===----------------------------------------------------------------------===//
// Shared result type inference of op families
//===----------------------------------------------------------------------===//

/// How a unary elementwise op's result dtype follows from its input's.
enum class UnaryPromotion {
  /// The result has the input dtype.
  Same,
  /// ATen's "unary float" ops: integer and bool inputs give f32.
  IntToFloat,
  /// Predicates (isnan, logical_not): the result is i1.
  Bool,
};

Type inferUnaryResultType(Type input, UnaryPromotion promotion);

/// How a binary elementwise op's result dtype follows from its operands'.
enum class BinaryPromotion {
  /// torch.result_type(self, other).
  Promote,
  /// True division: an integer or bool promoted dtype becomes f32.
  PromoteIntToFloat,
  /// Comparisons: the result is i1.
  Bool,
};

LogicalResult inferBinaryResultType(const ShapeError &emitError, Type lhs,
                                    Type rhs, BinaryPromotion promotion,
                                    SmallVectorImpl<Type> &results);

} // namespace mlir::fx

#endif // FX_DIALECT_FXTYPEUTILS_H

//===- Utils.h - helpers shared by the FX to linalg patterns ----*- C++ -*-===//

#ifndef FX_LIB_CONVERSION_FXTOLINALG_UTILS_H
#define FX_LIB_CONVERSION_FXTOLINALG_UTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fx::tolinalg {

/// The type arithmetic on `elementType` is done in: f16 and bf16 compute in
/// f32, as PyTorch's opmath_type does on the CPU, and are rounded once.
Type getComputeType(Type elementType);

/// Converts a scalar between FX element types (and f64): float widths with
/// ext/trunc, int <-> float with sign, int widths with ext/trunc, and to i1
/// as `!= 0` (NaN is true, as in PyTorch).
Value convertScalar(OpBuilder &b, Location loc, Value value, Type to);

/// A scalar constant of int, float or i1 `type` holding `value`.
Value createScalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// The identity of max (the lowest value) or min (the highest) for `type`.
Value createExtremeConstant(OpBuilder &b, Location loc, Type type, bool lowest);

/// Scalar arithmetic on any FX compute type: float ops for floats, signed
/// integer ops for integers, and the logical meaning for i1 (add and max are
/// `or`, mul and min are `and`). max/min propagate NaN, like PyTorch.
Value createAdd(OpBuilder &b, Location loc, Value x, Value y);
Value createSub(OpBuilder &b, Location loc, Value x, Value y);
Value createMul(OpBuilder &b, Location loc, Value x, Value y);
/// `fastmath` applies to floats only.
Value createMaximum(OpBuilder &b, Location loc, Value x, Value y,
                    arith::FastMathFlags fastmath = arith::FastMathFlags::none);
Value createMinimum(OpBuilder &b, Location loc, Value x, Value y,
                    arith::FastMathFlags fastmath = arith::FastMathFlags::none);

/// The fast-math flags of a clamp by a constant (relu, relu6/hardtanh,
/// clamp, hardsigmoid's clamps), for createMaximum/createMinimum: `nsz`,
/// which keeps NaN propagating (relu(NaN) is NaN, as in PyTorch) but may
/// give either sign of a zero result. With one operand a constant that is
/// not NaN, x86 then computes it as one vmaxps/vminps with the constant
/// first (MAXPS returns its second operand when either is NaN): ReLU was
/// three instructions (max, an unordered compare, a masked move) in every
/// convolution epilogue, ReLU6 six.
constexpr arith::FastMathFlags kClampFastMath = arith::FastMathFlags::nsz;

/// The maximum a softmax (or log_softmax, attention) subtracts from its row
/// before the exponential: `arith.maxnumf` with `nsz`, which ignores NaN and
/// the sign of zero, where `createMaximum` propagates NaN and orders -0
/// below +0. The outputs are the same: a NaN in the row makes its own
/// exponential NaN, so the row's sum and every output are NaN either way,
/// and x - (+0) equals x - (-0) for every x but zero, whose exponential is
/// 1 either way. What it saves: on x86 a NaN-propagating, zero-ordering
/// vector max is six instructions, this one three (a 4096x4096 softmax on
/// one Zen 5 thread, five alternated rounds: medians 4.59-4.81 -> 4.06-4.64
/// ms).
Value createShiftMaximum(OpBuilder &b, Location loc, Value x, Value y);

/// `x * (1 / d)` for a float `d` that is the same across a row (a softmax's
/// sum): the reciprocal does not depend on the row's elements, so the
/// compiled loop divides once per row and multiplies each element, as
/// PyTorch's CPU softmax does (a 4096x4096 softmax on one Zen 5 thread, 5.69
/// -> 5.57 ms). The result is within an ulp or two of `x / d`.
Value scaleByReciprocal(OpBuilder &b, Location loc, Value x, Value d);

/// `tensor.empty` of `type`, taking dynamic sizes from `sizes` (one entry per
/// dimension; only the dynamic ones are read).
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                  ArrayRef<OpFoldResult> sizes);

/// `tensor.empty` of `type` filled with `value`.
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<OpFoldResult> sizes, Value value);

/// Computes the body of an elementwise op from its scalar arguments.
using ScalarBody =
    function_ref<Value(OpBuilder &b, Location loc, ValueRange args)>;

/// Builds a `linalg.generic` computing `body` over `inputs` broadcast to
/// `resultType` with PyTorch rules. Static size-1 dimensions broadcast through
/// a constant-0 index. A dynamic dimension is assumed not to broadcast; a
/// `cf.assert` checks it against the other operands at run time, naming
/// `op`. Inputs may be tensors of any rank up to the result's.
Value createElementwise(OpBuilder &b, Location loc, Operation *op,
                        ValueRange inputs, RankedTensorType resultType,
                        ScalarBody body);

/// Builds an all-parallel `linalg.generic` producing `resultType` (identity
/// output map, dynamic sizes from `resultSizes`) from `inputs` read through
/// `inputMaps`.
Value createGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                    ArrayRef<AffineMap> inputMaps, RankedTensorType resultType,
                    ArrayRef<OpFoldResult> resultSizes, ScalarBody body);

/// Combines an element (already in the accumulator type) into the
/// accumulator.
using Combiner =
    function_ref<Value(OpBuilder &b, Location loc, Value element, Value acc)>;

/// Reduces `input` over the sorted dimensions `dims` into a tensor of
/// `accType` without them, starting from `init`. Elements are converted to
/// `accType` before `combine`.
Value createReduction(OpBuilder &b, Location loc, Value input,
                      ArrayRef<int64_t> dims, Type accType, Value init,
                      Combiner combine);

/// The map from the full iteration space of rank `rank` to the dimensions
/// that remain after removing the sorted `dims`.
AffineMap getDropDimsMap(MLIRContext *ctx, int64_t rank,
                         ArrayRef<int64_t> dims);

/// The product of the sizes of `dims` of `value`, as an index value.
Value getElementCount(OpBuilder &b, Location loc, Value value,
                      ArrayRef<int64_t> dims);

/// Reshapes `input` (same number of elements) to `resultType`, whose dynamic
/// sizes come from `resultSizes`: collapse to 1-D, then expand. Both are
/// views, so this costs no copy after bufferization. (same number of elements)
/// to `resultType`, whose dynamic sizes come from `resultSizes`: collapse to
/// 1-D, then expand. Both are views, so this costs no copy after bufferization.
Value reshapeTo(OpBuilder &b, Location loc, Value input,
                RankedTensorType resultType,
                ArrayRef<OpFoldResult> resultSizes);

/// The sizes of `value`'s dimensions, static as attributes and dynamic as
/// `tensor.dim` values.
SmallVector<OpFoldResult> getSizes(OpBuilder &b, Location loc, Value value);

/// Converts every element of `input` to `elementType`.
Value convertTensor(OpBuilder &b, Location loc, Operation *op, Value input,
                    Type elementType);

/// Pads `input` with `value` by `low`/`high` elements per dimension (no-op if
/// all are zero).
Value padTensor(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
                ArrayRef<int64_t> high, Value value);

/// The index value of a size.
Value getIndexValue(OpBuilder &b, Location loc, OpFoldResult size);

} // namespace mlir::fx::tolinalg

#endif // FX_LIB_CONVERSION_FXTOLINALG_UTILS_H

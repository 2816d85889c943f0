//===- NNOps.cpp - convolution, pooling, normalization, attention ---------===//

#include "fx/Dialect/FX/IR/FXOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::fx;

// Output sizes combine int64 attributes (sizes, strides, padding, dilation)
// with products and sums that can exceed int64 for absurd but parseable
// values; 128-bit intermediates hold all of them exactly.
using Wide = __int128;

static Wide floorDiv(Wide a, Wide b) {
  Wide q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Checks that a computed output size is a positive int64.
static FailureOr<int64_t> checkOutputSize(const ShapeError &emitError, Wide out,
                                          size_t dim, int64_t in,
                                          int64_t kernel) {
  if (out < 1 || out > std::numeric_limits<int64_t>::max()) {
    (void)emitError("computed output size ",
                    out < 1 ? "is less than 1" : "overflows int64",
                    " in spatial dimension ", dim, " (input ", in, ", kernel ",
                    kernel, ")");
    return failure();
  }
  return static_cast<int64_t>(out);
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  int64_t rank = input.getRank();
  if (rank < 3 || rank > 5)
    return emitError("expects input of rank 3, 4 or 5 ([N, C, *spatial]), "
                     "got rank ",
                     rank);
  if (weight.getRank() != rank)
    return emitError("expects weight of rank ", rank, ", got rank ",
                     weight.getRank());
  if (input.getElementType() != weight.getElementType())
    return emitError("expects input and weight to have the same dtype, got ",
                     input.getElementType(), " and ", weight.getElementType());
  size_t spatial = rank - 2;
  ArrayRef<int64_t> stride = adaptor.getStride(),
                    padding = adaptor.getPadding(),
                    dilation = adaptor.getDilation(),
                    outputPadding = adaptor.getOutputPadding();
  if (failed(verifyIntList(emitError, "stride", stride, spatial, 1)) ||
      failed(verifyIntList(emitError, "padding", padding, spatial, 0)) ||
      failed(verifyIntList(emitError, "dilation", dilation, spatial, 1)) ||
      failed(verifyIntList(emitError, "output_padding", outputPadding, spatial,
                           0)))
    return failure();
  int64_t groups = adaptor.getGroups();
  if (groups < 1)
    return emitError("expects groups to be at least 1, got ", groups);
  bool transposed = adaptor.getTransposed();

  // Channel bookkeeping; dynamic channel counts are not checked.
  int64_t inChannels = input.getDimSize(1);
  int64_t w0 = weight.getDimSize(0), w1 = weight.getDimSize(1);
  int64_t weightInChannels = transposed ? w0 : w1 * groups;
  if (ShapedType::isStatic(w0) && w0 % groups != 0)
    return emitError("expects weight dimension 0 (", w0,
                     ") to be divisible by groups (", groups, ")");
  if (ShapedType::isStatic(inChannels) && ShapedType::isStatic(w0) &&
      ShapedType::isStatic(w1) && inChannels != weightInChannels)
    return emitError("expects ", inChannels, " input channels to match ",
                     transposed ? "weight dimension 0"
                                : "weight dimension 1 "
                                  "times groups",
                     " (", weightInChannels, ")");
  int64_t outChannels =
      transposed
          ? (ShapedType::isDynamic(w1) ? ShapedType::kDynamic : w1 * groups)
          : w0;
  if (Value bias = adaptor.getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (failed(verifyOperandShape(emitError, "bias", biasType, {outChannels})))
      return failure();
    if (biasType.getElementType() != input.getElementType())
      return emitError("expects bias to have the dtype of input, got ",
                       biasType.getElementType(), " and ",
                       input.getElementType());
  }

  SmallVector<int64_t> shape = {input.getDimSize(0), outChannels};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t in = input.getDimSize(i + 2), k = weight.getDimSize(i + 2);
    if (transposed && outputPadding[i] >= std::max(stride[i], dilation[i]))
      return emitError("expects output_padding (", outputPadding[i],
                       ") to be smaller than stride or dilation in spatial "
                       "dimension ",
                       i);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(k)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    Wide s = stride[i], p = padding[i], d = dilation[i];
    Wide out = transposed
                   ? (Wide(in) - 1) * s - 2 * p + d * (Wide(k) - 1) +
                         outputPadding[i] + 1
                   : floorDiv(Wide(in) + 2 * p - d * (Wide(k) - 1) - 1, s) + 1;
    FailureOr<int64_t> size = checkOutputSize(emitError, out, i, in, k);
    if (failed(size))
      return failure();
    shape.push_back(*size);
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Output size of one pooled dimension, as ATen's pooling_output_shape.
static Wide poolOutputSize(Wide in, Wide k, Wide pad, Wide stride,
                           Wide dilation, bool ceilMode) {
  Wide out = floorDiv(in + 2 * pad - dilation * (k - 1) - 1 +
                          (ceilMode ? stride - 1 : 0),
                      stride) +
             1;
  // In ceil mode the last window must start inside the input or the left
  // padding.
  if (ceilMode && (out - 1) * stride >= in + pad)
    --out;
  return out;
}

/// Shape inference shared by the 2-d pooling ops. `dilation` is empty for
/// average pooling, which has none.
static FailureOr<SmallVector<int64_t>>
inferPool2dShape(const ShapeError &emitError, RankedTensorType input,
                 ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                 ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                 bool ceilMode) {
  if (input.getRank() != 3 && input.getRank() != 4) {
    (void)emitError("expects input of rank 3 or 4 ([C, H, W] or [N, C, H, "
                    "W]), got rank ",
                    input.getRank());
    return failure();
  }
  bool hasDilation = !dilation.empty();
  if (failed(verifyIntList(emitError, "kernel_size", kernel, 2, 1)) ||
      failed(verifyIntList(emitError, "stride", stride, 2, 1)) ||
      failed(verifyIntList(emitError, "padding", padding, 2, 0)) ||
      (hasDilation &&
       failed(verifyIntList(emitError, "dilation", dilation, 2, 1))))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  int64_t spatial0 = input.getRank() - 2;
  for (int64_t i = 0; i < 2; ++i) {
    int64_t d = hasDilation ? dilation[i] : 1;
    Wide effectiveKernel = Wide(d) * (kernel[i] - 1) + 1;
    if (padding[i] > effectiveKernel / 2) {
      (void)emitError("expects padding (", padding[i],
                      ") to be at most half of the effective kernel size (",
                      static_cast<int64_t>(effectiveKernel), ")");
      return failure();
    }
    int64_t in = input.getDimSize(spatial0 + i);
    if (ShapedType::isDynamic(in))
      continue;
    FailureOr<int64_t> out = checkOutputSize(
        emitError,
        poolOutputSize(in, kernel[i], padding[i], stride[i], d, ceilMode), i,
        in, kernel[i]);
    if (failed(out))
      return failure();
    shape[spatial0 + i] = *out;
  }
  return shape;
}

LogicalResult MaxPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getSelf().getType());
  FailureOr<SmallVector<int64_t>> shape = inferPool2dShape(
      ShapeError(loc, getOperationName()), input, adaptor.getKernelSize(),
      adaptor.getStride(), adaptor.getPadding(), adaptor.getDilation(),
      adaptor.getCeilMode());
  if (failed(shape))
    return failure();
  results.push_back(input.clone(*shape));
  return success();
}

LogicalResult MaxPool2dWithIndicesOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  auto input = cast<RankedTensorType>(adaptor.getSelf().getType());
  FailureOr<SmallVector<int64_t>> shape = inferPool2dShape(
      ShapeError(loc, getOperationName()), input, adaptor.getKernelSize(),
      adaptor.getStride(), adaptor.getPadding(), adaptor.getDilation(),
      adaptor.getCeilMode());
  if (failed(shape))
    return failure();
  results.push_back(input.clone(*shape));
  results.push_back(RankedTensorType::get(*shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult AvgPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  if (std::optional<int64_t> divisor = adaptor.getDivisorOverride();
      divisor && *divisor == 0)
    return emitError("expects a non-zero divisor_override");
  auto input = cast<RankedTensorType>(adaptor.getSelf().getType());
  FailureOr<SmallVector<int64_t>> shape = inferPool2dShape(
      emitError, input, adaptor.getKernelSize(), adaptor.getStride(),
      adaptor.getPadding(), /*dilation=*/{}, adaptor.getCeilMode());
  if (failed(shape))
    return failure();
  results.push_back(input.clone(*shape));
  return success();
}

LogicalResult AdaptiveAvgPool2dOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  auto input = cast<RankedTensorType>(adaptor.getSelf().getType());
  if (input.getRank() != 3 && input.getRank() != 4)
    return emitError("expects input of rank 3 or 4 ([C, H, W] or [N, C, H, "
                     "W]), got rank ",
                     input.getRank());
  ArrayRef<int64_t> outputSize = adaptor.getOutputSize();
  if (failed(verifyIntList(emitError, "output_size", outputSize, 2, 1)))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  shape[shape.size() - 2] = outputSize[0];
  shape[shape.size() - 1] = outputSize[1];
  results.push_back(input.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

static LogicalResult verifyEps(const ShapeError &emitError, double eps) {
  if (!(eps >= 0))
    return emitError("expects a non-negative eps, got ", eps);
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (input.getRank() < 2)
    return emitError("expects input of rank at least 2 ([N, C, ...]), got "
                     "rank ",
                     input.getRank());
  if (failed(verifyEps(emitError, adaptor.getEps().convertToDouble())))
    return failure();
  int64_t channels = input.getDimSize(1);
  std::pair<StringRef, Value> params[] = {
      {"running_mean", adaptor.getRunningMean()},
      {"running_var", adaptor.getRunningVar()},
      {"weight", adaptor.getWeight()},
      {"bias", adaptor.getBias()}};
  for (auto [name, value] : params)
    if (value && failed(verifyOperandShape(
                     emitError, name, cast<RankedTensorType>(value.getType()),
                     {channels})))
      return failure();
  results.push_back(input);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> normalized = adaptor.getNormalizedShape();
  if (normalized.empty())
    return emitError("expects a non-empty normalized_shape");
  if (failed(verifyIntList(emitError, "normalized_shape", normalized,
                           normalized.size(), 0)))
    return failure();
  if (failed(verifyEps(emitError, adaptor.getEps().convertToDouble())))
    return failure();
  int64_t n = normalized.size();
  if (input.getRank() < n ||
      !areCompatibleShapes(input.getShape().take_back(n), normalized))
    return emitError("expects the trailing dimensions of input ",
                     formatShape(input.getShape()), " to be normalized_shape ",
                     formatShape(normalized));
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"weight", adaptor.getWeight()},
        {"bias", adaptor.getBias()}})
    if (value && failed(verifyOperandShape(
                     emitError, name, cast<RankedTensorType>(value.getType()),
                     normalized)))
      return failure();
  results.push_back(input);
  return success();
}

//===----------------------------------------------------------------------===//
// Embedding and attention
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  if (weight.getRank() != 2)
    return emitError("expects weight of rank 2 ([num_embeddings, "
                     "embedding_dim]), got rank ",
                     weight.getRank());
  int64_t padding = adaptor.getPaddingIdx(), rows = weight.getDimSize(0);
  if (padding != -1 && ShapedType::isStatic(rows) &&
      (padding < -rows || padding >= rows))
    return emitError("padding_idx ", padding, " is out of range for ", rows,
                     " embeddings");
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(weight.getDimSize(1));
  results.push_back(RankedTensorType::get(shape, weight.getElementType()));
  return success();
}

LogicalResult ScaledDotProductAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  auto q = cast<RankedTensorType>(adaptor.getQuery().getType());
  auto k = cast<RankedTensorType>(adaptor.getKey().getType());
  auto v = cast<RankedTensorType>(adaptor.getValue().getType());
  int64_t rank = q.getRank();
  if (rank < 2)
    return emitError("expects query of rank at least 2 ([..., L, E]), got "
                     "rank ",
                     rank);
  if (k.getRank() != rank || v.getRank() != rank)
    return emitError("expects query, key and value to have the same rank");
  if (q.getElementType() != k.getElementType() ||
      q.getElementType() != v.getElementType())
    return emitError("expects query, key and value to have the same dtype");
  SmallVector<int64_t> batch;
  for (int64_t i = 0; i < rank - 2; ++i) {
    int64_t qd = q.getDimSize(i), kd = k.getDimSize(i), vd = v.getDimSize(i);
    if (!areCompatibleDims(qd, kd) || !areCompatibleDims(qd, vd) ||
        !areCompatibleDims(kd, vd))
      return emitError("expects query, key and value to have the same batch "
                       "dimensions, dimension ",
                       i, " differs");
    batch.push_back(ShapedType::isStatic(qd)   ? qd
                    : ShapedType::isStatic(kd) ? kd
                                               : vd);
  }
  int64_t l = q.getDimSize(rank - 2), e = q.getDimSize(rank - 1);
  int64_t s = k.getDimSize(rank - 2);
  if (!areCompatibleDims(e, k.getDimSize(rank - 1)))
    return emitError("expects query and key to have the same embedding size, "
                     "got ",
                     e, " and ", k.getDimSize(rank - 1));
  if (!areCompatibleDims(s, v.getDimSize(rank - 2)))
    return emitError("expects key and value to have the same sequence "
                     "length, got ",
                     s, " and ", v.getDimSize(rank - 2));
  if (adaptor.getDropoutP().convertToDouble() != 0.0)
    return emitError("supports only dropout_p = 0 (inference)");
  if (Value mask = adaptor.getAttnMask()) {
    if (adaptor.getIsCausal())
      return emitError("expects either attn_mask or is_causal, not both");
    auto maskType = cast<RankedTensorType>(mask.getType());
    if (!maskType.getElementType().isInteger(1) &&
        maskType.getElementType() != q.getElementType())
      return emitError("expects attn_mask of dtype i1 or the query dtype, got ",
                       maskType.getElementType());
    SmallVector<int64_t> scores(batch);
    scores.append({l, s});
    FailureOr<SmallVector<int64_t>> joined =
        broadcastShapes(maskType.getShape(), scores);
    if (failed(joined) || joined->size() != scores.size())
      return emitError("expects attn_mask ", formatShape(maskType.getShape()),
                       " to broadcast to the attention scores ",
                       formatShape(scores));
  }
  SmallVector<int64_t> shape(batch);
  shape.append({l, v.getDimSize(rank - 1)});
  results.push_back(RankedTensorType::get(shape, q.getElementType()));
  return success();
}

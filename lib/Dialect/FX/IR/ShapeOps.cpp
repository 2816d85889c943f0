//===- ShapeOps.cpp - result types and folds of shape ops -----------------===//

#include "fx/Dialect/FX/IR/FXOps.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fx;

static RankedTensorType getTensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Folds `op` to its operand when nothing changes, i.e. the types match.
template <typename OpTy> static OpFoldResult foldToOperandIfSameType(OpTy op) {
  if (op.getSelf().getType() == op.getType())
    return op.getSelf();
  return {};
}

/// Multiplies static sizes; dynamic if any is dynamic. Tensor types bound
/// the product of their static sizes, so this cannot overflow.
static int64_t productOf(ArrayRef<int64_t> sizes) {
  if (llvm::any_of(sizes, ShapedType::isDynamic))
    return ShapedType::kDynamic;
  return checkedProduct(sizes).value_or(ShapedType::kDynamic);
}

static LogicalResult requireRankAtLeast1(const ShapeError &emitError,
                                         RankedTensorType type) {
  if (type.getRank() < 1)
    return emitError("expects a tensor of rank at least 1");
  return success();
}

//===----------------------------------------------------------------------===//
// view
//===----------------------------------------------------------------------===//

LogicalResult ViewOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  RankedTensorType input = getTensorType(adaptor.getSelf());
  SmallVector<int64_t> shape(adaptor.getSize());
  std::optional<size_t> inferred;
  SmallVector<int64_t> explicitSizes;
  for (auto [i, s] : llvm::enumerate(shape)) {
    if (s == -1) {
      if (inferred)
        return emitError("expects at most one -1 in size");
      inferred = i;
      continue;
    }
    if (s < 0)
      return emitError("expects size entries to be at least -1, got ", s);
    explicitSizes.push_back(s);
  }
  std::optional<int64_t> product = checkedProduct(explicitSizes);
  if (!product)
    return emitError("size ", formatShape(adaptor.getSize()),
                     " has more elements than int64 can count");
  int64_t known = *product;
  int64_t numel = productOf(input.getShape());
  if (inferred) {
    shape[*inferred] = ShapedType::kDynamic;
    if (ShapedType::isStatic(numel)) {
      if (known == 0 || numel % known != 0)
        return emitError("shape ", formatShape(adaptor.getSize()),
                         " is invalid for input of size ", numel);
      shape[*inferred] = numel / known;
    }
  } else if (ShapedType::isStatic(numel) && numel != known) {
    return emitError("shape ", formatShape(adaptor.getSize()),
                     " is invalid for input of size ", numel);
  }
  results.push_back(input.clone(shape));
  return success();
}

OpFoldResult ViewOp::fold(FoldAdaptor) {
  if (OpFoldResult same = foldToOperandIfSameType(*this))
    return same;
  // A view of a view is a view of the original tensor.
  if (auto inner = getSelf().getDefiningOp<ViewOp>()) {
    getSelfMutable().assign(inner.getSelf());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// t, transpose, permute
//===----------------------------------------------------------------------===//

LogicalResult TOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &results) {
  RankedTensorType input = getTensorType(adaptor.getSelf());
  if (input.getRank() > 2)
    return ShapeError(loc, getOperationName())(
        "expects a tensor of rank at most 2, got rank ", input.getRank());
  SmallVector<int64_t> shape(llvm::reverse(input.getShape()));
  results.push_back(input.clone(shape));
  return success();
}

OpFoldResult TOp::fold(FoldAdaptor) {
  if (getSelf().getType().getRank() < 2)
    return foldToOperandIfSameType(*this);
  if (auto inner = getSelf().getDefiningOp<TOp>())
    if (inner.getSelf().getType() == getType())
      return inner.getSelf();
  return {};
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  RankedTensorType input = getTensorType(adaptor.getSelf());
  FailureOr<int64_t> d0 =
      normalizeDim(emitError, "dim0", adaptor.getDim0(), input.getRank());
  if (failed(d0))
    return failure();
  FailureOr<int64_t> d1 =
      normalizeDim(emitError, "dim1", adaptor.getDim1(), input.getRank());
  if (failed(d1))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  if (!shape.empty())
    std::swap(shape[*d0], shape[*d1]);
  results.push_back(input.clone(shape));
  return success();
}

/// The two dimensions a transpose swaps, normalized and ordered.
static std::pair<int64_t, int64_t> getSwappedDims(TransposeOp op) {
  int64_t rank = std::max<int64_t>(op.getSelf().getType().getRank(), 1);
  int64_t a = (op.getDim0() + rank) % rank, b = (op.getDim1() + rank) % rank;
  return {std::min(a, b), std::max(a, b)};
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto [a, b] = getSwappedDims(*this);
  if (a == b)
    return foldToOperandIfSameType(*this);
  if (auto inner = getSelf().getDefiningOp<TransposeOp>())
    if (getSwappedDims(inner) == std::make_pair(a, b) &&
        inner.getSelf().getType() == getType())
      return inner.getSelf();
  return {};
}

/// Normalizes a permutation attribute; fails with a diagnostic if it is not
/// a permutation of [0, rank).
static FailureOr<SmallVector<int64_t>>
normalizePermutation(const ShapeError &emitError, ArrayRef<int64_t> dims,
                     int64_t rank) {
  if (static_cast<int64_t>(dims.size()) != rank) {
    (void)emitError("expects dims to have ", rank, " entries, got ",
                    dims.size());
    return failure();
  }
  SmallVector<int64_t> perm;
  llvm::SmallBitVector seen(rank);
  for (int64_t dim : dims) {
    FailureOr<int64_t> d = normalizeDim(emitError, "dim", dim, rank);
    if (failed(d))
      return failure();
    if (seen.test(*d)) {
      (void)emitError("expects dims to be a permutation, but ", *d,
                      " appears twice");
      return failure();
    }
    seen.set(*d);
    perm.push_back(*d);
  }
  return perm;
}

LogicalResult PermuteOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType input = getTensorType(adaptor.getSelf());
  FailureOr<SmallVector<int64_t>> perm = normalizePermutation(
      ShapeError(loc, getOperationName()), adaptor.getDims(), input.getRank());
  if (failed(perm))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d : *perm)
    shape.push_back(input.getDimSize(d));
  results.push_back(input.clone(shape));
  return success();
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  int64_t rank = getSelf().getType().getRank();
  auto normalize = [&](ArrayRef<int64_t> dims) {
    return llvm::map_to_vector(dims,
                               [&](int64_t d) { return (d + rank) % rank; });
  };
  SmallVector<int64_t> perm = normalize(getDims());
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto p) {
    return static_cast<int64_t>(p.index()) == p.value();
  });
  if (identity)
    return foldToOperandIfSameType(*this);
  // permute(permute(x, inner), outer) == permute(x, inner[outer[i]]).
  if (auto inner = getSelf().getDefiningOp<PermuteOp>()) {
    SmallVector<int64_t> innerPerm = normalize(inner.getDims());
    SmallVector<int64_t> composed =
        llvm::map_to_vector(perm, [&](int64_t d) { return innerPerm[d]; });
    getSelfMutable().assign(inner.getSelf());
    setDims(composed);
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// expand, squeeze, unsqueeze, flatten
//===----------------------------------------------------------------------===//

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  RankedTensorType input = getTensorType(adaptor.getSelf());
  ArrayRef<int64_t> size = adaptor.getSize();
  int64_t rank = input.getRank(), newDims = size.size() - rank;
  if (newDims < 0)
    return emitError("expects size to have at least ", rank, " entries, got ",
                     size.size());
  SmallVector<int64_t> shape;
  for (auto [i, s] : llvm::enumerate(size)) {
    if (s < -1)
      return emitError("expects size entries to be at least -1, got ", s);
    int64_t idx = i;
    if (idx < newDims) {
      if (s == -1)
        return emitError("expects an explicit size for new leading dimension ",
                         idx);
      shape.push_back(s);
      continue;
    }
    int64_t in = input.getDimSize(idx - newDims);
    if (s == -1) {
      shape.push_back(in);
      continue;
    }
    if (ShapedType::isStatic(in) && in != 1 && in != s)
      return emitError("cannot expand dimension ", idx - newDims, " of size ",
                       in, " to ", s);
    shape.push_back(s);
  }
  results.push_back(input.clone(shape));
  return success();
}

OpFoldResult ExpandOp::fold(FoldAdaptor) {
  return foldToOperandIfSameType(*this);
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  RankedTensorType input = getTensorType(adaptor.getSelf());
  int64_t rank = input.getRank();
  llvm::SmallBitVector candidates(rank, !adaptor.getDim());
  if (std::optional<ArrayRef<int64_t>> dims = adaptor.getDim()) {
    for (int64_t dim : *dims) {
      FailureOr<int64_t> d = normalizeDim(emitError, "dim", dim, rank);
      if (failed(d))
        return failure();
      if (rank > 0)
        candidates.set(*d);
    }
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t s = input.getDimSize(i);
    if (candidates.test(i) && ShapedType::isDynamic(s))
      return emitError("expects dimension ", i,
                       " to be static: whether it is squeezed decides the "
                       "result rank");
    if (!candidates.test(i) || s != 1)
      shape.push_back(s);
  }
  results.push_back(input.clone(shape));
  return success();
}

OpFoldResult SqueezeOp::fold(FoldAdaptor) {
  return foldToOperandIfSameType(*this);
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  RankedTensorType input = getTensorType(adaptor.getSelf());
  FailureOr<int64_t> d =
      normalizeDim(ShapeError(loc, getOperationName()), "dim", adaptor.getDim(),
                   input.getRank() + 1);
  if (failed(d))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  shape.insert(shape.begin() + *d, 1);
  results.push_back(input.clone(shape));
  return success();
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  RankedTensorType input = getTensorType(adaptor.getSelf());
  int64_t rank = input.getRank();
  FailureOr<int64_t> start =
      normalizeDim(emitError, "start_dim", adaptor.getStartDim(), rank);
  if (failed(start))
    return failure();
  FailureOr<int64_t> end =
      normalizeDim(emitError, "end_dim", adaptor.getEndDim(), rank);
  if (failed(end))
    return failure();
  if (*start > *end)
    return emitError("expects start_dim (", *start, ") <= end_dim (", *end,
                     ")");
  if (rank == 0) {
    results.push_back(input.clone({1}));
    return success();
  }
  ArrayRef<int64_t> in = input.getShape();
  SmallVector<int64_t> shape(in.take_front(*start));
  shape.push_back(productOf(in.slice(*start, *end - *start + 1)));
  llvm::append_range(shape, in.drop_front(*end + 1));
  results.push_back(input.clone(shape));
  return success();
}

OpFoldResult FlattenOp::fold(FoldAdaptor) {
  return foldToOperandIfSameType(*this);
}

//===----------------------------------------------------------------------===//
// slice, select
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  RankedTensorType input = getTensorType(adaptor.getSelf());
  if (failed(requireRankAtLeast1(emitError, input)))
    return failure();
  FailureOr<int64_t> dim =
      normalizeDim(emitError, "dim", adaptor.getDim(), input.getRank());
  if (failed(dim))
    return failure();
  int64_t step = adaptor.getStep();
  if (step < 1)
    return emitError("expects a positive step, got ", step);
  SmallVector<int64_t> shape(input.getShape());
  int64_t size = shape[*dim];
  if (ShapedType::isStatic(size))
    shape[*dim] = getSliceOffsetAndLength(adaptor.getStart(), adaptor.getEnd(),
                                          step, size)
                      .second;
  results.push_back(input.clone(shape));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getStep() != 1 || getSelf().getType() != getType())
    return {};
  int64_t rank = getType().getRank();
  int64_t size = getType().getDimSize((getDim() + rank) % rank);
  bool whole =
      ShapedType::isStatic(size)
          ? getSliceOffsetAndLength(getStart(), getEnd(), 1, size) ==
                std::pair<int64_t, int64_t>(0, size)
          : getStart() == 0 && getEnd() == std::numeric_limits<int64_t>::max();
  return whole ? getSelf() : OpFoldResult();
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  RankedTensorType input = getTensorType(adaptor.getSelf());
  if (failed(requireRankAtLeast1(emitError, input)))
    return failure();
  FailureOr<int64_t> dim =
      normalizeDim(emitError, "dim", adaptor.getDim(), input.getRank());
  if (failed(dim))
    return failure();
  int64_t size = input.getDimSize(*dim), index = adaptor.getIndex();
  if (ShapedType::isStatic(size) && (index < -size || index >= size))
    return emitError("index ", index, " is out of range for dimension ", *dim,
                     " of size ", size);
  SmallVector<int64_t> shape(input.getShape());
  shape.erase(shape.begin() + *dim);
  results.push_back(input.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// cat, stack, split
//===----------------------------------------------------------------------===//

static SmallVector<RankedTensorType> getTensorTypes(ValueRange values) {
  return llvm::map_to_vector(values, getTensorType);
}

LogicalResult CatOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  SmallVector<RankedTensorType> types = getTensorTypes(adaptor.getTensors());
  if (types.empty())
    return emitError("expects at least one tensor");
  if (failed(requireRankAtLeast1(emitError, types.front())))
    return failure();
  int64_t rank = types.front().getRank();
  FailureOr<int64_t> dim =
      normalizeDim(emitError, "dim", adaptor.getDim(), rank);
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(types.front().getShape());
  for (auto [i, type] : llvm::enumerate(types)) {
    if (type.getRank() != rank)
      return emitError("expects all tensors to have rank ", rank,
                       ", but tensor ", i, " has rank ", type.getRank());
    if (i == 0)
      continue;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t s = type.getDimSize(d);
      if (d == *dim) {
        shape[d] = ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(s)
                       ? ShapedType::kDynamic
                       : shape[d] + s;
      } else if (!areCompatibleDims(shape[d], s)) {
        return emitError("expects tensor ", i, " to match dimension ", d,
                         " of the others (", shape[d], "), got ", s);
      } else if (ShapedType::isDynamic(shape[d])) {
        shape[d] = s;
      }
    }
  }
  results.push_back(RankedTensorType::get(shape, resultElementType(types)));
  return success();
}

OpFoldResult CatOp::fold(FoldAdaptor) {
  if (getTensors().size() == 1 && getTensors().front().getType() == getType())
    return getTensors().front();
  return {};
}

LogicalResult StackOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  SmallVector<RankedTensorType> types = getTensorTypes(adaptor.getTensors());
  if (types.empty())
    return emitError("expects at least one tensor");
  SmallVector<int64_t> shape(types.front().getShape());
  for (auto [i, type] : llvm::enumerate(types)) {
    if (!areCompatibleShapes(shape, type.getShape()))
      return emitError("expects all tensors to have the same shape, but "
                       "tensor ",
                       i, " has shape ", formatShape(type.getShape()),
                       " and tensor 0 ", formatShape(shape));
    for (auto [s, t] : llvm::zip_equal(shape, type.getShape()))
      if (ShapedType::isDynamic(s))
        s = t;
  }
  FailureOr<int64_t> dim = normalizeDim(emitError, "dim", adaptor.getDim(),
                                        types.front().getRank() + 1);
  if (failed(dim))
    return failure();
  shape.insert(shape.begin() + *dim, types.size());
  results.push_back(RankedTensorType::get(shape, resultElementType(types)));
  return success();
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  ShapeError emitError(loc, getOperationName());
  RankedTensorType input = getTensorType(adaptor.getSelf());
  if (failed(requireRankAtLeast1(emitError, input)))
    return failure();
  FailureOr<int64_t> dim =
      normalizeDim(emitError, "dim", adaptor.getDim(), input.getRank());
  if (failed(dim))
    return failure();
  ArrayRef<int64_t> sizes = adaptor.getSplitSizes();
  if (sizes.empty())
    return emitError("expects at least one split size");
  if (failed(verifyIntList(emitError, "split_sizes", sizes, sizes.size(), 0)))
    return failure();
  int64_t total = 0;
  for (int64_t s : sizes)
    if (llvm::AddOverflow(total, s, total))
      return emitError("split_sizes add up to more than int64 can hold");
  int64_t size = input.getDimSize(*dim);
  if (ShapedType::isStatic(size) && total != size)
    return emitError("expects split_sizes to add up to ", size,
                     " (the size of dimension ", *dim, "), got ", total);
  SmallVector<int64_t> shape(input.getShape());
  for (int64_t s : sizes) {
    shape[*dim] = s;
    results.push_back(input.clone(shape));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// clone, contiguous
//===----------------------------------------------------------------------===//

LogicalResult CloneOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  results.push_back(adaptor.getSelf().getType());
  return success();
}

OpFoldResult CloneOp::fold(FoldAdaptor) {
  return foldToOperandIfSameType(*this);
}

LogicalResult ContiguousOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location>,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  results.push_back(adaptor.getSelf().getType());
  return success();
}

OpFoldResult ContiguousOp::fold(FoldAdaptor) {
  return foldToOperandIfSameType(*this);
}

//===- CPUTileAndVectorize.cpp - the fx-cpu-tile-and-vectorize pass -------===//
//
// Tiling and vectorization of linalg-on-tensors for the CPU with the upstream
// TilingInterface and vectorizer. The choice of tile sizes is the only
// project-specific part: a register-blocked outer-product tile for
// contractions, one vector along the innermost loop for everything else.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUTILEANDVECTORIZE
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Rewrites `vector.contract` of a row-major matmul tile, (m, k) x (k, n) ->
/// (m, n) with a static k, as k `vector.outerproduct`s of a column of the lhs
/// and a row of the rhs: the register-blocked update the tile sizes are
/// chosen for. Upstream's contraction lowering remains the fallback for
/// other contraction shapes.
struct MatmulContractToOuterProduct
    : public OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<AffineMap> expected =
        fx::matmulIndexingMaps(op.getContext(), /*transposedB=*/false);
    if (op.getIndexingMapsArray() != ArrayRef<AffineMap>(expected) ||
        op.getKind() != vector::CombiningKind::ADD)
      return rewriter.notifyMatchFailure(op, "not a row-major matmul tile");
    auto lhsType = op.getLhsType();
    auto accType = dyn_cast<VectorType>(op.getAccType());
    if (!accType || lhsType.isScalable() ||
        lhsType.getElementType() != accType.getElementType())
      return rewriter.notifyMatchFailure(op, "mixed or scalable types");
    Location loc = op.getLoc();
    int64_t kSize = lhsType.getDimSize(1);
    // Columns of the lhs are rows of its transpose.
    Value lhsT = vector::TransposeOp::create(rewriter, loc, op.getLhs(),
                                             ArrayRef<int64_t>{1, 0});
    Value acc = op.getAcc();
    for (int64_t i = 0; i < kSize; ++i) {
      Value column = vector::ExtractOp::create(rewriter, loc, lhsT, i);
      Value row = vector::ExtractOp::create(rewriter, loc, op.getRhs(), i);
      acc = vector::OuterProductOp::create(rewriter, loc, accType, column, row,
                                           acc, vector::CombiningKind::ADD);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// The value that leaves a reduction of `kind` unchanged, or null.
TypedAttr getNeutralElement(vector::CombiningKind kind, Type type) {
  using Kind = vector::CombiningKind;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (kind) {
    case Kind::ADD:
      return FloatAttr::get(type,
                            llvm::APFloat::getZero(sem, /*Negative=*/true));
    case Kind::MUL:
      return FloatAttr::get(type, llvm::APFloat::getOne(sem));
    case Kind::MAXNUMF:
    case Kind::MAXIMUMF:
      return FloatAttr::get(type,
                            llvm::APFloat::getInf(sem, /*Negative=*/true));
    case Kind::MINNUMF:
    case Kind::MINIMUMF:
      return FloatAttr::get(type, llvm::APFloat::getInf(sem));
    default:
      return nullptr;
    }
  }
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return nullptr;
  unsigned width = intType.getWidth();
  switch (kind) {
  case Kind::ADD:
  case Kind::OR:
  case Kind::XOR:
  case Kind::MAXUI:
    return IntegerAttr::get(type, llvm::APInt::getZero(width));
  case Kind::MUL:
    return IntegerAttr::get(type, llvm::APInt(width, 1));
  case Kind::AND:
  case Kind::MINUI:
    return IntegerAttr::get(type, llvm::APInt::getAllOnes(width));
  case Kind::MINSI:
    return IntegerAttr::get(type, llvm::APInt::getSignedMaxValue(width));
  case Kind::MAXSI:
    return IntegerAttr::get(type, llvm::APInt::getSignedMinValue(width));
  default:
    return nullptr;
  }
}

/// Rewrites a transfer_read that reads one element and broadcasts it (a
/// value per channel read by an elementwise tile: squeeze-and-excitation's
/// scale) as that element's extraction and a vector.broadcast. Left as a
/// transfer with a broadcasting permutation map, it was unrolled into a
/// loop inserting the element into each lane (16 iterations per vector):
/// efficientnet_b0's scale multiplies at 7x7 spent 300 us of serial code
/// per block.
struct BroadcastElementRead : public OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    VectorType type = read.getVectorType();
    if (read.getMask() || type.isScalable() ||
        !isa<RankedTensorType>(read.getBase().getType()) ||
        llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }))
      return rewriter.notifyMatchFailure(read, "masked or out of bounds");
    AffineMap map = read.getPermutationMap();
    bool broadcasts = false;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (read.isBroadcastDim(d)) {
        broadcasts |= type.getDimSize(d) > 1;
        continue;
      }
      if (type.getDimSize(d) != 1)
        return rewriter.notifyMatchFailure(read, "reads several elements");
    }
    if (!broadcasts || map.getNumResults() != type.getRank())
      return rewriter.notifyMatchFailure(read, "no broadcast");
    Value element = tensor::ExtractOp::create(
        rewriter, read.getLoc(), read.getBase(), read.getIndices());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, type, element);
    return success();
  }
};

/// Rewrites a masked `vector.reduction` as a select of the reduction's
/// neutral element into the masked-off lanes and an unmasked reduction.
/// MLIR 22's convert-vector-to-llvm lowers masked floating-point max
/// reductions to `vp.reduce.fmax` with the smallest negative denormal as
/// the start value instead of -inf, so an all-negative row whose length is
/// not a multiple of the vector width reduced to -1.4e-45 (seen with
/// `amax` over rows of 7). The select form is correct for every kind and as
/// fast on targets without native predication.
struct UnmaskReduction : public OpRewritePattern<vector::MaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::MaskOp mask,
                                PatternRewriter &rewriter) const override {
    auto reduction =
        dyn_cast_or_null<vector::ReductionOp>(mask.getMaskableOp());
    if (!reduction || mask.getPassthru())
      return rewriter.notifyMatchFailure(mask, "not a masked reduction");
    VectorType type = reduction.getSourceVectorType();
    if (type.isScalable())
      return rewriter.notifyMatchFailure(mask, "scalable vector");
    TypedAttr neutral =
        getNeutralElement(reduction.getKind(), type.getElementType());
    if (!neutral)
      return rewriter.notifyMatchFailure(mask, "no neutral element");
    Location loc = mask.getLoc();
    Value fill = arith::ConstantOp::create(
        rewriter, loc, type, DenseElementsAttr::get(type, neutral));
    Value lanes = arith::SelectOp::create(rewriter, loc, mask.getMask(),
                                          reduction.getVector(), fill);
    rewriter.replaceOp(mask, vector::ReductionOp::create(
                                 rewriter, loc, reduction.getKind(), lanes,
                                 reduction.getAcc(), reduction.getFastmath()));
    return success();
  }
};

/// True if `op` has reduction loops and folds into an output a value that
/// does not depend on the iteration: no input element and no linalg.index
/// reaches it (`out + 1`, after a fill producer was folded into the body).
/// MLIR 22's vectorizer gives such a combiner the shape of the output rather
/// than of the iteration space, so the value is added once per output
/// element instead of once per reduced element (the sum of ones over a row
/// of 4 came out as 1). The scalar loops are right and such reductions are
/// rare, so they are left unvectorized.
static bool reducesUniformValue(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return false;
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument acc = op.getMatchingBlockArgument(&init);
    // The values the yielded one is computed from, inside the body.
    SmallVector<Value> worklist = {
        yield.getOperand(init.getOperandNumber() - op.getNumDpsInputs())};
    llvm::SmallPtrSet<Value, 8> seen;
    bool varies = false;
    while (!worklist.empty() && !varies) {
      Value value = worklist.pop_back_val();
      if (!seen.insert(value).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        varies = arg.getOwner() == body && arg != acc;
        continue;
      }
      Operation *def = value.getDefiningOp();
      if (!def || def->getBlock() != body)
        continue; // Defined outside the body: the same for every iteration.
      if (isa<linalg::IndexOp>(def)) {
        varies = true;
        continue;
      }
      llvm::append_range(worklist, def->getOperands());
    }
    if (!varies)
      return true;
  }
  return false;
}

/// The operand types of a convolution tile on tensors whose input, filter
/// and output are all static f32 tensors (the tiles the vectorizers below
/// take), or failure.
struct ConvTileTypes {
  RankedTensorType input, filter, output;
};
static FailureOr<ConvTileTypes> staticF32ConvTile(linalg::LinalgOp conv) {
  if (!conv.hasPureTensorSemantics() || conv.getNumDpsInputs() != 2 ||
      conv.getNumDpsInits() != 1)
    return failure();
  ConvTileTypes types{
      dyn_cast<RankedTensorType>(conv.getDpsInputs()[0].getType()),
      dyn_cast<RankedTensorType>(conv.getDpsInputs()[1].getType()),
      dyn_cast<RankedTensorType>(conv.getDpsInits()[0].getType())};
  for (RankedTensorType type : {types.input, types.filter, types.output})
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return failure();
  return types;
}

/// Lanes of the vectors of a tile `width` columns wide: `width` itself when
/// it is a whole number of registers, else the next power of two below one
/// register (14 -> 16, 7 -> 8) or whole registers above it (28 -> 32), the
/// extra lanes transferred out of bounds (masked loads and stores). LLVM
/// assembled an unwidened vector<14xf32> row from three loads and two
/// inserts, which made a 3x3 depthwise convolution of 14x14 images
/// shuffle-bound.
static int64_t widenedLanes(int64_t width, int64_t registerLanes) {
  if (registerLanes <= 1 || width % registerLanes == 0)
    return width;
  return width < registerLanes ? static_cast<int64_t>(llvm::PowerOf2Ceil(width))
                               : llvm::alignTo(width, registerLanes);
}

/// Vectorizes a static convolution tile of one output row and one window
/// position in NCHW order, with the output columns along the vector lanes:
///
/// * conv_2d_nchw_fchw, output 1 x F x 1 x W, filter F x C x 1 x 1: one
///   outer product per input channel c, the input row in[c, 0:W*stride:
///   stride] times the filter column filter[0:F, c] (F broadcast scalars),
///   accumulated into F row vectors;
/// * depthwise_conv_2d_nchw_chw, output 1 x C x 1 x W, filter C x 1 x 1: one
///   FMA per channel, in[c, ...] times the broadcast filter[c].
///
/// Upstream's 1-d convolution vectorizer works in NWC order: on NCHW tiles
/// it transposed the accumulator, the input and the filter on every window
/// position (measured: 40 GFLOP/s for a 3x3 64-channel convolution on Zen 4,
/// against 110 for a matmul), and depthwise tiles were scalar loops. Here the
/// accumulator is read once and written once per tile, and
/// loop-invariant-subset-hoisting keeps it in registers across the window
/// positions and channel steps. A strided convolution reads stride * W
/// contiguous elements and keeps every stride-th lane; stride 2 reads them
/// as two halves and picks the even lanes with one two-source shuffle
/// (resnet18's 3x3 stride-2 max pooling at 112x112: 77.5 -> 58.9 us on a
/// Zen 5 EPYC, two threads).
/// Rows are widened to whole registers (widenedLanes).
static LogicalResult vectorizeConvTile(RewriterBase &rewriter,
                                       linalg::LinalgOp conv,
                                       int64_t registerLanes) {
  Operation *op = conv.getOperation();
  bool depthwise = isa<linalg::DepthwiseConv2DNchwChwOp>(op);
  bool maxPool = isa<linalg::PoolingNchwMaxOp>(op);
  bool sumPool = isa<linalg::PoolingNchwSumOp>(op);
  bool pooling = maxPool || sumPool;
  if (!depthwise && !pooling && !isa<linalg::Conv2DNchwFchwOp>(op))
    return failure();
  FailureOr<ConvTileTypes> types = staticF32ConvTile(conv);
  if (failed(types))
    return failure();
  Value input = conv.getDpsInputs()[0], filterValue = conv.getDpsInputs()[1];
  Value output = conv.getDpsInits()[0];
  RankedTensorType inputType = types->input, filterType = types->filter,
                   outputType = types->output;
  ArrayRef<int64_t> out = outputType.getShape();
  ArrayRef<int64_t> filter = filterType.getShape();
  if (out[0] != 1 || out[2] != 1 ||
      filter.take_back(2) != ArrayRef<int64_t>{1, 1})
    return failure();
  Type elementType = outputType.getElementType();
  int64_t numF = out[1], width = out[3];
  int64_t numC = depthwise || pooling ? numF : filter[1];
  auto strides = conv->getAttrOfType<DenseIntElementsAttr>("strides");
  if (!strides)
    return failure();
  int64_t stride = strides.getValues<int64_t>()[1];
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value padding = arith::ConstantOp::create(rewriter, loc, elementType,
                                            rewriter.getZeroAttr(elementType));
  // Rank-reduced views, read and written with identity maps (a permuted
  // transfer_write is canonicalized into a transpose, which hides the
  // read/write pair from loop-invariant-subset-hoisting).
  auto view = [&](Value value, ArrayRef<int64_t> shape,
                  ArrayRef<int64_t> keep) -> Value {
    SmallVector<int64_t> kept;
    for (int64_t d : keep)
      kept.push_back(shape[d]);
    return tensor::createCanonicalRankReducingExtractSliceOp(
        rewriter, loc, value, RankedTensorType::get(kept, elementType));
  };
  Value outMatrix = view(output, out, {1, 3});
  Value inMatrix = view(input, inputType.getShape(), {1, 3});
  // Filter elements as a C x F (or C) matrix of scalars (pooling windows
  // hold none).
  Value filterView;
  if (!pooling)
    filterView = depthwise ? view(filterValue, filter, {0})
                           : view(filterValue, filter, {0, 1});
  auto filterElement = [&](int64_t f, int64_t c) -> Value {
    SmallVector<Value> at;
    if (!depthwise)
      at.push_back(arith::ConstantIndexOp::create(rewriter, loc, f));
    at.push_back(arith::ConstantIndexOp::create(rewriter, loc, c));
    return tensor::ExtractOp::create(rewriter, loc, filterView, at);
  };
  Value indices[] = {zero, zero};
  int64_t lanesWide = widenedLanes(width, registerLanes);
  bool widened = lanesWide != width;
  auto accType = VectorType::get({numF, lanesWide}, elementType);
  auto rowType = VectorType::get({lanesWide}, elementType);
  // Out-of-bounds lanes of a transfer become masked loads and stores
  // (vector-to-llvm materializes the masks).
  Value acc = vector::TransferReadOp::create(
      rewriter, loc, accType, outMatrix, indices, padding,
      /*inBounds=*/ArrayRef<bool>{true, !widened});
  int64_t readWidth = lanesWide * stride;
  int64_t inWidth = inputType.getDimSize(3);
  // Stride 2 reads the row as two single-width halves and picks the even
  // lanes with one two-source shuffle (vectorizeDepthwiseRows says why);
  // other strides read stride * W elements and keep every stride-th lane.
  bool halves = stride == 2;
  auto readRows = [&](int64_t column, int64_t width) -> Value {
    Value at[] = {zero, arith::ConstantIndexOp::create(rewriter, loc, column)};
    return vector::TransferReadOp::create(
        rewriter, loc, VectorType::get({numC, width}, elementType), inMatrix,
        at, padding, ArrayRef<bool>{true, column + width <= inWidth});
  };
  Value rows = readRows(0, halves ? lanesWide : readWidth);
  Value highRows = halves ? readRows(lanesWide, lanesWide) : Value();
  SmallVector<int64_t> lanes;
  for (int64_t w = 0; w < lanesWide; ++w)
    lanes.push_back(w * stride);
  for (int64_t c = 0; c < numC; ++c) {
    Value row = vector::ExtractOp::create(rewriter, loc, rows, c);
    if (halves)
      row = vector::ShuffleOp::create(
          rewriter, loc, row,
          vector::ExtractOp::create(rewriter, loc, highRows, c), lanes);
    else if (stride != 1)
      row = vector::ShuffleOp::create(rewriter, loc, row, row, lanes);
    if (pooling) {
      Value accRow = vector::ExtractOp::create(rewriter, loc, acc, c);
      accRow =
          maxPool
              ? arith::MaximumFOp::create(rewriter, loc, accRow, row)
                    .getResult()
              : arith::AddFOp::create(rewriter, loc, accRow, row).getResult();
      acc = vector::InsertOp::create(rewriter, loc, accRow, acc, c);
      continue;
    }
    if (depthwise) {
      Value scale = vector::BroadcastOp::create(rewriter, loc, rowType,
                                                filterElement(c, c));
      Value accRow = vector::ExtractOp::create(rewriter, loc, acc, c);
      accRow = vector::FMAOp::create(rewriter, loc, scale, row, accRow);
      acc = vector::InsertOp::create(rewriter, loc, accRow, acc, c);
      continue;
    }
    // The filter column is F scalars (filter rows are C * KH * KW apart):
    // each becomes the broadcast operand of one FMA.
    SmallVector<Value> column;
    for (int64_t f = 0; f < numF; ++f)
      column.push_back(filterElement(f, c));
    Value columnVector = vector::FromElementsOp::create(
        rewriter, loc, VectorType::get({numF}, elementType), column);
    acc = vector::OuterProductOp::create(rewriter, loc, accType, columnVector,
                                         row, acc, vector::CombiningKind::ADD);
  }
  Value written =
      vector::TransferWriteOp::create(rewriter, loc, acc, outMatrix, indices,
                                      ArrayRef<bool>{true, !widened})
          .getResult();
  rewriter.replaceOp(conv, tensor::createCanonicalRankReducingInsertSliceOp(
                               rewriter, loc, written, output));
  return success();
}

/// A max or sum pooling of unit dilation: tiled and vectorized as a
/// depthwise convolution is (vectorizeDepthwiseRows), without a filter.
static bool isRowTiledPooling(Operation *op) {
  if (!isa<linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(op))
    return false;
  auto dilations = op->getAttrOfType<DenseIntElementsAttr>("dilations");
  return dilations && llvm::all_of(dilations.getValues<int64_t>(),
                                   [](int64_t d) { return d == 1; });
}

/// A depthwise convolution or pooling that vectorizeDepthwiseRows takes
/// whole window at a time (fx::isRowTiledDepthwise, isRowTiledPooling).
static bool isRowTiledWindow(Operation *op) {
  return fx::isRowTiledDepthwise(op) || isRowTiledPooling(op);
}

/// Vectorizes a static depthwise (or pooling) tile of a few channels, a few
/// output rows and the whole window (chooseTileSizes): each input row of a
/// channel is loaded once per window column (widened, see widenedLanes; a
/// strided one keeps every stride-th lane) and feeds one FMA (a maximum or
/// an add) into every output row whose window covers it, with the KH x KW
/// filter elements broadcast once per tile. One row and one window position
/// per tile (vectorizeConvTile) took one input load and one filter
/// broadcast per FMA. The FMAs keep each output element's order of window
/// positions (kh, then kw), so results are the same bit for bit.
///
/// A tile whose initial value is a fill (tileFusingFill) starts its
/// accumulators from the fill's value and writes the fill's destination:
/// the fill dies. Max pooling's -inf fill was a pass of its own over the
/// output, and each window position's tile read and wrote the output tile
/// (resnet18's 3x3 stride-2 max pooling at batch 8: 1.94 ms + 0.18 for the
/// fill; a 16-channel tile read 48 input rows at once). A depthwise
/// convolution's zero fill, inside a dispatch region's tile, was a loop of
/// stores that the convolution's tiles read back: on one Zen 4 thread
/// mobilenet_v2's 3x3 depthwise convolution of 144 channels at 56x56 with
/// its batch norm and ReLU6 took 216 us with it and 190 without, the
/// stride-2 one of 96 channels at 112x112 213 -> 192 us (fxrt-run
/// --profile, three alternated runs); mobilenet_v2 at 2 threads 4.60 ->
/// 4.45 ms, efficientnet_b0 7.04 -> 6.86 (bench/models/ab_profile.py
/// --wall, minima of 5 rounds).
static LogicalResult vectorizeDepthwiseRows(RewriterBase &rewriter,
                                            linalg::LinalgOp conv,
                                            int64_t registerLanes) {
  // The tiles chooseTileSizes gives the whole window (unit dilation).
  bool pooling = isRowTiledPooling(conv);
  if (!isRowTiledWindow(conv))
    return failure();
  bool maxPool = isa<linalg::PoolingNchwMaxOp>(conv.getOperation());
  FailureOr<ConvTileTypes> types = staticF32ConvTile(conv);
  if (failed(types))
    return failure();
  Value input = conv.getDpsInputs()[0], filterValue = conv.getDpsInputs()[1];
  Value output = conv.getDpsInits()[0];
  RankedTensorType inputType = types->input, filterType = types->filter,
                   outputType = types->output;
  Type elementType = outputType.getElementType();
  ArrayRef<int64_t> out = outputType.getShape();
  ArrayRef<int64_t> window = filterType.getShape().take_back(2);
  if (out[0] != 1)
    return failure();
  int64_t channels = out[1];
  auto strides = conv->getAttrOfType<DenseIntElementsAttr>("strides");
  if (!strides)
    return failure();
  int64_t strideH = strides.getValues<int64_t>()[0];
  int64_t strideW = strides.getValues<int64_t>()[1];
  int64_t rows = out[2], width = out[3];
  int64_t inRows = inputType.getDimSize(2), inWidth = inputType.getDimSize(3);
  if (inRows < (rows - 1) * strideH + window[0])
    return failure();
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  auto index = [&](int64_t i) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, i);
  };
  Value zero = index(0);
  Value padding = arith::ConstantOp::create(rewriter, loc, elementType,
                                            rewriter.getZeroAttr(elementType));
  int64_t lanesWide = widenedLanes(width, registerLanes);
  auto rowType = VectorType::get({lanesWide}, elementType);
  bool widened = lanesWide != width;
  // acc[c * rows + r]: channel c, output row r.
  SmallVector<Value> acc;
  if (auto fill = output.getDefiningOp<linalg::FillOp>()) {
    acc.assign(channels * rows,
               vector::BroadcastOp::create(rewriter, loc, rowType,
                                           fill.getInputs()[0]));
    output = fill.getOutputs()[0];
  } else {
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t r = 0; r < rows; ++r)
        acc.push_back(vector::TransferReadOp::create(
            rewriter, loc, rowType, output,
            ValueRange{zero, index(c), index(r), zero}, padding,
            ArrayRef<bool>{!widened}));
  }
  // The filter's elements, broadcast (a pooling has none).
  int64_t taps = window[0] * window[1];
  SmallVector<Value> weights;
  for (int64_t c = 0; c < (pooling ? 0 : channels); ++c)
    for (int64_t kh = 0; kh < window[0]; ++kh)
      for (int64_t kw = 0; kw < window[1]; ++kw)
        weights.push_back(vector::BroadcastOp::create(
            rewriter, loc, rowType,
            tensor::ExtractOp::create(
                rewriter, loc, filterValue,
                ValueRange{index(c), index(kh), index(kw)})));
  int64_t readWidth = lanesWide * strideW;
  auto readType = VectorType::get({readWidth}, elementType);
  SmallVector<int64_t> lanes;
  for (int64_t w = 0; w < lanesWide; ++w)
    lanes.push_back(w * strideW);
  // Stride 2: the columns kw + 2w of window column kw are lanes kw % 2,
  // kw % 2 + 2, ... of the two vectors read at kw - kw % 2, which window
  // columns kw and kw + 1 share; one two-source shuffle (vpermt2ps on
  // AVX-512) picks them. One double-width vector shuffled with itself took
  // LLVM three shuffles, and one read per window column: a 3x3 stride-2
  // depthwise tile spent more instructions on shuffles than on FMAs.
  // Lanes kw % 2, kw % 2 + 2, ...: `lanes` for even kw (stride 2), these
  // for odd.
  SmallVector<int64_t> oddLanes;
  for (int64_t w = 0; w < lanesWide; ++w)
    oddLanes.push_back(1 + 2 * w);
  auto pairRead = [&](int64_t c, int64_t ih, int64_t col) {
    SmallVector<Value, 2> halves;
    for (int64_t j = 0; j < 2; ++j)
      halves.push_back(vector::TransferReadOp::create(
          rewriter, loc, rowType, input,
          ValueRange{zero, index(c), index(ih), index(col + j * lanesWide)},
          padding, ArrayRef<bool>{col + (j + 1) * lanesWide <= inWidth}));
    return halves;
  };
  for (int64_t ih = 0; ih < (rows - 1) * strideH + window[0]; ++ih) {
    DenseMap<std::pair<int64_t, int64_t>, SmallVector<Value, 2>> pairs;
    for (int64_t kw = 0; kw < window[1]; ++kw) {
      for (int64_t c = 0; c < channels; ++c) {
        Value row;
        if (strideW == 2) {
          int64_t base = kw - kw % 2;
          auto it = pairs.find({c, base});
          if (it == pairs.end())
            it = pairs.try_emplace({c, base}, pairRead(c, ih, base)).first;
          row = vector::ShuffleOp::create(rewriter, loc, it->second[0],
                                          it->second[1],
                                          kw % 2 ? oddLanes : lanes);
        } else {
          row = vector::TransferReadOp::create(
              rewriter, loc, readType, input,
              ValueRange{zero, index(c), index(ih), index(kw)}, padding,
              ArrayRef<bool>{kw + readWidth <= inWidth});
          if (strideW != 1)
            row = vector::ShuffleOp::create(rewriter, loc, row, row, lanes);
        }
        for (int64_t r = 0; r < rows; ++r) {
          int64_t kh = ih - r * strideH;
          if (kh < 0 || kh >= window[0])
            continue;
          Value &sum = acc[c * rows + r];
          // (Maxima of NaN propagate; without signed zeros: x86 needs
          // three instructions for one, not six.)
          if (maxPool)
            sum = arith::MaximumFOp::create(rewriter, loc, sum, row,
                                            arith::FastMathFlags::nsz);
          else if (pooling)
            sum = arith::AddFOp::create(rewriter, loc, sum, row);
          else
            sum = vector::FMAOp::create(rewriter, loc,
                                        weights[c * taps + kh * window[1] + kw],
                                        row, sum);
        }
      }
    }
  }
  Value result = output;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t r = 0; r < rows; ++r)
      result = vector::TransferWriteOp::create(
                   rewriter, loc, acc[c * rows + r], result,
                   ValueRange{zero, index(c), index(r), zero},
                   ArrayRef<bool>{!widened})
                   .getResult();
  rewriter.replaceOp(conv, result);
  return success();
}

/// The rows of a convolution window that read its image rather than its
/// zero padding, for a tile of one output row whose input `input` is a
/// slice (of `kH` rows, undilated) of a zero-padded tensor: the first row
/// and the count, [first, first + count) within the window. An output row
/// at the top or bottom of the image reads rows of padding only for some
/// window rows, and their products are zeros: a 3x3 window on a 7x7 image
/// reads its padding in 2 of the 21 window rows of the image's 7 output
/// rows, so leaving them out saves a tenth of the tile's multiply-adds
/// (oneDNN's direct convolutions skip them too). A 3x3 convolution of 512
/// channels at 7x7 on one Zen 5 thread, five alternated runs of 300: minima
/// 0.98-1.02 -> 0.92-0.93 ms. (In resnet18 at batch 1 its 7x7 layers read
/// their filters from DRAM and gained nothing measurable.)
/// The loop over the rows left is the tile's kh loop (restrictWindowRows)
/// rather than slices of the operands, which would leave the packed
/// filter's block without the static shape fx-cpu-prefetch-packed-filters
/// looks for. None when `input` is not such a slice or no window row can
/// be skipped.
static std::optional<std::pair<OpFoldResult, OpFoldResult>>
liveWindowRows(OpBuilder &b, Location loc, Value input, int64_t kH) {
  auto slice = input.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !slice.hasUnitStride() || slice.getType().getRank() != 4 ||
      slice.getType().getDimSize(2) != kH)
    return std::nullopt;
  // The window's first row in the padded tensor: the slice's row offset
  // plus those of the slices it is taken from (a thread's chunk of rows).
  MLIRContext *ctx = b.getContext();
  AffineExpr r = getAffineSymbolExpr(0, ctx);
  OpFoldResult start = slice.getMixedOffsets()[2];
  Value source = slice.getSource();
  while (auto outer = source.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!outer.hasUnitStride() || outer.getType().getRank() != 4 ||
        outer.getSourceType().getRank() != 4)
      return std::nullopt;
    start = affine::makeComposedFoldedAffineApply(
        b, loc, AffineMap::get(0, 2, r + getAffineSymbolExpr(1, ctx), ctx),
        {start, outer.getMixedOffsets()[2]});
    source = outer.getSource();
  }
  auto pad = source.getDefiningOp<tensor::PadOp>();
  if (!pad || pad.getSourceType().getRank() != 4)
    return std::nullopt;
  Value padding = pad.getConstantPaddingValue();
  std::optional<int64_t> low = getConstantIntValue(pad.getMixedLowPad()[2]);
  std::optional<int64_t> high = getConstantIntValue(pad.getMixedHighPad()[2]);
  int64_t height = pad.getSourceType().getDimSize(2);
  if (!padding || !matchPattern(padding, m_AnyZeroFloat()) || !low || !high ||
      ShapedType::isDynamic(height) || (*low == 0 && *high == 0))
    return std::nullopt;
  // With r the window's first row in the padded input, the image's rows are
  // window rows [low - r, low + height - r), clamped to [0, kH).
  OpFoldResult first = affine::makeComposedFoldedAffineMin(
      b, loc,
      AffineMap::get(0, 1,
                     {getAffineConstantExpr(kH, ctx),
                      getAffineConstantExpr(*low, ctx) - r},
                     ctx),
      {start});
  first = affine::makeComposedFoldedAffineMax(
      b, loc, AffineMap::get(0, 1, {getAffineConstantExpr(0, ctx), r}, ctx),
      {first});
  OpFoldResult end = affine::makeComposedFoldedAffineMin(
      b, loc,
      AffineMap::get(0, 1,
                     {getAffineConstantExpr(kH, ctx),
                      getAffineConstantExpr(*low + height, ctx) - r},
                     ctx),
      {start});
  AffineExpr e = getAffineSymbolExpr(1, ctx);
  OpFoldResult count = affine::makeComposedFoldedAffineMax(
      b, loc, AffineMap::get(0, 2, {getAffineConstantExpr(0, ctx), e - r}, ctx),
      {first, end});
  if (isConstantIntValue(first, 0) && isConstantIntValue(count, kH))
    return std::nullopt;
  return std::make_pair(first, count);
}

/// Vectorizes a static tile of an `fx.packed_conv` generic
/// (fx-cpu-pack-convolutions): loops (w, f, c, kh, kw) with one window
/// position, the input [1, C, 1, (W - 1) * stride + 1], the packed filter
/// [C, 1, 1, F] and the accumulator [W, F]. Each output column's F channels
/// are one vector; per input channel, one filter vector load and one FMA
/// per column with the broadcast input element. loop-invariant-subset-
/// hoisting keeps the W accumulators in registers across the channel steps
/// and window positions.
static LogicalResult vectorizePackedConvTile(RewriterBase &rewriter,
                                             linalg::GenericOp op) {
  auto stride = op->getAttrOfType<IntegerAttr>(fx::kPackedConvAttr);
  if (!stride || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.size() != 5 || llvm::any_of(ranges, ShapedType::isDynamic) ||
      ranges[3] != 1 || ranges[4] != 1)
    return failure();
  Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
  Value acc = op.getDpsInits()[0];
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  auto filterType = dyn_cast<RankedTensorType>(filter.getType());
  if (!inputType || !filterType || !inputType.hasStaticShape() ||
      !filterType.hasStaticShape())
    return failure();
  int64_t width = ranges[0], numF = ranges[1], numC = ranges[2];
  int64_t step = stride.getInt();
  if (inputType.getDimSize(3) < (width - 1) * step + 1)
    return failure();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type f32 = rewriter.getF32Type();
  Value zeroF = arith::ConstantOp::create(rewriter, loc, f32,
                                          rewriter.getF32FloatAttr(0));
  auto index = [&](int64_t i) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, i);
  };
  Value zero = index(0);
  auto accType = VectorType::get({width, numF}, f32);
  auto rowType = VectorType::get({numF}, f32);
  Value sums = vector::TransferReadOp::create(rewriter, loc, accType, acc,
                                              ValueRange{zero, zero}, zeroF,
                                              ArrayRef<bool>{true, true});
  for (int64_t c = 0; c < numC; ++c) {
    Value weights = vector::TransferReadOp::create(
        rewriter, loc, rowType, filter, ValueRange{index(c), zero, zero, zero},
        zeroF, ArrayRef<bool>{true});
    for (int64_t w = 0; w < width; ++w) {
      Value element = tensor::ExtractOp::create(
          rewriter, loc, input,
          ValueRange{zero, index(c), zero, index(w * step)});
      Value broadcast =
          vector::BroadcastOp::create(rewriter, loc, rowType, element);
      Value column = vector::ExtractOp::create(rewriter, loc, sums, w);
      column = vector::FMAOp::create(rewriter, loc, weights, broadcast, column);
      sums = vector::InsertOp::create(rewriter, loc, column, sums, w);
    }
  }
  Value written = vector::TransferWriteOp::create(rewriter, loc, sums, acc,
                                                  ValueRange{zero, zero},
                                                  ArrayRef<bool>{true, true})
                      .getResult();
  rewriter.replaceOp(op, written);
  return success();
}

/// Vectorizes a static dot-product contraction tile, C[M x N] += A[M x K] *
/// B[N x K]^T with K whole in the tile, as M x N dot products along k: the
/// accumulators are M x N vectors of `lanes` partial sums, each k step loads
/// M rows of A and N rows of B (contiguous) for M x N FMAs, and the partial
/// sums are reduced once at the end. The outer-product form reads B one
/// column at a time: for `linear`'s [N, K] weight, N scalars rows apart per
/// k step (a 49x3072 by 3072x768 linear took 42.7 ms on one Zen 4 thread, 5
/// GFLOP/s).
static LogicalResult vectorizeDotTile(RewriterBase &rewriter,
                                      linalg::LinalgOp op, int64_t lanes) {
  std::optional<linalg::ContractionDimensions> dims =
      fx::getDotContraction(op, /*minK=*/1);
  if (!dims || !op.hasPureTensorSemantics())
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) ||
      (!dims->batch.empty() && ranges[dims->batch.front()] != 1))
    return failure();
  int64_t numM = ranges[dims->m.front()], numN = ranges[dims->n.front()];
  int64_t numK = ranges[dims->k.front()];
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type f32 = rewriter.getF32Type();
  // 2-d views without the unit batch dimension.
  auto matrix = [&](Value value, int64_t rows, int64_t cols) -> Value {
    auto type = RankedTensorType::get({rows, cols}, f32);
    if (value.getType() == type)
      return value;
    return tensor::createCanonicalRankReducingExtractSliceOp(rewriter, loc,
                                                             value, type);
  };
  Value a = matrix(op.getDpsInputs()[0], numM, numK);
  Value b = matrix(op.getDpsInputs()[1], numN, numK);
  Value c = matrix(op.getDpsInits()[0], numM, numN);
  Value zeroF = arith::ConstantOp::create(rewriter, loc, f32,
                                          rewriter.getF32FloatAttr(0));
  auto rowType = VectorType::get({lanes}, f32);
  auto readRow = [&](OpBuilder &builder, Value matrixValue, int64_t row,
                     Value column, VectorType type) -> Value {
    Value rowIndex = arith::ConstantIndexOp::create(builder, loc, row);
    return vector::TransferReadOp::create(builder, loc, type, matrixValue,
                                          ValueRange{rowIndex, column}, zeroF,
                                          ArrayRef<bool>{true});
  };
  // Full vectors of k in a loop, carrying M x N partial sums.
  int64_t fullK = numK / lanes * lanes;
  SmallVector<Value> sums(
      numM * numN,
      arith::ConstantOp::create(
          rewriter, loc, rowType,
          DenseElementsAttr::get(rowType, rewriter.getF32FloatAttr(0))));
  if (fullK > 0) {
    Value lower = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value upper = arith::ConstantIndexOp::create(rewriter, loc, fullK);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, lanes);
    auto loop = scf::ForOp::create(
        rewriter, loc, lower, upper, step, sums,
        [&](OpBuilder &builder, Location, Value kk, ValueRange iterSums) {
          SmallVector<Value> rowsA, rowsB, next;
          for (int64_t i = 0; i < numM; ++i)
            rowsA.push_back(readRow(builder, a, i, kk, rowType));
          for (int64_t j = 0; j < numN; ++j)
            rowsB.push_back(readRow(builder, b, j, kk, rowType));
          for (int64_t i = 0; i < numM; ++i)
            for (int64_t j = 0; j < numN; ++j)
              next.push_back(vector::FMAOp::create(
                  builder, loc, rowsA[i], rowsB[j], iterSums[i * numN + j]));
          scf::YieldOp::create(builder, loc, next);
        });
    sums.assign(loop.getResults().begin(), loop.getResults().end());
  }
  // The remainder of k (fewer than `lanes` elements), then one reduction
  // per output element.
  int64_t restK = numK - fullK;
  SmallVector<Value> restA, restB;
  auto restType = VectorType::get({restK}, f32);
  Value restStart = arith::ConstantIndexOp::create(rewriter, loc, fullK);
  for (int64_t i = 0; restK && i < numM; ++i)
    restA.push_back(readRow(rewriter, a, i, restStart, restType));
  for (int64_t j = 0; restK && j < numN; ++j)
    restB.push_back(readRow(rewriter, b, j, restStart, restType));
  auto tileType = VectorType::get({numM, numN}, f32);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value tile = vector::TransferReadOp::create(rewriter, loc, tileType, c,
                                              ValueRange{zero, zero}, zeroF,
                                              ArrayRef<bool>{true, true});
  for (int64_t i = 0; i < numM; ++i)
    for (int64_t j = 0; j < numN; ++j) {
      Value acc = vector::ExtractOp::create(rewriter, loc, tile,
                                            ArrayRef<int64_t>{i, j});
      if (fullK > 0)
        acc = vector::ReductionOp::create(
            rewriter, loc, vector::CombiningKind::ADD, sums[i * numN + j], acc);
      if (restK) {
        Value product =
            arith::MulFOp::create(rewriter, loc, restA[i], restB[j]);
        acc = vector::ReductionOp::create(
            rewriter, loc, vector::CombiningKind::ADD, product, acc);
      }
      tile = vector::InsertOp::create(rewriter, loc, acc, tile,
                                      ArrayRef<int64_t>{i, j});
    }
  Value written = vector::TransferWriteOp::create(rewriter, loc, tile, c,
                                                  ValueRange{zero, zero},
                                                  ArrayRef<bool>{true, true})
                      .getResult();
  Value init = op.getDpsInits()[0];
  if (written.getType() != init.getType())
    written = tensor::createCanonicalRankReducingInsertSliceOp(rewriter, loc,
                                                               written, init);
  rewriter.replaceOp(op, written);
  return success();
}

struct CPUTileAndVectorizePass
    : public fx::impl::FXCPUTileAndVectorizeBase<CPUTileAndVectorizePass> {
  using Base::Base;

  /// Whether `op`'s last two loops are reductions, the innermost shorter
  /// than a vector (the rows of a small image).
  bool isShortTrailingReduction(linalg::GenericOp op) {
    // A sum or a maximum: one combining op on the input and the
    // accumulator.
    Block *body = op.getBody();
    if (body->getOperations().size() != 2 ||
        !isa<arith::AddFOp, arith::MaximumFOp, arith::MaxNumFOp>(body->front()))
      return false;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned n = iterators.size();
    return n >= 2 && linalg::isReductionIterator(iterators[n - 1]) &&
           linalg::isReductionIterator(iterators[n - 2]) &&
           !ShapedType::isDynamic(ranges[n - 1]) &&
           !ShapedType::isDynamic(ranges[n - 2]) && ranges[n - 1] > 1 &&
           ranges[n - 1] < vectorWidth && ranges[n - 2] > 1;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);

    // Convolutions are not tiled yet. Rewriting conv_2d_nchw_fchw as im2col +
    // contraction (linalg::rewriteInIm2Col) and tiling the result gave wrong
    // numbers in test/Integration/CPU/convolution.mlir (the rewrite alone and
    // the tiling alone are both right), so it stays off until that is
    // understood.

    // 1x1 convolutions of one image become matmuls over its pixels.
    SmallVector<linalg::Conv2DNchwFchwOp> pointwise;
    func.walk([&](linalg::Conv2DNchwFchwOp conv) {
      if (conv.hasPureTensorSemantics() && fx::isPointwiseConvolution(conv))
        pointwise.push_back(conv);
    });
    for (linalg::Conv2DNchwFchwOp conv : pointwise)
      rewritePointwiseAsMatmul(rewriter, conv);

    // Elementwise ops whose innermost loop is a unit dimension (a
    // squeeze-and-excitation's [1, C, 1, 1] gates, a convolution epilogue
    // of a 1x1 image) lose their unit dimensions, so that their vectors run
    // along the channels: tiled along the unit dimension, each element took
    // a masked 16-lane vector (efficientnet_b0's gates of 1152 channels, a
    // sigmoid each, took about 60 us per block on the AVX-512 Xeon).
    // Likewise reductions over the trailing dimensions of a small image
    // (a 7x7 mean of each channel) lose their unit dimensions, and the
    // reduced rows, shorter than a vector, merge into one contiguous run:
    // 49 elements in 4 vectors instead of 7 masked rows of 7, each its own
    // horizontal reduction.
    SmallVector<linalg::GenericOp> unitInner;
    func.walk([&](linalg::GenericOp op) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      // Plain ops only: no index arithmetic, one result, none of this
      // project's marks (a packed convolution tile keeps its loops).
      if (!op.hasPureTensorSemantics() || ranges.empty() ||
          op.getNumDpsInits() != 1 || op.hasIndexSemantics() ||
          llvm::any_of(op->getDiscardableAttrs(),
                       [](NamedAttribute a) {
                         return a.getName().strref().starts_with("fx.");
                       }) ||
          llvm::any_of(ranges, ShapedType::isDynamic) ||
          llvm::none_of(ranges, [](int64_t r) { return r > 1; }))
        return;
      if (op.getNumReductionLoops() == 0 ? ranges.back() == 1
                                         : isShortTrailingReduction(op))
        unitInner.push_back(op);
    });
    linalg::ControlDropUnitDims dropUnitDims;
    for (linalg::GenericOp op : unitInner) {
      rewriter.setInsertionPoint(op);
      if (llvm::is_contained(op.getStaticLoopRanges(), 1)) {
        FailureOr<linalg::DropUnitDimsResult> dropped =
            linalg::dropUnitDims(rewriter, op, dropUnitDims);
        if (failed(dropped))
          continue;
        rewriter.replaceOp(op, dropped->replacements);
        op = dyn_cast<linalg::GenericOp>(dropped->resultOp.getOperation());
        if (!op)
          continue;
      }
      if (op.getNumReductionLoops() == 0 || !isShortTrailingReduction(op))
        continue;
      unsigned n = op.getNumLoops();
      SmallVector<ReassociationIndices> merged = {{n - 2, n - 1}};
      if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), merged))
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, merged, rewriter);
      if (succeeded(collapsed))
        rewriter.replaceOp(op, collapsed->results);
    }

    // Tile. Each tiled op records its vector sizes; contraction tile loops
    // are peeled so that full tiles get static shapes.
    // (A fill that only starts poolings or depthwise convolutions is tiled
    // with them: tileFusingFill.)
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !startsRowTiledOnly(op))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      for (linalg::LinalgOp block :
           blockForCache(rewriter, distribute(rewriter, op)))
        tile(rewriter, block);

    // Fold the peeled bounds into static tile shapes.
    // (Dialect-level patterns matter: linalg folds tensor.casts into its
    // ops there, which is what makes peeled tiles static.)
    RewritePatternSet canonicalization(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(canonicalization);
    for (RegisteredOperationName name : ctx->getRegisteredOperations())
      name.getCanonicalizationPatterns(canonicalization, ctx);
    // Tile sizes min(ub - iv, step) in loops whose bounds make them
    // constant: tiles of the last cache block of a matmul are tiled and
    // peeled before that block's size is known to be static, and their
    // full tiles stayed dynamic (scalar code): a 1000^3 matmul spent a
    // quarter of its multiplies there.
    scf::populateSCFForLoopCanonicalizationPatterns(canonicalization);
    if (failed(applyPatternsGreedily(func, std::move(canonicalization))))
      return signalPassFailure();

    SmallVector<Operation *> tiled;
    func.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kVectorSizes))
        tiled.push_back(op);
    });
    for (Operation *op : tiled)
      vectorize(rewriter, op);

    if (!lowerVectorOps)
      return;
    // Lower the vector ops the vectorizer produced to forms LLVM handles
    // well: contractions as outer products (FMA with a broadcast), transfers
    // with permutations as transposes, multi-reductions as inner reductions,
    // masked transfers as masked loads/stores, masked reductions as selects
    // of the neutral element, erf as a polynomial.
    RewritePatternSet patterns(ctx);
    patterns.add<MatmulContractToOuterProduct, UnmaskReduction,
                 BroadcastElementRead>(ctx, /*benefit=*/2);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct,
        /*benefit=*/1, /*disableOuterProductLowering=*/true);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    // Transcendentals on f32 vectors would otherwise become one libm call
    // per lane; MLIR's polynomial approximations stay in vector registers
    // (and are accurate to a few ulp: the integration tests hold them to
    // rtol 1e-5). sin/cos keep libm for its full-range argument reduction.
    // exp has a shorter expansion of the project's own (ExpApproximation.cpp).
    fx::populateCPUExpApproximationPatterns(patterns, /*benefit=*/2);
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return llvm::is_contained({"math.tanh", "math.exp", "math.expm1",
                                 "math.log", "math.log1p", "math.log2",
                                 "math.erf"},
                                name);
    });
    for (RegisteredOperationName name : ctx->getRegisteredOperations())
      if (isa<vector::VectorDialect>(name.getDialect()))
        name.getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
    // Transposes of 16x16 32-bit blocks (transposedLoop's tiles) become
    // two-source shuffles now: left to the unrolling of their transfers,
    // each row of the result was extracted element by element (256 moves
    // per block). Other transposes keep their later lowering.
    SmallVector<Operation *> squares;
    func.walk([&](vector::TransposeOp op) {
      VectorType type = op.getSourceVectorType();
      SmallVector<int64_t> dims;
      for (int64_t size : type.getShape())
        if (size != 1)
          dims.push_back(size);
      if (dims == SmallVector<int64_t>{16, 16} &&
          type.getElementType().getIntOrFloatBitWidth() == 32)
        squares.push_back(op);
    });
    if (!squares.empty()) {
      RewritePatternSet shuffles(ctx);
      vector::populateVectorTransposeLoweringPatterns(
          shuffles, vector::VectorTransposeLowering::Shuffle16x16);
      GreedyRewriteConfig onlyThese;
      onlyThese.setStrictness(GreedyRewriteStrictness::ExistingOps);
      if (failed(
              applyOpPatternsGreedily(squares, std::move(shuffles), onlyThese)))
        return signalPassFailure();
    }
    // Float sums and products of a vector may reassociate: LLVM then adds a
    // vector's lanes as a tree, and the running value waits for one add
    // per vector instead of one per lane (an ordered reduction: 16
    // dependent adds per AVX-512 vector). Reductions over a row's
    // innermost dimension (means over H x W, softmax, layer norm) ran at
    // 1.7-3.3 GB/s on one core. Measured on this project's Xeon (AVX-512),
    // one thread: a sum over the 56x56 of 144 channels 0.307 -> 0.045 ms.
    // The summation order changes as PyTorch's vectorized reductions'
    // does; the value stays within rounding of the exact sum.
    func.walk([&](vector::ReductionOp reduction) {
      if (isa<FloatType>(reduction.getType()) &&
          (reduction.getKind() == vector::CombiningKind::ADD ||
           reduction.getKind() == vector::CombiningKind::MUL))
        reduction.setFastmath(arith::FastMathFlags::reassoc);
    });
  }

  /// Discardable attribute carrying the vector sizes of a tiled op between
  /// tiling and vectorization.
  static constexpr StringLiteral kVectorSizes = "fx.vector_sizes";

  static bool isContraction(Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return linalgOp && linalg::isaContractionOpInterface(linalgOp);
  }

  /// Rewrites a 1x1 convolution of one image (N = 1, static shapes) as
  /// matmul([F, C] filter, [C, H * W] input) into [F, H * W]: the register
  /// tiles of matmuls then run along the flattened pixels, whole vectors
  /// even for a 7x7 image (a convolution tile's vectors run along one row:
  /// 7 of 16 lanes there). Inside a dispatch region the input is a slice of
  /// whole rows (its tiles for 1x1 convolutions), which bufferizes to a
  /// collapsible view.
  /// A contraction computed as dot products: both operands read along k
  /// for at least dot-min-k elements, or for a register's worth when it has
  /// a single row (a matrix-vector product, where the outer products would
  /// read B across its rows).
  std::optional<linalg::ContractionDimensions>
  dotContraction(linalg::LinalgOp op) {
    std::optional<linalg::ContractionDimensions> dims =
        fx::getDotContraction(op, registerLanes);
    if (!dims)
      return std::nullopt;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges[dims->m.front()] == 1 || ranges[dims->k.front()] >= dotMinK)
      return dims;
    return std::nullopt;
  }

  static void rewritePointwiseAsMatmul(IRRewriter &rewriter,
                                       linalg::Conv2DNchwFchwOp conv) {
    std::optional<fx::StaticConvTypes> types = fx::getStaticConvTypes(conv);
    if (!types)
      return;
    RankedTensorType inputType = types->input, outputType = types->output;
    if (inputType.getDimSize(0) != 1 || inputType.getShape().drop_front(2) !=
                                            outputType.getShape().drop_front(2))
      return;
    Location loc = conv.getLoc();
    rewriter.setInsertionPoint(conv);
    // The [F, C] filter by the image as [C, H * W]; for one pixel
    // (squeeze-and-excitation's 1x1 image), the matvec of `linear`, the
    // image as [1, C] by the filter read as [F, C]^T, which the dot-product
    // tiles read along C (as [F, C] x [C, 1] the register tiles gathered
    // the filter's columns: 1152 -> 48 took 280 us serially).
    bool onePixel = inputType.getDimSize(2) * inputType.getDimSize(3) == 1;
    SmallVector<ReassociationIndices> weights = {{0}, {1, 2, 3}};
    SmallVector<ReassociationIndices> image =
        onePixel ? weights : SmallVector<ReassociationIndices>{{0, 1}, {2, 3}};
    Value input = tensor::CollapseShapeOp::create(rewriter, loc,
                                                  conv.getInputs()[0], image);
    Value filter = tensor::CollapseShapeOp::create(
        rewriter, loc, conv.getInputs()[1], weights);
    Value init = tensor::CollapseShapeOp::create(rewriter, loc,
                                                 conv.getOutputs()[0], image);
    auto matmul = linalg::MatmulOp::create(
        rewriter, loc, init.getType(),
        onePixel ? ValueRange{input, filter} : ValueRange{filter, input}, init);
    if (onePixel)
      matmul.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(
          fx::matmulIndexingMaps(rewriter.getContext(),
                                 /*transposedB=*/true)));
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        conv, outputType, matmul.getResult(0), image);
  }

  /// Tiles of at most `most` along `size` as even as whole numbers allow:
  /// as many tiles as `most` needs, the first ones one wider where `size`
  /// does not divide. A packed convolution's rows (dispatch-region tiles
  /// of whole rows) in register tiles of AVX2's 6 columns ran a 7-column
  /// row as 6 + 1: a column tile of one reads two filter vectors and a
  /// broadcast per two FMAs. On a Zen 5, code for x86-64-v3, one thread:
  /// a 3x3 convolution of 512 channels at 7x7 2.65 -> 2.39 ms (4 + 3), of
  /// 256 at 14x14 2.08 -> 2.01 (5 + 5 + 4); with whole rows instead of
  /// 8-column region tiles (each 6 + 2), 64 at 56x56 2.35 -> 1.97.
  static int64_t balancedTile(int64_t size, int64_t most) {
    if (ShapedType::isDynamic(size) || size <= 0 || most <= 0)
      return most;
    return llvm::divideCeil(size, llvm::divideCeil(size, most));
  }

  /// Input channels per step of a convolution tile: the largest divisor
  /// of `channels` up to conv-tile-c (the step's updates are unrolled).
  int64_t channelStep(int64_t channels) {
    if (ShapedType::isDynamic(channels))
      return 1;
    for (int64_t c = std::min<int64_t>(convTileC, channels); c > 1; --c)
      if (channels % c == 0)
        return c;
    return 1;
  }

  static bool isPackedConv(Operation *op) {
    return isa<linalg::GenericOp>(op) && op->hasAttr(fx::kPackedConvAttr);
  }

  /// Tile sizes for `op`, one per loop, or empty to leave it alone.
  SmallVector<int64_t> chooseTileSizes(linalg::LinalgOp op) {
    unsigned numLoops = op.getNumLoops();
    if (numLoops == 0)
      return {};
    // A packed convolution tile (fx-cpu-pack-convolutions): loops (w, f,
    // c, kh, kw); a block of columns, all its channels, a step of input
    // channels and one window position (vectorizePackedConvTile).
    if (isPackedConv(op)) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      return {balancedTile(ranges[0], packedConvTileW), 0,
              channelStep(ranges[2]), 1, 1};
    }
    // A 2-d convolution is tiled to one output row, a block of output
    // channels and columns, and one (kh, kw) window position: each static
    // tile becomes outer products (vectorizeConvTile).
    // Loops: (n, f, oh, ow, c, kh, kw). The input channels are stepped
    // through in full tiles (a divisor of c): the vectorized tile unrolls
    // one outer product per channel, so a whole 512-channel reduction would
    // unroll 512 of them per window position.
    if (isa<linalg::Conv2DNchwFchwOp>(op.getOperation()))
      return {
          1, convTileF, 1, convTileW, channelStep(op.getStaticLoopRanges()[4]),
          1, 1};
    // A depthwise convolution of unit dilation (fx::isRowTiledDepthwise):
    // depthwise-tile-c channels, fx::kDepthwiseTileRows output rows, a
    // block of columns and the whole window (vectorizeDepthwiseRows). With
    // 4 channels of 4 rows, 16 independent FMA chains, as many as the
    // one-row tiles of 16 channels had (one channel's 4 chains of 9 or 25
    // dependent FMAs left the FMA units waiting on 7x7 and 14x14 images).
    // Others, one output row, a block of channels and columns, one window
    // position (vectorizeConvTile). Loops: (n, oh, ow, c, kh, kw).
    if (fx::isRowTiledDepthwise(op))
      return {1, fx::kDepthwiseTileRows, convTileW, depthwiseTileC, 0, 0};
    if (isa<linalg::DepthwiseConv2DNchwChwOp>(op.getOperation()))
      return {1, 1, convTileW, convTileF, 1, 1};
    // Max and sum pooling, likewise. Loops: (n, c, oh, ow, kh, kw).
    if (isRowTiledPooling(op))
      return {1, depthwiseTileC, fx::kDepthwiseTileRows, convTileW, 0, 0};
    if (isa<linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(
            op.getOperation()))
      return {1, convTileF, 1, convTileW, 1, 1};
    // Pooling and other convolutions stay loops.
    if (isa<linalg::ConvolutionOpInterface>(op.getOperation()))
      return {};
    SmallVector<int64_t> sizes(numLoops, 1);
    // Dot-product contractions with a long k: M x N dot products with the
    // whole k in the tile (vectorizeDotTile).
    if (std::optional<linalg::ContractionDimensions> dot = dotContraction(op)) {
      sizes[dot->m.front()] = dotTileM;
      sizes[dot->n.front()] = dotTileN;
      sizes[dot->k.front()] = 0;
      return sizes;
    }
    if (linalg::isaContractionOpInterface(op)) {
      FailureOr<linalg::ContractionDimensions> dims =
          linalg::inferContractionDims(op);
      if (succeeded(dims) && dims->m.size() == 1 && dims->n.size() == 1 &&
          dims->k.size() == 1) {
        // A remainder tile wider than one register but narrower than two
        // (49 columns: 32 + 17) becomes a vector LLVM cannot hold in
        // registers (vector<8x17xf32> was scalarized and spilled: a 1x1
        // convolution of a 7x7 image ran at 8 GFLOP/s). One-register tiles
        // leave a remainder of less than a register instead, and take as
        // many more rows as they have fewer columns: as many accumulators
        // as the full tile, enough independent FMAs to hide their latency
        // (8 rows of one register kept half the FMA units busy: a 1x1
        // convolution 320 -> 1280 of a 7x7 image at 42-70 GFLOP/s on one
        // thread).
        SmallVector<int64_t> ranges = op.getStaticLoopRanges();
        int64_t n = ranges[dims->n.front()];
        int64_t m = ranges[dims->m.front()];
        int64_t columns = tileN, rows = tileM;
        if (!ShapedType::isDynamic(n) && n % tileN > registerLanes &&
            tileN > registerLanes) {
          columns = registerLanes;
          rows = tileM * (tileN / registerLanes);
          // Rows the op does not have would be a remainder tile as costly
          // as a full one.
          if (!ShapedType::isDynamic(m) && m % rows != 0 && m % tileM == 0)
            rows = tileM;
        }
        sizes[dims->m.front()] = rows;
        sizes[dims->n.front()] = columns;
        return sizes;
      }
    }
    sizes.back() = vectorWidth;
    if (std::optional<int64_t> across = transposedLoop(op))
      sizes[*across] = vectorWidth;
    return sizes;
  }

  /// The loop along which an elementwise op reads an input's contiguous
  /// rows while it writes along its innermost loop (an input transposed:
  /// a packed convolution's [W, F] accumulator unpacked into NCHW rows),
  /// where that loop has whole vectors and the innermost one a static size
  /// (its last tile masked); nothing otherwise. Tiled by a vector along
  /// both, the op reads a square block of the input a row at a time and
  /// transposes it in registers (shuffles); tiled along the innermost loop
  /// alone, each output row gathered a strided column of the input, an
  /// element at a time (a third of mobilenet_v2's stem; squeezenet's 3x3
  /// stride-2 stem, 111 columns, 195 -> 121 us on a Zen 5 once partial
  /// widths took the transposes too).
  std::optional<int64_t> transposedLoop(linalg::LinalgOp op) {
    if (op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1)
      return std::nullopt;
    int64_t last = op.getNumLoops() - 1;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto wholeVectors = [&](int64_t loop) {
      return !ShapedType::isDynamic(ranges[loop]) &&
             ranges[loop] % vectorWidth == 0;
    };
    if (ShapedType::isDynamic(ranges[last]))
      return std::nullopt;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (map.getNumResults() < 2 || !map.isProjectedPermutation())
        continue;
      auto inner = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (!inner || inner.getPosition() == last || !map.isFunctionOfDim(last) ||
          !wholeVectors(inner.getPosition()))
        continue;
      return inner.getPosition();
    }
    return std::nullopt;
  }

  /// Splits the outermost parallel loop (with at least two iterations) of a
  /// large op into one scf.forall chunk per thread; returns the op to tile
  /// further (the chunk's op, or `op` itself).
  linalg::LinalgOp distribute(IRRewriter &rewriter, linalg::LinalgOp op) {
    int64_t numThreads = fx::resolveThreadCount(threads);
    SmallVector<int64_t> tileSizes = chooseTileSizes(op);
    // Ops inside a dispatch region's loops are already a thread's share.
    if (numThreads < 2 || tileSizes.empty() || isPackedConv(op) ||
        op->getParentOfType<scf::ForallOp>() ||
        op->getParentOfType<scf::ForOp>())
      return op;
    // The first loop with at least two iterations, if it and all loops
    // before it are parallel (a batch of 1 is skipped over).
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t dim = 0;
    while (dim < static_cast<int64_t>(ranges.size()) && ranges[dim] == 1 &&
           iterators[dim] == utils::IteratorType::parallel)
      ++dim;
    // A dot-product contraction with more columns than rows (`linear` of
    // 49 tokens into 3072 features) is split by columns: split by rows,
    // every thread would stream the whole weight (9 MiB) through the cache
    // (49 x 768 -> 3072 took longer on two threads than on one).
    if (std::optional<linalg::ContractionDimensions> dot = dotContraction(op)) {
      int64_t m = dot->m.front(), n = dot->n.front();
      if (!ShapedType::isDynamic(ranges[n]) &&
          (ShapedType::isDynamic(ranges[m]) || ranges[n] > ranges[m]) &&
          ranges[n] >= dotTileN * numThreads)
        dim = n;
    }
    // A depthwise convolution (loops n, oh, ow, c, kh, kw) is split by
    // channels, as dispatch regions split those with an epilogue: split by
    // output rows, a 7x7 image went to the threads as 4 and 3 rows, and
    // the 3-row chunk (a dynamic size) stayed scalar. ConvNeXt's lone
    // depthwise 7x7 of 768 channels at 7x7 (its bias add fused into the
    // layer norm after it) took 450 us instead of 80 on an AVX-512 Xeon
    // with 2 threads.
    if (isa<linalg::DepthwiseConv2DNchwChwOp>(op.getOperation()) &&
        !ShapedType::isDynamic(ranges[3]) &&
        ranges[3] >= numThreads * std::max<int64_t>(tileSizes[3], 1))
      dim = 3;
    if (dim == static_cast<int64_t>(ranges.size()) ||
        iterators[dim] != utils::IteratorType::parallel ||
        ShapedType::isDynamic(ranges[dim]) || ranges[dim] < 2)
      return op;
    if (fx::staticIterationCount(op) < parallelMinWork)
      return op;
    auto tileable = dyn_cast<TilingInterface>(op.getOperation());
    if (!tileable)
      return op;
    // Chunks of whole register tiles, so each chunk peels like the full op;
    // but equal chunks when the threads divide the loop: a last chunk of
    // another size has a dynamic size, and tiles of dynamic size stay
    // scalar (AVX2's 12-channel convolution tiles in 64 channels: chunks of
    // 36 and 28 ran 2 threads at 0.2x of oneDNN, slower than one thread).
    int64_t granule = std::max<int64_t>(tileSizes[dim], 1);
    int64_t chunk = llvm::divideCeil(ranges[dim], numThreads);
    if (ranges[dim] % numThreads != 0)
      chunk = llvm::divideCeil(chunk, granule) * granule;
    SmallVector<int64_t> sizes(ranges.size(), 0);
    sizes[dim] = chunk;
    scf::SCFTilingOptions options;
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    options.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled =
        tileFusingFill(rewriter, tileable, options);
    if (failed(tiled))
      return op;
    return cast<linalg::LinalgOp>(tiled->tiledOps.back());
  }

  /// Whether `op` is a fill whose every use starts a pooling or a
  /// depthwise convolution (isRowTiledWindow) as its initial value.
  static bool startsRowTiledOnly(linalg::LinalgOp op) {
    return isa<linalg::FillOp>(op.getOperation()) && !op->use_empty() &&
           llvm::all_of(op->getUses(), [](OpOperand &use) {
             auto window = dyn_cast<linalg::LinalgOp>(use.getOwner());
             return window && isRowTiledWindow(window) &&
                    window.isDpsInit(&use);
           });
  }

  /// scf::tileUsingSCF, with `op` replaced by the tiled loops' results. A
  /// pooling or depthwise convolution whose initial value is a fill (max
  /// pooling's -inf, a convolution's zeros) takes the fill into its tiles:
  /// vectorizeDepthwiseRows then starts from the fill's value, and no loop
  /// fills the output first.
  static FailureOr<scf::SCFTilingResult>
  tileFusingFill(RewriterBase &rewriter, TilingInterface op,
                 const scf::SCFTilingOptions &options) {
    linalg::FillOp fill;
    if (isRowTiledWindow(op))
      fill = cast<linalg::LinalgOp>(op.getOperation())
                 .getDpsInits()[0]
                 .getDefiningOp<linalg::FillOp>();
    if (!fill) {
      FailureOr<scf::SCFTilingResult> tiled =
          scf::tileUsingSCF(rewriter, op, options);
      if (succeeded(tiled))
        rewriter.replaceOp(op, tiled->replacements);
      return tiled;
    }
    scf::SCFTileAndFuseOptions fuse;
    fuse.setTilingOptions(options);
    fuse.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (producer.getOwner() != fill.getOperation())
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    FailureOr<scf::SCFTileAndFuseResult> fused =
        scf::tileConsumerAndFuseProducersUsingSCF(rewriter, op, fuse);
    if (failed(fused))
      return failure();
    scf::SCFTilingResult tiled;
    tiled.loops = fused->loops;
    for (Operation *tiledOp : fused->tiledAndFusedOps)
      if (isRowTiledWindow(tiledOp))
        tiled.tiledOps.push_back(tiledOp);
    for (OpResult result : op->getResults()) {
      Value replacement = fused->replacements.lookup(result);
      tiled.replacements.push_back(replacement);
      rewriter.replaceAllUsesWith(result, replacement);
    }
    rewriter.eraseOp(op);
    if (fill->use_empty())
      rewriter.eraseOp(fill);
    return tiled;
  }

  /// Cache blocking of a matmul tiled as outer products: its register tiles
  /// walk n inside m, each reading a k x tile-n panel of the rhs, so every
  /// row tile of the lhs reads the whole rhs; an rhs larger than the L2
  /// cache then streams from memory once per row tile (a 1024^3 matmul
  /// took 1.5x the time per multiply of a 512^3 one). Here n is first
  /// stepped through in blocks of cache-block-bytes of the rhs (whole
  /// register tiles; the loop peeled, so the last block is static too),
  /// which the row tiles of the lhs then reuse from the cache. Returns the
  /// ops to tile into registers.
  static constexpr int64_t kCacheBlockK = 256;
  SmallVector<linalg::LinalgOp> blockForCache(IRRewriter &rewriter,
                                              linalg::LinalgOp op) {
    SmallVector<linalg::LinalgOp> result = {op};
    if (cacheBlockBytes <= 0 || !isContraction(op) || dotContraction(op) ||
        !op.hasPureTensorSemantics())
      return result;
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
        dims->k.size() != 1 || !dims->batch.empty())
      return result;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t m = ranges[dims->m.front()], n = ranges[dims->n.front()],
            k = ranges[dims->k.front()];
    if (llvm::any_of(ArrayRef<int64_t>{m, n, k}, ShapedType::isDynamic))
      return result;
    int64_t bytes = getElementTypeOrSelf(op.getDpsInputs()[1].getType())
                        .getIntOrFloatBitWidth() /
                    8;
    // k in steps of at most kCacheBlockK (a longer panel of a row-major
    // rhs with a power-of-two row length maps to too few cache sets: the
    // 1024^3 matmul gained nothing from blocking n alone), n in blocks of
    // that many rows by cache-block-bytes.
    int64_t blockK = k > 2 * kCacheBlockK ? kCacheBlockK : k;
    int64_t blockN =
        std::max<int64_t>(1, cacheBlockBytes / (blockK * bytes) / tileN) *
        tileN;
    // Only long reductions: with a short k (a 1x1 convolution of few
    // channels) a register tile's panel of the rhs is small, and blocking
    // made efficientnet_b0 slower (9.7 -> 10.8 ms on 2 threads).
    if (k <= kCacheBlockK || (n <= blockN && blockK == k) || m <= tileM)
      return result;
    auto tileable = dyn_cast<TilingInterface>(op.getOperation());
    if (!tileable)
      return result;
    SmallVector<int64_t> sizes(ranges.size(), 0);
    sizes[dims->n.front()] = n > blockN ? blockN : 0;
    sizes[dims->k.front()] = blockK == k ? 0 : blockK;
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled =
        scf::tileUsingSCF(rewriter, tileable, options);
    if (failed(tiled) || tiled->loops.empty())
      return result;
    rewriter.replaceOp(op, tiled->replacements);
    // Peeled innermost first (as `tile` does), so that every block is
    // static.
    SmallVector<Operation *> roots = {tiled->loops.front().getOperation()};
    for (LoopLikeOpInterface loop : llvm::reverse(tiled->loops)) {
      scf::ForOp partial;
      if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
        (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial);
      if (partial && loop == tiled->loops.front())
        roots.push_back(partial);
    }
    result.clear();
    for (Operation *root : roots)
      root->walk([&](linalg::LinalgOp inner) {
        if (isContraction(inner))
          result.push_back(inner);
      });
    return result;
  }

  void tile(IRRewriter &rewriter, linalg::LinalgOp op) {
    SmallVector<int64_t> sizes = chooseTileSizes(op);
    if (sizes.empty())
      return;
    auto tileable = dyn_cast<TilingInterface>(op.getOperation());
    if (!tileable)
      return;
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
    // Dot-product tiles step through the dimension of the larger operand
    // outside: each of its row blocks is read once while the smaller
    // operand, read again for every block, stays in cache (49 x 3072 by
    // 768 x 3072: n outside; 3136 x 384 by 96 x 384: m outside).
    if (std::optional<linalg::ContractionDimensions> dot = dotContraction(op)) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      int64_t m = dot->m.front(), n = dot->n.front();
      bool nOutside = !ShapedType::isDynamic(ranges[m]) &&
                      !ShapedType::isDynamic(ranges[n]) &&
                      ranges[n] > ranges[m];
      SmallVector<int64_t> order =
          llvm::to_vector(llvm::seq<int64_t>(0, op.getNumLoops()));
      std::swap(order[m], order[n]);
      if (nOutside == (m < n))
        options.setInterchange(order);
    }
    // Depthwise tiles walk one block of channels' rows at a time (their
    // rows stay in cache for the next row tile, which shares KH - stride
    // of them).
    if (fx::isRowTiledDepthwise(op))
      options.setInterchange({0, 3, 1, 2, 4, 5});
    rewriter.setInsertionPoint(op);
    // A packed convolution's window rows that read only the padding of its
    // input (loops (w, f, c, kh, kw); undilated rows: the input's row index
    // is kh).
    std::optional<std::pair<OpFoldResult, OpFoldResult>> liveRows;
    if (isPackedConv(op) &&
        op.getMatchingIndexingMap(op.getDpsInputOperand(0)).getResult(2) ==
            rewriter.getAffineDimExpr(3))
      liveRows = liveWindowRows(rewriter, op.getLoc(), op.getDpsInputs()[0],
                                op.getStaticLoopRanges()[3]);
    FailureOr<scf::SCFTilingResult> tiled =
        tileFusingFill(rewriter, tileable, options);
    if (failed(tiled))
      return;
    if (liveRows)
      restrictWindowRows(rewriter, *tiled, *liveRows,
                         op.getStaticLoopRanges()[3]);
    auto sizesAttr = rewriter.getDenseI64ArrayAttr(sizes);
    for (Operation *tiledOp : tiled->tiledOps)
      tiledOp->setAttr(kVectorSizes, sizesAttr);
    if (!isContraction(tiled->tiledOps.back()) &&
        !isPackedConv(tiled->tiledOps.back()) &&
        !isa<linalg::Conv2DNchwFchwOp, linalg::DepthwiseConv2DNchwChwOp,
             linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(
            tiled->tiledOps.back()))
      return;
    // Peel every tile loop: the main loops then step over full tiles only
    // and the remainders get static sizes when the bounds are static
    // (dynamic ones stay scalar). Innermost first: peeling an outer loop
    // copies its body for the remainder, and an inner loop peeled before
    // is copied peeled (outermost first left the inner loops of the
    // remainder copies unpeeled, with dynamic tiles: AVX2's 12-channel by
    // 8-column convolution tiles over 128 channels and 28 columns).
    for (LoopLikeOpInterface loop : llvm::reverse(tiled->loops)) {
      auto forOp = dyn_cast<scf::ForOp>(loop.getOperation());
      scf::ForOp partial;
      if (forOp)
        (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial);
    }
  }

  /// Runs the kh loop of a tiled packed convolution (the tile loops of
  /// (w, c, kh, kw), one window row a step) over the window rows [first,
  /// first + count) only.
  static void restrictWindowRows(IRRewriter &rewriter,
                                 const scf::SCFTilingResult &tiled,
                                 std::pair<OpFoldResult, OpFoldResult> rows,
                                 int64_t kH) {
    if (tiled.loops.size() < 2)
      return;
    LoopLikeOpInterface khLoop = tiled.loops[tiled.loops.size() - 2];
    auto loop = dyn_cast<scf::ForOp>(khLoop.getOperation());
    if (!loop || !isConstantIntValue(loop.getLowerBound(), 0) ||
        !isConstantIntValue(loop.getUpperBound(), kH) ||
        !isConstantIntValue(loop.getStep(), 1))
      return;
    Location loc = loop.getLoc();
    LoopLikeOpInterface outer = tiled.loops.front();
    rewriter.setInsertionPoint(outer.getOperation());
    Value first = getValueOrCreateConstantIndexOp(rewriter, loc, rows.first);
    Value count = getValueOrCreateConstantIndexOp(rewriter, loc, rows.second);
    loop.setLowerBound(first);
    loop.setUpperBound(arith::AddIOp::create(rewriter, loc, first, count));
  }

  void vectorize(IRRewriter &rewriter, Operation *op) {
    auto sizes = op->getAttrOfType<DenseI64ArrayAttr>(kVectorSizes);
    op->removeAttr(kVectorSizes);
    if (reducesUniformValue(cast<linalg::LinalgOp>(op)))
      return;
    if (isPackedConv(op)) {
      (void)vectorizePackedConvTile(rewriter, cast<linalg::GenericOp>(op));
      return;
    }
    // Convolution tiles of static shape become outer products; the others
    // (dynamic partial tiles) stay loops.
    if (isa<linalg::Conv2DNchwFchwOp, linalg::DepthwiseConv2DNchwChwOp,
            linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(op)) {
      if (succeeded(vectorizeDepthwiseRows(rewriter, cast<linalg::LinalgOp>(op),
                                           registerLanes)))
        return;
      (void)vectorizeConvTile(rewriter, cast<linalg::LinalgOp>(op),
                              registerLanes);
      return;
    }
    if (std::optional<linalg::ContractionDimensions> dot =
            dotContraction(cast<linalg::LinalgOp>(op))) {
      (void)vectorizeDotTile(rewriter, cast<linalg::LinalgOp>(op),
                             registerLanes);
      return;
    }
    bool contraction = isContraction(op);
    auto linalgOp = cast<linalg::LinalgOp>(op);
    // A contraction is vectorized only as a full tile: masked contractions
    // do not lower reliably (measured: wrong results on the im2col path).
    if (contraction && !linalgOp.hasPureTensorSemantics())
      return;
    if (contraction && !llvm::all_of(op->getOperandTypes(), [](Type t) {
          auto shaped = dyn_cast<ShapedType>(t);
          return !shaped || shaped.hasStaticShape();
        }))
      return;
    SmallVector<int64_t> vectorSizes;
    if (!contraction)
      vectorSizes.assign(sizes.asArrayRef().begin(), sizes.asArrayRef().end());
    // The vectorizer reads one scalable flag per vector size.
    SmallVector<bool> scalable(vectorSizes.size(), false);
    if (failed(linalg::vectorizeOpPrecondition(op, vectorSizes, scalable)))
      return;
    rewriter.setInsertionPoint(op);
    // Contractions become one vector.contract (not broadcast + multiply +
    // multi_reduction), which lowers to outer products.
    FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
        rewriter, op, vectorSizes, scalable,
        /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
        /*assumeDynamicDimsMatchVecSizes=*/false,
        /*createNamedContraction=*/contraction);
    if (failed(result))
      return;
    if (result->replacements.empty())
      rewriter.eraseOp(op);
    else
      rewriter.replaceOp(op, result->replacements);
  }
};

} // namespace

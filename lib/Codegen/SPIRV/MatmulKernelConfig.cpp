//===- MatmulKernelConfig.cpp - GEMM view and tile choice -----------------===//
//
// Which linalg ops are GEMMs (a multiply-accumulate body), their GEMM view
// (row, column, reduction and batch loop groups) and the tile the SIMT
// kernel uses for them.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

namespace mlir::fx::matmul {

/// 128-wide tiles along the dimensions that are at least that long when
/// that still gives enough workgroups to fill a large GPU (256), else
/// 64x64. (32x32 tiles where only those fill an H200, 2x2 outputs per
/// thread, were slower for batch-1 models: resnet18 0.58 -> 0.68 ms,
/// efficientnet_b0 1.17 -> 1.21.) Every configuration uses about 8-12 KiB
/// of workgroup memory, under Vulkan's guaranteed 16 KiB.
static TileConfig chooseTileShape(int64_t batch, int64_t rows, int64_t cols) {
  auto tiles = [&](int64_t m, int64_t n) {
    return batch * llvm::divideCeil(rows, m) * llvm::divideCeil(cols, n);
  };
  if (rows >= 128 && cols >= 128 && tiles(128, 128) >= 256)
    return {128, 128, 8, 8, 8};
  if (cols >= 128 && tiles(64, 128) >= 256)
    return {64, 128, 8, 4, 8};
  if (rows >= 128 && tiles(128, 64) >= 256)
    return {128, 64, 8, 8, 4};
  // Outputs of at most 32 columns (attention's probabilities times values
  // at a head size of 32) would leave half of a 64x64 tile's threads idle.
  // On an H200 (alternated in one call, GPU time): the transformer
  // encoder's two such products 14.5 -> 12.1 and 12.9 -> 10.9 us, the model
  // 0.247 -> 0.242 ms; efficientnet_b0 0.705 -> 0.701.
  if (cols <= 32)
    return {64, 32, 16, 4, 2};
  return {64, 64, 16, 4, 4};
}

TileConfig chooseTile(int64_t batch, int64_t rows, int64_t cols,
                      int64_t reduction, bool maySplit) {
  TileConfig tile = chooseTileShape(batch, rows, cols);
  int64_t tiles =
      batch * llvm::divideCeil(rows, tile.m) * llvm::divideCeil(cols, tile.n);
  tile.kPerSplit = reduction;
  if (tiles >= 128 || !maySplit)
    return tile;
  // About two workgroups per SM of a large GPU, each reducing at least two
  // k steps (see chooseCoopGemm for what that gained over four).
  int64_t splits =
      std::min<int64_t>(llvm::divideCeil(256, tiles), reduction / (2 * tile.k));
  if (splits < 2)
    return tile;
  std::tie(tile.kPerSplit, tile.splits) =
      splitReduction(reduction, splits, tile.k);
  return tile;
}

std::string sizeText(const Group &group) {
  return group.isDynamic() ? "?" : std::to_string(group.size());
}

bool isMultiplyAccumulate(Block &body) {
  if (body.getNumArguments() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  auto stripCasts = [](Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (!isa<arith::ExtFOp, arith::TruncFOp>(def))
        break;
      v = def->getOperand(0);
    }
    return v;
  };
  for (int side = 0; side < 2; ++side) {
    if (add.getOperand(side) != body.getArgument(2))
      continue;
    auto mul = add.getOperand(1 - side).getDefiningOp<arith::MulFOp>();
    if (!mul)
      return false;
    Value x = stripCasts(mul.getLhs()), y = stripCasts(mul.getRhs());
    return (x == body.getArgument(0) && y == body.getArgument(1)) ||
           (x == body.getArgument(1) && y == body.getArgument(0));
  }
  return false;
}

bool isWindowReduction(Block &body) {
  if (body.getNumArguments() != 3)
    return false;
  Operation *combiner = cast<linalg::YieldOp>(body.getTerminator())
                            .getValues()[0]
                            .getDefiningOp();
  if (!isa_and_nonnull<arith::MaximumFOp, arith::MaxNumFOp, arith::AddFOp>(
          combiner) ||
      combiner->getBlock() != &body)
    return false;
  Value acc = body.getArgument(2), a = body.getArgument(0);
  return (combiner->getOperand(0) == acc && combiner->getOperand(1) == a) ||
         (combiner->getOperand(0) == a && combiner->getOperand(1) == acc);
}

FailureOr<GemmView> analyze(linalg::LinalgOp op, std::string &why) {
  auto fail = [&](StringRef reason) {
    why = reason.str();
    return failure();
  };
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return fail("not a two-input op on buffers");
  for (OpOperand &operand : op->getOpOperands())
    if (!isa<FloatType>(getElementTypeOrSelf(operand.get().getType())))
      return fail("not a floating-point matmul");
  if (!isMultiplyAccumulate(op->getRegion(0).front()))
    return fail("its body is not a multiply-accumulate");
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps[2];
  if (!outMap.isProjectedPermutation())
    return fail("the output is not indexed by loop variables");

  GemmView view;
  Group onlyA, onlyB;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < op.getNumLoops(); ++d) {
    if (iterators[d] == utils::IteratorType::reduction) {
      view.reduction.add(d, ranges[d]);
      continue;
    }
    if (!outMap.isFunctionOfDim(d))
      return fail("a parallel loop does not index the output");
    bool inA = maps[0].isFunctionOfDim(d), inB = maps[1].isFunctionOfDim(d);
    if (inA && inB)
      view.batch.add(d, ranges[d]);
    else if (inA)
      onlyA.add(d, ranges[d]);
    else if (inB)
      onlyB.add(d, ranges[d]);
    else
      return fail("a parallel loop indexes neither input");
  }
  if (onlyA.loops.empty() || onlyB.loops.empty())
    return fail("a matrix-vector product");
  if (view.reduction.isDynamic())
    return fail("a dynamic reduction size");
  if (view.reduction.size() < kMinReduction)
    return fail("a reduction shorter than " + std::to_string(kMinReduction));
  // Neighbouring threads own neighbouring columns: the columns are the
  // group of the output's innermost loop, so that stores coalesce.
  unsigned innermost =
      cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
  bool colsAreA = llvm::is_contained(onlyA.loops, innermost);
  view.cols = colsAreA ? onlyA : onlyB;
  view.rows = colsAreA ? onlyB : onlyA;
  view.rowOperand = colsAreA ? 1 : 0;
  // A dynamic batch: the outermost loop of a group (a linear layer's
  // tokens in the rows, an NCHW convolution's images in the columns, a
  // batched matmul's batch).
  for (const Group *group : {&view.rows, &view.cols, &view.batch})
    if (group->sizes.size() > 1 &&
        llvm::any_of(ArrayRef<int64_t>(group->sizes).drop_front(),
                     ShapedType::isDynamic))
      return fail("a dynamic size that is not the outermost of its group");
  return view;
}

} // namespace mlir::fx::matmul

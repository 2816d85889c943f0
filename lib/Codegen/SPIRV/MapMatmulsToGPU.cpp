//===- MapMatmulsToGPU.cpp - the fx-map-matmuls-to-gpu pass ---------------===//
//
// Matmuls and convolutions (linalg ops whose body is a multiply-accumulate
// of two inputs) become a gpu.launch over their GEMM view: output rows and
// columns are each a group of parallel loops (a convolution's columns are
// its batch and output pixels, its rows the output channels: an implicit
// GEMM), the reduction loops are k. Workgroups tile the output and stage
// tiles of both operands through workgroup memory; each thread accumulates
// a TM x TN block of the workgroup's tile in registers.
//
// Written by hand rather than through linalg tiling + promotion (IREE's
// route) because the project's GPU mappers work on bufferized linalg ops
// with explicit gpu.launch bodies, and because the load layout (which
// operand dimension neighbouring threads walk) is chosen from each
// operand's memory layout, which tiling alone does not express. The
// multiply-accumulate itself is the op's own body, cloned.
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/SPIRV/GPUUtils.h"
#include "fx/Codegen/SPIRV/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXMAPMATMULSTOGPU
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

constexpr unsigned kWorkgroupMemorySpace = 3;
/// Reductions shorter than this stay one-thread-per-output kernels: a
/// staged tile would hold a few columns.
constexpr int64_t kMinReduction = 8;
/// Every configuration uses this many threads.
constexpr int64_t kThreads = 256;

/// A workgroup's tile and its split over threads.
struct TileConfig {
  int64_t m, n, k;                // output rows and columns, k step
  int64_t perThreadM, perThreadN; // each thread's block of the output
  /// Split-k: workgroups per output tile, each reducing kPerSplit of k.
  int64_t splits = 1, kPerSplit = 0;
};

/// 128-wide tiles along the dimensions that are at least that long when
/// that still gives enough workgroups to fill a large GPU (256), else
/// 64x64. Every configuration uses about 8-12 KiB of workgroup memory, under
/// Vulkan's guaranteed 16 KiB.
TileConfig chooseTileShape(int64_t batch, int64_t rows, int64_t cols) {
  auto tiles = [&](int64_t m, int64_t n) {
    return batch * llvm::divideCeil(rows, m) * llvm::divideCeil(cols, n);
  };
  if (rows >= 128 && cols >= 128 && tiles(128, 128) >= 256)
    return {128, 128, 8, 8, 8};
  if (cols >= 128 && tiles(64, 128) >= 256)
    return {64, 128, 8, 4, 8};
  if (rows >= 128 && tiles(128, 64) >= 256)
    return {128, 64, 8, 8, 4};
  return {64, 64, 16, 4, 4};
}

/// The tile, split over k when the output has fewer than 128 tiles and k is
/// long (a ResNet's last convolutions: 512 x 49 outputs, k = 4608): up to
/// 256 workgroups in all, each reducing at least 4 k steps. The partial
/// sums go to a temporary buffer that a second kernel adds to the output.
TileConfig chooseTile(int64_t batch, int64_t rows, int64_t cols,
                      int64_t reduction, bool maySplit) {
  TileConfig tile = chooseTileShape(batch, rows, cols);
  int64_t tiles =
      batch * llvm::divideCeil(rows, tile.m) * llvm::divideCeil(cols, tile.n);
  tile.kPerSplit = reduction;
  if (tiles >= 128 || !maySplit)
    return tile;
  int64_t splits =
      std::min<int64_t>(llvm::divideCeil(256, tiles), reduction / (4 * tile.k));
  if (splits < 2)
    return tile;
  tile.kPerSplit =
      llvm::alignTo(llvm::divideCeil(reduction, splits), uint64_t(tile.k));
  tile.splits = llvm::divideCeil(reduction, tile.kPerSplit);
  return tile;
}

/// What tile choice assumes of a dynamic dimension's size: a batch of
/// tokens or images large enough for the large tiles where the static
/// dimensions allow them.
constexpr int64_t kDynamicSizeGuess = 1024;

/// Loops of the GEMM view, outermost first, with their sizes. Only the
/// outermost loop of the rows and batch groups may be dynamic (a batch
/// dimension), its size ShapedType::kDynamic.
struct Group {
  SmallVector<unsigned> loops;
  SmallVector<int64_t> sizes;
  bool isDynamic() const { return llvm::any_of(sizes, ShapedType::isDynamic); }
  /// The size (static groups only).
  int64_t size() const { return computeProduct(sizes); }
  /// The size with kDynamicSizeGuess for the dynamic dimension.
  int64_t guessedSize() const {
    int64_t size = 1;
    for (int64_t s : sizes)
      size *= ShapedType::isDynamic(s) ? kDynamicSizeGuess : s;
    return size;
  }
  void add(unsigned loop, int64_t size) {
    loops.push_back(loop);
    sizes.push_back(size);
  }
};

/// A group's size for messages: "?" when dynamic.
std::string sizeText(const Group &group) {
  return group.isDynamic() ? "?" : std::to_string(group.size());
}

struct GemmView {
  Group rows, cols, reduction, batch;
  /// The input indexed by the row loops (the other by the column loops).
  unsigned rowOperand = 0;
};

/// Whether `body` computes `acc + cast(a) * cast(b)` of its three arguments
/// (casts optional), in floating point.
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

/// The GEMM view of `op` if this pass maps it, else a reason.
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

class GemmKernelBuilder {
public:
  GemmKernelBuilder(linalg::LinalgOp op, const GemmView &view,
                    const TileConfig &tile)
      : op(op), view(view), tile(tile), loc(op.getLoc()) {}

  void build();
  /// The second kernel of split-k: adds the partial sums to the output.
  void buildSplitSum(OpBuilder &b, Value partial);

private:
  Value cst(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  /// Sets `loops`' entries of `group` from the group's linear index.
  void setLoops(OpBuilder &b, const Group &group, Value linear,
                SmallVectorImpl<Value> &loops) {
    SmallVector<Value> parts =
        fx::delinearize(b, loc, linear, loopSizes(b, group));
    for (auto [loop, part] : llvm::zip(group.loops, parts))
      loops[loop] = part;
  }
  /// The sizes of `group`'s loops: constants, or the host values of the
  /// dynamic ones (`extents`).
  SmallVector<OpFoldResult> loopSizes(OpBuilder &b, const Group &group) {
    SmallVector<OpFoldResult> sizes;
    for (auto [loop, size] : llvm::zip(group.loops, group.sizes))
      sizes.push_back(ShapedType::isDynamic(size)
                          ? OpFoldResult(extents[loop])
                          : OpFoldResult(b.getIndexAttr(size)));
    return sizes;
  }
  /// `index` clamped to `group`'s size, and whether it is below it.
  std::pair<Value, Value> clamp(OpBuilder &b, Value index, const Group &group) {
    if (!group.isDynamic())
      return fx::clampIndex(b, loc, index, group.size());
    return fx::clampIndex(b, loc, index, counts.lookup(&group));
  }
  /// The size of `group` computed before the launch at `b` (a dynamic
  /// group's, from its loops' extents), recorded for clamp().
  Value hostCount(OpBuilder &b, const Group &group) {
    Value count = fx::productOf(b, loc, loopSizes(b, group));
    counts[&group] = count;
    return count;
  }
  /// Indices into operand `operand` for the loop values `loops` (loops the
  /// operand does not use may be null).
  SmallVector<Value> indices(OpBuilder &b, unsigned operand,
                             ArrayRef<Value> loops) {
    AffineMap map = op.getIndexingMapsArray()[operand];
    SmallVector<Value> operands;
    for (Value v : loops)
      operands.push_back(v ? v : zero);
    SmallVector<Value> result;
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        result.push_back(loops[dim.getPosition()]);
        continue;
      }
      result.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, expr), operands));
    }
    return result;
  }
  /// Whether operand `operand`'s innermost index moves with the innermost
  /// loop of `group`: then neighbouring threads walk that group.
  bool isInnermost(unsigned operand, const Group &group) {
    AffineMap map = op.getIndexingMapsArray()[operand];
    return map.getNumResults() > 0 &&
           map.getResults().back().isFunctionOfDim(group.loops.back());
  }
  /// Copies this k step's tile of input `operand` (`count` elements of
  /// `group` from `start`, tile.k of the reduction from `kStart`) to
  /// `shared[k][element]`; out-of-range elements are zero.
  void loadTile(OpBuilder &b, unsigned operand, const Group &group,
                int64_t count, Value start, Value kStart, Value shared);

  linalg::LinalgOp op;
  const GemmView &view;
  const TileConfig &tile;
  Location loc;
  Value threadId, zero;
  SmallVector<Value> batchLoops;
  /// Host values of the dynamic loops' sizes, by loop.
  SmallVector<Value> extents;
  /// Host values of the dynamic groups' sizes.
  llvm::DenseMap<const Group *, Value> counts;
};

void GemmKernelBuilder::loadTile(OpBuilder &b, unsigned operand,
                                 const Group &group, int64_t count, Value start,
                                 Value kStart, Value shared) {
  Value source = op->getOperand(operand);
  Type element = getElementTypeOrSelf(source.getType());
  // Neighbouring threads walk the operand's innermost dimension, so that
  // their loads coalesce.
  bool groupFastest = isInnermost(operand, group);
  for (int64_t pass = 0; pass < count * tile.k / kThreads; ++pass) {
    Value e = arith::AddIOp::create(b, loc, threadId, cst(b, pass * kThreads));
    SmallVector<Value> parts =
        fx::delinearize(b, loc, e,
                        groupFastest ? ArrayRef<int64_t>{tile.k, count}
                                     : ArrayRef<int64_t>{count, tile.k});
    Value g = groupFastest ? parts[1] : parts[0];
    Value kk = groupFastest ? parts[0] : parts[1];
    auto [gIndex, gOk] =
        clamp(b, arith::AddIOp::create(b, loc, start, g), group);
    auto [kIndex, kOk] =
        fx::clampIndex(b, loc, arith::AddIOp::create(b, loc, kStart, kk),
                       view.reduction.size());
    SmallVector<Value> loops = batchLoops;
    setLoops(b, group, gIndex, loops);
    setLoops(b, view.reduction, kIndex, loops);
    Value value =
        memref::LoadOp::create(b, loc, source, indices(b, operand, loops));
    Value ok = arith::AndIOp::create(b, loc, gOk, kOk);
    Value zeroValue = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    value = arith::SelectOp::create(b, loc, ok, value, zeroValue);
    memref::StoreOp::create(b, loc, value, shared, ValueRange{kk, g});
  }
}

void GemmKernelBuilder::build() {
  OpBuilder b(op);
  int64_t threadsN = tile.n / tile.perThreadN;
  int64_t threadsM = tile.m / tile.perThreadM;
  Value c1 = cst(b, 1);
  Value out = op.getDpsInits()[0];
  Type accType = getElementTypeOrSelf(out.getType());
  // Split-k partial sums go to [split][batch][row][column] of a temporary.
  Value partial;
  if (tile.splits > 1)
    partial = memref::AllocOp::create(
        b, loc,
        MemRefType::get({tile.splits, view.batch.size(), view.rows.size(),
                         view.cols.size()},
                        accType));
  // A dynamic batch: the host computes the grid from the loops' sizes
  // (never split over k, chooseTile).
  extents.assign(op.getNumLoops(), Value());
  SmallVector<int64_t> staticRanges = op.getStaticLoopRanges();
  if (llvm::any_of(staticRanges, ShapedType::isDynamic)) {
    SmallVector<Range> ranges = op.createLoopRanges(b, loc);
    for (auto [d, range] : llvm::enumerate(ranges))
      if (ShapedType::isDynamic(staticRanges[d]))
        extents[d] = getValueOrCreateConstantIndexOp(b, loc, range.size);
  }
  Value gridX, gridY, gridZ;
  if (view.cols.isDynamic())
    gridX = arith::CeilDivUIOp::create(b, loc, hostCount(b, view.cols),
                                       cst(b, tile.n));
  else
    gridX = cst(b, llvm::divideCeil(view.cols.size(), tile.n));
  if (view.rows.isDynamic())
    gridY = arith::CeilDivUIOp::create(b, loc, hostCount(b, view.rows),
                                       cst(b, tile.m));
  else
    gridY = cst(b, llvm::divideCeil(view.rows.size(), tile.m));
  if (view.batch.isDynamic())
    gridZ = hostCount(b, view.batch);
  else
    gridZ = cst(b, view.batch.size() * tile.splits);
  auto launch = gpu::LaunchOp::create(b, loc, gridX, gridY, gridZ,
                                      cst(b, kThreads), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  threadId = launch.getThreadIds().x;
  zero = cst(body, 0);
  // Split-k: the grid's z is (batch, split).
  Value batchLinear = launch.getBlockIds().z, split = zero;
  if (!view.batch.isDynamic()) {
    SmallVector<Value> batchAndSplit = fx::delinearize(
        body, loc, launch.getBlockIds().z, {view.batch.size(), tile.splits});
    batchLinear = batchAndSplit[0];
    split = batchAndSplit[1];
  }
  batchLoops.assign(op.getNumLoops(), Value());
  if (!view.batch.loops.empty())
    setLoops(body, view.batch, batchLinear, batchLoops);
  Value mStart = arith::MulIOp::create(body, loc, launch.getBlockIds().y,
                                       cst(body, tile.m));
  Value nStart = arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                                       cst(body, tile.n));
  SmallVector<Value> rc =
      fx::delinearize(body, loc, threadId, {threadsM, threadsN});
  Value threadRow = rc[0], threadCol = rc[1];

  unsigned rowOperand = view.rowOperand, colOperand = 1 - view.rowOperand;
  // Tiles are stored k-major so that a thread's reads for one k step are
  // one row; a row of padding keeps the transposing stores of k-fastest
  // loads off a single bank.
  auto workgroupBuffer = [&](unsigned operand, int64_t count) {
    Type element = getElementTypeOrSelf(op->getOperand(operand).getType());
    return memref::AllocOp::create(
        body, loc,
        MemRefType::get({tile.k, count + 1}, element, AffineMap(),
                        body.getI64IntegerAttr(kWorkgroupMemorySpace)));
  };
  Value rowTile = workgroupBuffer(rowOperand, tile.m);
  Value colTile = workgroupBuffer(colOperand, tile.n);

  // The output block of this thread: rows threadRow + threadsM * i, columns
  // threadCol + threadsN * j (neighbouring threads, neighbouring columns).
  SmallVector<SmallVector<Value>> rowLoops, colLoops;
  SmallVector<Value> rowOks, colOks, rowLinear, colLinear;
  auto ownLoops = [&](const Group &group, Value start, Value thread,
                      int64_t stride, int64_t count,
                      SmallVectorImpl<SmallVector<Value>> &loops,
                      SmallVectorImpl<Value> &oks,
                      SmallVectorImpl<Value> &linear) {
    for (int64_t i = 0; i < count; ++i) {
      Value local =
          arith::AddIOp::create(body, loc, thread, cst(body, stride * i));
      auto [index, ok] =
          clamp(body, arith::AddIOp::create(body, loc, start, local), group);
      SmallVector<Value> values(op.getNumLoops());
      setLoops(body, group, index, values);
      loops.push_back(values);
      oks.push_back(ok);
      linear.push_back(index);
    }
  };
  ownLoops(view.rows, mStart, threadRow, threadsM, tile.perThreadM, rowLoops,
           rowOks, rowLinear);
  ownLoops(view.cols, nStart, threadCol, threadsN, tile.perThreadN, colLoops,
           colOks, colLinear);
  auto outIndices = [&](int64_t i, int64_t j) {
    SmallVector<Value> loops = batchLoops;
    for (auto *group : {&view.rows, &view.cols})
      for (unsigned loop : group->loops)
        loops[loop] =
            group == &view.rows ? rowLoops[i][loop] : colLoops[j][loop];
    return indices(body, 2, loops);
  };
  // Accumulators start from the output's values (linalg accumulates into
  // its init); split-k partial sums start from zero.
  SmallVector<Value> inits;
  Value accZero;
  if (tile.splits > 1)
    accZero = arith::ConstantOp::create(body, loc, body.getZeroAttr(accType));
  for (int64_t i = 0; i < tile.perThreadM; ++i)
    for (int64_t j = 0; j < tile.perThreadN; ++j)
      inits.push_back(tile.splits > 1 ? accZero
                                      : memref::LoadOp::create(body, loc, out,
                                                               outIndices(i, j))
                                            .getResult());

  Value kBegin =
      arith::MulIOp::create(body, loc, split, cst(body, tile.kPerSplit));
  Value kEnd = arith::MinUIOp::create(
      body, loc,
      arith::AddIOp::create(body, loc, kBegin, cst(body, tile.kPerSplit)),
      cst(body, view.reduction.size()));
  auto kLoop =
      scf::ForOp::create(body, loc, kBegin, kEnd, cst(body, tile.k), inits);
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value kStart = kLoop.getInductionVar();
    loadTile(kb, rowOperand, view.rows, tile.m, mStart, kStart, rowTile);
    loadTile(kb, colOperand, view.cols, tile.n, nStart, kStart, colTile);
    gpu::BarrierOp::create(kb, loc);
    auto inner = scf::ForOp::create(kb, loc, cst(kb, 0), cst(kb, tile.k),
                                    cst(kb, 1), kLoop.getRegionIterArgs());
    {
      OpBuilder ib = OpBuilder::atBlockBegin(inner.getBody());
      Value kk = inner.getInductionVar();
      SmallVector<Value> rowValues, colValues;
      for (int64_t i = 0; i < tile.perThreadM; ++i) {
        Value local =
            arith::AddIOp::create(ib, loc, threadRow, cst(ib, threadsM * i));
        rowValues.push_back(
            memref::LoadOp::create(ib, loc, rowTile, ValueRange{kk, local}));
      }
      for (int64_t j = 0; j < tile.perThreadN; ++j) {
        Value local =
            arith::AddIOp::create(ib, loc, threadCol, cst(ib, threadsN * j));
        colValues.push_back(
            memref::LoadOp::create(ib, loc, colTile, ValueRange{kk, local}));
      }
      // The op's own body computes each multiply-accumulate.
      Block &opBody = op->getRegion(0).front();
      SmallVector<Value> next;
      ValueRange accs = inner.getRegionIterArgs();
      for (int64_t i = 0; i < tile.perThreadM; ++i)
        for (int64_t j = 0; j < tile.perThreadN; ++j) {
          IRMapping mapping;
          mapping.map(opBody.getArgument(rowOperand), rowValues[i]);
          mapping.map(opBody.getArgument(colOperand), colValues[j]);
          mapping.map(opBody.getArgument(2), accs[i * tile.perThreadN + j]);
          for (Operation &bodyOp : opBody.without_terminator())
            ib.clone(bodyOp, mapping);
          next.push_back(
              mapping.lookupOrDefault(opBody.getTerminator()->getOperand(0)));
        }
      scf::YieldOp::create(ib, loc, next);
    }
    // The next step overwrites the tiles: everyone must be done reading.
    gpu::BarrierOp::create(kb, loc);
    scf::YieldOp::create(kb, loc, inner.getResults());
  }

  for (int64_t i = 0; i < tile.perThreadM; ++i)
    for (int64_t j = 0; j < tile.perThreadN; ++j) {
      Value ok = arith::AndIOp::create(body, loc, rowOks[i], colOks[j]);
      auto guard = scf::IfOp::create(body, loc, ok, /*withElse=*/false);
      OpBuilder gb = guard.getThenBodyBuilder();
      Value result = kLoop.getResult(i * tile.perThreadN + j);
      if (partial)
        memref::StoreOp::create(
            gb, loc, result, partial,
            ValueRange{split, batchLinear, rowLinear[i], colLinear[j]});
      else
        memref::StoreOp::create(gb, loc, result, out, outIndices(i, j));
    }
  gpu::TerminatorOp::create(body, loc);
  if (partial)
    buildSplitSum(b, partial);
  op->erase();
}

void GemmKernelBuilder::buildSplitSum(OpBuilder &b, Value partial) {
  // One thread per output element: the output plus its partial sums, in
  // split order.
  int64_t total = view.batch.size() * view.rows.size() * view.cols.size();
  Value c1 = cst(b, 1);
  auto launch =
      gpu::LaunchOp::create(b, loc, cst(b, llvm::divideCeil(total, kThreads)),
                            c1, c1, cst(b, kThreads), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  zero = cst(body, 0);
  Value index = arith::AddIOp::create(
      body, loc, launch.getThreadIds().x,
      arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                            cst(body, kThreads)));
  Value inRange = arith::CmpIOp::create(body, loc, arith::CmpIPredicate::ult,
                                        index, cst(body, total));
  auto guard = scf::IfOp::create(body, loc, inRange, /*withElse=*/false);
  OpBuilder gb = guard.getThenBodyBuilder();
  SmallVector<Value> brc = fx::delinearize(
      gb, loc, index, {view.batch.size(), view.rows.size(), view.cols.size()});
  SmallVector<Value> loops(op.getNumLoops());
  if (!view.batch.loops.empty())
    setLoops(gb, view.batch, brc[0], loops);
  setLoops(gb, view.rows, brc[1], loops);
  setLoops(gb, view.cols, brc[2], loops);
  Value out = op.getDpsInits()[0];
  SmallVector<Value> outIndex = indices(gb, 2, loops);
  Value acc = memref::LoadOp::create(gb, loc, out, outIndex);
  for (int64_t s = 0; s < tile.splits; ++s)
    acc = arith::AddFOp::create(
        gb, loc, acc,
        memref::LoadOp::create(gb, loc, partial,
                               ValueRange{cst(gb, s), brc[0], brc[1], brc[2]}));
  memref::StoreOp::create(gb, loc, acc, out, outIndex);
  gpu::TerminatorOp::create(body, loc);
}

/// Cooperative-matrix fragments are 16x16x16; each subgroup accumulates
/// kFragsM x kFragsN fragments (a 64x64 block). Measured on an H200 (f16
/// 4096^3, kernel time, fragments loaded straight from device memory): 4x4
/// fragments 1.32 ms, 2x2 2.49 ms, 8x4 spills registers (19 ms).
constexpr int64_t kFrag = 16, kFragsM = 4, kFragsN = 4, kSubgroupSize = 32;
constexpr int64_t kSubgroupBlockM = kFrag * kFragsM,
                  kSubgroupBlockN = kFrag * kFragsN;
/// f16 elements per 16-byte copy: operand tiles move through workgroup
/// memory as vector<4xi32>.
constexpr int64_t kHalvesPerCopy = 8;

/// Whether `op` is a matmul the cooperative-matrix kernel takes; `why`
/// says why not.
bool isCooperativeMatmul(linalg::LinalgOp op, bool allowBF16,
                         std::string &why) {
  auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
  if (!matmul || matmul.hasUserDefinedMaps()) {
    why = "not a plain linalg.matmul";
    return false;
  }
  auto type = [&](Value v) { return dyn_cast<MemRefType>(v.getType()); };
  MemRefType a = type(op.getDpsInputs()[0]), b = type(op.getDpsInputs()[1]),
             c = type(op.getDpsInits()[0]);
  if (!a || !b || !c || !a.hasStaticShape() || !b.hasStaticShape() ||
      !c.hasStaticShape()) {
    why = "not static buffers";
    return false;
  }
  Type element = a.getElementType();
  bool operands = element == b.getElementType() &&
                  (element.isF16() || (allowBF16 && element.isBF16()));
  if (!operands || !c.getElementType().isF32()) {
    why = allowBF16 ? "not f16 x f16 or bf16 x bf16 into f32"
                    : "not f16 x f16 into f32";
    return false;
  }
  if (!a.getLayout().isIdentity() || !b.getLayout().isIdentity() ||
      !c.getLayout().isIdentity()) {
    why = "not row-major contiguous buffers";
    return false;
  }
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
  if (m % kSubgroupBlockM || n % kSubgroupBlockN || k % kFrag) {
    why = "M and N must be multiples of 64 and K of 16";
    return false;
  }
  return true;
}

/// The cooperative-matrix kernel's tiling: 2x2 subgroups (128x128 tiles)
/// where M and N allow, k staged 32 at a time where K allows.
struct CoopTile {
  int64_t subgroupsM, subgroupsN, k;
  int64_t m() const { return subgroupsM * kSubgroupBlockM; }
  int64_t n() const { return subgroupsN * kSubgroupBlockN; }
  int64_t threads() const { return kSubgroupSize * subgroupsM * subgroupsN; }
};

CoopTile chooseCoopTile(int64_t m, int64_t n, int64_t k) {
  return {m % (2 * kSubgroupBlockM) ? 1 : 2, n % (2 * kSubgroupBlockN) ? 1 : 2,
          k % (2 * kFrag) ? kFrag : 2 * kFrag};
}

/// A workgroup per output tile; see the pass description.
void buildCooperativeMatmul(linalg::LinalgOp op, const CoopTile &tile,
                            linalg::FillOp zeroFill,
                            linalg::GenericOp truncation) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  MLIRContext *ctx = op.getContext();
  Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1],
        c = op.getDpsInits()[0];
  auto cType = cast<MemRefType>(c.getType());
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1),
          k = cast<MemRefType>(a.getType()).getDimSize(1);
  auto cst = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ob, loc, v);
  };
  // The operands as flat arrays of 16-byte vectors, so that copies are
  // single 16-byte loads and stores. (A vector.load of f16 lanes would
  // lower to SPIR-V pointer bitcasts, which NVIDIA's compiler rejected.)
  // The host's Vulkan schedule binds the cast's result to the same buffer.
  auto copyType = VectorType::get({4}, IntegerType::get(ctx, 32));
  auto flatView = [&](Value operand, int64_t elements) -> Value {
    return UnrealizedConversionCastOp::create(
               b, loc, MemRefType::get({elements / kHalvesPerCopy}, copyType),
               operand)
        .getResult(0);
  };
  Value aFlat = flatView(a, m * k), bFlat = flatView(bm, k * n);
  Value dFlat =
      truncation ? flatView(truncation.getDpsInits()[0], m * n) : Value();

  Value c1 = cst(b, 1);
  auto launch =
      gpu::LaunchOp::create(b, loc, cst(b, n / tile.n()), cst(b, m / tile.m()),
                            c1, cst(b, tile.threads()), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  Value tid = launch.getThreadIds().x;
  Value tileRow = arith::MulIOp::create(body, loc, launch.getBlockIds().y,
                                        cst(body, tile.m()));
  Value tileCol = arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                                        cst(body, tile.n()));

  // Workgroup-memory tiles of A (tile.m x tile.k) and B (tile.k x tile.n),
  // row-major in 16-byte units with one unit of padding per row, which
  // spreads the fragment loads' rows over the banks.
  int64_t aStride = tile.k / kHalvesPerCopy + 1,
          bStride = tile.n() / kHalvesPerCopy + 1;
  auto workgroupTile = [&](int64_t units) -> Value {
    return memref::AllocOp::create(
        body, loc,
        MemRefType::get({units}, copyType, AffineMap(),
                        body.getI64IntegerAttr(kWorkgroupMemorySpace)));
  };
  // One stage of each. Measured on an H200 (f16 4096^3, kernel time):
  // 476 us with 2x2 subgroups and k steps of 32 (18.5 KiB); two stages
  // (37 KiB, one barrier per step instead of two) 869 us, k steps of 64
  // (35 KiB) 763 us: workgroup memory limits how many workgroups share an
  // SM. 2x4 subgroups 501 us, 4x2 527 us, 1x2 643 us, 2x1 688 us, one
  // subgroup 990 us, k steps of 16 719 us.
  Value aTile = workgroupTile(tile.m() * aStride);
  Value bTile = workgroupTile(tile.k * bStride);

  // Copies of one k step: consecutive threads take consecutive 16-byte
  // units of a row, so that device-memory reads coalesce.
  struct Copy {
    Value flat, tile;
    int64_t rowUnits, tileStride, globalStride;
    bool kIsRow; // A's tile rows are output rows, B's are k.
  };
  Copy copies[2] = {{aFlat, aTile, tile.k / kHalvesPerCopy, aStride,
                     k / kHalvesPerCopy, false},
                    {bFlat, bTile, tile.n() / kHalvesPerCopy, bStride,
                     n / kHalvesPerCopy, true}};
  // Calls `fn(copy, row, col)` for each 16-byte unit this thread copies in
  // a k step, in one fixed order: its row and unit column in the tile.
  auto forEachUnit = [&](OpBuilder &ob,
                         function_ref<void(const Copy &, Value, Value)> fn) {
    for (const Copy &copy : copies) {
      int64_t rows = copy.kIsRow ? tile.k : tile.m();
      for (int64_t i = 0; i < rows * copy.rowUnits / tile.threads(); ++i) {
        Value unit =
            arith::AddIOp::create(ob, loc, tid, cst(ob, i * tile.threads()));
        fn(copy, arith::DivUIOp::create(ob, loc, unit, cst(ob, copy.rowUnits)),
           arith::RemUIOp::create(ob, loc, unit, cst(ob, copy.rowUnits)));
      }
    }
  };
  auto loadStep = [&](OpBuilder &ob, Value k0) {
    SmallVector<Value> values;
    forEachUnit(ob, [&](const Copy &copy, Value row, Value col) {
      // Global row and 16-byte column of this unit.
      Value gRow, gCol;
      if (copy.kIsRow) {
        gRow = arith::AddIOp::create(ob, loc, k0, row);
        gCol = arith::AddIOp::create(
            ob, loc,
            arith::DivUIOp::create(ob, loc, tileCol, cst(ob, kHalvesPerCopy)),
            col);
      } else {
        gRow = arith::AddIOp::create(ob, loc, tileRow, row);
        gCol = arith::AddIOp::create(
            ob, loc,
            arith::DivUIOp::create(ob, loc, k0, cst(ob, kHalvesPerCopy)), col);
      }
      Value index = arith::AddIOp::create(
          ob, loc,
          arith::MulIOp::create(ob, loc, gRow, cst(ob, copy.globalStride)),
          gCol);
      values.push_back(memref::LoadOp::create(ob, loc, copy.flat, index));
    });
    return values;
  };
  auto storeStep = [&](OpBuilder &ob, ArrayRef<Value> values) {
    size_t next = 0;
    forEachUnit(ob, [&](const Copy &copy, Value row, Value col) {
      Value index = arith::AddIOp::create(
          ob, loc,
          arith::MulIOp::create(ob, loc, row, cst(ob, copy.tileStride)), col);
      memref::StoreOp::create(ob, loc, values[next++], copy.tile, index);
    });
  };

  // Subgroup s (lanes 32s..32s+31) owns block (s / subgroupsN,
  // s % subgroupsN) of the tile.
  Value subgroup =
      arith::DivUIOp::create(body, loc, tid, cst(body, kSubgroupSize));
  Value sgRow =
      arith::DivUIOp::create(body, loc, subgroup, cst(body, tile.subgroupsN));
  Value sgCol =
      arith::RemUIOp::create(body, loc, subgroup, cst(body, tile.subgroupsN));
  Value blockRow =
      arith::MulIOp::create(body, loc, sgRow, cst(body, kSubgroupBlockM));
  Value blockCol =
      arith::MulIOp::create(body, loc, sgCol, cst(body, kSubgroupBlockN));
  Type f16 = Float16Type::get(ctx), f32 = Float32Type::get(ctx);
  auto aType = gpu::MMAMatrixType::get({kFrag, kFrag}, f16, "AOp");
  auto bType = gpu::MMAMatrixType::get({kFrag, kFrag}, f16, "BOp");
  auto accType = gpu::MMAMatrixType::get({kFrag, kFrag}, f32, "COp");
  auto plus = [&](OpBuilder &ob, Value base, int64_t offset) -> Value {
    return offset == 0 ? base
                       : arith::AddIOp::create(ob, loc, base, cst(ob, offset))
                             .getResult();
  };
  Value row0 = arith::AddIOp::create(body, loc, tileRow, blockRow);
  Value col0 = arith::AddIOp::create(body, loc, tileCol, blockCol);
  // The accumulators start from the output, as linalg accumulates into
  // its init, or from zero when `zeroFill` (whose kernel this one replaces:
  // it stores every output element) filled the output right before.
  SmallVector<Value> init;
  Value zero;
  if (zeroFill)
    zero = gpu::SubgroupMmaConstantMatrixOp::create(
        body, loc, accType,
        arith::ConstantOp::create(body, loc, body.getF32FloatAttr(0.0f)));
  for (int64_t i = 0; i < kFragsM; ++i)
    for (int64_t j = 0; j < kFragsN; ++j)
      init.push_back(zeroFill
                         ? zero
                         : gpu::SubgroupMmaLoadMatrixOp::create(
                               body, loc, accType, c,
                               ValueRange{plus(body, row0, i * kFrag),
                                          plus(body, col0, j * kFrag)},
                               body.getIndexAttr(n), /*transpose=*/UnitAttr())
                               .getResult());

  // The first k step goes to workgroup memory before the loop; each
  // iteration loads the next step into registers, multiplies the staged
  // one, then replaces it. (The last iteration reloads its own step rather
  // than branch.)
  storeStep(body, loadStep(body, cst(body, 0)));
  gpu::BarrierOp::create(body, loc);
  auto loop = scf::ForOp::create(body, loc, cst(body, 0), cst(body, k),
                                 cst(body, tile.k), init);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value k0 = loop.getInductionVar();
    Value nextK = arith::MinUIOp::create(
        lb, loc, arith::AddIOp::create(lb, loc, k0, cst(lb, tile.k)),
        cst(lb, k - tile.k));
    SmallVector<Value> staged = loadStep(lb, nextK);
    SmallVector<Value> acc(loop.getRegionIterArgs());
    // A fragment (i, kk) starts at tile row blockRow + 16 i, unit kk / 8;
    // a B fragment (kk, j) at row kk, unit (blockCol + 16 j) / 8.
    Value aBase = arith::MulIOp::create(lb, loc, blockRow, cst(lb, aStride));
    Value bBase =
        arith::DivUIOp::create(lb, loc, blockCol, cst(lb, kHalvesPerCopy));
    for (int64_t kk = 0; kk < tile.k; kk += kFrag) {
      SmallVector<Value> aFrags, bFrags;
      for (int64_t i = 0; i < kFragsM; ++i)
        aFrags.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
            lb, loc, aType, aTile,
            ValueRange{
                plus(lb, aBase, i * kFrag * aStride + kk / kHalvesPerCopy)},
            lb.getIndexAttr(aStride), UnitAttr()));
      for (int64_t j = 0; j < kFragsN; ++j)
        bFrags.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
            lb, loc, bType, bTile,
            ValueRange{
                plus(lb, bBase, kk * bStride + j * kFrag / kHalvesPerCopy)},
            lb.getIndexAttr(bStride), UnitAttr()));
      for (int64_t i = 0; i < kFragsM; ++i)
        for (int64_t j = 0; j < kFragsN; ++j)
          acc[i * kFragsN + j] = gpu::SubgroupMmaComputeOp::create(
              lb, loc, accType, aFrags[i], bFrags[j], acc[i * kFragsN + j],
              UnitAttr(), UnitAttr());
    }
    gpu::BarrierOp::create(lb, loc);
    storeStep(lb, staged);
    gpu::BarrierOp::create(lb, loc);
    scf::YieldOp::create(lb, loc, acc);
  }
  if (!truncation) {
    for (int64_t i = 0; i < kFragsM; ++i)
      for (int64_t j = 0; j < kFragsN; ++j)
        gpu::SubgroupMmaStoreMatrixOp::create(
            body, loc, loop.getResult(i * kFragsN + j), c,
            ValueRange{plus(body, row0, i * kFrag),
                       plus(body, col0, j * kFrag)},
            body.getIndexAttr(n), UnitAttr());
  } else {
    // The f16 result goes straight to the truncation's output: fragment by
    // fragment, each subgroup stores its f32 fragment to its own 16x16
    // region of the A tile (4 vectors a row), and each lane converts half
    // a row (two vectors: 8 values) into one 16-byte store. Barriers order
    // the fragment stores, the reads and the next fragment's stores.
    // (The A tile holds at least 64 x 3 units per subgroup row, more than
    // the subgroups' 64 units each.)
    int64_t fragUnits = kFrag * kFrag / 4;
    Value region =
        arith::MulIOp::create(body, loc, subgroup, cst(body, fragUnits));
    Value lane =
        arith::RemUIOp::create(body, loc, tid, cst(body, kSubgroupSize));
    Value laneRow = arith::DivUIOp::create(body, loc, lane, cst(body, 2));
    Value laneHalf = arith::MulIOp::create(
        body, loc, arith::RemUIOp::create(body, loc, lane, cst(body, 2)),
        cst(body, 2));
    Value laneUnit = arith::AddIOp::create(
        body, loc, region,
        arith::AddIOp::create(
            body, loc, arith::MulIOp::create(body, loc, laneRow, cst(body, 4)),
            laneHalf));
    auto f32x4 = VectorType::get({4}, f32);
    auto f16x4 = VectorType::get({4}, f16);
    auto i32x2 = VectorType::get({2}, IntegerType::get(ctx, 32));
    auto half = [&](Value unit) -> Value {
      Value bits = memref::LoadOp::create(body, loc, aTile, unit);
      Value values = arith::BitcastOp::create(body, loc, f32x4, bits);
      Value narrow = arith::TruncFOp::create(body, loc, f16x4, values);
      return vector::BitCastOp::create(body, loc, i32x2, narrow);
    };
    for (int64_t i = 0; i < kFragsM; ++i)
      for (int64_t j = 0; j < kFragsN; ++j) {
        gpu::SubgroupMmaStoreMatrixOp::create(
            body, loc, loop.getResult(i * kFragsN + j), aTile,
            ValueRange{region}, body.getIndexAttr(4), UnitAttr());
        gpu::BarrierOp::create(body, loc);
        Value lo = half(laneUnit), hi = half(plus(body, laneUnit, 1));
        Value packed = vector::ShuffleOp::create(body, loc, lo, hi,
                                                 ArrayRef<int64_t>{0, 1, 2, 3});
        // Output element (row0 + 16 i + laneRow, col0 + 16 j + 8 (lane % 2))
        // in 16-byte units.
        Value row = arith::AddIOp::create(body, loc,
                                          plus(body, row0, i * kFrag), laneRow);
        Value col = arith::AddIOp::create(
            body, loc, plus(body, col0, j * kFrag),
            arith::MulIOp::create(body, loc, laneHalf, cst(body, 4)));
        Value index = arith::DivUIOp::create(
            body, loc,
            arith::AddIOp::create(
                body, loc, arith::MulIOp::create(body, loc, row, cst(body, n)),
                col),
            cst(body, kHalvesPerCopy));
        memref::StoreOp::create(body, loc, packed, dFlat, index);
        gpu::BarrierOp::create(body, loc);
      }
  }
  gpu::TerminatorOp::create(body, loc);
  op->erase();
  if (zeroFill)
    zeroFill->erase();
  if (truncation) {
    truncation->erase();
    // The f32 output is now written by nobody and read by nobody.
    if (auto alloc = c.getDefiningOp<memref::AllocOp>())
      if (llvm::all_of(alloc->getUsers(), [](Operation *user) {
            return isa<memref::DeallocOp>(user);
          })) {
        for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
          user->erase();
        alloc->erase();
      }
  }
}

/// The elementwise truncation of `op`'s f32 output to f16 right after
/// `op`, when nothing else reads the output: the cooperative-matrix kernel
/// then writes the f16 result itself. Else null.
linalg::GenericOp truncationAfter(linalg::LinalgOp op) {
  Value c = op.getDpsInits()[0];
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op->getNextNode());
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getDpsInputs()[0] != c ||
      generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return nullptr;
  auto d = dyn_cast<MemRefType>(generic.getDpsInits()[0].getType());
  if (!d || !d.getElementType().isF16() || !d.getLayout().isIdentity() ||
      d.getShape() != cast<MemRefType>(c.getType()).getShape())
    return nullptr;
  Block &body = generic.getRegion().front();
  auto trunc = dyn_cast<arith::TruncFOp>(&body.front());
  if (!trunc || trunc.getIn() != body.getArgument(0) ||
      body.getTerminator()->getOperand(0) != trunc.getResult() ||
      trunc->getNextNode() != body.getTerminator())
    return nullptr;
  // Only allocation, fill, matmul, truncation and deallocation touch c.
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return nullptr;
  for (Operation *user : c.getUsers())
    if (user != op && user != generic &&
        !isa<linalg::FillOp, memref::DeallocOp>(user))
      return nullptr;
  return generic;
}

/// The linalg.fill of zero into `op`'s output right before `op` (constants
/// aside), which the cooperative-matrix kernel makes redundant; else null.
linalg::FillOp zeroFillBefore(linalg::LinalgOp op) {
  Operation *prev = op->getPrevNode();
  while (prev && isa<arith::ConstantOp>(prev))
    prev = prev->getPrevNode();
  auto fill = dyn_cast_or_null<linalg::FillOp>(prev);
  if (!fill || fill.getDpsInits()[0] != op.getDpsInits()[0])
    return nullptr;
  return matchPattern(fill.getDpsInputs()[0], m_PosZeroFloat()) ? fill
                                                                : nullptr;
}

struct MapMatmulsToGPUPass
    : public fx::impl::FXMapMatmulsToGPUBase<MapMatmulsToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    if (cooperativeMatrix) {
      SmallVector<linalg::LinalgOp> coop;
      getOperation().walk([&](linalg::LinalgOp op) {
        std::string why;
        if (op->getParentOfType<gpu::LaunchOp>() ||
            !linalg::isaContractionOpInterface(op))
          return;
        if (isCooperativeMatmul(op, bf16CooperativeMatrix, why))
          coop.push_back(op);
        else if (report)
          op->emitRemark("not mapped onto cooperative matrices: ") << why;
      });
      for (linalg::LinalgOp op : coop) {
        auto out = cast<MemRefType>(op.getDpsInits()[0].getType());
        CoopTile tile = chooseCoopTile(
            out.getDimSize(0), out.getDimSize(1),
            cast<MemRefType>(op.getDpsInputs()[0].getType()).getDimSize(1));
        if (report)
          op->emitRemark()
              << "cooperative-matrix matmul: 16x16x16 "
              << (getElementTypeOrSelf(op.getDpsInputs()[0]).isBF16() ? "bf16"
                                                                      : "f16")
              << " fragments, " << tile.m() << "x" << tile.n() << " tiles of "
              << tile.subgroupsM * tile.subgroupsN << " subgroups, k staged "
              << tile.k << " at a time through workgroup memory";
        buildCooperativeMatmul(op, tile, zeroFillBefore(op),
                               truncationAfter(op));
      }
    }
    std::vector<std::pair<linalg::LinalgOp, GemmView>> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      bool candidate = linalg::isaContractionOpInterface(op) ||
                       linalg::isaConvolutionOpInterface(op);
      if (!candidate)
        return;
      std::string why;
      FailureOr<GemmView> view = analyze(op, why);
      if (succeeded(view))
        ops.push_back({op, *view});
      else if (report)
        op->emitRemark("not mapped as a tiled matmul: ") << why;
    });
    for (auto &[op, view] : ops) {
      bool dynamic = view.rows.isDynamic() || view.cols.isDynamic() ||
                     view.batch.isDynamic();
      // With a dynamic batch the tile assumes a moderate size
      // (kDynamicSizeGuess) and k is never split (a split's partial sums
      // would need a temporary sized at run time).
      TileConfig tile =
          chooseTile(view.batch.guessedSize(), view.rows.guessedSize(),
                     view.cols.guessedSize(), view.reduction.size(), !dynamic);
      if (report)
        op->emitRemark() << "tiled matmul: " << sizeText(view.rows) << "x"
                         << sizeText(view.cols) << "x" << view.reduction.size()
                         << (view.batch.isDynamic() ? " (batch ?)" : "")
                         << " in " << tile.m << "x" << tile.n
                         << " output tiles, k step " << tile.k << ", "
                         << kThreads << " threads of " << tile.perThreadM << "x"
                         << tile.perThreadN
                         << (tile.splits > 1
                                 ? ", k split " + std::to_string(tile.splits) +
                                       " ways"
                                 : std::string());
      GemmKernelBuilder(op, view, tile).build();
    }
  }
};

} // namespace

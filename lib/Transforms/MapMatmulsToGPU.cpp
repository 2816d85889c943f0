//===- MapMatmulsToGPU.cpp - the fx-map-matmuls-to-gpu pass ---------------===//
//
// Matmuls (linalg contractions with one m, n and k loop and at most one
// batch loop) become a gpu.launch that tiles the output over workgroups and
// stages tiles of both operands through workgroup memory: each thread
// accumulates a TM x TN block of the workgroup's tile in registers.
//
// Written by hand rather than through linalg tiling + promotion (IREE's
// route) because the project's GPU mappers work on bufferized linalg ops
// with explicit gpu.launch bodies, and because the load layout (which
// operand dimension neighbouring threads walk) is chosen from each
// operand's memory layout, which tiling alone does not express. The
// multiply-accumulate itself is the op's own body, cloned.
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/GPUUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXMAPMATMULSTOGPU
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

constexpr unsigned kWorkgroupMemorySpace = 3;

/// A workgroup's tile and its split over threads.
struct TileConfig {
  int64_t m, n, k;                // the workgroup's tile of the output, k step
  int64_t perThreadM, perThreadN; // each thread's block of the output
  int64_t threads() const { return (m / perThreadM) * (n / perThreadN); }
};

/// 128x128 tiles (8x8 per thread) when they give enough workgroups to fill
/// a large GPU, else 64x64 (4x4 per thread). Both use 256 threads and about
/// 8 KiB of workgroup memory, under Vulkan's guaranteed 16 KiB.
TileConfig chooseTile(int64_t batch, int64_t m, int64_t n) {
  auto tiles = [&](int64_t size) {
    return batch * llvm::divideCeil(m, size) * llvm::divideCeil(n, size);
  };
  if (tiles(128) >= 256)
    return {128, 128, 8, 8, 8};
  return {64, 64, 16, 4, 4};
}

struct MatmulInfo {
  std::optional<unsigned> batch;
  unsigned m, n, k;
  int64_t batchSize = 1, mSize, nSize, kSize;
};

/// The loops of `op` if it is a matmul this pass maps, else a reason.
FailureOr<MatmulInfo> analyze(linalg::LinalgOp op, std::string &why) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1) {
    why = "not a two-operand op on buffers";
    return failure();
  }
  if (!linalg::isaContractionOpInterface(op)) {
    why = "not a contraction";
    return failure();
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1) {
    why = "not one m, n and k loop and at most one batch loop";
    return failure();
  }
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation()) {
      why = "an operand is not indexed by loop variables";
      return failure();
    }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    why = "dynamic sizes";
    return failure();
  }
  for (OpOperand &operand : op->getOpOperands())
    if (!isa<FloatType>(getElementTypeOrSelf(operand.get().getType()))) {
      why = "not a floating-point matmul";
      return failure();
    }
  MatmulInfo info;
  info.m = dims->m[0];
  info.n = dims->n[0];
  info.k = dims->k[0];
  info.mSize = ranges[info.m];
  info.nSize = ranges[info.n];
  info.kSize = ranges[info.k];
  if (!dims->batch.empty()) {
    info.batch = dims->batch[0];
    info.batchSize = ranges[*info.batch];
  }
  return info;
}

class MatmulKernelBuilder {
public:
  MatmulKernelBuilder(linalg::LinalgOp op, const MatmulInfo &info,
                      const TileConfig &tile)
      : op(op), info(info), tile(tile), loc(op.getLoc()) {}

  void build();

private:
  Value cst(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  /// Indices into operand `operand` for the given loop values (null for
  /// loops that operand does not use).
  SmallVector<Value> indices(unsigned operand, ArrayRef<Value> loops) {
    AffineMap map = op.getIndexingMapsArray()[operand];
    SmallVector<Value> result;
    for (AffineExpr expr : map.getResults())
      result.push_back(loops[cast<AffineDimExpr>(expr).getPosition()]);
    return result;
  }
  /// Whether neighbouring elements of operand `operand` in memory differ in
  /// loop `loop` (its innermost index is that loop).
  bool isInnermost(unsigned operand, unsigned loop) {
    AffineMap map = op.getIndexingMapsArray()[operand];
    return map.getNumResults() > 0 &&
           cast<AffineDimExpr>(map.getResults().back()).getPosition() == loop;
  }
  /// `min(value, bound - 1)` and whether `value < bound`.
  std::pair<Value, Value> clamp(OpBuilder &b, Value value, int64_t bound) {
    Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           value, cst(b, bound));
    Value clamped =
        arith::SelectOp::create(b, loc, inBounds, value, cst(b, bound - 1));
    return {clamped, inBounds};
  }
  /// Copies this k step's tile of input `operand` (rows `rows` of loop
  /// `rowLoop` from `rowStart`, tile.k columns of the k loop from `kStart`)
  /// to `shared[k][row]`; out-of-range elements are zero.
  void loadTile(OpBuilder &b, unsigned operand, unsigned rowLoop,
                int64_t rowSize, int64_t rows, Value rowStart, Value kStart,
                Value shared);

  linalg::LinalgOp op;
  const MatmulInfo &info;
  const TileConfig &tile;
  Location loc;
  Value threadId, batchIndex;
};

void MatmulKernelBuilder::loadTile(OpBuilder &b, unsigned operand,
                                   unsigned rowLoop, int64_t rowSize,
                                   int64_t rows, Value rowStart, Value kStart,
                                   Value shared) {
  Value source = op->getOperand(operand);
  Type element = getElementTypeOrSelf(source.getType());
  int64_t elements = rows * tile.k, threads = tile.threads();
  // Neighbouring threads walk the operand's innermost dimension, so that
  // their loads coalesce.
  bool kFastest = isInnermost(operand, info.k);
  for (int64_t pass = 0; pass < elements / threads; ++pass) {
    Value e = arith::AddIOp::create(b, loc, threadId, cst(b, pass * threads));
    SmallVector<Value> parts =
        fx::delinearize(b, loc, e,
                        kFastest ? ArrayRef<int64_t>{rows, tile.k}
                                 : ArrayRef<int64_t>{tile.k, rows});
    Value row = kFastest ? parts[0] : parts[1];
    Value kk = kFastest ? parts[1] : parts[0];
    auto [rowIndex, rowOk] =
        clamp(b, arith::AddIOp::create(b, loc, rowStart, row), rowSize);
    auto [kIndex, kOk] =
        clamp(b, arith::AddIOp::create(b, loc, kStart, kk), info.kSize);
    SmallVector<Value> loops(op.getNumLoops());
    loops[rowLoop] = rowIndex;
    loops[info.k] = kIndex;
    if (info.batch)
      loops[*info.batch] = batchIndex;
    Value value =
        memref::LoadOp::create(b, loc, source, indices(operand, loops));
    Value ok = arith::AndIOp::create(b, loc, rowOk, kOk);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    value = arith::SelectOp::create(b, loc, ok, value, zero);
    memref::StoreOp::create(b, loc, value, shared, ValueRange{kk, row});
  }
}

void MatmulKernelBuilder::build() {
  OpBuilder b(op);
  int64_t threadsN = tile.n / tile.perThreadN;
  int64_t threadsM = tile.m / tile.perThreadM;
  Value c1 = cst(b, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc, cst(b, llvm::divideCeil(info.nSize, tile.n)),
      cst(b, llvm::divideCeil(info.mSize, tile.m)), cst(b, info.batchSize),
      cst(b, tile.threads()), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  threadId = launch.getThreadIds().x;
  batchIndex = launch.getBlockIds().z;
  Value mStart = arith::MulIOp::create(body, loc, launch.getBlockIds().y,
                                       cst(body, tile.m));
  Value nStart = arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                                       cst(body, tile.n));
  SmallVector<Value> rc =
      fx::delinearize(body, loc, threadId, {threadsM, threadsN});
  Value threadRow = rc[0], threadCol = rc[1];

  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value out = op.getDpsInits()[0];
  Type lhsType = getElementTypeOrSelf(lhs.getType());
  Type rhsType = getElementTypeOrSelf(rhs.getType());
  // Tiles are stored k-major so that a thread's reads for one k step are
  // one row; a row of padding keeps the transposing stores of k-fastest
  // loads off a single bank.
  auto workgroupBuffer = [&](Type element, int64_t rows) {
    return memref::AllocOp::create(
        body, loc,
        MemRefType::get({tile.k, rows + 1}, element, AffineMap(),
                        body.getI64IntegerAttr(kWorkgroupMemorySpace)));
  };
  Value lhsTile = workgroupBuffer(lhsType, tile.m);
  Value rhsTile = workgroupBuffer(rhsType, tile.n);

  // The output block of this thread: rows threadRow + threadsM * i, columns
  // threadCol + threadsN * j (neighbouring threads, neighbouring columns).
  SmallVector<Value> rowIndices, rowOks, colIndices, colOks;
  for (int64_t i = 0; i < tile.perThreadM; ++i) {
    Value local =
        arith::AddIOp::create(body, loc, threadRow, cst(body, threadsM * i));
    auto [index, ok] = clamp(
        body, arith::AddIOp::create(body, loc, mStart, local), info.mSize);
    rowIndices.push_back(index);
    rowOks.push_back(ok);
  }
  for (int64_t j = 0; j < tile.perThreadN; ++j) {
    Value local =
        arith::AddIOp::create(body, loc, threadCol, cst(body, threadsN * j));
    auto [index, ok] = clamp(
        body, arith::AddIOp::create(body, loc, nStart, local), info.nSize);
    colIndices.push_back(index);
    colOks.push_back(ok);
  }
  auto outIndices = [&](int64_t i, int64_t j) {
    SmallVector<Value> loops(op.getNumLoops());
    loops[info.m] = rowIndices[i];
    loops[info.n] = colIndices[j];
    if (info.batch)
      loops[*info.batch] = batchIndex;
    return indices(2, loops);
  };
  // Accumulators start from the output's values (linalg accumulates into
  // its init).
  SmallVector<Value> inits;
  for (int64_t i = 0; i < tile.perThreadM; ++i)
    for (int64_t j = 0; j < tile.perThreadN; ++j)
      inits.push_back(memref::LoadOp::create(body, loc, out, outIndices(i, j)));

  auto kLoop = scf::ForOp::create(
      body, loc, cst(body, 0), cst(body, info.kSize), cst(body, tile.k), inits);
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value kStart = kLoop.getInductionVar();
    loadTile(kb, 0, info.m, info.mSize, tile.m, mStart, kStart, lhsTile);
    loadTile(kb, 1, info.n, info.nSize, tile.n, nStart, kStart, rhsTile);
    gpu::BarrierOp::create(kb, loc);
    auto inner = scf::ForOp::create(kb, loc, cst(kb, 0), cst(kb, tile.k),
                                    cst(kb, 1), kLoop.getRegionIterArgs());
    {
      OpBuilder ib = OpBuilder::atBlockBegin(inner.getBody());
      Value kk = inner.getInductionVar();
      SmallVector<Value> a, bv;
      for (int64_t i = 0; i < tile.perThreadM; ++i) {
        Value local =
            arith::AddIOp::create(ib, loc, threadRow, cst(ib, threadsM * i));
        a.push_back(
            memref::LoadOp::create(ib, loc, lhsTile, ValueRange{kk, local}));
      }
      for (int64_t j = 0; j < tile.perThreadN; ++j) {
        Value local =
            arith::AddIOp::create(ib, loc, threadCol, cst(ib, threadsN * j));
        bv.push_back(
            memref::LoadOp::create(ib, loc, rhsTile, ValueRange{kk, local}));
      }
      // The op's own body computes each multiply-accumulate.
      Block &opBody = op->getRegion(0).front();
      SmallVector<Value> next;
      ValueRange accs = inner.getRegionIterArgs();
      for (int64_t i = 0; i < tile.perThreadM; ++i)
        for (int64_t j = 0; j < tile.perThreadN; ++j) {
          IRMapping mapping;
          mapping.map(opBody.getArgument(0), a[i]);
          mapping.map(opBody.getArgument(1), bv[j]);
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
      memref::StoreOp::create(gb, loc, kLoop.getResult(i * tile.perThreadN + j),
                              out, outIndices(i, j));
    }
  gpu::TerminatorOp::create(body, loc);
  op->erase();
}

struct MapMatmulsToGPUPass
    : public fx::impl::FXMapMatmulsToGPUBase<MapMatmulsToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, MatmulInfo>> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      std::string why;
      FailureOr<MatmulInfo> info = analyze(op, why);
      if (succeeded(info))
        matmuls.push_back({op, *info});
      else if (report && linalg::isaContractionOpInterface(op))
        op->emitRemark("not mapped as a tiled matmul: ") << why;
    });
    for (auto &[op, info] : matmuls) {
      TileConfig tile = chooseTile(info.batchSize, info.mSize, info.nSize);
      if (report)
        op->emitRemark() << "tiled matmul: " << tile.m << "x" << tile.n
                         << " output tiles, k step " << tile.k << ", "
                         << tile.threads() << " threads of " << tile.perThreadM
                         << "x" << tile.perThreadN;
      MatmulKernelBuilder(op, info, tile).build();
    }
  }
};

} // namespace

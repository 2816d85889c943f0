//===- PackMatmuls.cpp - the fx-cpu-pack-matmuls pass ---------------------===//
//
// Matmuls by a weight read it packed in panels of `block` columns,
// [N / block][K][block], one panel per loop iteration (see Passes.td). The
// packing is a plain linalg.generic on the parameter (or weight constant):
// fx-hoist-parameter-computations moves it into the prepare function.
//
// Written here rather than with linalg.pack + linalg.mmt4d (IREE's data
// tiling): only the weight is packed, once per binding; A and the output
// keep their row-major layout, so the dispatch region's fused epilogue and
// the CPU's register-tiled matmul (fx-cpu-tile-and-vectorize) stay as they
// are, each panel's matmul being an ordinary row-major one.
//
//===----------------------------------------------------------------------===//

#include "Packing.h"

#include "fx/Codegen/CPU/Passes.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUPACKMATMULS
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {
using fx::cpu::isMultipleOf;

/// A packable matmul: its weight's root value, whether the root is laid
/// out [N, K], and the offsets of the slices along the root's columns.
struct Candidate {
  linalg::MatmulOp op;
  Value root;
  bool rootIsNK = false;
  SmallVector<OpFoldResult> offsets;
};

struct PackMatmulsPass
    : public fx::impl::FXCPUPackMatmulsBase<PackMatmulsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (block < 1)
      return;
    packed[0].clear();
    packed[1].clear();
    SmallVector<Candidate> candidates;
    func.walk([&](linalg::MatmulOp op) {
      if (std::optional<Candidate> c = match(op))
        candidates.push_back(*c);
    });
    for (Candidate &c : candidates)
      rewrite(func, c);
  }

  std::optional<Candidate> match(linalg::MatmulOp op) {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2)
      return std::nullopt;
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    bool nk;
    if (maps == fx::matmulIndexingMaps(ctx, /*transposedB=*/false))
      nk = false;
    else if (maps == fx::matmulIndexingMaps(ctx, /*transposedB=*/true))
      nk = true;
    else
      return std::nullopt;
    auto aType = dyn_cast<RankedTensorType>(op.getDpsInputs()[0].getType());
    auto bType = dyn_cast<RankedTensorType>(op.getDpsInputs()[1].getType());
    auto cType = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
    if (!aType || !bType || !cType || !bType.hasStaticShape() ||
        !aType.getElementType().isF32() || !bType.getElementType().isF32() ||
        !cType.getElementType().isF32())
      return std::nullopt;
    int64_t rows = cType.getDimSize(0), cols = cType.getDimSize(1);
    // Columns beyond the last whole panel (GPT-2's 50257-token head) are a
    // remainder matmul on the zero-padded last panel (rewrite).
    if (ShapedType::isDynamic(cols) || cols < block ||
        (!ShapedType::isDynamic(rows) && rows < minRows))
      return std::nullopt;
    // Outside a dispatch region's loop, the panels are the thread split:
    // enough of them for every thread (two each, so a spare one costs at
    // most a third).
    if (!op->getParentOfType<LoopLikeOpInterface>()) {
      int64_t threadCount = fx::resolveThreadCount(threads);
      if (threadCount > 1 && cols / block < 2 * threadCount)
        return std::nullopt;
    }

    // The weight: slices along its columns (the whole k), then at most
    // one transpose, of a parameter or weight constant.
    Candidate c;
    c.op = op;
    unsigned colDim = nk ? 0 : 1;
    Value value = op.getDpsInputs()[1];
    auto peelSlices = [&](unsigned dim) {
      while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>()) {
        RankedTensorType source = slice.getSourceType();
        if (source.getRank() != 2 || slice.getType().getRank() != 2 ||
            !slice.hasUnitStride() ||
            !isConstantIntValue(slice.getMixedOffsets()[1 - dim], 0) ||
            !isConstantIntValue(slice.getMixedSizes()[1 - dim],
                                source.getDimSize(1 - dim)))
          return false;
        c.offsets.push_back(slice.getMixedOffsets()[dim]);
        value = slice.getSource();
      }
      return true;
    };
    if (!peelSlices(colDim))
      return std::nullopt;
    if (auto transpose = value.getDefiningOp<linalg::TransposeOp>()) {
      if (transpose.getPermutation() != ArrayRef<int64_t>{1, 0} ||
          !transpose.hasPureTensorSemantics())
        return std::nullopt;
      value = transpose.getInput();
      nk = !nk;
      colDim = 1 - colDim;
      if (!peelSlices(colDim))
        return std::nullopt;
    }
    if (cast<RankedTensorType>(value.getType()).getRank() != 2)
      return std::nullopt;
    if (!fx::isPackableFilter(value) && !repaysRunTimePacking(op, value))
      return std::nullopt;
    for (OpFoldResult offset : c.offsets)
      if (!isMultipleOf(offset, block))
        return std::nullopt;
    c.root = value;
    c.rootIsNK = nk;
    return c;
  }

  /// Whether packing `root`, an operand computed at run time (or a
  /// function argument that is not a parameter), once per call repays:
  /// every element of it feeds kMinActivationRows rows or more, so the
  /// packing's read and write cost about 1% of the multiplies, and it holds
  /// kMinActivationBytes or more, beyond the L2 cache, where the cache
  /// blocks of fx-cpu-tile-and-vectorize read in place take their k rows
  /// from few cache sets (rows of 4 KiB map to one set of the L1). On a
  /// Zen 5, a 1024^3 matmul with both operands inputs: one thread 10.17 ->
  /// 9.67 ms, two 5.04 -> 4.85; code for x86-64-v3 24.0 -> 17.6 and 12.5
  /// -> 9.1 ms. (At 512^3, where the rhs is 1 MiB, packing made two
  /// threads 0.53 -> 0.58 ms slower, at 256^3 0.074 -> 0.100.)
  static constexpr int64_t kMinActivationRows = 256;
  static constexpr int64_t kMinActivationBytes = int64_t(4) << 20;
  bool repaysRunTimePacking(linalg::MatmulOp op, Value root) {
    auto rootType = cast<RankedTensorType>(root.getType());
    auto cType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
    int64_t rows = cType.getDimSize(0);
    return rootType.hasStaticShape() && !ShapedType::isDynamic(rows) &&
           rows >= kMinActivationRows &&
           rootType.getNumElements() * rootType.getElementTypeBitWidth() / 8 >=
               kMinActivationBytes;
  }

  /// The packed weight of `root` ([N, K] or [K, N] -> N zero-padded to
  /// whole panels -> [N / block][K][block]), made once at the top of
  /// `func` (after its definition, for a weight constant).
  Value packedWeight(func::FuncOp func, Value root, bool nk) {
    auto it = packed[nk].find(root);
    if (it != packed[nk].end())
      return it->second;
    auto type = cast<RankedTensorType>(root.getType());
    int64_t cols = type.getDimSize(nk ? 0 : 1), k = type.getDimSize(nk ? 1 : 0);
    Location loc = root.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    if (Operation *def = root.getDefiningOp())
      b.setInsertionPointAfter(def);
    int64_t panels = llvm::divideCeil(cols, block);
    Value source = root;
    if (panels * block != cols) {
      SmallVector<int64_t> paddedShape(type.getShape());
      paddedShape[nk ? 0 : 1] = panels * block;
      Value zero = arith::ConstantOp::create(
          b, loc, b.getZeroAttr(type.getElementType()));
      SmallVector<OpFoldResult> low(2, b.getIndexAttr(0));
      SmallVector<OpFoldResult> high(2, b.getIndexAttr(0));
      high[nk ? 0 : 1] = b.getIndexAttr(panels * block - cols);
      source =
          tensor::PadOp::create(
              b, loc, RankedTensorType::get(paddedShape, type.getElementType()),
              root, low, high, zero)
              .getResult();
    }
    Value empty = tensor::EmptyOp::create(b, loc, {panels, k, block},
                                          type.getElementType());
    MLIRContext *ctx = func.getContext();
    AffineExpr p, kk, j;
    bindDims(ctx, p, kk, j);
    AffineExpr col = p * block + j;
    SmallVector<AffineMap> maps = {
        AffineMap::get(3, 0,
                       nk ? ArrayRef<AffineExpr>{col, kk}
                          : ArrayRef<AffineExpr>{kk, col},
                       ctx),
        AffineMap::getMultiDimIdentityMap(3, ctx)};
    Value result =
        linalg::GenericOp::create(
            b, loc, empty.getType(), ValueRange{source}, ValueRange{empty},
            maps,
            SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
            [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
              linalg::YieldOp::create(nested, nestedLoc, args[0]);
            })
            .getResult(0);
    packed[nk][root] = result;
    return result;
  }

  void rewrite(func::FuncOp func, Candidate &c) {
    linalg::MatmulOp op = c.op;
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value weight = packedWeight(func, c.root, c.rootIsNK);
    int64_t k = cast<RankedTensorType>(weight.getType()).getDimSize(1);
    OpBuilder b(op);
    // The first panel: the sum of the offsets, divided by the block size.
    AffineExpr sum = getAffineConstantExpr(0, ctx);
    for (size_t i = 0; i < c.offsets.size(); ++i)
      sum = sum + getAffineSymbolExpr(i, ctx);
    OpFoldResult firstPanel = affine::makeComposedFoldedAffineApply(
        b, loc, AffineMap::get(0, c.offsets.size(), sum.floorDiv(block)),
        c.offsets);
    Value a = op.getDpsInputs()[0], init = op.getDpsInits()[0];
    auto initType = cast<RankedTensorType>(init.getType());
    int64_t panels = initType.getDimSize(1) / block;
    OpFoldResult rows = tensor::getMixedSize(b, loc, init, 0);
    // The k block: the largest divisor of k from k-block / 2 to k-block,
    // or all of k.
    int64_t chunk = k;
    if (kBlock > 0 && k > kBlock)
      for (int64_t d = kBlock; d >= (kBlock + 1) / 2; --d)
        if (k % d == 0) {
          chunk = d;
          break;
        }

    // The matmul by the first `width` columns of panel `p` (`block`, or
    // fewer in the remainder) into those columns of `acc`, and where they
    // are in `acc`.
    struct PanelProduct {
      Value product;
      SmallVector<OpFoldResult> offsets, sizes, strides;
    };
    auto panelProduct = [&](OpBuilder &pb, OpFoldResult p, Value acc,
                            int64_t width) {
      OpFoldResult panel = affine::makeComposedFoldedAffineApply(
          pb, loc, getAffineSymbolExpr(0, ctx) + getAffineSymbolExpr(1, ctx),
          {firstPanel, p});
      Value weightPanel = tensor::ExtractSliceOp::create(
          pb, loc, RankedTensorType::get({k, width}, pb.getF32Type()), weight,
          ArrayRef<OpFoldResult>{panel, pb.getIndexAttr(0), pb.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{pb.getIndexAttr(1), pb.getIndexAttr(k),
                                 pb.getIndexAttr(width)},
          SmallVector<OpFoldResult>(3, pb.getIndexAttr(1)));
      OpFoldResult column = affine::makeComposedFoldedAffineApply(
          pb, loc, getAffineSymbolExpr(0, ctx) * block, {p});
      PanelProduct result{Value(),
                          {pb.getIndexAttr(0), column},
                          {rows, pb.getIndexAttr(width)},
                          SmallVector<OpFoldResult>(2, pb.getIndexAttr(1))};
      Value out = tensor::ExtractSliceOp::create(pb, loc, acc, result.offsets,
                                                 result.sizes, result.strides);
      if (chunk == k) {
        result.product = linalg::MatmulOp::create(pb, loc, out.getType(),
                                                  ValueRange{a, weightPanel},
                                                  ValueRange{out})
                             .getResult(0);
        return result;
      }
      // Blocks of k: the panel's block stays in the L1 cache across the
      // rows' tiles.
      auto kLoop = scf::ForOp::create(
          pb, loc, arith::ConstantIndexOp::create(pb, loc, 0),
          arith::ConstantIndexOp::create(pb, loc, k),
          arith::ConstantIndexOp::create(pb, loc, chunk), ValueRange{out});
      OpBuilder kb = OpBuilder::atBlockEnd(kLoop.getBody());
      Value k0 = kLoop.getInductionVar();
      SmallVector<OpFoldResult> unit(2, kb.getIndexAttr(1));
      Value aBlock = tensor::ExtractSliceOp::create(
          kb, loc, a, ArrayRef<OpFoldResult>{kb.getIndexAttr(0), k0},
          ArrayRef<OpFoldResult>{rows, kb.getIndexAttr(chunk)}, unit);
      Value wBlock = tensor::ExtractSliceOp::create(
          kb, loc, weightPanel, ArrayRef<OpFoldResult>{k0, kb.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{kb.getIndexAttr(chunk),
                                 kb.getIndexAttr(width)},
          unit);
      Value partial = kLoop.getRegionIterArgs()[0];
      Value sum = linalg::MatmulOp::create(kb, loc, partial.getType(),
                                           ValueRange{aBlock, wBlock},
                                           ValueRange{partial})
                      .getResult(0);
      scf::YieldOp::create(kb, loc, sum);
      result.product = kLoop.getResult(0);
      return result;
    };

    // (Loop bodies are built once the loop exists: affine.apply folding
    // looks at the induction variable's owner.)
    Value result;
    if (op->getParentOfType<LoopLikeOpInterface>()) {
      // Inside a dispatch region's loop: the panels in order.
      auto loop = scf::ForOp::create(
          b, loc, arith::ConstantIndexOp::create(b, loc, 0),
          arith::ConstantIndexOp::create(b, loc, panels),
          arith::ConstantIndexOp::create(b, loc, 1), ValueRange{init});
      OpBuilder lb = OpBuilder::atBlockEnd(loop.getBody());
      Value acc = loop.getRegionIterArgs()[0];
      PanelProduct panel = panelProduct(lb, loop.getInductionVar(), acc, block);
      Value next = tensor::InsertSliceOp::create(lb, loc, panel.product, acc,
                                                 panel.offsets, panel.sizes,
                                                 panel.strides);
      scf::YieldOp::create(lb, loc, next);
      result = loop.getResult(0);
    } else {
      // The panels shared among the threads.
      auto loop = scf::ForallOp::create(
          b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(panels)},
          ValueRange{init}, std::nullopt);
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value acc = loop.getRegionIterArgs()[0];
      PanelProduct panel =
          panelProduct(lb, loop.getInductionVars()[0], acc, block);
      lb.setInsertionPointToStart(loop.getTerminator().getBody());
      tensor::ParallelInsertSliceOp::create(lb, loc, panel.product, acc,
                                            panel.offsets, panel.sizes,
                                            panel.strides);
      result = loop.getResult(0);
    }
    // The columns after the last whole panel: a matmul by the first
    // `remainder` columns of the next (zero-padded) panel.
    if (int64_t remainder = initType.getDimSize(1) % block) {
      PanelProduct part =
          panelProduct(b, b.getIndexAttr(panels), result, remainder);
      result = tensor::InsertSliceOp::create(
          b, loc, part.product, result, part.offsets, part.sizes, part.strides);
    }
    op.getResult(0).replaceAllUsesWith(result);
    op.erase();
  }

  /// The packed weights made so far, of [K, N] and [N, K] roots.
  llvm::DenseMap<Value, Value> packed[2];
};

} // namespace

//===- FormDispatchRegions.cpp - the fx-form-dispatch-regions pass --------===//
//
// Dispatch regions on linalg on tensors, after IREE's FormDispatchRegions:
// a root op and the producers it can absorb become one loop nest, built by
// upstream tile-and-fuse (scf::tileConsumerAndFuseProducersUsingSCF). What
// is ours is the grouping heuristic and the report of every decision: the
// rules are listed in the pass description (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "DispatchRegions.h"

#include "fx/Transforms/LinalgUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXFORMDISPATCHREGIONS
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

using fx::kDispatchAttr;
constexpr StringLiteral kRowKernelAttr = "fx.row_kernel";

bool isHeavy(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && (linalg::isaContractionOpInterface(linalgOp) ||
                      isa<linalg::ConvolutionOpInterface>(op));
}

/// A contraction whose epilogue the region can compute on its output tiles:
/// one m, one n and one k dimension (and at most one batch dimension), as
/// matmul, batch_matmul and the transposed-operand matmuls of `linear` have.
bool isEpilogueContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalg::isaContractionOpInterface(linalgOp))
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(linalgOp);
  return succeeded(dims) && dims->m.size() == 1 && dims->n.size() == 1 &&
         dims->k.size() == 1 && dims->batch.size() <= 1;
}

/// A convolution whose epilogue the region can compute on its output tiles:
/// a 2-d NCHW convolution or depthwise convolution.
bool isEpilogueConvolution(Operation *op) {
  return isa<linalg::Conv2DNchwFchwOp, linalg::DepthwiseConv2DNchwChwOp>(op);
}

/// Ops cheap enough to recompute in a region when their result is also used
/// elsewhere (IREE clones such ops into every dispatch that uses them): fills
/// and pure data movement (broadcasts, transposes, copies) of values that are
/// not computed by linalg ops.
bool isCheapToRecompute(Operation *op) {
  if (isa<linalg::FillOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumReductionLoops() != 0 ||
      !llvm::hasSingleElement(generic.getBody()->getOperations()))
    return false;
  return llvm::none_of(generic.getDpsInputs(), [](Value input) {
    return isa_and_nonnull<linalg::LinalgOp>(input.getDefiningOp());
  });
}

/// Whether `op`, an elementwise op, reads the result of a convolution or
/// contraction that is not in a region yet (so the op can be its epilogue).
bool isEpilogueOfOtherHeavy(
    linalg::LinalgOp op, const llvm::DenseMap<Operation *, int64_t> &regionOf) {
  if (op.getNumReductionLoops() != 0)
    return false;
  return llvm::any_of(op->getOperands(), [&](Value v) {
    Operation *def = v.getDefiningOp();
    return def && !regionOf.count(def) &&
           (isEpilogueContraction(def) || isEpilogueConvolution(def));
  });
}

/// Whether an input of `op` is the result of a reduction that is not a
/// contraction or convolution (a row's sum or maximum).
bool readsReduction(linalg::LinalgOp op) {
  return llvm::any_of(op.getDpsInputs(), [](Value input) {
    auto def = input.getDefiningOp<linalg::LinalgOp>();
    return def && def.getNumReductionLoops() > 0 && !isHeavy(def) &&
           !fx::isContractionLike(def);
  });
}

/// A short name for remarks: the linalg op name, or the generic's body ops.
std::string describe(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    text += " {";
    bool first = true;
    for (Operation &inner : generic.getBody()->without_terminator()) {
      if (!first)
        text += ", ";
      text += inner.getName().getStringRef().str();
      first = false;
    }
    text += "}";
  }
  return text;
}

struct Region {
  linalg::LinalgOp root;
  /// Members in discovery order (root first) with the root loop dimension of
  /// each of their loop dimensions (-1: a dimension reduced inside the op).
  llvm::MapVector<Operation *, SmallVector<int64_t>> members;
  /// Root dimensions that must stay whole in a tile (producers are
  /// broadcast along them, e.g. a row reduction's result).
  llvm::SmallDenseSet<int64_t> wholeDims;
  /// Why producers were not taken: (producer, reason).
  SmallVector<std::pair<Operation *, std::string>> cuts;
  /// The region's contraction or convolution, if any.
  Operation *heavy = nullptr;
  /// Members also used outside the region, recomputed inside it, with the
  /// other user that makes them so.
  llvm::MapVector<Operation *, std::string> recomputed;
};

/// One run over a function. The options are its fields, as a pass's would
/// be, so that both passes share the code below.
struct RegionFormer : fx::DispatchRegionOptions {
  func::FuncOp function;
  bool runFailed = false;
  func::FuncOp getOperation() { return function; }
  MLIRContext &getContext() { return *function.getContext(); }
  void signalPassFailure() { runFailed = true; }

  /// Ops erased by materialized regions (their pointers dangle).
  llvm::SmallPtrSet<Operation *, 32> erased;

  void runOnOperation() {
    func::FuncOp func = getOperation();
    erased.clear();
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() &&
          !op->getParentOfType<scf::ForallOp>() &&
          !op->getParentOfType<scf::ForOp>())
        ops.push_back(op);
    });
    llvm::DenseMap<Operation *, int64_t> regionOf;
    int64_t numRegions = 0, bytesRead = 0, bytesWritten = 0;
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp root : llvm::reverse(ops)) {
      // (`erased` is checked first: the pointer is dangling then.)
      if (erased.contains(root) || regionOf.count(root) ||
          isa<linalg::FillOp>(root) || root->use_empty())
        continue;
      Region region = grow(root, regionOf);
      int64_t id = numRegions++;
      // Recomputed members stay free: the other regions using them may
      // recompute them too.
      for (auto &member : region.members)
        if (!region.recomputed.count(member.first))
          regionOf[member.first] = id;
      auto [read, written] = bytesMoved(region);
      bytesRead += read;
      bytesWritten += written;
      if (report)
        reportRegion(region, id, read, written);
      if (rowKernels) {
        std::string why;
        if (isRowKernel(region, why)) {
          if (failed(materializeRowKernel(rewriter, region, id)))
            return signalPassFailure();
        } else {
          root->setAttr(kDispatchAttr, rewriter.getI64IntegerAttr(id));
          if (report && !why.empty())
            emitRemark(root->getLoc())
                << "dispatch region " << id << " is not a row kernel: " << why;
        }
      } else if (region.members.size() > 1 ||
                 isPackedLoneConvolution(region.root)) {
        // (A lone convolution over a packable filter is tiled too: its
        // tiles read the packed filter, fx-cpu-pack-convolutions.)
        if (failed(materialize(rewriter, region, id)))
          emitRemark(root->getLoc())
              << "dispatch region " << id
              << ": tiling the root failed; ops stay separate";
      } else {
        root->setAttr(kDispatchAttr, rewriter.getI64IntegerAttr(id));
      }
    }
    if (report)
      emitRemark(func.getLoc())
          << numRegions << " dispatch regions, " << bytesRead + bytesWritten
          << " bytes moved (" << bytesRead << " read, " << bytesWritten
          << " written)";
    // Slices of tensor.empty inside the tiles become tile-sized empties, so
    // that the region's temporaries are allocated per tile, not whole.
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }

  /// Collects the region of `root` (see the pass description for the rules).
  Region grow(linalg::LinalgOp root,
              const llvm::DenseMap<Operation *, int64_t> &regionOf) {
    Region region;
    region.root = root;
    SmallVector<int64_t> identity =
        llvm::to_vector(llvm::seq<int64_t>(0, root.getNumLoops()));
    region.members.insert({root, identity});
    bool heavy = isHeavy(root);
    bool rootIsConsumerOnly =
        root.getNumReductionLoops() == 0 && !heavy; // an elementwise root
    if (!rootIsConsumerOnly || !fuse)
      return region; // roots with reductions or contractions stay alone
    // Breadth-first over producers; every candidate is checked for uses
    // outside the region once the candidate set is complete.
    SmallVector<Operation *> worklist = {root};
    while (!worklist.empty()) {
      Operation *consumerOp = worklist.pop_back_val();
      auto consumer = cast<linalg::LinalgOp>(consumerOp);
      SmallVector<int64_t> consumerDims = region.members[consumerOp];
      for (OpOperand &operand : consumerOp->getOpOperands()) {
        Operation *producer = operand.get().getDefiningOp();
        if (!producer || region.members.count(producer) ||
            isa<tensor::EmptyOp>(producer) ||
            producer->hasTrait<OpTrait::ConstantLike>())
          continue;
        auto cut = [&](const Twine &why) {
          region.cuts.push_back({producer, why.str()});
        };
        auto producerOp = dyn_cast<linalg::LinalgOp>(producer);
        if (!producerOp || !producerOp.hasPureTensorSemantics()) {
          cut("not a linalg op on tensors (" +
              producer->getName().getStringRef() + ")");
          continue;
        }
        if (producer->getBlock() != root->getBlock()) {
          cut("in another block");
          continue;
        }
        if (auto it = regionOf.find(producer); it != regionOf.end()) {
          cut("already in dispatch region " + Twine(it->second));
          continue;
        }
        if (isHeavy(producer)) {
          if (rowKernels) {
            cut("on the GPU, contractions and convolutions take no "
                "epilogues yet");
            continue;
          }
          if (heavy) {
            cut("the region already has a contraction or convolution");
            continue;
          }
          if (!isEpilogueConvolution(producer) &&
              !isEpilogueContraction(producer)) {
            cut("epilogue fusion into " + producer->getName().getStringRef() +
                " is not implemented");
            continue;
          }
        } else if (fx::isContractionLike(producerOp)) {
          cut("a contraction-like reduction (two operands read along the "
              "reduced dimensions); epilogue fusion is not implemented");
          continue;
        } else if (rowKernels && isa<linalg::TransposeOp>(consumerOp) &&
                   consumerOp == root.getOperation() &&
                   readsReduction(producerOp)) {
          // A layer norm over channels of an NCHW tensor (ConvNeXt's
          // LayerNorm2d: permute, layer norm, permute back): the
          // transpose back would take the normalization and leave the
          // statistics as two kernels of their own. The row kernel keeps
          // the whole layer norm; the transpose stays a copy. On an H200
          // (precision high, alternated in one call, GPU time):
          // convnext_tiny 1.169 -> 1.108 ms, 132 -> 121 steps (the stem's
          // layer norm five steps to two, each downsampling one three to
          // one).
          cut("the end of a row computation (it reads a reduction): its "
              "row kernel computes it");
          continue;
        } else if (heavy && isEpilogueOfOtherHeavy(producerOp, regionOf)) {
          // Epilogue fusion takes priority: in this region the producer
          // would be computed apart from the convolution or matmul it
          // ends, which cannot join a region that already has one.
          cut("kept as the epilogue of the convolution or matmul it reads");
          continue;
        }
        AffineMap map = consumer.getMatchingIndexingMap(&operand);
        if (!map.isProjectedPermutation()) {
          cut("read through a non-permutation indexing map (tiles would "
              "overlap)");
          continue;
        }
        // The producer's loop dims in root dims, through its result map.
        auto result = cast<OpResult>(operand.get());
        AffineMap producerMap = producerOp.getIndexingMapMatchingResult(result);
        if (!producerMap.isProjectedPermutation()) {
          cut("writes its result through a non-permutation map");
          continue;
        }
        SmallVector<int64_t> producerDims(producerOp.getNumLoops(), -1);
        for (unsigned r = 0; r < map.getNumResults(); ++r) {
          unsigned consumerDim = map.getDimPosition(r);
          unsigned producerDim = producerMap.getDimPosition(r);
          producerDims[producerDim] = consumerDims[consumerDim];
        }
        // Consumer dims the operand is broadcast along must stay whole.
        llvm::SmallDenseSet<int64_t> broadcast;
        for (unsigned d = 0; d < consumer.getNumLoops(); ++d)
          if (!map.isFunctionOfDim(d) && consumerDims[d] >= 0)
            broadcast.insert(consumerDims[d]);
        int64_t rank = root.getNumLoops();
        bool trailing = true;
        llvm::SmallDenseSet<int64_t> whole = region.wholeDims;
        whole.insert(broadcast.begin(), broadcast.end());
        // (Unit dimensions are whole in every tile.)
        SmallVector<int64_t> rootRanges = root.getStaticLoopRanges();
        for (int64_t d : whole)
          for (int64_t e = d + 1; e < rank; ++e)
            trailing &= whole.contains(e) || rootRanges[e] == 1;
        if (!trailing) {
          cut("broadcast into the root along a leading dimension (it would "
              "be recomputed per tile)");
          continue;
        }
        // The contraction or convolution of the region is tiled in every
        // dimension but a contraction's n: nothing may be broadcast along
        // the others (whichever of the two joins the region first).
        Operation *heavyOp = isHeavy(producer) ? producer : region.heavy;
        if (heavyOp) {
          ArrayRef<int64_t> heavyDims = heavyOp == producer
                                            ? ArrayRef<int64_t>(producerDims)
                                            : region.members[heavyOp];
          int64_t n = -1;
          if (isEpilogueContraction(heavyOp))
            n = heavyDims[linalg::inferContractionDims(
                              cast<linalg::LinalgOp>(heavyOp))
                              ->n.front()];
          if (llvm::any_of(whole, [&](int64_t d) { return d != n; })) {
            cut(heavyOp == producer
                    ? "the epilogue of a contraction or convolution must not "
                      "be broadcast along its tiled dimensions (it would be "
                      "recomputed per tile)"
                    : "broadcast along a dimension the region's contraction "
                      "or convolution is tiled in (it would be recomputed "
                      "per tile)");
            continue;
          }
        }
        region.wholeDims = whole;
        if (isHeavy(producer))
          region.heavy = producer;
        heavy |= isHeavy(producer);
        region.members.insert({producer, producerDims});
        worklist.push_back(producer);
      }
    }
    prune(region);
    return region;
  }

  /// Drops members with uses outside the region (and what only they reach).
  void prune(Region &region) {
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto &[op, dims] : region.members) {
        if (op == region.root.getOperation())
          continue;
        for (Operation *user : op->getUsers())
          if (!region.members.count(user)) {
            if (isCheapToRecompute(op)) {
              region.recomputed.insert(
                  {op, "also used by " + user->getName().getStringRef().str()});
              break;
            }
            region.cuts.push_back(
                {op, "its result is also used outside the region (by " +
                         user->getName().getStringRef().str() + ")"});
            region.members.erase(op);
            changed = true;
            break;
          }
        if (changed)
          break;
      }
    }
    // Keep only members still connected to the root through members.
    llvm::SmallPtrSet<Operation *, 16> reached = {region.root};
    SmallVector<Operation *> work = {region.root};
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (region.members.count(def) && reached.insert(def).second)
            work.push_back(def);
    }
    SmallVector<Operation *> unreached;
    for (auto &member : region.members)
      if (!reached.contains(member.first))
        unreached.push_back(member.first);
    for (Operation *op : unreached)
      region.members.erase(op);
    // Whole dimensions are only needed for what remains; recomputing them is
    // not worth it here, so they stay as a conservative choice.
  }

  /// The bytes a region reads and writes in memory: the tensors its ops
  /// read that are defined outside it (function arguments, constants, other
  /// regions' results; not fills or empty tensors, which hold no data) and
  /// its results. Static shapes only; a dynamic tensor counts 0.
  static std::pair<int64_t, int64_t> bytesMoved(Region &region) {
    auto bytes = [](Value v) -> int64_t {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || !type.hasStaticShape())
        return 0;
      return type.getNumElements() *
             llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    };
    llvm::SmallPtrSet<Value, 8> inputs;
    int64_t read = 0, written = 0;
    for (auto &[op, dims] : region.members) {
      auto linalgOp = cast<linalg::LinalgOp>(op);
      for (OpOperand &operand : op->getOpOperands()) {
        Value v = operand.get();
        Operation *def = v.getDefiningOp();
        if (def && (region.members.count(def) ||
                    isa<tensor::EmptyOp, linalg::FillOp>(def)))
          continue;
        // An output operand is only read if the op uses its value.
        if (linalgOp.isDpsInit(&operand) &&
            !linalgOp.payloadUsesValueFromOperand(&operand))
          continue;
        if (inputs.insert(v).second)
          read += bytes(v);
      }
      bool recomputed = region.recomputed.count(op);
      for (Value result : op->getResults())
        if (!recomputed &&
            llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !region.members.count(user);
            }))
          written += bytes(result);
    }
    return {read, written};
  }

  void reportRegion(Region &region, int64_t id, int64_t read, int64_t written) {
    {
      InFlightDiagnostic diag = emitRemark(region.root->getLoc());
      diag << "dispatch region " << id << ": root " << describe(region.root);
      if (region.members.size() > 1)
        diag << ", fused " << region.members.size() - 1 << " producer(s)";
      diag << "; reads " << read << " B, writes " << written << " B";
      for (auto &member : region.members)
        if (member.first != region.root.getOperation())
          diag.attachNote(member.first->getLoc())
              << "fused into dispatch region " << id << ": "
              << describe(member.first);
    } // (the region's remark is emitted here, before the others)
    for (auto &[op, why] : region.recomputed)
      if (region.members.count(op))
        emitRemark(op->getLoc()) << "recomputed in dispatch region " << id
                                 << " (" << why << "): " << describe(op);
    for (auto &[producer, why] : region.cuts) {
      if (region.members.count(producer))
        continue;
      emitRemark(producer->getLoc())
          << "not fused into dispatch region " << id << " (root "
          << describe(region.root) << "): " << why;
    }
  }

  /// A 2-d convolution whose filter is a parameter or a weight constant
  /// (fx::isPackableFilter), when such convolutions are tiled for
  /// fx-cpu-pack-convolutions (packedConvTileF).
  bool isPackedConvolution(Operation *op) const {
    return packedConvTileF > 0 && isa<linalg::Conv2DNchwFchwOp>(op) &&
           fx::isPackableFilter(op->getOperand(1));
  }

  /// Whether a lone `op` is tiled for fx-cpu-pack-convolutions: a
  /// convolution over a packable filter, but a 1x1 one only on an image
  /// small enough to pack (fx::packsPointwiseConvolution); a larger one is
  /// left whole to fx-cpu-tile-and-vectorize, a matmul over its pixels
  /// (its tiles of one row and 16 columns were matmuls of 16 pixels: a
  /// lone 16 -> 96 convolution at 112x112 took longer than the same one
  /// with batch norm and SiLU fused).
  bool isPackedLoneConvolution(Operation *op) const {
    return isPackedConvolution(op) &&
           (!fx::isPointwiseConvolution(cast<linalg::LinalgOp>(op)) ||
            isPackedPointwise(op));
  }

  /// Whether `op` is a 1x1 convolution over a packable filter that
  /// fx-cpu-pack-convolutions packs (fx::packsPointwiseConvolution).
  bool isPackedPointwise(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (!isPackedConvolution(op) || !fx::isPointwiseConvolution(linalgOp))
      return false;
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    return fx::packsPointwiseConvolution(ranges[2], ranges[3], packedConvTileW);
  }

  /// Tile sizes of the root: 1 along leading dims, whole along the broadcast
  /// dims; a convolution epilogue uses the convolution's output tile.
  SmallVector<int64_t> tileSizes(Region &region) {
    int64_t rank = region.root.getNumLoops();
    // Only full tiles: a partial (dynamic) convolution tile would not be
    // vectorized, so a dimension that the tile does not divide stays whole
    // (the inner tiling peels it into static tiles).
    SmallVector<int64_t> ranges = region.root.getStaticLoopRanges();
    auto fullTile = [&](int64_t size, int64_t tile) -> int64_t {
      return !ShapedType::isDynamic(size) && size % tile == 0 ? tile : 0;
    };
    // A packed 1x1 convolution `conv` (isPackedPointwise), alone or with an
    // epilogue: tiles of one whole row and a block of channels, the rest
    // whole; marked for fx-cpu-pack-convolutions (the tiles' clones keep
    // the mark).
    auto packedPointwiseTile = [&](Operation *conv) {
      conv->setAttr(fx::kPackPointwiseAttr, UnitAttr::get(conv->getContext()));
      SmallVector<int64_t> sizes(rank, 0);
      sizes[0] = sizes[2] = 1;
      sizes[1] = fullTile(ranges[1], packedConvTileF);
      return sizes;
    };
    // The output columns of a packed convolution's tile: whole rows (static
    // ones), which fx-cpu-tile-and-vectorize splits into register tiles of
    // at most packed-conv-tile-w columns, evenly; else blocks of
    // conv-tile-w. (A 112-column stem in blocks of 16 columns ran each
    // block as a register tile of 14 columns and one of 2; on AVX2, 8-column
    // blocks of a 56-column row as tiles of 6 and 2.)
    auto packedColumns = [&](int64_t columns) -> int64_t {
      if (packedConvTileW > 0 && !ShapedType::isDynamic(columns))
        return 0;
      return fullTile(columns, convTileW);
    };
    // A lone convolution over a packable filter: loops (n, f, oh, ow, c,
    // kh, kw), tiled like a convolution epilogue, the reduction whole.
    if (region.members.size() == 1 && isPackedLoneConvolution(region.root)) {
      if (isPackedPointwise(region.root))
        return packedPointwiseTile(region.root);
      return {1, fullTile(ranges[1], packedConvTileF),
              1, packedColumns(ranges[3]),
              0, 0,
              0};
    }
    for (auto &[op, dims] : region.members) {
      if (!isEpilogueConvolution(op))
        continue;
      // Output dims (n, f, oh, ow) must be the root's dims in order: loops
      // (n, f, oh, ow, ...) of a convolution, (n, oh, ow, c, ...) of a
      // depthwise one.
      SmallVector<int64_t> outputLoops = {0, 1, 2, 3};
      if (isa<linalg::DepthwiseConv2DNchwChwOp>(op))
        outputLoops = {0, 3, 1, 2};
      bool aligned = rank == 4;
      for (int64_t d = 0; aligned && d < 4; ++d)
        aligned = dims[outputLoops[d]] == d;
      if (!aligned)
        continue;
      // A 1x1 convolution is a matmul over the flattened pixels (see
      // fx::isPointwiseConvolution): tiles of whole rows, as many as divide
      // the image and keep a tile at most 256 pixels (16 KiB of output for
      // 16 channels): all 49 pixels of a 7x7 image, 7 rows of 28.
      // Except on small images, where the filter is packed like a larger
      // window's (fx::packsPointwiseConvolution).
      if (isPackedPointwise(op))
        return packedPointwiseTile(op);
      if (fx::isPointwiseConvolution(cast<linalg::LinalgOp>(op)) &&
          !ShapedType::isDynamic(ranges[2]) &&
          !ShapedType::isDynamic(ranges[3])) {
        int64_t rows = 1;
        for (int64_t r = ranges[2]; r >= 1; --r)
          if (ranges[2] % r == 0 && r * ranges[3] <= 256) {
            rows = r;
            break;
          }
        return {1, fullTile(ranges[1], convTileF), rows, 0};
      }
      // Convolutions over a packable filter are tiled by the blocks
      // fx-cpu-pack-convolutions packs the filter into; depthwise ones by
      // whole row tiles of the CPU's (all rows when they do not divide)
      // and whole rows of columns (16-column blocks of 112-column rows
      // were slower: more rows in flight per tile).
      bool packed = isPackedConvolution(op);
      int64_t tileF = packed ? packedConvTileF : convTileF;
      if (fx::isRowTiledDepthwise(op))
        return {1, fullTile(ranges[1], tileF),
                fullTile(ranges[2], fx::kDepthwiseTileRows), 0};
      return {1, fullTile(ranges[1], tileF), 1,
              packed ? packedColumns(ranges[3])
                     : fullTile(ranges[3], convTileW)};
    }
    SmallVector<int64_t> sizes(rank, 1);
    for (int64_t d : region.wholeDims)
      sizes[d] = 0;
    for (auto &[op, dims] : region.members) {
      if (!isEpilogueContraction(op))
        continue;
      // A contraction epilogue: blocks of rows of the contraction's output
      // (whole rows; the inner tiling register-blocks them), sized so that
      // one block of the output stays in the L2 cache. When there are too
      // few rows to share among threads (a classifier head), blocks of
      // columns instead, if the columns may be split.
      FailureOr<linalg::ContractionDimensions> cdims =
          linalg::inferContractionDims(cast<linalg::LinalgOp>(op));
      int64_t m = dims[cdims->m.front()], n = dims[cdims->n.front()];
      if (m < 0 || n < 0)
        break;
      int64_t rows = ranges[m], cols = ranges[n];
      int64_t threads = fx::resolveThreadCount(this->threads);
      // A dot-product contraction (both operands read along k, as
      // `linear`'s [N, K] weight is) with more columns than rows is split
      // by columns: a block of
      // rows would read the whole weight again (the CPU's dot-product
      // tiles keep the rows of A in cache instead).
      bool wide = fx::getDotContraction(cast<linalg::LinalgOp>(op), dotMinK) &&
                  !ShapedType::isDynamic(rows) &&
                  !ShapedType::isDynamic(cols) && cols > rows &&
                  cols >= contractionTileN * threads;
      bool splitRows = region.wholeDims.contains(n) ||
                       ShapedType::isDynamic(rows) ||
                       (rows >= contractionTileM * threads && !wide);
      if (splitRows) {
        int64_t block = contractionTileM;
        int64_t rowBytes = ShapedType::isDynamic(cols) ? 4096 : cols * 4;
        while (block * 2 * rowBytes <= (256 << 10) &&
               !ShapedType::isDynamic(rows) && rows % (block * 2) == 0 &&
               rows / (block * 2) >= threads)
          block *= 2;
        sizes[m] = block;
        sizes[n] = 0;
      } else {
        // Column blocks that divide the columns where one does (1000: 100),
        // so that the CPU's tiles inside are static.
        int64_t block = contractionTileN;
        // A wide dot-product contraction: one block per thread, as the CPU
        // tiling splits a lone one (fx-cpu-tile-and-vectorize), each
        // thread's block of the weight read once while the rows of A stay
        // in cache; blocks of 128 columns left 384 columns to 2 threads
        // as 2 + 1 blocks (ConvNeXt's 196 x 1536 -> 384: 2.4 -> 3.1 ms).
        if (wide && cols % threads == 0 && (cols / threads) % 4 == 0)
          block = cols / threads;
        else if (!ShapedType::isDynamic(cols) && cols % block != 0)
          for (int64_t b = block - 4; b >= 32; b -= 4)
            if (cols % b == 0) {
              block = b;
              break;
            }
        // Inside a wide block, where A (rows x k) is larger than the L2
        // cache, blocks of rows whose slice of A stays there while the
        // block's weight panels pass by (fx-cpu-pack-matmuls loops over
        // the panels inside each block of rows): with whole rows, each
        // panel read all of A again from memory. BERT-base's 1024 x 768 ->
        // 3072 at batch 8 (Xeon, AVX-512, 2 threads): 20.3 -> 15.3 ms.
        // Elsewhere (0) the rows stay whole.
        int64_t rowBlock = 0;
        int64_t k =
            cast<linalg::LinalgOp>(op).getStaticLoopRanges()[cdims->k.front()];
        constexpr int64_t kRowsOfABytes = 512 << 10;
        if (wide && !ShapedType::isDynamic(k) && rows * k * 4 > kRowsOfABytes)
          for (int64_t b = contractionTileM; b < rows; b += contractionTileM)
            if (rows % b == 0 && b * k * 4 <= kRowsOfABytes)
              rowBlock = b;
        sizes[m] = rowBlock;
        sizes[n] = block;
      }
      return sizes;
    }
    if (region.wholeDims.empty())
      sizes.back() = 0; // rows of elementwise producers
    return sizes;
  }

  /// Tiles `op` by `sizes` with loops of `loopType`, fuses the producers
  /// that are in `members` into the tile loops, and makes the tiled op the
  /// region's new root.
  FailureOr<scf::SCFTileAndFuseResult>
  tileAndFuseMembers(IRRewriter &rewriter, TilingInterface op,
                     ArrayRef<int64_t> sizes,
                     const llvm::SmallPtrSetImpl<Operation *> &members,
                     scf::SCFTilingOptions::LoopType loopType) {
    scf::SCFTilingOptions tiling;
    tiling.setLoopType(loopType);
    tiling.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!members.contains(producer.getOwner()))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(rewriter, op, options);
    if (succeeded(result))
      replaceRoot(rewriter, op, *result);
    return result;
  }

  /// Whether all parallel loops of `op` come before its reductions: a
  /// row's reduction then reads along the innermost dimensions.
  static bool parallelLoopsFirst(linalg::LinalgOp op) {
    unsigned numParallel = op.getNumParallelLoops();
    return llvm::all_of(llvm::enumerate(op.getIteratorTypesArray()),
                        [&](auto it) {
                          return linalg::isParallelIterator(it.value()) ==
                                 (it.index() < numParallel);
                        });
  }

  /// Whether `region` is a row kernel (see the pass description); if not
  /// and it has reductions, `why` says why not.
  bool isRowKernel(Region &region, std::string &why) {
    linalg::LinalgOp root = region.root;
    if (isHeavy(root) || fx::isContractionLike(root))
      return false;
    if (root.getNumReductionLoops() > 0) {
      // A lone reduction: parallel loops first, at least one of them.
      if (root.getNumParallelLoops() == 0) {
        why = "a reduction to a single value";
        return false;
      }
      if (!parallelLoopsFirst(root)) {
        why = "it reduces over leading dimensions (one thread per output "
              "reads coalesced there)";
        return false;
      }
    }
    // Without whole dimensions, an elementwise root's rows are reductions
    // of its producers (a mean: a sum, then a division of each result).
    bool reducedProducers = region.wholeDims.empty();
    // Rows are the root's parallel dimensions outside the row; a tensor
    // that is one row (a layer norm over every dimension) has none to
    // spread over threads.
    if (llvm::none_of(llvm::enumerate(root.getIteratorTypesArray()),
                      [&](auto it) {
                        return linalg::isParallelIterator(it.value()) &&
                               !region.wholeDims.contains(it.index());
                      })) {
      why = "the whole tensor is one row";
      return false;
    }
    bool hasReduction = false;
    for (auto &[op, dims] : region.members) {
      auto linalgOp = cast<linalg::LinalgOp>(op);
      if (isa<linalg::FillOp>(op)) {
        // A fill read as an input (a constant tensor) would stay a
        // temporary per row; only reductions' initial values are per row.
        bool initOnly = llvm::all_of(op->getUses(), [&](OpOperand &use) {
          auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
          return !region.members.count(use.getOwner()) ||
                 (user && user.isDpsInit(&use));
        });
        if (!initOnly) {
          why = "a constant tensor (a fill) is read in the row";
          return false;
        }
        continue;
      }
      if (linalgOp.getNumReductionLoops() == 0) {
        // Fused into each of its consumers in the row.
        if (op != root.getOperation())
          for (OpResult result : op->getResults())
            if (!linalgOp.getIndexingMapMatchingResult(result)
                     .isPermutation()) {
              why = "an elementwise member writes through a non-permutation "
                    "map";
              return false;
            }
        // (fuseElementwiseInRow fuses it into each consumer. A gather,
        // whose row dimension only linalg.index gives, does not fuse into
        // a sum over that dimension: no input would define the reduced
        // loop; BERT's embeddings before their layer norm. The region then
        // stays separate kernels.)
        if (op != root.getOperation() && isa<linalg::GenericOp>(op))
          for (OpOperand &use : op->getUses())
            if (region.members.count(use.getOwner()) &&
                isa<linalg::GenericOp>(use.getOwner()) &&
                !linalg::areElementwiseOpsFusable(&use)) {
              why = "an elementwise member does not fuse into its consumer";
              return false;
            }
        continue;
      }
      hasReduction = true;
      if (reducedProducers && !parallelLoopsFirst(linalgOp)) {
        why = "a reduction over leading dimensions (one thread per output "
              "reads coalesced there)";
        return false;
      }
      Operation *combiner = fx::getReductionCombiner(linalgOp);
      if (!fx::isWorkgroupCombinable(combiner)) {
        why = "a reduction that is not one add, mul, min or max combination "
              "of one output";
        return false;
      }
      Type type = getElementTypeOrSelf(op->getResult(0).getType());
      if (!type.isF32() && !type.isInteger(32)) {
        why = "a reduction of a type other than f32 and i32";
        return false;
      }
      // One value per row: every parallel loop of the reduction is a tiled
      // root dimension.
      for (auto [d, it] : llvm::enumerate(linalgOp.getIteratorTypesArray())) {
        if (!linalg::isParallelIterator(it))
          continue;
        int64_t rootDim = dims[d];
        if (rootDim < 0 || region.wholeDims.contains(rootDim)) {
          why = "a reduction with more than one result per row";
          return false;
        }
      }
    }
    return hasReduction;
  }

  /// Tiles a row kernel's root by one row into an scf.forall, fuses its
  /// members into it and their elementwise producers into every consumer.
  LogicalResult materializeRowKernel(IRRewriter &rewriter, Region &region,
                                     int64_t id) {
    llvm::SmallPtrSet<Operation *, 16> members;
    for (auto &member : region.members)
      members.insert(member.first);
    linalg::LinalgOp root = region.root;
    SmallVector<int64_t> sizes;
    for (auto [d, it] : llvm::enumerate(root.getIteratorTypesArray()))
      sizes.push_back(
          linalg::isParallelIterator(it) && !region.wholeDims.contains(d) ? 1
                                                                          : 0);
    Location loc = root->getLoc();
    FailureOr<scf::SCFTileAndFuseResult> result = tileAndFuseMembers(
        rewriter, cast<TilingInterface>(root.getOperation()), sizes, members,
        scf::SCFTilingOptions::LoopType::ForallOp);
    if (failed(result) || result->loops.empty())
      return emitError(loc) << "dispatch region " << id
                            << ": tiling the row kernel's root failed";
    Operation *forall = result->loops.front().getOperation();
    forall->setAttr(kDispatchAttr, rewriter.getI64IntegerAttr(id));
    forall->setAttr(kRowKernelAttr, rewriter.getUnitAttr());
    // Each loop a workgroup dimension: also keeps canonicalization from
    // folding away a loop over one row (a layer norm of one 1x1 pixel's
    // channels), whose ops would then each run on one thread.
    auto loop = cast<scf::ForallOp>(forall);
    SmallVector<Attribute> mapping;
    for (int64_t d = 0; d < loop.getRank(); ++d)
      mapping.push_back(gpu::GPUBlockMappingAttr::get(
          rewriter.getContext(),
          static_cast<gpu::MappingId>(
              static_cast<int64_t>(gpu::MappingId::LinearDim0) + d)));
    loop.setMappingAttr(rewriter.getArrayAttr(mapping));
    // Tile-and-fuse clones a producer per slice that reads it (the max of
    // a softmax feeds both its exp and, through the sum, the division):
    // CSE merges the clones.
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, forall);
    return fuseElementwiseInRow(rewriter, forall, id);
  }

  /// Fuses each elementwise linalg op in a row kernel into each of its
  /// consumers (recomputing it), so that rows need no temporaries but the
  /// per-row results of reductions.
  LogicalResult fuseElementwiseInRow(IRRewriter &rewriter, Operation *forall,
                                     int64_t id) {
    Block &body = forall->getRegion(0).front();
    SmallVector<linalg::LinalgOp> named;
    for (Operation &op : body)
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op))
        if (!isa<linalg::GenericOp, linalg::FillOp>(&op))
          named.push_back(linalgOp);
    // (generalizeNamedOp builds the generic at the insertion point, not at
    // the op: left elsewhere, a transpose in a row was generalized outside
    // the loop that defines its operands.)
    for (linalg::LinalgOp op : named)
      if (rewriter.setInsertionPoint(op);
          failed(linalg::generalizeNamedOp(rewriter, op)))
        return op->emitOpError("in a row kernel could not be generalized");
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation &op : body) {
        auto producer = dyn_cast<linalg::GenericOp>(&op);
        if (!producer || producer.getNumReductionLoops() != 0 ||
            producer.use_empty() ||
            llvm::any_of(producer->getUsers(), [&](Operation *user) {
              return !isa<linalg::GenericOp>(user);
            }))
          continue;
        // One clone of the producer per use, each fused into its consumer.
        SmallVector<std::pair<Operation *, unsigned>> uses;
        for (OpOperand &use : producer->getUses())
          uses.push_back({use.getOwner(), use.getOperandNumber()});
        for (auto [consumer, operandNumber] : uses) {
          // (Fusion builds the fused op where the producer is.)
          rewriter.setInsertionPoint(consumer);
          Operation *clone = rewriter.clone(*producer);
          OpOperand &operand = consumer->getOpOperand(operandNumber);
          operand.set(clone->getResult(
              cast<OpResult>(operand.get()).getResultNumber()));
          if (!linalg::areElementwiseOpsFusable(&operand))
            return emitError(producer.getLoc())
                   << "dispatch region " << id
                   << ": an elementwise op of the row kernel does not fuse "
                      "into its consumer";
          FailureOr<linalg::ElementwiseOpFusionResult> fused =
              linalg::fuseElementwiseOps(rewriter, &operand);
          if (failed(fused))
            return emitError(producer.getLoc())
                   << "dispatch region " << id
                   << ": fusing an elementwise op of the row kernel failed";
          for (OpResult result : consumer->getResults())
            rewriter.replaceAllUsesWith(result,
                                        fused->replacements.lookup(result));
          rewriter.eraseOp(consumer);
          rewriter.eraseOp(clone);
        }
        rewriter.eraseOp(producer);
        changed = true;
        break;
      }
    }
    // What is left besides the row's result: per-row values only.
    for (Operation &op : body) {
      if (!isa<linalg::LinalgOp>(&op))
        continue;
      for (Value result : op.getResults()) {
        auto type = cast<RankedTensorType>(result.getType());
        // (The row's result is inserted by the forall's terminator.)
        bool feedsResult = llvm::any_of(result.getUsers(), [](Operation *u) {
          return isa<scf::InParallelOp>(u->getParentOp());
        });
        if (!feedsResult &&
            (!type.hasStaticShape() || type.getNumElements() > 1))
          return op.emitOpError()
                 << "in dispatch region " << id << " leaves a temporary of "
                 << type << " per row; a row kernel keeps only per-row values";
      }
    }
    return success();
  }

  LogicalResult materialize(IRRewriter &rewriter, Region &region, int64_t id) {
    llvm::SmallPtrSet<Operation *, 16> members;
    for (auto &member : region.members)
      members.insert(member.first);
    SmallVector<int64_t> inner = tileSizes(region);
    auto root = cast<TilingInterface>(region.root.getOperation());
    // The region's loop is located at all its ops, the contraction or
    // convolution first: a profile names the loop by that op.
    SmallVector<Location> locs;
    if (region.heavy)
      locs.push_back(region.heavy->getLoc());
    for (auto &member : region.members)
      locs.push_back(member.first->getLoc());
    Location regionLoc = FusedLoc::get(&getContext(), locs);

    // Level 1: chunks of one tiled dimension per thread.
    int64_t numThreads = fx::resolveThreadCount(threads);
    SmallVector<int64_t> ranges = region.root.getStaticLoopRanges();
    // The region's work: the iterations of all its ops (a matmul epilogue
    // iterates far less than the matmul it ends).
    int64_t work = 0;
    for (auto &member : region.members)
      work += fx::staticIterationCount(cast<linalg::LinalgOp>(member.first));
    Operation *loopRoot = nullptr;
    TilingInterface current = root;
    // Equal chunks of whole tiles (static shapes inside every chunk): the
    // largest number of tiles per chunk that divides the tile count and
    // still gives every thread a chunk.
    auto tilesPerChunk = [&](int64_t tiles) {
      for (int64_t k = tiles; k >= 1; --k)
        if (tiles % k == 0 && tiles / k >= numThreads)
          return k;
      return int64_t(1);
    };
    // The share of the threads' time the chunks keep busy: 3 chunks on 2
    // threads run in two rounds, 0.75.
    auto balance = [&](int64_t tiles) {
      int64_t chunks = tiles / tilesPerChunk(tiles);
      return double(chunks) /
             double(llvm::divideCeil(chunks, numThreads) * numThreads);
    };
    // The first tiled dimension with a tile for every thread whose chunks
    // keep every thread busy (else the best balanced of those with a tile
    // for every thread: 144 channels in tiles of 16 made 3 chunks of 48 on
    // 2 threads, where 56 output rows make 2), else the first with several
    // tiles, else the first non-unit one: a convolution with 16 output
    // channels has one tile of them (one chunk, serial) but a tile per
    // output row.
    int64_t chunkDim = -1, chunkTiles = 0;
    for (int64_t d = 0; d < static_cast<int64_t>(inner.size()); ++d) {
      if (inner[d] == 0 || ShapedType::isDynamic(ranges[d]) || ranges[d] < 2)
        continue;
      int64_t tiles = ranges[d] / inner[d];
      bool better =
          chunkTiles < numThreads
              ? tiles > chunkTiles
              : tiles >= numThreads && balance(tiles) > balance(chunkTiles);
      if (chunkDim < 0 || better) {
        chunkDim = d;
        chunkTiles = tiles;
      }
    }
    // A 1x1 convolution's region (loops n, c, h, w) is split by output
    // rows rather than channels when the row tiles keep the threads as
    // busy and the operands every chunk reads whole (those without rows:
    // the filter, per-channel scales) are smaller than those it reads in
    // part (the images). Split by output channels, it reads every input
    // channel, half of them from the other core's cache: after a depthwise
    // 3x3 of 192 channels at 28x28, a 1x1 192 -> 32 with a residual add
    // took 106 us on one thread of an AVX-512 Xeon and 96-148 us on two;
    // split by rows, 65-67 us on two. Per-loop minima of mobilenet_v2 on
    // 2 threads, alternated: 5166 -> 4614 us in a slow phase of the host
    // (its projections at 28x28 102-138 -> 68-87 us), the same (4.18 ms)
    // in a fast one.
    // A depthwise convolution's region likewise, so that the rows of the
    // 1x1 convolutions around it stay on the core that computed them:
    // mobilenet_v2 on 2 threads of the Xeon, wall medians of 200 runs
    // alternated 4 times, 4.65-4.84 -> 4.51-4.74 ms. Except where a
    // reduction over the image reads its result: split so,
    // efficientnet_b0 was 6% slower (its squeeze-and-excitation means
    // then read every row from both cores' caches).
    std::function<bool(Value)> readByReduction = [&](Value value) {
      return llvm::any_of(value.getUsers(), [&](Operation *user) {
        if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user))
          return readByReduction(user->getResult(0));
        auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
        return linalgOp && linalgOp.getNumReductionLoops() > 0 &&
               !isHeavy(linalgOp);
      });
    };
    auto rowSplitConvolution = [&]() {
      Operation *heavy = region.heavy;
      if (!heavy || heavy == region.root.getOperation() || ranges.size() != 4)
        return false;
      // The convolution's loop of output rows: (n, f, oh, ow, ...) of a 1x1
      // convolution, (n, oh, ow, c, ...) of a depthwise one.
      int64_t rowLoop;
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(heavy);
          conv && fx::isPointwiseConvolution(conv))
        rowLoop = 2;
      else if (fx::isRowTiledDepthwise(heavy) &&
               llvm::none_of(region.root->getResults(), readByReduction))
        rowLoop = 1;
      else
        return false;
      // It must be the root's row dimension.
      SmallVector<int64_t> dims = region.members.lookup(heavy);
      return static_cast<int64_t>(dims.size()) > rowLoop && dims[rowLoop] == 2;
    };
    if (chunkDim >= 0 && chunkDim != 2 && inner.size() == 4 && inner[2] != 0 &&
        !ShapedType::isDynamic(ranges[2]) && rowSplitConvolution()) {
      int64_t rowTiles = ranges[2] / inner[2];
      auto [whole, part] = chunkReadBytes(region, members, 2);
      if (rowTiles >= numThreads && balance(rowTiles) >= balance(chunkTiles) &&
          whole < part) {
        chunkDim = 2;
        chunkTiles = rowTiles;
      }
    }
    if (numThreads > 1 && work >= parallelMinWork && chunkDim >= 0) {
      int64_t granule = inner[chunkDim];
      int64_t chunk = tilesPerChunk(ranges[chunkDim] / granule) * granule;
      SmallVector<int64_t> sizes(inner.size(), 0);
      sizes[chunkDim] = chunk;
      FailureOr<scf::SCFTileAndFuseResult> result =
          tileAndFuseMembers(rewriter, current, sizes, members,
                             scf::SCFTilingOptions::LoopType::ForallOp);
      if (failed(result))
        return failure();
      loopRoot = result->loops.front().getOperation();
      current = cast<TilingInterface>(result->tiledAndFusedOps.front());
      // The ops now inside the chunk are the members of the second level.
      members.clear();
      for (Operation *op : result->tiledAndFusedOps)
        members.insert(op);
    }

    // Level 2: row (or convolution output) tiles inside the chunk.
    FailureOr<scf::SCFTileAndFuseResult> result =
        tileAndFuseMembers(rewriter, current, inner, members,
                           scf::SCFTilingOptions::LoopType::ForOp);
    if (failed(result))
      return failure();
    if (!loopRoot && !result->loops.empty())
      loopRoot = result->loops.front().getOperation();
    if (loopRoot) {
      loopRoot->setAttr(kDispatchAttr, rewriter.getI64IntegerAttr(id));
      loopRoot->setLoc(regionLoc);
    }
    return success();
  }

  /// Bytes of the region's operands from outside it (static tensors) that
  /// a chunk of root dimension `dim` reads whole (their indexing maps do
  /// not use it) and those it reads in part.
  static std::pair<int64_t, int64_t>
  chunkReadBytes(Region &region, const llvm::SmallPtrSetImpl<Operation *> &ops,
                 int64_t dim) {
    int64_t whole = 0, part = 0;
    for (auto &[op, dims] : region.members) {
      auto linalgOp = cast<linalg::LinalgOp>(op);
      for (OpOperand *operand : linalgOp.getDpsInputOperands()) {
        Operation *def = operand->get().getDefiningOp();
        auto type = dyn_cast<RankedTensorType>(operand->get().getType());
        if ((def && ops.contains(def)) || !type || !type.hasStaticShape())
          continue;
        int64_t bytes = type.getNumElements() *
                        llvm::divideCeil(type.getElementTypeBitWidth(), 8);
        AffineMap map = linalgOp.getMatchingIndexingMap(operand);
        bool uses = false;
        for (unsigned l = 0; l < map.getNumDims() && l < dims.size(); ++l)
          uses |= dims[l] == dim && map.isFunctionOfDim(l);
        (uses ? part : whole) += bytes;
      }
    }
    return {whole, part};
  }

  void replaceRoot(IRRewriter &rewriter, TilingInterface root,
                   scf::SCFTileAndFuseResult &result) {
    for (OpResult res : root->getResults())
      if (Value replacement = result.replacements.lookup(res))
        rewriter.replaceAllUsesWith(res, replacement);
    // Producers fused inside the loop are dead outside it now.
    SmallVector<Operation *> dead(result.fusedProducers.begin(),
                                  result.fusedProducers.end());
    if (root->use_empty()) {
      erased.insert(root);
      rewriter.eraseOp(root);
    }
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty()) {
        erased.insert(op);
        rewriter.eraseOp(op);
      }
  }
};

/// A matmul of A [M, K] by a weight read as [N, K] (`linear`) that is not
/// computed as dot products (k < dot-min-k) reads the weight across its
/// rows in the CPU's outer-product tiles (32 columns, each a row of the
/// weight, per k step): 3136 x 96 -> 384 ran at 27 GFLOP/s on one thread.
/// With enough rows to amortize it (16: the copy is K x N elements, the
/// product 2 x M x N x K flops), the weight is transposed once before the
/// matmul, outside its dispatch region (the region would recompute it per
/// tile: the weight is broadcast along the rows it tiles).
void transposeRowMajorWeights(func::FuncOp func, int64_t dotMinK,
                              bool preparedWeights) {
  SmallVector<linalg::LinalgOp> candidates;
  func.walk([&](linalg::LinalgOp op) {
    // A [M, K] x B [N, K] -> C [M, N], without a batch dimension.
    std::optional<linalg::ContractionDimensions> dims =
        fx::getDotContraction(op, /*minK=*/0);
    if (!op.hasPureTensorSemantics() || !dims || op.getNumLoops() != 3)
      return;
    auto weight = dyn_cast<RankedTensorType>(op.getDpsInputs()[1].getType());
    if (!weight || !weight.hasStaticShape())
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t rows = ranges[dims->m.front()];
    // (A static weight has a static k; k >= dot-min-k: dot products,
    // unless the weight is transposed once per binding.)
    // A weight beyond 1 MiB stays: the region's row blocks would each
    // stream it from memory (49 x 3072 -> 768: 2.2 -> 7.4 ms), where dot
    // products split by columns read it once.
    bool prepared =
        preparedWeights && fx::isPackableFilter(op.getDpsInputs()[1]) &&
        weight.getNumElements() * weight.getElementTypeBitWidth() / 8 <=
            (int64_t(1) << 20);
    if ((ranges[dims->k.front()] >= dotMinK && !prepared) ||
        ShapedType::isDynamic(rows) || rows < 16)
      return;
    candidates.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  for (linalg::LinalgOp op : candidates) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value weight = op.getDpsInputs()[1];
    auto type = cast<RankedTensorType>(weight.getType());
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, {type.getDimSize(1), type.getDimSize(0)},
        type.getElementType());
    Value transposed = linalg::TransposeOp::create(rewriter, loc, weight, empty,
                                                   ArrayRef<int64_t>{1, 0})
                           ->getResult(0);
    Value init = op.getDpsInits()[0];
    rewriter.replaceOpWithNewOp<linalg::MatmulOp>(
        op, init.getType(), ValueRange{op.getDpsInputs()[0], transposed}, init);
  }
}

/// Padded function arguments (a CNN's image before its stem convolution)
/// are copied by a linalg.copy into an empty tensor first: fx-pad-in-place
/// then has that copy write the padded buffer's interior, and the CPU
/// tiling splits it between threads and vectorizes it. Without a producer
/// the pad bufferized to a serial fill of the whole padded buffer and a
/// serial copy of the argument into it: about 100 us before the first
/// parallel loop of resnet18, mobilenet_v2 and efficientnet_b0 on an
/// AVX-512 Xeon (2% of mobilenet_v2's time; with the copy, 40-60 us less).
/// Only arguments large enough to split between threads (`minElements`,
/// parallel-min-work): a small one's serial copy costs less than a loop.
void copyPaddedArguments(func::FuncOp func, int64_t minElements) {
  SmallVector<tensor::PadOp> pads;
  func.walk([&](tensor::PadOp pad) {
    auto arg = dyn_cast<BlockArgument>(pad.getSource());
    if (arg && arg.getOwner()->isEntryBlock() &&
        arg.getOwner()->getParentOp() == func.getOperation() &&
        pad.getSourceType().hasStaticShape() &&
        pad.getSourceType().getNumElements() >= minElements &&
        pad.getConstantPaddingValue())
      pads.push_back(pad);
  });
  IRRewriter rewriter(func.getContext());
  for (tensor::PadOp pad : pads) {
    rewriter.setInsertionPoint(pad);
    RankedTensorType type = pad.getSourceType();
    Value empty = tensor::EmptyOp::create(
        rewriter, pad.getLoc(), type.getShape(), type.getElementType());
    Value copy =
        linalg::CopyOp::create(rewriter, pad.getLoc(), pad.getSource(), empty)
            ->getResult(0);
    rewriter.modifyOpInPlace(pad, [&] { pad.getSourceMutable().set(copy); });
  }
}

/// fx-form-dispatch-regions: the CPU's regions.
struct FormDispatchRegionsPass
    : public fx::impl::FXFormDispatchRegionsBase<FormDispatchRegionsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (fuse)
      transposeRowMajorWeights(getOperation(), dotMinK,
                               transposePreparedWeights);
    copyPaddedArguments(getOperation(), parallelMinWork);
    fx::DispatchRegionOptions options;
    options.threads = threads;
    options.parallelMinWork = parallelMinWork;
    options.convTileF = convTileF;
    options.convTileW = convTileW;
    options.packedConvTileF = packedConvTileF;
    options.packedConvTileW = packedConvTileW;
    options.contractionTileM = contractionTileM;
    options.contractionTileN = contractionTileN;
    options.dotMinK = dotMinK;
    options.fuse = fuse;
    options.report = report;
    if (failed(fx::formDispatchRegions(getOperation(), options)))
      signalPassFailure();
  }
};

} // namespace

LogicalResult fx::formDispatchRegions(func::FuncOp func,
                                      const DispatchRegionOptions &options) {
  RegionFormer former;
  static_cast<DispatchRegionOptions &>(former) = options;
  former.function = func;
  former.runOnOperation();
  return failure(former.runFailed);
}

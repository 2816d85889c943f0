//===- MatmulKernels.h - GEMM kernels for Vulkan ----------------*- C++ -*-===//
//
// The pieces of fx-map-matmuls-to-gpu (MapMatmulsToGPU.cpp), split as
// IREE splits its SPIR-V kernel configuration from its tiling passes:
// MatmulKernelConfig.cpp analyzes an op's GEMM view and chooses the tile,
// MatmulSIMTKernel.cpp builds the tiled kernel through workgroup memory,
// MatmulCooperativeKernel.cpp the cooperative-matrix (tensor core) one,
// MatmulWindowKernel.cpp one thread per output for depthwise convolutions.
// Internal to lib/Codegen/SPIRV.
//
//===----------------------------------------------------------------------===//

#ifndef FX_LIB_CODEGEN_SPIRV_MATMULKERNELS_H
#define FX_LIB_CODEGEN_SPIRV_MATMULKERNELS_H

#include "fx/Codegen/SPIRV/GPUUtils.h"
#include "fx/Codegen/SPIRV/Passes.h"
#include "fx/Transforms/LinalgUtils.h"

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

#include <string>

namespace mlir::fx::matmul {

constexpr unsigned kWorkgroupMemorySpace = 3;

/// Split-k GEMMs of at most this many splits on the tensor cores add up
/// their partial sums in the kernel (the last workgroup of each tile);
/// more splits, a second kernel. The last workgroup's loads of all the
/// splits come after every other workgroup's work. On an H200, resnet18
/// at batch 1 (GPU us, GEMM + sum kernel against one kernel): its stem
/// split 2 ways 21.3 + 5.8 -> 20.1, its 64-channel 3x3 convolutions split
/// 6 ways 14.9 + 4.4 -> 14.8-18.8 (four: 79.8 -> 66.7), a 128-channel one
/// split 9 ways 16.2 + 3.7 -> 18.8; split 11 ways 14.2 + 3.9 -> 21.5-22.4,
/// 16 ways 16.0 + 4.5 -> 31-35. Neither fewer splits nor a tree of sums
/// helped beyond 9 (one H200 call each, resnet18 GPU time 0.389-0.394 ms
/// as here): capping convolutions at 9 splits summed in the kernel (9 x
/// 16 k steps instead of 16 x 9) took 0.533 ms (its 3x3 convolutions of
/// 256 channels 16 + 4 -> 58-62 us), at 8 splits 0.416; summing more than
/// 9 splits in two levels (groups of ceil(sqrt(splits)) summed by each
/// group's last workgroup, then the groups' sums by the last of those)
/// 0.460 (14.2 + 3.7 -> 24.2 us, 16 + 4 -> 28-29 us), convnext_tiny 1.104
/// -> 1.119 ms.
constexpr int64_t kMaxSplitsSummedInKernel = 9;

/// Reductions shorter than this stay one-thread-per-output kernels: a
/// staged tile would hold a few columns.
constexpr int64_t kMinReduction = 8;

/// A reduction of `reduction` split about `splits` ways for k steps of
/// `k`: each split's share (a multiple of k) and the number of splits that
/// makes.
inline std::pair<int64_t, int64_t> splitReduction(int64_t reduction,
                                                  int64_t splits, int64_t k) {
  int64_t perSplit =
      llvm::alignTo(llvm::divideCeil(reduction, splits), uint64_t(k));
  return {perSplit, llvm::divideCeil(reduction, perSplit)};
}

/// Every configuration uses this many threads.
constexpr int64_t kThreads = 256;

/// Workgroup memory the tensor-core kernels may use: what devices with
/// cooperative matrices offer (NVIDIA's 48 KiB).
constexpr int64_t kCooperativeWorkgroupMemory = 48 * 1024;

/// A workgroup's tile and its split over threads.
struct TileConfig {
  int64_t m, n, k;                // output rows and columns, k step
  int64_t perThreadM, perThreadN; // each thread's block of the output
  /// Split-k: workgroups per output tile, each reducing kPerSplit of k.
  int64_t splits = 1, kPerSplit = 0;
};

/// The tile, split over k when the output has fewer than 128 tiles and k is
/// long (a ResNet's last convolutions: 512 x 49 outputs, k = 4608): up to
/// 256 workgroups in all, each reducing at least 4 k steps. The partial
/// sums go to a temporary buffer that a second kernel adds to the output.
TileConfig chooseTile(int64_t batch, int64_t rows, int64_t cols,
                      int64_t reduction, bool maySplit);

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
std::string sizeText(const Group &group);

struct GemmView {
  Group rows, cols, reduction, batch;
  /// The input indexed by the row loops (the other by the column loops).
  unsigned rowOperand = 0;
};

/// An input that is a zero-padded copy of another buffer (bufferized
/// tensor.pad: an allocation filled with zero, then `source` copied into a
/// subview at offsets `low`): the kernel reads `source`, zero outside it.
struct PaddedInput {
  Value source;
  SmallVector<int64_t> low, sizes;
  /// What the padding holds: +0.0 for GEMMs; any constant for window
  /// kernels (max pooling pads with -inf).
  FloatAttr value;
};

/// The ops around a GEMM that its kernel absorbs (MatmulFusion.cpp), so
/// that a convolution with padding, a zero initial value and a bias /
/// batch norm / activation / residual epilogue is one dispatch.
struct GemmFusion {
  /// Per input: read through its padding.
  std::optional<PaddedInput> padded[2];
  /// The output starts as zero (a fill, or a copy of a zero-filled buffer,
  /// last wrote it): the accumulators start from zero, not from a load.
  bool zeroInit = false;
  /// Window kernels: the constant the output starts from (max pooling's
  /// -inf), which zeroInit then means; null for +0.0.
  FloatAttr initValue;
  /// An elementwise linalg.generic right after the GEMM that reads its
  /// output at the same element: applied to each result before the store.
  linalg::GenericOp epilogue;
  /// Whether the GEMM's own output must still be written (something after
  /// the epilogue reads it); false when only the epilogue read it.
  bool storeAccumulator = true;
  /// Per input: an elementwise linalg op (a generic, a transpose) that
  /// computed it and that the kernel computes instead, per element it reads
  /// (absorbInputPrologue).
  linalg::LinalgOp prologue[2];
  /// Per input with a prologue: the collapse_shape through which the op
  /// reads the prologue's output (attention's heads permuted, then
  /// reshaped into the rows of the output projection), else null.
  memref::CollapseShapeOp prologueView[2];
  /// The location of the kernel of the op at `opLoc`: the op's and its
  /// fused epilogue's, so that profiles name both.
  Location kernelLocation(Location opLoc) const {
    if (!epilogue)
      return opLoc;
    return FusedLoc::get(opLoc->getContext(), {opLoc, epilogue->getLoc()});
  }
  /// Ops the kernel makes redundant, erased after it is built.
  SmallVector<Operation *> absorbed;
  /// Buffers that may be left unused by then (erased with their deallocs).
  SmallVector<Value> maybeDead;

  /// Erases `absorbed` (the epilogue too) and the dead buffers.
  void eraseAbsorbed();
  /// One line for remarks: what was fused.
  std::string describe() const;
};

/// The op that last wrote zero to all of `op`'s output (a zero fill, or a
/// copy of a zero-filled buffer) with no read of it since, which a kernel
/// that starts from zero makes redundant; else null.
Operation *findZeroStart(linalg::LinalgOp op);

/// Finds what the kernel of `op` (an analyzed GEMM on buffers) can absorb.
/// With `anyConstant` (window kernels, which substitute the values), the
/// padding and the initial value may be any constant fill, else +0.0 only.
GemmFusion analyzeFusion(linalg::LinalgOp op, bool anyConstant = false);

/// Makes the elementwise linalg op that wrote input `operand` of `op`
/// (an allocation that nothing after it but `op` reads) the input's
/// prologue: the kernel computes each element it reads from the generic's
/// inputs, and the generic (and its buffer, unless it wrote in place of an
/// input) go away. Only for kernels that read the input
/// through loadGemmInput alone (the cooperative-matrix kernel: its input
/// packing, its staging loads, which then are not flat; the tiled SIMT
/// kernel).
/// False (nothing changed) where that does not hold.
bool absorbInputPrologue(linalg::LinalgOp op, unsigned operand,
                         GemmFusion &fusion);

/// The indices into `padded`'s source of the padded input's element at
/// `indices`: shifted by the low padding and clamped into the source (to 0
/// outside it), `ok` and-ed with whether the element lies inside (a null
/// `ok` becomes that condition).
SmallVector<Value> indicesInPaddedSource(OpBuilder &b, Location loc,
                                         const PaddedInput &padded,
                                         ArrayRef<Value> indices, Value &ok);

/// Loads input `operand` of `op` at `indices` (the op's view of it); with
/// a prologue, computes it from the prologue's inputs; with
/// padding, from the padded input's source, `ok` and-ed with whether the
/// element lies inside it and the indices clamped into it. Returns the
/// loaded value (not yet zeroed where !ok).
Value loadGemmInput(OpBuilder &b, Location loc, linalg::LinalgOp op,
                    const GemmFusion &fusion, unsigned operand,
                    ArrayRef<Value> indices, Value &ok);

/// One step of `op`'s reduction (a two-input op on buffers whose body
/// combines the inputs into its accumulator) at the loop values `loops`,
/// every loop set: both inputs loaded through loadGemmInput (what the
/// padding held where a padded input's element lies outside its source),
/// then the op's body applied to them and `acc`. Returns the new
/// accumulator.
Value emitReductionStep(OpBuilder &b, Location loc, linalg::LinalgOp op,
                        const GemmFusion &fusion, ArrayRef<Value> loops,
                        Value acc);

/// Stores the accumulated value `acc` of the output element at `indices`
/// (the op's output indices): to the output, and/or through the epilogue
/// to the epilogue's output.
void storeGemmResult(OpBuilder &b, Location loc, linalg::LinalgOp op,
                     const GemmFusion &fusion, Value acc,
                     ArrayRef<Value> indices);

/// storeGemmResult in two halves, so that a kernel can load and compute
/// unconditionally (at clamped indices) and guard only the stores: the
/// epilogue's loads inside a store guard each wait for memory in turn.
struct GemmResult {
  Value acc;      // the accumulated value
  Value epilogue; // the epilogue's result, if there is an epilogue
};
GemmResult computeGemmResult(OpBuilder &b, Location loc, linalg::LinalgOp op,
                             const GemmFusion &fusion, Value acc,
                             ArrayRef<Value> indices,
                             ArrayRef<Value> loadedInputs = {});
/// Whether `input` of `epilogue` (the GEMM's fused epilogue) reads the
/// GEMM's own output at the element being computed: the accumulated value,
/// which the kernel passes in instead of loading it.
inline bool readsAccumulator(linalg::LinalgOp op, linalg::GenericOp epilogue,
                             OpOperand *input) {
  return input->get() == op.getDpsInits()[0] &&
         epilogue.getMatchingIndexingMap(input).isIdentity();
}

/// The epilogue's inputs other than the accumulator at `indices` (one
/// value per epilogue input, null for the accumulator), for
/// computeGemmResult's `loadedInputs`: loaded ahead, their latency hides
/// behind other work.
SmallVector<Value> loadGemmEpilogueInputs(OpBuilder &b, Location loc,
                                          linalg::LinalgOp op,
                                          const GemmFusion &fusion,
                                          ArrayRef<Value> indices);
void storeGemmValues(OpBuilder &b, Location loc, linalg::LinalgOp op,
                     const GemmFusion &fusion, const GemmResult &result,
                     ArrayRef<Value> indices);

/// Whether `body` computes `acc + cast(a) * cast(b)` of its three arguments
/// (casts optional), in floating point.
bool isMultiplyAccumulate(Block &body);

/// Whether `body` computes `max(acc, a)` or `acc + a` of its accumulator and
/// first argument (max and sum pooling; the second, the window, unread).
bool isWindowReduction(Block &body);

/// The GEMM view of `op` if this pass maps it, else a reason.
FailureOr<GemmView> analyze(linalg::LinalgOp op, std::string &why);

/// Indices into operand `operand` of `op` for the loop values `loops`: a
/// loop itself where the operand's map reads it directly, else an
/// affine.apply of the map's expression. Loops the operand does not use may
/// be null (they count as `zero` in the expressions).
inline SmallVector<Value> operandIndices(OpBuilder &b, Location loc,
                                         linalg::LinalgOp op, unsigned operand,
                                         ArrayRef<Value> loops, Value zero) {
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

class GemmKernelBuilder {
public:
  GemmKernelBuilder(linalg::LinalgOp op, const GemmView &view,
                    const TileConfig &tile, const GemmFusion &fusion)
      : op(op), view(view), tile(tile), fusion(fusion), loc(op.getLoc()) {}

  void build();
  /// The tensor-core kernel (MatmulCooperativeGemm.cpp).
  void buildCooperative(const struct CoopGemmConfig &config);
  /// Split-k's temporary: [split][batch][row][column] partial sums in the
  /// output's element type.
  Value allocatePartialSums(OpBuilder &b, int64_t splits) {
    return memref::AllocOp::create(
        b, loc,
        MemRefType::get(
            {splits, view.batch.size(), view.rows.size(), view.cols.size()},
            getElementTypeOrSelf(op.getDpsInits()[0].getType())));
  }
  /// The second kernel of split-k: adds the partial sums (`partial`, from
  /// allocatePartialSums) to the output.
  void buildSplitSum(OpBuilder &b, Value partial);
  /// The sum as an elementwise linalg.generic (`fx.split_sum`) that the
  /// row kernel reading the result computes as it reads; false (nothing
  /// built) where that does not apply.
  bool buildSplitSumGeneric(OpBuilder &b, Value partial);
  /// Whether a row kernel reads the result, so that buildSplitSumGeneric
  /// applies to its split-k sum.
  bool splitSumInRowKernel();

private:
  Location kernelLoc() const { return fusion.kernelLocation(loc); }
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
  /// The loops of element `g` of `group` (from the output's or operand's
  /// start) at reduction position `k`, the batch's from batchLoops, each
  /// index clamped into range; and whether both were in range.
  std::pair<SmallVector<Value>, Value>
  elementLoops(OpBuilder &b, const Group &group, Value g, Value k) {
    auto [gIndex, gOk] = clamp(b, g, group);
    auto [kIndex, kOk] = fx::clampIndex(b, loc, k, view.reduction.size());
    SmallVector<Value> loops = batchLoops;
    setLoops(b, group, gIndex, loops);
    setLoops(b, view.reduction, kIndex, loops);
    return {loops, arith::AndIOp::create(b, loc, gOk, kOk)};
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
    return operandIndices(b, loc, op, operand, loops, zero);
  }
  /// Whether operand `operand`'s innermost index moves with the innermost
  /// loop of `group`: then neighbouring threads walk that group.
  bool isInnermost(unsigned operand, const Group &group) {
    AffineMap map = op.getIndexingMapsArray()[operand];
    return map.getNumResults() > 0 &&
           map.getResults().back().isFunctionOfDim(group.loops.back());
  }
  /// One thread's share of each k step's tile of an input: `count`
  /// elements of `group` from `start`, tile.k of the reduction, bound for
  /// `shared[k][unit]`, units of `width` neighbouring elements (a vector
  /// when `width` > 1); per copied element, its k and element in the tile
  /// (the same every step), and per unit its index.
  struct TileCopy {
    unsigned operand;
    const Group *group;
    int64_t count;
    Value start, shared;
    SmallVector<Value> ks, elements, units;
    int64_t width = 1;
  };
  TileCopy planTileCopy(OpBuilder &b, unsigned operand, const Group &group,
                        int64_t count, Value start, Value shared,
                        int64_t width);
  /// Loads this thread's share of the k step from `kStart`; out-of-range
  /// elements are zero. Safe at any `kStart` (indices are clamped).
  SmallVector<Value> loadTile(OpBuilder &b, const TileCopy &copy, Value kStart);
  /// Stores loaded values into the workgroup tile.
  void storeTile(OpBuilder &b, const TileCopy &copy, ValueRange values);

  linalg::LinalgOp op;
  const GemmView &view;
  const TileConfig &tile;
  const GemmFusion &fusion;
  Location loc;
  Value threadId, zero;
  SmallVector<Value> batchLoops;
  /// Host values of the dynamic loops' sizes, by loop.
  SmallVector<Value> extents;
  /// Host values of the dynamic groups' sizes.
  llvm::DenseMap<const Group *, Value> counts;
};

/// Cooperative-matrix fragments are 16x16x16; each subgroup accumulates
/// kFragsM x kFragsN fragments (a 64x64 block). Measured on an H200 (f16
/// 4096^3, kernel time, fragments loaded straight from device memory): 4x4
/// fragments 1.32 ms, 2x2 2.49 ms, 8x4 spills registers (19 ms).
constexpr int64_t kFrag = 16, kFragsM = 4, kFragsN = 4, kSubgroupSize = 32;

constexpr int64_t kSubgroupBlockM = kFrag * kFragsM,
                  kSubgroupBlockN = kFrag * kFragsN;

/// Which block of the workgroup's tile the subgroup of a thread owns:
/// subgroup s (lanes 32s..32s+31) owns block (s / subgroupsN,
/// s % subgroupsN), of blockM x blockN elements starting at (row, col).
struct SubgroupBlock {
  Value subgroup, row, col;
};
inline SubgroupBlock subgroupBlock(OpBuilder &b, Location loc, Value threadId,
                                   int64_t subgroupsN, int64_t blockM,
                                   int64_t blockN) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value subgroup = arith::DivUIOp::create(b, loc, threadId, cst(kSubgroupSize));
  Value row = arith::DivUIOp::create(b, loc, subgroup, cst(subgroupsN));
  Value col = arith::RemUIOp::create(b, loc, subgroup, cst(subgroupsN));
  return {subgroup, arith::MulIOp::create(b, loc, row, cst(blockM)),
          arith::MulIOp::create(b, loc, col, cst(blockN))};
}

/// f16 elements per 16-byte copy: operand tiles move through workgroup
/// memory as vector<4xi32>.
constexpr int64_t kHalvesPerCopy = 8;

using Precision = MatmulPrecision;

/// The general tensor-core GEMM: any GEMM view with static sizes
/// (convolutions as implicit GEMMs, transposed and batched matmuls), f32
/// operands converted per `precision`, or f16 operands as they are.
struct CoopGemmConfig {
  int64_t subgroupsM = 2, subgroupsN = 2; // subgroups of the workgroup
  int64_t fragsM = 4, fragsN = 4;         // 16x16 fragments per subgroup
  int64_t k = 32;                         // k step staged per iteration
  /// Each k step's units are loaded two steps before they are staged
  /// (two steps per loop iteration), instead of one.
  bool twoAhead = false;
  Precision precision = Precision::High;
  /// Operand fragments are bf16 (else f16).
  bool bf16 = true;
  /// An NCHW convolution whose operands are first repacked by two small
  /// kernels (channels innermost, 8 to a 16-byte unit, already converted
  /// to the fragments' type), so that the GEMM stages a unit with one load
  /// instead of eight loads, bounds checks and conversions.
  bool packedConv = false;
  /// Split-k (outputs of too few tiles to fill the GPU, long k): workgroups
  /// per output tile, each reducing kPerSplit of k (a multiple of k) into a
  /// temporary; the tile's last workgroup to finish adds them up (at most
  /// kMaxSplitsSummedInKernel splits), else a second kernel (buildSplitSum).
  int64_t splits = 1, kPerSplit = 0;
  int64_t m() const { return subgroupsM * fragsM * kFrag; }
  int64_t n() const { return subgroupsN * fragsN * kFrag; }
  int64_t threads() const { return subgroupsM * subgroupsN * kSubgroupSize; }
};

/// The configuration for `view`, or a reason the SIMT kernel serves it
/// better (too few tiles, dynamic sizes, types).
FailureOr<CoopGemmConfig>
chooseCoopGemm(linalg::LinalgOp op, const GemmView &view, Precision precision,
               bool allowBF16, int64_t packedConvMinMacs, std::string &why);

/// Larger workgroups (8 subgroups, 128-row or 128-column tiles) for a
/// convolution of many output tiles that `config` gives 64x64 tiles. The
/// kernel waits on its operands' loads, one k step ahead: bigger tiles
/// read fewer bytes per product from the L2 cache and more subgroups keep
/// more loads in flight. `inputPrologue`: the kernel computes a producer
/// of the input as it loads it.
void widenConvolutionTiles(linalg::LinalgOp op, const GemmView &view,
                           bool inputPrologue, CoopGemmConfig &config);

/// The location metadata that marks a kernel whose fragments are bf16 for
/// fx-retype-bf16-cooperative-matrices.
constexpr StringLiteral kBF16FragmentsMarker = "fx.bf16_fragments";

/// Whether `op` is a matmul the cooperative-matrix kernel takes; `why`
/// says why not.
bool isCooperativeMatmul(linalg::LinalgOp op, bool allowBF16, std::string &why);

/// The cooperative-matrix kernel's tiling: 2x2 subgroups (128x128 tiles)
/// where M and N allow, k staged 32 at a time where K allows.
struct CoopTile {
  int64_t subgroupsM, subgroupsN, k;
  int64_t m() const { return subgroupsM * kSubgroupBlockM; }
  int64_t n() const { return subgroupsN * kSubgroupBlockN; }
  int64_t threads() const { return kSubgroupSize * subgroupsM * subgroupsN; }
};

CoopTile chooseCoopTile(int64_t m, int64_t n, int64_t k);

/// A workgroup per output tile; see the pass description. With
/// `zeroStart` (findZeroStart) the accumulators start from zero and it is
/// erased.
void buildCooperativeMatmul(linalg::LinalgOp op, const CoopTile &tile,
                            Operation *zeroStart, linalg::GenericOp truncation);

/// The elementwise truncation of `op`'s f32 output to f16 right after
/// `op`, when nothing else reads the output: the cooperative-matrix kernel
/// then writes the f16 result itself. Else null.
linalg::GenericOp truncationAfter(linalg::LinalgOp op);

/// Reductions of at most this many iterations per output are windows
/// (MatmulWindowKernel.cpp): a 7x7 depthwise convolution's 49 taps.
constexpr int64_t kMaxWindow = 64;

/// Whether `op` (a multiply-accumulate on buffers that is no GEMM, such as
/// a depthwise convolution) takes the window kernel; `why` says why not.
bool isWindowOp(linalg::LinalgOp op, std::string &why);

/// Whether the GEMM's output is a vector (rows or columns of one element)
/// of static sizes with a reduction of at least 64: a dot product per
/// output element, for buildDotKernel.
bool isDotProductGemm(const GemmView &view);

/// A 32-lane subgroup per output element of `op` (isDotProductGemm), its
/// lanes striding along k, with what `fusion` absorbs; erases `op` (the
/// caller erases the absorbed ops). Targets with 32-lane subgroups only.
void buildDotKernel(linalg::LinalgOp op, const GemmView &view,
                    const GemmFusion &fusion);

/// One thread per output element of `op` (isWindowOp), its window reduced
/// in registers, with what `fusion` absorbs; erases `op` (the caller erases
/// the absorbed ops).
void buildWindowKernel(linalg::LinalgOp op, const GemmFusion &fusion);

} // namespace mlir::fx::matmul

#endif // FX_LIB_CODEGEN_SPIRV_MATMULKERNELS_H

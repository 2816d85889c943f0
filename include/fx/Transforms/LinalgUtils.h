//===- LinalgUtils.h - linalg queries shared by the FX passes ---*- C++ -*-===//

#ifndef FX_TRANSFORMS_LINALGUTILS_H
#define FX_TRANSFORMS_LINALGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>
#include <string>

namespace mlir::fx {

/// "op (file:line)" for the code at `loc`, as profiles name a CPU loop or
/// a Vulkan kernel: the first op name the importer put there (a NameLoc)
/// and the user's source line, with the number of other ops fused into it
/// ("op +2 fused (...)"), after the kernel's role if one was given
/// (withKernelRole: "pack input: op (...)"); `unnamed` where no op name
/// is known.
std::string describeLocation(Location loc, StringRef unnamed = "loop");

/// `loc` marked as the location of a helper kernel of an op ("pack
/// input", "split-k sum"), which describeLocation puts first.
Location withKernelRole(Location loc, StringRef role);

/// A reduction other than a convolution that reads more than one operand
/// along its reduced dimensions: it multiplies tensors like a matmul
/// (attention's P x V, a batched linear written as a generic). Such ops need
/// register-blocked contraction tiles, so neither elementwise fusion nor
/// dispatch regions merge other ops into them.
bool isContractionLike(linalg::LinalgOp op);

/// The number of thread chunks a `threads` pass option asks for: the
/// option itself, or the host's hardware threads when it is 0.
int64_t resolveThreadCount(int64_t threads);

/// The product of `op`'s static loop ranges (dynamic ones count as 1): the
/// work measure the parallel-min-work options compare against.
int64_t staticIterationCount(linalg::LinalgOp op);

/// The op of a single-result reduction's body that combines the running
/// value (the output block argument) with the next element, or nullptr when
/// `op` is not such a reduction.
Operation *getReductionCombiner(linalg::LinalgOp op);

/// Whether partial results of `combiner` can be combined across a GPU
/// workgroup: add, mul, min and max (the gpu.subgroup_reduce kinds that
/// convert-gpu-to-spirv lowers for Vulkan).
bool isWorkgroupCombinable(Operation *combiner);

/// The contraction dimensions of `op` if it is a "dot-product" contraction:
/// one m, one n and one k dimension (and at most one batch dimension), f32,
/// with both operands contiguous along k (the lhs [m, k], the rhs [n, k], as
/// `linear` reads its weight) and at least `minK` reduced elements. The CPU
/// computes such contractions as dot products (fx-cpu-tile-and-vectorize),
/// and dispatch regions split them by columns when they are wide.
std::optional<linalg::ContractionDimensions>
getDotContraction(linalg::LinalgOp op, int64_t minK);

/// Whether `op` is a 1x1 convolution of stride 1 (conv_2d_nchw_fchw with a
/// static 1 x 1 window): each output channel is a weighted sum of the input
/// channels at the same pixel, a matmul of the [F, C] filter by the input
/// as [C, H * W]. The CPU computes it as one (fx-cpu-tile-and-vectorize),
/// with vectors along the flattened pixels, so small images (7 x 7) fill
/// whole vectors; dispatch regions give it tiles of whole rows.
bool isPointwiseConvolution(linalg::LinalgOp op);

/// Whether the CPU computes a pointwise convolution over a packable filter
/// of an `height` x `width` image like a larger window (vectors along the
/// output channels, fx-cpu-pack-convolutions) instead of as a matmul: small
/// images, up to 64 pixels, whose rows fit one packed tile of
/// `packedTileW` columns. The matmul's vectors run along the pixels, which
/// few vectors hold badly (7 x 7: 3 vectors and a lone pixel, whose tile
/// costs as much as a full one). Per-loop minima of mobilenet_v2 on a
/// 2-thread AVX-512 Xeon (14-column tiles): its 1x1 convolutions at 7 x 7
/// 960 -> 320 and 320 -> 1280 went from 167 and 260 us to 124 and 197
/// (the model 4.69 -> 4.30 ms); for x86-64-v3 (6-column tiles, a row of 7
/// split in two) they went from 219 and 306 to 284 and 390 us, so AVX2
/// keeps matmuls. A 1-pixel image stays a matrix-vector product.
bool packsPointwiseConvolution(int64_t height, int64_t width,
                               int64_t packedTileW);

/// Output rows of the CPU's depthwise convolution tiles (of unit
/// dilation): a few channels, this many rows and the whole window per tile,
/// so that each input row loaded feeds the KH output rows whose window
/// covers it (fx-cpu-tile-and-vectorize); dispatch regions tile such
/// convolutions and their epilogues by whole multiples of it, with whole
/// rows of columns. With 4, a 3x3 window loads 6 input rows per column
/// offset for 36 FMAs.
constexpr int64_t kDepthwiseTileRows = 4;

/// Whether `op` is a depthwise NCHW convolution that the CPU tiles by
/// kDepthwiseTileRows output rows: one of unit dilation. Per-loop minima
/// on a 2-thread AVX-512 Xeon (4 rounds, alternated): the 17 depthwise
/// convolutions of mobilenet_v2 1122 -> 842 us, the 16 of efficientnet_b0
/// 2075 -> 1769 us.
bool isRowTiledDepthwise(Operation *op);

/// The mark of a pointwise convolution that fx-form-dispatch-regions tiled
/// for fx-cpu-pack-convolutions (packsPointwiseConvolution).
constexpr llvm::StringLiteral kPackPointwiseAttr = "fx.pack_pointwise";

/// The indexing maps (m, n, k) of C[M, N] += A[M, K] * B, with B as
/// [K, N], or as [N, K] (`linear`'s weight) when `transposedB`.
SmallVector<AffineMap> matmulIndexingMaps(MLIRContext *ctx, bool transposedB);

/// A constant tensor holding weights (a model imported with frozen
/// weights): not a splat, at least 1024 elements. Computations on it are
/// prepared once, like those on parameters.
bool isWeightConstant(Operation *op);

/// A filter the CPU packs once (fx-cpu-pack-convolutions): a parameter
/// (an argument of its function tagged fx.param) or a weight constant.
bool isPackableFilter(Value filter);

/// The types of a convolution's input, filter and output, when all three
/// are tensors of static shape.
struct StaticConvTypes {
  RankedTensorType input, filter, output;
};
std::optional<StaticConvTypes> getStaticConvTypes(linalg::LinalgOp conv);

/// True if `op` computes a tensor from constants alone into empty tensors:
/// a linalg.fill of a constant, or a loop nest of them (a fill tiled by the
/// CPU tiling into an scf.forall or scf.for: its operands and the values it
/// captures are constants or empty tensors, and nothing inside has memory
/// effects).
bool isConstantFill(Operation *op);

/// The operand `result` is computed into in place when bufferized (the
/// tied init of a destination-style op, the shared output of an
/// scf.forall, the initial value of an scf.for), or null.
OpOperand *tiedDestination(OpResult result);

/// Whether every user of `values` other than `op` is in `op`'s block after
/// `op`, or nested in an op there: an op that takes `op`'s place may then
/// define those values.
bool usedOnlyAfter(ValueRange values, Operation *op);

/// The buffer `memref` is a view of, through any chain of view-like ops
/// (subviews, casts, reshapes); `memref` itself if it is no view.
Value viewedBuffer(Value memref);

} // namespace mlir::fx

#endif // FX_TRANSFORMS_LINALGUTILS_H

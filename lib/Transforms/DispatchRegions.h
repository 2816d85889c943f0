//===- DispatchRegions.h - regions for both targets -------------*- C++ -*-===//
//
// The grouping of linalg ops into dispatch regions that
// fx-form-dispatch-regions (CPU: tiled loop nests) and fx-form-row-kernels
// (GPU: one loop over rows) share; the rules are in their pass descriptions
// (Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef FX_LIB_TRANSFORMS_DISPATCHREGIONS_H
#define FX_LIB_TRANSFORMS_DISPATCHREGIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fx {

/// The attribute fx-form-dispatch-regions tags each region's op with (its
/// tile loop, row kernel or lone root): the region's id. fx-print-dispatch-
/// graph draws the regions from it.
constexpr llvm::StringLiteral kDispatchAttr = "fx.dispatch";

/// How regions are formed and materialized; the defaults are
/// fx-form-dispatch-regions' option defaults.
struct DispatchRegionOptions {
  int64_t threads = 0;
  int64_t parallelMinWork = 65536;
  int64_t convTileF = 16;
  int64_t convTileW = 16;
  /// Output channels of the tiles of convolutions whose filter is a
  /// parameter or a weight constant, for fx-cpu-pack-convolutions' packed
  /// blocks (0: convTileF).
  int64_t packedConvTileF = 0;
  /// Columns of a packed convolution tile: pointwise convolutions of small
  /// images whose rows fit one are packed too (0: never;
  /// fx::packsPointwiseConvolution).
  int64_t packedConvTileW = 0;
  int64_t contractionTileM = 8;
  int64_t contractionTileN = 128;
  int64_t dotMinK = 256;
  bool fuse = true;
  bool report = false;
  /// GPU mode: contractions and convolutions take no producers, and only
  /// row kernels are materialized.
  bool rowKernels = false;
};

/// Forms the dispatch regions of `func` (see the pass descriptions).
LogicalResult formDispatchRegions(func::FuncOp func,
                                  const DispatchRegionOptions &options);

} // namespace mlir::fx

#endif // FX_LIB_TRANSFORMS_DISPATCHREGIONS_H

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

#include "MatmulKernels.h"

#include "fx/Codegen/SPIRV/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXMAPMATMULSTOGPU
#include "fx/Codegen/SPIRV/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx::matmul;

namespace {

struct MapMatmulsToGPUPass
    : public fx::impl::FXMapMatmulsToGPUBase<MapMatmulsToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    std::optional<Precision> parsedPrecision =
        fx::parseMatmulPrecision(precision);
    if (!parsedPrecision) {
      getOperation().emitError("fx-map-matmuls-to-gpu: precision must be "
                               "highest, high or medium, not '")
          << precision << "'";
      return signalPassFailure();
    }
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
        buildCooperativeMatmul(op, tile, findZeroStart(op),
                               truncationAfter(op));
      }
    }
    std::vector<std::pair<linalg::LinalgOp, GemmView>> ops;
    SmallVector<linalg::LinalgOp> windows;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      bool candidate = linalg::isaContractionOpInterface(op) ||
                       linalg::isaConvolutionOpInterface(op);
      if (!candidate)
        return;
      std::string why;
      FailureOr<GemmView> view = analyze(op, why);
      if (succeeded(view)) {
        ops.push_back({op, *view});
        return;
      }
      if (report)
        op->emitRemark("not mapped as a tiled matmul: ") << why;
      // Convolutions without a GEMM view (depthwise ones) whose reduction
      // is a small window per output.
      std::string windowWhy;
      if (linalg::isaConvolutionOpInterface(op) && isWindowOp(op, windowWhy))
        windows.push_back(op);
      else if (report && linalg::isaConvolutionOpInterface(op))
        op->emitRemark("not mapped as a window: ") << windowWhy;
    });
    for (linalg::LinalgOp op : windows) {
      GemmFusion fusion = analyzeFusion(op, /*anyConstant=*/true);
      if (report) {
        op->emitRemark("window kernel: one thread per output");
        if (std::string fused = fusion.describe(); !fused.empty())
          op->emitRemark() << "fused into the kernel: " << fused;
      }
      buildWindowKernel(op, fusion);
      fusion.eraseAbsorbed();
    }
    for (auto &[op, view] : ops) {
      // What the kernel absorbs (both kernels take the same).
      GemmFusion fusion = analyzeFusion(op);
      std::string fused = fusion.describe();
      std::string why;
      // Matrix-vector products on targets with 32-lane subgroups (those
      // with cooperative matrices): a subgroup per output element, rather
      // than tiles of which one row or column is used (on the tensor
      // cores too: a classifier at batch 1).
      if (cooperativeMatrix && isDotProductGemm(view)) {
        for (unsigned operand = 0; operand < 2; ++operand)
          if (absorbInputPrologue(op, operand, fusion))
            fused = fusion.describe();
        if (report) {
          op->emitRemark() << "dot-product kernel: " << sizeText(view.rows)
                           << "x" << sizeText(view.cols) << "x"
                           << view.reduction.size()
                           << ", a 32-lane subgroup per output";
          if (!fused.empty())
            op->emitRemark() << "fused into the kernel: " << fused;
        }
        buildDotKernel(op, view, fusion);
        fusion.eraseAbsorbed();
        continue;
      }
      FailureOr<CoopGemmConfig> config = failure();
      if (cooperativeMatrix)
        config = chooseCoopGemm(op, view, *parsedPrecision,
                                bf16CooperativeMatrix, packedConvMinMacs, why);
      if (succeeded(config)) {
        // The kernel (or its input packing kernel) computes an elementwise
        // producer of a convolution's input (DenseNet's batch norm and ReLU
        // before each convolution, EfficientNet's squeeze-and-excitation
        // scaling) or of either operand of a matmul (attention's permuted
        // heads; those loads are then not flat) as it reads it, in place
        // of a kernel of its own.
        unsigned operands = linalg::isaConvolutionOpInterface(op) ? 1 : 2;
        for (unsigned operand = 0; operand < operands; ++operand)
          if (absorbInputPrologue(op, operand, fusion))
            fused = fusion.describe();
        widenConvolutionTiles(op, view, fusion.prologue[0] != nullptr, *config);
        if (report) {
          const char *kind = !getElementTypeOrSelf(op.getDpsInputs()[0]).isF32()
                                 ? "f16"
                             : config->precision == Precision::High ? "bf16x3"
                             : config->bf16                         ? "bf16"
                                                                    : "f16";
          op->emitRemark()
              << "cooperative-matrix GEMM: " << sizeText(view.rows) << "x"
              << sizeText(view.cols) << "x" << view.reduction.size() << " on "
              << kind << " fragments, " << config->m() << "x" << config->n()
              << " tiles, k step " << config->k
              << (config->splits > 1
                      ? ", k split " + std::to_string(config->splits) + " ways"
                      : "")
              << (config->packedConv ? ", operands repacked" : "");
          if (!fused.empty())
            op->emitRemark() << "fused into the kernel: " << fused;
        }
        GemmKernelBuilder(op, view, TileConfig(), fusion)
            .buildCooperative(*config);
        fusion.eraseAbsorbed();
        continue;
      }
      if (cooperativeMatrix && report)
        op->emitRemark("not on the tensor cores: ") << why;
      bool dynamic = view.rows.isDynamic() || view.cols.isDynamic() ||
                     view.batch.isDynamic();
      // With a dynamic batch the tile assumes a moderate size
      // (kDynamicSizeGuess) and k is never split (a split's partial sums
      // would need a temporary sized at run time).
      TileConfig tile =
          chooseTile(view.batch.guessedSize(), view.rows.guessedSize(),
                     view.cols.guessedSize(), view.reduction.size(), !dynamic);
      // The tiled kernel reads both operands through loadGemmInput: an
      // elementwise producer of either (a permute of attention's heads, a
      // scaling) is computed as it is read.
      for (unsigned operand = 0; operand < 2; ++operand)
        if (absorbInputPrologue(op, operand, fusion))
          fused = fusion.describe();
      if (report) {
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
        if (!fused.empty())
          op->emitRemark() << "fused into the kernel: " << fused;
      }
      GemmKernelBuilder(op, view, tile, fusion).build();
      fusion.eraseAbsorbed();
    }
  }
};

} // namespace

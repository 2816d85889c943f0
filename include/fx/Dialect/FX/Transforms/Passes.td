//===- Passes.td - FX dialect passes -----------------------*- tablegen -*-===//
//
// Rewrites on the FX dialect itself, before it is lowered: shape refinement
// and the folding of inference batch norms into convolutions.
//
//===----------------------------------------------------------------------===//

#ifndef FX_DIALECT_FX_TRANSFORMS_PASSES_TD
#define FX_DIALECT_FX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FXRefineShapes : Pass<"fx-refine-shapes", "func::FuncOp"> {
  let summary = "Make result types as static as the operand types allow";
  let description = [{
    Re-runs result type inference of every FX op, in program order, and
    replaces each result type by the meet of the written and the inferred
    type: a dimension that is dynamic in one and static in the other becomes
    static. A refinement flows forward through the function, so a graph
    imported with dynamic shapes becomes fully static once its inputs are.

    A result is only refined when all of its users are FX ops or
    `func.return`, so other dialects never see a type change. When
    `func.return` operands change, the function's result types follow,
    unless the function has callers (refining them would break the calls).

    Example: with `%x : tensor<2x3xf32>`,
    `fx.relu %x : (tensor<2x3xf32>) -> tensor<?x3xf32>` becomes
    `fx.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>`.
  }];
  let dependentDialects = ["::mlir::fx::FXDialect"];
}

def FXFoldConvBatchNorm : Pass<"fx-fold-conv-batch-norm", "func::FuncOp"> {
  let summary = "Fold inference batch norms into the convolutions before "
                "them when all weights are constants";
  let description = [{
    `fx.batch_norm(fx.convolution(x, W, b), mean, var, gamma, beta)`, where
    the convolution has no other use and `W`, `b`, `mean`, `var`, `gamma`
    and `beta` are `fx.constant`s (a model imported with `frozen=True`),
    becomes `fx.convolution(x, W', b')` with

        scale = gamma / sqrt(var + eps)
        W'[f] = W[f] * scale[f]
        b'[f] = (b[f] - mean[f]) * scale[f] + beta[f]

    computed in double precision and rounded once to the element type. A
    missing `gamma`/`beta`/`b` counts as 1/0/0. Transposed convolutions and
    batch norms whose operands are function arguments (weights bound at run
    time) are left alone. The folded ops carry the fused location of the
    convolution and the batch norm.
  }];
  let dependentDialects = ["::mlir::fx::FXDialect"];
}

#endif // FX_DIALECT_FX_TRANSFORMS_PASSES_TD

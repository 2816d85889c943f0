//===- Passes.td - FX dialect passes -----------------------*- tablegen -*-===//
//
// Rewrites on the FX dialect itself, before it is lowered: shape refinement,
// the folding of inference batch norms into convolutions and the re-typing
// of a batch-separable function for a sub-batch.
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

def FXSubBatch : Pass<"fx-sub-batch", "func::FuncOp"> {
  let summary = "Re-type a batch-separable function to compute a sub-batch";
  let description = [{
    A function whose inputs (the arguments without `fx.param`) and results
    share a static outermost dimension B, the batch, and whose ops treat each
    index of it on its own (convolutions, poolings, elementwise ops,
    reductions and normalizations over other dimensions, linear layers,
    views that keep the batch outermost, ...) computes the same results
    when run B / s times on consecutive slices of s items. This pass
    re-types it for `sub-batch` items: the inputs, the results and every
    value that depends on the inputs get `sub-batch` as their outermost
    dimension, and views and expansions follow.

    `fx-compile --sub-batch` does this to the CPU code of an entry, and the
    runtime runs the slices. Here it serves tests: a function it cannot
    split gets an error naming the op and why (an op it does not know,
    a reduction over dimension 0, a view that merges the batch into another
    dimension, ...).

    Example, with `sub-batch=1`: `fx.relu %x : (tensor<8x3xf32>) ->
    tensor<8x3xf32>` on an input `%x: tensor<8x3xf32>` becomes
    `fx.relu %x : (tensor<1x3xf32>) -> tensor<1x3xf32>`.
  }];
  let options = [
    Option<"subBatch", "sub-batch", "int64_t", /*default=*/"1",
           "The items of the outermost dimension to compute (a divisor of "
           "the batch)">,
  ];
  let dependentDialects = ["::mlir::fx::FXDialect"];
}

#endif // FX_DIALECT_FX_TRANSFORMS_PASSES_TD

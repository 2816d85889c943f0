//===- Passes.td - FX dialect transformation passes ------------*- tablegen -*-===//

#ifndef FX_TRANSFORMS_PASSES_TD
#define FX_TRANSFORMS_PASSES_TD

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

def FXEmitCInterface : Pass<"fx-emit-c-interface", "ModuleOp"> {
  let summary = "Give every public function a C-callable interface";
  let description = [{
    Sets `llvm.emit_c_interface` on every public `func.func` with a body, so
    that the LLVM lowering also emits `_mlir_ciface_<name>`, a wrapper that
    takes each memref as a pointer to its descriptor. The runtime calls
    compiled graphs through it.
  }];
}

#endif // FX_TRANSFORMS_PASSES_TD

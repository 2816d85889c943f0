//===- Passes.td - FX dialect conversion passes ----------------*- tablegen -*-===//

#ifndef FX_CONVERSION_PASSES_TD
#define FX_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFXToLinalg : Pass<"convert-fx-to-linalg", "func::FuncOp"> {
  let summary = "Lower FX ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every FX op into upstream dialects on tensors:

    * elementwise ops become `linalg.generic` with broadcasting indexing maps
      and an `arith`/`math` body; `f16`/`bf16` arithmetic is done in `f32`
      (PyTorch's opmath type) and rounded once at the end;
    * matrix products, convolutions and pooling become linalg named ops
      (`linalg.matmul`, `linalg.batch_matmul`, `linalg.conv_2d_nchw_fchw`,
      `linalg.depthwise_conv_2d_nchw_chw`, `linalg.conv_2d_ngchw_gfchw`,
      `linalg.pooling_nchw_max`, ...) with padding done by `tensor.pad`;
    * reductions, softmax and normalizations become reduction
      `linalg.generic`s;
    * reshapes, slices and concatenation become `tensor` ops.

    Dynamic dimensions lower with `tensor.dim`; where PyTorch semantics
    depend on a run-time size (a dynamic dimension broadcast against another)
    a `cf.assert` checks the assumption the generated code makes. An op that
    cannot be lowered fails the pass with a diagnostic at its location.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // FX_CONVERSION_PASSES_TD

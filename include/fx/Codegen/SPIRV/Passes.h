//===- Passes.h - SPIR-V code generation passes -----------------*- C++ -*-===//

#ifndef FX_CODEGEN_SPIRV_PASSES_H
#define FX_CODEGEN_SPIRV_PASSES_H

#include "fx/Transforms/Passes.h"

namespace mlir::fx {

/// How f32 matmuls and convolutions use the tensor cores (like PyTorch's
/// torch.set_float32_matmul_precision): `highest` keeps them on the SIMT
/// kernel; `high` splits each operand into bf16 high and low parts and sums
/// three products (hi*hi + hi*lo + lo*hi) in f32, about 16 bits of
/// mantissa; `medium` rounds operands to bf16 (f16 without bf16 fragments).
/// The `precision` option of fx-map-matmuls-to-gpu and fx-vulkan-pipeline.
enum class MatmulPrecision { Highest, High, Medium };
/// The level named `text` (highest, high, medium), or nullopt.
std::optional<MatmulPrecision> parseMatmulPrecision(StringRef text);

#define GEN_PASS_DECL
#include "fx/Codegen/SPIRV/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fx/Codegen/SPIRV/Passes.h.inc"

} // namespace mlir::fx

#endif // FX_CODEGEN_SPIRV_PASSES_H

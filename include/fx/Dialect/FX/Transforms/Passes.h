//===- Passes.h - FX dialect passes -----------------------------*- C++ -*-===//

#ifndef FX_DIALECT_FX_TRANSFORMS_PASSES_H
#define FX_DIALECT_FX_TRANSFORMS_PASSES_H

#include "fx/Dialect/FX/IR/FXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fx {

#define GEN_PASS_DECL
#include "fx/Dialect/FX/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fx/Dialect/FX/Transforms/Passes.h.inc"

} // namespace mlir::fx

#endif // FX_DIALECT_FX_TRANSFORMS_PASSES_H

//===- Passes.h - FX dialect transformation passes --------------*- C++ -*-===//

#ifndef FX_TRANSFORMS_PASSES_H
#define FX_TRANSFORMS_PASSES_H

#include "fx/Dialect/FX/IR/FXDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fx {

#define GEN_PASS_DECL
#include "fx/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fx/Transforms/Passes.h.inc"

/// fx-print-dispatch-graph writing its graphs to `os` (which must outlive
/// the pass) instead of its `output` option's file.
std::unique_ptr<Pass> createFXPrintDispatchGraphToStream(llvm::raw_ostream &os);

} // namespace mlir::fx

#endif // FX_TRANSFORMS_PASSES_H

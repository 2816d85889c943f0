//===- Packing.h - helpers of the weight-packing passes ---------*- C++ -*-===//
//
// Shared by fx-cpu-pack-convolutions and fx-cpu-pack-matmuls.
//
//===----------------------------------------------------------------------===//

#ifndef FX_LIB_CODEGEN_CPU_PACKING_H
#define FX_LIB_CODEGEN_CPU_PACKING_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::fx::cpu {

/// True if `value` is a multiple of `block` whatever the iteration: a
/// constant, a loop induction variable starting at and stepping by
/// multiples, or a sum of such (also through affine.apply).
bool isMultipleOf(Value value, int64_t block);
bool isMultipleOf(OpFoldResult ofr, int64_t block);

} // namespace mlir::fx::cpu

#endif // FX_LIB_CODEGEN_CPU_PACKING_H

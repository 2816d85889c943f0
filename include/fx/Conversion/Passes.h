//===- Passes.h - FX dialect conversion passes ------------------*- C++ -*-===//

#ifndef FX_CONVERSION_PASSES_H
#define FX_CONVERSION_PASSES_H

#include "fx/Conversion/FXToLinalg/FXToLinalg.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fx {

#define GEN_PASS_DECL
#include "fx/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fx/Conversion/Passes.h.inc"

} // namespace mlir::fx

#endif // FX_CONVERSION_PASSES_H

//===- FXDialect.h - the FX dialect -----------------------------*- C++ -*-===//

#ifndef FX_DIALECT_FXDIALECT_H
#define FX_DIALECT_FXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "fx/Dialect/FX/IR/FXDialect.h.inc"

#endif // FX_DIALECT_FXDIALECT_H

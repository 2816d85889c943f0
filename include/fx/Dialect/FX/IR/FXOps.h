//===- FXOps.h - FX dialect operations --------------------------*- C++ -*-===//

#ifndef FX_DIALECT_FXOPS_H
#define FX_DIALECT_FXOPS_H

#include "fx/Dialect/FX/IR/FXDialect.h"
#include "fx/Dialect/FX/IR/FXTypeUtils.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fx/Dialect/FX/IR/FXEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fx/Dialect/FX/IR/FXAttrs.h.inc"

#define GET_OP_CLASSES
#include "fx/Dialect/FX/IR/FXOps.h.inc"

#endif // FX_DIALECT_FXOPS_H

//===- FXDialect.cpp - FX dialect registration and definitions ------------===//

#include "fx/Dialect/FX/IR/FXDialect.h"
#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fx;

#include "fx/Dialect/FX/IR/FXDialect.cpp.inc"
#include "fx/Dialect/FX/IR/FXEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fx/Dialect/FX/IR/FXAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "fx/Dialect/FX/IR/FXOps.cpp.inc"

void FXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fx/Dialect/FX/IR/FXOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fx/Dialect/FX/IR/FXAttrs.cpp.inc"
      >();
}

Operation *FXDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

LogicalResult FXDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned regionIndex,
                                                  unsigned argIndex,
                                                  NamedAttribute attribute) {
  // fx.prepared / fx.argument: what fx-hoist-parameter-computations adds
  // (an entry's prepared parameter i; the entry argument a prepare
  // function's argument is).
  if (attribute.getName() == "fx.prepared" ||
      attribute.getName() == "fx.argument") {
    auto index = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!index || index.getInt() < 0)
      return op->emitError("'")
             << attribute.getName().getValue() << "' on argument " << argIndex
             << " must be a non-negative integer";
    return success();
  }
  if (attribute.getName() != getParamAttrName())
    return op->emitError("unknown FX argument attribute '")
           << attribute.getName().getValue() << "'";
  auto name = dyn_cast<StringAttr>(attribute.getValue());
  if (!name || name.getValue().empty())
    return op->emitError("'")
           << getParamAttrName() << "' on argument " << argIndex
           << " must be a non-empty string naming a model parameter";
  return success();
}

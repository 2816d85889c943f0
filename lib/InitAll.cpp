//===- InitAll.cpp - register everything the fx-mlir compiler uses --------===//
//
// The heavy upstream registration headers are included here only (about ten
// seconds of compile time each elsewhere).
//
//===----------------------------------------------------------------------===//

#include "fx/InitAll.h"

#include "fx/Codegen/CPU/Passes.h"
#include "fx/Codegen/SPIRV/Passes.h"
#include "fx/Conversion/Passes.h"
#include "fx/Dialect/FX/IR/FXDialect.h"
#include "fx/Pipelines/Pipelines.h"
#include "fx/Dialect/FX/Transforms/Passes.h"
#include "fx/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

void fx::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::fx::FXDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
}

void fx::registerAllPasses() {
  static bool registered = [] {
    mlir::registerAllPasses();
    mlir::fx::registerFXDialectTransformsPasses();
    mlir::fx::registerFXTransformsPasses();
    mlir::fx::registerFXCodegenCPUPasses();
    mlir::fx::registerFXCodegenSPIRVPasses();
    mlir::fx::registerFXConversionPasses();
    mlir::fx::registerCPUPipeline();
    mlir::fx::registerVulkanPipeline();
    return true;
  }();
  (void)registered;
}

//===- fx-opt.cpp - mlir-opt with the FX dialect and passes ---------------===//
//
// The driver for every stage of fx-mlir: parses .mlir files, runs FX and
// upstream passes and pipelines, and prints the result. Registers the FX
// dialect and passes plus every upstream dialect and pass, since the
// pipelines below the FX dialect use most of them.
//
//===----------------------------------------------------------------------===//

#include "fx/Conversion/Passes.h"
#include "fx/Dialect/FXDialect.h"
#include "fx/Pipelines/Pipelines.h"
#include "fx/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::fx::registerFXTransformsPasses();
  mlir::fx::registerFXConversionPasses();
  mlir::fx::registerCPUPipeline();
  mlir::fx::registerVulkanPipeline();

  mlir::DialectRegistry registry;
  registry.insert<mlir::fx::FXDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "fx-mlir optimizer driver: runs FX dialect and upstream MLIR passes\n",
      registry));
}

//===- fx-opt.cpp - mlir-opt with the FX dialect and passes ---------------===//
//
// The driver for every stage of fx-mlir: parses .mlir files, runs FX and
// upstream passes and pipelines, and prints the result. Registers the FX
// dialect and passes plus every upstream dialect and pass (fx/InitAll.h),
// since the pipelines below the FX dialect use most of them.
//
//===----------------------------------------------------------------------===//

#include "fx/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  fx::registerAllPasses();
  mlir::DialectRegistry registry;
  fx::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "fx-mlir optimizer driver: runs FX dialect and upstream MLIR passes\n",
      registry));
}

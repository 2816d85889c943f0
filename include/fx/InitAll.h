//===- InitAll.h - register what the fx-mlir compiler uses ------*- C++ -*-===//
//
// The one place that registers dialects, extensions, LLVM IR translations,
// passes and pipelines: fx-opt, the compiler library (fx::Compiler, fx-run,
// fx-compile) and the tests all call these, so a tool never lacks what a
// pipeline needs.
//
//===----------------------------------------------------------------------===//

#ifndef FX_INITALL_H
#define FX_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace fx {

/// Adds the FX dialect, every upstream dialect and extension, and the
/// translations to LLVM IR to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every upstream pass, the FX passes and the FX pipelines
/// (fx-cpu-pipeline, fx-fusion-report, fx-vulkan-pipeline) with the pass
/// registry, once per process (later calls do nothing).
void registerAllPasses();

} // namespace fx

#endif // FX_INITALL_H

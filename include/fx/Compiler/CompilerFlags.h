//===- CompilerFlags.h - the compiler's command-line flags ------*- C++ -*-===//
//
// The flags fx-run and fx-compile share, defined once so that each means the
// same in both tools (as MLIR's registerPassManagerCLOptions does for its
// tools): code generation, fusion, the mode and the cache. Each tool adds
// its own (--target, --entry, outputs) and then:
//
//   fx::registerCompilerFlags(category);
//   llvm::cl::ParseCommandLineOptions(argc, argv, ...);
//   fx::CompilerOptions options;
//   if (rt::Status s = fx::applyCompilerFlags(options); !s.isOk()) ...
//
//===----------------------------------------------------------------------===//

#ifndef FX_COMPILER_COMPILERFLAGS_H
#define FX_COMPILER_COMPILERFLAGS_H

#include "fx/Compiler/Compiler.h"

#include "llvm/Support/CommandLine.h"

namespace fx {

/// Registers the shared flags in `category` (once per process).
void registerCompilerFlags(llvm::cl::OptionCategory &category);

/// Sets the fields of `options` the shared flags decide; an error for a
/// value no field takes (an unknown --mode, a workgroup size of 0).
rt::Status applyCompilerFlags(CompilerOptions &options);

/// Prints an error of tool `tool` to stderr: "<tool>: error: <message>",
/// or the message as it is when it holds the compiler's diagnostics (which
/// start with their location and severity).
void printToolError(llvm::StringRef tool, const std::string &message);

} // namespace fx

#endif // FX_COMPILER_COMPILERFLAGS_H

//===- CPUCompiler.h - FX functions to CPU code -----------------*- C++ -*-===//
//
// The compiler side of CPU execution: specializes an FX function to concrete
// input shapes, lowers it with fx-cpu-pipeline and compiles it with LLVM:
// JIT (MLIR's ExecutionEngine, ORC underneath), or ahead of time into a
// shared object for artifacts (compileCPUCode). The result is called through
// the MLIR-free runtime (fx/Runtime/CPUFunction.h, CPULibrary.h).
//
//===----------------------------------------------------------------------===//

#ifndef FX_COMPILER_CPUCOMPILER_H
#define FX_COMPILER_CPUCOMPILER_H

#include "fx/Compiler/Entry.h"
#include "fx/Runtime/CPUFunction.h"
#include "fx/Runtime/CPULibrary.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace fx {

/// Options of CPU compilation (JitModule::compile and compileCPUCode).
struct CPUCompileOptions {
  /// Fuse elementwise producer/consumer chains (fx-cpu-pipeline option).
  bool fuseElementwise = true;
  /// Print the fusion decisions as remarks (fx-form-dispatch-regions).
  bool fusionReport = false;
  /// Form dispatch regions after elementwise fusion (fx-cpu-pipeline option).
  bool dispatchRegions = true;
  /// Tile and vectorize (fx-cpu-pipeline option).
  bool vectorize = true;
  /// Non-temporal stores for buffers a kernel only writes of at least this
  /// many bytes (fx-cpu-pipeline's streaming-store-bytes; x86-64 code
  /// only): -1 for the last-level cache of `cpu` (sharedCacheBytes), 0 for
  /// none.
  int64_t streamingStoreBytes = -1;
  /// Parallel chunks per large op (fx-cpu-pipeline option; 0: hardware).
  int64_t threads = 0;
  /// LLVM optimization level.
  unsigned optLevel = 3;
  /// The CPU to compile for: `native` (this host's CPU and all its
  /// features) or an LLVM CPU name such as x86-64-v3 (AVX2, FMA) or
  /// x86-64-v4 (AVX-512), which any CPU of that level runs. The JIT takes it
  /// too, so code for a lesser level can be run and tested on any host.
  std::string cpu = "native";
  /// The CPU whose scheduling model LLVM's code generation follows (the
  /// "tune-cpu" of every function; the instructions stay those of `cpu`):
  /// an LLVM CPU name, or `auto`, which is `cpu` (the host's for native)
  /// except where that model is known to spill the register tiles (see
  /// resolveTuneCPU in CPUCompiler.cpp).
  std::string tuneCPU = "auto";
  /// compileCPUCode: the ELF linker to run; empty: ld.lld from PATH or
  /// LLVM's bin dir.
  std::string linker;
  /// compileCPUCode: if not null, receives the dispatch regions as a
  /// Graphviz graph (fx-print-dispatch-graph) ...
  std::string *dispatchGraph = nullptr;
  /// ... the optimized LLVM IR ...
  std::string *llvmIR = nullptr;
  /// ... and the assembly.
  std::string *assembly = nullptr;
};

/// The bytes of the last-level cache one core shares with the threads of a
/// run on the CPU `cpu` (CPUCompileOptions::cpu): this host's for `native`
/// (from Linux's sysfs), else 32 MiB.
int64_t sharedCacheBytes(const std::string &cpu);

/// Code compiled in memory; functions stay valid while it lives.
class JitModule {
public:
  ~JitModule();
  JitModule(JitModule &&) = delete;

  /// The C-interface entry point of public function `name`.
  llvm::Expected<rt::PackedFunction> lookup(llvm::StringRef name) const;

  /// Lowers `module` (FX dialect, consumed) with fx-cpu-pipeline and
  /// JIT-compiles it for `options.cpu` (which this host must be able to
  /// run). Errors are emitted as diagnostics.
  static mlir::FailureOr<std::unique_ptr<JitModule>>
  compile(mlir::ModuleOp module, const CPUCompileOptions &options);

private:
  explicit JitModule(std::unique_ptr<mlir::ExecutionEngine> engine);
  std::unique_ptr<mlir::ExecutionEngine> engine;
};

/// Lowers `module` (FX dialect, consumed) with fx-cpu-pipeline, compiles it
/// with LLVM ahead of time for `options.cpu` and links entry point `entry`
/// into a shared object the runtime loads (fx/Runtime/CPULibrary.h). Errors
/// (an unknown CPU, no linker, a link failure) are emitted as diagnostics.
mlir::FailureOr<rt::CPUCode> compileCPUCode(mlir::ModuleOp module,
                                            llvm::StringRef entry,
                                            const CPUCompileOptions &options);

} // namespace fx

#endif // FX_COMPILER_CPUCOMPILER_H

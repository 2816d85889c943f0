//===- CPULibrary.h - CPU code compiled ahead of time -----------*- C++ -*-===//
//
// CPU code in an artifact: one entry point compiled by LLVM ahead of time
// into an ELF shared object (fx-compile --target cpu). The runtime checks
// that the host can run it (architecture, CPU features), loads it from
// memory (memfd + dlopen; nothing is written to disk) and calls it through
// the same packed convention as JIT-compiled code (CPUFunction.h).
//
// The shared object imports nothing from the process by name: the support
// functions compiled code calls (the thread pool's fxrtParallelFor,
// memrefCopy, HostAllocator.h's allocation functions) are reached through
// pointer variables the object exports as
// `__fxrt_import_<name>`, which the loader fills. So several models, and
// processes that load the runtime privately (RTLD_LOCAL, e.g. Python's
// ctypes), all work. libc and libm functions come from libc.so.6 and
// libm.so.6, which the object names as its dependencies.
//
// Plain C++17 and POSIX: no MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_CPULIBRARY_H
#define FX_RUNTIME_CPULIBRARY_H

#include "fx/Runtime/CPUFunction.h"
#include "fx/Runtime/Profile.h"
#include "fx/Runtime/Status.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fx::rt {

/// The import table compiled code reaches the runtime through: the names
/// the loader fills as `__fxrt_import_<name>`.
constexpr const char *kCPUImportPrefix = "__fxrt_import_";
/// The packed entry point of function `name` is `fxrt_entry_<name>`.
constexpr const char *kCPUEntryPrefix = "fxrt_entry_";
/// The table of the code's parallel loops, for profiles: an array of
/// {FxParallelBody body, const char *name} ended by {null, null}, where the
/// name is "op (file:line)" of the loop's source. Code without parallel
/// loops has none.
constexpr const char *kCPULoopTable = "fxrt_loops";

/// Computations on the parameters alone that the compiler moved out of an
/// entry point (fx-hoist-parameter-computations): a function of some of
/// the entry's parameters whose results the entry takes as extra trailing
/// arguments. The loader runs it once per binding of the weights.
struct CPUPrepare {
  /// The packed symbol of the prepare function.
  std::string symbol;
  /// The entry's inputs it takes, by index (each a parameter), in order.
  std::vector<int64_t> arguments;
  /// What it returns, appended to the entry's arguments in this order
  /// (static shapes; names `prepared.<i>`).
  std::vector<TensorSpec> results;
};

/// Checks that every input `prepare` reads is a parameter of the entry
/// whose signature is `signature` (the artifact reader and the loader).
/// (Inline: the artifact fuzzer links the reader without the loader.)
inline Status checkPrepareArguments(const CPUPrepare &prepare,
                                    const FunctionSignature &signature) {
  for (int64_t index : prepare.arguments)
    if (index < 0 || size_t(index) >= signature.inputs.size() ||
        !signature.inputs[index].parameter)
      return Status::error("the CPU code's prepare function reads input " +
                           std::to_string(index) +
                           ", which is not a parameter of the entry");
  return Status::ok();
}

/// One entry point's CPU code, as an artifact stores it.
struct CPUCode {
  /// The instruction set: "x86_64" or "aarch64".
  std::string arch;
  /// The CPU it was compiled for: a level such as "x86-64-v3", or the name
  /// of the compiling host's CPU for `native` (e.g. "sapphirerapids").
  std::string cpu;
  /// CPU features the code uses that a host may lack (e.g. "avx512f"); the
  /// loader checks each, by the names in supportedCPUFeatures().
  std::vector<std::string> features;
  /// The symbol of the packed entry point (kCPUEntryPrefix + name).
  std::string symbol;
  /// The runtime functions it imports (each through kCPUImportPrefix +
  /// name); the loader refuses names it does not provide.
  std::vector<std::string> imports;
  /// The ELF shared object.
  std::vector<uint8_t> library;
  /// The function computing the entry's prepared parameters, if any.
  std::optional<CPUPrepare> prepare;
  /// 0: the code computes the entry's signature. Else it computes this
  /// many items of the outermost dimension of every input that is not a
  /// parameter and of every output (fx-compile --sub-batch), and a run
  /// calls it once per consecutive slice of the batch.
  int64_t subBatch = 0;
};

/// A runtime function compiled code may import, and where it is.
struct CPUImport {
  const char *name;
  void *address;
};

/// The runtime functions compiled code may import (fxrtParallelFor,
/// memrefCopy, the allocation functions): what the compiler routes through
/// the import table, and what the loader and the JIT bind.
const std::vector<CPUImport> &cpuImports();

/// The names of cpuImports().
std::vector<std::string> cpuImportNames();

/// The instruction set of this process ("x86_64", "aarch64", ...).
std::string hostArch();
/// The CPU features a CPUCode may require: those this runtime can check.
const std::vector<std::string> &supportedCPUFeatures();
/// The subset of supportedCPUFeatures() this host has.
std::vector<std::string> hostCPUFeatures();

/// Checks that this host can run `code`: the architecture, every feature
/// (the error names the missing ones and what to recompile with), and that
/// the library is an ELF shared object of that architecture.
Status checkCPUCode(const CPUCode &code);

/// A CPUCode loaded into this process; its function stays valid while the
/// library lives.
class CPULibrary {
public:
  ~CPULibrary();
  CPULibrary(const CPULibrary &) = delete;
  CPULibrary &operator=(const CPULibrary &) = delete;

  /// Checks `code` (checkCPUCode), loads it, fills its imports and looks up
  /// the entry point. `signature` is the entry's.
  static Result<std::unique_ptr<CPULibrary>> load(const CPUCode &code,
                                                  FunctionSignature signature);

  /// The entry point; with prepared parameters its signature has them
  /// appended to the entry's inputs (run and runInto pass them).
  const CPUFunction &function() const { return fn; }

  /// Runs the entry on `arguments` (the entry's inputs, parameters
  /// included). With prepared parameters, computes them first if the
  /// parameters they come from are other tensors than last time (or
  /// invalidatePrepared was called), then passes them along.
  Result<std::vector<Tensor>> run(const std::vector<Tensor> &arguments);
  Status runInto(const std::vector<Tensor> &arguments,
                 std::vector<Tensor> &outputs);
  /// Forgets the prepared parameters: the next run computes them again
  /// (after a parameter's contents changed in place).
  void invalidatePrepared();

  /// Later runs (unless paused) time each parallel loop of the entry and
  /// the serial code before and after it; lastProfile() lists the steps of
  /// the last such run in order, loops named by the code's loop table
  /// (kCPULoopTable). Preparing parameters is not part of a step.
  void enableProfiling();
  void setProfilingPaused(bool paused) { profilingPaused = paused; }
  std::vector<StepTime> lastProfile() const;

private:
  CPULibrary(void *handle, int fd, CPUFunction fn,
             std::optional<CPUFunction> prepareFn,
             std::vector<int64_t> prepareArguments)
      : handle(handle), fd(fd), fn(std::move(fn)),
        prepareFn(std::move(prepareFn)),
        prepareArguments(std::move(prepareArguments)) {}
  /// `arguments` and the prepared parameters for them (with prepareFn).
  Result<std::vector<Tensor>>
  withPrepared(const std::vector<Tensor> &arguments);
  /// Runs `call` (one run of the entry), recording its steps if profiling.
  template <typename Call> auto profiled(Call call);
  void *handle;
  /// The memfd the code was loaded from, open as long as the library is
  /// loaded: dlopen finds an already loaded library by its path, so
  /// another library's /proc/self/fd/N must not name it.
  int fd;
  CPUFunction fn;
  std::optional<CPUFunction> prepareFn;
  std::vector<int64_t> prepareArguments;
  /// The prepared parameters and the data of the parameters they were
  /// computed from.
  std::mutex prepareMutex;
  std::vector<const void *> preparedFrom;
  std::vector<Tensor> prepared;
  /// Profiling state: the loops' names by body, the last run's steps.
  bool profiling = false, profilingPaused = false;
  std::vector<std::pair<FxParallelBody, std::string>> loopNames;
  mutable std::mutex profileMutex;
  std::vector<StepTime> steps;
};

} // namespace fx::rt

#endif // FX_RUNTIME_CPULIBRARY_H

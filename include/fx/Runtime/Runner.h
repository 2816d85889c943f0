//===- Runner.h - what the command-line runners share -----------*- C++ -*-===//
//
// fx-run (compiles, then runs) and fxrt-run (runs an artifact, no compiler)
// bind arguments, run, time, compare and write outputs the same way, with
// the same messages; this is that logic. Plain C++: fxrt-run links neither
// LLVM nor MLIR. Reports go through an OutputSink so each tool prints
// through its own stream (fx-run: llvm::outs()) in the order they happen.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_RUNNER_H
#define FX_RUNTIME_RUNNER_H

#include "fx/Runtime/CPUFunction.h"
#include "fx/Runtime/Status.h"
#include "fx/Runtime/Tensor.h"
#include "fx/Runtime/VulkanRuntime.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace fx::rt {

/// Exit codes of the runners: success, outputs that differ from --expect,
/// and any error.
constexpr int kExitOk = 0, kExitMismatch = 1, kExitError = 2;

/// Receives the runners' standard output text.
using OutputSink = std::function<void(std::string_view text)>;

/// The MLIR spelling of a ranked tensor type, e.g. "tensor<4x?xf32>"
/// (kDynamicDim prints as `?`), as the runners' messages show types.
std::string tensorTypeString(DType dtype, const std::vector<int64_t> &shape);

/// Seeded random data of `spec`'s dtype and (static) shape: floats uniform
/// in [-1, 1), integers in [0, 10), bools 50/50. Fails only if the shape
/// cannot be allocated.
Result<Tensor> makeRandom(const TensorSpec &spec, std::mt19937_64 &rng);

/// Where the arguments of a run come from.
struct ArgumentSources {
  /// A .safetensors file that binds arguments with `parameter` set, by
  /// name; empty for none.
  std::string weights;
  /// .npy files for the other arguments, in order; empty: seeded random
  /// data.
  std::vector<std::string> inputs;
  uint64_t seed = 0;
};

/// Binds `arguments` (of function `function`; shapes may hold kDynamicDim)
/// from `sources`: parameters from the weights by name, the rest from the
/// .npy files in order or random data. Checks the number of files and each
/// tensor's dtype and shape; errors name the argument and the file.
Result<std::vector<Tensor>>
bindArguments(const std::string &function,
              const std::vector<TensorSpec> &arguments,
              const ArgumentSources &sources);

/// numpy.allclose-style comparison of `got` with `want` (same shape): an
/// element mismatches if |got - want| > atol + rtol * |want|; NaN matches
/// NaN.
struct Comparison {
  double maxAbs = 0, maxRel = 0;
  size_t mismatches = 0;
};
Comparison compareTensors(const Tensor &got, const Tensor &want, double rtol,
                          double atol);

/// Milliseconds since `start`.
double millisecondsSince(std::chrono::steady_clock::time_point start);

/// How a runner drives one loaded executable.
struct Executor {
  /// Runs on `inputs`, allocating the outputs.
  std::function<Result<std::vector<Tensor>>(const std::vector<Tensor> &)> run;
  /// Runs on `inputs` into existing `outputs`.
  std::function<Status(const std::vector<Tensor> &, std::vector<Tensor> &)>
      runInto;
  /// Per-step times of the last run; null unless profiling.
  std::function<Result<std::vector<StepTime>>()> lastProfile;
  /// Where the profiled steps run: "GPU" (Vulkan) or "CPU".
  std::string profiledOn = "GPU";
  /// Pauses or resumes profiling (runs without timestamps); null unless
  /// profiling.
  std::function<void(bool)> pauseProfiling;
  /// Vulkan validation errors so far; null without Vulkan.
  std::function<uint64_t()> validationErrors;
  /// Device memory held (Vulkan); null otherwise. Printed with the timings.
  std::function<vk::Executable::MemoryUse()> memoryUse;
  /// Where the last run's time went (Vulkan); null otherwise.
  std::function<vk::Executable::CallTimes()> lastCallTimes;
};

/// What to do around the run.
struct RunOptions {
  /// Time this many runs after 3 warm-up runs (0: no timing).
  unsigned bench = 0;
  /// What preparation the timing report names ("compile", "load") and how
  /// long it took.
  std::string prepareLabel = "compile";
  double prepareMs = 0;
  /// Print a summary (dtype, shape, sum) of each output.
  bool print = false;
  /// Write the outputs: .npy for one, .npz (output0, output1, ...) for any.
  std::string output;
  /// Compare with a .npy (one output) or .npz (outputs in order).
  std::string expect;
  double rtol = 1e-5, atol = 1e-6;
};

/// Runs once, then (as asked) times runs, prints the profile, fails on
/// validation errors, prints summaries, writes and compares the outputs.
/// Returns false if the outputs differ from `options.expect`.
Result<bool> runAndReport(const Executor &executor,
                          const std::vector<Tensor> &arguments,
                          const RunOptions &options, const OutputSink &out);

} // namespace fx::rt

#endif // FX_RUNTIME_RUNNER_H

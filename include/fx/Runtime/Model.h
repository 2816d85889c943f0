//===- Model.h - a compiled entry point loaded for running ------*- C++ -*-===//
//
// The runtime's front door: one entry of an artifact, loaded onto a target
// (the CPU executor or a Vulkan device), with its parameters bound by name
// from a .safetensors file (memory-mapped, not copied) or from tensors the
// caller gives. Callers pass only the inputs that are not parameters.
// Plain C++17: no MLIR or LLVM (the Vulkan loader is opened at run time).
//
//   auto model = fx::rt::Model::loadFile("model.fxa", {});
//   if (!model.isOk()) ... model.message() ...
//   fx::rt::Status s = model.value()->bindWeights("model.safetensors");
//   auto outputs = model.value()->run({input});
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_MODEL_H
#define FX_RUNTIME_MODEL_H

#include "fx/Runtime/Artifact.h"
#include "fx/Runtime/CPUFunction.h"
#include "fx/Runtime/Runner.h"
#include "fx/Runtime/Status.h"
#include "fx/Runtime/Tensor.h"
#include "fx/Runtime/VulkanRuntime.h"

#include <memory>
#include <string>
#include <vector>

namespace fx::rt {

/// How to load a model.
struct ModelOptions {
  /// The entry to load; empty: the artifact's only entry.
  std::string entry;
  /// cpu, vulkan, or empty: cpu if the entry has CPU code, else vulkan.
  std::string target;
  /// The Vulkan device and validation layer (target vulkan).
  vk::ContextOptions vulkan;
  /// A Vulkan context to share between models; null: create one.
  std::shared_ptr<vk::Context> context;
};

/// A loaded entry point. Thread-safe: any number of threads may call run
/// and runInto at once (CPU code runs concurrently, each call with its own
/// buffers; a Vulkan model runs one call at a time and the others wait);
/// binding parameters waits for the runs in flight. Distinct models never
/// wait for each other.
class Model {
public:
  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  /// Loads entry `options.entry` of `artifact` onto `options.target`: every
  /// entry of that name, when there are several shapes of it (fx-compile
  /// --dynamic-sizes); a run then takes the one of its inputs' shapes, and
  /// the signature has kDynamicDim (-1, printed `?`) where they differ.
  /// Errors: no such entry (the message lists the entries), no code for the
  /// target, a CPU that cannot run the CPU code, no Vulkan device.
  static Result<std::unique_ptr<Model>> load(const Artifact &artifact,
                                             const ModelOptions &options);
  /// readArtifact, then load; errors start with the path.
  static Result<std::unique_ptr<Model>> loadFile(const std::string &path,
                                                 const ModelOptions &options);

  const std::string &name() const { return entryName; }
  /// "cpu" or "vulkan".
  const std::string &target() const { return targetName; }
  /// Every argument (parameters flagged) and the outputs.
  const FunctionSignature &signature() const;
  /// The arguments that run() takes: those that are not parameters.
  std::vector<TensorSpec> inputs() const;
  const std::vector<TensorSpec> &outputs() const;

  /// Binds every parameter from a .safetensors file, by name (memory-mapped;
  /// weights stay valid while the model lives). Fails naming the first
  /// parameter that is missing or whose dtype or shape differs; nothing is
  /// bound then.
  Status bindWeights(const std::string &path);
  /// Binds parameter `name` to `tensor` (checked against its spec). The
  /// tensor is shared, not copied; contents changed in place take effect
  /// when it is bound again (a Vulkan device keeps a copy, CPU code may
  /// have prepared values from it).
  Status setParameter(const std::string &name, const Tensor &tensor);
  /// The parameters not bound yet.
  std::vector<std::string> unboundParameters() const;

  /// Runs on `inputs` (the non-parameter arguments, in order), which are
  /// checked (count, dtype, shape; errors name the input); returns the
  /// outputs. Fails if a parameter is unbound.
  Result<std::vector<Tensor>> run(const std::vector<Tensor> &inputs);
  /// Like run, writing into caller-provided `outputs` (checked likewise).
  Status runInto(const std::vector<Tensor> &inputs,
                 std::vector<Tensor> &outputs);

  /// Tensors to write the inputs (the non-parameter arguments, in order)
  /// and read the outputs in place: passed to runInto, they spare the
  /// copies in and out. On Vulkan they are the host memory the device
  /// buffers are filled from and read back to (device-local memory the
  /// host maps where the device has it, persistently mapped staging
  /// elsewhere); on the CPU, buffers the model keeps. The same tensors on
  /// every call; valid while the model lives. A run overwrites the outputs
  /// (read them before the next run); inputs keep what was written.
  /// Errors: a model of several compiled shapes or of dynamic dimensions.
  Result<std::vector<Tensor>> inPlaceInputs();
  Result<std::vector<Tensor>> inPlaceOutputs();

  /// Time every step of later runs (Vulkan: each dispatch and copy, by GPU
  /// timestamps; CPU: each parallel loop and the serial code between);
  /// executor() then reports them.
  Status enableProfiling();
  /// How the command-line runners drive the model: with every argument,
  /// parameters included, in argument order.
  Executor executor();

  struct Impl;

private:
  explicit Model(std::unique_ptr<Impl> impl);
  /// load, with errors about the artifact starting with "ORIGIN: ".
  static Result<std::unique_ptr<Model>> load(const Artifact &artifact,
                                             const ModelOptions &options,
                                             const std::string &origin);
  std::unique_ptr<Impl> impl;
  std::string entryName, targetName;
};

/// What fx-run --artifact and fxrt-run do: load an entry, bind its
/// arguments, run and report (Runner.h).
struct ArtifactRunOptions {
  std::string artifact;
  ModelOptions model;
  ArgumentSources sources;
  RunOptions run;
  bool profile = false;
  /// Write the inputs into the model's in-place tensors once and run on
  /// them, outputs read in place (Model::inPlaceInputs): the timed runs
  /// then copy nothing on the host.
  bool inPlaceIO = false;
};
/// Returns the exit code (kExitOk, kExitMismatch), or an error.
Result<int> runArtifact(const ArtifactRunOptions &options,
                        const OutputSink &out);

} // namespace fx::rt

#endif // FX_RUNTIME_MODEL_H

//===- VulkanRuntime.h - compiled graphs on Vulkan --------------*- C++ -*-===//
//
// The project's own Vulkan runtime: plain Vulkan C API, no MLIR or LLVM.
// The Vulkan loader (libvulkan.so.1) is opened at run time, so programs
// linking the runtime start (and run on the CPU) on machines without it; a
// missing loader or device is an error value, never a crash.
//
//   auto ctx = vk::Context::create({});            // instance + device
//   auto exe = vk::Executable::load(ctx.value(), program);
//   auto outputs = exe.value()->run(inputs);        // records once, replays
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_VULKANRUNTIME_H
#define FX_RUNTIME_VULKANRUNTIME_H

#include "fx/Runtime/Profile.h"
#include "fx/Runtime/Status.h"
#include "fx/Runtime/Tensor.h"
#include "fx/Runtime/VulkanDevice.h"
#include "fx/Runtime/VulkanProgram.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fx::rt::vk {

struct ContextOptions {
  /// Physical device index; -1: $FX_VULKAN_DEVICE if set, else the first
  /// discrete GPU, else device 0.
  int device = -1;
  /// Enable VK_LAYER_KHRONOS_validation (also when $FX_VULKAN_VALIDATION=1);
  /// an error if the layer is not installed. Validation messages of
  /// severity error are printed to stderr and counted.
  bool validation = false;
  /// Directory for the persisted VkPipelineCache ("" : $FX_VULKAN_CACHE_DIR,
  /// else $XDG_CACHE_HOME/fx-mlir or ~/.cache/fx-mlir; "none": no cache).
  std::string pipelineCacheDir;
};

/// A Vulkan instance, one logical device and its compute queue.
class Context {
public:
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  /// The physical devices the loader reports (an error if there is no
  /// loader or no device).
  static Result<std::vector<DeviceInfo>> listDevices();
  static Result<std::shared_ptr<Context>> create(const ContextOptions &options);

  const DeviceInfo &device() const;
  /// Validation-layer messages of severity error seen so far.
  uint64_t validationErrors() const;

  struct Impl;
  Impl &impl() { return *state; }

private:
  explicit Context(std::unique_ptr<Impl> state);
  std::unique_ptr<Impl> state;
};

/// GPU time of one step of the last profiled run.
using StepTime = fx::rt::StepTime;

/// A Program loaded onto a device: pipelines built, constants uploaded,
/// buffers allocated, and the whole graph recorded into one command buffer
/// that every run replays. A program with dynamic dimensions
/// (Program::isDynamic) is checked against the device at load and loaded
/// per input shape on the first run of that shape (specializeProgram); the
/// last 8 shapes stay loaded, each with its own buffers and commands.
class Executable {
public:
  ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  /// Checks the program against the device (features, limits), builds the
  /// pipelines (through the pipeline cache), allocates and uploads.
  static Result<std::unique_ptr<Executable>>
  load(std::shared_ptr<Context> context, Program program);

  const FunctionSignature &signature() const;

  /// Device memory the executable holds.
  struct MemoryUse {
    /// All of it: buffers, staging buffers and the temporary arena.
    uint64_t totalBytes = 0;
    /// The arena block holding the planned temporaries (0 when the program
    /// has no arena plan or this device could not honour it).
    uint64_t arenaBytes = 0;
  };
  MemoryUse memoryUse() const;

  /// Uploads every parameter again at the next run, also those whose tensor
  /// is the resident one (the same memory, whose contents the caller
  /// changed and bound again).
  void forgetResidentParameters();

  /// Checks `inputs` against the signature (errors name the input),
  /// uploads them, replays the command buffer, waits, and returns the
  /// outputs.
  Result<std::vector<Tensor>> run(const std::vector<Tensor> &inputs);
  /// Like run, writing into caller-provided `outputs`.
  Status runInto(const std::vector<Tensor> &inputs,
                 std::vector<Tensor> &outputs);

  /// Tensors over the host memory a run copies input `index` (of the
  /// signature's inputs) from and output `index` to: a persistently mapped
  /// staging buffer, or the device buffer itself where the host maps it
  /// (host-visible device-local memory). A run given these very tensors
  /// skips that copy, so a caller that writes its inputs and reads its
  /// outputs in place saves a memcpy each way per call. Valid while the
  /// executable lives; a run overwrites the outputs, inputs keep what was
  /// written. Errors: a parameter (resident on the device), an index out of
  /// range, a program with dynamic dimensions (buffers come per shape).
  Result<Tensor> hostInput(size_t index);
  Result<Tensor> hostOutput(size_t index);

  /// Record timestamps around every step from now on (a second command
  /// buffer; the default one stays untouched).
  Status enableProfiling();
  /// Per-step GPU times of the last run, in schedule order (an error if
  /// profiling is off or the device has no timestamp queries).
  Result<std::vector<StepTime>> lastProfile() const;
  /// While paused, runs replay the plain command buffer (no timestamps
  /// between steps), so that wall times are not the profiled ones.
  void setProfilingPaused(bool paused);

  /// Where the last run's time went, in microseconds. On the host: copying
  /// the inputs in (to staging or mapped buffers), vkQueueSubmit, the wait
  /// for its completion, copying the outputs out. On the GPU, from the last
  /// profiled run: the copies from the staging buffers before the first
  /// step (and the barrier after them) and back to them after the last one
  /// (0 where the device needs no staging, or before a profiled run).
  struct CallTimes {
    double inputs = 0, submit = 0, wait = 0, outputs = 0;
    double upload = 0, download = 0;
  };
  CallTimes lastCallTimes() const;

  struct Impl;

private:
  explicit Executable(std::unique_ptr<Impl> state);
  std::unique_ptr<Impl> state;
};

} // namespace fx::rt::vk

#endif // FX_RUNTIME_VULKANRUNTIME_H

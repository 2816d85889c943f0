//===- Executable.h - the state behind vk::Executable -----------*- C++ -*-===//
//
// Private to lib/Runtime/Vulkan.
//
//
// One Context is an instance, a logical device and its first compute queue.
// An Executable owns everything one Program needs on that device: pipelines,
// one VkBuffer per program buffer (placed in a few shared memory blocks; the
// temporaries at the offsets the compiler planned in one arena block, where
// buffers never live at the same time share memory),
// one descriptor set per dispatch, and one command buffer holding the whole
// schedule, recorded at load time. A run only copies inputs in, submits that
// command buffer and copies outputs out, so its host cost does not grow with
// the number of kernels.
//
// Memory follows the device. Where device-local memory is host-visible and
// either host-cached or not on a discrete GPU (lavapipe, integrated GPUs),
// the input, output and constant buffers are mapped and the host reads and
// writes them in place. Elsewhere buffers are device-local, and inputs and
// outputs go through persistently mapped staging buffers whose copies are
// part of the recorded command buffer.
//
// Each step sees the writes of the steps before it through one global
// memory barrier between consecutive steps. Per-buffer barriers would let
// independent steps overlap, but the compiler's schedule is a chain in
// which each step mostly reads what the previous one wrote, and a global
// barrier cannot miss a buffer.
//
// $FX_VULKAN_FORCE_STAGING=1 takes the staging path on any device, so tests
// on lavapipe cover it too.
//
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_VULKAN_EXECUTABLE_H
#define FX_RUNTIME_VULKAN_EXECUTABLE_H

#include "Context.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace fx::rt::vk {
namespace detail {

/// A VkBuffer, with where the host reads and writes it if it does.
struct DeviceBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  /// Memory of its own (transient staging); null for buffers placed in the
  /// executable's memory blocks.
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void *mapped = nullptr;
  VkDeviceSize size = 0;
};

/// The allocated size of program buffer `bytes`: Vulkan has no empty
/// buffers and fills whole words.
inline VkDeviceSize allocationSize(uint64_t bytes) {
  return std::max<uint64_t>(4, (bytes + 3) & ~uint64_t(3));
}

inline constexpr VkAccessFlags kWriteAccess =
    VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
inline constexpr VkAccessFlags kAnyAccess =
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
inline constexpr VkPipelineStageFlags kStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;

} // namespace detail

struct Executable::Impl {
  /// Keeps the device alive while anything below exists.
  std::shared_ptr<Context> context;
  Context::Impl &ctx;
  const detail::DeviceFunctions &fn;
  VkDevice device;
  Program program;

  std::vector<VkShaderModule> modules;
  std::vector<VkDescriptorSetLayout> setLayouts;
  std::vector<VkPipelineLayout> pipelineLayouts;
  std::vector<VkPipeline> pipelines;
  /// The memory of `buffers` and `staging`, sub-allocated.
  std::vector<VkDeviceMemory> memoryBlocks;
  Executable::MemoryUse memoryUse;
  /// One per program buffer.
  std::vector<detail::DeviceBuffer> buffers;
  /// Transient buffers a timed-out submission may still use.
  std::vector<detail::DeviceBuffer> retired;
  /// Staging buffers of inputs and outputs, indexed like `buffers` (empty
  /// entries for the rest); unused with unified memory.
  std::vector<detail::DeviceBuffer> staging;
  bool useStaging = false;
  VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
  /// Per dispatch; null for kernels without bindings.
  std::vector<VkDescriptorSet> descriptorSets;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkCommandBuffer profiledCommands = VK_NULL_HANDLE;
  VkQueryPool queryPool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;

  /// Set once a submission was not seen to finish (timeout): the buffers
  /// may still be in use, so runs are refused and destruction waits.
  bool pending = false;
  std::vector<StepTime> profile;
  bool haveProfile = false;
  Executable::CallTimes callTimes;
  /// Runs replay the plain command buffer while set (setProfilingPaused).
  bool profilingPaused = false;
  /// Per buffer: the tensor last uploaded into a parameter input (held, so
  /// its storage cannot be freed and reused while compared by address).
  /// Parameters stay resident: a run uploads one only when given a
  /// different tensor.
  std::vector<std::optional<Tensor>> residentParameters;
  /// Whether the prepare steps ran since the parameters last changed.
  bool prepared = false;
  /// Runs share the buffers and the command buffer: one at a time.
  std::mutex runMutex;

  /// A program with dynamic dimensions: one static executable per input
  /// shape seen (specializeProgram), the most recently used last. Each has
  /// its own buffers and recorded command buffer; pipelines come from the
  /// context's pipeline cache.
  bool dynamic = false;
  std::vector<
      std::pair<std::vector<std::vector<int64_t>>, std::unique_ptr<Executable>>>
      instances;
  bool profiling = false;
  /// At most this many shapes stay loaded; the least recently used goes.
  static constexpr size_t kMaxInstances = 8;
  /// The executable for `inputs`' shapes, loaded on first use.
  Result<Executable *> instanceFor(const std::vector<Tensor> &inputs);

  explicit Impl(std::shared_ptr<Context> owner)
      : context(std::move(owner)), ctx(context->impl()), fn(ctx.fn),
        device(ctx.device) {}
  Impl(const Impl &) = delete;
  Impl &operator=(const Impl &) = delete;
  ~Impl();

  Status checkDevice() const;
  Status createPipelines();
  /// Prints the driver's statistics of kernel `k`'s pipeline to stderr
  /// (Context::Impl::kernelStats).
  void printKernelStatistics(size_t k) const;
  Result<VkBuffer> createVkBuffer(VkDeviceSize size, VkBufferUsageFlags usage,
                                  const std::string &what);
  Result<VkDeviceMemory> allocateMemory(VkDeviceSize size, uint32_t type,
                                        const std::string &what);
  /// A host-visible buffer with memory of its own, mapped.
  Result<detail::DeviceBuffer> createMappedBuffer(VkDeviceSize size,
                                                  VkBufferUsageFlags usage,
                                                  const std::string &what);
  /// Destroys `buffer` and the memory it owns, if any.
  void destroyBuffer(detail::DeviceBuffer &buffer);
  Status allocateBuffers();
  Status initializeBuffers();
  Status createDescriptorSets();
  Status record(VkCommandBuffer commandBuffer, VkQueryPool queries);
  /// Where the host reads or writes buffer `b`: its staging buffer, or the
  /// buffer itself where the host maps it (unified memory, and inputs in
  /// host-mapped device memory).
  void *hostView(size_t b) {
    return staging[b].mapped ? staging[b].mapped : buffers[b].mapped;
  }
  /// Whether buffer `b` is an input that is a model parameter (resident).
  bool isParameter(size_t b) const { return program.isParameter(b); }
  /// Uploads the parameters whose tensor differs from the resident one.
  Status uploadParameters(const std::vector<Tensor> &inputs);
  Status submitOnce(const std::function<void(VkCommandBuffer)> &record);
  /// Records dispatch step `step`, binding its pipeline unless it is
  /// `boundPipeline` already.
  void recordDispatch(VkCommandBuffer cb, const Step &step,
                      VkPipeline &boundPipeline);
  /// Runs the program's prepare steps (Step::prepare) unless they ran since
  /// the parameters last changed.
  Status runPrepareSteps();
};

} // namespace fx::rt::vk

#endif // FX_RUNTIME_VULKAN_EXECUTABLE_H

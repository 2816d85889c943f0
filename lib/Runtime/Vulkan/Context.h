//===- Context.h - the state behind vk::Context -----------------*- C++ -*-===//
//
// Private to lib/Runtime/Vulkan: the instance, the logical device, its
// compute queue and the pipeline cache, shared by the executables loaded on
// it.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_VULKAN_CONTEXT_H
#define FX_RUNTIME_VULKAN_CONTEXT_H

#include "fx/Runtime/VulkanRuntime.h"

#include "DeviceProbe.h"
#include "VulkanLoader.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace fx::rt::vk {

struct Context::Impl {
  const detail::GlobalFunctions *global = nullptr;
  detail::InstanceFunctions instanceFns;
  detail::DeviceFunctions fn;
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  detail::DeviceProbe probe;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;

  VkPipelineCache pipelineCache = VK_NULL_HANDLE;
  /// Where the cache is saved; empty when persisting is off.
  std::string cachePath;
  /// The cache data as loaded, to skip rewriting an unchanged file.
  std::vector<uint8_t> loadedCache;

  /// FX_VULKAN_KERNEL_STATS is set and the driver reports its compiled
  /// kernels' statistics (VK_KHR_pipeline_executable_properties): each
  /// pipeline's (registers, shared memory, spills...) go to stderr.
  bool kernelStats = false;

  /// Read by the validation callback, which may run on any thread.
  std::atomic<uint64_t> validationErrors{0};
  /// vkQueueSubmit needs the queue externally synchronized, and several
  /// executables may run on one context from different threads.
  std::mutex queueMutex;
  /// Set when any call reports VK_ERROR_DEVICE_LOST: the device and
  /// everything created on it are unusable from then on.
  std::atomic<bool> deviceLost{false};

  Impl() = default;
  Impl(const Impl &) = delete;
  Impl &operator=(const Impl &) = delete;
  ~Impl();

  Status createInstance(bool validation);
  Result<std::vector<VkPhysicalDevice>> physicalDevices();
  Status createDevice();
  void loadPipelineCache(const std::string &dir);
  void savePipelineCache();

  /// Submits one command buffer with `fence`, serialized with the other
  /// submissions on this context.
  Status submit(VkCommandBuffer commands, VkFence fence);
  /// Waits for `fence` of a submission, turning a device loss into the
  /// context-wide state and a timeout into an error.
  Status wait(VkFence fence);
};

namespace detail {
/// The pipeline cache directory the options and environment select; empty
/// for none.
std::string pipelineCacheDirectory(const ContextOptions &options);
} // namespace detail

} // namespace fx::rt::vk

#endif // FX_RUNTIME_VULKAN_CONTEXT_H

//===- VulkanLoader.h - the Vulkan API through dlopen -----------*- C++ -*-===//
//
// Private to lib/Runtime/Vulkan. The runtime does not link libvulkan: the
// loader is opened with dlopen on first use and every entry point is fetched
// through vkGetInstanceProcAddr / vkGetDeviceProcAddr, so programs linking
// the runtime start on machines without Vulkan. The function tables are
// X-macro lists: using one more Vulkan function is one more line here.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_VULKAN_VULKANLOADER_H
#define FX_RUNTIME_VULKAN_VULKANLOADER_H

#include "fx/Runtime/Status.h"

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>

// VK_KHR_cooperative_matrix (headers 1.3.255+). Older headers (Debian 12
// ships 1.3.239) lack it; the declarations below match the registry, so the
// runtime built against old headers still reports the shapes of new drivers.
#ifndef VK_KHR_cooperative_matrix
typedef enum VkComponentTypeKHR {
  VK_COMPONENT_TYPE_FLOAT16_KHR = 0,
  VK_COMPONENT_TYPE_FLOAT32_KHR = 1,
  VK_COMPONENT_TYPE_FLOAT64_KHR = 2,
  VK_COMPONENT_TYPE_SINT8_KHR = 3,
  VK_COMPONENT_TYPE_SINT16_KHR = 4,
  VK_COMPONENT_TYPE_SINT32_KHR = 5,
  VK_COMPONENT_TYPE_SINT64_KHR = 6,
  VK_COMPONENT_TYPE_UINT8_KHR = 7,
  VK_COMPONENT_TYPE_UINT16_KHR = 8,
  VK_COMPONENT_TYPE_UINT32_KHR = 9,
  VK_COMPONENT_TYPE_UINT64_KHR = 10,
  VK_COMPONENT_TYPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkComponentTypeKHR;
typedef enum VkScopeKHR {
  VK_SCOPE_DEVICE_KHR = 1,
  VK_SCOPE_WORKGROUP_KHR = 2,
  VK_SCOPE_SUBGROUP_KHR = 3,
  VK_SCOPE_QUEUE_FAMILY_KHR = 5,
  VK_SCOPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkScopeKHR;
typedef struct VkCooperativeMatrixPropertiesKHR {
  VkStructureType sType;
  void *pNext;
  uint32_t MSize;
  uint32_t NSize;
  uint32_t KSize;
  VkComponentTypeKHR AType;
  VkComponentTypeKHR BType;
  VkComponentTypeKHR CType;
  VkComponentTypeKHR ResultType;
  VkBool32 saturatingAccumulation;
  VkScopeKHR scope;
} VkCooperativeMatrixPropertiesKHR;
typedef VkResult(
    VKAPI_PTR *PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)(
    VkPhysicalDevice physicalDevice, uint32_t *pPropertyCount,
    VkCooperativeMatrixPropertiesKHR *pProperties);
#define VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR                    \
  ((VkStructureType)1000506001)
typedef struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
  VkStructureType sType;
  void *pNext;
  VkBool32 cooperativeMatrix;
  VkBool32 cooperativeMatrixRobustBufferAccess;
} VkPhysicalDeviceCooperativeMatrixFeaturesKHR;
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR      \
  ((VkStructureType)1000506000)
#endif

namespace fx::rt::vk::detail {

/// Entry points the loader exports before any instance exists.
#define FX_VK_GLOBAL_FUNCTIONS(X)                                              \
  X(vkCreateInstance)                                                          \
  X(vkEnumerateInstanceExtensionProperties)                                    \
  X(vkEnumerateInstanceLayerProperties)

/// Instance-level entry points every supported (Vulkan 1.1) loader has.
#define FX_VK_INSTANCE_FUNCTIONS(X)                                            \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures)                                               \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

/// Extension entry points: null when no driver or layer provides them.
#define FX_VK_OPTIONAL_INSTANCE_FUNCTIONS(X)                                   \
  X(vkCreateDebugUtilsMessengerEXT)                                            \
  X(vkDestroyDebugUtilsMessengerEXT)                                           \
  X(vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)

#define FX_VK_DEVICE_FUNCTIONS(X)                                              \
  X(vkDestroyDevice)                                                           \
  X(vkGetDeviceQueue)                                                          \
  X(vkDeviceWaitIdle)                                                          \
  X(vkQueueSubmit)                                                             \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkWaitForFences)                                                           \
  X(vkGetFenceStatus)                                                          \
  X(vkResetFences)                                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkMapMemory)                                                               \
  X(vkUnmapMemory)                                                             \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkBindBufferMemory)                                                        \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreatePipelineCache)                                                     \
  X(vkDestroyPipelineCache)                                                    \
  X(vkGetPipelineCacheData)                                                    \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkFreeCommandBuffers)                                                      \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdDispatch)                                                             \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCmdFillBuffer)                                                           \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdWriteTimestamp)                                                       \
  X(vkCmdResetQueryPool)                                                       \
  X(vkCreateQueryPool)                                                         \
  X(vkDestroyQueryPool)                                                        \
  X(vkGetQueryPoolResults)

/// Device extension entry points: null unless the extension is enabled
/// (VK_KHR_pipeline_executable_properties, for FX_VULKAN_KERNEL_STATS).
#define FX_VK_OPTIONAL_DEVICE_FUNCTIONS(X)                                     \
  X(vkGetPipelineExecutablePropertiesKHR)                                      \
  X(vkGetPipelineExecutableStatisticsKHR)

#define FX_VK_DECLARE_MEMBER(name) PFN_##name name = nullptr;

/// The loader's exported entry points.
struct GlobalFunctions {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  /// Null in Vulkan 1.0 loaders, which the runtime rejects.
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
  FX_VK_GLOBAL_FUNCTIONS(FX_VK_DECLARE_MEMBER)
};

/// Entry points of one VkInstance.
struct InstanceFunctions {
  FX_VK_INSTANCE_FUNCTIONS(FX_VK_DECLARE_MEMBER)
  FX_VK_OPTIONAL_INSTANCE_FUNCTIONS(FX_VK_DECLARE_MEMBER)

  /// Fetches the table of `instance`; fails naming the first required
  /// function the loader does not return.
  static Result<InstanceFunctions> load(const GlobalFunctions &global,
                                        VkInstance instance);
};

/// Entry points of one VkDevice, fetched with vkGetDeviceProcAddr to skip the
/// loader's dispatch trampoline.
struct DeviceFunctions {
  FX_VK_DEVICE_FUNCTIONS(FX_VK_DECLARE_MEMBER)
  FX_VK_OPTIONAL_DEVICE_FUNCTIONS(FX_VK_DECLARE_MEMBER)

  static Result<DeviceFunctions> load(const InstanceFunctions &instance,
                                      VkDevice device);
};

#undef FX_VK_DECLARE_MEMBER

/// Opens the Vulkan loader once per process (it stays loaded: drivers
/// register atexit handlers and thread-local state that dlclose would break).
/// Later calls return the same table or the same error.
Result<const GlobalFunctions *> loadVulkan();

/// The enumerator's name ("VK_ERROR_DEVICE_LOST"), or "VkResult(N)".
std::string resultName(VkResult result);

/// "FUNCTION failed: VK_..." as an error Status.
Status vkError(const char *function, VkResult result);

/// A VK_MAKE_API_VERSION value as "major.minor.patch".
std::string versionString(uint32_t version);

} // namespace fx::rt::vk::detail

#endif // FX_RUNTIME_VULKAN_VULKANLOADER_H

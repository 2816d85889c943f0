//===- DeviceProbe.h - what the runtime learns of a device ------*- C++ -*-===//
//
// Private to lib/Runtime/Vulkan: the Vulkan structures behind DeviceInfo.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_VULKAN_DEVICEPROBE_H
#define FX_RUNTIME_VULKAN_DEVICEPROBE_H

#include "fx/Runtime/VulkanDevice.h"

#include "VulkanLoader.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fx::rt::vk::detail {

/// The features of deviceFeatures() (fx/Runtime/VulkanDevice.h), in the
/// structures Vulkan reports and enables them with. Chains are linked where
/// used: a copied FeatureSet's pNext pointers would point into the original.
/// VkPhysicalDeviceShaderBfloat16FeaturesKHR (VK_KHR_shader_bfloat16),
/// newer than the Vulkan headers of Debian 12.
struct Bfloat16FeaturesKHR {
  VkStructureType sType;
  void *pNext;
  VkBool32 shaderBFloat16Type;
  VkBool32 shaderBFloat16DotProduct;
  VkBool32 shaderBFloat16CooperativeMatrix;
};
constexpr VkStructureType kBfloat16FeaturesType =
    static_cast<VkStructureType>(1000141000);

struct FeatureSet {
  VkPhysicalDeviceFeatures core = {};
  Bfloat16FeaturesKHR bfloat16 = {kBfloat16FeaturesType, nullptr, 0, 0, 0};
  VkPhysicalDevice16BitStorageFeatures storage16 = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDevice8BitStorageFeatures storage8 = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features float16Int8 = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopMatrix = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};

  /// The flag of feature `name`, or null if the runtime does not know it.
  VkBool32 *find(std::string_view name) {
    if (name == "shaderInt64")
      return &core.shaderInt64;
    if (name == "shaderFloat64")
      return &core.shaderFloat64;
    if (name == "shaderInt16")
      return &core.shaderInt16;
    if (name == "shaderFloat16")
      return &float16Int8.shaderFloat16;
    if (name == "shaderInt8")
      return &float16Int8.shaderInt8;
    if (name == "storageBuffer8BitAccess")
      return &storage8.storageBuffer8BitAccess;
    if (name == "uniformAndStorageBuffer8BitAccess")
      return &storage8.uniformAndStorageBuffer8BitAccess;
    if (name == "storageBuffer16BitAccess")
      return &storage16.storageBuffer16BitAccess;
    if (name == "uniformAndStorageBuffer16BitAccess")
      return &storage16.uniformAndStorageBuffer16BitAccess;
    if (name == "cooperativeMatrix")
      return &coopMatrix.cooperativeMatrix;
    if (name == "shaderBFloat16Type")
      return &bfloat16.shaderBFloat16Type;
    if (name == "shaderBFloat16CooperativeMatrix")
      return &bfloat16.shaderBFloat16CooperativeMatrix;
    return nullptr;
  }
  const VkBool32 *find(std::string_view name) const {
    return const_cast<FeatureSet *>(this)->find(name);
  }
};

/// Everything the runtime learns of one physical device.
struct DeviceProbe {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  DeviceInfo info;
  VkPhysicalDeviceProperties properties = {};
  VkPhysicalDeviceMemoryProperties memory = {};
  uint64_t maxMemoryAllocationSize = UINT64_MAX;
  /// The first queue family with compute; UINT32_MAX if there is none.
  uint32_t computeFamily = UINT32_MAX;
  uint32_t timestampValidBits = 0;
  /// The largest device-local heap; UINT32_MAX if none is device-local.
  uint32_t deviceLocalHeap = UINT32_MAX;
  std::vector<std::string> extensions;
  FeatureSet features;
  /// Whether the 8-bit storage and float16/int8 structures may be chained
  /// (Vulkan 1.2, or their extensions on a 1.1 device).
  bool has8BitStorage = false, hasFloat16Int8 = false;

  bool hasExtension(std::string_view name) const {
    return std::find(extensions.begin(), extensions.end(), name) !=
           extensions.end();
  }
};

/// Queries `handle` (device `index` of the instance) for everything above.
DeviceProbe probeDevice(const InstanceFunctions &fn, VkPhysicalDevice handle,
                        uint32_t index);

/// The first memory type among `typeBits` with all of `required`, preferring
/// one that also has `preferred` and then one on heap `preferredHeap`.
std::optional<uint32_t>
findMemoryType(const VkPhysicalDeviceMemoryProperties &memory,
               uint32_t typeBits, VkMemoryPropertyFlags required,
               VkMemoryPropertyFlags preferred, uint32_t preferredHeap);

/// Element type names of cooperative-matrix shapes, in the compiler's
/// spelling ("f16", "bf16", ...).
std::string componentTypeName(VkComponentTypeKHR type);

} // namespace fx::rt::vk::detail

#endif // FX_RUNTIME_VULKAN_DEVICEPROBE_H

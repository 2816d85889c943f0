//===- DeviceProbe.cpp - properties, features and memory of a device ------===//

#include "DeviceProbe.h"

#include <cinttypes>
#include <cstdio>

using namespace fx::rt::vk;
using namespace fx::rt::vk::detail;

namespace {

const char *deviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return "discrete GPU";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return "integrated GPU";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return "virtual GPU";
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return "CPU";
  default:
    return "other";
  }
}

} // namespace

std::string fx::rt::vk::detail::componentTypeName(VkComponentTypeKHR type) {
  // Numeric cases: bf16 and the float8 types are newer than some headers.
  switch (static_cast<int64_t>(type)) {
  case 0:
    return "f16";
  case 1:
    return "f32";
  case 2:
    return "f64";
  case 3:
    return "i8";
  case 4:
    return "i16";
  case 5:
    return "i32";
  case 6:
    return "i64";
  case 7:
    return "u8";
  case 8:
    return "u16";
  case 9:
    return "u32";
  case 10:
    return "u64";
  case 1000141000:
    return "bf16";
  case 1000491002:
    return "f8E4M3";
  case 1000491003:
    return "f8E5M2";
  default:
    return "type" + std::to_string(static_cast<int64_t>(type));
  }
}

DeviceProbe fx::rt::vk::detail::probeDevice(const InstanceFunctions &fn,
                                            VkPhysicalDevice handle,
                                            uint32_t index) {
  DeviceProbe probe;
  probe.handle = handle;
  fn.vkGetPhysicalDeviceProperties(handle, &probe.properties);
  const VkPhysicalDeviceProperties &props = probe.properties;
  uint32_t api = props.apiVersion;
  bool v11 = api >= VK_API_VERSION_1_1, v12 = api >= VK_API_VERSION_1_2;

  uint32_t count = 0;
  if (fn.vkEnumerateDeviceExtensionProperties(handle, nullptr, &count,
                                              nullptr) == VK_SUCCESS) {
    std::vector<VkExtensionProperties> extensions(count);
    VkResult result = fn.vkEnumerateDeviceExtensionProperties(
        handle, nullptr, &count, extensions.data());
    if (result == VK_SUCCESS || result == VK_INCOMPLETE)
      for (uint32_t i = 0; i < count && i < extensions.size(); ++i)
        probe.extensions.push_back(extensions[i].extensionName);
  }
  probe.has8BitStorage = v12 || probe.hasExtension("VK_KHR_8bit_storage");
  probe.hasFloat16Int8 =
      v12 || probe.hasExtension("VK_KHR_shader_float16_int8");
  bool hasDriverProperties =
      v12 || probe.hasExtension("VK_KHR_driver_properties");

  // Structures of Vulkan 1.1 and later are chained only where the device
  // has them: a 1.0 device may not know their sType.
  VkPhysicalDeviceSubgroupProperties subgroup = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties maintenance3 = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  FeatureSet &features = probe.features;
  if (v11) {
    VkPhysicalDeviceProperties2 props2 = {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props2.pNext = &subgroup;
    subgroup.pNext = &maintenance3;
    if (hasDriverProperties)
      maintenance3.pNext = &driver;
    fn.vkGetPhysicalDeviceProperties2(handle, &props2);
    probe.maxMemoryAllocationSize = maintenance3.maxMemoryAllocationSize;

    VkPhysicalDeviceFeatures2 features2 = {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    void *chain = &features.storage16;
    features.storage16.pNext = nullptr;
    if (probe.has8BitStorage) {
      features.storage8.pNext = chain;
      chain = &features.storage8;
    }
    if (probe.hasFloat16Int8) {
      features.float16Int8.pNext = chain;
      chain = &features.float16Int8;
    }
    if (probe.hasExtension("VK_KHR_cooperative_matrix")) {
      features.coopMatrix.pNext = chain;
      chain = &features.coopMatrix;
    }
    if (probe.hasExtension("VK_KHR_shader_bfloat16")) {
      features.bfloat16.pNext = chain;
      chain = &features.bfloat16;
    }
    features2.pNext = chain;
    fn.vkGetPhysicalDeviceFeatures2(handle, &features2);
    features.core = features2.features;
    features.storage16.pNext = features.storage8.pNext =
        features.float16Int8.pNext = features.coopMatrix.pNext =
            features.bfloat16.pNext = nullptr;
  } else {
    fn.vkGetPhysicalDeviceFeatures(handle, &features.core);
  }

  fn.vkGetPhysicalDeviceMemoryProperties(handle, &probe.memory);
  const VkPhysicalDeviceMemoryProperties &memory = probe.memory;
  for (uint32_t heap = 0; heap < memory.memoryHeapCount; ++heap)
    if ((memory.memoryHeaps[heap].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) &&
        (probe.deviceLocalHeap == UINT32_MAX ||
         memory.memoryHeaps[heap].size >
             memory.memoryHeaps[probe.deviceLocalHeap].size))
      probe.deviceLocalHeap = heap;

  uint32_t families = 0;
  fn.vkGetPhysicalDeviceQueueFamilyProperties(handle, &families, nullptr);
  std::vector<VkQueueFamilyProperties> familyProps(families);
  fn.vkGetPhysicalDeviceQueueFamilyProperties(handle, &families,
                                              familyProps.data());
  for (uint32_t i = 0; i < families; ++i)
    if (familyProps[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      probe.computeFamily = i;
      probe.timestampValidBits = familyProps[i].timestampValidBits;
      break;
    }

  DeviceInfo &info = probe.info;
  info.index = index;
  info.name = props.deviceName;
  info.type = deviceTypeName(props.deviceType);
  if (hasDriverProperties) {
    info.driver = driver.driverName;
    if (driver.driverInfo[0])
      info.driver += std::string(" (") + driver.driverInfo + ")";
  } else {
    char text[48];
    std::snprintf(text, sizeof(text), "driver version 0x%08" PRIx32,
                  props.driverVersion);
    info.driver = text;
  }
  info.apiVersion = versionString(api);
  info.subgroupSize = v11 ? subgroup.subgroupSize : 0;
  info.maxSharedMemoryBytes = props.limits.maxComputeSharedMemorySize;
  info.maxWorkgroupInvocations = props.limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i)
    info.maxWorkgroupCount[i] = props.limits.maxComputeWorkGroupCount[i];
  info.maxStorageBufferRange = props.limits.maxStorageBufferRange;
  if (probe.deviceLocalHeap != UINT32_MAX)
    info.deviceLocalBytes = memory.memoryHeaps[probe.deviceLocalHeap].size;
  // Mapping device memory directly only pays where host reads of it are
  // fast: always on CPU and integrated devices, and on a discrete GPU only
  // if the memory is host-cached. Device-local host-visible memory of a
  // discrete GPU (resizable BAR) is write-combined: host reads of outputs
  // from it crawl over PCIe, so such GPUs use staging buffers.
  const VkMemoryPropertyFlags unified = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  bool discrete = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
    if ((flags & unified) == unified &&
        memory.memoryTypes[i].heapIndex == probe.deviceLocalHeap &&
        (!discrete || (flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT)))
      info.unifiedMemory = true;
  }
  for (const std::string &name : deviceFeatures())
    if (const VkBool32 *flag = features.find(name); flag && *flag)
      info.features.push_back(name);
  info.timestampQueries =
      props.limits.timestampComputeAndGraphics || probe.timestampValidBits > 0;
  for (const std::string &name : matrixExtensionNames())
    if (probe.hasExtension(name))
      info.matrixExtensions.push_back(name);

  if (probe.hasExtension("VK_KHR_cooperative_matrix") &&
      fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR) {
    uint32_t shapes = 0;
    if (fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(
            handle, &shapes, nullptr) == VK_SUCCESS &&
        shapes) {
      std::vector<VkCooperativeMatrixPropertiesKHR> matrices(shapes);
      for (VkCooperativeMatrixPropertiesKHR &m : matrices) {
        m = {};
        m.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
      }
      VkResult result = fn.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(
          handle, &shapes, matrices.data());
      if (result == VK_SUCCESS || result == VK_INCOMPLETE) {
        for (uint32_t i = 0; i < shapes && i < matrices.size(); ++i) {
          const VkCooperativeMatrixPropertiesKHR &m = matrices[i];
          std::string shape =
              std::to_string(m.MSize) + "x" + std::to_string(m.NSize) + "x" +
              std::to_string(m.KSize) + " " + componentTypeName(m.AType);
          if (m.BType != m.AType)
            shape += "/" + componentTypeName(m.BType);
          shape += "->" + componentTypeName(m.ResultType);
          if (m.saturatingAccumulation)
            shape += " saturating";
          if (m.scope != VK_SCOPE_SUBGROUP_KHR)
            shape += m.scope == VK_SCOPE_WORKGROUP_KHR ? " (workgroup)"
                                                       : " (other scope)";
          std::vector<std::string> &list = info.cooperativeMatrixShapes;
          if (std::find(list.begin(), list.end(), shape) == list.end())
            list.push_back(shape);
        }
      }
    }
  }
  return probe;
}

/// The first memory type among `typeBits` with all of `required`, preferring
/// one that also has `preferred` and then one on heap `preferredHeap`.
std::optional<uint32_t> fx::rt::vk::detail::findMemoryType(
    const VkPhysicalDeviceMemoryProperties &memory, uint32_t typeBits,
    VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
    uint32_t preferredHeap) {
  // AMD's device-coherent memory is uncached: never worth picking by chance.
  const VkMemoryPropertyFlags avoided =
      VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD |
      VK_MEMORY_PROPERTY_PROTECTED_BIT |
      VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT;
  for (int pass = 0; pass < 3; ++pass) {
    VkMemoryPropertyFlags wanted = pass < 2 ? required | preferred : required;
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
      VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
      if (!(typeBits & (1u << i)) || (flags & wanted) != wanted ||
          (flags & avoided))
        continue;
      if (pass == 0 && memory.memoryTypes[i].heapIndex != preferredHeap)
        continue;
      return i;
    }
  }
  return std::nullopt;
}

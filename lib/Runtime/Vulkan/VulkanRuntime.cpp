//===- VulkanRuntime.cpp - running compiled graphs through Vulkan ---------===//
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
//===----------------------------------------------------------------------===//

#include "fx/Runtime/VulkanRuntime.h"

#include "../FileIO.h"
#include "VulkanLoader.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <sstream>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

using namespace fx::rt;
using namespace fx::rt::vk;
using namespace fx::rt::vk::detail;
using fx::rt::detail::InputFile;
using fx::rt::detail::OutputFile;

namespace {

/// Storage-buffer shaders, 16-bit storage and subgroup properties are core in
/// Vulkan 1.1; the runtime asks for 1.3 where the loader has it.
constexpr uint32_t kMinimumApiVersion = VK_API_VERSION_1_1;
constexpr uint32_t kPreferredApiVersion = VK_API_VERSION_1_3;
constexpr const char *kValidationLayer = "VK_LAYER_KHRONOS_validation";

/// How long a run may take before the runtime gives up on it: generous, as
/// a whole graph on a CPU device (lavapipe) takes seconds.
/// $FX_VULKAN_TIMEOUT overrides it (seconds; 0 waits forever).
constexpr uint64_t kDefaultTimeoutSeconds = 60;

/// Constants are uploaded through a staging buffer of at most this size
/// (unless one constant is larger), so loading a model with gigabytes of
/// weights does not need as much host-visible memory at once.
constexpr uint64_t kConstantStagingBytes = 64ull << 20;

/// Buffers are placed in memory blocks of at most this size (a larger
/// buffer gets a block of its own): few allocations, yet no single huge one
/// that a fragmented heap could refuse.
constexpr uint64_t kMemoryBlockBytes = 256ull << 20;

/// Device features the runtime enables whenever the device has them, by
/// their Vulkan names; Program::requiredFeatures names these.
constexpr const char *kDeviceFeatures[] = {
    "shaderInt64",
    "shaderFloat64",
    "shaderInt16",
    "shaderFloat16",
    "shaderInt8",
    "storageBuffer8BitAccess",
    "uniformAndStorageBuffer8BitAccess",
    "storageBuffer16BitAccess",
    "shaderBFloat16Type",
    "shaderBFloat16CooperativeMatrix",
    "uniformAndStorageBuffer16BitAccess",
    "cooperativeMatrix",
};

std::optional<std::string> getEnv(const char *name) {
  const char *value = std::getenv(name);
  if (!value)
    return std::nullopt;
  return std::string(value);
}

/// An environment flag is on when set to anything but "", "0", "false" or
/// "off".
bool envFlag(const char *name) {
  std::optional<std::string> value = getEnv(name);
  return value && !value->empty() && *value != "0" && *value != "false" &&
         *value != "off";
}

/// Parses a non-negative decimal integer; nullopt for anything else.
std::optional<uint64_t> parseUnsigned(const std::string &text) {
  if (text.empty() || text.size() > 18)
    return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + uint64_t(c - '0');
  }
  return value;
}

std::string formatBytes(uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = double(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0 || value == double(uint64_t(value)))
    std::snprintf(text, sizeof(text), "%.0f %s", value, units[unit]);
  else
    std::snprintf(text, sizeof(text), "%.1f %s", value, units[unit]);
  return text;
}

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

/// Element type names of cooperative-matrix shapes, in the compiler's
/// spelling.
std::string componentTypeName(VkComponentTypeKHR type) {
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

//===----------------------------------------------------------------------===//
// Device probing
//===----------------------------------------------------------------------===//

/// The optional features of kDeviceFeatures, in the structures Vulkan
/// reports and enables them with. Chains are linked where used: a copied
/// FeatureSet's pNext pointers would point into the original.
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

DeviceProbe probeDevice(const InstanceFunctions &fn, VkPhysicalDevice handle,
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
  info.shaderFloat16 = features.float16Int8.shaderFloat16;
  info.shaderFloat64 = features.core.shaderFloat64;
  info.shaderInt8 = features.float16Int8.shaderInt8;
  info.shaderInt16 = features.core.shaderInt16;
  info.shaderInt64 = features.core.shaderInt64;
  info.bfloat16 = probe.hasExtension("VK_KHR_shader_bfloat16");
  info.bfloat16CooperativeMatrix =
      info.bfloat16 && features.bfloat16.shaderBFloat16CooperativeMatrix &&
      features.coopMatrix.cooperativeMatrix;
  info.storageBuffer8BitAccess = features.storage8.storageBuffer8BitAccess;
  info.storageBuffer16BitAccess = features.storage16.storageBuffer16BitAccess;
  info.timestampQueries =
      props.limits.timestampComputeAndGraphics || probe.timestampValidBits > 0;

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
std::optional<uint32_t>
findMemoryType(const VkPhysicalDeviceMemoryProperties &memory,
               uint32_t typeBits, VkMemoryPropertyFlags required,
               VkMemoryPropertyFlags preferred, uint32_t preferredHeap) {
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

VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *userData) {
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    static_cast<std::atomic<uint64_t> *>(userData)->fetch_add(1);
    std::fprintf(stderr, "fx-vulkan: validation: %s\n",
                 data && data->pMessage ? data->pMessage : "(no message)");
  }
  // VK_FALSE: the call that triggered the message goes ahead.
  return VK_FALSE;
}

/// The pipeline cache directory the options and environment select; empty
/// for none.
std::string pipelineCacheDirectory(const ContextOptions &options) {
  std::string dir = options.pipelineCacheDir;
  if (dir.empty())
    dir = getEnv("FX_VULKAN_CACHE_DIR").value_or("");
  if (dir.empty()) {
    // XDG: a relative $XDG_CACHE_HOME is invalid and must be ignored.
    std::string xdg = getEnv("XDG_CACHE_HOME").value_or("");
    if (!xdg.empty() && xdg[0] == '/')
      dir = xdg + "/fx-mlir";
  }
  if (dir.empty()) {
    std::string home = getEnv("HOME").value_or("");
    if (!home.empty())
      dir = home + "/.cache/fx-mlir";
  }
  return dir == "none" ? std::string() : dir;
}

/// mkdir -p; failures are left for the file creation to notice.
void createDirectories(const std::string &dir) {
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    std::string prefix = dir.substr(0, slash);
    if (!prefix.empty())
      ::mkdir(prefix.c_str(), 0755);
    if (slash == std::string::npos)
      break;
  }
}

/// A little-endian uint32 of a pipeline cache header, which Vulkan writes
/// least significant byte first whatever the host's byte order.
uint32_t readLE32(const uint8_t *bytes) {
  return uint32_t(bytes[0]) | uint32_t(bytes[1]) << 8 |
         uint32_t(bytes[2]) << 16 | uint32_t(bytes[3]) << 24;
}

} // namespace

//===----------------------------------------------------------------------===//
// DeviceInfo
//===----------------------------------------------------------------------===//

std::string DeviceInfo::describe() const {
  std::ostringstream os;
  os << "Vulkan device " << index << ": " << name << " (" << type << ")\n";
  os << "  driver:          " << (driver.empty() ? "unknown" : driver)
     << ", Vulkan " << apiVersion << "\n";
  os << "  memory:          " << formatBytes(deviceLocalBytes)
     << " device-local"
     << (unifiedMemory ? ", host-visible (no staging copies)" : "") << "\n";
  os << "  compute:         subgroup size " << subgroupSize
     << ", workgroups of " << maxWorkgroupInvocations << " invocations, "
     << formatBytes(maxSharedMemoryBytes) << " shared memory, at most "
     << maxWorkgroupCount[0] << "x" << maxWorkgroupCount[1] << "x"
     << maxWorkgroupCount[2] << " workgroups\n";
  os << "  storage buffers: at most " << formatBytes(maxStorageBufferRange)
     << " per binding\n";
  std::string have, lack;
  auto feature = [&](const char *featureName, bool present) {
    std::string &list = present ? have : lack;
    list += (list.empty() ? "" : " ") + std::string(featureName);
  };
  feature("shaderFloat16", shaderFloat16);
  feature("shaderFloat64", shaderFloat64);
  feature("shaderInt8", shaderInt8);
  feature("shaderInt16", shaderInt16);
  feature("shaderInt64", shaderInt64);
  feature("storageBuffer8BitAccess", storageBuffer8BitAccess);
  feature("storageBuffer16BitAccess", storageBuffer16BitAccess);
  feature("bfloat16", bfloat16);
  feature("bfloat16CooperativeMatrix", bfloat16CooperativeMatrix);
  os << "  features:        " << (have.empty() ? "none" : have) << "\n";
  if (!lack.empty())
    os << "  lacks:           " << lack << "\n";
  os << "  cooperative matrix: ";
  if (cooperativeMatrixShapes.empty())
    os << "none";
  for (size_t i = 0; i < cooperativeMatrixShapes.size(); ++i)
    os << (i ? ", " : "") << cooperativeMatrixShapes[i];
  os << "\n";
  os << "  timestamps:      " << (timestampQueries ? "yes" : "no") << "\n";
  return os.str();
}

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

struct Context::Impl {
  const GlobalFunctions *global = nullptr;
  InstanceFunctions instanceFns;
  DeviceFunctions fn;
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  DeviceProbe probe;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;

  VkPipelineCache pipelineCache = VK_NULL_HANDLE;
  /// Where the cache is saved; empty when persisting is off.
  std::string cachePath;
  /// The cache data as loaded, to skip rewriting an unchanged file.
  std::vector<uint8_t> loadedCache;

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

Context::Impl::~Impl() {
  if (device) {
    // Executables hold the context, so none is alive here; the wait covers
    // work the driver may still be doing for released objects.
    fn.vkDeviceWaitIdle(device);
    if (pipelineCache) {
      savePipelineCache();
      fn.vkDestroyPipelineCache(device, pipelineCache, nullptr);
    }
    fn.vkDestroyDevice(device, nullptr);
  }
  if (messenger)
    instanceFns.vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
  if (instance)
    instanceFns.vkDestroyInstance(instance, nullptr);
}

Status Context::Impl::createInstance(bool validation) {
  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (global->vkEnumerateInstanceVersion)
    if (VkResult result = global->vkEnumerateInstanceVersion(&loaderVersion);
        result != VK_SUCCESS)
      return vkError("vkEnumerateInstanceVersion", result);
  if (loaderVersion < kMinimumApiVersion)
    return Status::error("the Vulkan loader supports only Vulkan " +
                         versionString(loaderVersion) +
                         "; the runtime needs Vulkan 1.1 or later");
  uint32_t apiVersion =
      std::min(VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(loaderVersion),
                                   VK_API_VERSION_MINOR(loaderVersion), 0),
               kPreferredApiVersion);

  std::vector<const char *> layers;
  if (validation) {
    uint32_t count = 0;
    if (VkResult result =
            global->vkEnumerateInstanceLayerProperties(&count, nullptr);
        result != VK_SUCCESS)
      return vkError("vkEnumerateInstanceLayerProperties", result);
    std::vector<VkLayerProperties> available(count);
    if (VkResult result = global->vkEnumerateInstanceLayerProperties(
            &count, available.data());
        result != VK_SUCCESS && result != VK_INCOMPLETE)
      return vkError("vkEnumerateInstanceLayerProperties", result);
    bool found = false;
    for (uint32_t i = 0; i < count && i < available.size(); ++i)
      found |= std::strcmp(available[i].layerName, kValidationLayer) == 0;
    if (!found)
      return Status::error(
          std::string("Vulkan validation was requested but the layer ") +
          kValidationLayer +
          " is not installed (Debian: vulkan-validationlayers)");
    layers.push_back(kValidationLayer);
  }

  // Instance extensions, including those the validation layer provides.
  std::vector<std::string> available;
  auto addExtensions = [&](const char *layer) -> Status {
    uint32_t count = 0;
    if (VkResult result = global->vkEnumerateInstanceExtensionProperties(
            layer, &count, nullptr);
        result != VK_SUCCESS)
      return vkError("vkEnumerateInstanceExtensionProperties", result);
    std::vector<VkExtensionProperties> props(count);
    VkResult result = global->vkEnumerateInstanceExtensionProperties(
        layer, &count, props.data());
    if (result != VK_SUCCESS && result != VK_INCOMPLETE)
      return vkError("vkEnumerateInstanceExtensionProperties", result);
    for (uint32_t i = 0; i < count && i < props.size(); ++i)
      available.push_back(props[i].extensionName);
    return Status::ok();
  };
  if (Status s = addExtensions(nullptr); !s.isOk())
    return s;
  if (validation)
    if (Status s = addExtensions(kValidationLayer); !s.isOk())
      return s;
  auto hasExtension = [&](const char *name) {
    return std::find(available.begin(), available.end(), name) !=
           available.end();
  };

  std::vector<const char *> extensions;
  VkInstanceCreateInfo info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  // Portability drivers (MoltenVK) are only listed when asked for.
  if (hasExtension("VK_KHR_portability_enumeration")) {
    extensions.push_back("VK_KHR_portability_enumeration");
    info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  VkDebugUtilsMessengerCreateInfoEXT messengerInfo = {
      VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messengerInfo.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messengerInfo.pfnUserCallback = onValidationMessage;
  messengerInfo.pUserData = &validationErrors;
  if (validation) {
    if (!hasExtension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME))
      return Status::error("Vulkan validation was requested but the loader "
                           "and layer lack " VK_EXT_DEBUG_UTILS_EXTENSION_NAME
                           ", which reports the layer's messages");
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    // Chained here, the messenger also sees vkCreateInstance and
    // vkDestroyInstance, which the messenger object cannot cover.
    info.pNext = &messengerInfo;
  }

  VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "fx-mlir";
  app.pEngineName = "fx-mlir";
  app.apiVersion = apiVersion;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = uint32_t(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkResult result = global->vkCreateInstance(&info, nullptr, &instance);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
    return Status::error(
        "no Vulkan driver found: vkCreateInstance failed: "
        "VK_ERROR_INCOMPATIBLE_DRIVER (install a driver, e.g. Debian's "
        "mesa-vulkan-drivers, or check VK_ICD_FILENAMES / VK_DRIVER_FILES)");
  if (result != VK_SUCCESS) {
    instance = VK_NULL_HANDLE;
    return vkError("vkCreateInstance", result);
  }
  Result<InstanceFunctions> fns = InstanceFunctions::load(*global, instance);
  if (!fns.isOk())
    return fns.status();
  instanceFns = fns.take();
  if (validation) {
    if (!instanceFns.vkCreateDebugUtilsMessengerEXT ||
        !instanceFns.vkDestroyDebugUtilsMessengerEXT)
      return Status::error("the Vulkan loader does not provide "
                           "vkCreateDebugUtilsMessengerEXT");
    if (VkResult result = instanceFns.vkCreateDebugUtilsMessengerEXT(
            instance, &messengerInfo, nullptr, &messenger);
        result != VK_SUCCESS) {
      messenger = VK_NULL_HANDLE;
      return vkError("vkCreateDebugUtilsMessengerEXT", result);
    }
  }
  return Status::ok();
}

Result<std::vector<VkPhysicalDevice>> Context::Impl::physicalDevices() {
  uint32_t count = 0;
  if (VkResult result =
          instanceFns.vkEnumeratePhysicalDevices(instance, &count, nullptr);
      result != VK_SUCCESS)
    return vkError("vkEnumeratePhysicalDevices", result);
  std::vector<VkPhysicalDevice> devices(count);
  VkResult result =
      instanceFns.vkEnumeratePhysicalDevices(instance, &count, devices.data());
  if (result != VK_SUCCESS && result != VK_INCOMPLETE)
    return vkError("vkEnumeratePhysicalDevices", result);
  devices.resize(std::min<size_t>(count, devices.size()));
  if (devices.empty())
    return Status::error(
        "no Vulkan device found: the Vulkan loader reports no physical "
        "device (install a driver, e.g. Debian's mesa-vulkan-drivers, or "
        "check VK_ICD_FILENAMES / VK_DRIVER_FILES)");
  return devices;
}

Status Context::Impl::createDevice() {
  // Enable every optional feature the device has: the kernels' needs are
  // only known per program, after the device exists.
  FeatureSet enabled;
  for (const char *name : kDeviceFeatures)
    *enabled.find(name) = *probe.features.find(name);
  uint32_t api = probe.properties.apiVersion;
  std::vector<const char *> extensions;
  void *chain = &enabled.storage16;
  if (probe.has8BitStorage) {
    enabled.storage8.pNext = chain;
    chain = &enabled.storage8;
    if (api < VK_API_VERSION_1_2)
      extensions.push_back("VK_KHR_8bit_storage");
  }
  if (probe.hasFloat16Int8) {
    enabled.float16Int8.pNext = chain;
    chain = &enabled.float16Int8;
    if (api < VK_API_VERSION_1_2)
      extensions.push_back("VK_KHR_shader_float16_int8");
  }
  // Cooperative matrices (tensor cores) need their extension; only
  // kernels compiled for them use it.
  if (probe.hasExtension("VK_KHR_cooperative_matrix") &&
      enabled.coopMatrix.cooperativeMatrix) {
    enabled.coopMatrix.cooperativeMatrixRobustBufferAccess = VK_FALSE;
    enabled.coopMatrix.pNext = chain;
    chain = &enabled.coopMatrix;
    extensions.push_back("VK_KHR_cooperative_matrix");
  }
  // bf16 in shaders (cooperative matrices of bf16): its extension and
  // features, when the device has them.
  if (probe.hasExtension("VK_KHR_shader_bfloat16") &&
      enabled.bfloat16.shaderBFloat16Type) {
    enabled.bfloat16.shaderBFloat16DotProduct = VK_FALSE;
    enabled.bfloat16.pNext = chain;
    chain = &enabled.bfloat16;
    extensions.push_back("VK_KHR_shader_bfloat16");
  }
  // A portability-subset device must have the extension enabled.
  if (probe.hasExtension("VK_KHR_portability_subset"))
    extensions.push_back("VK_KHR_portability_subset");
  VkPhysicalDeviceFeatures2 features = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = chain;
  features.features = enabled.core;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo = {
      VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = probe.computeFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo info = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &features;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (VkResult result =
          instanceFns.vkCreateDevice(probe.handle, &info, nullptr, &device);
      result != VK_SUCCESS) {
    device = VK_NULL_HANDLE;
    return vkError("vkCreateDevice", result);
  }
  Result<DeviceFunctions> fns = DeviceFunctions::load(instanceFns, device);
  if (!fns.isOk()) {
    // Without the table the device cannot be destroyed through it.
    PFN_vkDestroyDevice destroy = reinterpret_cast<PFN_vkDestroyDevice>(
        instanceFns.vkGetDeviceProcAddr(device, "vkDestroyDevice"));
    if (destroy)
      destroy(device, nullptr);
    device = VK_NULL_HANDLE;
    return fns.status();
  }
  fn = fns.take();
  fn.vkGetDeviceQueue(device, probe.computeFamily, 0, &queue);
  return Status::ok();
}

void Context::Impl::loadPipelineCache(const std::string &dir) {
  // Problems here only cost compile time, so they are never errors: an
  // unreadable, foreign or corrupt file is ignored, and a cache that cannot
  // be created leaves pipelines uncached.
  const VkPhysicalDeviceProperties &props = probe.properties;
  if (!dir.empty()) {
    char name[96];
    std::snprintf(name, sizeof(name),
                  "/vk-pipeline-cache-%04" PRIx32 "-%04" PRIx32 "-%" PRIu32
                  ".bin",
                  props.vendorID, props.deviceID, props.driverVersion);
    cachePath = dir + name;
    Result<InputFile> file = InputFile::open(cachePath);
    // 1 GiB: far more than any real cache; guards against odd files.
    if (file.isOk() && file.value().size() >= 32 &&
        file.value().size() < (1ull << 30)) {
      std::vector<uint8_t> data(file.value().size());
      if (file.value().readAt(0, data.data(), data.size()).isOk()) {
        // Drivers should reject a foreign cache themselves, but some have
        // crashed on one; VkPipelineCacheHeaderVersionOne names the device.
        uint32_t headerSize = readLE32(&data[0]);
        bool matches =
            headerSize >= 32 && headerSize <= data.size() &&
            readLE32(&data[4]) == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
            readLE32(&data[8]) == props.vendorID &&
            readLE32(&data[12]) == props.deviceID &&
            std::memcmp(&data[16], props.pipelineCacheUUID, VK_UUID_SIZE) == 0;
        if (matches)
          loadedCache = std::move(data);
      }
    }
  }
  VkPipelineCacheCreateInfo info = {
      VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  info.initialDataSize = loadedCache.size();
  info.pInitialData = loadedCache.empty() ? nullptr : loadedCache.data();
  if (fn.vkCreatePipelineCache(device, &info, nullptr, &pipelineCache) ==
      VK_SUCCESS)
    return;
  pipelineCache = VK_NULL_HANDLE;
  loadedCache.clear();
  info.initialDataSize = 0;
  info.pInitialData = nullptr;
  if (fn.vkCreatePipelineCache(device, &info, nullptr, &pipelineCache) !=
      VK_SUCCESS)
    pipelineCache = VK_NULL_HANDLE;
}

void Context::Impl::savePipelineCache() {
  if (cachePath.empty() || !pipelineCache || deviceLost)
    return;
  size_t size = 0;
  if (fn.vkGetPipelineCacheData(device, pipelineCache, &size, nullptr) !=
          VK_SUCCESS ||
      size == 0)
    return;
  std::vector<uint8_t> data(size);
  if (fn.vkGetPipelineCacheData(device, pipelineCache, &size, data.data()) !=
      VK_SUCCESS)
    return;
  data.resize(size);
  if (data == loadedCache)
    return;
  createDirectories(cachePath.substr(0, cachePath.rfind('/')));
  // Written aside and renamed into place, so concurrent processes never
  // read a half-written cache.
  std::string temporary =
      cachePath + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  Result<OutputFile> file = OutputFile::create(temporary);
  if (!file.isOk())
    return;
  if (!file.value().write(data.data(), data.size()).isOk() ||
      !file.value().close().isOk())
    return; // The OutputFile removes the partial file.
  if (std::rename(temporary.c_str(), cachePath.c_str()) != 0)
    std::remove(temporary.c_str());
}

Status Context::Impl::submit(VkCommandBuffer commands, VkFence fence) {
  if (deviceLost)
    return Status::error("Vulkan device lost");
  VkSubmitInfo info = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
  info.commandBufferCount = 1;
  info.pCommandBuffers = &commands;
  VkResult result;
  {
    std::lock_guard<std::mutex> lock(queueMutex);
    result = fn.vkQueueSubmit(queue, 1, &info, fence);
  }
  if (result == VK_ERROR_DEVICE_LOST) {
    deviceLost = true;
    return Status::error("Vulkan device lost (vkQueueSubmit)");
  }
  if (result != VK_SUCCESS)
    return vkError("vkQueueSubmit", result);
  return Status::ok();
}

Status Context::Impl::wait(VkFence fence) {
  uint64_t seconds = kDefaultTimeoutSeconds;
  if (std::optional<std::string> text = getEnv("FX_VULKAN_TIMEOUT"))
    if (std::optional<uint64_t> value = parseUnsigned(*text))
      seconds = *value;
  uint64_t timeout = seconds == 0 || seconds > UINT64_MAX / 1000000000ull
                         ? UINT64_MAX
                         : seconds * 1000000000ull;
  VkResult result = fn.vkWaitForFences(device, 1, &fence, VK_TRUE, timeout);
  if (result == VK_ERROR_DEVICE_LOST) {
    deviceLost = true;
    return Status::error("Vulkan device lost");
  }
  if (result == VK_TIMEOUT)
    return Status::error("the Vulkan device did not finish within " +
                         std::to_string(seconds) +
                         " s (set FX_VULKAN_TIMEOUT to wait longer; 0 waits "
                         "forever)");
  if (result != VK_SUCCESS)
    return vkError("vkWaitForFences", result);
  if (VkResult reset = fn.vkResetFences(device, 1, &fence); reset != VK_SUCCESS)
    return vkError("vkResetFences", reset);
  return Status::ok();
}

Context::Context(std::unique_ptr<Impl> state) : state(std::move(state)) {}
Context::~Context() = default;

const DeviceInfo &Context::device() const { return state->probe.info; }

uint64_t Context::validationErrors() const {
  return state->validationErrors.load();
}

Result<std::vector<DeviceInfo>> Context::listDevices() {
  Result<const GlobalFunctions *> global = loadVulkan();
  if (!global.isOk())
    return global.status();
  Impl impl;
  impl.global = global.value();
  if (Status s = impl.createInstance(/*validation=*/false); !s.isOk())
    return s;
  Result<std::vector<VkPhysicalDevice>> devices = impl.physicalDevices();
  if (!devices.isOk())
    return devices.status();
  std::vector<DeviceInfo> infos;
  for (size_t i = 0; i < devices.value().size(); ++i)
    infos.push_back(
        probeDevice(impl.instanceFns, devices.value()[i], uint32_t(i)).info);
  return infos;
}

Result<std::shared_ptr<Context>>
Context::create(const ContextOptions &options) {
  Result<const GlobalFunctions *> global = loadVulkan();
  if (!global.isOk())
    return global.status();
  auto impl = std::make_unique<Impl>();
  impl->global = global.value();
  bool validation = options.validation || envFlag("FX_VULKAN_VALIDATION");
  if (Status s = impl->createInstance(validation); !s.isOk())
    return s;
  Result<std::vector<VkPhysicalDevice>> devices = impl->physicalDevices();
  if (!devices.isOk())
    return devices.status();
  const std::vector<VkPhysicalDevice> &handles = devices.value();

  int64_t index = options.device;
  std::string source = "Vulkan device index ";
  if (index < 0) {
    if (std::optional<std::string> text = getEnv("FX_VULKAN_DEVICE");
        text && !text->empty()) {
      std::optional<uint64_t> value = parseUnsigned(*text);
      if (!value)
        return Status::error("FX_VULKAN_DEVICE='" + *text +
                             "' is not a Vulkan device index");
      index = int64_t(*value);
      source = "FX_VULKAN_DEVICE=";
    }
  }
  if (index < 0) {
    index = 0;
    for (size_t i = 0; i < handles.size(); ++i) {
      VkPhysicalDeviceProperties props;
      impl->instanceFns.vkGetPhysicalDeviceProperties(handles[i], &props);
      if (props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
        index = int64_t(i);
        break;
      }
    }
  }
  if (index >= int64_t(handles.size()))
    return Status::error(
        source + std::to_string(index) + " is out of range: there " +
        (handles.size() == 1
             ? "is 1 device (index 0)"
             : "are " + std::to_string(handles.size()) + " devices (0.." +
                   std::to_string(handles.size() - 1) + ")"));

  impl->probe =
      probeDevice(impl->instanceFns, handles[size_t(index)], uint32_t(index));
  const DeviceInfo &info = impl->probe.info;
  if (impl->probe.properties.apiVersion < kMinimumApiVersion)
    return Status::error("the Vulkan device '" + info.name +
                         "' supports only Vulkan " + info.apiVersion +
                         "; the runtime needs Vulkan 1.1 or later");
  if (impl->probe.computeFamily == UINT32_MAX)
    return Status::error("the Vulkan device '" + info.name +
                         "' has no compute queue");
  if (Status s = impl->createDevice(); !s.isOk())
    return s;
  impl->loadPipelineCache(pipelineCacheDirectory(options));
  return std::shared_ptr<Context>(new Context(std::move(impl)));
}

//===----------------------------------------------------------------------===//
// Executable
//===----------------------------------------------------------------------===//

namespace {
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
VkDeviceSize allocationSize(uint64_t bytes) {
  return std::max<uint64_t>(4, (bytes + 3) & ~uint64_t(3));
}

const VkAccessFlags kWriteAccess =
    VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
const VkAccessFlags kAnyAccess =
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
const VkPipelineStageFlags kStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;

} // namespace

struct Executable::Impl {
  /// Keeps the device alive while anything below exists.
  std::shared_ptr<Context> context;
  Context::Impl &ctx;
  const DeviceFunctions &fn;
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
  std::vector<DeviceBuffer> buffers;
  /// Transient buffers a timed-out submission may still use.
  std::vector<DeviceBuffer> retired;
  /// Staging buffers of inputs and outputs, indexed like `buffers` (empty
  /// entries for the rest); unused with unified memory.
  std::vector<DeviceBuffer> staging;
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
  /// Per buffer: the tensor last uploaded into a parameter input (held, so
  /// its storage cannot be freed and reused while compared by address).
  /// Parameters stay resident: a run uploads one only when given a
  /// different tensor.
  std::vector<std::optional<Tensor>> residentParameters;
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
  Result<VkBuffer> createVkBuffer(VkDeviceSize size, VkBufferUsageFlags usage,
                                  const std::string &what);
  Result<VkDeviceMemory> allocateMemory(VkDeviceSize size, uint32_t type,
                                        const std::string &what);
  /// A host-visible buffer with memory of its own, mapped.
  Result<DeviceBuffer> createMappedBuffer(VkDeviceSize size,
                                          VkBufferUsageFlags usage,
                                          const std::string &what);
  /// Destroys `buffer` and the memory it owns, if any.
  void destroyBuffer(DeviceBuffer &buffer);
  Status allocateBuffers();
  Status initializeBuffers();
  Status createDescriptorSets();
  Status record(VkCommandBuffer commandBuffer, VkQueryPool queries);
  /// Whether buffer `b` is an input that is a model parameter (resident).
  bool isParameter(size_t b) const {
    const Buffer &buffer = program.buffers[b];
    return buffer.kind == Buffer::Kind::Input &&
           program.signature.inputs[buffer.index].parameter;
  }
  /// Uploads the parameters whose tensor differs from the resident one.
  Status uploadParameters(const std::vector<Tensor> &inputs);
  Status submitOnce(const std::function<void(VkCommandBuffer)> &record);
};

Executable::Impl::~Impl() {
  if (pending && !ctx.deviceLost)
    fn.vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
  if (fence)
    fn.vkDestroyFence(device, fence, nullptr);
  if (queryPool)
    fn.vkDestroyQueryPool(device, queryPool, nullptr);
  // Frees the command buffers too.
  if (commandPool)
    fn.vkDestroyCommandPool(device, commandPool, nullptr);
  if (descriptorPool)
    fn.vkDestroyDescriptorPool(device, descriptorPool, nullptr);
  for (DeviceBuffer &buffer : retired)
    destroyBuffer(buffer);
  for (DeviceBuffer &buffer : staging)
    destroyBuffer(buffer);
  for (DeviceBuffer &buffer : buffers)
    destroyBuffer(buffer);
  // Freeing mapped memory unmaps it.
  for (VkDeviceMemory memory : memoryBlocks)
    if (memory)
      fn.vkFreeMemory(device, memory, nullptr);
  for (VkPipeline pipeline : pipelines)
    if (pipeline)
      fn.vkDestroyPipeline(device, pipeline, nullptr);
  for (VkPipelineLayout layout : pipelineLayouts)
    if (layout)
      fn.vkDestroyPipelineLayout(device, layout, nullptr);
  for (VkDescriptorSetLayout layout : setLayouts)
    if (layout)
      fn.vkDestroyDescriptorSetLayout(device, layout, nullptr);
  for (VkShaderModule module : modules)
    if (module)
      fn.vkDestroyShaderModule(device, module, nullptr);
}

/// The program against the device: features and limits.
Status Executable::Impl::checkDevice() const {
  const DeviceInfo &info = ctx.probe.info;
  const VkPhysicalDeviceLimits &limits = ctx.probe.properties.limits;
  FeatureSet supported = ctx.probe.features;
  for (const std::string &feature : program.requiredFeatures) {
    VkBool32 *flag = supported.find(feature);
    if (!flag)
      return Status::error("the compiled kernels need Vulkan feature '" +
                           feature + "', which the runtime does not know");
    if (!*flag)
      return Status::error("the Vulkan device '" + info.name +
                           "' lacks feature '" + feature +
                           "' that the compiled kernels need");
  }
  for (const Kernel &kernel : program.kernels) {
    const std::array<uint32_t, 3> &size = kernel.workgroupSize;
    uint64_t invocations = uint64_t(size[0]) * size[1] * size[2];
    if (invocations == 0 ||
        invocations > limits.maxComputeWorkGroupInvocations ||
        size[0] > limits.maxComputeWorkGroupSize[0] ||
        size[1] > limits.maxComputeWorkGroupSize[1] ||
        size[2] > limits.maxComputeWorkGroupSize[2])
      return Status::error(
          "kernel '" + kernel.name + "' has workgroups of " +
          std::to_string(size[0]) + "x" + std::to_string(size[1]) + "x" +
          std::to_string(size[2]) + "; the Vulkan device '" + info.name +
          "' allows at most " +
          std::to_string(limits.maxComputeWorkGroupInvocations) +
          " invocations and " +
          std::to_string(limits.maxComputeWorkGroupSize[0]) + "x" +
          std::to_string(limits.maxComputeWorkGroupSize[1]) + "x" +
          std::to_string(limits.maxComputeWorkGroupSize[2]));
    if (kernel.numBindings > limits.maxPerStageDescriptorStorageBuffers)
      return Status::error(
          "kernel '" + kernel.name + "' binds " +
          std::to_string(kernel.numBindings) +
          " storage buffers; the Vulkan device '" + info.name +
          "' allows at most " +
          std::to_string(limits.maxPerStageDescriptorStorageBuffers));
  }
  std::vector<bool> bound(program.buffers.size(), false);
  for (const Dispatch &dispatch : program.dispatches) {
    for (uint32_t b : dispatch.buffers)
      bound[b] = true;
    for (int i = 0; i < 3; ++i)
      if (dispatch.workgroups[i] > limits.maxComputeWorkGroupCount[i])
        return Status::error(
            "kernel '" + program.kernels[dispatch.kernel].name +
            "' is dispatched with " + std::to_string(dispatch.workgroups[0]) +
            "x" + std::to_string(dispatch.workgroups[1]) + "x" +
            std::to_string(dispatch.workgroups[2]) +
            " workgroups; the Vulkan device '" + info.name +
            "' allows at most " +
            std::to_string(limits.maxComputeWorkGroupCount[0]) + "x" +
            std::to_string(limits.maxComputeWorkGroupCount[1]) + "x" +
            std::to_string(limits.maxComputeWorkGroupCount[2]));
  }
  // Only bindings are limited by maxStorageBufferRange; any buffer by the
  // largest single allocation.
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    VkDeviceSize size = allocationSize(program.buffers[b].bytes);
    if (bound[b] && size > limits.maxStorageBufferRange)
      return Status::error(
          describeBuffer(program, b) + " is " + std::to_string(size) +
          " bytes; the Vulkan device '" + info.name + "' binds at most " +
          std::to_string(limits.maxStorageBufferRange) +
          " bytes (maxStorageBufferRange)");
    if (size > ctx.probe.maxMemoryAllocationSize)
      return Status::error(
          describeBuffer(program, b) + " is " + std::to_string(size) +
          " bytes; the Vulkan device '" + info.name + "' allocates at most " +
          std::to_string(ctx.probe.maxMemoryAllocationSize) +
          " bytes at once (maxMemoryAllocationSize)");
  }
  return Status::ok();
}

Status Executable::Impl::createPipelines() {
  size_t count = program.kernels.size();
  modules.assign(count, VK_NULL_HANDLE);
  setLayouts.assign(count, VK_NULL_HANDLE);
  pipelineLayouts.assign(count, VK_NULL_HANDLE);
  pipelines.assign(count, VK_NULL_HANDLE);
  for (size_t k = 0; k < count; ++k) {
    const Kernel &kernel = program.kernels[k];
    auto failed = [&](const char *function, VkResult result) {
      return Status::error(std::string(function) + " for kernel '" +
                           kernel.name + "' failed: " + resultName(result));
    };
    VkShaderModuleCreateInfo moduleInfo = {
        VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    moduleInfo.codeSize = kernel.spirv.size() * sizeof(uint32_t);
    moduleInfo.pCode = kernel.spirv.data();
    if (VkResult r =
            fn.vkCreateShaderModule(device, &moduleInfo, nullptr, &modules[k]);
        r != VK_SUCCESS) {
      modules[k] = VK_NULL_HANDLE;
      return failed("vkCreateShaderModule", r);
    }

    std::vector<VkDescriptorSetLayoutBinding> bindings(kernel.numBindings);
    for (uint32_t i = 0; i < kernel.numBindings; ++i) {
      bindings[i] = {};
      bindings[i].binding = i;
      bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo setInfo = {
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.bindingCount = kernel.numBindings;
    setInfo.pBindings = bindings.data();
    if (VkResult r = fn.vkCreateDescriptorSetLayout(device, &setInfo, nullptr,
                                                    &setLayouts[k]);
        r != VK_SUCCESS) {
      setLayouts[k] = VK_NULL_HANDLE;
      return failed("vkCreateDescriptorSetLayout", r);
    }

    VkPipelineLayoutCreateInfo layoutInfo = {
        VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &setLayouts[k];
    if (VkResult r = fn.vkCreatePipelineLayout(device, &layoutInfo, nullptr,
                                               &pipelineLayouts[k]);
        r != VK_SUCCESS) {
      pipelineLayouts[k] = VK_NULL_HANDLE;
      return failed("vkCreatePipelineLayout", r);
    }

    // One pipeline per call, so a failure names its kernel.
    VkComputePipelineCreateInfo pipelineInfo = {
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipelineInfo.stage.sType =
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipelineInfo.stage.module = modules[k];
    pipelineInfo.stage.pName = kernel.entryPoint.c_str();
    pipelineInfo.layout = pipelineLayouts[k];
    pipelineInfo.basePipelineIndex = -1;
    if (VkResult r =
            fn.vkCreateComputePipelines(device, ctx.pipelineCache, 1,
                                        &pipelineInfo, nullptr, &pipelines[k]);
        r != VK_SUCCESS) {
      pipelines[k] = VK_NULL_HANDLE;
      return failed("vkCreateComputePipelines", r);
    }
    // The pipeline holds the compiled code; the module is not needed again.
    fn.vkDestroyShaderModule(device, modules[k], nullptr);
    modules[k] = VK_NULL_HANDLE;
  }
  return Status::ok();
}

Result<VkBuffer> Executable::Impl::createVkBuffer(VkDeviceSize size,
                                                  VkBufferUsageFlags usage,
                                                  const std::string &what) {
  VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  if (VkResult r = fn.vkCreateBuffer(device, &info, nullptr, &buffer);
      r != VK_SUCCESS)
    return Status::error("vkCreateBuffer for " + what +
                         " failed: " + resultName(r));
  return buffer;
}

Result<VkDeviceMemory>
Executable::Impl::allocateMemory(VkDeviceSize size, uint32_t type,
                                 const std::string &what) {
  VkMemoryAllocateInfo info = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.allocationSize = size;
  info.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkResult r = fn.vkAllocateMemory(device, &info, nullptr, &memory);
  if (r == VK_SUCCESS)
    return memory;
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
    return Status::error("out of device memory allocating " +
                         std::to_string(size) + " bytes for " + what);
  if (r == VK_ERROR_OUT_OF_HOST_MEMORY)
    return Status::error("out of host memory allocating " +
                         std::to_string(size) + " bytes for " + what);
  return Status::error("vkAllocateMemory of " + std::to_string(size) +
                       " bytes for " + what + " failed: " + resultName(r));
}

Result<DeviceBuffer> Executable::Impl::createMappedBuffer(
    VkDeviceSize size, VkBufferUsageFlags usage, const std::string &what) {
  DeviceBuffer result;
  result.size = size;
  Result<VkBuffer> buffer = createVkBuffer(size, usage, what);
  if (!buffer.isOk())
    return buffer.status();
  result.buffer = buffer.value();
  VkMemoryRequirements requirements;
  fn.vkGetBufferMemoryRequirements(device, result.buffer, &requirements);
  std::optional<uint32_t> type =
      findMemoryType(ctx.probe.memory, requirements.memoryTypeBits,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     0, UINT32_MAX);
  if (!type) {
    destroyBuffer(result);
    return Status::error("the Vulkan device has no host-visible memory for " +
                         what);
  }
  Result<VkDeviceMemory> memory =
      allocateMemory(requirements.size, *type, what);
  if (!memory.isOk()) {
    destroyBuffer(result);
    return memory.status();
  }
  result.memory = memory.value();
  if (VkResult r =
          fn.vkBindBufferMemory(device, result.buffer, result.memory, 0);
      r != VK_SUCCESS) {
    destroyBuffer(result);
    return Status::error("vkBindBufferMemory for " + what +
                         " failed: " + resultName(r));
  }
  if (VkResult r = fn.vkMapMemory(device, result.memory, 0, VK_WHOLE_SIZE, 0,
                                  &result.mapped);
      r != VK_SUCCESS) {
    result.mapped = nullptr;
    destroyBuffer(result);
    return Status::error("vkMapMemory for " + what +
                         " failed: " + resultName(r));
  }
  return result;
}

void Executable::Impl::destroyBuffer(DeviceBuffer &buffer) {
  if (buffer.buffer)
    fn.vkDestroyBuffer(device, buffer.buffer, nullptr);
  // Freeing mapped memory unmaps it.
  if (buffer.memory)
    fn.vkFreeMemory(device, buffer.memory, nullptr);
  buffer = DeviceBuffer();
}

Status Executable::Impl::allocateBuffers() {
  useStaging =
      !ctx.probe.info.unifiedMemory || envFlag("FX_VULKAN_FORCE_STAGING");
  const VkMemoryPropertyFlags hostFlags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkBufferUsageFlags storageUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const VkBufferUsageFlags stagingUsage =
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  buffers.resize(program.buffers.size());
  staging.resize(program.buffers.size());

  // Every buffer and staging buffer, with where its memory comes from.
  struct Placement {
    DeviceBuffer *target;
    std::string name;
    bool hostAccess;
    uint32_t type = 0;
    VkDeviceSize offset = 0;
    size_t block = 0;
    /// The program's arena offset, for temporaries planned into it.
    std::optional<uint64_t> arenaOffset;
  };
  std::vector<Placement> placements;
  std::vector<VkMemoryRequirements> requirements;
  auto add = [&](DeviceBuffer &target, VkDeviceSize size,
                 VkBufferUsageFlags usage, VkMemoryPropertyFlags required,
                 VkMemoryPropertyFlags preferred, bool hostAccess,
                 std::string name) -> Status {
    Result<VkBuffer> buffer = createVkBuffer(size, usage, name);
    if (!buffer.isOk())
      return buffer.status();
    target.buffer = buffer.value();
    target.size = size;
    VkMemoryRequirements req;
    fn.vkGetBufferMemoryRequirements(device, target.buffer, &req);
    std::optional<uint32_t> type =
        findMemoryType(ctx.probe.memory, req.memoryTypeBits, required,
                       preferred, ctx.probe.deviceLocalHeap);
    if (!type)
      return Status::error(
          "the Vulkan device has no suitable memory type for " + name);
    Placement placement{&target, std::move(name), hostAccess};
    placement.type = *type;
    placements.push_back(std::move(placement));
    requirements.push_back(req);
    return Status::ok();
  };
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer &buffer = program.buffers[b];
    VkDeviceSize size = allocationSize(buffer.bytes);
    // Temporaries never meet the host; with unified memory the host reads
    // and writes the others in place.
    bool hostAccess = !useStaging && buffer.kind != Buffer::Kind::Temporary;
    VkMemoryPropertyFlags required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    if (hostAccess)
      required |= hostFlags;
    if (Status s = add(buffers[b], size, storageUsage, required, 0, hostAccess,
                       describeBuffer(program, b));
        !s.isOk())
      return s;
    placements.back().arenaOffset = buffer.arenaOffset;
    if (!useStaging || (buffer.kind != Buffer::Kind::Input &&
                        buffer.kind != Buffer::Kind::Output))
      continue;
    // Host-cached memory makes reading outputs back fast; write-combined
    // memory is as good for inputs.
    VkMemoryPropertyFlags preferred = buffer.kind == Buffer::Kind::Output
                                          ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT
                                          : 0;
    if (Status s = add(staging[b], size, stagingUsage, hostFlags, preferred,
                       /*hostAccess=*/true,
                       "the staging buffer of " + describeBuffer(program, b));
        !s.isOk())
      return s;
  }

  // Buffers share memory blocks of up to kMemoryBlockBytes per memory type,
  // in program order: thousands of tiny allocations would be slow and can
  // exceed maxMemoryAllocationCount (4096 on some drivers).
  const VkDeviceSize blockLimit = std::min<VkDeviceSize>(
      kMemoryBlockBytes, ctx.probe.maxMemoryAllocationSize);
  const VkDeviceSize storageAlignment =
      ctx.probe.properties.limits.minStorageBufferOffsetAlignment;
  struct Block {
    uint32_t type;
    VkDeviceSize size = 0;
    std::vector<size_t> members;
  };
  std::vector<Block> blocks;

  // Temporaries planned into the arena share one block at their planned
  // offsets, unless this device cannot honour the plan (a larger alignment,
  // different memory types, an arena over the allocation limit): then they
  // are placed like the other buffers, which is always correct.
  Block arena{0};
  bool useArena = program.arenaBytes > 0;
  for (size_t i = 0; i < placements.size() && useArena; ++i) {
    const Placement &placement = placements[i];
    if (!placement.arenaOffset)
      continue;
    if (arena.members.empty())
      arena.type = placement.type;
    useArena = placement.type == arena.type &&
               *placement.arenaOffset %
                       std::max<VkDeviceSize>(
                           {requirements[i].alignment, storageAlignment, 1}) ==
                   0;
    arena.size = std::max(arena.size, VkDeviceSize(*placement.arenaOffset +
                                                   requirements[i].size));
    arena.members.push_back(i);
  }
  useArena = useArena && !arena.members.empty() &&
             arena.size <= ctx.probe.maxMemoryAllocationSize;
  if (useArena) {
    for (size_t i : arena.members) {
      placements[i].block = 0;
      placements[i].offset = *placements[i].arenaOffset;
    }
    blocks.push_back(arena);
  }

  std::vector<size_t> openBlock(VK_MAX_MEMORY_TYPES, SIZE_MAX);
  for (size_t i = 0; i < placements.size(); ++i) {
    Placement &placement = placements[i];
    if (useArena && placement.arenaOffset)
      continue;
    const VkMemoryRequirements &req = requirements[i];
    VkDeviceSize alignment = std::max<VkDeviceSize>(
        {req.alignment, storageAlignment, VkDeviceSize(1)});
    size_t &open = openBlock[placement.type];
    VkDeviceSize offset = 0;
    if (open != SIZE_MAX) {
      offset = (blocks[open].size + alignment - 1) / alignment * alignment;
      if (offset + req.size > blockLimit)
        open = SIZE_MAX;
    }
    if (open == SIZE_MAX) {
      open = blocks.size();
      blocks.push_back(Block{placement.type});
      offset = 0;
    }
    placement.block = open;
    placement.offset = offset;
    blocks[open].size = offset + req.size;
    blocks[open].members.push_back(i);
  }

  memoryBlocks.assign(blocks.size(), VK_NULL_HANDLE);
  for (size_t k = 0; k < blocks.size(); ++k) {
    const Block &block = blocks[k];
    std::string what = placements[block.members[0]].name;
    if (useArena && k == 0)
      what = "the arena of " + std::to_string(block.members.size()) +
             " temporaries";
    else if (block.members.size() > 1)
      what += " and " + std::to_string(block.members.size() - 1) +
              " more buffers sharing its memory block";
    Result<VkDeviceMemory> memory =
        allocateMemory(block.size, block.type, what);
    if (!memory.isOk())
      return memory.status();
    memoryBlocks[k] = memory.value();
    memoryUse.totalBytes += block.size;
    if (useArena && k == 0)
      memoryUse.arenaBytes = block.size;
    void *mapped = nullptr;
    bool needsMapping = false;
    for (size_t i : block.members)
      needsMapping |= placements[i].hostAccess;
    if (needsMapping)
      if (VkResult r = fn.vkMapMemory(device, memoryBlocks[k], 0, VK_WHOLE_SIZE,
                                      0, &mapped);
          r != VK_SUCCESS)
        return Status::error("vkMapMemory for " + what +
                             " failed: " + resultName(r));
    for (size_t i : block.members) {
      Placement &placement = placements[i];
      if (VkResult r = fn.vkBindBufferMemory(device, placement.target->buffer,
                                             memoryBlocks[k], placement.offset);
          r != VK_SUCCESS)
        return Status::error("vkBindBufferMemory for " + placement.name +
                             " failed: " + resultName(r));
      if (placement.hostAccess)
        placement.target->mapped =
            static_cast<uint8_t *>(mapped) + placement.offset;
    }
  }
  return Status::ok();
}

/// Zero-fills every buffer (reruns and padding bytes then see zeros, not
/// stale memory) and uploads the constants.
Status Executable::Impl::initializeBuffers() {
  std::vector<size_t> deviceFills, stagedConstants;
  uint64_t largestConstant = 0, totalConstants = 0;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer &buffer = program.buffers[b];
    DeviceBuffer &device = buffers[b];
    if (staging[b].mapped)
      std::memset(staging[b].mapped, 0, staging[b].size);
    if (device.mapped) {
      std::memset(device.mapped, 0, device.size);
      if (buffer.kind == Buffer::Kind::Constant && !buffer.data.empty())
        std::memcpy(device.mapped, buffer.data.data(), buffer.data.size());
    } else if (buffer.kind == Buffer::Kind::Constant) {
      stagedConstants.push_back(b);
      largestConstant = std::max<uint64_t>(largestConstant, device.size);
      totalConstants += device.size;
    } else {
      deviceFills.push_back(b);
    }
  }
  if (deviceFills.empty() && stagedConstants.empty())
    return Status::ok();

  DeviceBuffer transfer;
  if (!stagedConstants.empty()) {
    uint64_t capacity = std::max(
        largestConstant, std::min(totalConstants, kConstantStagingBytes));
    Result<DeviceBuffer> created =
        createMappedBuffer(capacity, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           "the staging buffer of the constants");
    if (!created.isOk())
      return created.status();
    transfer = created.take();
  }
  // Batches of constants that fit the staging buffer, the first batch also
  // clearing the device-only buffers.
  size_t next = 0;
  Status status = Status::ok();
  for (bool first = true;
       status.isOk() && (first || next < stagedConstants.size());
       first = false) {
    std::vector<std::pair<size_t, VkBufferCopy>> copies;
    VkDeviceSize offset = 0;
    while (next < stagedConstants.size()) {
      size_t b = stagedConstants[next];
      const Buffer &buffer = program.buffers[b];
      VkDeviceSize size = buffers[b].size;
      if (offset + size > transfer.size)
        break;
      auto *target = static_cast<uint8_t *>(transfer.mapped) + offset;
      std::memset(target, 0, size);
      if (!buffer.data.empty())
        std::memcpy(target, buffer.data.data(), buffer.data.size());
      copies.push_back({b, VkBufferCopy{offset, 0, size}});
      offset += size;
      ++next;
    }
    status = submitOnce([&](VkCommandBuffer cb) {
      if (first)
        for (size_t b : deviceFills)
          fn.vkCmdFillBuffer(cb, buffers[b].buffer, 0, VK_WHOLE_SIZE, 0);
      for (auto &[b, region] : copies)
        fn.vkCmdCopyBuffer(cb, transfer.buffer, buffers[b].buffer, 1, &region);
      // Barriers order later submissions too: the first run's kernels see
      // these writes.
      VkMemoryBarrier barrier = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      barrier.dstAccessMask = kAnyAccess;
      fn.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, kStages, 0, 1,
                              &barrier, 0, nullptr, 0, nullptr);
    });
  }
  // After a timeout the device may still read it: destroyed after the wait
  // in ~Impl then.
  if (pending)
    retired.push_back(transfer);
  else
    destroyBuffer(transfer);
  return status;
}

Status Executable::Impl::createDescriptorSets() {
  uint32_t sets = 0, descriptors = 0;
  for (const Dispatch &dispatch : program.dispatches)
    if (!dispatch.buffers.empty()) {
      ++sets;
      descriptors += uint32_t(dispatch.buffers.size());
    }
  descriptorSets.assign(program.dispatches.size(), VK_NULL_HANDLE);
  if (sets == 0)
    return Status::ok();
  VkDescriptorPoolSize poolSize = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                   descriptors};
  VkDescriptorPoolCreateInfo poolInfo = {
      VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = sets;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  if (VkResult r = fn.vkCreateDescriptorPool(device, &poolInfo, nullptr,
                                             &descriptorPool);
      r != VK_SUCCESS) {
    descriptorPool = VK_NULL_HANDLE;
    return vkError("vkCreateDescriptorPool", r);
  }
  std::vector<VkDescriptorSetLayout> layouts;
  for (const Dispatch &dispatch : program.dispatches)
    if (!dispatch.buffers.empty())
      layouts.push_back(setLayouts[dispatch.kernel]);
  std::vector<VkDescriptorSet> allocated(sets);
  VkDescriptorSetAllocateInfo allocInfo = {
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  allocInfo.descriptorPool = descriptorPool;
  allocInfo.descriptorSetCount = sets;
  allocInfo.pSetLayouts = layouts.data();
  if (VkResult r =
          fn.vkAllocateDescriptorSets(device, &allocInfo, allocated.data());
      r != VK_SUCCESS)
    return vkError("vkAllocateDescriptorSets", r);

  // Sized up front: the writes point into these vectors.
  std::vector<VkDescriptorBufferInfo> infos;
  infos.reserve(descriptors);
  std::vector<VkWriteDescriptorSet> writes;
  writes.reserve(descriptors);
  size_t nextSet = 0;
  for (size_t d = 0; d < program.dispatches.size(); ++d) {
    const Dispatch &dispatch = program.dispatches[d];
    if (dispatch.buffers.empty())
      continue;
    descriptorSets[d] = allocated[nextSet++];
    for (uint32_t i = 0; i < dispatch.buffers.size(); ++i) {
      infos.push_back({buffers[dispatch.buffers[i]].buffer, 0, VK_WHOLE_SIZE});
      VkWriteDescriptorSet write = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      write.dstSet = descriptorSets[d];
      write.dstBinding = i;
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      write.pBufferInfo = &infos.back();
      writes.push_back(write);
    }
  }
  fn.vkUpdateDescriptorSets(device, uint32_t(writes.size()), writes.data(), 0,
                            nullptr);
  return Status::ok();
}

/// Records the whole schedule into `commandBuffer`, with timestamps into
/// `queries` (steps + 1 of them) unless it is null.
Status Executable::Impl::record(VkCommandBuffer commandBuffer,
                                VkQueryPool queries) {
  VkCommandBuffer cb = commandBuffer;
  VkCommandBufferBeginInfo begin = {
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  if (VkResult r = fn.vkBeginCommandBuffer(cb, &begin); r != VK_SUCCESS)
    return vkError("vkBeginCommandBuffer", r);
  auto barrier = [&](VkPipelineStageFlags srcStages, VkAccessFlags srcAccess,
                     VkPipelineStageFlags dstStages, VkAccessFlags dstAccess) {
    VkMemoryBarrier memory = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    memory.srcAccessMask = srcAccess;
    memory.dstAccessMask = dstAccess;
    fn.vkCmdPipelineBarrier(cb, srcStages, dstStages, 0, 1, &memory, 0, nullptr,
                            0, nullptr);
  };
  auto stepBarrier = [&] {
    barrier(kStages, kWriteAccess, kStages, kAnyAccess);
  };
  uint32_t numSteps = uint32_t(program.steps.size());
  if (queries)
    fn.vkCmdResetQueryPool(cb, queries, 0, numSteps + 1);

  // Also orders this run after the previous one, whose kernels may still
  // read what the uploads and first steps overwrite.
  stepBarrier();
  if (useStaging) {
    bool uploaded = false;
    for (size_t b = 0; b < program.buffers.size(); ++b)
      if (program.buffers[b].kind == Buffer::Kind::Input && !isParameter(b)) {
        VkBufferCopy region = {0, 0, buffers[b].size};
        fn.vkCmdCopyBuffer(cb, staging[b].buffer, buffers[b].buffer, 1,
                           &region);
        uploaded = true;
      }
    if (uploaded)
      stepBarrier();
  }
  if (queries)
    fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries,
                           0);

  VkPipeline boundPipeline = VK_NULL_HANDLE;
  for (uint32_t s = 0; s < numSteps; ++s) {
    const Step &step = program.steps[s];
    if (s > 0)
      stepBarrier();
    if (step.kind == Step::Kind::Dispatch) {
      const Dispatch &dispatch = program.dispatches[step.index];
      if (pipelines[dispatch.kernel] != boundPipeline) {
        boundPipeline = pipelines[dispatch.kernel];
        fn.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, boundPipeline);
      }
      if (descriptorSets[step.index])
        fn.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE,
                                   pipelineLayouts[dispatch.kernel], 0, 1,
                                   &descriptorSets[step.index], 0, nullptr);
      fn.vkCmdDispatch(cb, dispatch.workgroups[0], dispatch.workgroups[1],
                       dispatch.workgroups[2]);
    } else {
      const Copy &copy = program.copies[step.index];
      // Vulkan has no empty copies; the step stays in the profile.
      if (copy.bytes) {
        VkBufferCopy region = {copy.sourceOffset, copy.targetOffset,
                               copy.bytes};
        fn.vkCmdCopyBuffer(cb, buffers[copy.source].buffer,
                           buffers[copy.target].buffer, 1, &region);
      }
    }
    if (queries)
      fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries,
                             s + 1);
  }

  if (useStaging) {
    barrier(kStages, kWriteAccess, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
    for (size_t b = 0; b < program.buffers.size(); ++b)
      if (program.buffers[b].kind == Buffer::Kind::Output) {
        VkBufferCopy region = {0, 0, buffers[b].size};
        fn.vkCmdCopyBuffer(cb, buffers[b].buffer, staging[b].buffer, 1,
                           &region);
      }
    barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  } else {
    // The fence wait alone does not make device writes visible to the host.
    barrier(kStages, kWriteAccess, VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_HOST_READ_BIT);
  }
  if (VkResult r = fn.vkEndCommandBuffer(cb); r != VK_SUCCESS)
    return vkError("vkEndCommandBuffer", r);
  return Status::ok();
}

Status Executable::Impl::uploadParameters(const std::vector<Tensor> &inputs) {
  residentParameters.resize(program.buffers.size());
  std::vector<size_t> changed;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    if (!isParameter(b))
      continue;
    const Tensor &input = inputs[program.buffers[b].index];
    std::optional<Tensor> &resident = residentParameters[b];
    if (resident && resident->data() == input.data() &&
        resident->byteSize() == input.byteSize())
      continue;
    void *target = useStaging ? staging[b].mapped : buffers[b].mapped;
    std::memcpy(target, input.data(),
                std::min<uint64_t>(input.byteSize(), program.buffers[b].bytes));
    resident = input;
    changed.push_back(b);
  }
  if (!useStaging || changed.empty())
    return Status::ok();
  // Earlier runs may still read the old values: the copies wait for them
  // (submitOnce waits for its own completion, and runs are serialized).
  return submitOnce([&](VkCommandBuffer cb) {
    VkMemoryBarrier before = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask =
        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    fn.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                            VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                            nullptr, 0, nullptr);
    for (size_t b : changed) {
      VkBufferCopy region = {0, 0, buffers[b].size};
      fn.vkCmdCopyBuffer(cb, staging[b].buffer, buffers[b].buffer, 1, &region);
    }
    VkMemoryBarrier after = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    after.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    fn.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &after, 0,
                            nullptr, 0, nullptr);
  });
}

Status Executable::Impl::submitOnce(
    const std::function<void(VkCommandBuffer)> &recordCommands) {
  VkCommandBufferAllocateInfo allocInfo = {
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocInfo.commandPool = commandPool;
  allocInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocInfo.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  if (VkResult r = fn.vkAllocateCommandBuffers(device, &allocInfo, &cb);
      r != VK_SUCCESS)
    return vkError("vkAllocateCommandBuffers", r);
  VkCommandBufferBeginInfo begin = {
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  Status status = Status::ok();
  if (VkResult r = fn.vkBeginCommandBuffer(cb, &begin); r != VK_SUCCESS)
    status = vkError("vkBeginCommandBuffer", r);
  if (status.isOk()) {
    recordCommands(cb);
    if (VkResult r = fn.vkEndCommandBuffer(cb); r != VK_SUCCESS)
      status = vkError("vkEndCommandBuffer", r);
  }
  if (status.isOk())
    status = ctx.submit(cb, fence);
  if (status.isOk()) {
    status = ctx.wait(fence);
    pending = !status.isOk();
  }
  // A command buffer the device may still execute must not be freed; the
  // pool's destruction frees it after the final wait.
  if (!pending)
    fn.vkFreeCommandBuffers(device, commandPool, 1, &cb);
  return status;
}

Result<Executable *>
Executable::Impl::instanceFor(const std::vector<Tensor> &inputs) {
  const FunctionSignature &sig = program.signature;
  if (inputs.size() != sig.inputs.size())
    return Status::error("expected " + std::to_string(sig.inputs.size()) +
                         " inputs, got " + std::to_string(inputs.size()));
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    // As the specialized executable's checkArguments will, with the
    // dynamic dimensions admitting any size.
    if (Status s = CPUFunction::check(sig.inputs[i], inputs[i],
                                      "input " + std::to_string(i) + " (" +
                                          sig.inputs[i].name + ")");
        !s.isOk())
      return s;
    shapes.push_back(inputs[i].shape());
  }
  for (size_t i = 0; i < instances.size(); ++i)
    if (instances[i].first == shapes) {
      std::rotate(instances.begin() + i, instances.begin() + i + 1,
                  instances.end());
      return instances.back().second.get();
    }
  Result<Program> specialized = specializeProgram(program, shapes);
  if (!specialized.isOk())
    return specialized.status();
  Result<std::unique_ptr<Executable>> loaded =
      Executable::load(context, specialized.take());
  if (!loaded.isOk())
    return loaded.status();
  std::unique_ptr<Executable> instance = loaded.take();
  if (profiling)
    if (Status s = instance->enableProfiling(); !s.isOk())
      return s;
  if (instances.size() == kMaxInstances)
    instances.erase(instances.begin());
  instances.emplace_back(std::move(shapes), std::move(instance));
  return instances.back().second.get();
}

Executable::Executable(std::unique_ptr<Impl> state) : state(std::move(state)) {}
Executable::~Executable() = default;

Result<std::unique_ptr<Executable>>
Executable::load(std::shared_ptr<Context> context, Program program) {
  if (!context)
    return Status::error("Executable::load needs a Vulkan context");
  if (context->impl().deviceLost)
    return Status::error("Vulkan device lost");
  auto impl = std::make_unique<Impl>(std::move(context));
  impl->program = std::move(program);
  if (Status s = validateProgram(impl->program); !s.isOk())
    return s;
  if (Status s = impl->checkDevice(); !s.isOk())
    return s;
  if (impl->program.isDynamic()) {
    // Buffers, pipelines and commands come per input shape (instanceFor).
    impl->dynamic = true;
    return std::unique_ptr<Executable>(new Executable(std::move(impl)));
  }
  if (Status s = impl->createPipelines(); !s.isOk())
    return s;
  // The fence and command pool come first: initializeBuffers submits.
  const DeviceFunctions &fn = impl->fn;
  VkFenceCreateInfo fenceInfo = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (VkResult r =
          fn.vkCreateFence(impl->device, &fenceInfo, nullptr, &impl->fence);
      r != VK_SUCCESS) {
    impl->fence = VK_NULL_HANDLE;
    return vkError("vkCreateFence", r);
  }
  VkCommandPoolCreateInfo poolInfo = {
      VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.queueFamilyIndex = impl->ctx.probe.computeFamily;
  if (VkResult r = fn.vkCreateCommandPool(impl->device, &poolInfo, nullptr,
                                          &impl->commandPool);
      r != VK_SUCCESS) {
    impl->commandPool = VK_NULL_HANDLE;
    return vkError("vkCreateCommandPool", r);
  }
  if (Status s = impl->allocateBuffers(); !s.isOk())
    return s;
  if (Status s = impl->initializeBuffers(); !s.isOk())
    return s;
  if (Status s = impl->createDescriptorSets(); !s.isOk())
    return s;
  VkCommandBufferAllocateInfo allocInfo = {
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocInfo.commandPool = impl->commandPool;
  allocInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocInfo.commandBufferCount = 1;
  if (VkResult r = fn.vkAllocateCommandBuffers(impl->device, &allocInfo,
                                               &impl->commands);
      r != VK_SUCCESS) {
    impl->commands = VK_NULL_HANDLE;
    return vkError("vkAllocateCommandBuffers", r);
  }
  if (Status s = impl->record(impl->commands, VK_NULL_HANDLE); !s.isOk())
    return s;
  return std::unique_ptr<Executable>(new Executable(std::move(impl)));
}

const FunctionSignature &Executable::signature() const {
  return state->program.signature;
}

Result<std::vector<Tensor>> Executable::run(const std::vector<Tensor> &inputs) {
  if (state->dynamic) {
    std::lock_guard<std::mutex> lock(state->runMutex);
    Result<Executable *> instance = state->instanceFor(inputs);
    if (!instance.isOk())
      return instance.status();
    return instance.value()->run(inputs);
  }
  return state->program.signature.runWithNewOutputs(
      [&](std::vector<Tensor> &outputs) { return runInto(inputs, outputs); });
}

Status Executable::runInto(const std::vector<Tensor> &inputs,
                           std::vector<Tensor> &outputs) {
  Impl &impl = *state;
  if (impl.dynamic) {
    std::lock_guard<std::mutex> lock(impl.runMutex);
    Result<Executable *> instance = impl.instanceFor(inputs);
    if (!instance.isOk())
      return instance.status();
    return instance.value()->runInto(inputs, outputs);
  }
  const Program &program = impl.program;
  if (Status s = program.signature.checkArguments(inputs, outputs); !s.isOk())
    return s;

  std::lock_guard<std::mutex> lock(impl.runMutex);
  if (impl.ctx.deviceLost)
    return Status::error("Vulkan device lost");
  if (impl.pending)
    return Status::error("an earlier run of this executable did not finish; "
                         "it cannot run again");
  if (Status s = impl.uploadParameters(inputs); !s.isOk())
    return s;
  // Tensors and buffers share their byte layout (the kernels store i1 as a
  // byte, like DType::Bool), so copies are plain memcpy.
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer &buffer = program.buffers[b];
    if (buffer.kind != Buffer::Kind::Input || impl.isParameter(b))
      continue;
    void *target =
        impl.useStaging ? impl.staging[b].mapped : impl.buffers[b].mapped;
    const Tensor &input = inputs[buffer.index];
    std::memcpy(target, input.data(),
                std::min<uint64_t>(input.byteSize(), buffer.bytes));
  }
  VkCommandBuffer commands =
      impl.profiledCommands ? impl.profiledCommands : impl.commands;
  if (Status s = impl.ctx.submit(commands, impl.fence); !s.isOk())
    return s;
  if (Status s = impl.ctx.wait(impl.fence); !s.isOk()) {
    impl.pending = !impl.ctx.deviceLost;
    return s;
  }

  if (impl.profiledCommands) {
    uint32_t count = uint32_t(program.steps.size()) + 1;
    std::vector<uint64_t> ticks(count);
    VkResult r = impl.fn.vkGetQueryPoolResults(
        impl.device, impl.queryPool, 0, count, count * sizeof(uint64_t),
        ticks.data(), sizeof(uint64_t),
        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r == VK_ERROR_DEVICE_LOST) {
      impl.ctx.deviceLost = true;
      return Status::error("Vulkan device lost");
    }
    if (r != VK_SUCCESS)
      return vkError("vkGetQueryPoolResults", r);
    uint32_t bits = impl.ctx.probe.timestampValidBits;
    uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    double period = impl.ctx.probe.properties.limits.timestampPeriod;
    impl.profile.clear();
    for (uint32_t s = 0; s + 1 < count; ++s) {
      const Step &step = program.steps[s];
      StepTime time;
      time.name =
          step.kind == Step::Kind::Dispatch
              ? program.kernels[program.dispatches[step.index].kernel].name
              : "copy";
      // Masked: counters narrower than 64 bits wrap around.
      uint64_t delta = (ticks[s + 1] - ticks[s]) & mask;
      time.microseconds = double(delta) * period / 1000.0;
      impl.profile.push_back(std::move(time));
    }
    impl.haveProfile = true;
  }

  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer &buffer = program.buffers[b];
    if (buffer.kind != Buffer::Kind::Output)
      continue;
    const void *source =
        impl.useStaging ? impl.staging[b].mapped : impl.buffers[b].mapped;
    Tensor &output = outputs[buffer.index];
    std::memcpy(output.data(), source,
                std::min<uint64_t>(output.byteSize(), buffer.bytes));
  }
  return Status::ok();
}

Status Executable::enableProfiling() {
  Impl &impl = *state;
  std::lock_guard<std::mutex> lock(impl.runMutex);
  if (impl.dynamic) {
    impl.profiling = true;
    for (auto &[shapes, instance] : impl.instances)
      if (Status s = instance->enableProfiling(); !s.isOk())
        return s;
    if (impl.ctx.probe.timestampValidBits == 0)
      return Status::error("the Vulkan device '" + impl.ctx.probe.info.name +
                           "' has no timestamp queries on its compute queue");
    return Status::ok();
  }
  if (impl.profiledCommands)
    return Status::ok();
  if (impl.ctx.probe.timestampValidBits == 0)
    return Status::error("the Vulkan device '" + impl.ctx.probe.info.name +
                         "' has no timestamp queries on its compute queue");
  VkQueryPoolCreateInfo queryInfo = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
  queryInfo.queryCount = uint32_t(impl.program.steps.size()) + 1;
  if (VkResult r = impl.fn.vkCreateQueryPool(impl.device, &queryInfo, nullptr,
                                             &impl.queryPool);
      r != VK_SUCCESS) {
    impl.queryPool = VK_NULL_HANDLE;
    return vkError("vkCreateQueryPool", r);
  }
  VkCommandBufferAllocateInfo allocInfo = {
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocInfo.commandPool = impl.commandPool;
  allocInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocInfo.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  if (VkResult r =
          impl.fn.vkAllocateCommandBuffers(impl.device, &allocInfo, &cb);
      r != VK_SUCCESS)
    return vkError("vkAllocateCommandBuffers", r);
  if (Status s = impl.record(cb, impl.queryPool); !s.isOk()) {
    impl.fn.vkFreeCommandBuffers(impl.device, impl.commandPool, 1, &cb);
    return s;
  }
  impl.profiledCommands = cb;
  return Status::ok();
}

Executable::MemoryUse Executable::memoryUse() const {
  if (!state->dynamic)
    return state->memoryUse;
  std::lock_guard<std::mutex> lock(state->runMutex);
  MemoryUse total;
  for (const auto &[shapes, instance] : state->instances) {
    MemoryUse use = instance->memoryUse();
    total.totalBytes += use.totalBytes;
    total.arenaBytes += use.arenaBytes;
  }
  return total;
}

Result<std::vector<StepTime>> Executable::lastProfile() const {
  Impl &impl = *state;
  std::lock_guard<std::mutex> lock(impl.runMutex);
  if (impl.dynamic) {
    if (!impl.profiling)
      return Status::error("profiling is off: call enableProfiling() before "
                           "running");
    if (impl.instances.empty())
      return Status::error("no profiled run yet");
    return impl.instances.back().second->lastProfile();
  }
  if (!impl.profiledCommands)
    return Status::error("profiling is off: call enableProfiling() before "
                         "running");
  if (!impl.haveProfile)
    return Status::error("no profiled run yet");
  return impl.profile;
}

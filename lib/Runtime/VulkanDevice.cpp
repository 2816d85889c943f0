//===- VulkanDevice.cpp - the capability table and device profiles --------===//

#include "fx/Runtime/VulkanDevice.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

using namespace fx::rt::vk;

namespace {

bool contains(const std::vector<std::string> &list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

/// The cooperative-matrix kernel (lib/Codegen/SPIRV/MatmulCooperativeKernel)
/// uses 16x16x16 fragments with f32 accumulators on 32-lane subgroups.
constexpr uint32_t kCooperativeSubgroup = 32;
constexpr const char *kF16Fragments = "16x16x16 f16->f32";
constexpr const char *kBF16Fragments = "16x16x16 bf16->f32";

/// Rows: SPIR-V capability, Vulkan feature, SPIR-V extension, the fragment
/// shape and subgroup size the compiler's kernels need, a capability listed
/// earlier that must come with it and one more feature it needs.
const std::vector<Capability> &table() {
  static const std::vector<Capability> rows = {
      // Vulkan 1.1 guarantees basic subgroup operations for compute; the
      // arithmetic, ballot and shuffle classes are universal on desktop
      // GPUs and lavapipe.
      {"Shader", nullptr, nullptr, nullptr, 0, nullptr, nullptr},
      {"GroupNonUniform", nullptr, nullptr, nullptr, 0, nullptr, nullptr},
      {"GroupNonUniformArithmetic", nullptr, nullptr, nullptr, 0, nullptr,
       nullptr},
      {"GroupNonUniformBallot", nullptr, nullptr, nullptr, 0, nullptr, nullptr},
      {"GroupNonUniformShuffle", nullptr, nullptr, nullptr, 0, nullptr,
       nullptr},
      {"Int64", "shaderInt64", nullptr, nullptr, 0, nullptr, nullptr},
      {"Int16", "shaderInt16", nullptr, nullptr, 0, nullptr, nullptr},
      {"Int8", "shaderInt8", nullptr, nullptr, 0, nullptr, nullptr},
      {"Float16", "shaderFloat16", nullptr, nullptr, 0, nullptr, nullptr},
      {"Float64", "shaderFloat64", nullptr, nullptr, 0, nullptr, nullptr},
      {"StorageBuffer8BitAccess", "storageBuffer8BitAccess",
       "SPV_KHR_8bit_storage", nullptr, 0, nullptr, nullptr},
      {"StorageBuffer16BitAccess", "storageBuffer16BitAccess",
       "SPV_KHR_16bit_storage", nullptr, 0, nullptr, nullptr},
      // Tensor cores (VK_KHR_cooperative_matrix).
      {"CooperativeMatrixKHR", "cooperativeMatrix",
       "SPV_KHR_cooperative_matrix", kF16Fragments, kCooperativeSubgroup,
       nullptr, nullptr},
      // bf16 fragments (VK_KHR_shader_bfloat16). bf16 values appear only in
      // cooperative-matrix kernels (other kernels hold bf16 as i16 bits), so
      // the two come together.
      {"BFloat16TypeKHR", "shaderBFloat16Type", "SPV_KHR_bfloat16",
       kBF16Fragments, kCooperativeSubgroup, "CooperativeMatrixKHR",
       "shaderBFloat16CooperativeMatrix"},
      {"BFloat16CooperativeMatrixKHR", "shaderBFloat16CooperativeMatrix",
       "SPV_KHR_bfloat16", kBF16Fragments, kCooperativeSubgroup,
       "CooperativeMatrixKHR", "shaderBFloat16Type"},
  };
  return rows;
}

/// The named profiles: the features such devices have.
const std::vector<DeviceProfile> &profileTable() {
  static const std::vector<std::string> common = {"shaderInt64",
                                                  "shaderInt16",
                                                  "shaderInt8",
                                                  "shaderFloat16",
                                                  "storageBuffer8BitAccess",
                                                  "storageBuffer16BitAccess"};
  auto with = [](std::vector<std::string> list,
                 std::initializer_list<const char *> more) {
    list.insert(list.end(), more.begin(), more.end());
    return list;
  };
  static const std::vector<DeviceProfile> table = {
      {"vulkan13",
       "any Vulkan 1.3 desktop GPU: 8/16/64-bit integers, f16, 8/16-bit "
       "storage, subgroup operations",
       common,
       0,
       {}},
      {"lavapipe",
       "Mesa's CPU device: vulkan13 and f64",
       with(common, {"shaderFloat64"}),
       0,
       {}},
      {"nvidia-h200",
       "lavapipe's features and tensor cores: f16 and bf16 cooperative "
       "matrices on 32-lane subgroups",
       with(common, {"shaderFloat64", "cooperativeMatrix", "shaderBFloat16Type",
                     "shaderBFloat16CooperativeMatrix"}),
       kCooperativeSubgroup,
       {kF16Fragments, kBF16Fragments}},
  };
  return table;
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

} // namespace

const std::vector<Capability> &fx::rt::vk::capabilities() { return table(); }

const std::vector<DeviceProfile> &fx::rt::vk::deviceProfiles() {
  return profileTable();
}

const Capability *fx::rt::vk::findCapability(std::string_view name) {
  for (const Capability &capability : capabilities())
    if (name == capability.name)
      return &capability;
  return nullptr;
}

const std::vector<std::string> &fx::rt::vk::deviceFeatures() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> result;
    for (const Capability &capability : capabilities())
      if (capability.feature && !contains(result, capability.feature))
        result.push_back(capability.feature);
    // Enabled alongside the storage-buffer features they extend.
    result.push_back("uniformAndStorageBuffer8BitAccess");
    result.push_back("uniformAndStorageBuffer16BitAccess");
    return result;
  }();
  return list;
}

std::vector<std::string> fx::rt::vk::capabilitiesFor(const DeviceInfo &device) {
  std::vector<std::string> result;
  for (const Capability &c : table()) {
    if ((c.feature && !device.hasFeature(c.feature)) ||
        (c.cooperativeMatrixShape &&
         !contains(device.cooperativeMatrixShapes, c.cooperativeMatrixShape)) ||
        (c.subgroupSize && device.subgroupSize != c.subgroupSize) ||
        (c.withCapability && !contains(result, c.withCapability)) ||
        (c.alsoFeature && !device.hasFeature(c.alsoFeature)))
      continue;
    result.push_back(c.name);
  }
  return result;
}

std::optional<DeviceInfo> fx::rt::vk::profileDevice(std::string_view name) {
  for (const DeviceProfile &profile : deviceProfiles()) {
    if (name != profile.name)
      continue;
    DeviceInfo device;
    device.name = profile.name;
    device.type = "profile";
    device.features = profile.features;
    device.subgroupSize = profile.subgroupSize;
    device.cooperativeMatrixShapes = profile.cooperativeMatrixShapes;
    return device;
  }
  return std::nullopt;
}

const std::vector<std::string> &fx::rt::vk::matrixExtensionNames() {
  static const std::vector<std::string> names = {
      "VK_KHR_cooperative_matrix",
      "VK_KHR_shader_bfloat16",
      "VK_EXT_shader_float8",
      "VK_NV_cooperative_matrix",
      "VK_NV_cooperative_matrix2",
      "VK_NV_cooperative_vector",
      "VK_KHR_shader_integer_dot_product"};
  return names;
}

bool DeviceInfo::hasFeature(std::string_view feature) const {
  return contains(features, feature);
}

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
  for (const std::string &feature : deviceFeatures()) {
    std::string &list = hasFeature(feature) ? have : lack;
    list += (list.empty() ? "" : " ") + feature;
  }
  os << "  features:        " << (have.empty() ? "none" : have) << "\n";
  if (!lack.empty())
    os << "  lacks:           " << lack << "\n";
  // A labelled line of `items` joined by `separator`, or "none".
  auto listLine = [&](const char *label, const std::vector<std::string> &items,
                      const char *separator) {
    os << label << (items.empty() ? "none" : "");
    for (size_t i = 0; i < items.size(); ++i)
      os << (i ? separator : "") << items[i];
    os << "\n";
  };
  listLine("  cooperative matrix: ", cooperativeMatrixShapes, ", ");
  listLine("  matrix extensions: ", matrixExtensions, " ");
  os << "  timestamps:      " << (timestampQueries ? "yes" : "no") << "\n";
  std::string kernels;
  for (const std::string &capability : capabilitiesFor(*this))
    kernels += (kernels.empty() ? "" : ",") + capability;
  os << "  target:          caps=" << kernels << "\n";
  return os.str();
}

//===- VulkanDevice.h - a Vulkan device and what kernels may use -*- C++
//-*-===//
//
// DeviceInfo, what the runtime probes of a device, and the one table of
// what SPIR-V kernels may use on a Vulkan device, shared by the compiler and
// the runtime:
//
//  - the compiler's target environment for a probed device
//    (fx::targetForDevice) and for a named profile (fx::getSPIRVTarget:
//    fx-compile --vulkan-target) are both capabilitiesFor(a DeviceInfo);
//  - the Vulkan feature a capability needs is what the compiler records in
//    Program::requiredFeatures and what the runtime checks and enables;
//  - the runtime probes and enables exactly deviceFeatures().
//
// Supporting one more capability is one more row here (and, for a new
// Vulkan feature, one line where lib/Runtime/Vulkan/DeviceFeatures.h says
// which Vulkan structure holds it). Plain C++: no Vulkan or MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_VULKANDEVICE_H
#define FX_RUNTIME_VULKANDEVICE_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fx::rt::vk {

/// What the runtime probed of one physical device.
struct DeviceInfo {
  uint32_t index = 0;
  std::string name;
  /// "discrete GPU", "integrated GPU", "virtual GPU", "CPU" or "other"
  /// ("profile" for profileDevice).
  std::string type;
  std::string driver;
  /// Vulkan API version as "major.minor.patch".
  std::string apiVersion;
  uint32_t subgroupSize = 0;
  uint32_t maxSharedMemoryBytes = 0;
  uint32_t maxWorkgroupInvocations = 0;
  std::array<uint32_t, 3> maxWorkgroupCount = {0, 0, 0};
  uint64_t maxStorageBufferRange = 0;
  uint64_t deviceLocalBytes = 0;
  /// Device-local memory that is also host-visible covers the whole heap
  /// (lavapipe, integrated GPUs): buffers are mapped directly, no staging.
  bool unifiedMemory = false;
  /// The features of deviceFeatures() the device has, by Vulkan name.
  std::vector<std::string> features;
  /// VK_KHR_cooperative_matrix shapes "MxNxK A/B->C" (e.g.
  /// "16x16x16 f16->f32"); empty without the extension.
  std::vector<std::string> cooperativeMatrixShapes;
  /// The device's extensions among matrixExtensionNames(), in that order.
  std::vector<std::string> matrixExtensions;
  bool timestampQueries = false;

  bool hasFeature(std::string_view feature) const;
  /// Multi-line human-readable description (what fx-run --list-devices
  /// prints).
  std::string describe() const;
};

/// Device extensions for matrix and tensor-core code that --list-devices
/// reports (VK_KHR_cooperative_matrix, which the compiler's tensor-core
/// kernels use, and others it does not use yet, such as
/// VK_NV_cooperative_matrix2's workgroup-scope matrices and tensor loads).
const std::vector<std::string> &matrixExtensionNames();

/// One SPIR-V capability and what a device needs before kernels use it.
struct Capability {
  /// The SPIR-V capability, as the SPIR-V spec spells it ("Int64").
  const char *name;
  /// The Vulkan feature that allows it ("shaderInt64"); null for what every
  /// Vulkan 1.1 compute device has.
  const char *feature;
  /// The SPIR-V extension a module using it declares; null for none.
  const char *spirvExtension;
  /// Conditions of the compiler's kernels rather than of Vulkan: the
  /// cooperative-matrix kernel uses this fragment shape (null: any device
  /// with the feature) on subgroups of this size (0: any) ...
  const char *cooperativeMatrixShape;
  uint32_t subgroupSize;
  /// ... and comes only with this capability listed earlier (null: none)
  /// and this further feature (null: none).
  const char *withCapability;
  const char *alsoFeature;
};

/// Every capability the compiler may declare, in the order it lists them.
const std::vector<Capability> &capabilities();
/// The row of SPIR-V capability `name`, or null if the table lacks it.
const Capability *findCapability(std::string_view name);

/// The Vulkan features the runtime probes and enables whenever a device has
/// them: those of capabilities() and those that come with them.
const std::vector<std::string> &deviceFeatures();

/// The SPIR-V capabilities kernels for `device` may use, in table order.
std::vector<std::string> capabilitiesFor(const DeviceInfo &device);

/// A device the compiler targets by name, without the device at hand: what
/// such devices have.
struct DeviceProfile {
  const char *name;
  const char *description;
  std::vector<std::string> features;
  uint32_t subgroupSize;
  std::vector<std::string> cooperativeMatrixShapes;
};
/// The named profiles (fx-compile --vulkan-target), first the default.
const std::vector<DeviceProfile> &deviceProfiles();
/// What the compiler reads of a device (features, subgroup size,
/// cooperative-matrix shapes) for profile `name`; nullopt if unknown.
std::optional<DeviceInfo> profileDevice(std::string_view name);

} // namespace fx::rt::vk

#endif // FX_RUNTIME_VULKANDEVICE_H

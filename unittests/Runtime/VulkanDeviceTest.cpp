//===- VulkanDeviceTest.cpp - the capability table and device profiles ----===//
//
// capabilitiesFor on hand-made devices: the features, fragment shapes and
// subgroup sizes each capability needs; the named profiles; describe().
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/VulkanDevice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace fx::rt::vk;

namespace {

const std::vector<std::string> kBase = {
    "Shader", "GroupNonUniform", "GroupNonUniformArithmetic",
    "GroupNonUniformBallot", "GroupNonUniformShuffle"};

std::vector<std::string> concat(std::vector<std::string> a,
                                const std::vector<std::string> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// A device like Mesa lavapipe: every scalar and storage feature, f64, no
/// cooperative matrices.
DeviceInfo lavapipeLike() {
  DeviceInfo device;
  device.name = "llvmpipe";
  device.subgroupSize = 8;
  device.features = {"shaderInt64",
                     "shaderFloat64",
                     "shaderInt16",
                     "shaderFloat16",
                     "shaderInt8",
                     "storageBuffer8BitAccess",
                     "storageBuffer16BitAccess"};
  return device;
}

/// A device with tensor cores of both element types.
DeviceInfo tensorCoreDevice() {
  DeviceInfo device = lavapipeLike();
  device.subgroupSize = 32;
  device.features.insert(device.features.end(),
                         {"cooperativeMatrix", "shaderBFloat16Type",
                          "shaderBFloat16CooperativeMatrix"});
  device.cooperativeMatrixShapes = {"16x16x16 f16->f32", "16x8x16 f16->f16",
                                    "16x16x16 bf16->f32"};
  return device;
}

bool has(const std::vector<std::string> &list, const std::string &item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(VulkanDeviceTest, TableIsConsistent) {
  std::set<std::string> names;
  for (const Capability &capability : capabilities()) {
    EXPECT_TRUE(names.insert(capability.name).second) << capability.name;
    EXPECT_EQ(findCapability(capability.name), &capability);
    // The runtime probes and enables every feature the table names.
    if (capability.feature)
      EXPECT_TRUE(has(deviceFeatures(), capability.feature))
          << capability.feature;
  }
  EXPECT_EQ(findCapability("NoSuchCapability"), nullptr);
  EXPECT_EQ(
      std::set<std::string>(deviceFeatures().begin(), deviceFeatures().end())
          .size(),
      deviceFeatures().size());
}

TEST(VulkanDeviceTest, FeaturelessDeviceGetsTheBase) {
  DeviceInfo device;
  EXPECT_EQ(capabilitiesFor(device), kBase);
}

TEST(VulkanDeviceTest, LavapipeLikeDevice) {
  EXPECT_EQ(
      capabilitiesFor(lavapipeLike()),
      concat(kBase, {"Int64", "Int16", "Int8", "Float16", "Float64",
                     "StorageBuffer8BitAccess", "StorageBuffer16BitAccess"}));
}

TEST(VulkanDeviceTest, TensorCoresNeedTheKernelsShapesAndSubgroups) {
  std::vector<std::string> all = capabilitiesFor(tensorCoreDevice());
  EXPECT_TRUE(has(all, "CooperativeMatrixKHR"));
  EXPECT_TRUE(has(all, "BFloat16TypeKHR"));
  EXPECT_TRUE(has(all, "BFloat16CooperativeMatrixKHR"));

  // The kernels use 32-lane subgroups (e.g. not AMD's 64).
  DeviceInfo wave64 = tensorCoreDevice();
  wave64.subgroupSize = 64;
  EXPECT_EQ(capabilitiesFor(wave64), capabilitiesFor(lavapipeLike()));

  // Without the f16 16x16x16 shape there are no cooperative kernels, and so
  // no bf16 ones either.
  DeviceInfo noF16 = tensorCoreDevice();
  noF16.cooperativeMatrixShapes = {"16x16x16 bf16->f32"};
  EXPECT_EQ(capabilitiesFor(noF16), capabilitiesFor(lavapipeLike()));

  // bf16 needs both of its features and its shape.
  for (const char *missing :
       {"shaderBFloat16Type", "shaderBFloat16CooperativeMatrix"}) {
    DeviceInfo device = tensorCoreDevice();
    device.features.erase(
        std::find(device.features.begin(), device.features.end(), missing));
    std::vector<std::string> caps = capabilitiesFor(device);
    EXPECT_TRUE(has(caps, "CooperativeMatrixKHR")) << missing;
    EXPECT_FALSE(has(caps, "BFloat16TypeKHR")) << missing;
    EXPECT_FALSE(has(caps, "BFloat16CooperativeMatrixKHR")) << missing;
  }
  DeviceInfo noBF16Shape = tensorCoreDevice();
  noBF16Shape.cooperativeMatrixShapes = {"16x16x16 f16->f32"};
  EXPECT_EQ(capabilitiesFor(noBF16Shape),
            concat(capabilitiesFor(lavapipeLike()), {"CooperativeMatrixKHR"}));
}

TEST(VulkanDeviceTest, Profiles) {
  ASSERT_FALSE(deviceProfiles().empty());
  EXPECT_STREQ(deviceProfiles()[0].name, "vulkan13");
  for (const DeviceProfile &profile : deviceProfiles()) {
    std::optional<DeviceInfo> device = profileDevice(profile.name);
    ASSERT_TRUE(device) << profile.name;
    for (const std::string &feature : device->features)
      EXPECT_TRUE(has(deviceFeatures(), feature)) << profile.name;
  }
  EXPECT_FALSE(profileDevice("gpu9000"));

  std::vector<std::string> vulkan13 =
      capabilitiesFor(*profileDevice("vulkan13"));
  EXPECT_FALSE(has(vulkan13, "Float64"));
  EXPECT_TRUE(has(vulkan13, "Int64"));
  EXPECT_EQ(capabilitiesFor(*profileDevice("lavapipe")),
            capabilitiesFor(lavapipeLike()));
  EXPECT_EQ(capabilitiesFor(*profileDevice("nvidia-h200")),
            capabilitiesFor(tensorCoreDevice()));
}

TEST(VulkanDeviceTest, DescribeListsFeaturesAndTarget) {
  DeviceInfo device = lavapipeLike();
  device.features.erase(device.features.begin()); // shaderInt64
  std::string text = device.describe();
  EXPECT_NE(text.find("features:        shaderInt16 shaderInt8"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("lacks:           shaderInt64 "), std::string::npos)
      << text;
  EXPECT_NE(text.find("target:          caps=Shader,"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("Int64,"), std::string::npos) << text;
}

} // namespace

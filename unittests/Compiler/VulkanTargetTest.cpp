//===- VulkanTargetTest.cpp - SPIR-V targets from the capability table ----===//
//
// The compiler's two ways to a SPIR-V target environment, a named profile
// (getSPIRVTarget) and a probed device (targetForDevice), both read
// fx/Runtime/VulkanDevice.h's table: they agree, every capability the table
// names is one MLIR knows, and the extensions follow the capabilities.
//
//===----------------------------------------------------------------------===//

#include "fx/Compiler/VulkanCompiler.h"
#include "fx/Pipelines/Pipelines.h"
#include "fx/Runtime/VulkanDevice.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVEnums.h"
#include "llvm/ADT/STLExtras.h"

#include <gtest/gtest.h>

namespace vk = fx::rt::vk;

namespace {

TEST(VulkanTargetTest, TableNamesSPIRVCapabilities) {
  for (const vk::Capability &capability : vk::capabilities())
    EXPECT_TRUE(mlir::spirv::symbolizeCapability(capability.name))
        << capability.name;
}

TEST(VulkanTargetTest, ProfilesAgreeWithTheirDevices) {
  for (const vk::DeviceProfile &profile : vk::deviceProfiles()) {
    std::optional<mlir::fx::SPIRVTarget> named =
        mlir::fx::getSPIRVTarget(profile.name);
    ASSERT_TRUE(named) << profile.name;
    std::optional<vk::DeviceInfo> device = vk::profileDevice(profile.name);
    ASSERT_TRUE(device);
    std::optional<mlir::fx::SPIRVTarget> probed =
        mlir::fx::getSPIRVTarget(fx::targetForDevice(*device));
    ASSERT_TRUE(probed) << fx::targetForDevice(*device);
    EXPECT_EQ(named->str(), probed->str()) << profile.name;
  }
}

TEST(VulkanTargetTest, ExtensionsFollowCapabilities) {
  std::optional<mlir::fx::SPIRVTarget> h200 =
      mlir::fx::getSPIRVTarget("nvidia-h200");
  ASSERT_TRUE(h200);
  EXPECT_TRUE(h200->cooperativeMatrix);
  EXPECT_TRUE(h200->bf16CooperativeMatrix);
  EXPECT_EQ(h200->version, "v1.6");
  for (const char *extension :
       {"SPV_KHR_storage_buffer_storage_class", "SPV_KHR_8bit_storage",
        "SPV_KHR_16bit_storage", "SPV_KHR_cooperative_matrix",
        "SPV_KHR_bfloat16"})
    EXPECT_TRUE(llvm::is_contained(h200->extensions, extension)) << extension;

  std::optional<mlir::fx::SPIRVTarget> lavapipe =
      mlir::fx::getSPIRVTarget("lavapipe");
  ASSERT_TRUE(lavapipe);
  EXPECT_FALSE(lavapipe->cooperativeMatrix);
  EXPECT_EQ(lavapipe->version, "v1.3");
  EXPECT_TRUE(llvm::is_contained(lavapipe->capabilities, "Float64"));
  EXPECT_FALSE(
      llvm::is_contained(lavapipe->extensions, "SPV_KHR_cooperative_matrix"));

  // A device without 8-bit storage: no extension for it either.
  std::optional<mlir::fx::SPIRVTarget> small =
      mlir::fx::getSPIRVTarget("caps=Shader,Int64,StorageBuffer16BitAccess");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->extensions,
            (std::vector<std::string>{"SPV_KHR_storage_buffer_storage_class",
                                      "SPV_KHR_16bit_storage"}));
}

TEST(VulkanTargetTest, UnknownNamesAreRejected) {
  EXPECT_FALSE(mlir::fx::getSPIRVTarget("gpu9000"));
  EXPECT_FALSE(mlir::fx::getSPIRVTarget("caps=Shader,NoSuchCapability"));
  EXPECT_NE(mlir::fx::vulkanTargetHelp().find("nvidia-h200"),
            std::string::npos);
}

} // namespace

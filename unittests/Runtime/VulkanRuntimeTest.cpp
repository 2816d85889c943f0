//===- VulkanRuntimeTest.cpp - Vulkan runtime pieces without a device -----===//
//
// What lib/Runtime/Vulkan decides from data alone: that the Vulkan feature
// structures hold every feature of the shared capability table, the choice
// of memory types, cooperative-matrix type names, the pipeline cache
// directory and the environment helpers. None of it needs a Vulkan device
// or loader.
//
//===----------------------------------------------------------------------===//

#include "Context.h"
#include "DeviceProbe.h"
#include "Executable.h"
#include "Support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

using namespace fx::rt::vk;
using namespace fx::rt::vk::detail;

namespace {

TEST(VulkanRuntimeTest, FeatureSetHoldsEveryTableFeature) {
  FeatureSet features;
  std::set<const VkBool32 *> flags;
  for (const std::string &name : deviceFeatures()) {
    VkBool32 *flag = features.find(name);
    ASSERT_NE(flag, nullptr) << name << " has no Vulkan structure";
    EXPECT_TRUE(flags.insert(flag).second) << name << " shares a flag";
    EXPECT_EQ(*flag, VK_FALSE) << name;
  }
  EXPECT_EQ(features.find("noSuchFeature"), nullptr);
  // What a device reports lands where find() looks.
  features.core.shaderFloat64 = VK_TRUE;
  features.coopMatrix.cooperativeMatrix = VK_TRUE;
  features.bfloat16.shaderBFloat16CooperativeMatrix = VK_TRUE;
  const FeatureSet &reported = features;
  EXPECT_EQ(*reported.find("shaderFloat64"), VK_TRUE);
  EXPECT_EQ(*reported.find("cooperativeMatrix"), VK_TRUE);
  EXPECT_EQ(*reported.find("shaderBFloat16CooperativeMatrix"), VK_TRUE);
  EXPECT_EQ(*reported.find("shaderBFloat16Type"), VK_FALSE);
}

/// Memory types of a discrete GPU with resizable BAR: heap 0 device-local,
/// heap 1 host memory.
VkPhysicalDeviceMemoryProperties discreteGPU() {
  VkPhysicalDeviceMemoryProperties memory = {};
  memory.memoryHeapCount = 2;
  memory.memoryHeaps[0].flags = VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
  memory.memoryHeaps[1].flags = 0;
  const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                              visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                              cached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  memory.memoryTypeCount = 5;
  memory.memoryTypes[0] = {
      VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD | local | visible, 0};
  memory.memoryTypes[1] = {local, 0};
  memory.memoryTypes[2] = {visible, 1};
  memory.memoryTypes[3] = {visible | cached, 1};
  memory.memoryTypes[4] = {local | visible, 0};
  return memory;
}

TEST(VulkanRuntimeTest, FindMemoryType) {
  VkPhysicalDeviceMemoryProperties memory = discreteGPU();
  const uint32_t all = 0x1f;
  const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  // Device-local: the first such type that is not AMD's uncached one.
  EXPECT_EQ(
      findMemoryType(memory, all, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, 0),
      1u);
  // Host-visible preferring cached: type 3.
  EXPECT_EQ(findMemoryType(memory, all, visible,
                           VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1),
            3u);
  // The preferred heap wins over the order of types.
  EXPECT_EQ(findMemoryType(memory, all, visible, 0, 0), 4u);
  // A preference no type has falls back to what is required.
  EXPECT_EQ(findMemoryType(memory, 1u << 2, visible,
                           VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0),
            2u);
  // The buffer's allowed types bound the choice; nothing fits: nullopt.
  EXPECT_EQ(findMemoryType(memory, 1u << 1, visible, 0, 0), std::nullopt);
  EXPECT_EQ(findMemoryType(memory, 1u << 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                           0, 0),
            std::nullopt);
}

TEST(VulkanRuntimeTest, ComponentTypeNames) {
  EXPECT_EQ(componentTypeName(VK_COMPONENT_TYPE_FLOAT16_KHR), "f16");
  EXPECT_EQ(componentTypeName(VK_COMPONENT_TYPE_FLOAT32_KHR), "f32");
  EXPECT_EQ(componentTypeName(VK_COMPONENT_TYPE_UINT8_KHR), "u8");
  // Newer than the headers of Debian 12: by number.
  EXPECT_EQ(componentTypeName(static_cast<VkComponentTypeKHR>(1000141000)),
            "bf16");
  EXPECT_EQ(componentTypeName(static_cast<VkComponentTypeKHR>(4242)),
            "type4242");
}

/// Sets (or with null, unsets) an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (saved)
      ::setenv(name, saved->c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> saved;
};

TEST(VulkanRuntimeTest, PipelineCacheDirectory) {
  ScopedEnv cache("FX_VULKAN_CACHE_DIR", nullptr);
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", "/home/u");
  ContextOptions options;
  EXPECT_EQ(pipelineCacheDirectory(options), "/home/u/.cache/fx-mlir");
  {
    // A relative $XDG_CACHE_HOME is invalid and ignored.
    ScopedEnv relative("XDG_CACHE_HOME", "cache");
    EXPECT_EQ(pipelineCacheDirectory(options), "/home/u/.cache/fx-mlir");
    ScopedEnv absolute("XDG_CACHE_HOME", "/var/cache");
    EXPECT_EQ(pipelineCacheDirectory(options), "/var/cache/fx-mlir");
    ScopedEnv explicitDir("FX_VULKAN_CACHE_DIR", "/tmp/vk");
    EXPECT_EQ(pipelineCacheDirectory(options), "/tmp/vk");
    options.pipelineCacheDir = "/opt/c";
    EXPECT_EQ(pipelineCacheDirectory(options), "/opt/c");
  }
  options.pipelineCacheDir = "none";
  EXPECT_EQ(pipelineCacheDirectory(options), "");
  ScopedEnv noHome("HOME", nullptr);
  options.pipelineCacheDir = "";
  EXPECT_EQ(pipelineCacheDirectory(options), "");
}

TEST(VulkanRuntimeTest, EnvironmentHelpers) {
  for (const char *off : {"", "0", "false", "off"}) {
    ScopedEnv flag("FX_TEST_FLAG", off);
    EXPECT_FALSE(envFlag("FX_TEST_FLAG")) << off;
  }
  for (const char *on : {"1", "yes", "true"}) {
    ScopedEnv flag("FX_TEST_FLAG", on);
    EXPECT_TRUE(envFlag("FX_TEST_FLAG")) << on;
  }
  ScopedEnv unset("FX_TEST_FLAG", nullptr);
  EXPECT_FALSE(envFlag("FX_TEST_FLAG"));
  EXPECT_EQ(parseUnsigned("0"), 0u);
  EXPECT_EQ(parseUnsigned("120"), 120u);
  EXPECT_EQ(parseUnsigned(""), std::nullopt);
  EXPECT_EQ(parseUnsigned("-1"), std::nullopt);
  EXPECT_EQ(parseUnsigned("12s"), std::nullopt);
  EXPECT_EQ(parseUnsigned("1234567890123456789"), std::nullopt);
}

TEST(VulkanRuntimeTest, AllocationSizes) {
  // Vulkan has no empty buffers, and kernels access whole words.
  EXPECT_EQ(allocationSize(0), 4u);
  EXPECT_EQ(allocationSize(1), 4u);
  EXPECT_EQ(allocationSize(4), 4u);
  EXPECT_EQ(allocationSize(5), 8u);
  EXPECT_EQ(allocationSize(1ull << 33), 1ull << 33);
}

} // namespace

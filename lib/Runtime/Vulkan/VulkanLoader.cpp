//===- VulkanLoader.cpp - the Vulkan API through dlopen -------------------===//

#include "VulkanLoader.h"

#include <dlfcn.h>

using namespace fx::rt;
using namespace fx::rt::vk::detail;

// Overridable so a test build can simulate a machine without the loader.
#ifndef FX_VULKAN_LOADER_NAME
#ifdef __APPLE__
#define FX_VULKAN_LOADER_NAME "libvulkan.1.dylib"
#else
#define FX_VULKAN_LOADER_NAME "libvulkan.so.1"
#endif
#endif

namespace {
/// What loadVulkan() found, computed once.
struct LoadedLoader {
  GlobalFunctions functions;
  std::string error;
};

LoadedLoader openLoader() {
  LoadedLoader loaded;
  // RTLD_LOCAL: the loader's symbols must not satisfy other libraries'
  // references (a second copy of the loader linked by the application keeps
  // working on its own).
  void *library = ::dlopen(FX_VULKAN_LOADER_NAME, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = ::dlerror();
    loaded.error = std::string("no Vulkan loader (" FX_VULKAN_LOADER_NAME
                               ") found: install the Vulkan loader (Debian: "
                               "libvulkan1) and a driver (e.g. "
                               "mesa-vulkan-drivers)") +
                   (reason ? std::string(" (") + reason + ")" : "");
    return loaded;
  }
  GlobalFunctions &fn = loaded.functions;
  fn.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      ::dlsym(library, "vkGetInstanceProcAddr"));
  if (!fn.vkGetInstanceProcAddr) {
    loaded.error = FX_VULKAN_LOADER_NAME
        " does not export vkGetInstanceProcAddr: not a Vulkan loader";
    ::dlclose(library);
    return loaded;
  }
  fn.vkEnumerateInstanceVersion =
      reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
          fn.vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
#define FX_VK_LOAD_GLOBAL(name)                                                \
  fn.name =                                                                    \
      reinterpret_cast<PFN_##name>(fn.vkGetInstanceProcAddr(nullptr, #name));  \
  if (!fn.name) {                                                              \
    loaded.error = FX_VULKAN_LOADER_NAME " does not provide " #name;           \
    return loaded;                                                             \
  }
  FX_VK_GLOBAL_FUNCTIONS(FX_VK_LOAD_GLOBAL)
#undef FX_VK_LOAD_GLOBAL
  return loaded;
}
} // namespace

Result<const GlobalFunctions *> fx::rt::vk::detail::loadVulkan() {
  // A function-local static: initialized once, thread-safely.
  static const LoadedLoader loaded = openLoader();
  if (!loaded.error.empty())
    return Status::error(loaded.error);
  return &loaded.functions;
}

Result<InstanceFunctions> InstanceFunctions::load(const GlobalFunctions &global,
                                                  VkInstance instance) {
  InstanceFunctions fn;
#define FX_VK_LOAD_REQUIRED(name)                                              \
  fn.name = reinterpret_cast<PFN_##name>(                                      \
      global.vkGetInstanceProcAddr(instance, #name));                          \
  if (!fn.name)                                                                \
    return Status::error("the Vulkan loader does not provide " #name);
#define FX_VK_LOAD_OPTIONAL(name)                                              \
  fn.name = reinterpret_cast<PFN_##name>(                                      \
      global.vkGetInstanceProcAddr(instance, #name));
  FX_VK_INSTANCE_FUNCTIONS(FX_VK_LOAD_REQUIRED)
  FX_VK_OPTIONAL_INSTANCE_FUNCTIONS(FX_VK_LOAD_OPTIONAL)
#undef FX_VK_LOAD_REQUIRED
#undef FX_VK_LOAD_OPTIONAL
  return fn;
}

Result<DeviceFunctions> DeviceFunctions::load(const InstanceFunctions &instance,
                                              VkDevice device) {
  DeviceFunctions fn;
#define FX_VK_LOAD_DEVICE(name)                                                \
  fn.name = reinterpret_cast<PFN_##name>(                                      \
      instance.vkGetDeviceProcAddr(device, #name));                            \
  if (!fn.name)                                                                \
    return Status::error("the Vulkan driver does not provide " #name);
  FX_VK_DEVICE_FUNCTIONS(FX_VK_LOAD_DEVICE)
#undef FX_VK_LOAD_DEVICE
#define FX_VK_LOAD_OPTIONAL_DEVICE(name)                                       \
  fn.name = reinterpret_cast<PFN_##name>(                                      \
      instance.vkGetDeviceProcAddr(device, #name));
  FX_VK_OPTIONAL_DEVICE_FUNCTIONS(FX_VK_LOAD_OPTIONAL_DEVICE)
#undef FX_VK_LOAD_OPTIONAL_DEVICE
  return fn;
}

std::string fx::rt::vk::detail::resultName(VkResult result) {
  // Numeric cases, so names newer than the installed headers still print.
  switch (static_cast<int64_t>(result)) {
  case 0:
    return "VK_SUCCESS";
  case 1:
    return "VK_NOT_READY";
  case 2:
    return "VK_TIMEOUT";
  case 3:
    return "VK_EVENT_SET";
  case 4:
    return "VK_EVENT_RESET";
  case 5:
    return "VK_INCOMPLETE";
  case -1:
    return "VK_ERROR_OUT_OF_HOST_MEMORY";
  case -2:
    return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
  case -3:
    return "VK_ERROR_INITIALIZATION_FAILED";
  case -4:
    return "VK_ERROR_DEVICE_LOST";
  case -5:
    return "VK_ERROR_MEMORY_MAP_FAILED";
  case -6:
    return "VK_ERROR_LAYER_NOT_PRESENT";
  case -7:
    return "VK_ERROR_EXTENSION_NOT_PRESENT";
  case -8:
    return "VK_ERROR_FEATURE_NOT_PRESENT";
  case -9:
    return "VK_ERROR_INCOMPATIBLE_DRIVER";
  case -10:
    return "VK_ERROR_TOO_MANY_OBJECTS";
  case -11:
    return "VK_ERROR_FORMAT_NOT_SUPPORTED";
  case -12:
    return "VK_ERROR_FRAGMENTED_POOL";
  case -13:
    return "VK_ERROR_UNKNOWN";
  case -1000069000:
    return "VK_ERROR_OUT_OF_POOL_MEMORY";
  case -1000072003:
    return "VK_ERROR_INVALID_EXTERNAL_HANDLE";
  case -1000161000:
    return "VK_ERROR_FRAGMENTATION";
  case -1000257000:
    return "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS";
  case 1000297000:
    return "VK_PIPELINE_COMPILE_REQUIRED";
  case -1000011001:
    return "VK_ERROR_VALIDATION_FAILED_EXT";
  case -1000012000:
    return "VK_ERROR_INVALID_SHADER_NV";
  case -1000174001:
    return "VK_ERROR_NOT_PERMITTED_KHR";
  case -1000338000:
    return "VK_ERROR_COMPRESSION_EXHAUSTED_EXT";
  case 1000482000:
    return "VK_INCOMPATIBLE_SHADER_BINARY_EXT";
  case 1000483000:
    return "VK_PIPELINE_BINARY_MISSING_KHR";
  case -1000483000:
    return "VK_ERROR_NOT_ENOUGH_SPACE_KHR";
  default:
    return "VkResult(" + std::to_string(static_cast<int64_t>(result)) + ")";
  }
}

Status fx::rt::vk::detail::vkError(const char *function, VkResult result) {
  return Status::error(std::string(function) +
                       " failed: " + resultName(result));
}

std::string fx::rt::vk::detail::versionString(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." +
         std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

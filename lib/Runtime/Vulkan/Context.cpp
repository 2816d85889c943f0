//===- Context.cpp - instance, device and queue ---------------------------===//
//
// One Context is an instance, a logical device with every optional feature
// of deviceFeatures() the device has, and its first compute queue.
// Submissions from any thread go through submit() and wait().
//
//===----------------------------------------------------------------------===//

#include "Context.h"

#include "Support.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

using namespace fx::rt;
using namespace fx::rt::vk;
using namespace fx::rt::vk::detail;

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
/// How long a wait polls its fence before blocking.
constexpr uint64_t kDefaultSpinMicroseconds = 2000;

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

} // namespace

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
  for (const std::string &name : deviceFeatures())
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
  // FX_VULKAN_KERNEL_STATS: the driver's statistics of each compiled
  // kernel (registers, spills, ...), a diagnostic for kernel tuning.
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executableInfo = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  if (envFlag("FX_VULKAN_KERNEL_STATS")) {
    if (probe.hasExtension("VK_KHR_pipeline_executable_properties")) {
      executableInfo.pipelineExecutableInfo = VK_TRUE;
      executableInfo.pNext = chain;
      chain = &executableInfo;
      extensions.push_back("VK_KHR_pipeline_executable_properties");
      kernelStats = true;
    } else {
      std::fprintf(stderr,
                   "fx: FX_VULKAN_KERNEL_STATS: the device does not report "
                   "kernel statistics (no VK_KHR_pipeline_executable_"
                   "properties)\n");
    }
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
  // The fence is polled for a while before the thread blocks on it: a
  // blocked thread wakes some microseconds after the device signals, a
  // visible part of a run of a batch-1 model. FX_VULKAN_SPIN_US sets how
  // long (0: block at once).
  static const uint64_t spinMicroseconds = [] {
    std::optional<std::string> text = getEnv("FX_VULKAN_SPIN_US");
    std::optional<uint64_t> value =
        text ? parseUnsigned(*text) : std::optional<uint64_t>();
    return value ? *value : kDefaultSpinMicroseconds;
  }();
  VkResult result = VK_NOT_READY;
  auto spinEnd = std::chrono::steady_clock::now() +
                 std::chrono::microseconds(spinMicroseconds);
  while (result == VK_NOT_READY && spinMicroseconds &&
         std::chrono::steady_clock::now() < spinEnd)
    result = fn.vkGetFenceStatus(device, fence);
  if (result == VK_NOT_READY)
    result = fn.vkWaitForFences(device, 1, &fence, VK_TRUE, timeout);
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

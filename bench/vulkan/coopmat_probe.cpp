//===- coopmat_probe.cpp - GEMM kernels of workgroup-scope matrices -------===//
//
// Times hand-written SPIR-V GEMM kernels (bench/vulkan/coopmat_probe.py
// writes them) on a Vulkan device: C[M,N] (f32) = A[M,K] * B[K,N] (f16,
// row-major), one workgroup per BM x BN tile of C. It exists to answer one
// question before the compiler's GEMM generator is changed: do
// VK_NV_cooperative_matrix2's workgroup-scope matrices (one BM x BK by
// BK x BN product per workgroup, the driver free to stage and schedule it)
// run faster on a device than the subgroup-scope fragments the compiler emits
// now?
//
//   coopmat_probe --list
//   coopmat_probe KERNEL.spv M N K BM BN [runs]
//
// Prints the device's cooperative matrix 2 features and flexible dimensions
// (--list), or the kernel's median GPU time from timestamps, its TFLOP/s and
// the largest relative error of 64 sampled outputs against a float64 sum.
// Needs only a Vulkan loader (dlopen'ed, as the runtime does).
//
//===----------------------------------------------------------------------===//

#include <vulkan/vulkan.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

// VK_KHR_cooperative_matrix's declarations where the headers predate it
// (Debian 12's 1.3.239), as the runtime has them.
#include "VulkanLoader.h"

// VK_NV_cooperative_matrix2's, from the registry.
struct CoopMat2Features {
  VkStructureType sType;
  void *pNext;
  VkBool32 workgroupScope, flexibleDimensions, reductions, conversions,
      perElementOperations, tensorAddressing, blockLoads;
};
struct CoopMat2Properties {
  VkStructureType sType;
  void *pNext;
  uint32_t workgroupScopeMaxWorkgroupSize, flexibleDimensionsMaxDimension,
      workgroupScopeReservedSharedMemory;
};
struct FlexibleDimensions {
  VkStructureType sType;
  void *pNext;
  uint32_t MGranularity, NGranularity, KGranularity;
  VkComponentTypeKHR AType, BType, CType, ResultType;
  VkBool32 saturatingAccumulation;
  VkScopeKHR scope;
  uint32_t workgroupInvocations;
};
static const auto kCoopMatFeaturesKHR = (VkStructureType)1000506000;
static const auto kCoopMat2Features = (VkStructureType)1000593000;
static const auto kFlexibleDimensions = (VkStructureType)1000593001;
static const auto kCoopMat2Properties = (VkStructureType)1000593002;
static const auto kMaintenance4 = (VkStructureType)1000413000;

static PFN_vkGetInstanceProcAddr getInstanceProc;
static VkInstance instance;
static VkDevice device;

template <typename F> static F instanceFn(const char *name) {
  auto fn = reinterpret_cast<F>(getInstanceProc(instance, name));
  if (!fn) {
    std::fprintf(stderr, "coopmat_probe: no %s\n", name);
    std::exit(2);
  }
  return fn;
}
template <typename F> static F deviceFn(const char *name) {
  static auto get = instanceFn<PFN_vkGetDeviceProcAddr>("vkGetDeviceProcAddr");
  auto fn = reinterpret_cast<F>(get(device, name));
  if (!fn) {
    std::fprintf(stderr, "coopmat_probe: no %s\n", name);
    std::exit(2);
  }
  return fn;
}
#define IFN(name) instanceFn<PFN_##name>(#name)
#define DFN(name) deviceFn<PFN_##name>(#name)
static void check(VkResult result, const char *what) {
  if (result != VK_SUCCESS) {
    std::fprintf(stderr, "coopmat_probe: %s failed (VkResult %d)\n", what,
                 (int)result);
    std::exit(2);
  }
}

static uint16_t toHalf(float f) {
  // Values here are small (|x| < 2), normal or zero: no rounding subtleties
  // beyond round-to-nearest on the mantissa.
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (exp <= 0)
    return uint16_t(sign);
  uint32_t h = sign | (uint32_t(exp) << 10) | (mant >> 13);
  if (mant & 0x1000)
    ++h;
  return uint16_t(h);
}
static float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t x = exp == 0 ? sign : sign | ((exp - 15 + 127) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

int main(int argc, char **argv) {
  bool list = argc == 2 && std::string(argv[1]) == "--list";
  if (!list && argc < 7) {
    std::fprintf(stderr, "usage: coopmat_probe --list | KERNEL.spv M N K BM "
                         "BN [runs [bt]]\n");
    return 2;
  }
  void *loader = dlopen("libvulkan.so.1", RTLD_NOW);
  if (!loader) {
    std::fprintf(stderr, "coopmat_probe: no Vulkan loader: %s\n", dlerror());
    return 2;
  }
  getInstanceProc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      dlsym(loader, "vkGetInstanceProcAddr"));
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_MAKE_API_VERSION(0, 1, 3, 0);
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  check(IFN(vkCreateInstance)(&ici, nullptr, &instance), "vkCreateInstance");
  uint32_t count = 0;
  IFN(vkEnumeratePhysicalDevices)(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> gpus(count);
  IFN(vkEnumeratePhysicalDevices)(instance, &count, gpus.data());
  VkPhysicalDevice gpu = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props;
  for (VkPhysicalDevice candidate : gpus) {
    IFN(vkGetPhysicalDeviceProperties)(candidate, &props);
    if (props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
      gpu = candidate;
      break;
    }
  }
  if (!gpu) {
    std::fprintf(stderr, "coopmat_probe: no discrete GPU\n");
    return 2;
  }
  CoopMat2Features cm2{kCoopMat2Features};
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR cm{kCoopMatFeaturesKHR, &cm2};
  VkPhysicalDeviceVulkan12Features v12{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &cm};
  VkPhysicalDeviceVulkan11Features v11{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12};
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v11};
  IFN(vkGetPhysicalDeviceFeatures2)(gpu, &features);
  CoopMat2Properties cm2props{kCoopMat2Properties};
  VkPhysicalDeviceProperties2 props2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &cm2props};
  IFN(vkGetPhysicalDeviceProperties2)(gpu, &props2);
  if (list) {
    std::printf("device: %s\n", props.deviceName);
    std::printf("cooperative matrix: %u; matrix2: workgroup scope %u, "
                "flexible dimensions %u, reductions %u, conversions %u, "
                "per-element %u, tensor addressing %u, block loads %u\n",
                cm.cooperativeMatrix, cm2.workgroupScope,
                cm2.flexibleDimensions, cm2.reductions, cm2.conversions,
                cm2.perElementOperations, cm2.tensorAddressing, cm2.blockLoads);
    std::printf("workgroup scope: max workgroup size %u, max dimension %u, "
                "reserved shared memory %u bytes\n",
                cm2props.workgroupScopeMaxWorkgroupSize,
                cm2props.flexibleDimensionsMaxDimension,
                cm2props.workgroupScopeReservedSharedMemory);
    auto flexible = reinterpret_cast<VkResult (*)(VkPhysicalDevice, uint32_t *,
                                                  FlexibleDimensions *)>(
        getInstanceProc(instance, "vkGetPhysicalDeviceCooperativeMatrixFlexible"
                                  "DimensionsPropertiesNV"));
    if (flexible) {
      uint32_t n = 0;
      flexible(gpu, &n, nullptr);
      std::vector<FlexibleDimensions> dims(n, {kFlexibleDimensions});
      flexible(gpu, &n, dims.data());
      for (const FlexibleDimensions &d : dims)
        std::printf("flexible: granularity %ux%ux%u types A %d B %d C %d R %d "
                    "scope %d invocations %u\n",
                    d.MGranularity, d.NGranularity, d.KGranularity, d.AType,
                    d.BType, d.CType, d.ResultType, d.scope,
                    d.workgroupInvocations);
    }
    return 0;
  }

  std::string path = argv[1];
  uint32_t M = std::atoi(argv[2]), N = std::atoi(argv[3]),
           K = std::atoi(argv[4]);
  uint32_t BM = std::atoi(argv[5]), BN = std::atoi(argv[6]);
  int runs = argc > 7 ? std::atoi(argv[7]) : 20;
  // "bt": the kernel reads B as [N, K] row-major (B transposed).
  bool transposedB = argc > 8 && std::string(argv[8]) == "bt";

  // A device with the features the kernels use.
  uint32_t queueCount = 0;
  IFN(vkGetPhysicalDeviceQueueFamilyProperties)(gpu, &queueCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(queueCount);
  IFN(vkGetPhysicalDeviceQueueFamilyProperties)(gpu, &queueCount,
                                                families.data());
  uint32_t family = 0;
  while (!(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT))
    ++family;
  float priority = 1;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  CoopMat2Features cm2on{kCoopMat2Features};
  cm2on.workgroupScope = cm2.workgroupScope;
  cm2on.flexibleDimensions = cm2.flexibleDimensions;
  cm2on.tensorAddressing = cm2.tensorAddressing;
  cm2on.blockLoads = cm2.blockLoads;
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR cmon{kCoopMatFeaturesKHR,
                                                    &cm2on};
  cmon.cooperativeMatrix = VK_TRUE;
  VkPhysicalDeviceVulkan12Features v12on{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &cmon};
  v12on.shaderFloat16 = VK_TRUE;
  v12on.vulkanMemoryModel = VK_TRUE;
  v12on.vulkanMemoryModelDeviceScope = VK_TRUE;
  v12on.storageBuffer8BitAccess = v12.storageBuffer8BitAccess;
  VkPhysicalDeviceVulkan11Features v11on{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12on};
  v11on.storageBuffer16BitAccess = VK_TRUE;
  VkPhysicalDeviceFeatures2 on{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                               &v11on};
  const char *extensions[] = {"VK_KHR_cooperative_matrix",
                              "VK_NV_cooperative_matrix2"};
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &on};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = cm2.workgroupScope ? 2 : 1;
  dci.ppEnabledExtensionNames = extensions;
  check(IFN(vkCreateDevice)(gpu, &dci, nullptr, &device), "vkCreateDevice");
  VkQueue queue;
  DFN(vkGetDeviceQueue)(device, family, 0, &queue);

  // Buffers: A, B, C device-local; one host-visible staging buffer.
  VkPhysicalDeviceMemoryProperties memory;
  IFN(vkGetPhysicalDeviceMemoryProperties)(gpu, &memory);
  auto memoryType = [&](uint32_t bits, VkMemoryPropertyFlags flags) {
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
      if ((bits & (1u << i)) &&
          (memory.memoryTypes[i].propertyFlags & flags) == flags)
        return i;
    std::fprintf(stderr, "coopmat_probe: no memory type\n");
    std::exit(2);
  };
  struct Buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
  };
  auto makeBuffer = [&](VkDeviceSize size, VkMemoryPropertyFlags flags) {
    Buffer b{};
    b.size = size;
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = size;
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    check(DFN(vkCreateBuffer)(device, &bci, nullptr, &b.buffer),
          "vkCreateBuffer");
    VkMemoryRequirements req;
    DFN(vkGetBufferMemoryRequirements)(device, b.buffer, &req);
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = memoryType(req.memoryTypeBits, flags);
    check(DFN(vkAllocateMemory)(device, &mai, nullptr, &b.memory),
          "vkAllocateMemory");
    check(DFN(vkBindBufferMemory)(device, b.buffer, b.memory, 0),
          "vkBindBufferMemory");
    return b;
  };
  VkDeviceSize aBytes = VkDeviceSize(M) * K * 2,
               bBytes = VkDeviceSize(K) * N * 2,
               cBytes = VkDeviceSize(M) * N * 4;
  Buffer a = makeBuffer(aBytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  Buffer b = makeBuffer(bBytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  Buffer c = makeBuffer(cBytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  Buffer staging = makeBuffer(std::max({aBytes, bBytes, cBytes}),
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                  VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  void *mapped;
  check(DFN(vkMapMemory)(device, staging.memory, 0, staging.size, 0, &mapped),
        "vkMapMemory");

  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpci.queueFamilyIndex = family;
  cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  VkCommandPool pool;
  check(DFN(vkCreateCommandPool)(device, &cpci, nullptr, &pool),
        "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cbai{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = pool;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  check(DFN(vkAllocateCommandBuffers)(device, &cbai, &cmd),
        "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  check(DFN(vkCreateFence)(device, &fci, nullptr, &fence), "vkCreateFence");
  auto submit = [&]() {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    check(DFN(vkQueueSubmit)(queue, 1, &si, fence), "vkQueueSubmit");
    check(DFN(vkWaitForFences)(device, 1, &fence, VK_TRUE, UINT64_MAX),
          "vkWaitForFences");
    DFN(vkResetFences)(device, 1, &fence);
  };
  auto copy = [&](VkBuffer from, VkBuffer to, VkDeviceSize size) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    DFN(vkBeginCommandBuffer)(cmd, &begin);
    VkBufferCopy region{0, 0, size};
    DFN(vkCmdCopyBuffer)(cmd, from, to, 1, &region);
    DFN(vkEndCommandBuffer)(cmd);
    submit();
  };

  // Inputs: uniform in [-1, 1), rounded to f16.
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<uint16_t> hostA(size_t(M) * K), hostB(size_t(K) * N);
  for (uint16_t &x : hostA)
    x = toHalf(dist(rng));
  for (uint16_t &x : hostB)
    x = toHalf(dist(rng));
  std::memcpy(mapped, hostA.data(), aBytes);
  copy(staging.buffer, a.buffer, aBytes);
  std::memcpy(mapped, hostB.data(), bBytes);
  copy(staging.buffer, b.buffer, bBytes);

  // The pipeline: three storage buffers, no push constants (the sizes are
  // the kernel's constants).
  std::ifstream file(path, std::ios::binary);
  std::vector<char> code((std::istreambuf_iterator<char>(file)),
                         std::istreambuf_iterator<char>());
  if (code.empty() || code.size() % 4) {
    std::fprintf(stderr, "coopmat_probe: cannot read %s\n", path.c_str());
    return 2;
  }
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = code.size();
  smci.pCode = reinterpret_cast<const uint32_t *>(code.data());
  VkShaderModule module;
  check(DFN(vkCreateShaderModule)(device, &smci, nullptr, &module),
        "vkCreateShaderModule");
  VkDescriptorSetLayoutBinding bindings[3];
  for (uint32_t i = 0; i < 3; ++i)
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                   VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo dslci{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dslci.bindingCount = 3;
  dslci.pBindings = bindings;
  VkDescriptorSetLayout setLayout;
  check(DFN(vkCreateDescriptorSetLayout)(device, &dslci, nullptr, &setLayout),
        "vkCreateDescriptorSetLayout");
  VkPipelineLayoutCreateInfo plci{
      VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &setLayout;
  VkPipelineLayout layout;
  check(DFN(vkCreatePipelineLayout)(device, &plci, nullptr, &layout),
        "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo cpi{
      VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpi.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpi.stage.module = module;
  cpi.stage.pName = "main";
  cpi.layout = layout;
  VkPipeline pipeline;
  check(DFN(vkCreateComputePipelines)(device, VK_NULL_HANDLE, 1, &cpi, nullptr,
                                      &pipeline),
        "vkCreateComputePipelines");
  VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
  VkDescriptorPoolCreateInfo dpci{
      VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 1;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &poolSize;
  VkDescriptorPool descriptorPool;
  check(DFN(vkCreateDescriptorPool)(device, &dpci, nullptr, &descriptorPool),
        "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo dsai{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = descriptorPool;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &setLayout;
  VkDescriptorSet set;
  check(DFN(vkAllocateDescriptorSets)(device, &dsai, &set),
        "vkAllocateDescriptorSets");
  VkDescriptorBufferInfo infos[3] = {{a.buffer, 0, VK_WHOLE_SIZE},
                                     {b.buffer, 0, VK_WHOLE_SIZE},
                                     {c.buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet writes[3];
  for (uint32_t i = 0; i < 3; ++i) {
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  DFN(vkUpdateDescriptorSets)(device, 3, writes, 0, nullptr);

  VkQueryPoolCreateInfo qpci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qpci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qpci.queryCount = 2;
  VkQueryPool queries;
  check(DFN(vkCreateQueryPool)(device, &qpci, nullptr, &queries),
        "vkCreateQueryPool");
  std::vector<double> times;
  for (int run = 0; run < runs + 3; ++run) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    DFN(vkBeginCommandBuffer)(cmd, &begin);
    DFN(vkCmdResetQueryPool)(cmd, queries, 0, 2);
    DFN(vkCmdBindPipeline)(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    DFN(vkCmdBindDescriptorSets)(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0,
                                 1, &set, 0, nullptr);
    DFN(vkCmdWriteTimestamp)(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries,
                             0);
    DFN(vkCmdDispatch)(cmd, N / BN, M / BM, 1);
    DFN(vkCmdWriteTimestamp)(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries,
                             1);
    DFN(vkEndCommandBuffer)(cmd);
    submit();
    uint64_t stamps[2];
    check(DFN(vkGetQueryPoolResults)(
              device, queries, 0, 2, sizeof(stamps), stamps, 8,
              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    if (run >= 3)
      times.push_back(double(stamps[1] - stamps[0]) *
                      props.limits.timestampPeriod * 1e-6);
  }
  std::sort(times.begin(), times.end());
  double ms = times[times.size() / 2];

  // Check 64 outputs against float64 sums of the f16 inputs.
  copy(c.buffer, staging.buffer, cBytes);
  const float *out = static_cast<const float *>(mapped);
  double worst = 0;
  std::mt19937 pick(1);
  for (int s = 0; s < 64; ++s) {
    uint32_t i = pick() % M, j = pick() % N;
    double sum = 0, scale = 0;
    for (uint32_t k = 0; k < K; ++k) {
      double p = double(fromHalf(hostA[size_t(i) * K + k])) *
                 fromHalf(transposedB ? hostB[size_t(j) * K + k]
                                      : hostB[size_t(k) * N + j]);
      sum += p;
      scale += std::fabs(p);
    }
    worst = std::max(worst, std::fabs(out[size_t(i) * N + j] - sum) /
                                std::max(scale, 1e-30));
  }
  double tflops = 2.0 * M * N * K / (ms * 1e-3) / 1e12;
  std::printf("%s: %ux%ux%u in %ux%u tiles: median %.4f ms (%d runs), %.1f "
              "TFLOP/s, worst error %.2e of the sum of |products|\n",
              path.c_str(), M, N, K, BM, BN, ms, runs, tflops, worst);
  return worst < 1e-3 ? 0 : 1;
}

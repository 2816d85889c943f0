//===- Executable.cpp - a program loaded, recorded and run ----------------===//
//
// Loading checks the program against the device, builds the pipelines,
// allocates (Memory.cpp), and records the whole schedule into one command
// buffer; a run uploads the inputs, replays it and reads the outputs.
//
//===----------------------------------------------------------------------===//

#include "Executable.h"
#include "Support.h"

#include "fx/Runtime/Parallel.h"

#include <chrono>

#include <cstdio>
#include <cstring>

using namespace fx::rt;
using namespace fx::rt::vk;
using namespace fx::rt::vk::detail;

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

void Executable::Impl::printKernelStatistics(size_t k) const {
  if (!fn.vkGetPipelineExecutablePropertiesKHR ||
      !fn.vkGetPipelineExecutableStatisticsKHR)
    return;
  const Kernel &kernel = program.kernels[k];
  VkPipelineInfoKHR pipelineInfo = {VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pipelineInfo.pipeline = pipelines[k];
  uint32_t count = 0;
  if (fn.vkGetPipelineExecutablePropertiesKHR(device, &pipelineInfo, &count,
                                              nullptr) != VK_SUCCESS)
    return;
  std::string line = "fx: kernel " + std::to_string(k) + " " + kernel.name;
  if (!kernel.label.empty())
    line += " (" + kernel.label + ")";
  line += ":";
  // The statistics of every executable (one for a compute pipeline).
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR executable = {
        VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    executable.pipeline = pipelines[k];
    executable.executableIndex = e;
    uint32_t numStats = 0;
    if (fn.vkGetPipelineExecutableStatisticsKHR(device, &executable, &numStats,
                                                nullptr) != VK_SUCCESS)
      continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        numStats, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    if (fn.vkGetPipelineExecutableStatisticsKHR(device, &executable, &numStats,
                                                stats.data()) != VK_SUCCESS)
      continue;
    for (const VkPipelineExecutableStatisticKHR &stat : stats) {
      line += std::string(" ") + stat.name + "=";
      switch (stat.format) {
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        line += stat.value.b32 ? "true" : "false";
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        line += std::to_string(stat.value.i64);
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        line += std::to_string(stat.value.u64);
        break;
      default:
        line += std::to_string(stat.value.f64);
        break;
      }
    }
  }
  std::fprintf(stderr, "%s\n", line.c_str());
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
    if (ctx.kernelStats)
      pipelineInfo.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    if (VkResult r =
            fn.vkCreateComputePipelines(device, ctx.pipelineCache, 1,
                                        &pipelineInfo, nullptr, &pipelines[k]);
        r != VK_SUCCESS) {
      pipelines[k] = VK_NULL_HANDLE;
      return failed("vkCreateComputePipelines", r);
    }
    if (ctx.kernelStats)
      printKernelStatistics(k);
    // The pipeline holds the compiled code; the module is not needed again.
    fn.vkDestroyShaderModule(device, modules[k], nullptr);
    modules[k] = VK_NULL_HANDLE;
  }
  return Status::ok();
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
/// `queries` unless it is null: after the uploads and after each step
/// (steps + 1), then before the uploads and after the downloads.
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
  if (queries) {
    fn.vkCmdResetQueryPool(cb, queries, 0, numSteps + 3);
    fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries,
                           numSteps + 1);
  }

  // Also orders this run after the previous one, whose kernels may still
  // read what the uploads and first steps overwrite.
  stepBarrier();
  if (useStaging) {
    bool uploaded = false;
    for (size_t b = 0; b < program.buffers.size(); ++b)
      if (program.buffers[b].kind == Buffer::Kind::Input && !isParameter(b) &&
          staging[b].buffer) {
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

  // A barrier only before a step that depends on one since the last
  // barrier (stepBarriers): the device may overlap independent steps. A
  // profiled run keeps one between every two steps so that each step's
  // timestamps are its own, and so does every run with FX_VULKAN_SERIAL=1.
  std::vector<bool> barriers;
  if (!queries && !envFlag("FX_VULKAN_SERIAL"))
    barriers = stepBarriers(program);
  VkPipeline boundPipeline = VK_NULL_HANDLE;
  bool first = true;
  for (uint32_t s = 0; s < numSteps; ++s) {
    const Step &step = program.steps[s];
    // Prepare steps run before the run when the parameters changed
    // (runPrepareSteps); in the profile they take no time.
    if (step.prepare) {
      if (queries)
        fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                               queries, s + 1);
      continue;
    }
    if (!first && (barriers.empty() || barriers[s]))
      stepBarrier();
    first = false;
    if (step.kind == Step::Kind::Dispatch) {
      recordDispatch(cb, step, boundPipeline);
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
  if (queries)
    fn.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries,
                           numSteps + 2);
  if (VkResult r = fn.vkEndCommandBuffer(cb); r != VK_SUCCESS)
    return vkError("vkEndCommandBuffer", r);
  return Status::ok();
}

void Executable::Impl::recordDispatch(VkCommandBuffer cb, const Step &step,
                                      VkPipeline &boundPipeline) {
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
}

Status Executable::Impl::runPrepareSteps() {
  if (prepared)
    return Status::ok();
  bool any = false;
  for (const Step &step : program.steps)
    any |= step.prepare;
  if (any) {
    // Ordered after the parameters' uploads and any earlier run (submitOnce
    // waits for its own completion, and runs are serialized).
    Status status = submitOnce([&](VkCommandBuffer cb) {
      VkMemoryBarrier barrier = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      barrier.srcAccessMask = kWriteAccess;
      barrier.dstAccessMask = kAnyAccess;
      VkPipeline boundPipeline = VK_NULL_HANDLE;
      for (const Step &step : program.steps) {
        if (!step.prepare)
          continue;
        fn.vkCmdPipelineBarrier(cb, kStages, kStages, 0, 1, &barrier, 0,
                                nullptr, 0, nullptr);
        recordDispatch(cb, step, boundPipeline);
      }
      fn.vkCmdPipelineBarrier(cb, kStages, kStages, 0, 1, &barrier, 0, nullptr,
                              0, nullptr);
    });
    if (!status.isOk())
      return status;
  }
  prepared = true;
  return Status::ok();
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
  if (profilingPaused)
    instance->setProfilingPaused(true);
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

/// memcpy, over the runtime's thread pool from 1 MiB: one core copies
/// 10-17 GB/s. On an H200's host (16 threads) a transformer block's 1 MiB
/// input took 31 us instead of 67, resnet50's batch of 32 images (19 MB)
/// 0.61 ms instead of 1.40; a batch-1 image (600 KB) took longer (67 us
/// instead of 40, and up to 240 us: waking the pool costs more than the
/// copy), so smaller copies stay on the calling thread.
static void copyBytes(void *target, const void *source, size_t bytes) {
  constexpr size_t kChunk = 64 << 10;
  if (bytes < 16 * kChunk || fx::rt::getNumThreads() < 2) {
    std::memcpy(target, source, bytes);
    return;
  }
  struct Copy {
    char *target;
    const char *source;
    size_t bytes;
  } copy{static_cast<char *>(target), static_cast<const char *>(source), bytes};
  fxrtParallelFor(
      int64_t((bytes + kChunk - 1) / kChunk),
      [](int64_t begin, int64_t end, void *context) {
        auto *c = static_cast<Copy *>(context);
        size_t from = size_t(begin) * kChunk,
               to = std::min(size_t(end) * kChunk, c->bytes);
        std::memcpy(c->target + from, c->source + from, to - from);
      },
      &copy);
}

/// The tensor over the host view of buffer `kind` `index`.
static Result<Tensor> hostTensor(Executable::Impl &impl, Buffer::Kind kind,
                                 size_t index) {
  const FunctionSignature &sig = impl.program.signature;
  bool input = kind == Buffer::Kind::Input;
  const std::vector<TensorSpec> &specs = input ? sig.inputs : sig.outputs;
  std::string what =
      std::string(input ? "input " : "output ") + std::to_string(index);
  if (index >= specs.size())
    return Status::error(what + " does not exist (the program has " +
                         std::to_string(specs.size()) + ")");
  const TensorSpec &spec = specs[index];
  if (impl.dynamic)
    return Status::error(what + " (" + spec.name +
                         "): a program with dynamic dimensions has no "
                         "fixed host buffers; pass tensors to run instead");
  if (input && spec.parameter)
    return Status::error(what + " (" + spec.name +
                         ") is a parameter, resident on the device");
  for (size_t b = 0; b < impl.program.buffers.size(); ++b) {
    const Buffer &buffer = impl.program.buffers[b];
    if (buffer.kind == kind && buffer.index == index && impl.hostView(b))
      return Tensor::wrap(impl.hostView(b), spec.dtype, spec.shape);
  }
  // Not read by the program (or of no size): any memory will do.
  return Tensor::tryAllocate(spec.dtype, spec.shape);
}

Result<Tensor> Executable::hostInput(size_t index) {
  return hostTensor(*state, Buffer::Kind::Input, index);
}

Result<Tensor> Executable::hostOutput(size_t index) {
  return hostTensor(*state, Buffer::Kind::Output, index);
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
  if (Status s = impl.runPrepareSteps(); !s.isOk())
    return s;
  using Clock = std::chrono::steady_clock;
  auto microsecondsSince = [](Clock::time_point start) {
    return std::chrono::duration<double, std::micro>(Clock::now() - start)
        .count();
  };
  Executable::CallTimes &times = impl.callTimes;
  Clock::time_point start = Clock::now();
  // Tensors and buffers share their byte layout (the kernels store i1 as a
  // byte, like DType::Bool), so copies are plain memcpy.
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer &buffer = program.buffers[b];
    if (buffer.kind != Buffer::Kind::Input || impl.isParameter(b))
      continue;
    const Tensor &input = inputs[buffer.index];
    // Written in place (hostInput): nothing to copy.
    if (input.data() == impl.hostView(b))
      continue;
    copyBytes(impl.hostView(b), input.data(),
              std::min<uint64_t>(input.byteSize(), buffer.bytes));
  }
  bool profiled = impl.profiledCommands && !impl.profilingPaused;
  VkCommandBuffer commands = profiled ? impl.profiledCommands : impl.commands;
  times.inputs = microsecondsSince(start);
  start = Clock::now();
  if (Status s = impl.ctx.submit(commands, impl.fence); !s.isOk())
    return s;
  times.submit = microsecondsSince(start);
  start = Clock::now();
  if (Status s = impl.ctx.wait(impl.fence); !s.isOk()) {
    impl.pending = !impl.ctx.deviceLost;
    return s;
  }
  times.wait = microsecondsSince(start);

  if (profiled) {
    uint32_t count = uint32_t(program.steps.size()) + 3;
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
    // Masked: counters narrower than 64 bits wrap around.
    auto microseconds = [&](uint64_t from, uint64_t to) {
      return double((to - from) & mask) * period / 1000.0;
    };
    uint32_t steps = count - 3;
    times.upload =
        impl.useStaging ? microseconds(ticks[steps + 1], ticks[0]) : 0;
    times.download =
        impl.useStaging ? microseconds(ticks[steps], ticks[steps + 2]) : 0;
    impl.profile.clear();
    for (uint32_t s = 0; s < steps; ++s) {
      const Step &step = program.steps[s];
      StepTime time;
      if (step.kind == Step::Kind::Dispatch) {
        const Kernel &kernel =
            program.kernels[program.dispatches[step.index].kernel];
        time.name = kernel.label.empty() ? kernel.name
                                         : kernel.name + "  " + kernel.label;
      } else {
        time.name = "copy";
      }
      time.microseconds = microseconds(ticks[s], ticks[s + 1]);
      impl.profile.push_back(std::move(time));
    }
    impl.haveProfile = true;
  }

  start = Clock::now();
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer &buffer = program.buffers[b];
    if (buffer.kind != Buffer::Kind::Output)
      continue;
    Tensor &output = outputs[buffer.index];
    if (output.data() == impl.hostView(b))
      continue;
    copyBytes(output.data(), impl.hostView(b),
              std::min<uint64_t>(output.byteSize(), buffer.bytes));
  }
  times.outputs = microsecondsSince(start);
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

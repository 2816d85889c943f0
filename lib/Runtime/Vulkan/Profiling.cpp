//===- Profiling.cpp - per-step GPU times from timestamp queries ----------===//
//
// Profiling records a second command buffer with a timestamp after every
// step; the default one stays untouched, so unprofiled runs cost nothing.
//
//===----------------------------------------------------------------------===//

#include "Executable.h"

using namespace fx::rt;
using namespace fx::rt::vk;
using namespace fx::rt::vk::detail;

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
  queryInfo.queryCount = uint32_t(impl.program.steps.size()) + 3;
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

void Executable::setProfilingPaused(bool paused) {
  Impl &impl = *state;
  std::lock_guard<std::mutex> lock(impl.runMutex);
  impl.profilingPaused = paused;
  for (auto &[shapes, instance] : impl.instances)
    instance->setProfilingPaused(paused);
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

Executable::CallTimes Executable::lastCallTimes() const {
  Impl &impl = *state;
  std::lock_guard<std::mutex> lock(impl.runMutex);
  if (impl.dynamic)
    return impl.instances.empty()
               ? CallTimes()
               : impl.instances.back().second->lastCallTimes();
  return impl.callTimes;
}

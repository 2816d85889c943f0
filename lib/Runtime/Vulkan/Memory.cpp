//===- Memory.cpp - buffers, memory blocks and uploads --------------------===//
//
// Buffers of one executable are placed in a few large memory blocks, the
// planned temporaries at their arena offsets; inputs, outputs and constants
// are mapped where the device allows it and staged elsewhere.
//
//===----------------------------------------------------------------------===//

#include "Executable.h"

#include "Support.h"

#include <cstring>

using namespace fx::rt;
using namespace fx::rt::vk;
using namespace fx::rt::vk::detail;

namespace {

/// Constants are uploaded through a staging buffer of at most this size
/// (unless one constant is larger), so loading a model with gigabytes of
/// weights does not need as much host-visible memory at once.
constexpr uint64_t kConstantStagingBytes = 64ull << 20;

/// Buffers are placed in memory blocks of at most this size (a larger
/// buffer gets a block of its own): few allocations, yet no single huge one
/// that a fragmented heap could refuse.
constexpr uint64_t kMemoryBlockBytes = 256ull << 20;

} // namespace

Result<VkBuffer> Executable::Impl::createVkBuffer(VkDeviceSize size,
                                                  VkBufferUsageFlags usage,
                                                  const std::string &what) {
  VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  if (VkResult r = fn.vkCreateBuffer(device, &info, nullptr, &buffer);
      r != VK_SUCCESS)
    return Status::error("vkCreateBuffer for " + what +
                         " failed: " + resultName(r));
  return buffer;
}

Result<VkDeviceMemory>
Executable::Impl::allocateMemory(VkDeviceSize size, uint32_t type,
                                 const std::string &what) {
  VkMemoryAllocateInfo info = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.allocationSize = size;
  info.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkResult r = fn.vkAllocateMemory(device, &info, nullptr, &memory);
  if (r == VK_SUCCESS)
    return memory;
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
    return Status::error("out of device memory allocating " +
                         std::to_string(size) + " bytes for " + what);
  if (r == VK_ERROR_OUT_OF_HOST_MEMORY)
    return Status::error("out of host memory allocating " +
                         std::to_string(size) + " bytes for " + what);
  return Status::error("vkAllocateMemory of " + std::to_string(size) +
                       " bytes for " + what + " failed: " + resultName(r));
}

Result<DeviceBuffer> Executable::Impl::createMappedBuffer(
    VkDeviceSize size, VkBufferUsageFlags usage, const std::string &what) {
  DeviceBuffer result;
  result.size = size;
  Result<VkBuffer> buffer = createVkBuffer(size, usage, what);
  if (!buffer.isOk())
    return buffer.status();
  result.buffer = buffer.value();
  VkMemoryRequirements requirements;
  fn.vkGetBufferMemoryRequirements(device, result.buffer, &requirements);
  std::optional<uint32_t> type =
      findMemoryType(ctx.probe.memory, requirements.memoryTypeBits,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                         VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     0, UINT32_MAX);
  if (!type) {
    destroyBuffer(result);
    return Status::error("the Vulkan device has no host-visible memory for " +
                         what);
  }
  Result<VkDeviceMemory> memory =
      allocateMemory(requirements.size, *type, what);
  if (!memory.isOk()) {
    destroyBuffer(result);
    return memory.status();
  }
  result.memory = memory.value();
  if (VkResult r =
          fn.vkBindBufferMemory(device, result.buffer, result.memory, 0);
      r != VK_SUCCESS) {
    destroyBuffer(result);
    return Status::error("vkBindBufferMemory for " + what +
                         " failed: " + resultName(r));
  }
  if (VkResult r = fn.vkMapMemory(device, result.memory, 0, VK_WHOLE_SIZE, 0,
                                  &result.mapped);
      r != VK_SUCCESS) {
    result.mapped = nullptr;
    destroyBuffer(result);
    return Status::error("vkMapMemory for " + what +
                         " failed: " + resultName(r));
  }
  return result;
}

void Executable::Impl::destroyBuffer(DeviceBuffer &buffer) {
  if (buffer.buffer)
    fn.vkDestroyBuffer(device, buffer.buffer, nullptr);
  // Freeing mapped memory unmaps it.
  if (buffer.memory)
    fn.vkFreeMemory(device, buffer.memory, nullptr);
  buffer = DeviceBuffer();
}

Status Executable::Impl::allocateBuffers() {
  useStaging =
      !ctx.probe.info.unifiedMemory || envFlag("FX_VULKAN_FORCE_STAGING");
  const VkMemoryPropertyFlags hostFlags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkBufferUsageFlags storageUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const VkBufferUsageFlags stagingUsage =
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  buffers.resize(program.buffers.size());
  staging.resize(program.buffers.size());

  // Every buffer and staging buffer, with where its memory comes from.
  struct Placement {
    DeviceBuffer *target;
    std::string name;
    bool hostAccess;
    uint32_t type = 0;
    VkDeviceSize offset = 0;
    size_t block = 0;
    /// The program's arena offset, for temporaries planned into it.
    std::optional<uint64_t> arenaOffset;
  };
  std::vector<Placement> placements;
  std::vector<VkMemoryRequirements> requirements;
  auto add = [&](DeviceBuffer &target, VkDeviceSize size,
                 VkBufferUsageFlags usage, VkMemoryPropertyFlags required,
                 VkMemoryPropertyFlags preferred, bool hostAccess,
                 std::string name) -> Status {
    Result<VkBuffer> buffer = createVkBuffer(size, usage, name);
    if (!buffer.isOk())
      return buffer.status();
    target.buffer = buffer.value();
    target.size = size;
    VkMemoryRequirements req;
    fn.vkGetBufferMemoryRequirements(device, target.buffer, &req);
    std::optional<uint32_t> type =
        findMemoryType(ctx.probe.memory, req.memoryTypeBits, required,
                       preferred, ctx.probe.deviceLocalHeap);
    if (!type)
      return Status::error(
          "the Vulkan device has no suitable memory type for " + name);
    Placement placement{&target, std::move(name), hostAccess};
    placement.type = *type;
    placements.push_back(std::move(placement));
    requirements.push_back(req);
    return Status::ok();
  };
  // With staging, the inputs (not the parameters) still go straight to
  // device-local memory the host can map where all of it can be (resizable
  // BAR): the host's copy then crosses PCIe itself, and a run needs no copy
  // command before its first step. Outputs keep staging buffers (host
  // reads of device memory crawl). FX_VULKAN_STAGE_INPUTS=1 stages them.
  const VkMemoryPropertyFlags directFlags =
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | hostFlags;
  bool directInputs = useStaging && !envFlag("FX_VULKAN_STAGE_INPUTS");
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer &buffer = program.buffers[b];
    VkDeviceSize size = allocationSize(buffer.bytes);
    if (directInputs && buffer.kind == Buffer::Kind::Input && !isParameter(b)) {
      Status s = add(buffers[b], size, storageUsage, directFlags, 0,
                     /*hostAccess=*/true, describeBuffer(program, b));
      if (s.isOk() &&
          ctx.probe.memory.memoryTypes[placements.back().type].heapIndex ==
              ctx.probe.deviceLocalHeap)
        continue;
      // None, or only in a small window of device memory: staged.
      if (s.isOk()) {
        placements.pop_back();
        requirements.pop_back();
      }
      if (buffers[b].buffer)
        fn.vkDestroyBuffer(device, buffers[b].buffer, nullptr);
      buffers[b] = DeviceBuffer();
      directInputs = false;
    }
    // Temporaries never meet the host; with unified memory the host reads
    // and writes the others in place.
    bool hostAccess = !useStaging && buffer.kind != Buffer::Kind::Temporary;
    VkMemoryPropertyFlags required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    if (hostAccess)
      required |= hostFlags;
    if (Status s = add(buffers[b], size, storageUsage, required, 0, hostAccess,
                       describeBuffer(program, b));
        !s.isOk())
      return s;
    placements.back().arenaOffset = buffer.arenaOffset;
    if (!useStaging || (buffer.kind != Buffer::Kind::Input &&
                        buffer.kind != Buffer::Kind::Output))
      continue;
    // Host-cached memory makes reading outputs back fast; write-combined
    // memory is as good for inputs.
    VkMemoryPropertyFlags preferred = buffer.kind == Buffer::Kind::Output
                                          ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT
                                          : 0;
    if (Status s = add(staging[b], size, stagingUsage, hostFlags, preferred,
                       /*hostAccess=*/true,
                       "the staging buffer of " + describeBuffer(program, b));
        !s.isOk())
      return s;
  }

  // Buffers share memory blocks of up to kMemoryBlockBytes per memory type,
  // in program order: thousands of tiny allocations would be slow and can
  // exceed maxMemoryAllocationCount (4096 on some drivers).
  const VkDeviceSize blockLimit = std::min<VkDeviceSize>(
      kMemoryBlockBytes, ctx.probe.maxMemoryAllocationSize);
  const VkDeviceSize storageAlignment =
      ctx.probe.properties.limits.minStorageBufferOffsetAlignment;
  struct Block {
    uint32_t type;
    VkDeviceSize size = 0;
    std::vector<size_t> members;
  };
  std::vector<Block> blocks;

  // Temporaries planned into the arena share one block at their planned
  // offsets, unless this device cannot honour the plan (a larger alignment,
  // different memory types, an arena over the allocation limit): then they
  // are placed like the other buffers, which is always correct.
  Block arena{0};
  bool useArena = program.arenaBytes > 0;
  for (size_t i = 0; i < placements.size() && useArena; ++i) {
    const Placement &placement = placements[i];
    if (!placement.arenaOffset)
      continue;
    if (arena.members.empty())
      arena.type = placement.type;
    useArena = placement.type == arena.type &&
               *placement.arenaOffset %
                       std::max<VkDeviceSize>(
                           {requirements[i].alignment, storageAlignment, 1}) ==
                   0;
    arena.size = std::max(arena.size, VkDeviceSize(*placement.arenaOffset +
                                                   requirements[i].size));
    arena.members.push_back(i);
  }
  useArena = useArena && !arena.members.empty() &&
             arena.size <= ctx.probe.maxMemoryAllocationSize;
  if (useArena) {
    for (size_t i : arena.members) {
      placements[i].block = 0;
      placements[i].offset = *placements[i].arenaOffset;
    }
    blocks.push_back(arena);
  }

  std::vector<size_t> openBlock(VK_MAX_MEMORY_TYPES, SIZE_MAX);
  for (size_t i = 0; i < placements.size(); ++i) {
    Placement &placement = placements[i];
    if (useArena && placement.arenaOffset)
      continue;
    const VkMemoryRequirements &req = requirements[i];
    VkDeviceSize alignment = std::max<VkDeviceSize>(
        {req.alignment, storageAlignment, VkDeviceSize(1)});
    size_t &open = openBlock[placement.type];
    VkDeviceSize offset = 0;
    if (open != SIZE_MAX) {
      offset = (blocks[open].size + alignment - 1) / alignment * alignment;
      if (offset + req.size > blockLimit)
        open = SIZE_MAX;
    }
    if (open == SIZE_MAX) {
      open = blocks.size();
      blocks.push_back(Block{placement.type});
      offset = 0;
    }
    placement.block = open;
    placement.offset = offset;
    blocks[open].size = offset + req.size;
    blocks[open].members.push_back(i);
  }

  memoryBlocks.assign(blocks.size(), VK_NULL_HANDLE);
  for (size_t k = 0; k < blocks.size(); ++k) {
    const Block &block = blocks[k];
    std::string what = placements[block.members[0]].name;
    if (useArena && k == 0)
      what = "the arena of " + std::to_string(block.members.size()) +
             " temporaries";
    else if (block.members.size() > 1)
      what += " and " + std::to_string(block.members.size() - 1) +
              " more buffers sharing its memory block";
    Result<VkDeviceMemory> memory =
        allocateMemory(block.size, block.type, what);
    if (!memory.isOk())
      return memory.status();
    memoryBlocks[k] = memory.value();
    memoryUse.totalBytes += block.size;
    if (useArena && k == 0)
      memoryUse.arenaBytes = block.size;
    void *mapped = nullptr;
    bool needsMapping = false;
    for (size_t i : block.members)
      needsMapping |= placements[i].hostAccess;
    if (needsMapping)
      if (VkResult r = fn.vkMapMemory(device, memoryBlocks[k], 0, VK_WHOLE_SIZE,
                                      0, &mapped);
          r != VK_SUCCESS)
        return Status::error("vkMapMemory for " + what +
                             " failed: " + resultName(r));
    for (size_t i : block.members) {
      Placement &placement = placements[i];
      if (VkResult r = fn.vkBindBufferMemory(device, placement.target->buffer,
                                             memoryBlocks[k], placement.offset);
          r != VK_SUCCESS)
        return Status::error("vkBindBufferMemory for " + placement.name +
                             " failed: " + resultName(r));
      if (placement.hostAccess)
        placement.target->mapped =
            static_cast<uint8_t *>(mapped) + placement.offset;
    }
  }
  return Status::ok();
}

/// Zero-fills every buffer (reruns and padding bytes then see zeros, not
/// stale memory) and uploads the constants.
Status Executable::Impl::initializeBuffers() {
  std::vector<size_t> deviceFills, stagedConstants;
  uint64_t largestConstant = 0, totalConstants = 0;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer &buffer = program.buffers[b];
    DeviceBuffer &device = buffers[b];
    if (staging[b].mapped)
      std::memset(staging[b].mapped, 0, staging[b].size);
    if (device.mapped) {
      std::memset(device.mapped, 0, device.size);
      if (buffer.kind == Buffer::Kind::Constant && !buffer.data.empty())
        std::memcpy(device.mapped, buffer.data.data(), buffer.data.size());
    } else if (buffer.kind == Buffer::Kind::Constant) {
      stagedConstants.push_back(b);
      largestConstant = std::max<uint64_t>(largestConstant, device.size);
      totalConstants += device.size;
    } else {
      deviceFills.push_back(b);
    }
  }
  if (deviceFills.empty() && stagedConstants.empty())
    return Status::ok();

  DeviceBuffer transfer;
  if (!stagedConstants.empty()) {
    uint64_t capacity = std::max(
        largestConstant, std::min(totalConstants, kConstantStagingBytes));
    Result<DeviceBuffer> created =
        createMappedBuffer(capacity, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           "the staging buffer of the constants");
    if (!created.isOk())
      return created.status();
    transfer = created.take();
  }
  // Batches of constants that fit the staging buffer, the first batch also
  // clearing the device-only buffers.
  size_t next = 0;
  Status status = Status::ok();
  for (bool first = true;
       status.isOk() && (first || next < stagedConstants.size());
       first = false) {
    std::vector<std::pair<size_t, VkBufferCopy>> copies;
    VkDeviceSize offset = 0;
    while (next < stagedConstants.size()) {
      size_t b = stagedConstants[next];
      const Buffer &buffer = program.buffers[b];
      VkDeviceSize size = buffers[b].size;
      if (offset + size > transfer.size)
        break;
      auto *target = static_cast<uint8_t *>(transfer.mapped) + offset;
      std::memset(target, 0, size);
      if (!buffer.data.empty())
        std::memcpy(target, buffer.data.data(), buffer.data.size());
      copies.push_back({b, VkBufferCopy{offset, 0, size}});
      offset += size;
      ++next;
    }
    status = submitOnce([&](VkCommandBuffer cb) {
      if (first)
        for (size_t b : deviceFills)
          fn.vkCmdFillBuffer(cb, buffers[b].buffer, 0, VK_WHOLE_SIZE, 0);
      for (auto &[b, region] : copies)
        fn.vkCmdCopyBuffer(cb, transfer.buffer, buffers[b].buffer, 1, &region);
      // Barriers order later submissions too: the first run's kernels see
      // these writes.
      VkMemoryBarrier barrier = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      barrier.dstAccessMask = kAnyAccess;
      fn.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, kStages, 0, 1,
                              &barrier, 0, nullptr, 0, nullptr);
    });
  }
  // After a timeout the device may still read it: destroyed after the wait
  // in ~Impl then.
  if (pending)
    retired.push_back(transfer);
  else
    destroyBuffer(transfer);
  return status;
}

Status Executable::Impl::uploadParameters(const std::vector<Tensor> &inputs) {
  residentParameters.resize(program.buffers.size());
  std::vector<size_t> changed;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    if (!isParameter(b))
      continue;
    const Tensor &input = inputs[program.buffers[b].index];
    std::optional<Tensor> &resident = residentParameters[b];
    if (resident && resident->data() == input.data() &&
        resident->byteSize() == input.byteSize())
      continue;
    void *target = hostView(b);
    std::memcpy(target, input.data(),
                std::min<uint64_t>(input.byteSize(), program.buffers[b].bytes));
    resident = input;
    changed.push_back(b);
  }
  if (!changed.empty())
    prepared = false;
  if (!useStaging || changed.empty())
    return Status::ok();
  // Earlier runs may still read the old values: the copies wait for them
  // (submitOnce waits for its own completion, and runs are serialized).
  return submitOnce([&](VkCommandBuffer cb) {
    VkMemoryBarrier before = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask =
        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    fn.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                            VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                            nullptr, 0, nullptr);
    for (size_t b : changed) {
      VkBufferCopy region = {0, 0, buffers[b].size};
      fn.vkCmdCopyBuffer(cb, staging[b].buffer, buffers[b].buffer, 1, &region);
    }
    VkMemoryBarrier after = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    after.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    fn.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &after, 0,
                            nullptr, 0, nullptr);
  });
}

void Executable::forgetResidentParameters() {
  Impl &impl = *state;
  std::lock_guard<std::mutex> lock(impl.runMutex);
  impl.residentParameters.clear();
  for (auto &[shapes, instance] : impl.instances)
    instance->forgetResidentParameters();
}

//===- VulkanProgram.cpp - checks of compiled Vulkan programs -------------===//
//
// What can be checked of a Program without a device. Part of FXRuntime (not
// FXVulkanRuntime) so that the artifact reader validates programs on
// machines without Vulkan too.
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/VulkanProgram.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

using namespace fx::rt;
using namespace fx::rt::vk;

// Checked before pipeline creation: some drivers (lavapipe) crash on a
// missing entry point instead of failing.
bool vk::hasComputeEntryPoint(const std::vector<uint32_t> &spirv,
                              const std::string &name) {
  constexpr uint32_t opEntryPoint = 15, executionModelGLCompute = 5;
  // Instructions start after the 5-word header; each begins with its word
  // count (high half) and opcode (low half).
  for (size_t at = 5; at < spirv.size();) {
    uint32_t words = spirv[at] >> 16, opcode = spirv[at] & 0xffff;
    if (words == 0 || at + words > spirv.size())
      return false;
    // OpEntryPoint: model, function id, then the name, nul-terminated and
    // padded to whole words.
    if (opcode == opEntryPoint && words >= 4 &&
        spirv[at + 1] == executionModelGLCompute) {
      const char *text = reinterpret_cast<const char *>(&spirv[at + 3]);
      size_t maxLength = (words - 3) * sizeof(uint32_t);
      size_t length = strnlen(text, maxLength);
      if (length < maxLength && std::string_view(text, length) == name)
        return true;
    }
    at += words;
  }
  return false;
}

std::string vk::describeBuffer(const Program &program, size_t index) {
  const Buffer &buffer = program.buffers[index];
  std::string name = "buffer " + std::to_string(index);
  switch (buffer.kind) {
  case Buffer::Kind::Input:
    name += " (input " + std::to_string(buffer.index);
    if (buffer.index < program.signature.inputs.size() &&
        !program.signature.inputs[buffer.index].name.empty())
      name += " '" + program.signature.inputs[buffer.index].name + "'";
    return name + ")";
  case Buffer::Kind::Output:
    return name + " (output " + std::to_string(buffer.index) + ")";
  case Buffer::Kind::Constant:
    return name + " (constant)";
  case Buffer::Kind::Temporary:
    return name;
  }
  return name;
}

std::vector<std::optional<LiveRange>>
vk::bufferLiveRanges(const Program &program) {
  std::vector<std::optional<LiveRange>> ranges(program.buffers.size());
  auto use = [&](uint32_t buffer, uint32_t step) {
    if (buffer >= ranges.size())
      return;
    std::optional<LiveRange> &range = ranges[buffer];
    if (!range)
      range = LiveRange{step, step};
    range->first = std::min(range->first, step);
    range->last = std::max(range->last, step);
  };
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    if (step.kind == Step::Kind::Dispatch) {
      if (step.index < program.dispatches.size())
        for (uint32_t b : program.dispatches[step.index].buffers)
          use(b, s);
    } else if (step.index < program.copies.size()) {
      use(program.copies[step.index].source, s);
      use(program.copies[step.index].target, s);
    }
  }
  return ranges;
}

namespace {
uint64_t alignArena(uint64_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}
} // namespace

ReusePlan vk::planTemporaryReuse(Program &program) {
  std::vector<std::optional<LiveRange>> ranges = bufferLiveRanges(program);
  std::vector<size_t> order;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    program.buffers[b].arenaOffset.reset();
    if (program.buffers[b].kind == Buffer::Kind::Temporary && ranges[b])
      order.push_back(b);
  }
  // Largest first; ties in program order, so plans are deterministic.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    uint64_t sa = program.buffers[a].bytes, sb = program.buffers[b].bytes;
    return sa != sb ? sa > sb : a < b;
  });
  ReusePlan plan;
  std::vector<size_t> placed;
  // The arena intervals of the placed temporaries live at the same time as
  // the one being placed, by offset.
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  for (size_t b : order) {
    Buffer &buffer = program.buffers[b];
    uint64_t size = alignArena(std::max<uint64_t>(buffer.bytes, 1));
    busy.clear();
    for (size_t other : placed)
      if (ranges[other]->overlaps(*ranges[b]))
        busy.emplace_back(
            *program.buffers[other].arenaOffset,
            alignArena(std::max<uint64_t>(program.buffers[other].bytes, 1)));
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (auto [start, length] : busy) {
      if (start >= offset + size)
        break;
      offset = std::max(offset, start + length);
    }
    buffer.arenaOffset = offset;
    placed.push_back(b);
    plan.separateBytes += size;
    plan.arenaBytes = std::max(plan.arenaBytes, offset + size);
  }
  plan.temporaries = placed.size();
  program.arenaBytes = plan.arenaBytes;
  return plan;
}

namespace {
/// The arena part of validateProgram.
Status validateArena(const Program &p) {
  auto fail = [](const std::string &message) {
    return Status::error("invalid Vulkan program: " + message);
  };
  std::vector<size_t> members;
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const Buffer &buffer = p.buffers[b];
    if (!buffer.arenaOffset)
      continue;
    uint64_t offset = *buffer.arenaOffset;
    if (buffer.kind != Buffer::Kind::Temporary)
      return fail(describeBuffer(p, b) +
                  " is in the temporary arena but is not a temporary");
    if (offset % kArenaAlignment)
      return fail(describeBuffer(p, b) + " is at arena offset " +
                  std::to_string(offset) + ", not a multiple of " +
                  std::to_string(kArenaAlignment));
    if (offset > p.arenaBytes || buffer.bytes > p.arenaBytes - offset)
      return fail(describeBuffer(p, b) + " (" + std::to_string(buffer.bytes) +
                  " bytes at arena offset " + std::to_string(offset) +
                  ") reaches past the arena's " + std::to_string(p.arenaBytes) +
                  " bytes");
    members.push_back(b);
  }
  // Sharing bytes is only allowed between buffers never live at once.
  std::vector<std::optional<LiveRange>> ranges = bufferLiveRanges(p);
  std::sort(members.begin(), members.end(), [&](size_t a, size_t b) {
    return *p.buffers[a].arenaOffset < *p.buffers[b].arenaOffset;
  });
  for (size_t i = 0; i < members.size(); ++i) {
    const Buffer &a = p.buffers[members[i]];
    uint64_t end = *a.arenaOffset + a.bytes;
    for (size_t j = i + 1; j < members.size(); ++j) {
      const Buffer &b = p.buffers[members[j]];
      if (*b.arenaOffset >= end)
        break;
      const std::optional<LiveRange> &ra = ranges[members[i]],
                                     &rb = ranges[members[j]];
      if (b.bytes && a.bytes && ra && rb && ra->overlaps(*rb))
        return fail(describeBuffer(p, members[i]) + " and " +
                    describeBuffer(p, members[j]) +
                    " share arena bytes while both are live (steps " +
                    std::to_string(std::max(ra->first, rb->first)) + " to " +
                    std::to_string(std::min(ra->last, rb->last)) + ")");
    }
  }
  return Status::ok();
}
} // namespace

Status vk::validateProgram(const Program &p) {
  auto fail = [](const std::string &message) {
    return Status::error("invalid Vulkan program: " + message);
  };
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const Kernel &kernel = p.kernels[k];
    if (kernel.spirv.size() < 5 || kernel.spirv[0] != kSpirvMagic)
      return fail("kernel '" + kernel.name + "' is not SPIR-V");
    if (!hasComputeEntryPoint(kernel.spirv, kernel.entryPoint))
      return fail("kernel '" + kernel.name +
                  "' has no compute entry point named '" + kernel.entryPoint +
                  "'");
  }
  std::vector<int> outputBuffers(p.signature.outputs.size(), 0);
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const Buffer &buffer = p.buffers[b];
    if (buffer.kind == Buffer::Kind::Input &&
        buffer.index >= p.signature.inputs.size())
      return fail(describeBuffer(p, b) + ": the signature has only " +
                  std::to_string(p.signature.inputs.size()) + " inputs");
    if (buffer.kind == Buffer::Kind::Output) {
      if (buffer.index >= p.signature.outputs.size())
        return fail(describeBuffer(p, b) + ": the signature has only " +
                    std::to_string(p.signature.outputs.size()) + " outputs");
      ++outputBuffers[buffer.index];
    }
    if (buffer.kind == Buffer::Kind::Input ||
        buffer.kind == Buffer::Kind::Output) {
      // Runs copy min(tensor, buffer) bytes, so a short buffer would not
      // crash the host, but kernels would read and write past its end.
      const TensorSpec &spec = buffer.kind == Buffer::Kind::Input
                                   ? p.signature.inputs[buffer.index]
                                   : p.signature.outputs[buffer.index];
      std::optional<size_t> needed = checkedByteSize(spec.dtype, spec.shape);
      if (!needed || *needed > buffer.bytes)
        return fail(describeBuffer(p, b) + " has " +
                    std::to_string(buffer.bytes) + " bytes, too few for " +
                    spec.str());
    }
    if (buffer.kind == Buffer::Kind::Constant &&
        buffer.data.size() > buffer.bytes)
      return fail(describeBuffer(p, b) + " has " +
                  std::to_string(buffer.data.size()) + " bytes of data for " +
                  std::to_string(buffer.bytes) + " bytes");
  }
  if (Status s = validateArena(p); !s.isOk())
    return s;
  for (size_t o = 0; o < outputBuffers.size(); ++o)
    if (outputBuffers[o] != 1)
      return fail("output " + std::to_string(o) + " has " +
                  std::to_string(outputBuffers[o]) + " buffers, expected 1");
  for (size_t d = 0; d < p.dispatches.size(); ++d) {
    const Dispatch &dispatch = p.dispatches[d];
    if (dispatch.kernel >= p.kernels.size())
      return fail("dispatch " + std::to_string(d) + " runs kernel " +
                  std::to_string(dispatch.kernel) + " of " +
                  std::to_string(p.kernels.size()));
    const Kernel &kernel = p.kernels[dispatch.kernel];
    if (dispatch.buffers.size() != kernel.numBindings)
      return fail("dispatch " + std::to_string(d) + " of kernel '" +
                  kernel.name + "' binds " +
                  std::to_string(dispatch.buffers.size()) +
                  " buffers; the kernel has " +
                  std::to_string(kernel.numBindings) + " bindings");
    for (uint32_t b : dispatch.buffers)
      if (b >= p.buffers.size())
        return fail("dispatch " + std::to_string(d) + " binds buffer " +
                    std::to_string(b) + " of " +
                    std::to_string(p.buffers.size()));
  }
  for (size_t c = 0; c < p.copies.size(); ++c) {
    const Copy &copy = p.copies[c];
    std::string what = "copy " + std::to_string(c);
    if (copy.source >= p.buffers.size() || copy.target >= p.buffers.size())
      return fail(what + " names a buffer out of range");
    auto inside = [](uint64_t offset, uint64_t bytes, uint64_t size) {
      return offset <= size && bytes <= size - offset;
    };
    if (!inside(copy.sourceOffset, copy.bytes, p.buffers[copy.source].bytes) ||
        !inside(copy.targetOffset, copy.bytes, p.buffers[copy.target].bytes))
      return fail(what + " of " + std::to_string(copy.bytes) +
                  " bytes reaches past the end of its buffers");
    if (copy.source == copy.target && copy.bytes &&
        copy.sourceOffset < copy.targetOffset + copy.bytes &&
        copy.targetOffset < copy.sourceOffset + copy.bytes)
      return fail(what + " copies between overlapping ranges of " +
                  describeBuffer(p, copy.source));
  }
  for (size_t s = 0; s < p.steps.size(); ++s) {
    const Step &step = p.steps[s];
    size_t limit = step.kind == Step::Kind::Dispatch ? p.dispatches.size()
                                                     : p.copies.size();
    if (step.index >= limit)
      return fail("step " + std::to_string(s) + " refers to " +
                  (step.kind == Step::Kind::Dispatch ? "dispatch " : "copy ") +
                  std::to_string(step.index) + " of " + std::to_string(limit));
  }
  return Status::ok();
}

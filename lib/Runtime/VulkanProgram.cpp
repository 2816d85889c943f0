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
  case Buffer::Kind::Size:
    return name + " (size argument)";
  case Buffer::Kind::Temporary:
    return name;
  }
  return name;
}

bool Program::isParameter(size_t b) const {
  if (b >= buffers.size() || buffers[b].kind != Buffer::Kind::Input)
    return false;
  uint32_t index = buffers[b].index;
  return index < signature.inputs.size() && signature.inputs[index].parameter;
}

bool Program::isDynamic() const {
  if (!scalars.empty())
    return true;
  for (const std::vector<TensorSpec> *specs :
       {&signature.inputs, &signature.outputs})
    for (const TensorSpec &spec : *specs)
      for (int64_t dim : spec.shape)
        if (dim == kDynamicDim)
          return true;
  return false;
}

namespace {

/// The value of scalar `s` given the values of the scalars before it.
Result<int64_t>
evaluateScalar(const Scalar &s, const std::vector<int64_t> &v,
               const std::vector<std::vector<int64_t>> &shapes) {
  if (s.op == Scalar::Op::Constant)
    return s.value;
  if (s.op == Scalar::Op::InputDim)
    return shapes[s.operands[0]][s.operands[1]];
  int64_t a = v[s.operands[0]], b = v[s.operands[1]];
  uint64_t ua = uint64_t(a), ub = uint64_t(b);
  int64_t r = 0;
  auto overflow = [] {
    return Status::error("a size computed from the input shapes overflows "
                         "64 bits");
  };
  auto divisionByZero = [] {
    return Status::error("a size computed from the input shapes divides by "
                         "zero");
  };
  bool divides = s.op == Scalar::Op::DivS || s.op == Scalar::Op::RemS ||
                 s.op == Scalar::Op::FloorDivS ||
                 s.op == Scalar::Op::CeilDivS || s.op == Scalar::Op::DivU ||
                 s.op == Scalar::Op::RemU || s.op == Scalar::Op::CeilDivU;
  if (divides && b == 0)
    return divisionByZero();
  bool signedDivision = s.op == Scalar::Op::DivS || s.op == Scalar::Op::RemS ||
                        s.op == Scalar::Op::FloorDivS ||
                        s.op == Scalar::Op::CeilDivS;
  if (signedDivision && a == INT64_MIN && b == -1)
    return overflow();
  switch (s.op) {
  case Scalar::Op::Constant:
  case Scalar::Op::InputDim:
    return r;
  case Scalar::Op::Add:
    if (__builtin_add_overflow(a, b, &r))
      return overflow();
    return r;
  case Scalar::Op::Sub:
    if (__builtin_sub_overflow(a, b, &r))
      return overflow();
    return r;
  case Scalar::Op::Mul:
    if (__builtin_mul_overflow(a, b, &r))
      return overflow();
    return r;
  case Scalar::Op::DivS:
    return a / b;
  case Scalar::Op::RemS:
    return a % b;
  case Scalar::Op::FloorDivS:
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
  case Scalar::Op::CeilDivS:
    return a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
  case Scalar::Op::DivU:
    return int64_t(ua / ub);
  case Scalar::Op::RemU:
    return int64_t(ua % ub);
  case Scalar::Op::CeilDivU:
    return int64_t(ua / ub + (ua % ub != 0));
  case Scalar::Op::MinS:
    return std::min(a, b);
  case Scalar::Op::MaxS:
    return std::max(a, b);
  case Scalar::Op::MinU:
    return int64_t(std::min(ua, ub));
  case Scalar::Op::MaxU:
    return int64_t(std::max(ua, ub));
  case Scalar::Op::Eq:
    return a == b;
  case Scalar::Op::Ne:
    return a != b;
  case Scalar::Op::Slt:
    return a < b;
  case Scalar::Op::Sle:
    return a <= b;
  case Scalar::Op::Sgt:
    return a > b;
  case Scalar::Op::Sge:
    return a >= b;
  case Scalar::Op::Ult:
    return ua < ub;
  case Scalar::Op::Ule:
    return ua <= ub;
  case Scalar::Op::Ugt:
    return ua > ub;
  case Scalar::Op::Uge:
    return ua >= ub;
  case Scalar::Op::Select:
    return a != 0 ? b : v[s.operands[2]];
  }
  return r;
}

/// How many operands (earlier scalars) scalar operation `op` reads.
int scalarOperands(Scalar::Op op) {
  switch (op) {
  case Scalar::Op::Constant:
  case Scalar::Op::InputDim:
    return 0;
  case Scalar::Op::Select:
    return 3;
  default:
    return 2;
  }
}

} // namespace

Result<Program>
vk::specializeProgram(const Program &program,
                      const std::vector<std::vector<int64_t>> &inputShapes,
                      bool reuseTemporaries) {
  if (!program.isDynamic())
    return program;
  if (Status s = validateProgram(program); !s.isOk())
    return s;
  const FunctionSignature &sig = program.signature;
  if (inputShapes.size() != sig.inputs.size())
    return Status::error("expected " + std::to_string(sig.inputs.size()) +
                         " input shapes, got " +
                         std::to_string(inputShapes.size()));
  for (size_t i = 0; i < inputShapes.size(); ++i) {
    if (!sig.inputs[i].admitsShape(inputShapes[i]))
      return Status::error("input " + std::to_string(i) + " expects " +
                           sig.inputs[i].str() + ", got a shape of rank " +
                           std::to_string(inputShapes[i].size()) +
                           " or other static sizes");
    for (int64_t dim : inputShapes[i])
      if (dim < 0)
        return Status::error("input " + std::to_string(i) +
                             " has a negative dimension");
  }
  std::vector<int64_t> values;
  values.reserve(program.scalars.size());
  for (const Scalar &scalar : program.scalars) {
    Result<int64_t> value = evaluateScalar(scalar, values, inputShapes);
    if (!value.isOk())
      return value.status();
    values.push_back(value.value());
  }
  for (const ShapeCheck &check : program.checks)
    if (values[check.scalar] == 0)
      return Status::error(check.message);

  Program out = program;
  out.scalars.clear();
  out.checks.clear();
  out.outputDims.clear();
  for (size_t i = 0; i < inputShapes.size(); ++i)
    out.signature.inputs[i].shape = inputShapes[i];
  for (size_t o = 0; o < out.signature.outputs.size(); ++o) {
    std::vector<int64_t> &shape = out.signature.outputs[o].shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] != kDynamicDim)
        continue;
      int64_t size = values[program.outputDims[o][d]];
      if (size < 0)
        return Status::error("output " + std::to_string(o) + " dimension " +
                             std::to_string(d) + " comes out negative (" +
                             std::to_string(size) + ")");
      shape[d] = size;
    }
  }
  for (size_t b = 0; b < out.buffers.size(); ++b) {
    Buffer &buffer = out.buffers[b];
    if (buffer.kind == Buffer::Kind::Size) {
      int64_t value = values[buffer.index];
      if (value < INT32_MIN || value > INT32_MAX)
        return Status::error(describeBuffer(program, b) + " holds " +
                             std::to_string(value) +
                             ", beyond the 32-bit integers kernels use");
      buffer.kind = Buffer::Kind::Constant;
      buffer.index = 0;
      buffer.bytes = 4;
      uint32_t word = uint32_t(int32_t(value));
      buffer.data = {uint8_t(word), uint8_t(word >> 8), uint8_t(word >> 16),
                     uint8_t(word >> 24)};
    }
    if (buffer.bytesScalar != kNoScalar) {
      int64_t bytes = values[buffer.bytesScalar];
      if (bytes < 0)
        return Status::error(describeBuffer(program, b) + " comes out " +
                             std::to_string(bytes) + " bytes long");
      buffer.bytes = std::max<uint64_t>(4, (uint64_t(bytes) + 3) / 4 * 4);
      buffer.bytesScalar = kNoScalar;
    }
  }
  std::vector<bool> dispatchRuns(out.dispatches.size(), true),
      copyRuns(out.copies.size(), true);
  for (size_t d = 0; d < out.dispatches.size(); ++d) {
    Dispatch &dispatch = out.dispatches[d];
    for (int i = 0; i < 3; ++i) {
      uint32_t scalar = dispatch.workgroupScalars[i];
      if (scalar == kNoScalar)
        continue;
      int64_t count = values[scalar];
      if (count < 0 || count > INT64_C(0xffffffff))
        return Status::error("dispatch " + std::to_string(d) + " of kernel '" +
                             out.kernels[dispatch.kernel].name + "' needs " +
                             std::to_string(count) + " workgroups");
      dispatch.workgroups[i] = uint32_t(count);
      dispatch.workgroupScalars[i] = kNoScalar;
    }
    dispatchRuns[d] = dispatch.workgroups[0] && dispatch.workgroups[1] &&
                      dispatch.workgroups[2];
  }
  for (size_t c = 0; c < out.copies.size(); ++c) {
    Copy &copy = out.copies[c];
    if (copy.bytesScalar == kNoScalar)
      continue;
    int64_t bytes = values[copy.bytesScalar];
    if (bytes < 0)
      return Status::error("copy " + std::to_string(c) + " comes out " +
                           std::to_string(bytes) + " bytes long");
    copy.bytes = uint64_t(bytes);
    copy.bytesScalar = kNoScalar;
    copyRuns[c] = copy.bytes != 0;
  }
  std::vector<Step> steps;
  for (const Step &step : out.steps)
    if (step.kind == Step::Kind::Dispatch ? dispatchRuns[step.index]
                                          : copyRuns[step.index])
      steps.push_back(step);
  out.steps = std::move(steps);
  if (reuseTemporaries)
    planTemporaryReuse(out);
  if (Status s = validateProgram(out); !s.isOk())
    return s;
  return out;
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

std::vector<bool> vk::preparedBuffers(const Program &program) {
  std::vector<bool> prepared(program.buffers.size(), false);
  for (const Step &step : program.steps)
    if (step.prepare && step.kind == Step::Kind::Dispatch &&
        step.index < program.dispatches.size())
      for (uint32_t b : program.dispatches[step.index].buffers)
        if (b < prepared.size())
          prepared[b] = true;
  return prepared;
}

std::vector<StepAccess> vk::stepAccesses(const Program &program) {
  std::vector<StepAccess> accesses(program.steps.size());
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    StepAccess &access = accesses[s];
    if (step.kind == Step::Kind::Copy) {
      if (step.index < program.copies.size()) {
        access.reads.push_back(program.copies[step.index].source);
        access.writes.push_back(program.copies[step.index].target);
      }
      continue;
    }
    if (step.index >= program.dispatches.size())
      continue;
    const Dispatch &dispatch = program.dispatches[step.index];
    const Kernel *kernel = dispatch.kernel < program.kernels.size()
                               ? &program.kernels[dispatch.kernel]
                               : nullptr;
    for (size_t i = 0; i < dispatch.buffers.size(); ++i)
      (!kernel || kernel->writes(i) ? access.writes : access.reads)
          .push_back(dispatch.buffers[i]);
  }
  return accesses;
}

bool vk::groupIndependentSteps(Program &program) {
  for (const Buffer &buffer : program.buffers)
    if (buffer.arenaOffset)
      return false;
  std::vector<StepAccess> accesses = stepAccesses(program);
  size_t numSteps = program.steps.size();
  // Per buffer: the level of its last writer, and the highest level of the
  // steps reading it since.
  std::vector<int64_t> written(program.buffers.size(), -1),
      read(program.buffers.size(), -1);
  std::vector<int64_t> level(numSteps, 0);
  for (size_t s = 0; s < numSteps; ++s) {
    int64_t after = -1;
    for (uint32_t b : accesses[s].reads)
      if (b < written.size())
        after = std::max(after, written[b]);
    for (uint32_t b : accesses[s].writes)
      if (b < written.size())
        after = std::max({after, written[b], read[b]});
    level[s] = after + 1;
    for (uint32_t b : accesses[s].reads)
      if (b < read.size())
        read[b] = std::max(read[b], level[s]);
    for (uint32_t b : accesses[s].writes)
      if (b < written.size()) {
        // Readers before this write are ordered before it; later readers
        // order after it.
        written[b] = level[s];
        read[b] = -1;
      }
  }
  std::vector<size_t> order(numSteps);
  for (size_t s = 0; s < numSteps; ++s)
    order[s] = s;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return level[a] < level[b]; });
  bool changed = false;
  std::vector<Step> steps;
  steps.reserve(numSteps);
  for (size_t i = 0; i < numSteps; ++i) {
    changed |= order[i] != i;
    steps.push_back(program.steps[order[i]]);
  }
  program.steps = std::move(steps);
  return changed;
}

std::vector<bool> vk::stepBarriers(const Program &program) {
  std::vector<StepAccess> accesses = stepAccesses(program);
  // Whether buffers a and b may share memory: the same buffer, or arena
  // temporaries with overlapping bytes.
  auto overlap = [&](uint32_t a, uint32_t b) {
    if (a == b)
      return true;
    if (a >= program.buffers.size() || b >= program.buffers.size())
      return false;
    const Buffer &x = program.buffers[a], &y = program.buffers[b];
    if (!x.arenaOffset || !y.arenaOffset)
      return false;
    uint64_t xEnd = *x.arenaOffset + std::max<uint64_t>(x.bytes, 1),
             yEnd = *y.arenaOffset + std::max<uint64_t>(y.bytes, 1);
    return *x.arenaOffset < yEnd && *y.arenaOffset < xEnd;
  };
  auto meets = [&](const std::vector<uint32_t> &these,
                   const std::vector<uint32_t> &those) {
    for (uint32_t a : these)
      for (uint32_t b : those)
        if (overlap(a, b))
          return true;
    return false;
  };
  std::vector<bool> barriers(program.steps.size(), false);
  // What the steps since the last barrier read and wrote.
  std::vector<uint32_t> reads, writes;
  for (size_t s = 0; s < program.steps.size(); ++s) {
    if (program.steps[s].prepare)
      continue;
    const StepAccess &access = accesses[s];
    if (meets(access.reads, writes) || meets(access.writes, writes) ||
        meets(access.writes, reads)) {
      barriers[s] = true;
      reads.clear();
      writes.clear();
    }
    reads.insert(reads.end(), access.reads.begin(), access.reads.end());
    writes.insert(writes.end(), access.writes.begin(), access.writes.end());
  }
  return barriers;
}

ReusePlan vk::planTemporaryReuse(Program &program) {
  std::vector<std::optional<LiveRange>> ranges = bufferLiveRanges(program);
  // What prepare steps write must outlive the run: memory of its own.
  std::vector<bool> prepared = preparedBuffers(program);
  std::vector<size_t> order;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    program.buffers[b].arenaOffset.reset();
    if (program.buffers[b].kind == Buffer::Kind::Temporary && ranges[b] &&
        !prepared[b])
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

namespace {
/// Whether `spec` has no dynamic dimension.
bool isStatic(const TensorSpec &spec) {
  return std::find(spec.shape.begin(), spec.shape.end(), kDynamicDim) ==
         spec.shape.end();
}

/// The dynamic-dimension part of validateProgram.
Status validateScalars(const Program &p) {
  auto fail = [](const std::string &message) {
    return Status::error("invalid Vulkan program: " + message);
  };
  const std::vector<TensorSpec> &inputs = p.signature.inputs;
  for (size_t i = 0; i < p.scalars.size(); ++i) {
    const Scalar &scalar = p.scalars[i];
    std::string what = "scalar " + std::to_string(i);
    if (scalar.op > Scalar::Op::Select)
      return fail(what + " has an unknown operation");
    if (scalar.op == Scalar::Op::InputDim) {
      uint32_t input = scalar.operands[0], dim = scalar.operands[1];
      if (input >= inputs.size() || dim >= inputs[input].shape.size())
        return fail(what + " reads dimension " + std::to_string(dim) +
                    " of input " + std::to_string(input) +
                    ", which does not exist");
      continue;
    }
    for (int k = 0; k < scalarOperands(scalar.op); ++k)
      if (scalar.operands[k] >= i)
        return fail(what + " uses scalar " +
                    std::to_string(scalar.operands[k]) +
                    ", which does not come before it");
  }
  auto known = [&](uint32_t scalar) {
    return scalar == kNoScalar || scalar < p.scalars.size();
  };
  for (size_t c = 0; c < p.checks.size(); ++c)
    if (p.checks[c].scalar >= p.scalars.size())
      return fail("shape check " + std::to_string(c) +
                  " names a scalar out of range");
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const Buffer &buffer = p.buffers[b];
    if (!known(buffer.bytesScalar) ||
        (buffer.kind == Buffer::Kind::Size && buffer.index >= p.scalars.size()))
      return fail(describeBuffer(p, b) + " names a scalar out of range");
    if (buffer.bytesScalar != kNoScalar && buffer.arenaOffset)
      return fail(describeBuffer(p, b) +
                  " has a dynamic size and an arena offset");
    if (buffer.bytesScalar != kNoScalar &&
        (buffer.kind == Buffer::Kind::Constant ||
         buffer.kind == Buffer::Kind::Size))
      return fail(describeBuffer(p, b) + " cannot have a dynamic size");
  }
  for (size_t d = 0; d < p.dispatches.size(); ++d)
    for (uint32_t scalar : p.dispatches[d].workgroupScalars)
      if (!known(scalar))
        return fail("dispatch " + std::to_string(d) +
                    " names a scalar out of range");
  for (size_t c = 0; c < p.copies.size(); ++c) {
    const Copy &copy = p.copies[c];
    if (!known(copy.bytesScalar))
      return fail("copy " + std::to_string(c) + " names a scalar out of range");
    if (copy.bytesScalar != kNoScalar &&
        (copy.sourceOffset || copy.targetOffset))
      return fail("copy " + std::to_string(c) +
                  " has a dynamic size and an offset");
  }
  const std::vector<TensorSpec> &outputs = p.signature.outputs;
  if (!p.outputDims.empty() && p.outputDims.size() != outputs.size())
    return fail("sizes are given for " + std::to_string(p.outputDims.size()) +
                " outputs of " + std::to_string(outputs.size()));
  for (size_t o = 0; o < outputs.size(); ++o)
    for (size_t d = 0; d < outputs[o].shape.size(); ++d) {
      bool dynamic = outputs[o].shape[d] == kDynamicDim;
      uint32_t scalar = kNoScalar;
      if (!p.outputDims.empty()) {
        if (p.outputDims[o].size() != outputs[o].shape.size())
          return fail("output " + std::to_string(o) + " has " +
                      std::to_string(outputs[o].shape.size()) +
                      " dimensions but sizes for " +
                      std::to_string(p.outputDims[o].size()));
        scalar = p.outputDims[o][d];
      }
      if (dynamic ? scalar >= p.scalars.size() : scalar != kNoScalar)
        return fail("output " + std::to_string(o) + " dimension " +
                    std::to_string(d) +
                    (dynamic ? " is dynamic without a scalar for its size"
                             : " is static but has a scalar for its size"));
    }
  if (p.isDynamic() && p.arenaBytes)
    return fail("a program with dynamic sizes has a temporary arena");
  return Status::ok();
}
} // namespace

Status vk::validateProgram(const Program &p) {
  auto fail = [](const std::string &message) {
    return Status::error("invalid Vulkan program: " + message);
  };
  if (Status s = validateScalars(p); !s.isOk())
    return s;
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const Kernel &kernel = p.kernels[k];
    if (kernel.spirv.size() < 5 || kernel.spirv[0] != kSPIRVMagic)
      return fail("kernel '" + kernel.name + "' is not SPIR-V");
    if (!hasComputeEntryPoint(kernel.spirv, kernel.entryPoint))
      return fail("kernel '" + kernel.name +
                  "' has no compute entry point named '" + kernel.entryPoint +
                  "'");
    if (!kernel.writtenBindings.empty() &&
        kernel.writtenBindings.size() != kernel.numBindings)
      return fail("kernel '" + kernel.name + "' has " +
                  std::to_string(kernel.writtenBindings.size()) +
                  " write flags for its " + std::to_string(kernel.numBindings) +
                  " bindings");
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
    const TensorSpec *spec = buffer.kind == Buffer::Kind::Input
                                 ? &p.signature.inputs[buffer.index]
                             : buffer.kind == Buffer::Kind::Output
                                 ? &p.signature.outputs[buffer.index]
                                 : nullptr;
    // A dynamic tensor's size is known after specialization, which checks
    // the specialized program again.
    if (spec && isStatic(*spec)) {
      // Runs copy min(tensor, buffer) bytes, so a short buffer would not
      // crash the host, but kernels would read and write past its end.
      std::optional<size_t> needed = checkedByteSize(spec->dtype, spec->shape);
      if (!needed || *needed > buffer.bytes)
        return fail(describeBuffer(p, b) + " has " +
                    std::to_string(buffer.bytes) + " bytes, too few for " +
                    spec->str());
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
    if (copy.bytesScalar == kNoScalar &&
        (!inside(copy.sourceOffset, copy.bytes, p.buffers[copy.source].bytes) ||
         !inside(copy.targetOffset, copy.bytes, p.buffers[copy.target].bytes)))
      return fail(what + " of " + std::to_string(copy.bytes) +
                  " bytes reaches past the end of its buffers");
    if (copy.source == copy.target &&
        (copy.bytes || copy.bytesScalar != kNoScalar) &&
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
    if (!step.prepare)
      continue;
    // A prepare step runs once per binding of the parameters: it may see
    // nothing a run changes.
    std::string what = "prepare step " + std::to_string(s);
    if (step.kind != Step::Kind::Dispatch)
      return fail(what + " is not a dispatch");
    const Dispatch &dispatch = p.dispatches[step.index];
    for (uint32_t w : dispatch.workgroupScalars)
      if (w != kNoScalar)
        return fail(what + " has a dynamic grid");
    for (uint32_t b : dispatch.buffers) {
      const Buffer &buffer = p.buffers[b];
      bool ok = buffer.kind == Buffer::Kind::Constant ||
                buffer.kind == Buffer::Kind::Size ||
                (buffer.kind == Buffer::Kind::Temporary &&
                 !buffer.arenaOffset && buffer.bytesScalar == kNoScalar) ||
                p.isParameter(b);
      if (!ok)
        return fail(what + " binds " + describeBuffer(p, b) +
                    ", which a run may change");
    }
  }
  return Status::ok();
}

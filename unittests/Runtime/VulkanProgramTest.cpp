//===- VulkanProgramTest.cpp - live ranges and the temporary arena --------===//
//
// planTemporaryReuse on hand-made schedules (exact offsets) and on random
// ones, checked against a brute-force reading of the schedule rather than
// against bufferLiveRanges; validateProgram's arena checks.
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/VulkanProgram.h"

#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

using namespace fx::rt;
using namespace fx::rt::vk;
using namespace fx::rt::testing;

namespace {

/// A program over `buffers` whose kernels have 1 to 4 bindings.
Program programWith(std::vector<Buffer> buffers) {
  Program program;
  program.signature.inputs = {{"x", DType::F32, {4}, false}};
  program.signature.outputs = {{"y", DType::F32, {4}, false}};
  for (uint32_t n = 1; n <= 4; ++n) {
    std::string entry = "k" + std::to_string(n);
    program.kernels.push_back(
        {entry, entry, fakeSPIRV(entry), n, {64, 1, 1}, ""});
  }
  program.buffers = std::move(buffers);
  return program;
}

Buffer temporary(uint64_t bytes) {
  Buffer buffer;
  buffer.bytes = bytes;
  return buffer;
}

Buffer io(Buffer::Kind kind) {
  Buffer buffer;
  buffer.kind = kind;
  buffer.bytes = 16;
  return buffer;
}

void dispatch(Program &program, std::vector<uint32_t> buffers) {
  program.dispatches.push_back(
      {uint32_t(buffers.size() - 1), {1, 1, 1}, std::move(buffers)});
  program.steps.push_back(
      {Step::Kind::Dispatch, uint32_t(program.dispatches.size() - 1)});
}

void copy(Program &program, uint32_t source, uint32_t target, uint64_t bytes) {
  program.copies.push_back({source, target, 0, 0, bytes});
  program.steps.push_back(
      {Step::Kind::Copy, uint32_t(program.copies.size() - 1)});
}

/// The steps using each buffer, read straight from the schedule.
std::vector<std::set<size_t>> usesOf(const Program &program) {
  std::vector<std::set<size_t>> uses(program.buffers.size());
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    if (step.kind == Step::Kind::Dispatch) {
      for (uint32_t b : program.dispatches[step.index].buffers)
        uses[b].insert(s);
    } else {
      uses[program.copies[step.index].source].insert(s);
      uses[program.copies[step.index].target].insert(s);
    }
  }
  return uses;
}

TEST(VulkanProgramTest, LiveRangesSpanFirstToLastUse) {
  Program program =
      programWith({io(Buffer::Kind::Input), temporary(64), temporary(64),
                   io(Buffer::Kind::Output), temporary(8)});
  dispatch(program, {0, 1});
  copy(program, 1, 2, 64);
  dispatch(program, {0});
  dispatch(program, {2, 3});
  std::vector<std::optional<LiveRange>> ranges = bufferLiveRanges(program);
  ASSERT_EQ(ranges.size(), 5u);
  EXPECT_EQ(ranges[0]->first, 0u);
  EXPECT_EQ(ranges[0]->last, 2u);
  EXPECT_EQ(ranges[1]->first, 0u);
  EXPECT_EQ(ranges[1]->last, 1u);
  EXPECT_EQ(ranges[2]->first, 1u);
  EXPECT_EQ(ranges[2]->last, 3u);
  EXPECT_EQ(ranges[3]->first, 3u);
  EXPECT_FALSE(ranges[4].has_value());
}

TEST(VulkanProgramTest, ChainNeedsTwoSlots) {
  // x -> t1 -> t2 -> t3 -> t4 -> y: each temporary lives for two steps, so
  // two slots hold all four.
  Program program =
      programWith({io(Buffer::Kind::Input), temporary(1000), temporary(1000),
                   temporary(1000), temporary(1000), io(Buffer::Kind::Output)});
  for (uint32_t b = 0; b < 5; ++b)
    dispatch(program, {b, b + 1});
  ReusePlan plan = planTemporaryReuse(program);
  EXPECT_EQ(plan.temporaries, 4u);
  EXPECT_EQ(plan.separateBytes, 4096u);
  EXPECT_EQ(plan.arenaBytes, 2048u);
  EXPECT_EQ(program.arenaBytes, 2048u);
  EXPECT_EQ(program.buffers[1].arenaOffset, 0u);
  EXPECT_EQ(program.buffers[2].arenaOffset, 1024u);
  EXPECT_EQ(program.buffers[3].arenaOffset, 0u);
  EXPECT_EQ(program.buffers[4].arenaOffset, 1024u);
  EXPECT_FALSE(program.buffers[0].arenaOffset.has_value());
  EXPECT_FALSE(program.buffers[5].arenaOffset.has_value());
  EXPECT_TRUE(validateProgram(program).isOk())
      << validateProgram(program).message();
}

TEST(VulkanProgramTest, PrepareStepsKeepTheirBuffersAndSeeOnlyParameters) {
  // w (a parameter) -> t1 in a prepare step; x, t1 -> t2 -> y every run.
  Program program =
      programWith({io(Buffer::Kind::Input), io(Buffer::Kind::Input),
                   temporary(1000), temporary(1000), io(Buffer::Kind::Output)});
  program.signature.inputs.push_back({"w", DType::F32, {4}, true});
  program.buffers[1].index = 1;
  dispatch(program, {1, 2});
  program.steps.back().prepare = true;
  dispatch(program, {0, 2, 3});
  dispatch(program, {3, 4});
  EXPECT_TRUE(program.isParameter(1));
  EXPECT_FALSE(program.isParameter(0));
  EXPECT_FALSE(program.isParameter(2));
  // What the prepare step writes keeps its contents: not in the arena.
  planTemporaryReuse(program);
  EXPECT_FALSE(program.buffers[2].arenaOffset.has_value());
  EXPECT_TRUE(program.buffers[3].arenaOffset.has_value());
  EXPECT_TRUE(validateProgram(program).isOk())
      << validateProgram(program).message();

  Program readsInput = program;
  readsInput.steps[1].prepare = true;
  EXPECT_EQ(
      validateProgram(readsInput).message(),
      "invalid Vulkan program: prepare step 1 binds buffer 0 (input 0 'x'), "
      "which a run may change");
  Program inArena = program;
  inArena.buffers[2].arenaOffset = 1024;
  inArena.arenaBytes = 2048;
  EXPECT_EQ(validateProgram(inArena).message(),
            "invalid Vulkan program: prepare step 0 binds buffer 2, which a "
            "run may change");
  Program dynamicGrid = program;
  for (Buffer &buffer : dynamicGrid.buffers)
    buffer.arenaOffset.reset();
  dynamicGrid.arenaBytes = 0;
  dynamicGrid.scalars.push_back({Scalar::Op::Constant, 1, {0, 0, 0}});
  dynamicGrid.dispatches[0].workgroupScalars[0] = 0;
  EXPECT_EQ(validateProgram(dynamicGrid).message(),
            "invalid Vulkan program: prepare step 0 has a dynamic grid");
  Program aCopy = program;
  copy(aCopy, 3, 4, 16);
  aCopy.steps.back().prepare = true;
  EXPECT_EQ(validateProgram(aCopy).message(),
            "invalid Vulkan program: prepare step 3 is not a dispatch");
}

TEST(VulkanProgramTest, LargestFirstAndUnusedTemporariesStayOut) {
  // t1 (small) and t2 (large) live together; t3 is never used.
  Program program =
      programWith({io(Buffer::Kind::Input), temporary(4), temporary(4096),
                   temporary(4), io(Buffer::Kind::Output)});
  dispatch(program, {0, 1, 2});
  dispatch(program, {1, 2, 4});
  ReusePlan plan = planTemporaryReuse(program);
  EXPECT_EQ(plan.temporaries, 2u);
  EXPECT_EQ(program.buffers[2].arenaOffset, 0u);
  EXPECT_EQ(program.buffers[1].arenaOffset, 4096u);
  EXPECT_FALSE(program.buffers[3].arenaOffset.has_value());
  EXPECT_EQ(plan.arenaBytes, 4096u + kArenaAlignment);
  // Planning again replaces the plan.
  program.buffers[3].arenaOffset = 1u << 20;
  EXPECT_EQ(planTemporaryReuse(program).arenaBytes, plan.arenaBytes);
  EXPECT_FALSE(program.buffers[3].arenaOffset.has_value());
}

/// A random program over an input, an output and 1 to `maxTemporaries`
/// temporaries of up to `maxWords` words: 1 to `maxSteps` steps, a fifth of
/// them copies, the rest dispatches binding 1 to 4 random buffers.
Program randomProgram(std::mt19937 &random, size_t maxTemporaries,
                      uint64_t maxWords, size_t maxSteps) {
  size_t temporaries = 1 + random() % maxTemporaries;
  std::vector<Buffer> buffers = {io(Buffer::Kind::Input),
                                 io(Buffer::Kind::Output)};
  for (size_t t = 0; t < temporaries; ++t)
    buffers.push_back(temporary(4 * (1 + random() % maxWords)));
  Program program = programWith(buffers);
  size_t steps = 1 + random() % maxSteps;
  for (size_t s = 0; s < steps; ++s) {
    auto pick = [&] { return uint32_t(random() % program.buffers.size()); };
    if (random() % 5 == 0) {
      uint32_t a = pick(), b = pick();
      if (a != b)
        copy(program, a, b,
             std::min(program.buffers[a].bytes, program.buffers[b].bytes));
      continue;
    }
    std::vector<uint32_t> bound(1 + random() % 4);
    for (uint32_t &b : bound)
      b = pick();
    dispatch(program, bound);
  }
  return program;
}

TEST(VulkanProgramTest, RandomSchedulesNeverShareLiveBytes) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    Program program = randomProgram(random, 24, 2000, 40);
    ReusePlan plan = planTemporaryReuse(program);
    ASSERT_TRUE(validateProgram(program).isOk())
        << validateProgram(program).message();
    EXPECT_LE(plan.arenaBytes, plan.separateBytes);
    std::vector<std::set<size_t>> uses = usesOf(program);
    for (size_t a = 0; a < program.buffers.size(); ++a) {
      const Buffer &ba = program.buffers[a];
      bool planned = ba.kind == Buffer::Kind::Temporary && !uses[a].empty();
      ASSERT_EQ(ba.arenaOffset.has_value(), planned) << "buffer " << a;
      if (!planned)
        continue;
      EXPECT_EQ(*ba.arenaOffset % kArenaAlignment, 0u);
      EXPECT_LE(*ba.arenaOffset + ba.bytes, program.arenaBytes);
      for (size_t b = a + 1; b < program.buffers.size(); ++b) {
        const Buffer &bb = program.buffers[b];
        if (!bb.arenaOffset)
          continue;
        bool live = *uses[a].begin() <= *uses[b].rbegin() &&
                    *uses[b].begin() <= *uses[a].rbegin();
        bool shared = *ba.arenaOffset < *bb.arenaOffset + bb.bytes &&
                      *bb.arenaOffset < *ba.arenaOffset + ba.bytes;
        EXPECT_FALSE(live && shared)
            << "trial " << trial << ": buffers " << a << " and " << b;
      }
    }
  }
}

TEST(VulkanProgramTest, ValidationRejectsSharingWhileLive) {
  Program program = programWith({io(Buffer::Kind::Input), temporary(64),
                                 temporary(64), io(Buffer::Kind::Output)});
  dispatch(program, {0, 1});
  dispatch(program, {1, 2});
  dispatch(program, {2, 3});
  planTemporaryReuse(program);
  ASSERT_TRUE(validateProgram(program).isOk());
  program.buffers[2].arenaOffset = 0;
  EXPECT_EQ(validateProgram(program).message(),
            "invalid Vulkan program: buffer 1 and buffer 2 share arena bytes "
            "while both are live (steps 1 to 1)");
  // Bytes shared by buffers never live together are fine.
  Program apart = programWith(program.buffers);
  dispatch(apart, {0, 1});
  dispatch(apart, {0, 3});
  dispatch(apart, {2, 3});
  apart.arenaBytes = program.arenaBytes;
  EXPECT_TRUE(validateProgram(apart).isOk())
      << validateProgram(apart).message();
}

TEST(VulkanProgramTest, ValidationRejectsMisplacedArenaBuffers) {
  Program program = programWith(
      {io(Buffer::Kind::Input), temporary(64), io(Buffer::Kind::Output)});
  dispatch(program, {0, 1, 2});
  planTemporaryReuse(program);
  ASSERT_TRUE(validateProgram(program).isOk());
  Program input = program;
  input.buffers[0].arenaOffset = 0;
  EXPECT_EQ(validateProgram(input).message(),
            "invalid Vulkan program: buffer 0 (input 0 'x') is in the "
            "temporary arena but is not a temporary");
  Program past = program;
  past.buffers[1].arenaOffset = 256;
  EXPECT_EQ(validateProgram(past).message(),
            "invalid Vulkan program: buffer 1 (64 bytes at arena offset 256) "
            "reaches past the arena's 256 bytes");
}

TEST(VulkanProgramTest, SpecializesDynamicSizes) {
  Program dynamic = dynamicProgram();
  ASSERT_TRUE(dynamic.isDynamic());
  ASSERT_TRUE(validateProgram(dynamic).isOk())
      << validateProgram(dynamic).message();
  Result<Program> five = specializeProgram(dynamic, {{5, 4}});
  ASSERT_TRUE(five.isOk()) << five.message();
  const Program &p = five.value();
  EXPECT_FALSE(p.isDynamic());
  EXPECT_EQ(p.signature.inputs[0].str(), "f32[5, 4]");
  EXPECT_EQ(p.signature.outputs[0].str(), "f32[5, 4]");
  for (int b : {0, 1, 2}) {
    EXPECT_EQ(p.buffers[b].bytes, 80u);
    EXPECT_EQ(p.buffers[b].bytesScalar, kNoScalar);
  }
  // The size argument: 20 as a little-endian 32-bit integer.
  EXPECT_EQ(p.buffers[3].kind, Buffer::Kind::Constant);
  EXPECT_EQ(p.buffers[3].data, (std::vector<uint8_t>{20, 0, 0, 0}));
  EXPECT_EQ(p.dispatches[0].workgroups, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(p.copies[0].bytes, 80u);
  EXPECT_EQ(p.steps.size(), 2u);
  // The temporary went into an arena planned for these sizes.
  EXPECT_EQ(p.buffers[1].arenaOffset, 0u);
  EXPECT_EQ(p.arenaBytes, 256u);
  EXPECT_TRUE(validateProgram(p).isOk());

  Result<Program> big = specializeProgram(dynamic, {{1000, 4}}, false);
  ASSERT_TRUE(big.isOk()) << big.message();
  EXPECT_EQ(big.value().dispatches[0].workgroups[0], 16u);
  EXPECT_EQ(big.value().buffers[1].arenaOffset, std::nullopt);

  // An empty batch: the dispatch and the copy are dropped, buffers keep
  // their minimum of 4 bytes.
  Result<Program> empty = specializeProgram(dynamic, {{0, 4}});
  ASSERT_TRUE(empty.isOk()) << empty.message();
  EXPECT_TRUE(empty.value().steps.empty());
  EXPECT_EQ(empty.value().buffers[0].bytes, 4u);
  EXPECT_EQ(empty.value().signature.outputs[0].str(), "f32[0, 4]");
}

TEST(VulkanProgramTest, SpecializationErrors) {
  Program dynamic = dynamicProgram();
  EXPECT_EQ(specializeProgram(dynamic, {{3, 4}}).message(),
            "three rows are not allowed");
  EXPECT_EQ(specializeProgram(dynamic, {{5, 3}}).message(),
            "input 0 expects f32[?, 4], got a shape of rank 2 or other "
            "static sizes");
  EXPECT_EQ(specializeProgram(dynamic, {}).message(),
            "expected 1 input shapes, got 0");
  EXPECT_EQ(specializeProgram(dynamic, {{INT64_C(1) << 62, 4}}).message(),
            "a size computed from the input shapes overflows 64 bits");
  // 2^29 rows: 2^31 elements do not fit the kernels' 32-bit size argument.
  EXPECT_EQ(specializeProgram(dynamic, {{INT64_C(1) << 29, 4}}).message(),
            "buffer 3 (size argument) holds 2147483648, beyond the 32-bit "
            "integers kernels use");
  Program divide = dynamic;
  divide.scalars[5].value = 0; // the 256 of the grid
  EXPECT_EQ(specializeProgram(divide, {{5, 4}}).message(),
            "a size computed from the input shapes divides by zero");
  // A static program is its own specialization.
  Program fixed = programWith(
      {io(Buffer::Kind::Input), temporary(64), io(Buffer::Kind::Output)});
  dispatch(fixed, {0, 1, 2});
  ASSERT_FALSE(fixed.isDynamic());
  Result<Program> same = specializeProgram(fixed, {{4}});
  ASSERT_TRUE(same.isOk());
  EXPECT_EQ(same.value().buffers[1].arenaOffset, std::nullopt);
}

TEST(VulkanProgramTest, ScalarArithmetic) {
  // Each scalar reaches a kernel through a size argument, whose bytes
  // show its value.
  using Op = Scalar::Op;
  Program p;
  p.signature.inputs = {{"x", DType::F32, {kDynamicDim}, false}};
  auto add = [&](Op op, std::array<uint32_t, 3> operands, int64_t value = 0) {
    p.scalars.push_back({op, value, operands});
    return uint32_t(p.scalars.size() - 1);
  };
  uint32_t x = add(Op::InputDim, {0, 0}); // 7
  uint32_t minus7 = add(Op::Sub, {add(Op::Constant, {}, 0), x});
  uint32_t two = add(Op::Constant, {}, 2);
  std::vector<std::pair<uint32_t, int32_t>> expected = {
      {add(Op::DivS, {minus7, two}), -3},
      {add(Op::RemS, {minus7, two}), -1},
      {add(Op::FloorDivS, {minus7, two}), -4},
      {add(Op::CeilDivS, {minus7, two}), -3},
      {add(Op::CeilDivS, {x, two}), 4},
      {add(Op::DivU, {x, two}), 3},
      {add(Op::RemU, {x, two}), 1},
      {add(Op::CeilDivU, {x, two}), 4},
      {add(Op::MinS, {minus7, two}), -7},
      {add(Op::MaxS, {minus7, two}), 2},
      // Unsigned: -7 is 2^64 - 7.
      {add(Op::MinU, {minus7, two}), 2},
      {add(Op::Ult, {minus7, two}), 0},
      {add(Op::Slt, {minus7, two}), 1},
      {add(Op::Sge, {x, x}), 1},
      {add(Op::Select, {add(Op::Eq, {x, two}), two, minus7}), -7}};
  p.kernels = {
      {"k", "k", fakeSPIRV("k"), uint32_t(expected.size()), {1, 1, 1}, ""}};
  Dispatch d;
  for (auto [scalar, value] : expected) {
    p.buffers.push_back({Buffer::Kind::Size, scalar, 4, {}, std::nullopt});
    d.buffers.push_back(uint32_t(p.buffers.size() - 1));
  }
  p.dispatches = {d};
  p.steps = {{Step::Kind::Dispatch, 0}};
  Result<Program> s = specializeProgram(p, {{7}});
  ASSERT_TRUE(s.isOk()) << s.message();
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::vector<uint8_t> &data = s.value().buffers[i].data;
    ASSERT_EQ(data.size(), 4u);
    int32_t value = int32_t(uint32_t(data[0]) | uint32_t(data[1]) << 8 |
                            uint32_t(data[2]) << 16 | uint32_t(data[3]) << 24);
    EXPECT_EQ(value, expected[i].second) << "scalar " << expected[i].first;
  }
}

TEST(VulkanProgramTest, ValidationOfDynamicParts) {
  Program later = dynamicProgram();
  later.scalars[2].operands = {5, 0, 0};
  EXPECT_EQ(validateProgram(later).message(),
            "invalid Vulkan program: scalar 2 uses scalar 5, which does not "
            "come before it");
  Program dim = dynamicProgram();
  dim.scalars[0].operands = {0, 2, 0};
  EXPECT_EQ(validateProgram(dim).message(),
            "invalid Vulkan program: scalar 0 reads dimension 2 of input 0, "
            "which does not exist");
  Program unsized = dynamicProgram();
  unsized.outputDims.clear();
  EXPECT_EQ(validateProgram(unsized).message(),
            "invalid Vulkan program: output 0 dimension 0 is dynamic without "
            "a scalar for its size");
  Program arena = dynamicProgram();
  arena.buffers[1].arenaOffset = 0;
  EXPECT_EQ(validateProgram(arena).message(),
            "invalid Vulkan program: buffer 1 has a dynamic size and an arena "
            "offset");
  Program check = dynamicProgram();
  check.checks[0].scalar = 99;
  EXPECT_EQ(validateProgram(check).message(),
            "invalid Vulkan program: shape check 0 names a scalar out of "
            "range");
  Program grid = dynamicProgram();
  grid.dispatches[0].workgroupScalars[1] = 99;
  EXPECT_EQ(validateProgram(grid).message(),
            "invalid Vulkan program: dispatch 0 names a scalar out of range");
}

} // namespace

/// Gives programWith's kernels write flags: each writes its last binding
/// and reads the others.
void addWriteFlags(Program &program) {
  for (Kernel &kernel : program.kernels) {
    kernel.writtenBindings.assign(kernel.numBindings, false);
    kernel.writtenBindings.back() = true;
  }
}

Program programWithWrites(std::vector<Buffer> buffers) {
  Program program = programWith(std::move(buffers));
  addWriteFlags(program);
  return program;
}

/// A step's identity across reorderings.
std::pair<Step::Kind, uint32_t> idOf(const Step &step) {
  return {step.kind, step.index};
}

TEST(VulkanProgramTest, IndependentStepsGroupAndShareABarrier) {
  // A residual block: t1 = k(x); t2 = k(t1); t3 = k(x) (the shortcut);
  // y = k(t2, t3). The shortcut moves beside the first step, and only the
  // steps after it wait.
  Program program =
      programWithWrites({io(Buffer::Kind::Input), temporary(64), temporary(64),
                         temporary(64), io(Buffer::Kind::Output)});
  dispatch(program, {0, 1});
  dispatch(program, {1, 2});
  dispatch(program, {0, 3});
  program.dispatches.push_back({2, {1, 1, 1}, {2, 3, 4}});
  program.steps.push_back({Step::Kind::Dispatch, 3});
  EXPECT_TRUE(groupIndependentSteps(program));
  std::vector<uint32_t> order;
  for (const Step &step : program.steps)
    order.push_back(step.index);
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 2, 1, 3}));
  EXPECT_EQ(stepBarriers(program),
            (std::vector<bool>{false, false, true, true}));
  // Grouped already: a second call keeps the order.
  EXPECT_FALSE(groupIndependentSteps(program));
  // Every binding taken as written (no flags): the shortcut and the first
  // step both write x as far as anyone knows, so the shortcut waits (and
  // the step after it, which touches neither x nor t3, joins it).
  for (Kernel &kernel : program.kernels)
    kernel.writtenBindings.clear();
  EXPECT_EQ(stepBarriers(program),
            (std::vector<bool>{false, true, false, true}));
}

TEST(VulkanProgramTest, ArenaNeighboursAndRereadsWait) {
  // Two reads of one buffer need no barrier between them; a write into
  // arena bytes that a step since the last barrier read does.
  Program program =
      programWithWrites({io(Buffer::Kind::Input), temporary(64), temporary(64),
                         io(Buffer::Kind::Output), io(Buffer::Kind::Output)});
  program.signature.outputs.push_back({"z", DType::F32, {4}, false});
  program.buffers[4].index = 1;
  dispatch(program, {0, 1}); // t1 = k(x)
  dispatch(program, {1, 3}); // y = k(t1)
  dispatch(program, {0, 2}); // t2 = k(x), in t1's arena bytes
  dispatch(program, {2, 4}); // z = k(t2)
  planTemporaryReuse(program);
  ASSERT_EQ(program.buffers[1].arenaOffset, program.buffers[2].arenaOffset);
  EXPECT_EQ(stepBarriers(program),
            (std::vector<bool>{false, true, true, true}));
  // With memory of their own, t2's step joins y's.
  program.buffers[1].arenaOffset.reset();
  program.buffers[2].arenaOffset.reset();
  program.arenaBytes = 0;
  EXPECT_EQ(stepBarriers(program),
            (std::vector<bool>{false, true, false, true}));
}

TEST(VulkanProgramTest, ProgramsWithArenasKeepTheirOrder) {
  Program program =
      programWithWrites({io(Buffer::Kind::Input), temporary(64), temporary(64),
                         io(Buffer::Kind::Output)});
  dispatch(program, {0, 1});
  dispatch(program, {1, 3});
  dispatch(program, {0, 2});
  planTemporaryReuse(program);
  EXPECT_FALSE(groupIndependentSteps(program));
  EXPECT_EQ(program.steps[1].index, 1u);
}

TEST(VulkanProgramTest, RandomSchedulesKeepEveryDependenceBehindABarrier) {
  std::mt19937 random(11);
  for (int trial = 0; trial < 300; ++trial) {
    Program program = randomProgram(random, 12, 500, 30);
    addWriteFlags(program);
    // Which steps conflict, read off the original order: by identity.
    std::vector<StepAccess> before = stepAccesses(program);
    auto conflict = [](const StepAccess &a, const StepAccess &b,
                       auto sameMemory) {
      for (uint32_t w : a.writes) {
        for (uint32_t x : b.reads)
          if (sameMemory(w, x))
            return true;
        for (uint32_t x : b.writes)
          if (sameMemory(w, x))
            return true;
      }
      for (uint32_t r : a.reads)
        for (uint32_t x : b.writes)
          if (sameMemory(r, x))
            return true;
      return false;
    };
    auto sameBuffer = [](uint32_t a, uint32_t b) { return a == b; };
    std::vector<std::pair<Step::Kind, uint32_t>> original;
    for (const Step &step : program.steps)
      original.push_back(idOf(step));
    groupIndependentSteps(program);
    ASSERT_EQ(program.steps.size(), original.size());
    std::map<std::pair<Step::Kind, uint32_t>, size_t> position;
    for (size_t s = 0; s < program.steps.size(); ++s)
      position[idOf(program.steps[s])] = s;
    ASSERT_EQ(position.size(), original.size()) << "trial " << trial;
    for (size_t i = 0; i < original.size(); ++i)
      for (size_t j = i + 1; j < original.size(); ++j)
        if (conflict(before[i], before[j], sameBuffer))
          EXPECT_LT(position[original[i]], position[original[j]])
              << "trial " << trial << ": steps " << i << " and " << j;
    planTemporaryReuse(program);
    ASSERT_TRUE(validateProgram(program).isOk())
        << validateProgram(program).message();
    // Every pair of conflicting steps, by memory (arena bytes included), has
    // a barrier after the first and at or before the second.
    auto sameMemory = [&](uint32_t a, uint32_t b) {
      const Buffer &x = program.buffers[a], &y = program.buffers[b];
      if (a == b)
        return true;
      return x.arenaOffset && y.arenaOffset &&
             *x.arenaOffset < *y.arenaOffset + std::max<uint64_t>(y.bytes, 1) &&
             *y.arenaOffset < *x.arenaOffset + std::max<uint64_t>(x.bytes, 1);
    };
    std::vector<StepAccess> after = stepAccesses(program);
    std::vector<bool> barriers = stepBarriers(program);
    for (size_t i = 0; i < after.size(); ++i)
      for (size_t j = i + 1; j < after.size(); ++j) {
        if (!conflict(after[i], after[j], sameMemory))
          continue;
        bool waited = false;
        for (size_t k = i + 1; k <= j; ++k)
          waited |= barriers[k];
        EXPECT_TRUE(waited)
            << "trial " << trial << ": steps " << i << " and " << j;
      }
  }
}

TEST(VulkanProgramTest, ValidationRejectsWriteFlagsOfOtherCounts) {
  Program program =
      programWithWrites({io(Buffer::Kind::Input), io(Buffer::Kind::Output)});
  dispatch(program, {0, 1});
  ASSERT_TRUE(validateProgram(program).isOk());
  program.kernels[1].writtenBindings = {true};
  EXPECT_EQ(validateProgram(program).message(),
            "invalid Vulkan program: kernel 'k2' has 1 write flags for its "
            "2 bindings");
}

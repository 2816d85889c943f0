//===- VulkanProgram.h - what the Vulkan runtime executes -------*- C++ -*-===//
//
// The compiled form of one FX function for the Vulkan runtime: SPIR-V
// kernels, the buffers the graph uses, and the dispatches in program order.
// The compiler (fx/Compiler/VulkanCompiler.h) produces it; the runtime
// (fx/Runtime/VulkanRuntime.h) loads and runs it. Plain C++: no MLIR, LLVM
// or Vulkan headers.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_VULKANPROGRAM_H
#define FX_RUNTIME_VULKANPROGRAM_H

#include "fx/Runtime/CPUFunction.h"
#include "fx/Runtime/Status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fx::rt::vk {

/// One compute shader: a SPIR-V module with one entry point whose storage
/// buffers are descriptor set 0, bindings 0..numBindings-1.
struct Kernel {
  /// The kernel's name in the compiler's IR (for profiles and errors).
  std::string name;
  std::string entryPoint;
  std::vector<uint32_t> spirv;
  uint32_t numBindings = 0;
  std::array<uint32_t, 3> workgroupSize = {1, 1, 1};
  /// What the kernel computes, for profiles: "op +N fused (file:line)" of
  /// the user's code, after a helper kernel's role ("pack input: ...");
  /// may be empty.
  std::string label;
  /// Per binding: whether the kernel may write the buffer bound there (the
  /// compiler's reading of its stores). Empty: any binding may be written
  /// (artifacts from before 2026-12, hand-made programs).
  std::vector<bool> writtenBindings;

  /// Whether binding `i` may be written.
  bool writes(size_t i) const {
    return writtenBindings.empty() || i >= writtenBindings.size() ||
           writtenBindings[i];
  }
};

/// "No scalar": a size, grid or byte count fixed at compile time.
constexpr uint32_t kNoScalar = UINT32_MAX;

/// One host-side integer of a program compiled with dynamic dimensions: the
/// index arithmetic the compiler leaves on the host (buffer sizes, grid
/// sizes, kernels' size arguments, shape checks), evaluated from the input
/// shapes before a run (specializeProgram). Operands are earlier scalars.
/// Comparisons give 0 or 1; divisions by zero are errors.
struct Scalar {
  enum class Op : uint8_t {
    /// `value`.
    Constant,
    /// Dimension operands[1] of input operands[0].
    InputDim,
    Add,
    Sub,
    Mul,
    /// Signed division rounding toward zero, and its remainder.
    DivS,
    RemS,
    /// Signed division rounding down / up.
    FloorDivS,
    CeilDivS,
    /// Unsigned (64-bit) division, remainder and division rounding up.
    DivU,
    RemU,
    CeilDivU,
    MinS,
    MaxS,
    MinU,
    MaxU,
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
    /// operands[0] ? operands[1] : operands[2].
    Select,
  };
  Op op = Op::Constant;
  int64_t value = 0;
  std::array<uint32_t, 3> operands = {0, 0, 0};
};

/// A condition on the input shapes that the graph asserts (a dynamic
/// dimension of a broadcast that must match another): a run whose inputs
/// make scalar `scalar` zero fails with `message`.
struct ShapeCheck {
  uint32_t scalar = 0;
  std::string message;
};

/// A device buffer of the graph.
struct Buffer {
  enum class Kind : uint8_t {
    /// Input `index` of the signature, uploaded before every run.
    Input,
    /// Output `index` of the signature, downloaded after every run.
    Output,
    /// Device-only scratch memory.
    Temporary,
    /// Constant data (`data`), uploaded once when the program is loaded.
    Constant,
    /// A kernel's size argument in a program with dynamic dimensions: 4
    /// bytes holding scalar `index` as a 32-bit integer. Specialization
    /// turns it into a Constant.
    Size,
  };
  Kind kind = Kind::Temporary;
  /// The signature position for Input and Output buffers; the scalar of a
  /// Size buffer.
  uint32_t index = 0;
  /// Size in bytes (a multiple of 4; at least 4).
  uint64_t bytes = 0;
  /// Contents of a Constant buffer (`bytes` long, zero-padded).
  std::vector<uint8_t> data;
  /// Temporaries only: where the buffer lives in the program's temporary
  /// arena (Program::arenaBytes), a multiple of kArenaAlignment. Temporaries
  /// whose live ranges (bufferLiveRanges) do not overlap may share arena
  /// bytes. Unset: the buffer has memory of its own.
  std::optional<uint64_t> arenaOffset;
  /// With dynamic dimensions: the scalar holding the size in bytes (then
  /// rounded up like `bytes`), which replaces `bytes`.
  uint32_t bytesScalar = kNoScalar;
};

/// One vkCmdDispatch: kernel `kernel` with binding i bound to buffer
/// `buffers[i]` (whole buffer).
struct Dispatch {
  uint32_t kernel = 0;
  std::array<uint32_t, 3> workgroups = {1, 1, 1};
  std::vector<uint32_t> buffers;
  /// With dynamic dimensions: scalars replacing `workgroups` (kNoScalar
  /// where the count is fixed). A count of zero skips the dispatch.
  std::array<uint32_t, 3> workgroupScalars = {kNoScalar, kNoScalar, kNoScalar};
};

/// A copy of `bytes` bytes between two buffers (vkCmdCopyBuffer).
struct Copy {
  uint32_t source = 0, target = 0;
  uint64_t sourceOffset = 0, targetOffset = 0, bytes = 0;
  /// With dynamic dimensions: the scalar replacing `bytes` (offsets are 0).
  uint32_t bytesScalar = kNoScalar;
};

/// One step of the schedule: a dispatch or a copy.
struct Step {
  enum class Kind : uint8_t { Dispatch, Copy };
  Kind kind = Kind::Dispatch;
  /// Index into Program::dispatches or Program::copies.
  uint32_t index = 0;
  /// A computation on the parameters alone (a convolution's filter
  /// repacked): it binds only parameter inputs, constants, sizes and
  /// temporaries that only prepare steps write, and the runtime runs it
  /// once after the parameters are bound (again after any changes) rather
  /// than in every run. The temporaries it binds keep their contents:
  /// never in the arena.
  bool prepare = false;
};

/// A whole graph: run `steps` in order, each seeing the writes of the ones
/// before it.
struct Program {
  FunctionSignature signature;
  std::vector<Kernel> kernels;
  std::vector<Buffer> buffers;
  std::vector<Dispatch> dispatches;
  std::vector<Copy> copies;
  std::vector<Step> steps;
  /// Device features the kernels use, by Vulkan feature name
  /// ("shaderInt64", "shaderFloat64", "shaderInt16", "storageBuffer8BitAccess",
  /// ...): loading fails, naming the feature, on a device without one.
  std::vector<std::string> requiredFeatures;
  /// Size of the arena holding the temporaries with an arenaOffset (0: none
  /// do).
  uint64_t arenaBytes = 0;
  /// Dynamic dimensions (the signature has kDynamicDim): the host-side
  /// integers, the shape checks, and per output and dimension the scalar
  /// giving its size (kNoScalar for static dimensions; empty for a program
  /// without dynamic outputs).
  std::vector<Scalar> scalars;
  std::vector<ShapeCheck> checks;
  std::vector<std::vector<uint32_t>> outputDims;

  /// Whether the program has sizes that depend on its input shapes: the
  /// runtime specializes it per input shape before loading.
  bool isDynamic() const;
  /// Whether buffer `b` is an input that is a model parameter (bound once,
  /// resident between runs).
  bool isParameter(size_t b) const;
};

/// The static program that `program` is for inputs of shapes
/// `inputShapes`: scalars evaluated (errors for failed shape checks,
/// overflow, division by zero, sizes out of range), sizes filled in, Size
/// buffers made constants, zero-workgroup dispatches and empty copies
/// dropped, the signature's dynamic dimensions replaced, and the
/// temporaries planned into one arena when `reuseTemporaries`. The shapes
/// must be admitted by the signature (checked). A static program is
/// returned unchanged.
Result<Program>
specializeProgram(const Program &program,
                  const std::vector<std::vector<int64_t>> &inputShapes,
                  bool reuseTemporaries = true);

/// Arena offsets are multiples of this: Vulkan's largest allowed
/// minStorageBufferOffsetAlignment. A device needing more for its buffers
/// gets memory of their own for the temporaries instead.
constexpr uint64_t kArenaAlignment = 256;

/// The steps that use a buffer, first to last (inclusive).
struct LiveRange {
  uint32_t first = 0, last = 0;
  bool overlaps(const LiveRange &other) const {
    return first <= other.last && other.first <= last;
  }
};

/// Per buffer of `program`: the steps binding or copying it, or nullopt for
/// a buffer no step uses. Steps naming missing dispatches, copies or buffers
/// are skipped (validateProgram rejects those).
std::vector<std::optional<LiveRange>> bufferLiveRanges(const Program &program);

/// What planTemporaryReuse did.
struct ReusePlan {
  /// Temporaries placed in the arena.
  size_t temporaries = 0;
  /// Their total size, each rounded up to kArenaAlignment: the memory they
  /// would take with memory of their own.
  uint64_t separateBytes = 0;
  /// The arena's size (Program::arenaBytes).
  uint64_t arenaBytes = 0;
};

/// Places every temporary some step uses (but prepare steps) into one arena,
/// reusing memory between temporaries whose live ranges do not overlap;
/// replaces any earlier plan. Sound because a temporary's contents never
/// outlive a run and the runtime puts a global memory barrier between steps
/// that touch overlapping arena bytes (stepBarriers): the steps of one live
/// range end before the next range's first step writes. Greedy by size: largest
/// first, each at the lowest aligned offset free of the live temporaries placed
/// before it (as TFLite's and IREE's static planners do; optimal placement is
/// NP-hard).
ReusePlan planTemporaryReuse(Program &program);

/// Per buffer: whether a prepare step binds it (Step::prepare); such
/// temporaries keep their contents from one run to the next.
std::vector<bool> preparedBuffers(const Program &program);

/// The buffers one step reads and may write (a dispatch's bindings by its
/// kernel's Kernel::writtenBindings; a copy's source and target).
struct StepAccess {
  std::vector<uint32_t> reads, writes;
};
/// Per step of `program` (steps naming missing dispatches or copies get
/// none; validateProgram rejects those).
std::vector<StepAccess> stepAccesses(const Program &program);

/// Reorders `program.steps` so that steps independent of each other come
/// next to each other: each step gets the level one above the highest of
/// the steps it depends on (it reads what they write, or writes what they
/// read or write), and the steps are sorted by level, in program order
/// within one. That is a schedule with the same results, whose runs of
/// independent steps stepBarriers lets the device overlap (a ResNet's
/// downsampling convolution beside the first convolution of its block).
/// Does nothing to a program whose temporaries are planned into the arena
/// already (reorder first: planning reads the order). Returns whether the
/// order changed.
bool groupIndependentSteps(Program &program);

/// Per step of `program`: whether it must wait for the steps before it (a
/// memory barrier before it), because it reads what a step since the last
/// barrier may have written, or writes what one read or wrote. Temporaries
/// whose arena bytes overlap count as the same memory. Prepare steps, which
/// run apart (Executable::runPrepareSteps), get false and are left out of
/// the reckoning.
std::vector<bool> stepBarriers(const Program &program);

/// The SPIR-V magic number, the first word of every module.
constexpr uint32_t kSPIRVMagic = 0x07230203u;

/// Checks `program`'s internal consistency without a device: every kernel is
/// SPIR-V with a compute entry point of its name, Input and Output buffers
/// name positions of the signature (each output exactly one buffer) and
/// hold their tensors, constant data fits its buffer, dispatches name existing
/// kernels and bind as many existing buffers as the kernel has bindings, copies
/// stay inside their buffers and do not overlap themselves, steps name
/// existing dispatches and copies, and arena temporaries are aligned, inside
/// the arena and never share bytes while both are live, and, with dynamic
/// dimensions, that scalars use earlier scalars and existing input
/// dimensions and that every dynamic size has a scalar. Errors start with
/// "invalid Vulkan program:
/// ". Executable::load and the artifact reader both run it, so a compiler bug
/// or a damaged file is an error message instead of a device fault.
Status validateProgram(const Program &program);

/// Whether `spirv` declares a GLCompute entry point named `name` (false for
/// malformed SPIR-V).
bool hasComputeEntryPoint(const std::vector<uint32_t> &spirv,
                          const std::string &name);

/// Buffer `index` of `program` for messages: "buffer 3 (input 0 'x')",
/// "buffer 5 (output 1)", "buffer 2 (constant)" or "buffer 4".
std::string describeBuffer(const Program &program, size_t index);

} // namespace fx::rt::vk

#endif // FX_RUNTIME_VULKANPROGRAM_H

//===- VulkanProgram.h - what the Vulkan runtime executes ---------*- C++
//-*-===//
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

#include "fx/Runtime/CpuFunction.h"

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
  };
  Kind kind = Kind::Temporary;
  /// The signature position for Input and Output buffers.
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
};

/// One vkCmdDispatch: kernel `kernel` with binding i bound to buffer
/// `buffers[i]` (whole buffer).
struct Dispatch {
  uint32_t kernel = 0;
  std::array<uint32_t, 3> workgroups = {1, 1, 1};
  std::vector<uint32_t> buffers;
};

/// A copy of `bytes` bytes between two buffers (vkCmdCopyBuffer).
struct Copy {
  uint32_t source = 0, target = 0;
  uint64_t sourceOffset = 0, targetOffset = 0, bytes = 0;
};

/// One step of the schedule: a dispatch or a copy.
struct Step {
  enum class Kind : uint8_t { Dispatch, Copy };
  Kind kind = Kind::Dispatch;
  /// Index into Program::dispatches or Program::copies.
  uint32_t index = 0;
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
};

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

/// Places every temporary some step uses into one arena, reusing memory
/// between temporaries whose live ranges do not overlap; replaces any
/// earlier plan. Sound because the runtime orders consecutive steps with a
/// global memory barrier and a temporary's contents never outlive a run:
/// the steps of one live range end before the next range's first step
/// writes. Greedy by size: largest first, each at the lowest aligned offset
/// free of the live temporaries placed before it (as TFLite's and IREE's
/// static planners do; optimal placement is NP-hard).
ReusePlan planTemporaryReuse(Program &program);

/// The SPIR-V magic number, the first word of every module.
constexpr uint32_t kSpirvMagic = 0x07230203u;

/// Checks `program`'s internal consistency without a device: every kernel is
/// SPIR-V with a compute entry point of its name, Input and Output buffers
/// name positions of the signature (each output exactly one buffer) and
/// hold their tensors, constant data fits its buffer, dispatches name existing
/// kernels and bind as many existing buffers as the kernel has bindings, copies
/// stay inside their buffers and do not overlap themselves, steps name
/// existing dispatches and copies, and arena temporaries are aligned, inside
/// the arena and never share bytes while both are live. Errors start with
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

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
};

/// The SPIR-V magic number, the first word of every module.
constexpr uint32_t kSpirvMagic = 0x07230203u;

/// Checks `program`'s internal consistency without a device: every kernel is
/// SPIR-V with a compute entry point of its name, Input and Output buffers
/// name positions of the signature (each output exactly one buffer) and
/// hold their tensors, constant data fits its buffer, dispatches name existing
/// kernels and bind as many existing buffers as the kernel has bindings, copies
/// stay inside their buffers and do not overlap themselves, and steps name
/// existing dispatches and copies. Errors start with "invalid Vulkan program:
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

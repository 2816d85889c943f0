//===- VulkanCompiler.h - FX functions to Vulkan programs -------*- C++ -*-===//
//
// The compiler side of Vulkan execution: lowers an FX function (static
// shapes, or a dynamic outermost dimension) with fx-vulkan-pipeline, serializes
// one SPIR-V module per kernel and turns the host function into the
// schedule the MLIR-free Vulkan runtime replays (fx/Runtime/VulkanProgram.h).
//
//===----------------------------------------------------------------------===//

#ifndef FX_COMPILER_VULKANCOMPILER_H
#define FX_COMPILER_VULKANCOMPILER_H

#include "fx/Runtime/VulkanProgram.h"
#include "fx/Runtime/VulkanRuntime.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace fx {

/// Options of compileForVulkan.
struct VulkanCompileOptions {
  /// Fuse elementwise chains (fx-vulkan-pipeline option).
  bool fuseElementwise = true;
  /// The SPIR-V target environment (fx-vulkan-pipeline's `target`): a
  /// profile name or "caps=..." (see targetForDevice).
  std::string target = "vulkan13";
  /// Threads per workgroup.
  int64_t workgroupSize = 256;
  /// f32 GEMMs on tensor cores: highest, high or medium (fx-vulkan-pipeline
  /// option `precision`).
  std::string precision = "high";
  /// Most threads per workgroup of row kernels.
  int64_t rowWorkgroupSize = 512;
  /// Plan the temporaries into one arena, sharing memory between those
  /// never live at the same time (rt::vk::planTemporaryReuse).
  bool reuseTemporaries = true;
  /// Remark each GEMM's kernel choice (fx-vulkan-pipeline option `report`).
  bool report = false;
  /// Convolutions and poolings in NHWC (option `channels-last`).
  bool channelsLast = false;
};

/// The `target` option describing what `device` supports: "caps=" and
/// rt::vk::capabilitiesFor(device) (fx/Runtime/VulkanDevice.h).
std::string targetForDevice(const rt::vk::DeviceInfo &device);

/// Lowers `module` (FX dialect, consumed) with fx-vulkan-pipeline and
/// returns the program of its function `entry`, whose inputs and outputs
/// are `signature`. Errors are emitted as diagnostics.
mlir::FailureOr<rt::vk::Program>
compileForVulkan(mlir::ModuleOp module, llvm::StringRef entry,
                 const rt::FunctionSignature &signature,
                 const VulkanCompileOptions &options);

/// The schedule of `module`'s function `entry`, already lowered by
/// fx-vulkan-pipeline (host function of allocations, copies, launches and
/// index arithmetic; SPIR-V modules for the kernels): what compileForVulkan
/// does after the pipeline, without planning the arena. Errors are emitted
/// as diagnostics at the host op that cannot be scheduled.
mlir::FailureOr<rt::vk::Program>
buildVulkanSchedule(mlir::ModuleOp module, llvm::StringRef entry,
                    const rt::FunctionSignature &signature);

/// Writes each kernel of `program` to `dir`/`prefix`<n>-<entry point>.spv
/// (creating `dir`), for spirv-val or spirv-dis. Returns an error message,
/// or an empty string.
std::string writeSPIRVFiles(const rt::vk::Program &program,
                            const std::string &dir, const std::string &prefix);

} // namespace fx

#endif // FX_COMPILER_VULKANCOMPILER_H

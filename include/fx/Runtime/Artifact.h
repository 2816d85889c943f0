//===- Artifact.h - compiled models as one versioned file -------*- C++ -*-===//
//
// An artifact (`.fxa`) holds compiled entry points, each with its signature
// and the code of one or more targets (today: a Vulkan program), so that a
// machine with only the runtime (no MLIR, no LLVM) can load and run them.
// Plain C++17: no MLIR, LLVM or Vulkan headers.
//
// Layout (all integers little-endian):
//
//   offset  size  field
//        0    16  magic: "FXARTIFACT" followed by six NUL bytes
//       16     4  u32 format version (kArtifactFormatVersion)
//       20     4  reserved, zero
//       24     8  u64 manifest offset
//       32     8  u64 manifest size
//       40     8  u64 file size (header included)
//       48     8  u64 checksum: 64-bit FNV-1a of bytes [64, file size)
//       56     8  reserved, zero
//       64     .  blobs (SPIR-V modules, constant data), each at a 64-byte
//                 aligned offset, then the manifest (JSON, UTF-8) last.
//
// The manifest:
//
//   {"format_version": 3, "producer": "fx-run (fx-mlir)",
//    "entries": [{"name": "forward",
//                 "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 4],
//                             "parameter": false}, ...],
//                 "outputs": [{"name": "result0", "dtype": "f32",
//                              "shape": [2, 3]}, ...],
//                 "targets": {"cpu": {...}, "vulkan": {...}}}]}
//
// where CPU code (fx/Runtime/CPULibrary.h) is
//
//   {"arch": "x86_64", "cpu": "x86-64-v3", "features": ["avx2", ...],
//    "symbol": "fxrt_entry_forward", "imports": ["fxrtParallelFor", ...],
//    "library": BLOB (an ELF shared object),
//    "sub_batch" (optional): N (the code computes N items of the outermost
//                 dimension of the inputs that are not parameters and of the
//                 outputs; a run calls it once per slice of the batch),
//    "prepare" (optional): {"symbol": "fxrt_entry_forward__prepare",
//                           "arguments": [1, 4, ...] (the entry's inputs it
//                                                     reads: parameters),
//                           "results": [{"name", "dtype", "shape"}, ...]}}
//
// (prepare: computations on the parameters alone, run once per binding of
// the weights; the entry takes its results after its own inputs.)
//
// and a Vulkan program is
//
//   {"kernels": [{"name", "entry_point", "spirv": BLOB, "num_bindings",
//                 "workgroup_size": [x, y, z]}],
//    "buffers": [{"kind": "input"|"output"|"temporary"|"constant"|"size",
//                 "index" (input, output: the signature position; size: the
//                          scalar), "bytes",
//                 "bytes_scalar" (optional: the scalar giving the size),
//                 "data": BLOB (constant only, optional),
//                 "arena_offset" (temporary only, optional)}],
//    "dispatches": [{"kernel", "workgroups": [x, y, z], "buffers": [...],
//                    "workgroup_scalars": [x, y, z] (optional; 4294967295:
//                                                    the fixed count)}],
//    "copies": [{"source", "target", "source_offset", "target_offset",
//                "bytes", "bytes_scalar" (optional)}],
//    "steps": [{"kind": "dispatch"|"copy", "index",
//               "prepare": true (optional: a computation on the parameters
//                                alone, run once per binding of them; see
//                                vk::Step)}],
//    "required_features": ["shaderInt64", ...],
//    "arena_bytes" (optional; the buffer plan: temporaries with an
//                   "arena_offset" share one block of this size, reusing
//                   bytes between temporaries never live at the same time,
//                   see planTemporaryReuse in fx/Runtime/VulkanProgram.h),
//    and, for a program with dynamic dimensions (a signature shape with
//    null entries; no CPU code in its entry):
//    "scalars": [{"op": "input_dim"|"add"|"mul"|"ceildivu"|..., "operands":
//                 [a, b, c]} or {"op": "constant", "value": N}],
//    "shape_checks": [{"scalar", "message"}],
//    "output_dims": [[scalar or 4294967295 per dimension], ...]}
//    (see vk::Scalar and specializeProgram in fx/Runtime/VulkanProgram.h)
//
// and a BLOB is {"offset": N, "size": M}: bytes [N, N + M) of the file.
//
// The checksum catches accidental damage. Past it, readers check everything
// the manifest says, but not the SPIR-V code beyond its header and entry
// point (that takes a full validator such as spirv-val, and drivers need not
// survive invalid SPIR-V), nor the CPU code beyond its ELF header (it is
// machine code the loader runs): an artifact is trusted as far as its code
// goes.
//
// Entries may share a name when they differ only in the shapes of inputs
// that are not parameters (same ranks) and of outputs: the static shapes
// of one entry point with dynamic dimensions (fx-compile --dynamic-sizes).
// rt::Model loads them all and runs the one of the inputs' shapes.
//
// Readers ignore manifest members and targets they do not know, so later
// versions of the runtime may add optional members and targets without a
// new format version (the CPU target came that way); anything an older
// reader would misread needs a new version.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_ARTIFACT_H
#define FX_RUNTIME_ARTIFACT_H

#include "fx/Runtime/CPUFunction.h"
#include "fx/Runtime/CPULibrary.h"
#include "fx/Runtime/Status.h"
#include "fx/Runtime/VulkanProgram.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fx::rt {

/// The format version this runtime writes and the only one it reads.
/// Version 2 added CPU prepare functions: a version 1 reader would ignore
/// one and call the entry without its prepared parameters. Version 3 added
/// CPU code for a sub-batch (`sub_batch`), which a version 2 reader would
/// call on the whole batch.
constexpr uint32_t kArtifactFormatVersion = 3;
/// The header's size; blobs start right after it.
constexpr size_t kArtifactHeaderSize = 64;
/// Blobs start at multiples of this (so they could be mapped and used in
/// place).
constexpr size_t kArtifactBlobAlignment = 64;
/// The largest device buffer or tensor an artifact may describe (1 TiB):
/// anything larger is a damaged file, not a model.
constexpr uint64_t kArtifactMaxBytes = uint64_t(1) << 40;

/// One compiled entry point.
struct ArtifactEntry {
  /// The function's name; unique within the artifact.
  std::string name;
  /// Inputs in argument order (parameters flagged) and outputs.
  FunctionSignature signature;
  /// CPU code, if compiled for the CPU.
  std::optional<CPUCode> cpu;
  /// The program for the Vulkan runtime, if compiled for it. Its
  /// `signature` must equal the entry's (readers set it so).
  std::optional<vk::Program> vulkan;
};

/// The contents of an artifact file.
struct Artifact {
  /// Who wrote it (e.g. "fx-run (fx-mlir)"), for people reading the file.
  std::string producer;
  std::vector<ArtifactEntry> entries;

  /// The entry named `name`, or nullptr.
  const ArtifactEntry *find(std::string_view name) const;
};

/// Whether `a` and `b` (signatures of entries of one name) are shapes of one
/// entry point: the same inputs and outputs but for the shapes (of the same
/// ranks) of inputs that are not parameters and of outputs.
bool areShapeVariants(const FunctionSignature &a, const FunctionSignature &b);

/// The artifact as file bytes. Fails, naming the entry, on what a reader
/// would reject: duplicate or empty entry names, an unknown dtype, a tensor
/// or buffer above kArtifactMaxBytes, a program that fails
/// vk::validateProgram, a program signature that differs from its entry's,
/// buffers that are not whole words, or data in a non-constant buffer.
Result<std::vector<uint8_t>> serializeArtifact(const Artifact &artifact);

/// serializeArtifact, written to `path` (nothing is left at `path` on
/// failure).
Status writeArtifact(const std::string &path, const Artifact &artifact);

/// Parses artifact bytes. Never trusts the input: a truncated file, a wrong
/// magic or format version, a checksum mismatch, blobs outside the file,
/// malformed JSON, missing or mistyped members, an unknown dtype or buffer
/// kind, sizes above kArtifactMaxBytes, SPIR-V that is not whole words or
/// lacks the magic number, buffers that are not whole words, and programs
/// failing vk::validateProgram (indices out of range, binding counts,
/// copies out of bounds) are each an error saying what is wrong and where.
Result<Artifact> parseArtifact(const uint8_t *data, size_t size);

/// Reads and parses the file at `path`; errors start with "PATH: ".
Result<Artifact> readArtifact(const std::string &path);

/// 64-bit FNV-1a of `size` bytes, continuing from `hash` (the artifact
/// checksum; exposed for tests that repair mutated files).
uint64_t fnv1a64(const uint8_t *data, size_t size,
                 uint64_t hash = 0xcbf29ce484222325ull);

} // namespace fx::rt

#endif // FX_RUNTIME_ARTIFACT_H

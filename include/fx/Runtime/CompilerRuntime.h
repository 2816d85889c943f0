//===- CompilerRuntime.h - compiler-runtime functions JIT code calls ------===//
//
// LLVM lowers a conversion the target has no instruction for (f32 -> bf16
// without AVX512-BF16, f64 -> f16 everywhere, f32 <-> f16 without F16C) to a
// call of a compiler-runtime function such as __truncsfbf2. Ahead-of-time
// code links compiler-rt's builtins archive; JIT-compiled code gets these
// definitions instead, so that it never depends on what the host process
// happens to export (Debian 12's libgcc_s has no bf16 conversions).
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_COMPILERRUNTIME_H
#define FX_RUNTIME_COMPILERRUNTIME_H

#include <vector>

namespace fx::rt {

/// A function compiled code may call by its compiler-runtime name.
struct CompilerRuntimeFunction {
  const char *name;
  void *address;
};

/// The compiler-runtime functions this runtime defines (__truncsfbf2,
/// __truncdfbf2, __truncsfhf2, __truncdfhf2, __extendhfsf2, __powisf2,
/// __powidf2) with the calling convention LLVM's x86-64 and AArch64
/// backends use for them (f16 and bf16 values in floating-point registers);
/// empty on other architectures. The conversions are Tensor.h's, rounding
/// to nearest even.
const std::vector<CompilerRuntimeFunction> &compilerRuntimeFunctions();

} // namespace fx::rt

#endif // FX_RUNTIME_COMPILERRUNTIME_H

//===- CompilerRuntime.cpp - compiler-runtime functions JIT code calls ----===//

#include "fx/Runtime/CompilerRuntime.h"

#include "fx/Runtime/Tensor.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__aarch64__)
#define FX_HAVE_COMPILER_RUNTIME_FUNCTIONS 1
namespace {

// f16 and bf16 travel in floating-point registers, as LLVM passes them.
using Half = _Float16;
using BFloat16 = __bf16;

template <typename To, typename From> To bitCast(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

Half truncsfhf2(float value) {
  return bitCast<Half>(fx::rt::floatToHalfBits(value));
}
Half truncdfhf2(double value) {
  return bitCast<Half>(fx::rt::doubleToHalfBits(value));
}
float extendhfsf2(Half value) {
  return fx::rt::halfBitsToFloat(bitCast<uint16_t>(value));
}
BFloat16 truncsfbf2(float value) {
  return bitCast<BFloat16>(fx::rt::floatToBFloat16Bits(value));
}
BFloat16 truncdfbf2(double value) {
  return bitCast<BFloat16>(fx::rt::doubleToBFloat16Bits(value));
}

/// base^exponent by repeated squaring, as compiler-rt's __powi*f2 compute it.
template <typename T> T powi(T base, int exponent) {
  bool reciprocal = exponent < 0;
  unsigned n = reciprocal ? 0u - static_cast<unsigned>(exponent)
                          : static_cast<unsigned>(exponent);
  T result = 1;
  for (; n; n >>= 1, base *= base)
    if (n & 1u)
      result *= base;
  return reciprocal ? T(1) / result : result;
}
float powisf2(float base, int exponent) { return powi(base, exponent); }
double powidf2(double base, int exponent) { return powi(base, exponent); }

} // namespace
#endif

const std::vector<fx::rt::CompilerRuntimeFunction> &
fx::rt::compilerRuntimeFunctions() {
  static const std::vector<CompilerRuntimeFunction> functions = {
#ifdef FX_HAVE_COMPILER_RUNTIME_FUNCTIONS
      {"__truncsfhf2", reinterpret_cast<void *>(&truncsfhf2)},
      {"__truncdfhf2", reinterpret_cast<void *>(&truncdfhf2)},
      {"__extendhfsf2", reinterpret_cast<void *>(&extendhfsf2)},
      {"__truncsfbf2", reinterpret_cast<void *>(&truncsfbf2)},
      {"__truncdfbf2", reinterpret_cast<void *>(&truncdfbf2)},
      {"__powisf2", reinterpret_cast<void *>(&powisf2)},
      {"__powidf2", reinterpret_cast<void *>(&powidf2)},
#endif
  };
  return functions;
}

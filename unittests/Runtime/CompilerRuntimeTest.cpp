//===- CompilerRuntimeTest.cpp - functions JIT code calls by name ---------===//

#include "fx/Runtime/CompilerRuntime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>

using namespace fx::rt;

namespace {

#if defined(__x86_64__) || defined(__aarch64__)
template <typename T> T lookup(const char *name) {
  for (const CompilerRuntimeFunction &fn : compilerRuntimeFunctions())
    if (std::string(fn.name) == name)
      return reinterpret_cast<T>(fn.address);
  return nullptr;
}

template <typename T> uint16_t bitsOf(T value) {
  uint16_t bits;
  std::memcpy(&bits, &value, 2);
  return bits;
}

// Called through the table, with the calling convention LLVM uses.
TEST(CompilerRuntime, ConversionsRoundToNearestEven) {
  auto truncsfbf2 = lookup<__bf16 (*)(float)>("__truncsfbf2");
  auto truncdfbf2 = lookup<__bf16 (*)(double)>("__truncdfbf2");
  auto truncsfhf2 = lookup<_Float16 (*)(float)>("__truncsfhf2");
  auto truncdfhf2 = lookup<_Float16 (*)(double)>("__truncdfhf2");
  auto extendhfsf2 = lookup<float (*)(_Float16)>("__extendhfsf2");
  ASSERT_TRUE(truncsfbf2 && truncdfbf2 && truncsfhf2 && truncdfhf2 &&
              extendhfsf2);
  EXPECT_EQ(bitsOf(truncsfbf2(1.0f)), 0x3f80);
  // 1 + 2^-8 lies halfway between bf16 1 and 1 + 2^-7: ties to even.
  EXPECT_EQ(bitsOf(truncsfbf2(1.0f + 0x1p-8f)), 0x3f80);
  EXPECT_EQ(bitsOf(truncsfbf2(1.0f + 3 * 0x1p-8f)), 0x3f82);
  EXPECT_EQ(bitsOf(truncsfbf2(-3.0e38f * 2)), 0xff80);
  // Just above the tie: one rounding from f64, not two through f32.
  EXPECT_EQ(bitsOf(truncdfbf2(1.0 + 0x1p-8 + 0x1p-40)), 0x3f81);
  EXPECT_EQ(bitsOf(truncsfhf2(65520.0f)), 0x7c00);
  EXPECT_EQ(bitsOf(truncsfhf2(0x1p-24f)), 0x0001);
  EXPECT_EQ(bitsOf(truncdfhf2(1.0 + 0x1p-11 + 0x1p-40)), 0x3c01);
  _Float16 half;
  uint16_t bits = 0xc100; // -2.5
  std::memcpy(&half, &bits, 2);
  EXPECT_EQ(extendhfsf2(half), -2.5f);
}

TEST(CompilerRuntime, Powi) {
  auto powisf2 = lookup<float (*)(float, int)>("__powisf2");
  auto powidf2 = lookup<double (*)(double, int)>("__powidf2");
  ASSERT_TRUE(powisf2 && powidf2);
  EXPECT_EQ(powisf2(2.0f, 10), 1024.0f);
  EXPECT_EQ(powisf2(2.0f, -2), 0.25f);
  EXPECT_EQ(powidf2(-3.0, 3), -27.0);
  EXPECT_EQ(powidf2(5.0, 0), 1.0);
}
#endif

TEST(CompilerRuntime, NamesAreUnique) {
  std::map<std::string, int> seen;
  for (const CompilerRuntimeFunction &fn : compilerRuntimeFunctions()) {
    EXPECT_NE(fn.address, nullptr) << fn.name;
    EXPECT_EQ(++seen[fn.name], 1) << fn.name;
  }
}

} // namespace

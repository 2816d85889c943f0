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

// The functions pass f16/bf16 values in the low 16 bits of a floating-point
// register. The test calls them through pointers typed with float instead,
// so that it never holds an f16/bf16 value itself (which a compiler may
// convert through these very functions).
uint16_t lowBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return static_cast<uint16_t>(bits & 0xffffu);
}
float withLowBits(uint16_t bits) {
  uint32_t word = bits;
  float value;
  std::memcpy(&value, &word, 4);
  return value;
}

TEST(CompilerRuntime, ConversionsRoundToNearestEven) {
  auto truncsfbf2 = lookup<float (*)(float)>("__truncsfbf2");
  auto truncdfbf2 = lookup<float (*)(double)>("__truncdfbf2");
  auto truncsfhf2 = lookup<float (*)(float)>("__truncsfhf2");
  auto truncdfhf2 = lookup<float (*)(double)>("__truncdfhf2");
  auto extendhfsf2 = lookup<float (*)(float)>("__extendhfsf2");
  ASSERT_TRUE(truncsfbf2 && truncdfbf2 && truncsfhf2 && truncdfhf2 &&
              extendhfsf2);
  EXPECT_EQ(lowBits(truncsfbf2(1.0f)), 0x3f80);
  // 1 + 2^-8 lies halfway between bf16 1 and 1 + 2^-7: ties to even.
  EXPECT_EQ(lowBits(truncsfbf2(1.0f + 0x1p-8f)), 0x3f80);
  EXPECT_EQ(lowBits(truncsfbf2(1.0f + 3 * 0x1p-8f)), 0x3f82);
  EXPECT_EQ(lowBits(truncsfbf2(-3.0e38f * 2)), 0xff80);
  // Just above the tie: one rounding from f64, not two through f32.
  EXPECT_EQ(lowBits(truncdfbf2(1.0 + 0x1p-8 + 0x1p-40)), 0x3f81);
  EXPECT_EQ(lowBits(truncsfhf2(65520.0f)), 0x7c00);
  EXPECT_EQ(lowBits(truncsfhf2(0x1p-24f)), 0x0001);
  EXPECT_EQ(lowBits(truncdfhf2(1.0 + 0x1p-11 + 0x1p-40)), 0x3c01);
  EXPECT_EQ(extendhfsf2(withLowBits(0xc100)), -2.5f); // -2.5 as f16
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

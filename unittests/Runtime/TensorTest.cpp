//===- TensorTest.cpp - tensors, storage and dtype conversions ------------===//

#include "fx/Runtime/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace fx::rt;

namespace {

constexpr DType kAllDTypes[] = {DType::F32, DType::F16, DType::BF16,
                                DType::F64, DType::I64, DType::I32,
                                DType::I8,  DType::U8,  DType::Bool};

uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}
float bitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// A tensor of `dtype` holding `values` (converted from f64).
Tensor makeTensor(DType dtype, const std::vector<double> &values) {
  Tensor f64 = Tensor::allocate(DType::F64, {int64_t(values.size())});
  std::copy(values.begin(), values.end(), f64.dataAs<double>());
  Result<Tensor> cast = f64.castTo(dtype);
  EXPECT_TRUE(cast.isOk()) << cast.message();
  return cast.take();
}

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

TEST(DTypeTest, SizesAndNames) {
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::F64), 8u);
  EXPECT_EQ(dtypeSize(DType::I64), 8u);
  EXPECT_EQ(dtypeSize(DType::I32), 4u);
  EXPECT_EQ(dtypeSize(DType::I8), 1u);
  EXPECT_EQ(dtypeSize(DType::U8), 1u);
  EXPECT_EQ(dtypeSize(DType::Bool), 1u);
  EXPECT_STREQ(dtypeName(DType::Bool), "i1");
  EXPECT_STREQ(dtypeName(DType::BF16), "bf16");
  for (DType dtype : kAllDTypes)
    EXPECT_EQ(parseDType(dtypeName(dtype)), dtype) << dtypeName(dtype);
  EXPECT_EQ(parseDType("f128"), std::nullopt);
  EXPECT_EQ(parseDType("bool"), std::nullopt);
  EXPECT_EQ(parseDType(""), std::nullopt);
  for (DType dtype : kAllDTypes)
    EXPECT_EQ(isFloatDType(dtype), dtype == DType::F32 || dtype == DType::F16 ||
                                       dtype == DType::BF16 ||
                                       dtype == DType::F64);
}

TEST(DTypeTest, CheckedByteSize) {
  EXPECT_EQ(checkedByteSize(DType::F32, {2, 3}), 24u);
  EXPECT_EQ(checkedByteSize(DType::F64, {}), 8u);
  EXPECT_EQ(checkedByteSize(DType::I64, {0, 5}), 0u);
  EXPECT_EQ(checkedByteSize(DType::F32, {-1}), std::nullopt);
  EXPECT_EQ(checkedByteSize(DType::F32, {int64_t(1) << 62, 4}), std::nullopt);
  EXPECT_EQ(checkedByteSize(DType::F64, {int64_t(1) << 61}), std::nullopt);
  // A zero dimension does not hide an overflowing product.
  EXPECT_EQ(checkedByteSize(DType::U8, {0, int64_t(1) << 62, 1 << 10}),
            std::nullopt);
}

//===----------------------------------------------------------------------===//
// Storage
//===----------------------------------------------------------------------===//

TEST(TensorTest, AllocateIsZeroedAndAligned) {
  Tensor t = Tensor::allocate(DType::F32, {2, 3});
  EXPECT_EQ(t.dtype(), DType::F32);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.rank(), 2u);
  EXPECT_EQ(t.numel(), 6u);
  EXPECT_EQ(t.byteSize(), 24u);
  EXPECT_TRUE(t.ownsStorage());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  for (size_t i = 0; i < t.numel(); ++i)
    EXPECT_EQ(t.dataAs<float>()[i], 0.0f);
  EXPECT_EQ(t.shapeString(), "[2, 3]");
}

TEST(TensorTest, ScalarAndEmptyShapes) {
  Tensor scalar = Tensor::allocate(DType::I64, {});
  EXPECT_EQ(scalar.numel(), 1u);
  EXPECT_EQ(scalar.byteSize(), 8u);
  EXPECT_EQ(scalar.shapeString(), "[]");
  Tensor empty = Tensor::allocate(DType::F16, {4, 0});
  EXPECT_EQ(empty.numel(), 0u);
  EXPECT_EQ(empty.byteSize(), 0u);
  EXPECT_NE(empty.data(), nullptr);
  Tensor defaulted;
  EXPECT_EQ(defaulted.numel(), 0u);
  EXPECT_EQ(defaulted.shapeString(), "[0]");
}

TEST(TensorTest, TryAllocateRejectsBadShapes) {
  Result<Tensor> negative = Tensor::tryAllocate(DType::F32, {2, -1});
  ASSERT_FALSE(negative.isOk());
  EXPECT_NE(negative.message().find("[2, -1]"), std::string::npos)
      << negative.message();
  EXPECT_NE(negative.message().find("negative"), std::string::npos);
  Result<Tensor> huge =
      Tensor::tryAllocate(DType::F64, {int64_t(1) << 40, int64_t(1) << 30});
  EXPECT_FALSE(huge.isOk());
}

TEST(TensorTest, CopiesShareStorageCloneDoesNot) {
  Tensor a = Tensor::allocate(DType::I32, {3});
  Tensor b = a;
  b.dataAs<int32_t>()[1] = 5;
  EXPECT_EQ(a.dataAs<int32_t>()[1], 5);
  EXPECT_EQ(a.data(), b.data());
  Tensor c = a.clone();
  EXPECT_NE(c.data(), a.data());
  EXPECT_TRUE(c.ownsStorage());
  c.dataAs<int32_t>()[1] = 6;
  EXPECT_EQ(a.dataAs<int32_t>()[1], 5);
}

TEST(TensorTest, StorageOutlivesTheOriginal) {
  Tensor copy;
  {
    Tensor original = Tensor::allocate(DType::F64, {2});
    original.dataAs<double>()[0] = 1.5;
    copy = original;
  }
  EXPECT_EQ(copy.dataAs<double>()[0], 1.5);
}

TEST(TensorTest, WrapAliasesUserMemory) {
  float user[6] = {1, 2, 3, 4, 5, 6};
  Tensor t = Tensor::wrap(user, DType::F32, {2, 3});
  EXPECT_EQ(t.data(), static_cast<void *>(user));
  EXPECT_FALSE(t.ownsStorage());
  EXPECT_EQ(t.numel(), 6u);
  // Writes go both ways: no copy was made.
  t.dataAs<float>()[4] = 50;
  EXPECT_EQ(user[4], 50);
  user[0] = -1;
  EXPECT_EQ(t.getAsDouble(0), -1.0);
  Tensor copy = t;
  EXPECT_EQ(copy.data(), static_cast<void *>(user));
  // A clone is independent and owned.
  Tensor clone = t.clone();
  EXPECT_TRUE(clone.ownsStorage());
  user[1] = 99;
  EXPECT_EQ(clone.getAsDouble(1), 2.0);
}

TEST(TensorTest, WrapKeepAliveLivesWithTheTensor) {
  auto buffer = std::make_shared<std::vector<int64_t>>(4, 7);
  std::weak_ptr<std::vector<int64_t>> watch = buffer;
  Tensor t = Tensor::wrap(buffer->data(), DType::I64, {4}, buffer);
  EXPECT_FALSE(t.ownsStorage());
  buffer.reset();
  ASSERT_FALSE(watch.expired());
  EXPECT_EQ(t.getAsDouble(3), 7.0);
  Tensor copy = t;
  t = Tensor();
  EXPECT_FALSE(watch.expired());
  copy = Tensor();
  EXPECT_TRUE(watch.expired());
}

//===----------------------------------------------------------------------===//
// f16 / bf16 bit conversions
//===----------------------------------------------------------------------===//

TEST(HalfTest, ExactValues) {
  EXPECT_EQ(floatToHalfBits(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalfBits(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(floatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalfBits(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalfBits(0.333251953125f), 0x3555);
  EXPECT_EQ(floatToHalfBits(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(floatToHalfBits(-std::numeric_limits<float>::infinity()), 0xFC00);
}

TEST(HalfTest, RoundsToNearestEven) {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to even (1).
  EXPECT_EQ(floatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 lies halfway between 0x3C01 and 0x3C02: even is 0x3C02.
  EXPECT_EQ(floatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above the tie rounds up.
  EXPECT_EQ(
      floatToHalfBits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
      0x3C01);
  // Just below the tie rounds down.
  EXPECT_EQ(
      floatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11) - std::ldexp(1.0f, -20)),
      0x3C01);
}

TEST(HalfTest, OverflowToInfinity) {
  EXPECT_EQ(floatToHalfBits(65519.0f), 0x7BFF);
  // 65520 is halfway between 65504 and 65536 (= inf): even is inf.
  EXPECT_EQ(floatToHalfBits(65520.0f), 0x7C00);
  EXPECT_EQ(floatToHalfBits(-1e6f), 0xFC00);
  EXPECT_EQ(floatToHalfBits(std::numeric_limits<float>::max()), 0x7C00);
}

TEST(HalfTest, Subnormals) {
  float minSub = std::ldexp(1.0f, -24);
  EXPECT_EQ(floatToHalfBits(minSub), 0x0001);
  EXPECT_EQ(floatToHalfBits(-minSub), 0x8001);
  // Half the smallest subnormal is a tie with 0: even is 0.
  EXPECT_EQ(floatToHalfBits(minSub / 2), 0x0000);
  EXPECT_EQ(floatToHalfBits(-minSub / 2), 0x8000);
  EXPECT_EQ(floatToHalfBits(minSub * 0.75f), 0x0001);
  EXPECT_EQ(floatToHalfBits(minSub * 0.25f), 0x0000);
  // 1.5 * min is a tie between 1 and 2 ulps: even is 2.
  EXPECT_EQ(floatToHalfBits(minSub * 1.5f), 0x0002);
  EXPECT_EQ(floatToHalfBits(minSub * 2.5f), 0x0002);
  EXPECT_EQ(floatToHalfBits(1023 * minSub), 0x03FF);
  // The largest subnormal plus half an ulp rounds up to the smallest normal.
  EXPECT_EQ(floatToHalfBits(1023.5f * minSub), 0x0400);
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -14)), 0x0400);
  // Float subnormals are far below f16's range.
  EXPECT_EQ(floatToHalfBits(std::numeric_limits<float>::denorm_min()), 0);

  EXPECT_EQ(halfBitsToFloat(0x0001), minSub);
  EXPECT_EQ(halfBitsToFloat(0x03FF), 1023 * minSub);
  EXPECT_EQ(halfBitsToFloat(0x8001), -minSub);
}

TEST(HalfTest, NaNIsPreserved) {
  float qnan = std::numeric_limits<float>::quiet_NaN();
  uint16_t h = floatToHalfBits(qnan);
  EXPECT_EQ(h & 0x7C00, 0x7C00);
  EXPECT_NE(h & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(halfBitsToFloat(h)));
  // Sign and top payload bits survive.
  uint16_t neg = floatToHalfBits(bitsFloat(0xFFC02000u));
  EXPECT_EQ(neg, 0xFE01);
  // A signalling NaN with a payload only in low bits still becomes a NaN.
  uint16_t low = floatToHalfBits(bitsFloat(0x7F800001u));
  EXPECT_TRUE(std::isnan(halfBitsToFloat(low)));
  EXPECT_TRUE(std::isnan(halfBitsToFloat(0x7E00)));
  EXPECT_EQ(floatBits(halfBitsToFloat(0x7E00)), 0x7FC00000u);
}

TEST(HalfTest, WideningIsExactForAllHalves) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    float f = halfBitsToFloat(uint16_t(bits));
    if (std::isnan(f)) {
      EXPECT_EQ(bits & 0x7C00, 0x7C00u);
      EXPECT_TRUE(std::isnan(halfBitsToFloat(floatToHalfBits(f))));
      continue;
    }
    ASSERT_EQ(floatToHalfBits(f), bits) << std::hex << bits;
    ASSERT_EQ(doubleToHalfBits(double(f)), bits) << std::hex << bits;
  }
}

#ifdef __FLT16_MAX__
// The compiler's _Float16 conversions are an independent reference.
TEST(HalfTest, MatchesCompilerFloat16) {
  // Every float whose low 13 bits (the ones f16 drops) are near a tie.
  for (uint32_t high = 0; high < (1u << 19); ++high) {
    for (uint32_t low : {0x0000u, 0x0FFFu, 0x1000u, 0x1001u, 0x1FFFu}) {
      float f = bitsFloat((high << 13) | low);
      if (std::isnan(f))
        continue;
      _Float16 ref = static_cast<_Float16>(f);
      uint16_t refBits;
      std::memcpy(&refBits, &ref, 2);
      ASSERT_EQ(floatToHalfBits(f), refBits) << std::hexfloat << f;
    }
  }
  // Doubles round once (converting through float would round twice).
  std::mt19937_64 rng(1234);
  for (int i = 0; i < 200000; ++i) {
    double d = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng),
                          int(rng() % 50) - 30);
    _Float16 ref = static_cast<_Float16>(d);
    uint16_t refBits;
    std::memcpy(&refBits, &ref, 2);
    ASSERT_EQ(doubleToHalfBits(d), refBits) << std::hexfloat << d;
  }
}
#endif

/// bfloat16 reference: the well-known add-and-truncate bit trick.
uint16_t referenceBFloat16(float f) {
  uint32_t bits = floatBits(f);
  return uint16_t((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

TEST(BFloat16Test, ExactValues) {
  EXPECT_EQ(floatToBFloat16Bits(1.0f), 0x3F80);
  EXPECT_EQ(floatToBFloat16Bits(-2.0f), 0xC000);
  EXPECT_EQ(floatToBFloat16Bits(-0.0f), 0x8000);
  EXPECT_EQ(floatToBFloat16Bits(std::numeric_limits<float>::infinity()),
            0x7F80);
  EXPECT_EQ(bfloat16BitsToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bfloat16BitsToFloat(0x7F7F), bitsFloat(0x7F7F0000u));
}

TEST(BFloat16Test, RoundsToNearestEven) {
  // Ties: 1 + 2^-8 goes to 1.0; 1 + 3 * 2^-8 goes to 0x3F82.
  EXPECT_EQ(floatToBFloat16Bits(bitsFloat(0x3F808000u)), 0x3F80);
  EXPECT_EQ(floatToBFloat16Bits(bitsFloat(0x3F818000u)), 0x3F82);
  EXPECT_EQ(floatToBFloat16Bits(bitsFloat(0x3F808001u)), 0x3F81);
  EXPECT_EQ(floatToBFloat16Bits(bitsFloat(0x3F807FFFu)), 0x3F80);
  // The largest float rounds up past bf16's largest finite value.
  EXPECT_EQ(floatToBFloat16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(floatToBFloat16Bits(bitsFloat(0x7F7F7FFFu)), 0x7F7F);
}

TEST(BFloat16Test, Subnormals) {
  EXPECT_EQ(floatToBFloat16Bits(std::ldexp(1.0f, -133)), 0x0001);
  EXPECT_EQ(floatToBFloat16Bits(std::ldexp(1.0f, -134)), 0x0000); // tie
  EXPECT_EQ(floatToBFloat16Bits(std::ldexp(3.0f, -135)), 0x0001);
  EXPECT_EQ(floatToBFloat16Bits(std::numeric_limits<float>::denorm_min()), 0);
  EXPECT_EQ(floatToBFloat16Bits(bitsFloat(0x807FFFFFu)), 0x8080);
  EXPECT_EQ(bfloat16BitsToFloat(0x0001), std::ldexp(1.0f, -133));
}

TEST(BFloat16Test, NaNIsPreserved) {
  uint16_t b = floatToBFloat16Bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(bfloat16BitsToFloat(b)));
  EXPECT_EQ(floatToBFloat16Bits(bitsFloat(0xFFC10000u)), 0xFFC1);
  // Payload only in the dropped bits: still NaN, not infinity.
  uint16_t low = floatToBFloat16Bits(bitsFloat(0x7F800001u));
  EXPECT_TRUE(std::isnan(bfloat16BitsToFloat(low)));
}

TEST(BFloat16Test, MatchesReferenceAroundEveryTie) {
  for (uint32_t high = 0; high <= 0xFFFF; ++high) {
    for (uint32_t low : {0x0000u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu}) {
      float f = bitsFloat((high << 16) | low);
      if (std::isnan(f))
        continue;
      ASSERT_EQ(floatToBFloat16Bits(f), referenceBFloat16(f))
          << std::hex << floatBits(f);
    }
  }
}

TEST(BFloat16Test, WideSourcesRoundOnce) {
  // 1 + 2^-8 + 2^-30 is just above a bf16 tie; through float it would
  // become the tie itself and round down.
  double d = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(doubleToBFloat16Bits(d), 0x3F81);
  Tensor f64 = Tensor::allocate(DType::F64, {1});
  f64.dataAs<double>()[0] = d;
  EXPECT_EQ(f64.castTo(DType::BF16).value().dataAs<uint16_t>()[0], 0x3F81);
  // The same for int64: 2^60 + 2^52 + 1 is above the tie between 2^60 and
  // 2^60 + 2^53, but rounds to the tie as a double.
  Tensor i64 = Tensor::allocate(DType::I64, {1});
  i64.dataAs<int64_t>()[0] = (int64_t(1) << 60) + (int64_t(1) << 52) + 1;
  EXPECT_EQ(i64.castTo(DType::BF16).value().dataAs<uint16_t>()[0], 0x5D81);
  EXPECT_EQ(i64.castTo(DType::F16).value().dataAs<uint16_t>()[0], 0x7C00);
}

//===----------------------------------------------------------------------===//
// castTo and getAsDouble
//===----------------------------------------------------------------------===//

TEST(CastTest, EveryPairOnSmallIntegers) {
  // Values every dtype holds exactly (Bool only as zero / non-zero).
  const std::vector<double> values = {0, 1, 2, 5, 100};
  for (DType from : kAllDTypes) {
    Tensor src = makeTensor(from, values);
    for (DType to : kAllDTypes) {
      Result<Tensor> cast = src.castTo(to);
      ASSERT_TRUE(cast.isOk()) << cast.message();
      const Tensor &out = cast.value();
      EXPECT_EQ(out.dtype(), to);
      EXPECT_EQ(out.shape(), src.shape());
      EXPECT_TRUE(out.ownsStorage());
      EXPECT_NE(out.data(), src.data());
      for (size_t i = 0; i < values.size(); ++i) {
        double expected = values[i];
        if (from == DType::Bool || to == DType::Bool)
          expected = values[i] != 0;
        EXPECT_EQ(out.getAsDouble(i), expected)
            << dtypeName(from) << " -> " << dtypeName(to) << " [" << i << "]";
      }
    }
  }
}

TEST(CastTest, NegativeValuesAcrossSignedTypes) {
  const std::vector<double> values = {-1, -2, -100};
  for (DType from : {DType::F32, DType::F16, DType::BF16, DType::F64,
                     DType::I64, DType::I32, DType::I8})
    for (DType to : {DType::F32, DType::F16, DType::BF16, DType::F64,
                     DType::I64, DType::I32, DType::I8}) {
      Tensor out = makeTensor(from, values).castTo(to).take();
      for (size_t i = 0; i < values.size(); ++i)
        EXPECT_EQ(out.getAsDouble(i), values[i])
            << dtypeName(from) << " -> " << dtypeName(to);
    }
}

TEST(CastTest, FloatToIntTruncatesAndSaturates) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor f = makeTensor(DType::F32, {-2.7, 2.7, -0.5, 1e10, -1e10, nan, inf});
  Tensor i32 = f.castTo(DType::I32).take();
  EXPECT_EQ(i32.dataAs<int32_t>()[0], -2);
  EXPECT_EQ(i32.dataAs<int32_t>()[1], 2);
  EXPECT_EQ(i32.dataAs<int32_t>()[2], 0);
  EXPECT_EQ(i32.dataAs<int32_t>()[3], std::numeric_limits<int32_t>::max());
  EXPECT_EQ(i32.dataAs<int32_t>()[4], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(i32.dataAs<int32_t>()[5], 0);
  EXPECT_EQ(i32.dataAs<int32_t>()[6], std::numeric_limits<int32_t>::max());

  Tensor u8 =
      makeTensor(DType::F64, {-1, 300, 3.9, 255.5}).castTo(DType::U8).take();
  EXPECT_EQ(u8.dataAs<uint8_t>()[0], 0);
  EXPECT_EQ(u8.dataAs<uint8_t>()[1], 255);
  EXPECT_EQ(u8.dataAs<uint8_t>()[2], 3);
  EXPECT_EQ(u8.dataAs<uint8_t>()[3], 255);

  Tensor i64 = makeTensor(DType::F64, {9.3e18, -9.3e18, -9.2e18})
                   .castTo(DType::I64)
                   .take();
  EXPECT_EQ(i64.dataAs<int64_t>()[0], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(i64.dataAs<int64_t>()[1], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(i64.dataAs<int64_t>()[2], int64_t(-9.2e18));

  Tensor i8 =
      makeTensor(DType::F16, {-128, 127.9, -129}).castTo(DType::I8).take();
  EXPECT_EQ(i8.dataAs<int8_t>()[0], -128);
  EXPECT_EQ(i8.dataAs<int8_t>()[1], 127);
  EXPECT_EQ(i8.dataAs<int8_t>()[2], -128);
}

TEST(CastTest, ToBoolIsNonZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor b = makeTensor(DType::F32, {0.0, -0.0, 0.5, -3, nan})
                 .castTo(DType::Bool)
                 .take();
  const uint8_t *v = b.dataAs<uint8_t>();
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 0);
  EXPECT_EQ(v[2], 1);
  EXPECT_EQ(v[3], 1);
  EXPECT_EQ(v[4], 1);
  // Any non-zero byte of a Bool tensor reads as true.
  uint8_t raw[2] = {0, 7};
  Tensor wrapped = Tensor::wrap(raw, DType::Bool, {2});
  EXPECT_EQ(wrapped.getAsDouble(1), 1.0);
  Tensor asI32 = wrapped.castTo(DType::I32).take();
  EXPECT_EQ(asI32.dataAs<int32_t>()[1], 1);
}

TEST(CastTest, IntegersWrapAround) {
  Tensor i64 = Tensor::allocate(DType::I64, {3});
  i64.dataAs<int64_t>()[0] = 300;
  i64.dataAs<int64_t>()[1] = -1;
  i64.dataAs<int64_t>()[2] = (int64_t(1) << 32) + 5;
  Tensor i8 = i64.castTo(DType::I8).take();
  EXPECT_EQ(i8.dataAs<int8_t>()[0], 44);
  Tensor u8 = i64.castTo(DType::U8).take();
  EXPECT_EQ(u8.dataAs<uint8_t>()[1], 255);
  Tensor i32 = i64.castTo(DType::I32).take();
  EXPECT_EQ(i32.dataAs<int32_t>()[2], 5);
}

TEST(CastTest, FloatConversionsKeepSpecials) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (DType from : {DType::F32, DType::F16, DType::BF16, DType::F64})
    for (DType to : {DType::F32, DType::F16, DType::BF16, DType::F64}) {
      Tensor out = makeTensor(from, {nan, inf, -inf, -0.0}).castTo(to).take();
      EXPECT_TRUE(std::isnan(out.getAsDouble(0)));
      EXPECT_EQ(out.getAsDouble(1), inf);
      EXPECT_EQ(out.getAsDouble(2), -inf);
      EXPECT_EQ(out.getAsDouble(3), 0.0);
      EXPECT_TRUE(std::signbit(out.getAsDouble(3)));
    }
  // f32 -> f16 of a tensor matches the scalar conversion.
  Tensor f = makeTensor(DType::F32, {0.1, 65520, 1e-8});
  Tensor h = f.castTo(DType::F16).take();
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(h.dataAs<uint16_t>()[i], floatToHalfBits(f.dataAs<float>()[i]));
}

TEST(CastTest, SameDTypeCopies) {
  Tensor a = makeTensor(DType::I32, {1, 2, 3});
  Tensor b = a.castTo(DType::I32).take();
  EXPECT_NE(a.data(), b.data());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byteSize()), 0);
}

TEST(CastTest, EmptyAndScalar) {
  Tensor empty = Tensor::allocate(DType::F32, {0, 3});
  Tensor castEmpty = empty.castTo(DType::F16).take();
  EXPECT_EQ(castEmpty.shape(), (std::vector<int64_t>{0, 3}));
  Tensor scalar = Tensor::allocate(DType::F64, {});
  scalar.dataAs<double>()[0] = 2.5;
  Tensor castScalar = scalar.castTo(DType::BF16).take();
  EXPECT_EQ(castScalar.rank(), 0u);
  EXPECT_EQ(castScalar.getAsDouble(0), 2.5);
}

TEST(CastTest, GetAsDoubleReadsEveryDType) {
  for (DType dtype : kAllDTypes) {
    Tensor t = makeTensor(dtype, {0, 1, 3});
    EXPECT_EQ(t.getAsDouble(2), dtype == DType::Bool ? 1.0 : 3.0)
        << dtypeName(dtype);
  }
  Tensor big = Tensor::allocate(DType::I64, {1});
  big.dataAs<int64_t>()[0] = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(big.getAsDouble(0), -9223372036854775808.0);
}

} // namespace

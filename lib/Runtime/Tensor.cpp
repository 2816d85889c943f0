//===- Tensor.cpp - dense host tensors and dtype conversions --------------===//
//
// Tensor storage and element conversions. The f16/bf16 rounding works on the
// exact integer significand of the source (double or int64), so every
// conversion rounds once; going through float first would round twice and be
// off by one ulp on some inputs.
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/Tensor.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

using namespace fx::rt;

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

size_t fx::rt::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I8:
  case DType::U8:
  case DType::Bool:
    return 1;
  }
  return 0;
}

const char *fx::rt::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F64:
    return "f64";
  case DType::I64:
    return "i64";
  case DType::I32:
    return "i32";
  case DType::I8:
    return "i8";
  case DType::U8:
    return "u8";
  case DType::Bool:
    return "i1";
  }
  return "<invalid dtype>";
}

static constexpr DType kAllDTypes[] = {DType::F32, DType::F16, DType::BF16,
                                       DType::F64, DType::I64, DType::I32,
                                       DType::I8,  DType::U8,  DType::Bool};

std::optional<DType> fx::rt::parseDType(std::string_view name) {
  for (DType dtype : kAllDTypes)
    if (name == dtypeName(dtype))
      return dtype;
  return std::nullopt;
}

bool fx::rt::isFloatDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 ||
         dtype == DType::F64;
}

std::optional<size_t>
fx::rt::checkedByteSize(DType dtype, const std::vector<int64_t> &shape) {
  size_t bytes = dtypeSize(dtype);
  bool zero = false;
  // Overflow matters even when a later dimension is 0: numpy and safetensors
  // reject such shapes too, and it keeps numel() itself from overflowing.
  size_t elements = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    if (dim == 0) {
      zero = true;
      continue;
    }
    if (elements > std::numeric_limits<size_t>::max() / uint64_t(dim))
      return std::nullopt;
    elements *= size_t(dim);
  }
  if (elements > std::numeric_limits<size_t>::max() / bytes)
    return std::nullopt;
  return zero ? 0 : elements * bytes;
}

//===----------------------------------------------------------------------===//
// f16 / bf16 bit conversions
//===----------------------------------------------------------------------===//

namespace {
/// Layout of a 16-bit binary floating-point format (sign, exponent bits,
/// fraction bits): binary16 is 1-5-10, bfloat16 is 1-8-7.
struct Format16 {
  int expBits;
  int manBits;
};
constexpr Format16 kHalf{5, 10};
constexpr Format16 kBFloat16{8, 7};
} // namespace

/// Index of the highest set bit of `value`, which must be non-zero.
static int highestBit(uint64_t value) { return 63 - __builtin_clzll(value); }

/// Rounds `sig * 2^exp2` (sig != 0) to the nearest value of `format`, ties to
/// even.
static uint16_t roundToFormat(bool negative, uint64_t sig, int exp2,
                              Format16 format) {
  const int manBits = format.manBits;
  const int bias = (1 << (format.expBits - 1)) - 1;
  const uint64_t maxExp = (uint64_t(1) << format.expBits) - 1;
  const uint16_t sign = negative ? 0x8000 : 0;
  const uint16_t inf = uint16_t(sign | (maxExp << manBits));

  int msb = highestBit(sig);
  int biased = msb + exp2 + bias;
  if (biased >= int(maxExp))
    return inf;
  // Number of low bits of `sig` below the target's last fraction bit.
  int shift = msb - manBits;
  if (biased < 1)
    shift += 1 - biased;

  uint64_t rounded;
  if (shift <= 0) {
    rounded = sig << -shift;
  } else if (shift > 64) {
    rounded = 0; // Below half the smallest subnormal.
  } else {
    rounded = shift == 64 ? 0 : sig >> shift;
    uint64_t rem = shift == 64 ? sig : sig & ((uint64_t(1) << shift) - 1);
    uint64_t half = uint64_t(1) << (shift - 1);
    if (rem > half || (rem == half && (rounded & 1)))
      ++rounded;
  }
  // For normals, `rounded` includes the implicit bit; a carry out of the
  // fraction correctly bumps the exponent. Subnormals encode as themselves,
  // and rounding up to 2^manBits gives the smallest normal.
  uint64_t encoded = biased >= 1 ? (uint64_t(biased) << manBits) +
                                       (rounded - (uint64_t(1) << manBits))
                                 : rounded;
  if (encoded >= (maxExp << manBits))
    return inf;
  return uint16_t(sign | encoded);
}

static uint16_t doubleToFormat(double value, Format16 format) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  bool negative = bits >> 63;
  int exp = int((bits >> 52) & 0x7ff);
  uint64_t man = bits & ((uint64_t(1) << 52) - 1);
  const uint16_t sign = negative ? 0x8000 : 0;
  const uint64_t expMask = ((uint64_t(1) << format.expBits) - 1)
                           << format.manBits;
  if (exp == 0x7ff) {
    if (man == 0)
      return uint16_t(sign | expMask);
    // Keep the top payload bits and set the quiet bit, so a NaN stays a NaN.
    uint64_t payload = man >> (52 - format.manBits);
    uint64_t quiet = uint64_t(1) << (format.manBits - 1);
    return uint16_t(sign | expMask | quiet | payload);
  }
  if (exp == 0 && man == 0)
    return sign;
  if (exp == 0)
    return roundToFormat(negative, man, -1074, format);
  return roundToFormat(negative, man | (uint64_t(1) << 52), exp - 1075, format);
}

static uint16_t int64ToFormat(int64_t value, Format16 format) {
  if (value == 0)
    return 0;
  bool negative = value < 0;
  uint64_t magnitude = negative ? 0 - uint64_t(value) : uint64_t(value);
  return roundToFormat(negative, magnitude, 0, format);
}

uint16_t fx::rt::floatToHalfBits(float value) {
  return doubleToFormat(value, kHalf);
}
uint16_t fx::rt::doubleToHalfBits(double value) {
  return doubleToFormat(value, kHalf);
}
uint16_t fx::rt::floatToBFloat16Bits(float value) {
  return doubleToFormat(value, kBFloat16);
}
uint16_t fx::rt::doubleToBFloat16Bits(double value) {
  return doubleToFormat(value, kBFloat16);
}

float fx::rt::halfBitsToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t man = bits & 0x3ff;
  uint32_t out;
  if (exp == 0x1f) {
    out = sign | 0x7f800000u | (man << 13);
  } else if (exp == 0) {
    // Zero or subnormal: man * 2^-24, exact in float.
    float magnitude = std::ldexp(float(man), -24);
    return sign ? -magnitude : magnitude;
  } else {
    out = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  float result;
  std::memcpy(&result, &out, sizeof(result));
  return result;
}

float fx::rt::bfloat16BitsToFloat(uint16_t bits) {
  uint32_t out = uint32_t(bits) << 16;
  float result;
  std::memcpy(&result, &out, sizeof(result));
  return result;
}

//===----------------------------------------------------------------------===//
// Element conversions
//===----------------------------------------------------------------------===//

namespace {
/// Every element converts through one of two exact intermediates: double for
/// floating-point sources, int64_t for integer and Bool sources.
template <DType D> struct Element;

template <typename I> I saturatingTrunc(double value) {
  if (std::isnan(value))
    return 0;
  // Both bounds are powers of two, so they are exact doubles.
  constexpr double lo = double(std::numeric_limits<I>::min());
  constexpr double hiExclusive =
      2.0 * double(std::numeric_limits<I>::max() / 2 + 1);
  double truncated = std::trunc(value);
  if (truncated <= lo)
    return std::numeric_limits<I>::min();
  if (truncated >= hiExclusive)
    return std::numeric_limits<I>::max();
  return I(truncated);
}

template <typename T> struct FloatElement {
  using Storage = T;
  static constexpr bool isFloat = true;
  static double toDouble(T v) { return v; }
  static T fromDouble(double v) { return T(v); }
  static T fromInt(int64_t v) { return T(v); }
};

template <Format16 const &F, float (*Widen)(uint16_t)> struct Float16Element {
  using Storage = uint16_t;
  static constexpr bool isFloat = true;
  static double toDouble(uint16_t v) { return Widen(v); }
  static uint16_t fromDouble(double v) { return doubleToFormat(v, F); }
  static uint16_t fromInt(int64_t v) { return int64ToFormat(v, F); }
};

template <typename I> struct IntElement {
  using Storage = I;
  static constexpr bool isFloat = false;
  static int64_t toInt(I v) { return v; }
  static I fromDouble(double v) { return saturatingTrunc<I>(v); }
  // Wraps around, as torch's integer casts do.
  static I fromInt(int64_t v) { return I(v); }
};

template <> struct Element<DType::F32> : FloatElement<float> {};
template <> struct Element<DType::F64> : FloatElement<double> {};
template <>
struct Element<DType::F16> : Float16Element<kHalf, fx::rt::halfBitsToFloat> {};
template <>
struct Element<DType::BF16>
    : Float16Element<kBFloat16, fx::rt::bfloat16BitsToFloat> {};
template <> struct Element<DType::I64> : IntElement<int64_t> {};
template <> struct Element<DType::I32> : IntElement<int32_t> {};
template <> struct Element<DType::I8> : IntElement<int8_t> {};
template <> struct Element<DType::U8> : IntElement<uint8_t> {};
template <> struct Element<DType::Bool> {
  using Storage = uint8_t;
  static constexpr bool isFloat = false;
  static int64_t toInt(uint8_t v) { return v != 0; }
  static uint8_t fromDouble(double v) { return v != 0.0; }
  static uint8_t fromInt(int64_t v) { return v != 0; }
};

/// Calls `fn(std::integral_constant<DType, dtype>())`.
template <typename Fn> void visitDType(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    return fn(std::integral_constant<DType, DType::F32>());
  case DType::F16:
    return fn(std::integral_constant<DType, DType::F16>());
  case DType::BF16:
    return fn(std::integral_constant<DType, DType::BF16>());
  case DType::F64:
    return fn(std::integral_constant<DType, DType::F64>());
  case DType::I64:
    return fn(std::integral_constant<DType, DType::I64>());
  case DType::I32:
    return fn(std::integral_constant<DType, DType::I32>());
  case DType::I8:
    return fn(std::integral_constant<DType, DType::I8>());
  case DType::U8:
    return fn(std::integral_constant<DType, DType::U8>());
  case DType::Bool:
    return fn(std::integral_constant<DType, DType::Bool>());
  }
}

template <DType S, DType D>
void convertElements(const void *src, void *dst, size_t count) {
  using Src = Element<S>;
  using Dst = Element<D>;
  const auto *in = static_cast<const typename Src::Storage *>(src);
  auto *out = static_cast<typename Dst::Storage *>(dst);
  for (size_t i = 0; i < count; ++i) {
    if constexpr (Src::isFloat)
      out[i] = Dst::fromDouble(Src::toDouble(in[i]));
    else
      out[i] = Dst::fromInt(Src::toInt(in[i]));
  }
}
} // namespace

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

static constexpr size_t kAlignment = 64;

static std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

static size_t countElements(const std::vector<int64_t> &shape) {
  size_t count = 1;
  for (int64_t dim : shape)
    count *= size_t(dim);
  return count;
}

Tensor::Tensor() : dims{0} {}

Result<Tensor> Tensor::tryAllocate(DType dtype, std::vector<int64_t> shape) {
  std::optional<size_t> bytes = checkedByteSize(dtype, shape);
  if (!bytes)
    return Status::error("cannot allocate a " + std::string(dtypeName(dtype)) +
                         " tensor of shape " + formatShape(shape) +
                         ": negative dimension or size overflow");
  // aligned_alloc wants a non-zero multiple of the alignment.
  size_t padded = *bytes == 0 ? kAlignment : *bytes;
  if (padded > std::numeric_limits<size_t>::max() - kAlignment)
    return Status::error("cannot allocate " + std::to_string(*bytes) +
                         " bytes");
  padded = (padded + kAlignment - 1) / kAlignment * kAlignment;
  void *memory = std::aligned_alloc(kAlignment, padded);
  if (!memory)
    return Status::error("out of memory allocating " + std::to_string(*bytes) +
                         " bytes for a " + dtypeName(dtype) + " tensor");
  std::memset(memory, 0, padded);

  Tensor tensor;
  tensor.elemType = dtype;
  tensor.numElements = countElements(shape);
  tensor.dims = std::move(shape);
  tensor.ptr = memory;
  tensor.storage = std::shared_ptr<void>(memory, std::free);
  tensor.owned = true;
  return tensor;
}

Tensor Tensor::allocate(DType dtype, std::vector<int64_t> shape) {
  Result<Tensor> tensor = tryAllocate(dtype, std::move(shape));
  if (!tensor.isOk()) {
    // A precondition violation or out of memory, as for std::vector.
    std::fprintf(stderr, "fx runtime: %s\n", tensor.message().c_str());
    std::abort();
  }
  return tensor.take();
}

Tensor Tensor::wrap(void *data, DType dtype, std::vector<int64_t> shape,
                    std::shared_ptr<void> keepAlive) {
  Tensor tensor;
  tensor.elemType = dtype;
  tensor.numElements = countElements(shape);
  tensor.dims = std::move(shape);
  tensor.ptr = data;
  tensor.storage = std::move(keepAlive);
  tensor.owned = false;
  return tensor;
}

std::string Tensor::shapeString() const { return formatShape(dims); }

Result<Tensor> Tensor::castTo(DType dtype) const {
  Result<Tensor> result = tryAllocate(dtype, dims);
  if (!result.isOk())
    return result;
  Tensor &out = result.value();
  if (dtype == elemType) {
    if (byteSize())
      std::memcpy(out.data(), ptr, byteSize());
    return result;
  }
  visitDType(elemType, [&](auto src) {
    visitDType(dtype, [&](auto dst) {
      convertElements<decltype(src)::value, decltype(dst)::value>(
          ptr, out.data(), numElements);
    });
  });
  return result;
}

Tensor Tensor::clone() const {
  Tensor copy = allocate(elemType, dims);
  if (byteSize())
    std::memcpy(copy.data(), ptr, byteSize());
  return copy;
}

double Tensor::getAsDouble(size_t flatIndex) const {
  assert(flatIndex < numElements && "getAsDouble index out of range");
  double value = 0;
  visitDType(elemType, [&](auto tag) {
    using E = Element<decltype(tag)::value>;
    auto element = static_cast<const typename E::Storage *>(ptr)[flatIndex];
    if constexpr (E::isFloat)
      value = E::toDouble(element);
    else
      value = double(E::toInt(element));
  });
  return value;
}

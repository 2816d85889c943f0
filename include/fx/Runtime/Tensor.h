//===- Tensor.h - dense host tensors of the runtime -------------*- C++ -*-===//
//
// A Tensor is a dtype, a shape and a pointer to contiguous row-major (C order)
// data. Its storage is either allocated and owned by the tensor (shared between
// copies, like torch.Tensor's storage) or user memory it wraps without copying,
// optionally kept alive through a shared_ptr (how safetensors tensors keep
// their file mapping alive).
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_TENSOR_H
#define FX_RUNTIME_TENSOR_H

#include "fx/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fx::rt {

/// Element types of runtime tensors. Bool is stored as one byte per element
/// (0 or 1 when written by the runtime; any non-zero byte reads as true).
enum class DType : uint8_t { F32, F16, BF16, F64, I64, I32, I8, U8, Bool };

/// Size of one element in bytes.
size_t dtypeSize(DType dtype);
/// The MLIR spelling of the element type: "f32", "f16", "bf16", "f64", "i64",
/// "i32", "i8", "u8", "i1".
const char *dtypeName(DType dtype);
/// Parses a name produced by dtypeName().
std::optional<DType> parseDType(std::string_view name);
/// True for F32, F16, BF16 and F64.
bool isFloatDType(DType dtype);

/// The number of bytes a tensor of `dtype` and `shape` occupies, or nullopt if
/// a dimension is negative or the size does not fit in size_t.
std::optional<size_t> checkedByteSize(DType dtype,
                                      const std::vector<int64_t> &shape);

/// IEEE binary16 and bfloat16 conversions. Narrowing rounds to nearest, ties
/// to even, handles subnormals, overflows to infinity and keeps NaNs NaN (sign
/// and top payload bits kept, quiet bit set). Widening is exact.
uint16_t floatToHalfBits(float value);
uint16_t doubleToHalfBits(double value);
float halfBitsToFloat(uint16_t bits);
uint16_t floatToBFloat16Bits(float value);
uint16_t doubleToBFloat16Bits(double value);
float bfloat16BitsToFloat(uint16_t bits);

/// A dense, contiguous, row-major tensor. Copies are shallow: they share the
/// storage, as torch.Tensor does; use clone() for a deep copy.
class Tensor {
public:
  /// An empty f32 tensor of shape [0] with no storage.
  Tensor();

  /// Allocates a zero-filled tensor with 64-byte aligned storage owned by the
  /// tensor and shared by its copies. The shape must have no negative
  /// dimension and a byte size that fits in memory; use tryAllocate() for
  /// shapes that come from untrusted input.
  static Tensor allocate(DType dtype, std::vector<int64_t> shape);
  /// As allocate(), but reports a bad shape or a failed allocation as an
  /// error.
  static Result<Tensor> tryAllocate(DType dtype, std::vector<int64_t> shape);

  /// A non-owning view of `data`, which must hold the tensor's elements in C
  /// order and outlive the tensor and its copies, unless `keepAlive` is given:
  /// then the tensor and its copies hold `keepAlive` and the memory lives at
  /// least as long as they do. No data is copied.
  static Tensor wrap(void *data, DType dtype, std::vector<int64_t> shape,
                     std::shared_ptr<void> keepAlive = nullptr);

  DType dtype() const { return elemType; }
  const std::vector<int64_t> &shape() const { return dims; }
  size_t rank() const { return dims.size(); }
  /// Number of elements (1 for a rank-0 tensor).
  size_t numel() const { return numElements; }
  /// numel() * dtypeSize(dtype()).
  size_t byteSize() const { return numElements * dtypeSize(elemType); }

  void *data() { return ptr; }
  const void *data() const { return ptr; }
  /// The data as a T pointer; T must match the dtype's storage (float for
  /// F32, uint16_t for F16/BF16, uint8_t for Bool, ...).
  template <typename T> T *dataAs() { return static_cast<T *>(ptr); }
  template <typename T> const T *dataAs() const {
    return static_cast<const T *>(ptr);
  }

  /// True if the storage was allocated by allocate() and is freed with the
  /// last copy of this tensor; false for wrapped memory (even when the tensor
  /// holds a keep-alive for it).
  bool ownsStorage() const { return owned; }

  /// The shape as "[2, 3]" ("[]" for a scalar).
  std::string shapeString() const;

  /// A newly allocated tensor holding the elements converted to `dtype`:
  /// floats to f16/bf16 round to nearest even; floats to integers truncate
  /// toward zero, saturate at the integer's range and map NaN to 0; integers
  /// to narrower integers wrap around; anything to Bool is `!= 0` (NaN is
  /// true); Bool is 0 or 1. Casting to the same dtype copies.
  Result<Tensor> castTo(DType dtype) const;

  /// A deep copy with newly allocated storage.
  Tensor clone() const;

  /// Element `flatIndex` (in C order) as a double; 64-bit integers beyond
  /// 2^53 round. `flatIndex` must be less than numel().
  double getAsDouble(size_t flatIndex) const;

private:
  DType elemType = DType::F32;
  std::vector<int64_t> dims;
  size_t numElements = 0;
  void *ptr = nullptr;
  /// Owned storage, or the keep-alive of wrapped memory.
  std::shared_ptr<void> storage;
  bool owned = false;
};

} // namespace fx::rt

#endif // FX_RUNTIME_TENSOR_H

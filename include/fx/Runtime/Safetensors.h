//===- Safetensors.h - memory-mapped .safetensors weight files --*- C++ -*-===//
//
// The weights format fx-import writes: an 8-byte little-endian header length,
// a JSON header mapping tensor names to dtype, shape and byte range, then the
// raw data. Files are memory-mapped and tensors alias the mapping, so binding
// a model's parameters copies nothing and pages in only what is used.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_SAFETENSORS_H
#define FX_RUNTIME_SAFETENSORS_H

#include "fx/Runtime/Status.h"
#include "fx/Runtime/Tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fx::rt {

/// An open, validated, memory-mapped .safetensors file. Movable, not
/// copyable.
class SafetensorsFile {
public:
  /// Maps `path` and validates its header: the header length fits the file,
  /// the header is valid JSON, and every tensor has a supported dtype
  /// (F32, F16, BF16, F64, I64, I32, I8, U8, BOOL), a non-negative shape and
  /// non-overlapping data_offsets inside the data section whose length
  /// matches the shape. `__metadata__` must map strings to strings.
  static Result<SafetensorsFile> open(const std::string &path);

  SafetensorsFile(SafetensorsFile &&) noexcept;
  SafetensorsFile &operator=(SafetensorsFile &&) noexcept;
  SafetensorsFile(const SafetensorsFile &) = delete;
  SafetensorsFile &operator=(const SafetensorsFile &) = delete;
  /// Releases the mapping; it is unmapped once no tensor from get() still
  /// refers to it.
  ~SafetensorsFile();

  const std::string &path() const { return filePath; }
  /// Tensor names, sorted.
  std::vector<std::string> names() const;
  bool contains(const std::string &name) const;
  /// The `__metadata__` entries (empty if the file has none).
  const std::map<std::string, std::string> &metadata() const { return meta; }

  /// The tensor `name`, wrapping the mapped file without a copy; the tensor
  /// keeps the mapping alive. The mapping is private copy-on-write: writes
  /// through the tensor never reach the file, but are seen by other tensors
  /// got for the same name. Data not aligned to its element size (never the
  /// case in files from writeSafetensors or the reference implementation) is
  /// copied into an owned tensor instead.
  Result<Tensor> get(const std::string &name) const;

private:
  struct Mapping;
  struct Entry {
    DType dtype;
    std::vector<int64_t> shape;
    uint64_t begin;
    uint64_t end;
  };

  SafetensorsFile() = default;

  std::string filePath;
  std::shared_ptr<Mapping> mapping;
  /// Start of the data section within the mapping.
  uint64_t dataStart = 0;
  std::map<std::string, Entry> entries;
  std::map<std::string, std::string> meta;
};

/// Writes `tensors` as a .safetensors file the reference implementation
/// reads: header keys sorted, the header padded with spaces to a multiple of
/// 8 bytes, and data ordered by decreasing element size so that every tensor
/// is aligned to its element size. Names must be unique, valid UTF-8 and not
/// "__metadata__".
Status
writeSafetensors(const std::string &path,
                 const std::vector<std::pair<std::string, Tensor>> &tensors,
                 const std::map<std::string, std::string> &metadata = {});

} // namespace fx::rt

#endif // FX_RUNTIME_SAFETENSORS_H

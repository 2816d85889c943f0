//===- Safetensors.cpp - memory-mapped .safetensors weight files ----------===//
//
// Validation follows the reference implementation (huggingface/safetensors):
// header length bounded by the file and by 100 MB, a JSON object header,
// byte ranges inside the data section matching shape * element size. Every
// check happens in open(), so get() cannot fail on a file that opened.
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/Safetensors.h"

#include "FileIO.h"
#include "Json.h"

#include <algorithm>
#include <cstring>
#include <sys/mman.h>

using namespace fx::rt;
using namespace fx::rt::detail;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the safetensors reader and writer assume a little-endian host"
#endif

/// The reference implementation's limit; it keeps a corrupt length from
/// making us parse gigabytes of tensor data as JSON.
static constexpr uint64_t kMaxHeaderSize = 100'000'000;

static const char *safetensorsDTypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "F32";
  case DType::F16:
    return "F16";
  case DType::BF16:
    return "BF16";
  case DType::F64:
    return "F64";
  case DType::I64:
    return "I64";
  case DType::I32:
    return "I32";
  case DType::I8:
    return "I8";
  case DType::U8:
    return "U8";
  case DType::Bool:
    return "BOOL";
  }
  return "?";
}

static std::optional<DType> parseSafetensorsDType(const std::string &name) {
  for (DType dtype :
       {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I64, DType::I32,
        DType::I8, DType::U8, DType::Bool})
    if (name == safetensorsDTypeName(dtype))
      return dtype;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// SafetensorsFile
//===----------------------------------------------------------------------===//

/// A private read-write mapping of the whole file, unmapped when the last
/// SafetensorsFile or tensor referring to it goes away.
struct SafetensorsFile::Mapping {
  Mapping(uint8_t *base, size_t size) : base(base), size(size) {}
  Mapping(const Mapping &) = delete;
  Mapping &operator=(const Mapping &) = delete;
  ~Mapping() { ::munmap(base, size); }

  uint8_t *base;
  size_t size;
};

SafetensorsFile::SafetensorsFile(SafetensorsFile &&) noexcept = default;
SafetensorsFile &
SafetensorsFile::operator=(SafetensorsFile &&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

/// Reads a JSON array of non-negative integers.
static bool readUIntArray(const json::Value &value, std::vector<int64_t> &out) {
  if (value.kind != json::Value::Kind::Array)
    return false;
  for (const json::Value &element : value.elements) {
    if (!element.integer || *element.integer < 0)
      return false;
    out.push_back(*element.integer);
  }
  return true;
}

Result<SafetensorsFile> SafetensorsFile::open(const std::string &path) {
  Result<InputFile> opened = InputFile::open(path);
  if (!opened.isOk())
    return opened.status();
  const InputFile &file = opened.value();
  uint64_t fileSize = file.size();
  if (fileSize < 8)
    return Status::error(
        path + ": not a safetensors file: " + std::to_string(fileSize) +
        " bytes is too short for the 8-byte header length");

  // MAP_PRIVATE with write access: the file is opened read-only and never
  // modified, but users may write to the tensors (copy-on-write) instead of
  // crashing on a read-only page.
  void *base = ::mmap(nullptr, size_t(fileSize), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE, file.fd(), 0);
  if (base == MAP_FAILED)
    return Status::error(path + ": cannot mmap: " + errnoMessage());
  SafetensorsFile result;
  result.filePath = path;
  result.mapping =
      std::make_shared<Mapping>(static_cast<uint8_t *>(base), fileSize);
  const uint8_t *bytes = result.mapping->base;

  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i)
    headerLen = (headerLen << 8) | bytes[i];
  if (headerLen > fileSize - 8)
    return Status::error(path + ": header length " + std::to_string(headerLen) +
                         " exceeds the file size (" + std::to_string(fileSize) +
                         " bytes); not a safetensors file or truncated");
  if (headerLen > kMaxHeaderSize)
    return Status::error(path + ": header length " + std::to_string(headerLen) +
                         " exceeds the 100 MB limit");
  std::string_view headerText(reinterpret_cast<const char *>(bytes + 8),
                              size_t(headerLen));
  if (headerText.empty() || headerText.front() != '{')
    return Status::error(path + ": invalid header: it does not start with '{'");
  Result<json::Value> parsed = json::parse(headerText);
  if (!parsed.isOk())
    return Status::error(path + ": invalid header: " + parsed.message());
  const json::Value &header = parsed.value();

  result.dataStart = 8 + headerLen;
  uint64_t dataSize = fileSize - result.dataStart;
  for (size_t i = 0; i < header.keys.size(); ++i) {
    const std::string &name = header.keys[i];
    const json::Value &value = header.elements[i];
    if (name == "__metadata__") {
      if (value.kind != json::Value::Kind::Object)
        return Status::error(path + ": invalid header: __metadata__ is not "
                                    "an object");
      for (size_t j = 0; j < value.keys.size(); ++j) {
        if (value.elements[j].kind != json::Value::Kind::String)
          return Status::error(path + ": invalid header: __metadata__ value " +
                               json::quote(value.keys[j]) + " is not a string");
        result.meta[value.keys[j]] = value.elements[j].text;
      }
      continue;
    }
    std::string where = path + ": tensor " + json::quote(name);
    if (value.kind != json::Value::Kind::Object)
      return Status::error(where + ": entry is not an object");
    const json::Value *dtypeValue = value.find("dtype");
    const json::Value *shapeValue = value.find("shape");
    const json::Value *offsetsValue = value.find("data_offsets");
    if (!dtypeValue || !shapeValue || !offsetsValue)
      return Status::error(where + ": entry lacks '" +
                           (!dtypeValue   ? "dtype"
                            : !shapeValue ? "shape"
                                          : "data_offsets") +
                           "'");
    if (dtypeValue->kind != json::Value::Kind::String)
      return Status::error(where + ": 'dtype' is not a string");
    std::optional<DType> dtype = parseSafetensorsDType(dtypeValue->text);
    if (!dtype)
      return Status::error(where + ": unsupported dtype " +
                           json::quote(dtypeValue->text) +
                           " (supported: F32 F16 BF16 F64 I64 I32 I8 U8 "
                           "BOOL)");
    Entry entry{*dtype, {}, 0, 0};
    if (!readUIntArray(*shapeValue, entry.shape))
      return Status::error(where + ": 'shape' is not an array of "
                                   "non-negative integers");
    std::vector<int64_t> offsets;
    if (!readUIntArray(*offsetsValue, offsets) || offsets.size() != 2)
      return Status::error(where + ": 'data_offsets' is not a pair of "
                                   "non-negative integers");
    entry.begin = uint64_t(offsets[0]);
    entry.end = uint64_t(offsets[1]);
    if (entry.begin > entry.end || entry.end > dataSize)
      return Status::error(
          where + ": data_offsets [" + std::to_string(entry.begin) + ", " +
          std::to_string(entry.end) + "] are out of range of the " +
          std::to_string(dataSize) + "-byte data section");
    std::optional<size_t> bytes = checkedByteSize(entry.dtype, entry.shape);
    if (!bytes || *bytes != entry.end - entry.begin)
      return Status::error(
          where + ": data_offsets [" + std::to_string(entry.begin) + ", " +
          std::to_string(entry.end) + "] span " +
          std::to_string(entry.end - entry.begin) + " bytes but " +
          dtypeValue->text + " " +
          Tensor::wrap(nullptr, entry.dtype, entry.shape).shapeString() +
          (bytes ? " needs " + std::to_string(*bytes) : " overflows"));
    result.entries.emplace(name, std::move(entry));
  }

  // Overlapping tensors would alias each other's data: a corrupt header.
  std::vector<std::pair<const std::string *, const Entry *>> byOffset;
  for (const auto &[name, entry] : result.entries)
    if (entry.end > entry.begin)
      byOffset.emplace_back(&name, &entry);
  std::sort(byOffset.begin(), byOffset.end(),
            [](auto &a, auto &b) { return a.second->begin < b.second->begin; });
  for (size_t i = 1; i < byOffset.size(); ++i)
    if (byOffset[i].second->begin < byOffset[i - 1].second->end)
      return Status::error(
          path + ": tensors " + json::quote(*byOffset[i - 1].first) + " and " +
          json::quote(*byOffset[i].first) + " have overlapping data_offsets");
  return result;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> result;
  result.reserve(entries.size());
  for (const auto &entry : entries)
    result.push_back(entry.first);
  return result;
}

bool SafetensorsFile::contains(const std::string &name) const {
  return entries.count(name) != 0;
}

Result<Tensor> SafetensorsFile::get(const std::string &name) const {
  auto it = entries.find(name);
  if (it == entries.end())
    return Status::error(filePath + ": no tensor named " + json::quote(name));
  const Entry &entry = it->second;
  uint8_t *data = mapping->base + dataStart + entry.begin;
  if (reinterpret_cast<uintptr_t>(data) % dtypeSize(entry.dtype) == 0)
    return Tensor::wrap(data, entry.dtype, entry.shape, mapping);
  Result<Tensor> copy = Tensor::tryAllocate(entry.dtype, entry.shape);
  if (!copy.isOk())
    return Status::error(filePath + ": " + copy.message());
  std::memcpy(copy.value().data(), data, size_t(entry.end - entry.begin));
  return copy;
}

//===----------------------------------------------------------------------===//
// writeSafetensors
//===----------------------------------------------------------------------===//

Status fx::rt::writeSafetensors(
    const std::string &path,
    const std::vector<std::pair<std::string, Tensor>> &tensors,
    const std::map<std::string, std::string> &metadata) {
  std::map<std::string, const Tensor *> byName;
  for (const auto &[name, tensor] : tensors) {
    if (name == "__metadata__")
      return Status::error(path + ": '__metadata__' is reserved and cannot "
                                  "name a tensor");
    if (!json::isValidUtf8(name))
      return Status::error(path + ": tensor name " + json::quote(name) +
                           " is not valid UTF-8");
    if (!byName.emplace(name, &tensor).second)
      return Status::error(path + ": duplicate tensor name " +
                           json::quote(name));
  }
  for (const auto &[key, value] : metadata)
    if (!json::isValidUtf8(key) || !json::isValidUtf8(value))
      return Status::error(path + ": __metadata__ entry " + json::quote(key) +
                           " is not valid UTF-8");

  // Largest elements first keeps every tensor aligned to its element size,
  // given the 8-byte aligned data section.
  std::vector<std::pair<const std::string *, const Tensor *>> layout;
  for (const auto &[name, tensor] : byName)
    layout.emplace_back(&name, tensor);
  std::sort(layout.begin(), layout.end(), [](auto &a, auto &b) {
    size_t sizeA = dtypeSize(a.second->dtype());
    size_t sizeB = dtypeSize(b.second->dtype());
    return sizeA != sizeB ? sizeA > sizeB : *a.first < *b.first;
  });
  std::map<std::string, std::pair<uint64_t, uint64_t>> offsets;
  uint64_t offset = 0;
  for (const auto &[name, tensor] : layout) {
    offsets[*name] = {offset, offset + tensor->byteSize()};
    offset += tensor->byteSize();
  }

  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto &[key, value] : metadata) {
      header += first ? "" : ",";
      header += json::quote(key) + ":" + json::quote(value);
      first = false;
    }
    header += "}";
  }
  for (const auto &[name, tensor] : byName) {
    if (header.size() > 1)
      header += ",";
    header += json::quote(name) + ":{\"dtype\":\"" +
              safetensorsDTypeName(tensor->dtype()) + "\",\"shape\":[";
    for (size_t i = 0; i < tensor->rank(); ++i)
      header += (i ? "," : "") + std::to_string(tensor->shape()[i]);
    header += "],\"data_offsets\":[" + std::to_string(offsets[name].first) +
              "," + std::to_string(offsets[name].second) + "]}";
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');

  std::string prefix;
  for (int i = 0; i < 8; ++i)
    prefix.push_back(char((uint64_t(header.size()) >> (8 * i)) & 0xff));

  Result<OutputFile> opened = OutputFile::create(path);
  if (!opened.isOk())
    return opened.status();
  OutputFile &file = opened.value();
  if (Status s = file.write(prefix + header); !s.isOk())
    return s;
  for (const auto &[name, tensor] : layout)
    if (Status s = file.write(tensor->data(), tensor->byteSize()); !s.isOk())
      return s;
  return file.close();
}

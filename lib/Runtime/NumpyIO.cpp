//===- NumpyIO.cpp - reading and writing .npy and .npz files --------------===//
//
// The .npy format is a magic string, a version, a header length and a Python
// dict literal ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), })
// followed by the raw data. An .npz is a ZIP archive of .npy members. Both
// readers read straight from the file into the tensor's storage, and check
// every length against the file size before trusting it, so malformed files
// produce errors rather than huge allocations or out-of-bounds reads.
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/NumpyIO.h"

#include "FileIO.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <string_view>

using namespace fx::rt;
using namespace fx::rt::detail;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy reader and writer assume a little-endian host"
#endif

static constexpr char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicLen = 6;
/// numpy aligns the start of the data to 64 bytes.
static constexpr size_t kArrayAlign = 64;

//===----------------------------------------------------------------------===//
// Little-endian byte helpers and CRC-32
//===----------------------------------------------------------------------===//

static uint64_t loadLE(const uint8_t *bytes, int count) {
  uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i)
    value = (value << 8) | bytes[i];
  return value;
}

static void appendLE(std::string &out, uint64_t value, int count) {
  for (int i = 0; i < count; ++i)
    out.push_back(char((value >> (8 * i)) & 0xff));
}

namespace {
/// CRC-32 as ZIP uses it (IEEE polynomial, reflected).
class Crc32 {
public:
  void update(const void *data, size_t count) {
    static const Table table;
    const auto *bytes = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < count; ++i)
      state = table.entries[(state ^ bytes[i]) & 0xff] ^ (state >> 8);
  }
  uint32_t value() const { return ~state; }

private:
  struct Table {
    Table() {
      for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k)
          c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        entries[i] = c;
      }
    }
    uint32_t entries[256];
  };
  uint32_t state = 0xffffffffu;
};
} // namespace

//===----------------------------------------------------------------------===//
// .npy header: dtype descriptors
//===----------------------------------------------------------------------===//

/// The descr numpy writes for `dtype`, or nullptr for bf16.
static const char *npyDescr(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "<f4";
  case DType::F16:
    return "<f2";
  case DType::F64:
    return "<f8";
  case DType::I64:
    return "<i8";
  case DType::I32:
    return "<i4";
  case DType::I8:
    return "|i1";
  case DType::U8:
    return "|u1";
  case DType::Bool:
    return "|b1";
  case DType::BF16:
    return nullptr;
  }
  return nullptr;
}

static Result<DType> parseDescr(const std::string &descr,
                                const std::string &name) {
  std::string_view code = descr;
  char order = 0;
  if (!code.empty() && std::strchr("<>=|", code[0])) {
    order = code[0];
    code.remove_prefix(1);
  }
  std::optional<DType> dtype;
  if (code == "f4")
    dtype = DType::F32;
  else if (code == "f2")
    dtype = DType::F16;
  else if (code == "f8")
    dtype = DType::F64;
  else if (code == "i8")
    dtype = DType::I64;
  else if (code == "i4")
    dtype = DType::I32;
  else if (code == "i1")
    dtype = DType::I8;
  else if (code == "u1")
    dtype = DType::U8;
  else if (code == "b1" || code == "?")
    dtype = DType::Bool;
  if (!dtype)
    return Status::error(name + ": unsupported dtype '" + descr +
                         "' (supported: <f4 <f2 <f8 <i8 <i4 |i1 |u1 |b1)");
  // The host is little-endian, so '=' (native) is '<'. Byte order does not
  // apply to one-byte types.
  if (order == '>' && dtypeSize(*dtype) > 1)
    return Status::error(name + ": big-endian dtype '" + descr +
                         "' is not supported; save the array with "
                         "arr.astype(arr.dtype.newbyteorder('<'))");
  return *dtype;
}

//===----------------------------------------------------------------------===//
// .npy header: the Python dict literal
//===----------------------------------------------------------------------===//

namespace {
/// The subset of Python literals that .npy headers use.
struct PyValue {
  enum class Kind { String, Bool, None, Int, Tuple, List } kind;
  std::string text;
  bool boolean = false;
  int64_t integer = 0;
  std::vector<PyValue> items;
};

/// Parses the header dict with ast.literal_eval's grammar, restricted to
/// strings, ints, True/False/None, tuples and lists.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text(text) {}

  /// Parses `{key: value, ...}` followed only by whitespace.
  Status parseDict(std::vector<std::pair<std::string, PyValue>> &entries) {
    skipSpace();
    if (!consume('{'))
      return fail("expected '{'");
    skipSpace();
    while (!consume('}')) {
      PyValue key;
      if (Status s = parseValue(key, 0); !s.isOk())
        return s;
      if (key.kind != PyValue::Kind::String)
        return fail("dict keys must be strings");
      skipSpace();
      if (!consume(':'))
        return fail("expected ':'");
      PyValue value;
      if (Status s = parseValue(value, 0); !s.isOk())
        return s;
      for (const auto &entry : entries)
        if (entry.first == key.text)
          return fail("duplicate key '" + key.text + "'");
      entries.emplace_back(key.text, std::move(value));
      skipSpace();
      if (consume(','))
        skipSpace();
      else if (peek() != '}')
        return fail("expected ',' or '}'");
    }
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the dict");
    return Status::ok();
  }

private:
  static constexpr int kMaxDepth = 32;

  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  bool consume(char c) {
    if (peek() != c || pos >= text.size())
      return false;
    ++pos;
    return true;
  }
  bool consumeWord(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return false;
    size_t end = pos + word.size();
    if (end < text.size() &&
        (std::isalnum(static_cast<unsigned char>(text[end])) ||
         text[end] == '_'))
      return false;
    pos = end;
    return true;
  }
  void skipSpace() {
    while (pos < text.size() && std::strchr(" \t\r\n", text[pos]))
      ++pos;
  }
  Status fail(const std::string &what) const {
    return Status::error(what + " at offset " + std::to_string(pos));
  }

  Status parseValue(PyValue &value, int depth) {
    skipSpace();
    if (depth > kMaxDepth)
      return fail("nesting too deep");
    char c = peek();
    if (c == '\'' || c == '"')
      return parseString(value);
    if (c == '(' || c == '[')
      return parseSequence(value, depth);
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c)))
      return parseInt(value);
    if (consumeWord("True") || consumeWord("False")) {
      value.kind = PyValue::Kind::Bool;
      value.boolean = text[pos - 1] == 'e' && text[pos - 4] == 'T';
      return Status::ok();
    }
    if (consumeWord("None")) {
      value.kind = PyValue::Kind::None;
      return Status::ok();
    }
    return fail("expected a Python literal");
  }

  Status parseString(PyValue &value) {
    char quote = text[pos++];
    value.kind = PyValue::Kind::String;
    while (pos < text.size() && text[pos] != quote) {
      char c = text[pos++];
      if (c == '\n')
        return fail("newline in string");
      if (c == '\\') {
        if (pos >= text.size())
          break;
        c = text[pos++];
      }
      value.text.push_back(c);
    }
    if (!consume(quote))
      return fail("unterminated string");
    return Status::ok();
  }

  Status parseInt(PyValue &value) {
    bool negative = consume('-');
    if (!std::isdigit(static_cast<unsigned char>(peek())))
      return fail("expected digits");
    uint64_t magnitude = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      int digit = text[pos++] - '0';
      if (magnitude > (uint64_t(INT64_MAX) - digit) / 10)
        return fail("integer too large");
      magnitude = magnitude * 10 + digit;
    }
    // Python 2 numpy wrote long dimensions as "3L".
    if (peek() == 'L')
      ++pos;
    value.kind = PyValue::Kind::Int;
    value.integer = negative ? -int64_t(magnitude) : int64_t(magnitude);
    return Status::ok();
  }

  Status parseSequence(PyValue &value, int depth) {
    char close = text[pos] == '(' ? ')' : ']';
    value.kind = close == ')' ? PyValue::Kind::Tuple : PyValue::Kind::List;
    ++pos;
    skipSpace();
    bool sawComma = false;
    while (!consume(close)) {
      PyValue item;
      if (Status s = parseValue(item, depth + 1); !s.isOk())
        return s;
      value.items.push_back(std::move(item));
      skipSpace();
      if (consume(',')) {
        sawComma = true;
        skipSpace();
      } else if (peek() != close)
        return fail(std::string("expected ',' or '") + close + "'");
    }
    // "(3)" is the int 3 in Python, not a one-element tuple.
    if (close == ')' && value.items.size() == 1 && !sawComma) {
      PyValue inner = std::move(value.items.front());
      value = std::move(inner);
    }
    return Status::ok();
  }

  std::string_view text;
  size_t pos = 0;
};

struct NpyHeader {
  DType dtype;
  std::vector<int64_t> shape;
};
} // namespace

/// A short quote of `header` for error messages.
static std::string quoteHeader(std::string_view header) {
  std::string quoted(header.substr(0, 160));
  while (!quoted.empty() && (quoted.back() == ' ' || quoted.back() == '\n'))
    quoted.pop_back();
  if (header.size() > 160)
    quoted += "...";
  for (char &c : quoted)
    if (static_cast<unsigned char>(c) < 0x20)
      c = ' ';
  return "\"" + quoted + "\"";
}

static Result<NpyHeader> parseHeaderDict(std::string_view header,
                                         const std::string &name) {
  std::vector<std::pair<std::string, PyValue>> entries;
  if (Status s = HeaderParser(header).parseDict(entries); !s.isOk())
    return Status::error(name + ": malformed .npy header: " + s.message() +
                         " in " + quoteHeader(header));
  const PyValue *descr = nullptr, *fortran = nullptr, *shape = nullptr;
  for (const auto &[key, value] : entries) {
    if (key == "descr")
      descr = &value;
    else if (key == "fortran_order")
      fortran = &value;
    else if (key == "shape")
      shape = &value;
    else
      return Status::error(name + ": malformed .npy header: unexpected key '" +
                           key + "' in " + quoteHeader(header));
  }
  if (!descr || !fortran || !shape)
    return Status::error(name + ": malformed .npy header: missing key '" +
                         std::string(!descr     ? "descr"
                                     : !fortran ? "fortran_order"
                                                : "shape") +
                         "' in " + quoteHeader(header));

  if (descr->kind != PyValue::Kind::String)
    return Status::error(name +
                         ": unsupported dtype: structured dtypes are not "
                         "supported (descr is not a dtype string)");
  Result<DType> dtype = parseDescr(descr->text, name);
  if (!dtype.isOk())
    return dtype.status();

  if (shape->kind != PyValue::Kind::Tuple)
    return Status::error(name +
                         ": malformed .npy header: 'shape' is not a tuple");
  NpyHeader result{dtype.value(), {}};
  for (const PyValue &dim : shape->items) {
    if (dim.kind != PyValue::Kind::Int)
      return Status::error(
          name + ": malformed .npy header: 'shape' holds a non-integer");
    if (dim.integer < 0)
      return Status::error(name + ": invalid shape: negative dimension " +
                           std::to_string(dim.integer));
    result.shape.push_back(dim.integer);
  }

  if (fortran->kind != PyValue::Kind::Bool)
    return Status::error(
        name + ": malformed .npy header: 'fortran_order' is not True/False");
  // Fortran and C order lay out the data identically when at most one
  // dimension is larger than 1 (numpy writes 1-d arrays as either).
  size_t nontrivial = std::count_if(result.shape.begin(), result.shape.end(),
                                    [](int64_t d) { return d > 1; });
  if (fortran->boolean && nontrivial > 1)
    return Status::error(name +
                         ": Fortran-order arrays (fortran_order: True) are not "
                         "supported; save np.ascontiguousarray(arr) instead");
  return result;
}

//===----------------------------------------------------------------------===//
// .npy reading
//===----------------------------------------------------------------------===//

namespace {
/// A byte range of a file holding one .npy image: a whole .npy file, or a
/// stored .npz member. `name` is how errors refer to it.
struct NpyRegion {
  const InputFile &file;
  uint64_t base;
  uint64_t size;
  std::string name;

  Status read(uint64_t offset, void *dst, size_t count) const {
    return file.readAt(base + offset, dst, count);
  }
};
} // namespace

/// Reads the .npy image in `region`. If `crc` is given, it receives the CRC-32
/// of the whole region.
static Result<Tensor> readNpyRegion(const NpyRegion &region,
                                    uint32_t *crc = nullptr) {
  const std::string &name = region.name;
  // Magic (6), version (2), header length (2 in 1.0, 4 in 2.0/3.0).
  uint8_t prefix[12];
  size_t available = size_t(std::min<uint64_t>(region.size, sizeof(prefix)));
  if (Status s = region.read(0, prefix, available); !s.isOk())
    return s;
  size_t magicSeen = std::min(available, kMagicLen);
  if (std::memcmp(prefix, kMagic, magicSeen) != 0 || available == 0)
    return Status::error(name +
                         ": not an .npy file (bad magic: expected \\x93NUMPY)");
  if (available < 8)
    return Status::error(name + ": truncated header: the file has only " +
                         std::to_string(region.size) + " bytes");
  int major = prefix[6], minor = prefix[7];
  if (!((major == 1 || major == 2 || major == 3) && minor == 0))
    return Status::error(name + ": unsupported .npy format version " +
                         std::to_string(major) + "." + std::to_string(minor) +
                         " (supported: 1.0, 2.0, 3.0)");
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t prefixLen = 8 + lengthBytes;
  if (available < prefixLen)
    return Status::error(name + ": truncated header: the file has only " +
                         std::to_string(region.size) + " bytes");
  uint64_t headerLen = loadLE(prefix + 8, int(lengthBytes));
  uint64_t dataOffset = prefixLen + headerLen;
  if (dataOffset > region.size)
    return Status::error(name + ": truncated header: header length " +
                         std::to_string(headerLen) + " exceeds the " +
                         std::to_string(region.size - prefixLen) +
                         " bytes after the preamble");
  std::string header(size_t(headerLen), '\0');
  if (Status s = region.read(prefixLen, header.data(), header.size());
      !s.isOk())
    return s;

  Result<NpyHeader> parsed = parseHeaderDict(header, name);
  if (!parsed.isOk())
    return parsed.status();
  NpyHeader &npy = parsed.value();

  std::optional<size_t> bytes = checkedByteSize(npy.dtype, npy.shape);
  if (!bytes)
    return Status::error(
        name + ": invalid shape " +
        Tensor::wrap(nullptr, npy.dtype, npy.shape).shapeString() +
        ": the size overflows");
  uint64_t dataAvailable = region.size - dataOffset;
  if (*bytes > dataAvailable) {
    Tensor view = Tensor::wrap(nullptr, npy.dtype, npy.shape);
    return Status::error(name +
                         ": data is shorter than the header's shape "
                         "says: " +
                         dtypeName(npy.dtype) + " " + view.shapeString() +
                         " needs " + std::to_string(*bytes) +
                         " bytes, the file has " +
                         std::to_string(dataAvailable));
  }

  Result<Tensor> tensor = Tensor::tryAllocate(npy.dtype, npy.shape);
  if (!tensor.isOk())
    return Status::error(name + ": " + tensor.message());
  if (*bytes)
    if (Status s = region.read(dataOffset, tensor.value().data(), *bytes);
        !s.isOk())
      return s;

  if (crc) {
    Crc32 sum;
    sum.update(prefix, prefixLen);
    sum.update(header.data(), header.size());
    sum.update(tensor.value().data(), *bytes);
    // Bytes after the data (numpy never writes any) are ignored but count.
    std::vector<uint8_t> rest(size_t(dataAvailable - *bytes));
    if (!rest.empty()) {
      if (Status s = region.read(dataOffset + *bytes, rest.data(), rest.size());
          !s.isOk())
        return s;
      sum.update(rest.data(), rest.size());
    }
    *crc = sum.value();
  }
  return tensor;
}

Result<Tensor> fx::rt::readNpy(const std::string &path) {
  Result<InputFile> file = InputFile::open(path);
  if (!file.isOk())
    return file.status();
  return readNpyRegion({file.value(), 0, file.value().size(), path});
}

//===----------------------------------------------------------------------===//
// .npy writing
//===----------------------------------------------------------------------===//

/// The preamble and header numpy.save writes for `tensor`.
static Result<std::string> npyPrefix(const Tensor &tensor,
                                     const std::string &name) {
  const char *descr = npyDescr(tensor.dtype());
  if (!descr)
    return Status::error(name +
                         ": bf16 has no numpy dtype; cast the tensor first "
                         "(tensor.castTo(DType::F32))");
  std::string dict = "{'descr': '" + std::string(descr) +
                     "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.rank(); ++i) {
    if (i)
      dict += ", ";
    dict += std::to_string(tensor.shape()[i]);
  }
  if (tensor.rank() == 1)
    dict += ",";
  dict += "), }";
  // Like numpy.save (1.24+): spare spaces so the first dimension can grow to
  // 21 digits in place, then spaces and a newline up to 64-byte alignment
  // (1 to 64 of them). Format 2.0 only when 1.0's 16-bit length overflows.
  if (tensor.rank() > 0) {
    size_t digits = std::to_string(tensor.shape()[0]).size();
    dict.append(digits < 21 ? 21 - digits : 0, ' ');
  }
  int major = 1;
  size_t prefixLen = 10;
  size_t padding = kArrayAlign - (prefixLen + dict.size() + 1) % kArrayAlign;
  if (dict.size() + padding + 1 > 0xffff) {
    major = 2;
    prefixLen = 12;
    padding = kArrayAlign - (prefixLen + dict.size() + 1) % kArrayAlign;
  }
  dict.append(padding, ' ');
  dict += '\n';
  if (dict.size() > 0xffffffffu)
    return Status::error(name + ": the .npy header is too large");

  std::string out(kMagic, kMagicLen);
  out.push_back(char(major));
  out.push_back(0);
  appendLE(out, dict.size(), major == 1 ? 2 : 4);
  return out + dict;
}

Status fx::rt::writeNpy(const std::string &path, const Tensor &tensor) {
  Result<std::string> prefix = npyPrefix(tensor, path);
  if (!prefix.isOk())
    return prefix.status();
  Result<OutputFile> file = OutputFile::create(path);
  if (!file.isOk())
    return file.status();
  if (Status s = file.value().write(prefix.value()); !s.isOk())
    return s;
  if (Status s = file.value().write(tensor.data(), tensor.byteSize());
      !s.isOk())
    return s;
  return file.value().close();
}

//===----------------------------------------------------------------------===//
// .npz: ZIP archives
//===----------------------------------------------------------------------===//

namespace {
constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndOfCentralDirSig = 0x06054b50;
constexpr uint32_t kZip64EndOfCentralDirSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEndOfCentralDirSize = 22;
constexpr size_t kZip64EndOfCentralDirSize = 56;
constexpr size_t kZip64LocatorSize = 20;
constexpr uint32_t kZip32Max = 0xffffffffu;
/// 1980-01-01 00:00:00, the earliest DOS date: fixed so that writing the same
/// arrays twice gives identical files.
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;
constexpr uint16_t kDosTime = 0;

struct ZipMember {
  std::string name;
  uint16_t flags;
  uint16_t method;
  uint32_t crc;
  uint64_t compressedSize;
  uint64_t size;
  uint64_t localHeaderOffset;
};
} // namespace

/// Finds the central directory: its offset, size and entry count.
static Status readCentralDirectory(const InputFile &file,
                                   std::vector<uint8_t> &directory,
                                   uint64_t &entryCount) {
  const std::string &path = file.path();
  auto notZip = [&](const std::string &why) {
    return Status::error(path + ": not an .npz file (" + why + ")");
  };
  uint64_t size = file.size();
  if (size < kEndOfCentralDirSize)
    return notZip("too short for a ZIP archive: " + std::to_string(size) +
                  " bytes");

  // The end record is the last 22 bytes plus a comment of up to 64 KiB.
  size_t tailLen =
      size_t(std::min<uint64_t>(size, kEndOfCentralDirSize + 0xffff));
  uint64_t tailStart = size - tailLen;
  std::vector<uint8_t> tail(tailLen);
  if (Status s = file.readAt(tailStart, tail.data(), tailLen); !s.isOk())
    return s;
  size_t eocd = tailLen;
  for (size_t i = tailLen - kEndOfCentralDirSize + 1; i-- > 0;) {
    if (loadLE(&tail[i], 4) == kEndOfCentralDirSig &&
        i + kEndOfCentralDirSize + loadLE(&tail[i + 20], 2) <= tailLen) {
      eocd = i;
      break;
    }
  }
  if (eocd == tailLen) {
    uint8_t head[kMagicLen];
    if (Status s = file.readAt(0, head, kMagicLen); !s.isOk())
      return s;
    if (std::memcmp(head, kMagic, kMagicLen) == 0)
      return notZip("it is an .npy file; read it with readNpy");
    return notZip("no ZIP end-of-central-directory record");
  }
  const uint8_t *end = &tail[eocd];
  uint64_t disk = loadLE(end + 4, 2), directoryDisk = loadLE(end + 6, 2);
  uint64_t entriesOnDisk = loadLE(end + 8, 2);
  entryCount = loadLE(end + 10, 2);
  uint64_t directorySize = loadLE(end + 12, 4);
  uint64_t directoryOffset = loadLE(end + 16, 4);
  uint64_t directoryEnd = tailStart + eocd;

  if (entryCount == 0xffff || directorySize == kZip32Max ||
      directoryOffset == kZip32Max) {
    // ZIP64: a locator right before the end record points at the ZIP64 end
    // record, which holds the full-width values.
    if (tailStart + eocd < kZip64LocatorSize)
      return notZip("ZIP64 locator missing");
    uint8_t locator[kZip64LocatorSize];
    uint64_t locatorOffset = tailStart + eocd - kZip64LocatorSize;
    if (Status s = file.readAt(locatorOffset, locator, sizeof(locator));
        !s.isOk())
      return s;
    if (loadLE(locator, 4) != kZip64LocatorSig)
      return notZip("ZIP64 locator missing");
    uint64_t recordOffset = loadLE(locator + 8, 8);
    if (recordOffset > locatorOffset ||
        locatorOffset - recordOffset < kZip64EndOfCentralDirSize)
      return notZip("ZIP64 end record out of range");
    uint8_t record[kZip64EndOfCentralDirSize];
    if (Status s = file.readAt(recordOffset, record, sizeof(record)); !s.isOk())
      return s;
    if (loadLE(record, 4) != kZip64EndOfCentralDirSig)
      return notZip("bad ZIP64 end record");
    disk = loadLE(record + 16, 4);
    directoryDisk = loadLE(record + 20, 4);
    entriesOnDisk = loadLE(record + 24, 8);
    entryCount = loadLE(record + 32, 8);
    directorySize = loadLE(record + 40, 8);
    directoryOffset = loadLE(record + 48, 8);
    directoryEnd = recordOffset;
  }
  if (disk != 0 || directoryDisk != 0 || entriesOnDisk != entryCount)
    return Status::error(path + ": multi-disk ZIP archives are not supported");
  if (directoryOffset > directoryEnd ||
      directorySize > directoryEnd - directoryOffset)
    return Status::error(path + ": corrupt ZIP archive: the central directory "
                                "lies outside the file");
  // Every entry takes at least 46 bytes, which bounds the count.
  if (entryCount > directorySize / kCentralHeaderSize)
    return Status::error(
        path + ": corrupt ZIP archive: " + std::to_string(entryCount) +
        " entries do not fit in the central directory");
  directory.resize(size_t(directorySize));
  return file.readAt(directoryOffset, directory.data(), directory.size());
}

static Status parseCentralDirectory(const std::string &path,
                                    const std::vector<uint8_t> &directory,
                                    uint64_t entryCount,
                                    std::vector<ZipMember> &members) {
  auto corrupt = [&](const std::string &why) {
    return Status::error(path + ": corrupt ZIP archive: " + why);
  };
  size_t pos = 0;
  for (uint64_t index = 0; index < entryCount; ++index) {
    if (directory.size() - pos < kCentralHeaderSize)
      return corrupt("central directory truncated");
    const uint8_t *entry = &directory[pos];
    if (loadLE(entry, 4) != kCentralHeaderSig)
      return corrupt("bad central directory entry signature");
    ZipMember member;
    member.flags = uint16_t(loadLE(entry + 8, 2));
    member.method = uint16_t(loadLE(entry + 10, 2));
    member.crc = uint32_t(loadLE(entry + 16, 4));
    member.compressedSize = loadLE(entry + 20, 4);
    member.size = loadLE(entry + 24, 4);
    size_t nameLen = loadLE(entry + 28, 2);
    size_t extraLen = loadLE(entry + 30, 2);
    size_t commentLen = loadLE(entry + 32, 2);
    member.localHeaderOffset = loadLE(entry + 42, 4);
    if (directory.size() - pos - kCentralHeaderSize <
        nameLen + extraLen + commentLen)
      return corrupt("central directory truncated");
    const uint8_t *name = entry + kCentralHeaderSize;
    member.name.assign(reinterpret_cast<const char *>(name), nameLen);

    // ZIP64 extra field: the 64-bit values of the fields saturated above, in
    // this order.
    const uint8_t *extra = name + nameLen;
    for (size_t at = 0; at + 4 <= extraLen;) {
      size_t id = loadLE(extra + at, 2), len = loadLE(extra + at + 2, 2);
      if (at + 4 + len > extraLen)
        return corrupt("bad extra field in '" + member.name + "'");
      if (id == kZip64ExtraId) {
        const uint8_t *field = extra + at + 4;
        size_t left = len;
        for (uint64_t *value : {&member.size, &member.compressedSize,
                                &member.localHeaderOffset}) {
          if (*value != kZip32Max)
            continue;
          if (left < 8)
            return corrupt("bad ZIP64 field in '" + member.name + "'");
          *value = loadLE(field, 8);
          field += 8;
          left -= 8;
        }
      }
      at += 4 + len;
    }
    members.push_back(std::move(member));
    pos += kCentralHeaderSize + nameLen + extraLen + commentLen;
  }
  return Status::ok();
}

Result<std::vector<std::pair<std::string, Tensor>>>
fx::rt::readNpz(const std::string &path) {
  Result<InputFile> opened = InputFile::open(path);
  if (!opened.isOk())
    return opened.status();
  const InputFile &file = opened.value();

  std::vector<uint8_t> directory;
  uint64_t entryCount = 0;
  if (Status s = readCentralDirectory(file, directory, entryCount); !s.isOk())
    return s;
  std::vector<ZipMember> members;
  if (Status s = parseCentralDirectory(path, directory, entryCount, members);
      !s.isOk())
    return s;

  std::vector<std::pair<std::string, Tensor>> arrays;
  std::set<std::string> seen;
  for (const ZipMember &member : members) {
    std::string where = path + ": member '" + member.name + "'";
    if (member.flags & 1)
      return Status::error(where + ": encrypted members are not supported");
    if (member.method == 8)
      return Status::error(where + ": compressed .npz "
                                   "(numpy.savez_compressed) is not "
                                   "supported; use numpy.savez");
    if (member.method != 0)
      return Status::error(where + ": unsupported ZIP compression method " +
                           std::to_string(member.method));
    if (member.compressedSize != member.size)
      return Status::error(where + ": corrupt ZIP archive: stored member "
                                   "sizes disagree");
    std::string_view name = member.name;
    if (name.size() < 4 || name.substr(name.size() - 4) != ".npy")
      return Status::error(where + ": not an .npy member");
    std::string key(name.substr(0, name.size() - 4));
    if (!seen.insert(key).second)
      return Status::error(where + ": duplicate member");

    // The local header repeats the name and may have a different extra
    // field; only its lengths matter, to find the data.
    uint8_t local[kLocalHeaderSize];
    if (member.localHeaderOffset > file.size() ||
        file.size() - member.localHeaderOffset < kLocalHeaderSize)
      return Status::error(where + ": corrupt ZIP archive: local header "
                                   "outside the file");
    if (Status s = file.readAt(member.localHeaderOffset, local, sizeof(local));
        !s.isOk())
      return s;
    if (loadLE(local, 4) != kLocalHeaderSig)
      return Status::error(where + ": corrupt ZIP archive: bad local header "
                                   "signature");
    uint64_t dataOffset = member.localHeaderOffset + kLocalHeaderSize +
                          loadLE(local + 26, 2) + loadLE(local + 28, 2);
    if (dataOffset > file.size() || file.size() - dataOffset < member.size)
      return Status::error(where + ": member data extends past the end of "
                                   "the file (truncated archive?)");

    uint32_t crc = 0;
    Result<Tensor> tensor =
        readNpyRegion({file, dataOffset, member.size, where}, &crc);
    if (!tensor.isOk())
      return tensor.status();
    if (crc != member.crc)
      return Status::error(where + ": CRC-32 mismatch (corrupt archive)");
    arrays.emplace_back(std::move(key), tensor.take());
  }
  return arrays;
}

Status
fx::rt::writeNpz(const std::string &path,
                 const std::vector<std::pair<std::string, Tensor>> &arrays) {
  // Validate everything before creating the file.
  std::set<std::string> names;
  std::vector<std::string> prefixes;
  for (const auto &[name, tensor] : arrays) {
    if (!names.insert(name).second)
      return Status::error(path + ": duplicate array name '" + name + "'");
    if (name.size() + 4 > 0xffff)
      return Status::error(path + ": array name too long");
    Result<std::string> prefix =
        npyPrefix(tensor, path + ": array '" + name + "'");
    if (!prefix.isOk())
      return prefix.status();
    prefixes.push_back(prefix.take());
  }

  Result<OutputFile> opened = OutputFile::create(path);
  if (!opened.isOk())
    return opened.status();
  OutputFile &file = opened.value();

  std::string directory;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const Tensor &tensor = arrays[i].second;
    std::string name = arrays[i].first + ".npy";
    const std::string &prefix = prefixes[i];
    uint64_t size = prefix.size() + uint64_t(tensor.byteSize());
    uint64_t offset = file.offset();
    Crc32 crc;
    crc.update(prefix.data(), prefix.size());
    crc.update(tensor.data(), tensor.byteSize());

    bool zip64Size = size >= kZip32Max;
    bool zip64Offset = offset >= kZip32Max;
    uint16_t version = zip64Size || zip64Offset ? 45 : 20;

    std::string local;
    appendLE(local, kLocalHeaderSig, 4);
    appendLE(local, version, 2);
    appendLE(local, 0, 2); // flags
    appendLE(local, 0, 2); // method: stored
    appendLE(local, kDosTime, 2);
    appendLE(local, kDosDate, 2);
    appendLE(local, crc.value(), 4);
    appendLE(local, zip64Size ? kZip32Max : size, 4);
    appendLE(local, zip64Size ? kZip32Max : size, 4);
    appendLE(local, name.size(), 2);
    appendLE(local, zip64Size ? 20 : 0, 2);
    local += name;
    if (zip64Size) {
      appendLE(local, kZip64ExtraId, 2);
      appendLE(local, 16, 2);
      appendLE(local, size, 8);
      appendLE(local, size, 8);
    }
    if (Status s = file.write(local); !s.isOk())
      return s;
    if (Status s = file.write(prefix); !s.isOk())
      return s;
    if (Status s = file.write(tensor.data(), tensor.byteSize()); !s.isOk())
      return s;

    std::string extra;
    if (zip64Size) {
      appendLE(extra, size, 8);
      appendLE(extra, size, 8);
    }
    if (zip64Offset)
      appendLE(extra, offset, 8);
    if (!extra.empty()) {
      std::string field;
      appendLE(field, kZip64ExtraId, 2);
      appendLE(field, extra.size(), 2);
      extra = field + extra;
    }
    appendLE(directory, kCentralHeaderSig, 4);
    appendLE(directory, (3 << 8) | version, 2); // made by: Unix
    appendLE(directory, version, 2);
    appendLE(directory, 0, 2); // flags
    appendLE(directory, 0, 2); // method: stored
    appendLE(directory, kDosTime, 2);
    appendLE(directory, kDosDate, 2);
    appendLE(directory, crc.value(), 4);
    appendLE(directory, zip64Size ? kZip32Max : size, 4);
    appendLE(directory, zip64Size ? kZip32Max : size, 4);
    appendLE(directory, name.size(), 2);
    appendLE(directory, extra.size(), 2);
    appendLE(directory, 0, 2);           // comment length
    appendLE(directory, 0, 2);           // disk
    appendLE(directory, 0, 2);           // internal attributes
    appendLE(directory, 0644u << 16, 4); // external: -rw-r--r--
    appendLE(directory, zip64Offset ? kZip32Max : offset, 4);
    directory += name;
    directory += extra;
  }

  uint64_t directoryOffset = file.offset();
  uint64_t count = arrays.size();
  bool zip64 = count >= 0xffff || directory.size() >= kZip32Max ||
               directoryOffset >= kZip32Max;
  std::string end = directory;
  if (zip64) {
    uint64_t recordOffset = directoryOffset + directory.size();
    appendLE(end, kZip64EndOfCentralDirSig, 4);
    appendLE(end, kZip64EndOfCentralDirSize - 12, 8);
    appendLE(end, (3 << 8) | 45, 2);
    appendLE(end, 45, 2);
    appendLE(end, 0, 4); // this disk
    appendLE(end, 0, 4); // directory disk
    appendLE(end, count, 8);
    appendLE(end, count, 8);
    appendLE(end, directory.size(), 8);
    appendLE(end, directoryOffset, 8);
    appendLE(end, kZip64LocatorSig, 4);
    appendLE(end, 0, 4);
    appendLE(end, recordOffset, 8);
    appendLE(end, 1, 4); // disks
  }
  appendLE(end, kEndOfCentralDirSig, 4);
  appendLE(end, 0, 2);
  appendLE(end, 0, 2);
  appendLE(end, zip64 ? 0xffff : count, 2);
  appendLE(end, zip64 ? 0xffff : count, 2);
  appendLE(end, zip64 ? kZip32Max : directory.size(), 4);
  appendLE(end, zip64 ? kZip32Max : directoryOffset, 4);
  appendLE(end, 0, 2); // comment length
  if (Status s = file.write(end); !s.isOk())
    return s;
  return file.close();
}

//===- Artifact.cpp - compiled models as one versioned file ---------------===//
//
// The writer lays out the header, then every blob at a 64-byte aligned
// offset, then the manifest: blob offsets are known before the manifest is
// written, so one pass suffices. The reader checks the header, the size and
// the checksum before it parses anything, then every manifest member it
// uses, then each program with the checks the writer ran too (checkEntry),
// so whatever the writer accepts reads back and whatever it rejects cannot
// be smuggled in through a hand-made file.
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/Artifact.h"

#include "FileIO.h"
#include "Json.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <sys/mman.h>

using namespace fx::rt;
using namespace fx::rt::detail;
using fx::rt::vk::Buffer;
using fx::rt::vk::Copy;
using fx::rt::vk::Dispatch;
using fx::rt::vk::Kernel;
using fx::rt::vk::Program;
using fx::rt::vk::Step;

namespace {

constexpr char kMagic[16] = {'F', 'X', 'A', 'R', 'T', 'I', 'F', 'A',
                             'C', 'T', 0,   0,   0,   0,   0,   0};
// Header fields (see Artifact.h).
constexpr size_t kVersionAt = 16, kReserved0At = 20, kManifestOffsetAt = 24,
                 kManifestSizeAt = 32, kFileSizeAt = 40, kChecksumAt = 48,
                 kReserved1At = 56;

uint64_t loadLE(const uint8_t *bytes, int count) {
  uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i)
    value = (value << 8) | bytes[i];
  return value;
}

void storeLE(uint8_t *bytes, uint64_t value, int count) {
  for (int i = 0; i < count; ++i)
    bytes[i] = uint8_t(value >> (8 * i));
}

std::string hex(uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  do {
    text.insert(text.begin(), digits[value & 0xf]);
    value >>= 4;
  } while (value);
  return "0x" + text;
}

const char *kindName(Buffer::Kind kind) {
  switch (kind) {
  case Buffer::Kind::Input:
    return "input";
  case Buffer::Kind::Output:
    return "output";
  case Buffer::Kind::Temporary:
    return "temporary";
  case Buffer::Kind::Constant:
    return "constant";
  case Buffer::Kind::Size:
    return "size";
  }
  return "temporary";
}

/// Names of vk::Scalar::Op in artifacts, in enum order.
constexpr const char *kScalarOpNames[] = {
    "constant",  "input_dim", "add",  "sub",  "mul",      "divs",  "rems",
    "floordivs", "ceildivs",  "divu", "remu", "ceildivu", "mins",  "maxs",
    "minu",      "maxu",      "eq",   "ne",   "slt",      "sle",   "sgt",
    "sge",       "ult",       "ule",  "ugt",  "uge",      "select"};
static_assert(std::size(kScalarOpNames) == size_t(vk::Scalar::Op::Select) + 1,
              "a name for every scalar operation");

std::optional<Buffer::Kind> parseKind(const std::string &name) {
  for (Buffer::Kind kind :
       {Buffer::Kind::Input, Buffer::Kind::Output, Buffer::Kind::Temporary,
        Buffer::Kind::Constant, Buffer::Kind::Size})
    if (name == kindName(kind))
      return kind;
  return std::nullopt;
}

/// The size limit in messages.
const char *kMaxBytesText = "1 TiB";

//===----------------------------------------------------------------------===//
// Checks shared by the writer and the reader
//===----------------------------------------------------------------------===//

Status checkText(const std::string &text, const std::string &what) {
  if (!json::isValidUtf8(text))
    return Status::error(what + " is not valid UTF-8");
  return Status::ok();
}

Status checkSpec(const TensorSpec &spec, const std::string &what, bool isOutput,
                 bool allowDynamic) {
  if (Status s = checkText(spec.name, what + " name"); !s.isOk())
    return s;
  for (int64_t dim : spec.shape)
    if (dim < 0 && !(dim == kDynamicDim && allowDynamic))
      return Status::error(what + " " + spec.str() +
                           (dim == kDynamicDim
                                ? " has a dynamic dimension, which only a "
                                  "Vulkan program without CPU code can have"
                                : " has a negative dimension"));
  std::vector<int64_t> known = spec.shape;
  for (int64_t &dim : known)
    dim = std::max<int64_t>(dim, 0);
  std::optional<size_t> bytes = checkedByteSize(spec.dtype, known);
  if (!bytes || *bytes > kArtifactMaxBytes)
    return Status::error(what + " " + spec.str() + " is larger than " +
                         kMaxBytesText);
  if (spec.parameter && isOutput)
    return Status::error(what + " is marked as a parameter");
  if (spec.parameter && spec.name.empty())
    return Status::error(what + " is a parameter without a name");
  return Status::ok();
}

/// What an artifact guarantees of an entry beyond vk::validateProgram.
/// Errors name the part of the entry; callers add the entry's name.
Status checkEntry(const ArtifactEntry &entry) {
  if (entry.name.empty())
    return Status::error("the entry has no name");
  const FunctionSignature &sig = entry.signature;
  // Dynamic dimensions: a Vulkan program sized at run time.
  bool allowDynamic = entry.vulkan && !entry.cpu;
  for (size_t i = 0; i < sig.inputs.size(); ++i)
    if (Status s = checkSpec(sig.inputs[i], "input " + std::to_string(i),
                             /*isOutput=*/false, allowDynamic);
        !s.isOk())
      return s;
  for (size_t i = 0; i < sig.outputs.size(); ++i)
    if (Status s = checkSpec(sig.outputs[i], "output " + std::to_string(i),
                             /*isOutput=*/true, allowDynamic);
        !s.isOk())
      return s;
  if (entry.cpu) {
    const CPUCode &code = *entry.cpu;
    for (const auto &[text, what] :
         {std::pair{&code.arch, "the CPU code's arch"},
          std::pair{&code.cpu, "the CPU code's cpu"},
          std::pair{&code.symbol, "the CPU code's symbol"}})
      if (Status s = checkText(*text, what); !s.isOk())
        return s;
    for (const std::string &name : code.features)
      if (Status s = checkText(name, "a CPU feature name"); !s.isOk())
        return s;
    for (const std::string &name : code.imports)
      if (Status s = checkText(name, "a CPU import name"); !s.isOk())
        return s;
    if (code.library.empty())
      return Status::error("the CPU code has no library");
    if (code.prepare) {
      if (Status s =
              checkText(code.prepare->symbol, "the CPU code's prepare symbol");
          !s.isOk())
        return s;
      if (Status s = checkPrepareArguments(*code.prepare, sig); !s.isOk())
        return s;
      for (size_t i = 0; i < code.prepare->results.size(); ++i)
        if (Status s = checkSpec(code.prepare->results[i],
                                 "prepared parameter " + std::to_string(i),
                                 /*isOutput=*/true, /*allowDynamic=*/false);
            !s.isOk())
          return s;
    }
  }
  if (!entry.vulkan)
    return Status::ok();
  const Program &program = *entry.vulkan;
  if (program.signature != sig)
    return Status::error("the Vulkan program's signature differs from the "
                         "entry's");
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel &kernel = program.kernels[k];
    std::string what = "kernel " + std::to_string(k);
    if (Status s = checkText(kernel.name, what + " name"); !s.isOk())
      return s;
    if (Status s = checkText(kernel.entryPoint, what + " entry point");
        !s.isOk())
      return s;
  }
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer &buffer = program.buffers[b];
    std::string what = vk::describeBuffer(program, b);
    if (buffer.bytes > kArtifactMaxBytes)
      return Status::error(what + " has " + std::to_string(buffer.bytes) +
                           " bytes, more than " + kMaxBytesText);
    // The runtime allocates whole 32-bit words; the compiler rounds up.
    if (buffer.bytesScalar == vk::kNoScalar &&
        (buffer.bytes == 0 || buffer.bytes % 4 != 0))
      return Status::error(what + " has " + std::to_string(buffer.bytes) +
                           " bytes, not a positive multiple of 4");
    if (buffer.kind != Buffer::Kind::Constant && !buffer.data.empty())
      return Status::error(what + " is not a constant but has data");
  }
  for (size_t c = 0; c < program.checks.size(); ++c)
    if (Status s = checkText(program.checks[c].message,
                             "shape check " + std::to_string(c) + " message");
        !s.isOk())
      return s;
  for (size_t f = 0; f < program.requiredFeatures.size(); ++f)
    if (Status s = checkText(program.requiredFeatures[f],
                             "required feature " + std::to_string(f));
        !s.isOk())
      return s;
  return vk::validateProgram(program);
}

Status checkEntries(const std::vector<ArtifactEntry> &entries) {
  std::map<std::string, std::vector<size_t>> byName;
  for (size_t e = 0; e < entries.size(); ++e) {
    const ArtifactEntry &entry = entries[e];
    if (Status s =
            checkText(entry.name, "entry " + std::to_string(e) + " name");
        !s.isOk())
      return s;
    if (Status s = checkEntry(entry); !s.isOk())
      return Status::error(
          "entry " +
          (entry.name.empty() ? std::to_string(e) : "'" + entry.name + "'") +
          ": " + s.message());
    // Entries of one name are the shapes fx-compile --dynamic-sizes made.
    for (size_t other : byName[entry.name]) {
      const FunctionSignature &sig = entries[other].signature;
      if (!areShapeVariants(sig, entry.signature))
        return Status::error("entries named '" + entry.name +
                             "' differ in more than their input and output "
                             "shapes");
      bool sameInputs = true;
      for (size_t i = 0; i < sig.inputs.size(); ++i)
        sameInputs &= sig.inputs[i].shape == entry.signature.inputs[i].shape;
      if (sameInputs)
        return Status::error("two entries named '" + entry.name +
                             "' have the same input shapes");
    }
    byName[entry.name].push_back(e);
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Builds a one-line JSON object: {"key": value, ...}.
class InlineObject {
public:
  InlineObject &add(std::string_view key, const std::string &value) {
    if (text.size() > 1)
      text += ", ";
    text += json::quote(key) + ": " + value;
    return *this;
  }
  std::string str() const { return text + "}"; }

private:
  std::string text = "{";
};

std::string number(uint64_t value) { return std::to_string(value); }
std::string boolean(bool value) { return value ? "true" : "false"; }

/// A shape, dynamic dimensions as null.
std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (int64_t dim : shape)
    text += (text.size() > 1 ? ", " : "") +
            (dim == kDynamicDim ? std::string("null") : std::to_string(dim));
  return text + "]";
}

template <typename T> std::string numbers(const T &values) {
  std::string text = "[";
  for (auto value : values)
    text += (text.size() > 1 ? ", " : "") + std::to_string(value);
  return text + "]";
}

/// `items` as a JSON array with one item per line, indented by `indent`.
std::string lines(const std::vector<std::string> &items, size_t indent) {
  if (items.empty())
    return "[]";
  std::string pad(indent + 2, ' '), text = "[\n";
  for (size_t i = 0; i < items.size(); ++i)
    text += pad + items[i] + (i + 1 < items.size() ? ",\n" : "\n");
  return text + std::string(indent, ' ') + "]";
}

/// `members` as a JSON object with one member per line.
std::string
block(const std::vector<std::pair<std::string, std::string>> &members,
      size_t indent) {
  std::string pad(indent + 2, ' '), text = "{\n";
  for (size_t i = 0; i < members.size(); ++i)
    text += pad + json::quote(members[i].first) + ": " + members[i].second +
            (i + 1 < members.size() ? ",\n" : "\n");
  return text + std::string(indent, ' ') + "}";
}

/// The file being assembled: blobs are appended as the manifest is
/// written, each at an aligned offset.
class Writer {
public:
  Writer() : bytes(kArtifactHeaderSize, 0) {}

  /// Appends a blob and returns its manifest reference.
  std::string blob(const void *data, size_t size) {
    bytes.resize((bytes.size() + kArtifactBlobAlignment - 1) /
                 kArtifactBlobAlignment * kArtifactBlobAlignment);
    uint64_t offset = bytes.size();
    const auto *begin = static_cast<const uint8_t *>(data);
    bytes.insert(bytes.end(), begin, begin + size);
    return InlineObject()
        .add("offset", number(offset))
        .add("size", number(size))
        .str();
  }

  std::string spec(const TensorSpec &spec, bool isInput) {
    InlineObject object;
    object.add("name", json::quote(spec.name))
        .add("dtype", json::quote(dtypeName(spec.dtype)))
        .add("shape", shapeText(spec.shape));
    if (isInput)
      object.add("parameter", boolean(spec.parameter));
    // [dim, min, max] per range (max null: no maximum); absent without.
    if (isInput && !spec.ranges.empty()) {
      std::string list = "[";
      for (const DimRange &range : spec.ranges)
        list += (list.size() > 1 ? ", [" : "[") + number(range.dim) + ", " +
                number(range.min) + ", " +
                (range.max == kUnboundedSize ? std::string("null")
                                             : number(range.max)) +
                "]";
      object.add("ranges", list + "]");
    }
    return object.str();
  }

  std::string program(const Program &program, size_t indent) {
    std::vector<std::string> kernels, buffers, dispatches, copies, steps;
    for (const Kernel &kernel : program.kernels) {
      // SPIR-V is a little-endian stream of words.
      std::vector<uint8_t> code(kernel.spirv.size() * 4);
      for (size_t i = 0; i < kernel.spirv.size(); ++i)
        storeLE(&code[4 * i], kernel.spirv[i], 4);
      InlineObject object;
      object.add("name", json::quote(kernel.name));
      if (!kernel.label.empty())
        object.add("label", json::quote(kernel.label));
      // A reader that does not know the key takes every binding as
      // written: always correct, only slower.
      if (!kernel.writtenBindings.empty()) {
        std::vector<uint32_t> written(kernel.writtenBindings.begin(),
                                      kernel.writtenBindings.end());
        object.add("written_bindings", numbers(written));
      }
      kernels.push_back(
          object.add("entry_point", json::quote(kernel.entryPoint))
              .add("spirv", blob(code.data(), code.size()))
              .add("num_bindings", number(kernel.numBindings))
              .add("workgroup_size", numbers(kernel.workgroupSize))
              .str());
    }
    for (const Buffer &buffer : program.buffers) {
      InlineObject object;
      object.add("kind", json::quote(kindName(buffer.kind)));
      if (buffer.kind == Buffer::Kind::Input ||
          buffer.kind == Buffer::Kind::Output ||
          buffer.kind == Buffer::Kind::Size)
        object.add("index", number(buffer.index));
      object.add("bytes", number(buffer.bytes));
      if (buffer.bytesScalar != vk::kNoScalar)
        object.add("bytes_scalar", number(buffer.bytesScalar));
      if (buffer.arenaOffset)
        object.add("arena_offset", number(*buffer.arenaOffset));
      if (!buffer.data.empty())
        object.add("data", blob(buffer.data.data(), buffer.data.size()));
      buffers.push_back(object.str());
    }
    for (const Dispatch &dispatch : program.dispatches) {
      InlineObject object;
      object.add("kernel", number(dispatch.kernel))
          .add("workgroups", numbers(dispatch.workgroups))
          .add("buffers", numbers(dispatch.buffers));
      if (dispatch.workgroupScalars !=
          std::array<uint32_t, 3>{vk::kNoScalar, vk::kNoScalar, vk::kNoScalar})
        object.add("workgroup_scalars", numbers(dispatch.workgroupScalars));
      dispatches.push_back(object.str());
    }
    for (const Copy &copy : program.copies) {
      InlineObject object;
      object.add("source", number(copy.source))
          .add("target", number(copy.target))
          .add("source_offset", number(copy.sourceOffset))
          .add("target_offset", number(copy.targetOffset))
          .add("bytes", number(copy.bytes));
      if (copy.bytesScalar != vk::kNoScalar)
        object.add("bytes_scalar", number(copy.bytesScalar));
      copies.push_back(object.str());
    }
    for (const Step &step : program.steps) {
      InlineObject object;
      object
          .add("kind",
               json::quote(step.kind == Step::Kind::Dispatch ? "dispatch"
                                                             : "copy"))
          .add("index", number(step.index));
      // Optional: a reader without prepare steps runs the step every run,
      // which computes the same (the compiler keeps its buffers out of the
      // arena).
      if (step.prepare)
        object.add("prepare", boolean(true));
      steps.push_back(object.str());
    }
    std::vector<std::string> features;
    for (const std::string &feature : program.requiredFeatures)
      features.push_back(json::quote(feature));
    size_t inner = indent + 2;
    std::vector<std::pair<std::string, std::string>> members = {
        {"kernels", lines(kernels, inner)},
        {"buffers", lines(buffers, inner)},
        {"dispatches", lines(dispatches, inner)},
        {"copies", lines(copies, inner)},
        {"steps", lines(steps, inner)},
        {"required_features", lines(features, inner)},
        {"arena_bytes", number(program.arenaBytes)}};
    // Programs with dynamic dimensions only: static ones read as before.
    if (!program.scalars.empty()) {
      std::vector<std::string> scalars, checks, outputDims;
      for (const vk::Scalar &scalar : program.scalars) {
        InlineObject object;
        object.add("op", json::quote(kScalarOpNames[size_t(scalar.op)]));
        if (scalar.op == vk::Scalar::Op::Constant)
          object.add("value", std::to_string(scalar.value));
        else
          object.add("operands", numbers(scalar.operands));
        scalars.push_back(object.str());
      }
      for (const vk::ShapeCheck &check : program.checks)
        checks.push_back(InlineObject()
                             .add("scalar", number(check.scalar))
                             .add("message", json::quote(check.message))
                             .str());
      for (const std::vector<uint32_t> &dims : program.outputDims)
        outputDims.push_back(numbers(dims));
      members.push_back({"scalars", lines(scalars, inner)});
      members.push_back({"shape_checks", lines(checks, inner)});
      members.push_back({"output_dims", lines(outputDims, inner)});
    }
    return block(members, indent);
  }

  std::string cpu(const CPUCode &code) {
    auto strings = [](const std::vector<std::string> &items) {
      std::string text = "[";
      for (const std::string &item : items)
        text += (text.size() > 1 ? ", " : "") + json::quote(item);
      return text + "]";
    };
    InlineObject object;
    object.add("arch", json::quote(code.arch))
        .add("cpu", json::quote(code.cpu))
        .add("features", strings(code.features))
        .add("symbol", json::quote(code.symbol))
        .add("imports", strings(code.imports))
        .add("library", blob(code.library.data(), code.library.size()));
    if (code.subBatch)
      object.add("sub_batch", std::to_string(code.subBatch));
    if (code.prepare) {
      std::string results = "[";
      for (const TensorSpec &spec : code.prepare->results)
        results += (results.size() > 1 ? ", " : "") +
                   this->spec(spec, /*isInput=*/false);
      object.add("prepare",
                 InlineObject()
                     .add("symbol", json::quote(code.prepare->symbol))
                     .add("arguments", numbers(code.prepare->arguments))
                     .add("results", results + "]")
                     .str());
    }
    return object.str();
  }

  std::string entry(const ArtifactEntry &entry, size_t indent) {
    std::vector<std::string> inputs, outputs;
    for (const TensorSpec &spec : entry.signature.inputs)
      inputs.push_back(this->spec(spec, /*isInput=*/true));
    for (const TensorSpec &spec : entry.signature.outputs)
      outputs.push_back(this->spec(spec, /*isInput=*/false));
    std::vector<std::pair<std::string, std::string>> targets;
    if (entry.cpu)
      targets.push_back({"cpu", cpu(*entry.cpu)});
    if (entry.vulkan)
      targets.push_back({"vulkan", program(*entry.vulkan, indent + 4)});
    size_t inner = indent + 2;
    return block({{"name", json::quote(entry.name)},
                  {"inputs", lines(inputs, inner)},
                  {"outputs", lines(outputs, inner)},
                  {"targets", targets.empty() ? "{}" : block(targets, inner)}},
                 indent);
  }

  std::vector<uint8_t> finish(const std::string &manifest) {
    uint64_t manifestOffset = bytes.size();
    bytes.insert(bytes.end(), manifest.begin(), manifest.end());
    std::memcpy(bytes.data(), kMagic, sizeof(kMagic));
    storeLE(&bytes[kVersionAt], kArtifactFormatVersion, 4);
    storeLE(&bytes[kManifestOffsetAt], manifestOffset, 8);
    storeLE(&bytes[kManifestSizeAt], manifest.size(), 8);
    storeLE(&bytes[kFileSizeAt], bytes.size(), 8);
    storeLE(&bytes[kChecksumAt],
            fnv1a64(bytes.data() + kArtifactHeaderSize,
                    bytes.size() - kArtifactHeaderSize),
            8);
    return std::move(bytes);
  }

private:
  std::vector<uint8_t> bytes;
};

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

using Kind = json::Value::Kind;

const char *describeKind(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Number:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "a value";
}

/// Reads manifest members; errors name the JSON path ("entries[0].inputs[1]
/// .dtype") of what is wrong.
class Reader {
public:
  Reader(const uint8_t *data, uint64_t size, uint64_t manifestBegin,
         uint64_t manifestEnd)
      : data(data), size(size), manifestBegin(manifestBegin),
        manifestEnd(manifestEnd) {}

  Result<Artifact> read(const json::Value &root) {
    Artifact artifact;
    if (Status s = expect(root, Kind::Object, ""); !s.isOk())
      return s;
    uint64_t version;
    if (Status s = getUnsigned(root, "format_version", "", UINT32_MAX, version);
        !s.isOk())
      return s;
    if (version != kArtifactFormatVersion)
      return error("format_version",
                   "is " + std::to_string(version) + " but the header says " +
                       std::to_string(kArtifactFormatVersion));
    if (Status s = getString(root, "producer", "", artifact.producer);
        !s.isOk())
      return s;
    Result<const json::Value *> entries =
        getMember(root, "entries", "", Kind::Array);
    if (!entries.isOk())
      return entries.status();
    for (size_t e = 0; e < entries.value()->elements.size(); ++e) {
      ArtifactEntry entry;
      if (Status s = readEntry(entries.value()->elements[e],
                               "entries[" + std::to_string(e) + "]", entry);
          !s.isOk())
        return s;
      artifact.entries.push_back(std::move(entry));
    }
    if (Status s = checkEntries(artifact.entries); !s.isOk())
      return s;
    return artifact;
  }

private:
  static std::string join(const std::string &path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }
  static Status error(const std::string &path, const std::string &message) {
    return Status::error("manifest: " + path + ": " + message);
  }
  static Status expect(const json::Value &value, Kind kind,
                       const std::string &path) {
    if (value.kind == kind)
      return Status::ok();
    return Status::error(
        "manifest: " + (path.empty() ? "the top level" : path) + ": expected " +
        describeKind(kind) + ", got " + describeKind(value.kind));
  }

  static Result<const json::Value *> getMember(const json::Value &object,
                                               std::string_view key,
                                               const std::string &path,
                                               Kind kind) {
    const json::Value *member = object.find(key);
    if (!member)
      return Status::error(
          "manifest: " + (path.empty() ? std::string("the top level") : path) +
          ": missing member '" + std::string(key) + "'");
    if (Status s = expect(*member, kind, join(path, key)); !s.isOk())
      return s;
    return member;
  }

  static Status toUnsigned(const json::Value &value, const std::string &path,
                           uint64_t max, uint64_t &out) {
    if (value.kind != Kind::Number)
      return error(path, std::string("expected an integer, got ") +
                             describeKind(value.kind));
    if (!value.integer || *value.integer < 0)
      return error(path, "expected a non-negative integer, got " + value.text);
    if (uint64_t(*value.integer) > max)
      return error(path, value.text + " is out of range (at most " +
                             std::to_string(max) + ")");
    out = uint64_t(*value.integer);
    return Status::ok();
  }

  static Status getUnsigned(const json::Value &object, std::string_view key,
                            const std::string &path, uint64_t max,
                            uint64_t &out) {
    Result<const json::Value *> member =
        getMember(object, key, path, Kind::Number);
    if (!member.isOk())
      return member.status();
    return toUnsigned(*member.value(), join(path, key), max, out);
  }

  template <typename T>
  static Status getU32(const json::Value &object, std::string_view key,
                       const std::string &path, T &out) {
    uint64_t value;
    if (Status s = getUnsigned(object, key, path, UINT32_MAX, value); !s.isOk())
      return s;
    out = T(value);
    return Status::ok();
  }

  static Status getString(const json::Value &object, std::string_view key,
                          const std::string &path, std::string &out) {
    Result<const json::Value *> member =
        getMember(object, key, path, Kind::String);
    if (!member.isOk())
      return member.status();
    out = member.value()->text;
    return Status::ok();
  }

  static Status getBool(const json::Value &object, std::string_view key,
                        const std::string &path, bool &out) {
    Result<const json::Value *> member =
        getMember(object, key, path, Kind::Bool);
    if (!member.isOk())
      return member.status();
    out = member.value()->boolean;
    return Status::ok();
  }

  /// An array of unsigned integers at most `max`, exactly `count` long
  /// unless `count` is 0.
  static Status getUnsignedArray(const json::Value &object,
                                 std::string_view key, const std::string &path,
                                 uint64_t max, size_t count,
                                 std::vector<uint64_t> &out) {
    Result<const json::Value *> member =
        getMember(object, key, path, Kind::Array);
    if (!member.isOk())
      return member.status();
    const std::vector<json::Value> &elements = member.value()->elements;
    std::string where = join(path, key);
    if (count && elements.size() != count)
      return error(where, "expected " + std::to_string(count) +
                              " integers, got " +
                              std::to_string(elements.size()));
    out.clear();
    for (size_t i = 0; i < elements.size(); ++i) {
      uint64_t value;
      if (Status s = toUnsigned(
              elements[i], where + "[" + std::to_string(i) + "]", max, value);
          !s.isOk())
        return s;
      out.push_back(value);
    }
    return Status::ok();
  }

  static Status getSize3(const json::Value &object, std::string_view key,
                         const std::string &path,
                         std::array<uint32_t, 3> &out) {
    std::vector<uint64_t> values;
    if (Status s = getUnsignedArray(object, key, path, UINT32_MAX, 3, values);
        !s.isOk())
      return s;
    for (int i = 0; i < 3; ++i)
      out[i] = uint32_t(values[i]);
    return Status::ok();
  }

  /// Each element of the array member `key` must be an object; calls
  /// `read(element, path)` on it.
  template <typename F>
  static Status forEachObject(const json::Value &object, std::string_view key,
                              const std::string &path, F read) {
    Result<const json::Value *> member =
        getMember(object, key, path, Kind::Array);
    if (!member.isOk())
      return member.status();
    const std::vector<json::Value> &elements = member.value()->elements;
    for (size_t i = 0; i < elements.size(); ++i) {
      std::string where = join(path, key) + "[" + std::to_string(i) + "]";
      if (Status s = expect(elements[i], Kind::Object, where); !s.isOk())
        return s;
      if (Status s = read(elements[i], where); !s.isOk())
        return s;
    }
    return Status::ok();
  }

  /// The blob that member `key` refers to, checked to lie in the file
  /// outside the header and the manifest.
  Status getBlob(const json::Value &object, std::string_view key,
                 const std::string &path, const uint8_t *&begin,
                 uint64_t &length) const {
    Result<const json::Value *> member =
        getMember(object, key, path, Kind::Object);
    if (!member.isOk())
      return member.status();
    std::string where = join(path, key);
    uint64_t offset;
    if (Status s =
            getUnsigned(*member.value(), "offset", where, UINT64_MAX, offset);
        !s.isOk())
      return s;
    if (Status s =
            getUnsigned(*member.value(), "size", where, UINT64_MAX, length);
        !s.isOk())
      return s;
    std::string range = "bytes [" + std::to_string(offset) + ", " +
                        std::to_string(offset) + " + " +
                        std::to_string(length) + ")";
    if (offset > size || length > size - offset)
      return error(where, range + " reach past the end of the file (" +
                              std::to_string(size) + " bytes)");
    if (length && offset < kArtifactHeaderSize)
      return error(where, range + " overlap the header");
    if (length && offset < manifestEnd && manifestBegin < offset + length)
      return error(where, range + " overlap the manifest");
    begin = data + offset;
    return Status::ok();
  }

  Status readSpec(const json::Value &value, const std::string &path,
                  bool isInput, TensorSpec &spec) const {
    if (Status s = getString(value, "name", path, spec.name); !s.isOk())
      return s;
    std::string dtype;
    if (Status s = getString(value, "dtype", path, dtype); !s.isOk())
      return s;
    std::optional<DType> parsed = parseDType(dtype);
    if (!parsed)
      return error(join(path, "dtype"),
                   "unknown dtype " + json::quote(dtype) +
                       " (known: f32, f16, bf16, f64, i64, i32, i8, u8, i1)");
    spec.dtype = *parsed;
    Result<const json::Value *> shape =
        getMember(value, "shape", path, Kind::Array);
    if (!shape.isOk())
      return shape.status();
    for (size_t d = 0; d < shape.value()->elements.size(); ++d) {
      const json::Value &dim = shape.value()->elements[d];
      // null: a dynamic dimension.
      if (dim.kind == Kind::Null) {
        spec.shape.push_back(kDynamicDim);
        continue;
      }
      uint64_t size;
      if (Status s = toUnsigned(
              dim, join(path, "shape") + "[" + std::to_string(d) + "]",
              INT64_MAX, size);
          !s.isOk())
        return s;
      spec.shape.push_back(int64_t(size));
    }
    if (isInput)
      if (Status s = getBool(value, "parameter", path, spec.parameter);
          !s.isOk())
        return s;
    // Optional: [[dim, min, max (null: none)], ...].
    if (const json::Value *ranges = isInput ? value.find("ranges") : nullptr) {
      std::string rangesPath = join(path, "ranges");
      if (Status s = expect(*ranges, Kind::Array, rangesPath); !s.isOk())
        return s;
      for (size_t r = 0; r < ranges->elements.size(); ++r) {
        const json::Value &item = ranges->elements[r];
        std::string at = rangesPath + "[" + std::to_string(r) + "]";
        if (Status s = expect(item, Kind::Array, at); !s.isOk())
          return s;
        if (item.elements.size() != 3)
          return error(at, "expected [dim, min, max], got " +
                               std::to_string(item.elements.size()) +
                               " elements");
        uint64_t dim, min, max = uint64_t(kUnboundedSize);
        if (Status s =
                toUnsigned(item.elements[0], at + "[0]",
                           spec.shape.empty() ? 0 : spec.shape.size() - 1, dim);
            !s.isOk())
          return s;
        if (Status s = toUnsigned(item.elements[1], at + "[1]", INT64_MAX, min);
            !s.isOk())
          return s;
        if (item.elements[2].kind != Kind::Null)
          if (Status s =
                  toUnsigned(item.elements[2], at + "[2]", INT64_MAX, max);
              !s.isOk())
            return s;
        if (min > max)
          return error(at, "the minimum " + std::to_string(min) +
                               " is above the maximum " + std::to_string(max));
        spec.ranges.push_back({int64_t(dim), int64_t(min), int64_t(max)});
      }
    }
    return Status::ok();
  }

  Status readKernel(const json::Value &value, const std::string &path,
                    Kernel &kernel) const {
    if (Status s = getString(value, "name", path, kernel.name); !s.isOk())
      return s;
    if (value.find("label"))
      if (Status s = getString(value, "label", path, kernel.label); !s.isOk())
        return s;
    if (Status s = getString(value, "entry_point", path, kernel.entryPoint);
        !s.isOk())
      return s;
    const uint8_t *code;
    uint64_t length;
    if (Status s = getBlob(value, "spirv", path, code, length); !s.isOk())
      return s;
    std::string where = join(path, "spirv");
    if (length % 4 != 0)
      return error(where, "SPIR-V of " + std::to_string(length) +
                              " bytes is not a whole number of 32-bit words");
    if (length < 20)
      return error(where, "SPIR-V of " + std::to_string(length) +
                              " bytes is shorter than the 5-word header");
    if (loadLE(code, 4) != vk::kSPIRVMagic)
      return error(where, "not SPIR-V: the first word is " +
                              hex(loadLE(code, 4)) + ", not the magic number " +
                              hex(vk::kSPIRVMagic));
    kernel.spirv.resize(length / 4);
    for (size_t i = 0; i < kernel.spirv.size(); ++i)
      kernel.spirv[i] = uint32_t(loadLE(code + 4 * i, 4));
    if (Status s = getU32(value, "num_bindings", path, kernel.numBindings);
        !s.isOk())
      return s;
    if (value.find("written_bindings")) {
      std::vector<uint64_t> written;
      if (Status s = getUnsignedArray(value, "written_bindings", path, 1,
                                      kernel.numBindings, written);
          !s.isOk())
        return s;
      if (written.size() != kernel.numBindings)
        return error(join(path, "written_bindings"),
                     "expected " + std::to_string(kernel.numBindings) +
                         " flags, got " + std::to_string(written.size()));
      kernel.writtenBindings.assign(written.begin(), written.end());
    }
    return getSize3(value, "workgroup_size", path, kernel.workgroupSize);
  }

  Status readBuffer(const json::Value &value, const std::string &path,
                    Buffer &buffer) const {
    std::string kind;
    if (Status s = getString(value, "kind", path, kind); !s.isOk())
      return s;
    std::optional<Buffer::Kind> parsed = parseKind(kind);
    if (!parsed)
      return error(join(path, "kind"),
                   "unknown buffer kind " + json::quote(kind) +
                       " (known: input, output, temporary, constant, size)");
    buffer.kind = *parsed;
    if (buffer.kind == Buffer::Kind::Input ||
        buffer.kind == Buffer::Kind::Output ||
        buffer.kind == Buffer::Kind::Size)
      if (Status s = getU32(value, "index", path, buffer.index); !s.isOk())
        return s;
    if (Status s =
            getUnsigned(value, "bytes", path, kArtifactMaxBytes, buffer.bytes);
        !s.isOk())
      return s;
    if (value.find("bytes_scalar"))
      if (Status s = getU32(value, "bytes_scalar", path, buffer.bytesScalar);
          !s.isOk())
        return s;
    if (value.find("arena_offset")) {
      if (buffer.kind != Buffer::Kind::Temporary)
        return error(join(path, "arena_offset"),
                     "only temporary buffers live in the arena");
      uint64_t offset;
      if (Status s = getUnsigned(value, "arena_offset", path, kArtifactMaxBytes,
                                 offset);
          !s.isOk())
        return s;
      buffer.arenaOffset = offset;
    }
    if (!value.find("data"))
      return Status::ok();
    if (buffer.kind != Buffer::Kind::Constant)
      return error(join(path, "data"), "only constant buffers have data");
    const uint8_t *bytes;
    uint64_t length;
    if (Status s = getBlob(value, "data", path, bytes, length); !s.isOk())
      return s;
    if (length > buffer.bytes)
      return error(join(path, "data"), std::to_string(length) +
                                           " bytes of data for a buffer of " +
                                           std::to_string(buffer.bytes));
    buffer.data.assign(bytes, bytes + length);
    return Status::ok();
  }

  Status readProgram(const json::Value &value, const std::string &path,
                     Program &program) const {
    if (Status s = forEachObject(
            value, "kernels", path,
            [&](const json::Value &element, const std::string &where) {
              program.kernels.emplace_back();
              return readKernel(element, where, program.kernels.back());
            });
        !s.isOk())
      return s;
    if (Status s = forEachObject(
            value, "buffers", path,
            [&](const json::Value &element, const std::string &where) {
              program.buffers.emplace_back();
              return readBuffer(element, where, program.buffers.back());
            });
        !s.isOk())
      return s;
    if (Status s = forEachObject(
            value, "dispatches", path,
            [&](const json::Value &element, const std::string &where) {
              Dispatch &dispatch = program.dispatches.emplace_back();
              if (Status s = getU32(element, "kernel", where, dispatch.kernel);
                  !s.isOk())
                return s;
              if (Status s = getSize3(element, "workgroups", where,
                                      dispatch.workgroups);
                  !s.isOk())
                return s;
              std::vector<uint64_t> buffers;
              if (Status s = getUnsignedArray(element, "buffers", where,
                                              UINT32_MAX, 0, buffers);
                  !s.isOk())
                return s;
              dispatch.buffers.assign(buffers.begin(), buffers.end());
              if (element.find("workgroup_scalars"))
                return getSize3(element, "workgroup_scalars", where,
                                dispatch.workgroupScalars);
              return Status::ok();
            });
        !s.isOk())
      return s;
    if (Status s = forEachObject(
            value, "copies", path,
            [&](const json::Value &element, const std::string &where) {
              Copy &copy = program.copies.emplace_back();
              Status s = getU32(element, "source", where, copy.source);
              if (s.isOk())
                s = getU32(element, "target", where, copy.target);
              if (s.isOk())
                s = getUnsigned(element, "source_offset", where,
                                kArtifactMaxBytes, copy.sourceOffset);
              if (s.isOk())
                s = getUnsigned(element, "target_offset", where,
                                kArtifactMaxBytes, copy.targetOffset);
              if (s.isOk())
                s = getUnsigned(element, "bytes", where, kArtifactMaxBytes,
                                copy.bytes);
              if (s.isOk() && element.find("bytes_scalar"))
                s = getU32(element, "bytes_scalar", where, copy.bytesScalar);
              return s;
            });
        !s.isOk())
      return s;
    if (Status s = forEachObject(
            value, "steps", path,
            [&](const json::Value &element, const std::string &where) {
              Step &step = program.steps.emplace_back();
              std::string kind;
              if (Status s = getString(element, "kind", where, kind); !s.isOk())
                return s;
              if (kind != "dispatch" && kind != "copy")
                return error(join(where, "kind"),
                             "unknown step kind " + json::quote(kind) +
                                 " (known: dispatch, copy)");
              step.kind =
                  kind == "dispatch" ? Step::Kind::Dispatch : Step::Kind::Copy;
              if (element.find("prepare"))
                if (Status s = getBool(element, "prepare", where, step.prepare);
                    !s.isOk())
                  return s;
              return getU32(element, "index", where, step.index);
            });
        !s.isOk())
      return s;
    Result<const json::Value *> features =
        getMember(value, "required_features", path, Kind::Array);
    if (!features.isOk())
      return features.status();
    for (size_t i = 0; i < features.value()->elements.size(); ++i) {
      const json::Value &feature = features.value()->elements[i];
      if (Status s = expect(feature, Kind::String,
                            join(path, "required_features") + "[" +
                                std::to_string(i) + "]");
          !s.isOk())
        return s;
      program.requiredFeatures.push_back(feature.text);
    }
    // Absent in artifacts written before temporaries shared an arena.
    if (value.find("arena_bytes"))
      if (Status s = getUnsigned(value, "arena_bytes", path, kArtifactMaxBytes,
                                 program.arenaBytes);
          !s.isOk())
        return s;
    if (!value.find("scalars"))
      return Status::ok();
    return readDynamicParts(value, path, program);
  }

  /// The scalars, shape checks and output sizes of a program with dynamic
  /// dimensions.
  Status readDynamicParts(const json::Value &value, const std::string &path,
                          Program &program) const {
    if (Status s = forEachObject(
            value, "scalars", path,
            [&](const json::Value &element, const std::string &where) {
              vk::Scalar &scalar = program.scalars.emplace_back();
              std::string op;
              if (Status s = getString(element, "op", where, op); !s.isOk())
                return s;
              const char *const *name = std::find(std::begin(kScalarOpNames),
                                                  std::end(kScalarOpNames), op);
              if (name == std::end(kScalarOpNames))
                return error(join(where, "op"),
                             "unknown scalar operation " + json::quote(op));
              scalar.op = vk::Scalar::Op(name - std::begin(kScalarOpNames));
              if (scalar.op != vk::Scalar::Op::Constant) {
                std::vector<uint64_t> operands;
                if (Status s = getUnsignedArray(element, "operands", where,
                                                UINT32_MAX, 3, operands);
                    !s.isOk())
                  return s;
                for (int i = 0; i < 3; ++i)
                  scalar.operands[i] = uint32_t(operands[i]);
                return Status::ok();
              }
              Result<const json::Value *> number =
                  getMember(element, "value", where, Kind::Number);
              if (!number.isOk())
                return number.status();
              if (!number.value()->integer)
                return error(join(where, "value"),
                             "expected a 64-bit integer, got " +
                                 number.value()->text);
              scalar.value = *number.value()->integer;
              return Status::ok();
            });
        !s.isOk())
      return s;
    if (Status s = forEachObject(
            value, "shape_checks", path,
            [&](const json::Value &element, const std::string &where) {
              vk::ShapeCheck &check = program.checks.emplace_back();
              if (Status s = getU32(element, "scalar", where, check.scalar);
                  !s.isOk())
                return s;
              return getString(element, "message", where, check.message);
            });
        !s.isOk())
      return s;
    Result<const json::Value *> dims =
        getMember(value, "output_dims", path, Kind::Array);
    if (!dims.isOk())
      return dims.status();
    const std::vector<json::Value> &elements = dims.value()->elements;
    for (size_t o = 0; o < elements.size(); ++o) {
      std::string where =
          join(path, "output_dims") + "[" + std::to_string(o) + "]";
      if (Status s = expect(elements[o], Kind::Array, where); !s.isOk())
        return s;
      std::vector<uint32_t> &out = program.outputDims.emplace_back();
      for (size_t d = 0; d < elements[o].elements.size(); ++d) {
        uint64_t scalar;
        if (Status s = toUnsigned(elements[o].elements[d],
                                  where + "[" + std::to_string(d) + "]",
                                  UINT32_MAX, scalar);
            !s.isOk())
          return s;
        out.push_back(uint32_t(scalar));
      }
    }
    return Status::ok();
  }

  /// The array of strings member `key`.
  static Status getStrings(const json::Value &object, std::string_view key,
                           const std::string &path,
                           std::vector<std::string> &out) {
    Result<const json::Value *> member =
        getMember(object, key, path, Kind::Array);
    if (!member.isOk())
      return member.status();
    for (size_t i = 0; i < member.value()->elements.size(); ++i) {
      const json::Value &element = member.value()->elements[i];
      if (Status s = expect(element, Kind::String,
                            join(path, key) + "[" + std::to_string(i) + "]");
          !s.isOk())
        return s;
      out.push_back(element.text);
    }
    return Status::ok();
  }

  Status readCPUCode(const json::Value &value, const std::string &path,
                     CPUCode &code) const {
    for (const auto &[key, field] :
         {std::pair{"arch", &code.arch}, std::pair{"cpu", &code.cpu},
          std::pair{"symbol", &code.symbol}})
      if (Status s = getString(value, key, path, *field); !s.isOk())
        return s;
    if (Status s = getStrings(value, "features", path, code.features);
        !s.isOk())
      return s;
    if (Status s = getStrings(value, "imports", path, code.imports); !s.isOk())
      return s;
    const uint8_t *begin;
    uint64_t length;
    if (Status s = getBlob(value, "library", path, begin, length); !s.isOk())
      return s;
    if (length == 0)
      return error(join(path, "library"), "is empty");
    code.library.assign(begin, begin + length);
    // Optional: code for the whole batch has none.
    if (value.find("sub_batch")) {
      uint64_t subBatch;
      if (Status s = getUnsigned(value, "sub_batch", path, INT64_MAX, subBatch);
          !s.isOk())
        return s;
      if (subBatch == 0)
        return error(join(path, "sub_batch"), "is 0");
      code.subBatch = int64_t(subBatch);
    }
    // Optional: CPU code without parameter computations has none.
    if (const json::Value *prepare = value.find("prepare")) {
      std::string where = join(path, "prepare");
      if (Status s = expect(*prepare, Kind::Object, where); !s.isOk())
        return s;
      CPUPrepare &into = code.prepare.emplace();
      if (Status s = getString(*prepare, "symbol", where, into.symbol);
          !s.isOk())
        return s;
      std::vector<uint64_t> arguments;
      if (Status s = getUnsignedArray(*prepare, "arguments", where, INT64_MAX,
                                      0, arguments);
          !s.isOk())
        return s;
      into.arguments.assign(arguments.begin(), arguments.end());
      if (Status s = forEachObject(
              *prepare, "results", where,
              [&](const json::Value &element, const std::string &at) {
                return readSpec(element, at, /*isInput=*/false,
                                into.results.emplace_back());
              });
          !s.isOk())
        return s;
    }
    return Status::ok();
  }

  Status readEntry(const json::Value &value, const std::string &path,
                   ArtifactEntry &entry) const {
    if (Status s = expect(value, Kind::Object, path); !s.isOk())
      return s;
    if (Status s = getString(value, "name", path, entry.name); !s.isOk())
      return s;
    if (Status s = forEachObject(
            value, "inputs", path,
            [&](const json::Value &element, const std::string &where) {
              return readSpec(element, where, /*isInput=*/true,
                              entry.signature.inputs.emplace_back());
            });
        !s.isOk())
      return s;
    if (Status s = forEachObject(
            value, "outputs", path,
            [&](const json::Value &element, const std::string &where) {
              return readSpec(element, where, /*isInput=*/false,
                              entry.signature.outputs.emplace_back());
            });
        !s.isOk())
      return s;
    Result<const json::Value *> targets =
        getMember(value, "targets", path, Kind::Object);
    if (!targets.isOk())
      return targets.status();
    // Targets this runtime does not know are skipped (see Artifact.h).
    if (const json::Value *cpu = targets.value()->find("cpu")) {
      std::string where = join(path, "targets.cpu");
      if (Status s = expect(*cpu, Kind::Object, where); !s.isOk())
        return s;
      if (Status s = readCPUCode(*cpu, where, entry.cpu.emplace()); !s.isOk())
        return s;
    }
    if (const json::Value *vulkan = targets.value()->find("vulkan")) {
      std::string where = join(path, "targets.vulkan");
      if (Status s = expect(*vulkan, Kind::Object, where); !s.isOk())
        return s;
      entry.vulkan.emplace();
      if (Status s = readProgram(*vulkan, where, *entry.vulkan); !s.isOk())
        return s;
      entry.vulkan->signature = entry.signature;
    }
    return Status::ok();
  }

  const uint8_t *data;
  uint64_t size, manifestBegin, manifestEnd;
};

} // namespace

bool fx::rt::areShapeVariants(const FunctionSignature &a,
                              const FunctionSignature &b) {
  auto same = [](const std::vector<TensorSpec> &x,
                 const std::vector<TensorSpec> &y) {
    if (x.size() != y.size())
      return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].name != y[i].name || x[i].dtype != y[i].dtype ||
          x[i].parameter != y[i].parameter ||
          x[i].shape.size() != y[i].shape.size() ||
          (x[i].parameter && x[i].shape != y[i].shape))
        return false;
    return true;
  };
  return same(a.inputs, b.inputs) && same(a.outputs, b.outputs);
}

uint64_t fx::rt::fnv1a64(const uint8_t *data, size_t size, uint64_t hash) {
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

const ArtifactEntry *Artifact::find(std::string_view name) const {
  for (const ArtifactEntry &entry : entries)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

Result<std::vector<uint8_t>>
fx::rt::serializeArtifact(const Artifact &artifact) {
  if (Status s = checkText(artifact.producer, "the producer"); !s.isOk())
    return s;
  if (Status s = checkEntries(artifact.entries); !s.isOk())
    return s;
  Writer writer;
  std::vector<std::string> entries;
  for (const ArtifactEntry &entry : artifact.entries)
    entries.push_back(writer.entry(entry, 4));
  std::string manifest =
      block({{"format_version", number(kArtifactFormatVersion)},
             {"producer", json::quote(artifact.producer)},
             {"entries", lines(entries, 2)}},
            0) +
      "\n";
  return writer.finish(manifest);
}

Status fx::rt::writeArtifact(const std::string &path,
                             const Artifact &artifact) {
  Result<std::vector<uint8_t>> bytes = serializeArtifact(artifact);
  if (!bytes.isOk())
    return Status::error(path + ": " + bytes.message());
  Result<OutputFile> file = OutputFile::create(path);
  if (!file.isOk())
    return file.status();
  if (Status s = file.value().write(bytes.value().data(), bytes.value().size());
      !s.isOk())
    return s;
  return file.value().close();
}

/// The header checks that need no more than the header and the file size:
/// magic, version, size. Shared by parseArtifact and readArtifact (which
/// runs them before reading a whole file that may not be an artifact).
static Status checkHeader(const uint8_t *data, uint64_t available,
                          uint64_t fileSize) {
  // A short file that starts like an artifact is a truncated one.
  if (available &&
      std::memcmp(data, kMagic, std::min<uint64_t>(available, 16)) != 0)
    return Status::error(
        "not an fx artifact (it does not start with \"FXARTIFACT\")");
  if (fileSize < kArtifactHeaderSize)
    return Status::error("truncated: " + std::to_string(fileSize) +
                         " bytes, shorter than the " +
                         std::to_string(kArtifactHeaderSize) + "-byte header");
  uint64_t version = loadLE(data + kVersionAt, 4);
  if (version != kArtifactFormatVersion)
    return Status::error("artifact format version " + std::to_string(version) +
                         " is not supported (this runtime reads version " +
                         std::to_string(kArtifactFormatVersion) + ")");
  if (loadLE(data + kReserved0At, 4) != 0 || loadLE(data + kReserved1At, 8))
    return Status::error("damaged header: reserved bytes are not zero");
  uint64_t declared = loadLE(data + kFileSizeAt, 8);
  if (declared > fileSize)
    return Status::error("truncated: the header says " +
                         std::to_string(declared) + " bytes but there are " +
                         std::to_string(fileSize));
  if (declared < fileSize)
    return Status::error(std::to_string(fileSize) + " bytes, more than the " +
                         std::to_string(declared) +
                         " the header says (data appended to the file?)");
  return Status::ok();
}

Result<Artifact> fx::rt::parseArtifact(const uint8_t *data, size_t size) {
  if (Status s =
          checkHeader(data, std::min<size_t>(size, kArtifactHeaderSize), size);
      !s.isOk())
    return s;
  uint64_t manifestOffset = loadLE(data + kManifestOffsetAt, 8);
  uint64_t manifestSize = loadLE(data + kManifestSizeAt, 8);
  if (manifestOffset < kArtifactHeaderSize || manifestOffset > size ||
      manifestSize > size - manifestOffset)
    return Status::error(
        "damaged header: the manifest at bytes [" +
        std::to_string(manifestOffset) + ", " + std::to_string(manifestOffset) +
        " + " + std::to_string(manifestSize) + ") is not inside the file (" +
        std::to_string(size) + " bytes)");
  uint64_t expected = loadLE(data + kChecksumAt, 8);
  uint64_t actual =
      fnv1a64(data + kArtifactHeaderSize, size - kArtifactHeaderSize);
  if (actual != expected)
    return Status::error("checksum mismatch: the header says " + hex(expected) +
                         " but the contents hash to " + hex(actual) +
                         " (the file is damaged)");
  Result<json::Value> manifest = json::parse(std::string_view(
      reinterpret_cast<const char *>(data + manifestOffset), manifestSize));
  if (!manifest.isOk())
    return Status::error("manifest: " + manifest.message());
  return Reader(data, size, manifestOffset, manifestOffset + manifestSize)
      .read(manifest.value());
}

Result<Artifact> fx::rt::readArtifact(const std::string &path) {
  Result<InputFile> file = InputFile::open(path);
  if (!file.isOk())
    return file.status();
  uint64_t size = file.value().size();
  uint8_t header[kArtifactHeaderSize] = {};
  size_t headerBytes = size_t(std::min<uint64_t>(size, kArtifactHeaderSize));
  if (Status s = file.value().readAt(0, header, headerBytes); !s.isOk())
    return s;
  if (Status s = checkHeader(header, headerBytes, size); !s.isOk())
    return Status::error(path + ": " + s.message());
  // Mapped rather than read: parsing copies what it keeps (SPIR-V,
  // constants), so a large artifact is not held twice.
  void *mapped = ::mmap(nullptr, size_t(size), PROT_READ, MAP_PRIVATE,
                        file.value().fd(), 0);
  if (mapped == MAP_FAILED)
    return Status::error(path + ": cannot mmap: " + errnoMessage());
  Result<Artifact> artifact =
      parseArtifact(static_cast<const uint8_t *>(mapped), size_t(size));
  ::munmap(mapped, size_t(size));
  if (!artifact.isOk())
    return Status::error(path + ": " + artifact.message());
  return artifact;
}

//===- ArtifactTest.cpp - .fxa round trips and every rejection ------------===//
//
// Rejections are made by mutating a valid artifact: header bytes directly,
// blob bytes with the checksum recomputed, and the manifest by rewriting its
// text and resealing the file (sizes and checksum), so each check is reached
// past the ones before it.
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/Artifact.h"

#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace fx::rt;
using namespace fx::rt::testing;

namespace {

/// An entry that sets every field of the signature and the program.
ArtifactEntry fullEntry() {
  ArtifactEntry entry;
  entry.name = "forward";
  entry.signature.inputs = {{"x", DType::F32, {2, 3}, false},
                            {"layer.w", DType::F16, {3}, true}};
  entry.signature.outputs = {{"result0", DType::F32, {2, 3}, false},
                             {"result1", DType::I64, {2}, false}};
  vk::Program program;
  program.signature = entry.signature;
  program.kernels = {
      {"k_add",
       "main_a",
       fakeSPIRV("main_a"),
       3,
       {64, 1, 1},
       "add +1 fused (model.py:7)",
       {false, false, true}},
      {"k_mul", "main_b", fakeSPIRV("main_b"), 2, {8, 4, 2}, ""}};
  using Kind = vk::Buffer::Kind;
  program.buffers = {
      {Kind::Input, 0, 24, {}, std::nullopt},
      {Kind::Input, 1, 8, {}, std::nullopt},
      {Kind::Output, 0, 24, {}, std::nullopt},
      {Kind::Output, 1, 16, {}, std::nullopt},
      {Kind::Temporary, 0, 32, {}, 0},
      {Kind::Constant, 0, 12, {1, 2, 3, 4, 5, 6, 7, 8}, std::nullopt}};
  program.arenaBytes = 256;
  program.dispatches = {{0, {1, 2, 3}, {0, 1, 4}},
                        {1, {4, 1, 1}, {4, 2}},
                        {1, {1, 1, 1}, {5, 3}}};
  program.copies = {{4, 3, 8, 4, 8}};
  using Step = vk::Step;
  program.steps = {{Step::Kind::Dispatch, 0},
                   {Step::Kind::Copy, 0},
                   {Step::Kind::Dispatch, 1},
                   {Step::Kind::Dispatch, 2}};
  program.requiredFeatures = {"shaderInt64", "shaderFloat16"};
  entry.vulkan = std::move(program);
  return entry;
}

Artifact fullArtifact() {
  Artifact artifact;
  artifact.producer = "ArtifactTest";
  artifact.entries.push_back(fullEntry());
  ArtifactEntry second = fullEntry();
  second.name = "second";
  second.vulkan->steps.pop_back();
  artifact.entries.push_back(std::move(second));
  return artifact;
}

void expectSameProgram(const vk::Program &a, const vk::Program &b) {
  EXPECT_EQ(a.signature, b.signature);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].label, b.kernels[i].label);
    EXPECT_EQ(a.kernels[i].entryPoint, b.kernels[i].entryPoint);
    EXPECT_EQ(a.kernels[i].spirv, b.kernels[i].spirv);
    EXPECT_EQ(a.kernels[i].numBindings, b.kernels[i].numBindings);
    EXPECT_EQ(a.kernels[i].workgroupSize, b.kernels[i].workgroupSize);
    EXPECT_EQ(a.kernels[i].writtenBindings, b.kernels[i].writtenBindings);
  }
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    EXPECT_EQ(a.buffers[i].kind, b.buffers[i].kind);
    EXPECT_EQ(a.buffers[i].index, b.buffers[i].index);
    EXPECT_EQ(a.buffers[i].bytes, b.buffers[i].bytes);
    EXPECT_EQ(a.buffers[i].data, b.buffers[i].data);
    EXPECT_EQ(a.buffers[i].arenaOffset, b.buffers[i].arenaOffset);
    EXPECT_EQ(a.buffers[i].bytesScalar, b.buffers[i].bytesScalar);
  }
  EXPECT_EQ(a.arenaBytes, b.arenaBytes);
  ASSERT_EQ(a.dispatches.size(), b.dispatches.size());
  for (size_t i = 0; i < a.dispatches.size(); ++i) {
    EXPECT_EQ(a.dispatches[i].kernel, b.dispatches[i].kernel);
    EXPECT_EQ(a.dispatches[i].workgroups, b.dispatches[i].workgroups);
    EXPECT_EQ(a.dispatches[i].buffers, b.dispatches[i].buffers);
    EXPECT_EQ(a.dispatches[i].workgroupScalars,
              b.dispatches[i].workgroupScalars);
  }
  ASSERT_EQ(a.copies.size(), b.copies.size());
  for (size_t i = 0; i < a.copies.size(); ++i) {
    EXPECT_EQ(a.copies[i].source, b.copies[i].source);
    EXPECT_EQ(a.copies[i].target, b.copies[i].target);
    EXPECT_EQ(a.copies[i].sourceOffset, b.copies[i].sourceOffset);
    EXPECT_EQ(a.copies[i].targetOffset, b.copies[i].targetOffset);
    EXPECT_EQ(a.copies[i].bytes, b.copies[i].bytes);
    EXPECT_EQ(a.copies[i].bytesScalar, b.copies[i].bytesScalar);
  }
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(a.steps[i].kind, b.steps[i].kind);
    EXPECT_EQ(a.steps[i].index, b.steps[i].index);
  }
  EXPECT_EQ(a.requiredFeatures, b.requiredFeatures);
  ASSERT_EQ(a.scalars.size(), b.scalars.size());
  for (size_t i = 0; i < a.scalars.size(); ++i) {
    EXPECT_EQ(a.scalars[i].op, b.scalars[i].op);
    EXPECT_EQ(a.scalars[i].value, b.scalars[i].value);
    if (a.scalars[i].op != vk::Scalar::Op::Constant)
      EXPECT_EQ(a.scalars[i].operands, b.scalars[i].operands);
  }
  ASSERT_EQ(a.checks.size(), b.checks.size());
  for (size_t i = 0; i < a.checks.size(); ++i) {
    EXPECT_EQ(a.checks[i].scalar, b.checks[i].scalar);
    EXPECT_EQ(a.checks[i].message, b.checks[i].message);
  }
  EXPECT_EQ(a.outputDims, b.outputDims);
}

uint64_t load64(const std::vector<uint8_t> &bytes, size_t at) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = value << 8 | bytes[at + i];
  return value;
}

void store64(std::vector<uint8_t> &bytes, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes[at + i] = uint8_t(value >> (8 * i));
}

/// Recomputes the header's checksum after a mutation.
void reseal(std::vector<uint8_t> &bytes) {
  store64(bytes, 48,
          fnv1a64(bytes.data() + kArtifactHeaderSize,
                  bytes.size() - kArtifactHeaderSize));
}

class ArtifactTest : public ::testing::Test {
protected:
  void SetUp() override {
    Result<std::vector<uint8_t>> bytes = serializeArtifact(fullArtifact());
    ASSERT_TRUE(bytes.isOk()) << bytes.message();
    valid = bytes.take();
  }

  std::string manifest() const {
    uint64_t offset = load64(valid, 24), size = load64(valid, 32);
    return std::string(valid.begin() + offset, valid.begin() + offset + size);
  }

  /// The valid artifact with its manifest replaced by `text` (header sizes
  /// and checksum updated).
  std::vector<uint8_t> withManifest(const std::string &text) const {
    uint64_t offset = load64(valid, 24);
    std::vector<uint8_t> bytes(valid.begin(), valid.begin() + offset);
    bytes.insert(bytes.end(), text.begin(), text.end());
    store64(bytes, 32, text.size());
    store64(bytes, 40, bytes.size());
    reseal(bytes);
    return bytes;
  }

  /// The valid manifest with the first `from` replaced by `to`.
  std::vector<uint8_t> replaced(const std::string &from,
                                const std::string &to) const {
    std::string text = manifest();
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "the manifest lacks '" << from << "'";
    if (at != std::string::npos)
      text.replace(at, from.size(), to);
    return withManifest(text);
  }

  /// The message of parsing `bytes`, which must fail.
  static std::string error(const std::vector<uint8_t> &bytes) {
    Result<Artifact> artifact = parseArtifact(bytes.data(), bytes.size());
    EXPECT_FALSE(artifact.isOk()) << "parsed unexpectedly";
    return artifact.message();
  }

  std::vector<uint8_t> valid;
  TempDir tmp;
};

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST_F(ArtifactTest, RoundTripEveryField) {
  Artifact original = fullArtifact();
  std::string path = tmp.path("model.fxa");
  ASSERT_TRUE(writeArtifact(path, original).isOk());
  Result<Artifact> read = readArtifact(path);
  ASSERT_TRUE(read.isOk()) << read.message();
  EXPECT_EQ(read.value().producer, "ArtifactTest");
  ASSERT_EQ(read.value().entries.size(), 2u);
  for (size_t e = 0; e < 2; ++e) {
    const ArtifactEntry &got = read.value().entries[e];
    const ArtifactEntry &want = original.entries[e];
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.signature, want.signature);
    EXPECT_TRUE(got.signature.inputs[1].parameter);
    ASSERT_TRUE(got.vulkan.has_value());
    expectSameProgram(*got.vulkan, *want.vulkan);
  }
  EXPECT_EQ(read.value().find("second"), &read.value().entries[1]);
  EXPECT_EQ(read.value().find("third"), nullptr);
  // The file is the serialized bytes.
  std::string file = readBytes(path);
  EXPECT_EQ(std::vector<uint8_t>(file.begin(), file.end()), valid);
}

TEST_F(ArtifactTest, RoundTripDimRanges) {
  Artifact original = fullArtifact();
  std::vector<DimRange> ranges = {{0, 1, 64}, {1, 2, kUnboundedSize}};
  original.entries[0].signature.inputs[0].ranges = ranges;
  std::string path = tmp.path("ranged.fxa");
  ASSERT_TRUE(writeArtifact(path, original).isOk());
  Result<Artifact> read = readArtifact(path);
  ASSERT_TRUE(read.isOk()) << read.message();
  EXPECT_EQ(read.value().entries[0].signature.inputs[0].ranges, ranges);
  EXPECT_TRUE(read.value().entries[0].signature.inputs[1].ranges.empty());
  EXPECT_NE(readBytes(path).find("\"ranges\": [[0, 1, 64], [1, 2, null]]"),
            std::string::npos);
}

TEST_F(ArtifactTest, RejectsBadDimRanges) {
  auto withRanges = [&](const std::string &ranges) {
    return replaced("\"parameter\": false",
                    "\"parameter\": false, \"ranges\": " + ranges);
  };
  EXPECT_EQ(error(withRanges("[[2, 1, 4]]")),
            "manifest: entries[0].inputs[0].ranges[0][0]: 2 is out of range "
            "(at most 1)");
  EXPECT_EQ(error(withRanges("[[0, 3, 2]]")),
            "manifest: entries[0].inputs[0].ranges[0]: the minimum 3 is above "
            "the maximum 2");
  EXPECT_EQ(error(withRanges("[[0, 1]]")),
            "manifest: entries[0].inputs[0].ranges[0]: expected [dim, min, "
            "max], got 2 elements");
  EXPECT_EQ(error(withRanges("{}")),
            "manifest: entries[0].inputs[0].ranges: expected an array, got an "
            "object");
}

TEST_F(ArtifactTest, RoundTripDynamicProgram) {
  Artifact original;
  ArtifactEntry entry;
  entry.name = "batch";
  entry.vulkan = dynamicProgram();
  // A negative constant and every kind of dynamic field.
  entry.vulkan->scalars.push_back({vk::Scalar::Op::Constant, -7, {}});
  entry.signature = entry.vulkan->signature;
  original.entries.push_back(entry);
  std::string path = tmp.path("dynamic.fxa");
  ASSERT_TRUE(writeArtifact(path, original).isOk());
  Result<Artifact> read = readArtifact(path);
  ASSERT_TRUE(read.isOk()) << read.message();
  const ArtifactEntry &got = read.value().entries.at(0);
  EXPECT_EQ(got.signature.inputs[0].str(), "f32[?, 4]");
  expectSameProgram(*got.vulkan, *entry.vulkan);
  // The manifest spells dynamic dimensions null.
  EXPECT_CONTAINS(readBytes(path), "\"shape\": [null, 4]");
  // What the reader rejects of the scalars.
  Result<std::vector<uint8_t>> bytes = serializeArtifact(original);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  valid = bytes.take();
  EXPECT_EQ(error(replaced("\"op\": \"mul\"", "\"op\": \"pow\"")),
            "manifest: entries[0].targets.vulkan.scalars[2].op: unknown "
            "scalar operation \"pow\"");
  EXPECT_EQ(error(replaced("\"value\": -7", "\"value\": 0.5")),
            "manifest: entries[0].targets.vulkan.scalars[9].value: expected a "
            "64-bit integer, got 0.5");
  EXPECT_EQ(error(replaced("\"kind\": \"size\", \"index\": 4",
                           "\"kind\": \"size\", \"index\": 40")),
            "entry 'batch': invalid Vulkan program: buffer 3 (size argument) "
            "names a scalar out of range");

  // CPU code needs static shapes.
  entry.cpu = CPUCode();
  entry.cpu->library = {1};
  original.entries = {entry};
  Status s = writeArtifact(path, original);
  EXPECT_CONTAINS(s.message(), "entry 'batch': input 0 f32[?, 4] has a "
                               "dynamic dimension, which only a Vulkan "
                               "program without CPU code can have");
}

TEST_F(ArtifactTest, HeaderLayoutAndAlignedBlobs) {
  EXPECT_EQ(std::memcmp(valid.data(), "FXARTIFACT\0\0\0\0\0\0", 16), 0);
  EXPECT_EQ(valid[16], kArtifactFormatVersion);
  EXPECT_EQ(load64(valid, 40), valid.size());
  EXPECT_EQ(load64(valid, 24) + load64(valid, 32), valid.size());
  std::string text = manifest();
  EXPECT_CONTAINS(text, "\"format_version\": 3");
  EXPECT_CONTAINS(text, "\"producer\": \"ArtifactTest\"");
  EXPECT_CONTAINS(text, "{\"name\": \"layer.w\", \"dtype\": \"f16\", "
                        "\"shape\": [3], \"parameter\": true}");
  // Every blob offset is aligned.
  size_t blobs = 0;
  for (size_t at = text.find("\"offset\": "); at != std::string::npos;
       at = text.find("\"offset\": ", at + 1), ++blobs)
    EXPECT_EQ(std::stoull(text.substr(at + 10)) % kArtifactBlobAlignment, 0u);
  EXPECT_EQ(blobs, 6u); // 2 entries x (2 kernels + 1 constant)
}

TEST_F(ArtifactTest, EmptyArtifactAndEntryWithoutTargets) {
  Artifact artifact;
  artifact.entries.push_back({"no_code", {}, std::nullopt, std::nullopt});
  Result<std::vector<uint8_t>> bytes = serializeArtifact(artifact);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  Result<Artifact> read =
      parseArtifact(bytes.value().data(), bytes.value().size());
  ASSERT_TRUE(read.isOk()) << read.message();
  ASSERT_EQ(read.value().entries.size(), 1u);
  EXPECT_FALSE(read.value().entries[0].vulkan.has_value());
}

TEST_F(ArtifactTest, UnknownMembersAndTargetsAreIgnored) {
  Result<Artifact> read = [&] {
    std::vector<uint8_t> bytes =
        replaced("\"targets\": {", "\"targets\": {\"tpu\": {\"so\": 1}, ");
    return parseArtifact(bytes.data(), bytes.size());
  }();
  ASSERT_TRUE(read.isOk()) << read.message();
  EXPECT_TRUE(read.value().entries[0].vulkan.has_value());
  std::vector<uint8_t> bytes =
      replaced("\"producer\"", "\"comment\": [1, 2], \"producer\"");
  EXPECT_TRUE(parseArtifact(bytes.data(), bytes.size()).isOk());
}

//===----------------------------------------------------------------------===//
// The header, the size and the checksum
//===----------------------------------------------------------------------===//

TEST_F(ArtifactTest, RejectsTruncatedFiles) {
  EXPECT_CONTAINS(error({}), "truncated: 0 bytes, shorter than the 64-byte "
                             "header");
  EXPECT_CONTAINS(error({valid.begin(), valid.begin() + 10}),
                  "truncated: 10 bytes");
  EXPECT_CONTAINS(error({valid.begin(), valid.begin() + 40}),
                  "truncated: 40 bytes, shorter than the 64-byte header");
  EXPECT_CONTAINS(error({valid.begin(), valid.begin() + 100}),
                  "truncated: the header says " + std::to_string(valid.size()) +
                      " bytes but there are 100");
  std::vector<uint8_t> longer = valid;
  longer.push_back(0);
  EXPECT_CONTAINS(error(longer), "more than the " +
                                     std::to_string(valid.size()) +
                                     " the header says");
}

TEST_F(ArtifactTest, RejectsWrongMagic) {
  std::vector<uint8_t> bytes = valid;
  bytes[2] = 'Z';
  EXPECT_EQ(error(bytes),
            "not an fx artifact (it does not start with \"FXARTIFACT\")");
  std::string text = "{\"not\": \"an artifact\"}";
  EXPECT_CONTAINS(error({text.begin(), text.end()}), "not an fx artifact");
}

TEST_F(ArtifactTest, RejectsOtherVersions) {
  std::vector<uint8_t> bytes = valid;
  bytes[16] = 4;
  EXPECT_EQ(error(bytes), "artifact format version 4 is not supported (this "
                          "runtime reads version 3)");
  bytes[16] = 0;
  bytes[19] = 1;
  EXPECT_CONTAINS(error(bytes), "version 16777216 is not supported");
}

TEST_F(ArtifactTest, RejectsNonZeroReservedBytes) {
  std::vector<uint8_t> bytes = valid;
  bytes[60] = 1;
  EXPECT_CONTAINS(error(bytes), "reserved bytes are not zero");
}

TEST_F(ArtifactTest, RejectsChecksumMismatch) {
  std::vector<uint8_t> bytes = valid;
  bytes[kArtifactHeaderSize + 30] ^= 0x40; // inside the first SPIR-V blob
  EXPECT_CONTAINS(error(bytes), "checksum mismatch: the header says 0x");
  EXPECT_CONTAINS(error(bytes), "(the file is damaged)");
  bytes = valid;
  bytes[50] ^= 1; // the checksum itself
  EXPECT_CONTAINS(error(bytes), "checksum mismatch");
}

TEST_F(ArtifactTest, RejectsManifestOutsideTheFile) {
  std::vector<uint8_t> bytes = valid;
  store64(bytes, 32, valid.size());
  EXPECT_CONTAINS(error(bytes), "damaged header: the manifest at bytes [");
  bytes = valid;
  store64(bytes, 24, 8);
  EXPECT_CONTAINS(error(bytes), "is not inside the file");
  bytes = valid;
  store64(bytes, 24, UINT64_MAX - 1);
  EXPECT_CONTAINS(error(bytes), "is not inside the file");
}

TEST_F(ArtifactTest, ReadArtifactNamesTheFile) {
  std::string missing = tmp.path("missing.fxa");
  Result<Artifact> read = readArtifact(missing);
  ASSERT_FALSE(read.isOk());
  EXPECT_CONTAINS(read.message(), missing + ": cannot open");
  writeBytes(tmp.path("npy.fxa"), "\x93NUMPY not an artifact");
  read = readArtifact(tmp.path("npy.fxa"));
  ASSERT_FALSE(read.isOk());
  EXPECT_EQ(read.message(), tmp.path("npy.fxa") + ": not an fx artifact (it "
                                                  "does not start with "
                                                  "\"FXARTIFACT\")");
  writeBytes(tmp.path("short.fxa"),
             std::string(valid.begin(), valid.begin() + 100));
  read = readArtifact(tmp.path("short.fxa"));
  ASSERT_FALSE(read.isOk());
  EXPECT_CONTAINS(read.message(), tmp.path("short.fxa") + ": truncated");
  std::vector<uint8_t> damaged = valid;
  damaged.back() ^= 1;
  writeBytes(tmp.path("damaged.fxa"),
             std::string(damaged.begin(), damaged.end()));
  read = readArtifact(tmp.path("damaged.fxa"));
  ASSERT_FALSE(read.isOk());
  EXPECT_CONTAINS(read.message(),
                  tmp.path("damaged.fxa") + ": checksum mismatch");
}

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

TEST_F(ArtifactTest, RejectsMalformedJson) {
  std::string text = manifest();
  EXPECT_CONTAINS(error(withManifest(text.substr(0, text.size() / 2))),
                  "manifest: invalid JSON at byte");
  EXPECT_CONTAINS(error(withManifest("")), "manifest: invalid JSON at byte 0");
  EXPECT_CONTAINS(error(replaced("\"entries\": [", "\"entries\": [,")),
                  "manifest: invalid JSON");
  EXPECT_CONTAINS(error(withManifest("[1, 2]")),
                  "manifest: the top level: expected an object, got an array");
}

TEST_F(ArtifactTest, RejectsMissingMembers) {
  EXPECT_EQ(error(replaced("\"format_version\": 3,", "")),
            "manifest: the top level: missing member 'format_version'");
  EXPECT_EQ(error(replaced("\"producer\": \"ArtifactTest\",", "")),
            "manifest: the top level: missing member 'producer'");
  EXPECT_EQ(error(replaced("\"num_bindings\": 3, ", "")),
            "manifest: entries[0].targets.vulkan.kernels[0]: missing member "
            "'num_bindings'");
  EXPECT_EQ(error(replaced(", \"parameter\": false", "")),
            "manifest: entries[0].inputs[0]: missing member 'parameter'");
  EXPECT_EQ(error(replaced("\"targets\": {", "\"targetz\": {")),
            "manifest: entries[0]: missing member 'targets'");
  EXPECT_EQ(error(replaced("\"kind\": \"input\", \"index\": 0, ",
                           "\"kind\": \"input\", ")),
            "manifest: entries[0].targets.vulkan.buffers[0]: missing member "
            "'index'");
  EXPECT_EQ(error(replaced("\"size\": ", "\"length\": ")),
            "manifest: entries[0].targets.vulkan.kernels[0].spirv: missing "
            "member 'size'");
  EXPECT_EQ(error(replaced("\"required_features\"", "\"features\"")),
            "manifest: entries[0].targets.vulkan: missing member "
            "'required_features'");
}

TEST_F(ArtifactTest, RejectsMistypedMembers) {
  EXPECT_EQ(error(replaced("\"name\": \"forward\"", "\"name\": 5")),
            "manifest: entries[0].name: expected a string, got a number");
  EXPECT_EQ(error(withManifest("{\"format_version\": 3, \"producer\": \"p\", "
                               "\"entries\": {}}")),
            "manifest: entries: expected an array, got an object");
  EXPECT_EQ(error(replaced("\"shape\": [2, 3]", "\"shape\": [2, -3]")),
            "manifest: entries[0].inputs[0].shape[1]: expected a "
            "non-negative integer, got -3");
  EXPECT_EQ(error(replaced("\"shape\": [2, 3]", "\"shape\": [2, 3.5]")),
            "manifest: entries[0].inputs[0].shape[1]: expected a "
            "non-negative integer, got 3.5");
  EXPECT_EQ(error(replaced("\"parameter\": false", "\"parameter\": 0")),
            "manifest: entries[0].inputs[0].parameter: expected a boolean, "
            "got a number");
  EXPECT_EQ(error(replaced("\"workgroup_size\": [64, 1, 1]",
                           "\"workgroup_size\": [64, 1]")),
            "manifest: entries[0].targets.vulkan.kernels[0].workgroup_size: "
            "expected 3 integers, got 2");
  EXPECT_EQ(error(replaced("\"inputs\": [", "\"inputs\": [7, ")),
            "manifest: entries[0].inputs[0]: expected an object, got a "
            "number");
  EXPECT_EQ(error(replaced("\"required_features\": [",
                           "\"required_features\": [null, ")),
            "manifest: entries[0].targets.vulkan.required_features[0]: "
            "expected a string, got null");
}

TEST_F(ArtifactTest, RejectsManifestVersionDifferentFromHeader) {
  EXPECT_EQ(error(replaced("\"format_version\": 3", "\"format_version\": 4")),
            "manifest: format_version: is 4 but the header says 3");
}

TEST_F(ArtifactTest, RejectsUnknownNames) {
  EXPECT_EQ(error(replaced("\"dtype\": \"f16\"", "\"dtype\": \"f128\"")),
            "manifest: entries[0].inputs[1].dtype: unknown dtype \"f128\" "
            "(known: f32, f16, bf16, f64, i64, i32, i8, u8, i1)");
  EXPECT_EQ(error(replaced("\"kind\": \"temporary\"", "\"kind\": \"shared\"")),
            "manifest: entries[0].targets.vulkan.buffers[4].kind: unknown "
            "buffer kind \"shared\" (known: input, output, temporary, "
            "constant, size)");
  EXPECT_EQ(error(replaced("\"kind\": \"copy\"", "\"kind\": \"barrier\"")),
            "manifest: entries[0].targets.vulkan.steps[1].kind: unknown step "
            "kind \"barrier\" (known: dispatch, copy)");
}

TEST_F(ArtifactTest, RejectsIndicesOutOfRange) {
  EXPECT_EQ(error(replaced("{\"kernel\": 1, \"workgroups\": [4, 1, 1]",
                           "{\"kernel\": 7, \"workgroups\": [4, 1, 1]")),
            "entry 'forward': invalid Vulkan program: dispatch 1 runs kernel "
            "7 of 2");
  EXPECT_EQ(error(replaced("\"buffers\": [4, 2]", "\"buffers\": [4, 9]")),
            "entry 'forward': invalid Vulkan program: dispatch 1 binds buffer "
            "9 of 6");
  EXPECT_EQ(error(replaced("{\"kind\": \"dispatch\", \"index\": 2}",
                           "{\"kind\": \"dispatch\", \"index\": 3}")),
            "entry 'forward': invalid Vulkan program: step 3 refers to "
            "dispatch 3 of 3");
  EXPECT_EQ(error(replaced("{\"kind\": \"copy\", \"index\": 0}",
                           "{\"kind\": \"copy\", \"index\": 1}")),
            "entry 'forward': invalid Vulkan program: step 1 refers to copy 1 "
            "of 1");
  EXPECT_EQ(error(replaced("{\"source\": 4,", "{\"source\": 6,")),
            "entry 'forward': invalid Vulkan program: copy 0 names a buffer "
            "out of range");
  EXPECT_EQ(error(replaced("{\"kind\": \"input\", \"index\": 1,",
                           "{\"kind\": \"input\", \"index\": 2,")),
            "entry 'forward': invalid Vulkan program: buffer 1 (input 2): the "
            "signature has only 2 inputs");
  EXPECT_EQ(error(replaced("{\"kind\": \"output\", \"index\": 0,",
                           "{\"kind\": \"output\", \"index\": 1,")),
            "entry 'forward': invalid Vulkan program: output 0 has 0 "
            "buffers, expected 1");
  EXPECT_EQ(error(replaced("{\"kernel\": 0,", "{\"kernel\": 4294967296,")),
            "manifest: entries[0].targets.vulkan.dispatches[0].kernel: "
            "4294967296 is out of range (at most 4294967295)");
}

TEST_F(ArtifactTest, RejectsBindingCountMismatch) {
  EXPECT_EQ(error(replaced("\"buffers\": [0, 1, 4]", "\"buffers\": [0, 1]")),
            "entry 'forward': invalid Vulkan program: dispatch 0 of kernel "
            "'k_add' binds 2 buffers; the kernel has 3 bindings");
}

TEST_F(ArtifactTest, RejectsBadWriteFlags) {
  EXPECT_EQ(error(replaced("\"written_bindings\": [0, 0, 1]",
                           "\"written_bindings\": [0, 1]")),
            "manifest: entries[0].targets.vulkan.kernels[0].written_bindings: "
            "expected 3 integers, got 2");
  EXPECT_CONTAINS(error(replaced("\"written_bindings\": [0, 0, 1]",
                                 "\"written_bindings\": [0, 2, 1]")),
                  "kernels[0].written_bindings[1]: 2 is out of range");
  // Without the member every binding counts as written.
  std::vector<uint8_t> bytes =
      replaced("\"written_bindings\": [0, 0, 1], ", "");
  Result<Artifact> read = parseArtifact(bytes.data(), bytes.size());
  ASSERT_TRUE(read.isOk()) << read.message();
  EXPECT_TRUE(
      read.value().entries[0].vulkan->kernels[0].writtenBindings.empty());
}

TEST_F(ArtifactTest, RejectsCopiesOutOfBounds) {
  EXPECT_EQ(error(replaced("\"target_offset\": 4, \"bytes\": 8",
                           "\"target_offset\": 12, \"bytes\": 8")),
            "entry 'forward': invalid Vulkan program: copy 0 of 8 bytes "
            "reaches past the end of its buffers");
  EXPECT_EQ(error(replaced("\"target_offset\": 4, \"bytes\": 8",
                           "\"target_offset\": 4, \"bytes\": 1099511627776")),
            "entry 'forward': invalid Vulkan program: copy 0 of "
            "1099511627776 bytes reaches past the end of its buffers");
  EXPECT_EQ(error(replaced("{\"source\": 4, \"target\": 3",
                           "{\"source\": 4, \"target\": 4")),
            "entry 'forward': invalid Vulkan program: copy 0 copies between "
            "overlapping ranges of buffer 4");
}

TEST_F(ArtifactTest, RejectsBadSPIRVBlobs) {
  // The first kernel's SPIR-V is the first blob, right after the header.
  std::string first = "\"spirv\": {\"offset\": 64, \"size\": 40}";
  ASSERT_NE(manifest().find(first), std::string::npos) << manifest();
  EXPECT_EQ(error(replaced(first, "\"spirv\": {\"offset\": 64, \"size\": 39}")),
            "manifest: entries[0].targets.vulkan.kernels[0].spirv: SPIR-V of "
            "39 bytes is not a whole number of 32-bit words");
  EXPECT_EQ(error(replaced(first, "\"spirv\": {\"offset\": 64, \"size\": 0}")),
            "manifest: entries[0].targets.vulkan.kernels[0].spirv: SPIR-V of "
            "0 bytes is shorter than the 5-word header");
  std::vector<uint8_t> bytes = valid;
  bytes[kArtifactHeaderSize] = 0x04;
  reseal(bytes);
  EXPECT_EQ(error(bytes),
            "manifest: entries[0].targets.vulkan.kernels[0].spirv: not "
            "SPIR-V: the first word is 0x7230204, not the magic number "
            "0x7230203");
  EXPECT_EQ(error(replaced("\"entry_point\": \"main_a\"",
                           "\"entry_point\": \"main_c\"")),
            "entry 'forward': invalid Vulkan program: kernel 'k_add' has no "
            "compute entry point named 'main_c'");
}

TEST_F(ArtifactTest, RejectsBlobsOutsideTheirArea) {
  std::string first = "\"spirv\": {\"offset\": 64, \"size\": 40}";
  EXPECT_EQ(error(replaced(first, "\"spirv\": {\"offset\": 0, \"size\": 40}")),
            "manifest: entries[0].targets.vulkan.kernels[0].spirv: bytes [0, "
            "0 + 40) overlap the header");
  uint64_t manifestAt = load64(valid, 24);
  std::string intoManifest =
      "\"spirv\": {\"offset\": " + std::to_string(manifestAt) +
      ", \"size\": 40}";
  EXPECT_EQ(error(replaced(first, intoManifest)),
            "manifest: entries[0].targets.vulkan.kernels[0].spirv: bytes [" +
                std::to_string(manifestAt) + ", " + std::to_string(manifestAt) +
                " + 40) overlap the manifest");
  std::string text = error(replaced(
      first, "\"spirv\": {\"offset\": 64, \"size\": 9223372036854775807}"));
  EXPECT_CONTAINS(text, "kernels[0].spirv: bytes [64, 64 + "
                        "9223372036854775807) reach past the end of the file");
  text = error(replaced(
      first, "\"spirv\": {\"offset\": 9223372036854775807, \"size\": 40}"));
  EXPECT_CONTAINS(text, "reach past the end of the file");
}

TEST_F(ArtifactTest, RejectsBadBuffers) {
  EXPECT_EQ(error(replaced("\"kind\": \"temporary\", \"bytes\": 32",
                           "\"kind\": \"temporary\", \"bytes\": 30")),
            "entry 'forward': buffer 4 has 30 bytes, not a positive multiple "
            "of 4");
  EXPECT_EQ(error(replaced("\"kind\": \"temporary\", \"bytes\": 32",
                           "\"kind\": \"temporary\", \"bytes\": 0")),
            "entry 'forward': buffer 4 has 0 bytes, not a positive multiple "
            "of 4");
  EXPECT_EQ(error(replaced("\"kind\": \"temporary\", \"bytes\": 32",
                           "\"kind\": \"temporary\", \"bytes\": "
                           "1125899906842624")),
            "manifest: entries[0].targets.vulkan.buffers[4].bytes: "
            "1125899906842624 is out of range (at most 1099511627776)");
  EXPECT_EQ(error(replaced("\"kind\": \"constant\", \"bytes\": 12",
                           "\"kind\": \"constant\", \"bytes\": 4")),
            "manifest: entries[0].targets.vulkan.buffers[5].data: 8 bytes of "
            "data for a buffer of 4");
  EXPECT_EQ(error(replaced("\"kind\": \"temporary\", \"bytes\": 32",
                           "\"kind\": \"temporary\", \"bytes\": 32, "
                           "\"data\": {\"offset\": 64, \"size\": 4}")),
            "manifest: entries[0].targets.vulkan.buffers[4].data: only "
            "constant buffers have data");
  EXPECT_EQ(error(replaced("{\"kind\": \"input\", \"index\": 0, \"bytes\": "
                           "24}",
                           "{\"kind\": \"input\", \"index\": 0, \"bytes\": "
                           "20}")),
            "entry 'forward': invalid Vulkan program: buffer 0 (input 0 'x') "
            "has 20 bytes, too few for f32[2, 3]");
}

TEST_F(ArtifactTest, RejectsBadArenaPlacements) {
  EXPECT_EQ(error(replaced("\"kind\": \"constant\", \"bytes\": 12",
                           "\"kind\": \"constant\", \"bytes\": 12, "
                           "\"arena_offset\": 0")),
            "manifest: entries[0].targets.vulkan.buffers[5].arena_offset: "
            "only temporary buffers live in the arena");
  EXPECT_EQ(error(replaced("\"arena_offset\": 0", "\"arena_offset\": 8")),
            "entry 'forward': invalid Vulkan program: buffer 4 is at arena "
            "offset 8, not a multiple of 256");
  EXPECT_EQ(error(replaced("\"arena_bytes\": 256", "\"arena_bytes\": 16")),
            "entry 'forward': invalid Vulkan program: buffer 4 (32 bytes at "
            "arena offset 0) reaches past the arena's 16 bytes");
  EXPECT_EQ(error(replaced("\"arena_offset\": 0", "\"arena_offset\": -1")),
            "manifest: entries[0].targets.vulkan.buffers[4].arena_offset: "
            "expected a non-negative integer, got -1");
}

TEST_F(ArtifactTest, ReadsArtifactsWithoutArena) {
  // Artifacts written before temporaries shared an arena have neither
  // member; their temporaries get memory of their own.
  std::string text = manifest();
  for (std::string member :
       {", \"arena_offset\": 0", ",\n          \"arena_bytes\": 256"}) {
    size_t at = text.find(member);
    ASSERT_NE(at, std::string::npos) << member << " in\n" << text;
    text.erase(at, member.size());
  }
  std::vector<uint8_t> bytes = withManifest(text);
  Result<Artifact> artifact = parseArtifact(bytes.data(), bytes.size());
  ASSERT_TRUE(artifact.isOk()) << artifact.message();
  const vk::Program &program = *artifact.value().entries[0].vulkan;
  EXPECT_EQ(program.arenaBytes, 0u);
  EXPECT_FALSE(program.buffers[4].arenaOffset.has_value());
}

TEST_F(ArtifactTest, RejectsAbsurdShapes) {
  EXPECT_EQ(error(replaced("\"shape\": [2, 3]",
                           "\"shape\": [1099511627776, 1099511627776]")),
            "entry 'forward': input 0 f32[1099511627776, 1099511627776] is "
            "larger than 1 TiB");
  EXPECT_EQ(error(replaced("\"shape\": [2]", "\"shape\": [274877906944]")),
            "entry 'forward': output 1 i64[274877906944] is larger than 1 TiB");
}

TEST_F(ArtifactTest, RejectsBadEntries) {
  EXPECT_EQ(error(replaced("\"name\": \"second\"", "\"name\": \"forward\"")),
            "two entries named 'forward' have the same input shapes");
  EXPECT_EQ(error(replaced("\"name\": \"forward\"", "\"name\": \"\"")),
            "entry 0: the entry has no name");
  EXPECT_EQ(error(replaced("{\"name\": \"layer.w\"", "{\"name\": \"\"")),
            "entry 'forward': input 1 is a parameter without a name");
}

TEST_F(ArtifactTest, RandomDamageIsAnErrorNeverACrash) {
  // Byte flips anywhere (resealed, so they reach the manifest and program
  // checks) and truncations at every length must fail cleanly or, for
  // harmless flips (inside padding, a name), still parse.
  std::mt19937_64 rng(1);
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> bytes = valid;
    size_t at =
        kArtifactHeaderSize + rng() % (bytes.size() - kArtifactHeaderSize);
    bytes[at] = uint8_t(rng());
    reseal(bytes);
    Result<Artifact> artifact = parseArtifact(bytes.data(), bytes.size());
    if (!artifact.isOk())
      EXPECT_FALSE(artifact.message().empty());
  }
  for (size_t size = 0; size < valid.size(); ++size)
    EXPECT_FALSE(parseArtifact(valid.data(), size).isOk());
}

//===----------------------------------------------------------------------===//
// The writer refuses what the reader would reject
//===----------------------------------------------------------------------===//

TEST_F(ArtifactTest, WriterRejectsInvalidArtifacts) {
  auto writeError = [](const Artifact &artifact) {
    Result<std::vector<uint8_t>> bytes = serializeArtifact(artifact);
    EXPECT_FALSE(bytes.isOk());
    return bytes.message();
  };
  Artifact artifact = fullArtifact();
  artifact.entries[1].name = "forward";
  EXPECT_EQ(writeError(artifact),
            "two entries named 'forward' have the same input shapes");
  // Entries of one name may differ in input and output shapes only.
  artifact.entries[1].signature.inputs[0].dtype = DType::F16;
  artifact.entries[1].vulkan->signature = artifact.entries[1].signature;
  EXPECT_EQ(writeError(artifact), "entries named 'forward' differ in more "
                                  "than their input and output shapes");

  artifact = fullArtifact();
  artifact.entries[0].vulkan->signature.inputs[1].parameter = false;
  EXPECT_EQ(writeError(artifact), "entry 'forward': the Vulkan program's "
                                  "signature differs from the entry's");

  artifact = fullArtifact();
  artifact.entries[0].signature.outputs[0].parameter = true;
  artifact.entries[0].vulkan->signature = artifact.entries[0].signature;
  EXPECT_EQ(writeError(artifact),
            "entry 'forward': output 0 is marked as a parameter");

  artifact = fullArtifact();
  artifact.entries[0].vulkan->dispatches[0].kernel = 2;
  EXPECT_EQ(writeError(artifact), "entry 'forward': invalid Vulkan program: "
                                  "dispatch 0 runs kernel 2 of 2");

  artifact = fullArtifact();
  artifact.entries[0].vulkan->buffers[4].data = {1, 2, 3, 4};
  EXPECT_EQ(writeError(artifact),
            "entry 'forward': buffer 4 is not a constant but has data");

  artifact = fullArtifact();
  artifact.entries[0].vulkan->kernels[0].name = "bad\xff";
  EXPECT_EQ(writeError(artifact),
            "entry 'forward': kernel 0 name is not valid UTF-8");

  artifact = fullArtifact();
  artifact.entries[0].signature.inputs[0].shape = {-1, 3};
  artifact.entries[0].vulkan->signature = artifact.entries[0].signature;
  // A dynamic dimension makes a program that the runtime sizes per input
  // shape: it cannot have a temporary arena planned at compile time.
  EXPECT_EQ(writeError(artifact),
            "entry 'forward': invalid Vulkan program: a program with dynamic "
            "sizes has a temporary arena");
  artifact.entries[0].signature.inputs[0].shape = {-2, 3};
  artifact.entries[0].vulkan->signature = artifact.entries[0].signature;
  EXPECT_EQ(writeError(artifact),
            "entry 'forward': input 0 f32[-2, 3] has a negative dimension");

  std::string unwritable = tmp.path("no/such/dir/model.fxa");
  Status s = writeArtifact(unwritable, fullArtifact());
  ASSERT_FALSE(s.isOk());
  EXPECT_CONTAINS(s.message(), unwritable + ": cannot open for writing");
}

} // namespace

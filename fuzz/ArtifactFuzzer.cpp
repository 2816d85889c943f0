//===- ArtifactFuzzer.cpp - libFuzzer target for the artifact reader ------===//
//
// parseArtifact reads files from anywhere, so on any bytes it must return an
// error or an artifact, never crash, leak or reach undefined behaviour (the
// target is built with ASan and UBSan).
//
// Mutated files almost never keep their FNV-1a checksum, so on their own
// they would only test the header checks. Every input of at least a header
// is therefore parsed twice: as it is, and resealed, with the file size and
// checksum fields rewritten to match the bytes, which lets mutations reach
// the JSON parser, the manifest reader and program validation. The writer
// puts the manifest last; when the input's manifest ended where its header
// said the file ends, the resealed copy's manifest runs to the real end, so
// that bytes inserted into or erased from the manifest keep it whole.
//
// Whatever parses must round-trip: serializing it succeeds (the reader
// accepts only what the writer does), and parsing that succeeds and
// serializes to the same bytes. A failure there is a reader/writer mismatch,
// not bad input, so it traps.
//
// test/Tools/artifact-fuzzer.test makes seeds with fx-compile and runs it
// briefly; for longer runs, put such seeds in a directory CORPUS and run
//   fx-artifact-fuzzer -dict=fuzz/artifact.dict -max_len=6144 CORPUS
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/Artifact.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace fx::rt;

namespace {

// Header fields (see Artifact.h).
constexpr size_t kManifestOffsetAt = 24, kManifestSizeAt = 32, kFileSizeAt = 40,
                 kChecksumAt = 48;

uint64_t loadLE64(const uint8_t *bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | bytes[i];
  return value;
}

void storeLE64(uint8_t *bytes, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes[i] = uint8_t(value >> (8 * i));
}

void parseAndRoundTrip(const uint8_t *data, size_t size) {
  Result<Artifact> parsed = parseArtifact(data, size);
  if (!parsed.isOk())
    return;
  Result<std::vector<uint8_t>> bytes = serializeArtifact(parsed.value());
  if (!bytes.isOk())
    __builtin_trap();
  Result<Artifact> reparsed =
      parseArtifact(bytes.value().data(), bytes.value().size());
  if (!reparsed.isOk())
    __builtin_trap();
  Result<std::vector<uint8_t>> again = serializeArtifact(reparsed.value());
  if (!again.isOk() || again.value() != bytes.value())
    __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  parseAndRoundTrip(data, size);
  if (size < kArtifactHeaderSize)
    return 0;
  std::vector<uint8_t> sealed(data, data + size);
  uint64_t manifestOffset = loadLE64(&sealed[kManifestOffsetAt]);
  uint64_t manifestSize = loadLE64(&sealed[kManifestSizeAt]);
  uint64_t declaredSize = loadLE64(&sealed[kFileSizeAt]);
  if (manifestOffset <= size && manifestSize <= declaredSize &&
      manifestOffset == declaredSize - manifestSize)
    storeLE64(&sealed[kManifestSizeAt], size - manifestOffset);
  storeLE64(&sealed[kFileSizeAt], size);
  storeLE64(&sealed[kChecksumAt], fnv1a64(sealed.data() + kArtifactHeaderSize,
                                          size - kArtifactHeaderSize));
  // An input that was already sealed has just been parsed.
  if (std::memcmp(sealed.data(), data, size) != 0)
    parseAndRoundTrip(sealed.data(), size);
  return 0;
}

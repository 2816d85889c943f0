//===- CPULibraryTest.cpp - checks before loading CPU code ----------------===//
//
// What the loader refuses before it maps any code: the architecture, CPU
// features the host lacks or the runtime cannot check, and bytes that are
// not an ELF shared object of the architecture. (Loading real compiled code
// is tested end to end by test/Tools/fx-compile/cpu-code.test.)
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/CPULibrary.h"

#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace fx::rt;

namespace {

/// A minimal ELF64 little-endian header of `type` for `machine`.
std::vector<uint8_t> elfHeader(uint16_t type, uint16_t machine) {
  std::vector<uint8_t> bytes(64, 0);
  bytes[0] = 0x7f, bytes[1] = 'E', bytes[2] = 'L', bytes[3] = 'F';
  bytes[4] = 2; // ELFCLASS64
  bytes[5] = 1; // little-endian
  bytes[16] = uint8_t(type), bytes[17] = uint8_t(type >> 8);
  bytes[18] = uint8_t(machine), bytes[19] = uint8_t(machine >> 8);
  return bytes;
}

CPUCode hostCode() {
  CPUCode code;
  code.arch = hostArch();
  code.cpu = "test";
  code.symbol = "fxrt_entry_f";
  code.library = elfHeader(/*ET_DYN=*/3, hostArch() == "aarch64" ? 183 : 62);
  return code;
}

TEST(CPULibraryTest, AcceptsCodeForThisHost) {
  CPUCode code = hostCode();
  code.features = hostCPUFeatures();
  EXPECT_TRUE(checkCPUCode(code).isOk()) << checkCPUCode(code).message();
}

TEST(CPULibraryTest, HostFeaturesAreSupportedNames) {
  for (const std::string &feature : hostCPUFeatures())
    EXPECT_NE(std::find(supportedCPUFeatures().begin(),
                        supportedCPUFeatures().end(), feature),
              supportedCPUFeatures().end())
        << feature;
}

TEST(CPULibraryTest, RejectsOtherArchitectures) {
  CPUCode code = hostCode();
  code.arch = "riscv64";
  EXPECT_CONTAINS(checkCPUCode(code).message(),
                  "the CPU code is for riscv64 and this machine is " +
                      hostArch());
}

TEST(CPULibraryTest, NamesMissingAndUnknownFeatures) {
  CPUCode code = hostCode();
  code.features = {"frobnicate"};
  EXPECT_CONTAINS(checkCPUCode(code).message(),
                  "needs features this runtime cannot check (frobnicate)");
  // A feature the runtime checks but this host lacks, if there is one.
  std::vector<std::string> host = hostCPUFeatures();
  for (const std::string &feature : supportedCPUFeatures()) {
    if (std::find(host.begin(), host.end(), feature) != host.end())
      continue;
    code.features = {feature};
    EXPECT_CONTAINS(checkCPUCode(code).message(),
                    "the CPU code was compiled for test and needs " + feature +
                        ", which this CPU lacks; recompile with a lower "
                        "--cpu level");
    return;
  }
}

TEST(CPULibraryTest, RejectsWhatIsNotASharedObject) {
  CPUCode code = hostCode();
  code.library = {'n', 'o', 't', ' ', 'e', 'l', 'f'};
  EXPECT_CONTAINS(checkCPUCode(code).message(),
                  "not an ELF64 little-endian file");
  code.library = elfHeader(/*ET_EXEC=*/2, hostCode().library[18]);
  EXPECT_CONTAINS(checkCPUCode(code).message(), "not an ELF shared object");
  code.library = elfHeader(3, /*EM_SPARC=*/2);
  EXPECT_CONTAINS(checkCPUCode(code).message(), "the CPU code's ELF machine");
}

TEST(CPULibraryTest, LoadFailsCleanlyOnBadCode) {
  // A valid header with nothing behind it: dlopen's error, not a crash.
  auto loaded = CPULibrary::load(hostCode(), {});
  ASSERT_FALSE(loaded.isOk());
  EXPECT_CONTAINS(loaded.message(), "cannot load the CPU code: ");
}

} // namespace

//===- RuntimeTestUtils.h - temp dirs and file bytes ------------*- C++ -*-===//
//
// Helpers shared by the runtime's I/O tests: a scratch directory removed
// after each test, and reading/writing files byte by byte to build malformed
// inputs.
//
//===----------------------------------------------------------------------===//

#ifndef FX_UNITTESTS_RUNTIME_RUNTIMETESTUTILS_H
#define FX_UNITTESTS_RUNTIME_RUNTIMETESTUTILS_H

#include "fx/Runtime/VulkanProgram.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

/// Checks that string `text` contains `part`, printing both otherwise.
#define EXPECT_CONTAINS(text, part)                                            \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                   \
      << "'" << (text) << "' lacks '" << (part) << "'"

namespace fx::rt::testing {

/// A SPIR-V module that is just a header and one GLCompute OpEntryPoint
/// named `entry` (enough for vk::validateProgram; no driver sees it).
inline std::vector<uint32_t> fakeSPIRV(const std::string &entry) {
  std::vector<uint32_t> name((entry.size() + 4) / 4, 0);
  std::memcpy(name.data(), entry.data(), entry.size());
  std::vector<uint32_t> words = {vk::kSPIRVMagic, 0x00010300, 0, 8, 0};
  words.push_back(uint32_t(3 + name.size()) << 16 | 15); // OpEntryPoint
  words.push_back(5);                                    // GLCompute
  words.push_back(1);                                    // %main
  words.insert(words.end(), name.begin(), name.end());
  return words;
}

/// A program with a dynamic batch: x f32[?, 4] -> y f32[?, 4] through a
/// temporary. Scalars: n = dim 0 of x, n * 16 bytes per buffer, n * 4
/// elements (a kernel's size argument), ceil(n * 4 / 256) workgroups, and
/// a shape check n != 3 ("three rows are not allowed").
inline vk::Program dynamicProgram() {
  using vk::Scalar;
  vk::Program p;
  p.signature.inputs = {{"x", DType::F32, {kDynamicDim, 4}, false}};
  p.signature.outputs = {{"y", DType::F32, {kDynamicDim, 4}, false}};
  p.kernels = {{"k", "k", fakeSPIRV("k"), 3, {256, 1, 1}, ""}};
  auto add = [&](Scalar::Op op, std::array<uint32_t, 3> operands,
                 int64_t value = 0) {
    p.scalars.push_back({op, value, operands});
    return uint32_t(p.scalars.size() - 1);
  };
  uint32_t n = add(Scalar::Op::InputDim, {0, 0});
  uint32_t bytes = add(Scalar::Op::Mul, {n, add(Scalar::Op::Constant, {}, 16)});
  uint32_t elements =
      add(Scalar::Op::Mul, {n, add(Scalar::Op::Constant, {}, 4)});
  uint32_t groups =
      add(Scalar::Op::CeilDivU, {elements, add(Scalar::Op::Constant, {}, 256)});
  uint32_t notThree =
      add(Scalar::Op::Ne, {n, add(Scalar::Op::Constant, {}, 3)});
  p.checks = {{notThree, "three rows are not allowed"}};
  using Kind = vk::Buffer::Kind;
  p.buffers = {{Kind::Input, 0, 0, {}, std::nullopt, bytes},
               {Kind::Temporary, 0, 0, {}, std::nullopt, bytes},
               {Kind::Output, 0, 0, {}, std::nullopt, bytes},
               {Kind::Size, elements, 4, {}, std::nullopt}};
  p.dispatches = {
      {0, {1, 1, 1}, {0, 1, 3}, {groups, vk::kNoScalar, vk::kNoScalar}}};
  p.copies = {{1, 2, 0, 0, 0, bytes}};
  p.steps = {{vk::Step::Kind::Dispatch, 0}, {vk::Step::Kind::Copy, 0}};
  p.outputDims = {{n, vk::kNoScalar}};
  return p;
}

/// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/fx-rt-test-XXXXXX";
    char *made = mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr) << "mkdtemp failed";
    dir = pattern;
  }
  ~TempDir() {
    std::string command = "rm -rf '" + dir + "'";
    (void)std::system(command.c_str());
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  /// `name` inside the directory.
  std::string path(const std::string &name) const { return dir + "/" + name; }
  const std::string &root() const { return dir; }

private:
  std::string dir;
};

inline void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

inline std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

/// `value` as `count` little-endian bytes.
inline std::string le(uint64_t value, int count) {
  std::string out;
  for (int i = 0; i < count; ++i)
    out.push_back(char((value >> (8 * i)) & 0xff));
  return out;
}

/// True if /usr/bin/python3 can import numpy.
inline bool haveNumpy() {
  static const bool have =
      std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
  return have;
}

} // namespace fx::rt::testing

#endif // FX_UNITTESTS_RUNTIME_RUNTIMETESTUTILS_H

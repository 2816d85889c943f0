//===- NumpyIOTest.cpp - .npy and .npz reading, writing and errors --------===//

#include "fx/Runtime/NumpyIO.h"

#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace fx::rt;
using namespace fx::rt::testing;

namespace {

/// Every dtype numpy has.
constexpr DType kNumpyDTypes[] = {DType::F32, DType::F16, DType::F64,
                                  DType::I64, DType::I32, DType::I8,
                                  DType::U8,  DType::Bool};

/// A tensor of `dtype` and `shape` with distinct element values.
Tensor patterned(DType dtype, std::vector<int64_t> shape) {
  Tensor f64 = Tensor::allocate(DType::F64, shape);
  for (size_t i = 0; i < f64.numel(); ++i)
    f64.dataAs<double>()[i] = dtype == DType::Bool ? double(i % 3 == 1)
                              : dtype == DType::U8 ? double(i * 7 % 256)
                                                   : double(i) * 3 - 50;
  return f64.castTo(dtype).take();
}

void expectSameTensor(const Tensor &actual, const Tensor &expected) {
  EXPECT_EQ(actual.dtype(), expected.dtype());
  EXPECT_EQ(actual.shape(), expected.shape());
  ASSERT_EQ(actual.byteSize(), expected.byteSize());
  EXPECT_EQ(std::memcmp(actual.data(), expected.data(), actual.byteSize()), 0);
}

/// An .npy image with header `dict` (a newline is appended), format
/// `major`.0, followed by `data`.
std::string npyImage(const std::string &dict, const std::string &data = "",
                     int major = 1) {
  std::string header = dict + "\n";
  return std::string("\x93NUMPY", 6) + char(major) + '\0' +
         le(header.size(), major == 1 ? 2 : 4) + header + data;
}

std::string floatBytes(std::initializer_list<float> values) {
  std::string out;
  for (float v : values)
    out.append(reinterpret_cast<const char *>(&v), sizeof(v));
  return out;
}

/// Independent CRC-32 for hand-built archives.
uint32_t crc32(const std::string &bytes) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char c : bytes) {
    crc ^= c;
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

/// A ZIP archive of `members` with compression method `method` recorded (the
/// bytes are stored as given).
std::string
zipArchive(const std::vector<std::pair<std::string, std::string>> &members,
           int method = 0) {
  std::string out, directory;
  for (const auto &[name, data] : members) {
    uint64_t offset = out.size();
    std::string common = le(20, 2) + le(0, 2) + le(method, 2) + le(0, 2) +
                         le(0x21, 2) + le(crc32(data), 4) + le(data.size(), 4) +
                         le(data.size(), 4) + le(name.size(), 2) + le(0, 2);
    out += le(0x04034b50, 4) + common + name + data;
    directory += le(0x02014b50, 4) + le(20, 2) + common + le(0, 2) + le(0, 2) +
                 le(0, 2) + le(0, 4) + le(offset, 4) + name;
  }
  uint64_t directoryOffset = out.size();
  out += directory;
  out += le(0x06054b50, 4) + le(0, 2) + le(0, 2) + le(members.size(), 2) +
         le(members.size(), 2) + le(directory.size(), 4) +
         le(directoryOffset, 4) + le(0, 2);
  return out;
}

const std::string kF32Dict =
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";

class NumpyIOTest : public ::testing::Test {
protected:
  /// Writes `bytes` to a file and returns readNpy's error message.
  std::string npyError(const std::string &bytes,
                       const std::string &name = "bad.npy") {
    writeBytes(tmp.path(name), bytes);
    Result<Tensor> result = readNpy(tmp.path(name));
    EXPECT_FALSE(result.isOk()) << "expected an error for " << name;
    // Every message names the file.
    EXPECT_NE(result.message().find(tmp.path(name)), std::string::npos)
        << result.message();
    return result.message();
  }
  std::string npzError(const std::string &bytes) {
    writeBytes(tmp.path("bad.npz"), bytes);
    auto result = readNpz(tmp.path("bad.npz"));
    EXPECT_FALSE(result.isOk());
    EXPECT_NE(result.message().find(tmp.path("bad.npz")), std::string::npos)
        << result.message();
    return result.message();
  }

  TempDir tmp;
};

//===----------------------------------------------------------------------===//
// .npy round trips
//===----------------------------------------------------------------------===//

TEST_F(NumpyIOTest, RoundTripEveryDType) {
  for (DType dtype : kNumpyDTypes) {
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{2, 3}, {5}, {}, {0}, {2, 0, 3}, {1, 2, 1, 3}}) {
      Tensor tensor = patterned(dtype, shape);
      std::string path = tmp.path(std::string(dtypeName(dtype)) + ".npy");
      ASSERT_TRUE(writeNpy(path, tensor).isOk());
      Result<Tensor> read = readNpy(path);
      ASSERT_TRUE(read.isOk()) << read.message();
      SCOPED_TRACE(std::string(dtypeName(dtype)) + " " + tensor.shapeString());
      expectSameTensor(read.value(), tensor);
      EXPECT_TRUE(read.value().ownsStorage());
    }
  }
}

TEST_F(NumpyIOTest, WritesNumpyHeaderLayout) {
  Tensor tensor = patterned(DType::F32, {2, 3});
  ASSERT_TRUE(writeNpy(tmp.path("a.npy"), tensor).isOk());
  std::string bytes = readBytes(tmp.path("a.npy"));
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t headerLen = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8);
  size_t dataStart = 10 + headerLen;
  EXPECT_EQ(dataStart % 64, 0u);
  EXPECT_EQ(bytes.size(), dataStart + 24);
  std::string header = bytes.substr(10, headerLen);
  EXPECT_EQ(
      header.rfind(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0),
      0u)
      << header;
  EXPECT_EQ(header.back(), '\n');

  ASSERT_TRUE(writeNpy(tmp.path("b.npy"), patterned(DType::Bool, {4})).isOk());
  EXPECT_CONTAINS(readBytes(tmp.path("b.npy")), "'descr': '|b1'");
  EXPECT_CONTAINS(readBytes(tmp.path("b.npy")), "'shape': (4,)");
  ASSERT_TRUE(writeNpy(tmp.path("c.npy"), patterned(DType::I8, {})).isOk());
  EXPECT_CONTAINS(readBytes(tmp.path("c.npy")), "'descr': '|i1'");
  EXPECT_CONTAINS(readBytes(tmp.path("c.npy")), "'shape': ()");
}

TEST_F(NumpyIOTest, WriteBF16IsAnError) {
  Tensor bf16 = patterned(DType::BF16, {2});
  Status status = writeNpy(tmp.path("x.npy"), bf16);
  ASSERT_FALSE(status.isOk());
  EXPECT_CONTAINS(status.message(), "bf16");
  EXPECT_CONTAINS(status.message(), "cast");
  // Nothing is left behind.
  EXPECT_EQ(readBytes(tmp.path("x.npy")), "");
  Status npz = writeNpz(tmp.path("x.npz"), {{"w", bf16}});
  ASSERT_FALSE(npz.isOk());
  EXPECT_CONTAINS(npz.message(), "'w'");
  EXPECT_CONTAINS(npz.message(), "bf16");
}

TEST_F(NumpyIOTest, WrappedTensorIsWrittenWithoutCopying) {
  int32_t user[4] = {1, -2, 3, -4};
  ASSERT_TRUE(
      writeNpy(tmp.path("w.npy"), Tensor::wrap(user, DType::I32, {2, 2}))
          .isOk());
  Tensor read = readNpy(tmp.path("w.npy")).take();
  EXPECT_EQ(std::memcmp(read.data(), user, sizeof(user)), 0);
}

TEST_F(NumpyIOTest, WriteToMissingDirectoryFails) {
  Status status =
      writeNpy(tmp.path("no/such/dir.npy"), Tensor::allocate(DType::F32, {1}));
  ASSERT_FALSE(status.isOk());
  EXPECT_CONTAINS(status.message(), tmp.path("no/such/dir.npy"));
  EXPECT_CONTAINS(status.message(), "No such file or directory");
}

//===----------------------------------------------------------------------===//
// .npy header variants
//===----------------------------------------------------------------------===//

TEST_F(NumpyIOTest, ReadsFormatVersions2And3) {
  for (int major : {2, 3}) {
    std::string path = tmp.path("v" + std::to_string(major) + ".npy");
    writeBytes(path, npyImage(kF32Dict, floatBytes({1.5f, -2}), major));
    Result<Tensor> read = readNpy(path);
    ASSERT_TRUE(read.isOk()) << read.message();
    EXPECT_EQ(read.value().getAsDouble(0), 1.5);
    EXPECT_EQ(read.value().getAsDouble(1), -2);
  }
}

TEST_F(NumpyIOTest, AcceptsDescrSpellings) {
  struct Case {
    const char *descr;
    DType dtype;
    size_t size;
  } cases[] = {
      {"<f4", DType::F32, 4}, {"=f4", DType::F32, 4},  {"<f2", DType::F16, 2},
      {"=f8", DType::F64, 8}, {"<i8", DType::I64, 8},  {"=i4", DType::I32, 4},
      {"|i1", DType::I8, 1},  {"<i1", DType::I8, 1},   {"|u1", DType::U8, 1},
      {">u1", DType::U8, 1},  {"|b1", DType::Bool, 1}, {"?", DType::Bool, 1}};
  for (const Case &c : cases) {
    std::string dict = std::string("{'descr': '") + c.descr +
                       "', 'fortran_order': False, 'shape': (3,), }";
    writeBytes(tmp.path("d.npy"), npyImage(dict, std::string(3 * c.size, 1)));
    Result<Tensor> read = readNpy(tmp.path("d.npy"));
    ASSERT_TRUE(read.isOk()) << c.descr << ": " << read.message();
    EXPECT_EQ(read.value().dtype(), c.dtype) << c.descr;
  }
}

TEST_F(NumpyIOTest, AcceptsHeaderVariations) {
  // Key order, double quotes, no trailing comma, Python 2 "L" suffixes,
  // extra spaces, trailing data (ignored as numpy does).
  const char *dicts[] = {
      "{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}",
      "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2L,)}",
      "{ 'descr' : '<f4' , 'fortran_order' : False , 'shape' : ( 2 , ) , }",
  };
  for (const char *dict : dicts) {
    writeBytes(tmp.path("h.npy"),
               npyImage(dict, floatBytes({1, 2}) + "trailing"));
    Result<Tensor> read = readNpy(tmp.path("h.npy"));
    ASSERT_TRUE(read.isOk()) << dict << ": " << read.message();
    EXPECT_EQ(read.value().shape(), std::vector<int64_t>{2});
    EXPECT_EQ(read.value().getAsDouble(1), 2.0);
  }
}

TEST_F(NumpyIOTest, FortranOrderOfOneDimIsC) {
  // The layouts coincide when at most one dimension exceeds 1.
  writeBytes(tmp.path("f.npy"),
             npyImage("{'descr': '<f4', 'fortran_order': True, 'shape': (1, "
                      "2), }",
                      floatBytes({3, 4})));
  Result<Tensor> read = readNpy(tmp.path("f.npy"));
  ASSERT_TRUE(read.isOk()) << read.message();
  EXPECT_EQ(read.value().getAsDouble(1), 4.0);
}

//===----------------------------------------------------------------------===//
// .npy errors
//===----------------------------------------------------------------------===//

TEST_F(NumpyIOTest, MissingFile) {
  Result<Tensor> read = readNpy(tmp.path("absent.npy"));
  ASSERT_FALSE(read.isOk());
  EXPECT_CONTAINS(read.message(), tmp.path("absent.npy"));
  EXPECT_CONTAINS(read.message(), "cannot open");
  EXPECT_CONTAINS(read.message(), "No such file or directory");
}

TEST_F(NumpyIOTest, DirectoryIsNotAFile) {
  Result<Tensor> read = readNpy(tmp.root());
  ASSERT_FALSE(read.isOk());
  EXPECT_CONTAINS(read.message(), "not a regular file");
}

TEST_F(NumpyIOTest, BadMagic) {
  EXPECT_CONTAINS(npyError("PK\x03\x04 this is a zip"), "bad magic");
  EXPECT_CONTAINS(npyError(""), "bad magic");
  EXPECT_CONTAINS(npyError("\x93NUMPX\x01\x00\x10\x00"), "bad magic");
}

TEST_F(NumpyIOTest, TruncatedHeader) {
  std::string full = npyImage(kF32Dict, floatBytes({1, 2}));
  // Every prefix that ends inside the preamble or header is an error, and
  // none reads out of bounds.
  size_t dataStart = full.size() - 8;
  for (size_t len = 1; len < dataStart; ++len) {
    std::string message = npyError(full.substr(0, len));
    EXPECT_TRUE(message.find("truncated header") != std::string::npos ||
                message.find("malformed") != std::string::npos)
        << len << ": " << message;
  }
  EXPECT_CONTAINS(npyError(full.substr(0, 9)), "truncated header");
  EXPECT_CONTAINS(npyError(full.substr(0, 20)), "truncated header");
  // A header length beyond the file.
  std::string huge =
      std::string("\x93NUMPY\x02\x00", 8) + le(0xfffffff0u, 4) + "{}";
  EXPECT_CONTAINS(npyError(huge), "truncated header");
}

TEST_F(NumpyIOTest, UnsupportedVersion) {
  std::string image = npyImage(kF32Dict, floatBytes({1, 2}));
  image[6] = 4;
  EXPECT_CONTAINS(npyError(image), "unsupported .npy format version 4.0");
  image[6] = 1;
  image[7] = 1;
  EXPECT_CONTAINS(npyError(image), "version 1.1");
}

TEST_F(NumpyIOTest, FortranOrder) {
  std::string message = npyError(
      npyImage("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
               std::string(24, 0)));
  EXPECT_CONTAINS(message, "fortran_order");
  EXPECT_CONTAINS(message, "np.ascontiguousarray");
}

TEST_F(NumpyIOTest, BigEndian) {
  std::string message = npyError(
      npyImage("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
               std::string(8, 0)));
  EXPECT_CONTAINS(message, "big-endian dtype '>f4'");
  EXPECT_CONTAINS(npyError(npyImage("{'descr': '>i8', 'fortran_order': "
                                    "False, 'shape': (1,), }",
                                    std::string(8, 0))),
                  "big-endian");
}

TEST_F(NumpyIOTest, UnsupportedDType) {
  for (const char *descr : {"<c8", "<u2", "<U10", "|O", "<M8[ns]", "<f16"}) {
    std::string message =
        npyError(npyImage(std::string("{'descr': '") + descr +
                              "', 'fortran_order': False, 'shape': (1,), }",
                          std::string(16, 0)));
    EXPECT_CONTAINS(message, "unsupported dtype '" + std::string(descr) + "'");
  }
  EXPECT_CONTAINS(
      npyError(npyImage("{'descr': [('a', '<f4')], 'fortran_order': False, "
                        "'shape': (1,), }",
                        std::string(4, 0))),
      "structured");
}

TEST_F(NumpyIOTest, NegativeDimension) {
  std::string message = npyError(npyImage(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", ""));
  EXPECT_CONTAINS(message, "negative dimension -3");
}

TEST_F(NumpyIOTest, DataShorterThanShape) {
  std::string message = npyError(
      npyImage("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
               std::string(47, 0)));
  EXPECT_CONTAINS(message, "data is shorter than the header's shape says");
  EXPECT_CONTAINS(message, "f64 [2, 3] needs 48 bytes, the file has 47");
}

TEST_F(NumpyIOTest, HugeShapeIsAnErrorNotAnAllocation) {
  EXPECT_CONTAINS(npyError(npyImage("{'descr': '<f4', 'fortran_order': "
                                    "False, 'shape': (10000000, 10000000, "
                                    "10000000), }",
                                    "")),
                  "overflows");
  EXPECT_CONTAINS(npyError(npyImage("{'descr': '<f4', 'fortran_order': "
                                    "False, 'shape': (100000, 100000), }",
                                    "")),
                  "data is shorter");
  EXPECT_CONTAINS(npyError(npyImage("{'descr': '<f4', 'fortran_order': "
                                    "False, 'shape': (99999999999999999999,), "
                                    "}",
                                    "")),
                  "integer too large");
}

TEST_F(NumpyIOTest, MalformedHeaders) {
  struct Case {
    const char *dict;
    const char *expected;
  } cases[] = {
      {"{'descr': '<f4', 'fortran_order': False}", "missing key 'shape'"},
      {"{'descr': '<f4', 'shape': (2,)}", "missing key 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
       "unexpected key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
       "'shape': (2,)}",
       "duplicate key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "expected"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk",
       "unexpected text"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}", "malformed"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
       "'fortran_order' is not True/False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2]}",
       "'shape' is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}",
       "'shape' is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ('2',)}",
       "non-integer"},
      {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}",
       "expected a Python literal"},
      {"[1, 2]", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "((((((((((((((((((((((((((((((((((((((((2,),),),),),),),),),),),),),),"
       "),),),),),),),),),),),),),),),),),),),),),),),),),),)}",
       "nesting too deep"},
  };
  for (const Case &c : cases) {
    std::string message = npyError(npyImage(c.dict, floatBytes({1, 2})));
    EXPECT_CONTAINS(message, c.expected);
  }
}

TEST_F(NumpyIOTest, EveryByteFlipIsHandled) {
  // Corrupting any single byte of a valid file gives a tensor or an error,
  // never a crash (run under ASan to check for out-of-bounds reads).
  std::string good =
      npyImage("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
               std::string(16, 7));
  for (size_t i = 0; i < good.size(); ++i) {
    for (char value : {'\x00', '\xff', '(', '\'', '-', '9'}) {
      std::string bad = good;
      bad[i] = value;
      writeBytes(tmp.path("flip.npy"), bad);
      Result<Tensor> read = readNpy(tmp.path("flip.npy"));
      if (read.isOk())
        EXPECT_LE(read.value().byteSize(), bad.size());
    }
  }
}

//===----------------------------------------------------------------------===//
// .npz
//===----------------------------------------------------------------------===//

TEST_F(NumpyIOTest, NpzRoundTripEveryDType) {
  std::vector<std::pair<std::string, Tensor>> arrays;
  for (DType dtype : kNumpyDTypes)
    arrays.emplace_back(std::string("arr_") + dtypeName(dtype),
                        patterned(dtype, {3, 2}));
  arrays.emplace_back("scalar", patterned(DType::F64, {}));
  arrays.emplace_back("empty", patterned(DType::I32, {0, 4}));
  arrays.emplace_back("layer1.0.conv1.weight", patterned(DType::F32, {17}));
  ASSERT_TRUE(writeNpz(tmp.path("all.npz"), arrays).isOk());

  auto read = readNpz(tmp.path("all.npz"));
  ASSERT_TRUE(read.isOk()) << read.message();
  ASSERT_EQ(read.value().size(), arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    SCOPED_TRACE(arrays[i].first);
    EXPECT_EQ(read.value()[i].first, arrays[i].first);
    expectSameTensor(read.value()[i].second, arrays[i].second);
  }
}

TEST_F(NumpyIOTest, NpzEmptyArchive) {
  ASSERT_TRUE(writeNpz(tmp.path("e.npz"), {}).isOk());
  auto read = readNpz(tmp.path("e.npz"));
  ASSERT_TRUE(read.isOk()) << read.message();
  EXPECT_TRUE(read.value().empty());
}

TEST_F(NumpyIOTest, NpzIsStoredWithCrc) {
  Tensor tensor = patterned(DType::I64, {4});
  ASSERT_TRUE(writeNpz(tmp.path("s.npz"), {{"x", tensor}}).isOk());
  std::string bytes = readBytes(tmp.path("s.npz"));
  ASSERT_GE(bytes.size(), 30u);
  EXPECT_EQ(bytes.substr(0, 4), "PK\x03\x04");
  EXPECT_EQ(bytes[8], 0); // method: stored
  EXPECT_EQ(bytes[9], 0);
  EXPECT_EQ(bytes.substr(30, 5), "x.npy");
  // The member is the same .npy image writeNpy produces.
  ASSERT_TRUE(writeNpy(tmp.path("x.npy"), tensor).isOk());
  std::string npy = readBytes(tmp.path("x.npy"));
  EXPECT_EQ(bytes.substr(35, npy.size()), npy);
  EXPECT_EQ(bytes.substr(14, 4), le(crc32(npy), 4));
}

TEST_F(NumpyIOTest, NpzReadsHandBuiltArchive) {
  std::string npy = npyImage(kF32Dict, floatBytes({7, 8}));
  writeBytes(tmp.path("h.npz"), zipArchive({{"a.npy", npy}, {"b.npy", npy}}));
  auto read = readNpz(tmp.path("h.npz"));
  ASSERT_TRUE(read.isOk()) << read.message();
  ASSERT_EQ(read.value().size(), 2u);
  EXPECT_EQ(read.value()[1].first, "b");
  EXPECT_EQ(read.value()[1].second.getAsDouble(1), 8.0);
}

TEST_F(NumpyIOTest, NpzCompressedMember) {
  std::string npy = npyImage(kF32Dict, floatBytes({7, 8}));
  std::string message = npzError(zipArchive({{"a.npy", npy}}, /*method=*/8));
  EXPECT_CONTAINS(message, "compressed .npz (numpy.savez_compressed) is not "
                           "supported; use numpy.savez");
  EXPECT_CONTAINS(message, "'a.npy'");

  // The same by patching an archive writeNpz produced.
  ASSERT_TRUE(
      writeNpz(tmp.path("p.npz"), {{"w", patterned(DType::F32, {2})}}).isOk());
  std::string bytes = readBytes(tmp.path("p.npz"));
  bytes[8] = 8;
  size_t central = bytes.find("PK\x01\x02");
  ASSERT_NE(central, std::string::npos);
  bytes[central + 10] = 8;
  EXPECT_CONTAINS(npzError(bytes), "numpy.savez_compressed");

  EXPECT_CONTAINS(npzError(zipArchive({{"a.npy", npy}}, 12)),
                  "unsupported ZIP compression method 12");
}

TEST_F(NumpyIOTest, NpzCrcMismatch) {
  ASSERT_TRUE(
      writeNpz(tmp.path("c.npz"), {{"w", patterned(DType::F32, {4})}}).isOk());
  std::string bytes = readBytes(tmp.path("c.npz"));
  size_t central = bytes.find("PK\x01\x02");
  ASSERT_NE(central, std::string::npos);
  bytes[central - 1] ^= 0x40; // last data byte
  std::string message = npzError(bytes);
  EXPECT_CONTAINS(message, "CRC-32 mismatch");
  EXPECT_CONTAINS(message, "'w.npy'");
}

TEST_F(NumpyIOTest, NpzMemberErrorsNameTheMember) {
  std::string shortData =
      npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
               floatBytes({1, 2}));
  std::string message = npzError(zipArchive({{"w.npy", shortData}}));
  EXPECT_CONTAINS(message, "member 'w.npy'");
  EXPECT_CONTAINS(message, "data is shorter");

  EXPECT_CONTAINS(npzError(zipArchive({{"w.npy", "not numpy"}})), "bad magic");
  EXPECT_CONTAINS(npzError(zipArchive({{"readme.txt", "hi"}})),
                  "not an .npy member");
  std::string npy = npyImage(kF32Dict, floatBytes({7, 8}));
  EXPECT_CONTAINS(npzError(zipArchive({{"a.npy", npy}, {"a.npy", npy}})),
                  "duplicate member");
}

TEST_F(NumpyIOTest, NpzStructuralErrors) {
  EXPECT_CONTAINS(npzError("short"), "not an .npz file");
  EXPECT_CONTAINS(npzError(std::string(100, 'x')),
                  "no ZIP end-of-central-directory record");
  EXPECT_CONTAINS(npzError(npyImage(kF32Dict, floatBytes({1, 2}))),
                  "it is an .npy file");

  std::string npy = npyImage(kF32Dict, floatBytes({7, 8}));
  std::string archive = zipArchive({{"a.npy", npy}});
  // Central directory offset beyond the file.
  std::string badOffset = archive;
  badOffset.replace(badOffset.size() - 6, 4, le(0x7fffffff, 4));
  EXPECT_CONTAINS(npzError(badOffset), "central directory lies outside");
  // More entries than the directory can hold.
  std::string badCount = archive;
  badCount.replace(badCount.size() - 12, 2, le(500, 2));
  badCount.replace(badCount.size() - 14, 2, le(500, 2));
  EXPECT_CONTAINS(npzError(badCount), "entries do not fit");
  // Local header offset beyond the file.
  std::string badLocal = archive;
  size_t central = badLocal.find("PK\x01\x02");
  badLocal.replace(central + 42, 4, le(0x10000000, 4));
  EXPECT_CONTAINS(npzError(badLocal), "local header outside the file");
  // Member size beyond the file.
  std::string badSize = archive;
  badSize.replace(central + 20, 4, le(0x100000, 4));
  badSize.replace(central + 24, 4, le(0x100000, 4));
  EXPECT_CONTAINS(npzError(badSize), "extends past the end of the file");
  // Truncating the archive loses the end record.
  EXPECT_CONTAINS(npzError(archive.substr(0, archive.size() / 2)),
                  "not an .npz file");
}

TEST_F(NumpyIOTest, NpzEveryTruncationIsHandled) {
  ASSERT_TRUE(writeNpz(tmp.path("t.npz"), {{"a", patterned(DType::I32, {3})},
                                           {"b", patterned(DType::F64, {2})}})
                  .isOk());
  std::string bytes = readBytes(tmp.path("t.npz"));
  for (size_t len = 0; len < bytes.size(); ++len)
    EXPECT_FALSE((writeBytes(tmp.path("cut.npz"), bytes.substr(0, len)),
                  readNpz(tmp.path("cut.npz")).isOk()))
        << len;
}

TEST_F(NumpyIOTest, NpzDuplicateNamesOnWrite) {
  Tensor t = patterned(DType::F32, {1});
  Status status = writeNpz(tmp.path("d.npz"), {{"a", t}, {"a", t}});
  ASSERT_FALSE(status.isOk());
  EXPECT_CONTAINS(status.message(), "duplicate array name 'a'");
}

TEST_F(NumpyIOTest, MissingNpz) {
  auto read = readNpz(tmp.path("absent.npz"));
  ASSERT_FALSE(read.isOk());
  EXPECT_CONTAINS(read.message(), "No such file or directory");
}

//===----------------------------------------------------------------------===//
// numpy interoperability (skipped when numpy is not installed)
//===----------------------------------------------------------------------===//

/// Runs python `script` with `args`; returns its exit status and output.
int runPython(const TempDir &tmp, const std::string &script,
              std::string &output) {
  writeBytes(tmp.path("script.py"), script);
  std::string command = "/usr/bin/python3 '" + tmp.path("script.py") + "' '" +
                        tmp.root() + "' >'" + tmp.path("script.log") + "' 2>&1";
  int status = std::system(command.c_str());
  output = readBytes(tmp.path("script.log"));
  return status;
}

TEST_F(NumpyIOTest, ReadsFilesWrittenByNumpy) {
  if (!haveNumpy())
    GTEST_SKIP() << "numpy is not installed for /usr/bin/python3";
  std::string output;
  ASSERT_EQ(runPython(tmp, R"(
import sys
import numpy as np
d = sys.argv[1]
np.save(d + '/f32.npy', np.arange(6, dtype=np.float32).reshape(2, 3) / 4)
np.save(d + '/f16.npy', np.array([1.5, -2, 65504, 1e-7], dtype=np.float16))
np.save(d + '/bool.npy', np.array([True, False, True]))
np.save(d + '/i64.npy', np.array(-5, dtype=np.int64))
np.save(d + '/u8.npy', np.arange(256, dtype=np.uint8).reshape(16, 16))
np.save(d + '/fortran.npy',
        np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
np.save(d + '/be.npy', np.arange(3, dtype='>i4'))
np.savez(d + '/arrays.npz', a=np.arange(3, dtype=np.int32),
         b=np.ones((2, 2)), c=np.zeros((0,), dtype=np.int8))
np.savez_compressed(d + '/compressed.npz', a=np.arange(3))
)",
                      output),
            0)
      << output;

  Tensor f32 = readNpy(tmp.path("f32.npy")).take();
  EXPECT_EQ(f32.dtype(), DType::F32);
  EXPECT_EQ(f32.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f32.getAsDouble(5), 1.25);

  Tensor f16 = readNpy(tmp.path("f16.npy")).take();
  EXPECT_EQ(f16.dtype(), DType::F16);
  EXPECT_EQ(f16.getAsDouble(2), 65504.0);
  EXPECT_EQ(f16.dataAs<uint16_t>()[3], floatToHalfBits(1e-7f));

  Tensor b = readNpy(tmp.path("bool.npy")).take();
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.getAsDouble(1), 0.0);
  EXPECT_EQ(b.getAsDouble(2), 1.0);

  Tensor i64 = readNpy(tmp.path("i64.npy")).take();
  EXPECT_EQ(i64.rank(), 0u);
  EXPECT_EQ(i64.getAsDouble(0), -5.0);

  Tensor u8 = readNpy(tmp.path("u8.npy")).take();
  EXPECT_EQ(u8.getAsDouble(255), 255.0);

  EXPECT_CONTAINS(readNpy(tmp.path("fortran.npy")).message(), "fortran_order");
  EXPECT_CONTAINS(readNpy(tmp.path("be.npy")).message(), "big-endian");

  auto npz = readNpz(tmp.path("arrays.npz"));
  ASSERT_TRUE(npz.isOk()) << npz.message();
  ASSERT_EQ(npz.value().size(), 3u);
  EXPECT_EQ(npz.value()[0].first, "a");
  EXPECT_EQ(npz.value()[0].second.dtype(), DType::I32);
  EXPECT_EQ(npz.value()[0].second.getAsDouble(2), 2.0);
  EXPECT_EQ(npz.value()[1].second.dtype(), DType::F64);
  EXPECT_EQ(npz.value()[2].second.numel(), 0u);

  EXPECT_CONTAINS(readNpz(tmp.path("compressed.npz")).message(),
                  "compressed .npz (numpy.savez_compressed) is not supported");
}

TEST_F(NumpyIOTest, NumpyReadsOurFiles) {
  if (!haveNumpy())
    GTEST_SKIP() << "numpy is not installed for /usr/bin/python3";
  std::vector<std::pair<std::string, Tensor>> arrays;
  for (DType dtype : kNumpyDTypes) {
    Tensor tensor = patterned(dtype, {2, 3});
    ASSERT_TRUE(
        writeNpy(tmp.path(std::string("ours_") + dtypeName(dtype) + ".npy"),
                 tensor)
            .isOk());
    arrays.emplace_back(dtypeName(dtype), tensor);
  }
  ASSERT_TRUE(writeNpz(tmp.path("ours.npz"), arrays).isOk());

  std::string output;
  EXPECT_EQ(runPython(tmp, R"(
import sys
import numpy as np
d = sys.argv[1]
names = {'f32': np.float32, 'f16': np.float16, 'f64': np.float64,
         'i64': np.int64, 'i32': np.int32, 'i8': np.int8, 'u8': np.uint8,
         'i1': np.bool_}
def expected(name):
    i = np.arange(6).reshape(2, 3)
    if name == 'i1':
        return (i % 3 == 1)
    if name == 'u8':
        return (i * 7 % 256).astype(np.uint8)
    return (i * 3 - 50).astype(names[name])
npz = np.load(d + '/ours.npz')
assert sorted(npz.files) == sorted(names), npz.files
for name, dtype in names.items():
    a = np.load(d + '/ours_' + name + '.npy')
    assert a.dtype == dtype, (name, a.dtype)
    assert a.flags.c_contiguous
    assert np.array_equal(a, expected(name)), (name, a)
    assert np.array_equal(npz[name], expected(name)), name
    # Byte-identical to numpy.save.
    np.save(d + '/theirs.npy', expected(name))
    ours = open(d + '/ours_' + name + '.npy', 'rb').read()
    theirs = open(d + '/theirs.npy', 'rb').read()
    assert ours == theirs, (name, ours[:80], theirs[:80])
print('ok')
)",
                      output),
            0)
      << output;
}

} // namespace

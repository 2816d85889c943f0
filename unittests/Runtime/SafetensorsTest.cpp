//===- SafetensorsTest.cpp - .safetensors mapping, writing and errors -----===//

#include "fx/Runtime/Safetensors.h"

#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

using namespace fx::rt;
using namespace fx::rt::testing;

namespace {

constexpr DType kAllDTypes[] = {DType::F32, DType::F16, DType::BF16,
                                DType::F64, DType::I64, DType::I32,
                                DType::I8,  DType::U8,  DType::Bool};

Tensor patterned(DType dtype, std::vector<int64_t> shape) {
  Tensor f64 = Tensor::allocate(DType::F64, shape);
  for (size_t i = 0; i < f64.numel(); ++i)
    f64.dataAs<double>()[i] =
        dtype == DType::Bool ? double(i % 2) : double(i) * 2 - 7;
  return f64.castTo(dtype).take();
}

/// A safetensors image: the 8-byte length, `header` verbatim, then `data`.
std::string image(const std::string &header, const std::string &data) {
  return le(header.size(), 8) + header + data;
}

class SafetensorsTest : public ::testing::Test {
protected:
  std::string openError(const std::string &bytes) {
    writeBytes(tmp.path("bad.safetensors"), bytes);
    Result<SafetensorsFile> file =
        SafetensorsFile::open(tmp.path("bad.safetensors"));
    EXPECT_FALSE(file.isOk());
    EXPECT_CONTAINS(file.message(), tmp.path("bad.safetensors"));
    return file.message();
  }

  TempDir tmp;
};

TEST_F(SafetensorsTest, RoundTripEveryDType) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (DType dtype : kAllDTypes)
    tensors.emplace_back(std::string("t_") + dtypeName(dtype),
                         patterned(dtype, {3, 5}));
  tensors.emplace_back("scalar", patterned(DType::F32, {}));
  tensors.emplace_back("empty", patterned(DType::I64, {0, 3}));
  tensors.emplace_back("odd", patterned(DType::I8, {3}));
  tensors.emplace_back("layer1.0.conv1.weight", patterned(DType::F16, {7}));
  std::string path = tmp.path("w.safetensors");
  ASSERT_TRUE(writeSafetensors(path, tensors, {{"format", "pt"}}).isOk());

  Result<SafetensorsFile> opened = SafetensorsFile::open(path);
  ASSERT_TRUE(opened.isOk()) << opened.message();
  const SafetensorsFile &file = opened.value();
  std::vector<std::string> names = file.names();
  EXPECT_EQ(names.size(), tensors.size());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(file.metadata().at("format"), "pt");
  for (const auto &[name, expected] : tensors) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(file.contains(name));
    Result<Tensor> got = file.get(name);
    ASSERT_TRUE(got.isOk()) << got.message();
    const Tensor &t = got.value();
    EXPECT_EQ(t.dtype(), expected.dtype());
    EXPECT_EQ(t.shape(), expected.shape());
    ASSERT_EQ(t.byteSize(), expected.byteSize());
    EXPECT_EQ(std::memcmp(t.data(), expected.data(), t.byteSize()), 0);
    // Wrapped, not copied, and aligned to its element size.
    EXPECT_FALSE(t.ownsStorage());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % dtypeSize(t.dtype()), 0u);
  }
  EXPECT_FALSE(file.contains("missing"));
  Result<Tensor> missing = file.get("missing");
  ASSERT_FALSE(missing.isOk());
  EXPECT_CONTAINS(missing.message(), "no tensor named \"missing\"");
}

TEST_F(SafetensorsTest, TensorsAliasTheMappingAndKeepItAlive) {
  std::string path = tmp.path("a.safetensors");
  ASSERT_TRUE(
      writeSafetensors(path, {{"w", patterned(DType::F32, {4})}}).isOk());
  Tensor w;
  {
    Result<SafetensorsFile> file = SafetensorsFile::open(path);
    ASSERT_TRUE(file.isOk()) << file.message();
    w = file.value().get("w").take();
    Tensor again = file.value().get("w").take();
    EXPECT_EQ(w.data(), again.data()); // both views of the mapping
    // Moving the file keeps the mapping.
    SafetensorsFile moved = file.take();
    EXPECT_TRUE(moved.contains("w"));
  }
  // The file object is gone; the tensor still reads the mapped data.
  EXPECT_EQ(w.getAsDouble(3), 3 * 2 - 7);
  // Writes are private to the process and never reach the file.
  std::string before = readBytes(path);
  w.dataAs<float>()[0] = 1234;
  EXPECT_EQ(readBytes(path), before);
  Result<SafetensorsFile> reopened = SafetensorsFile::open(path);
  EXPECT_EQ(reopened.value().get("w").value().getAsDouble(0), -7.0);
}

TEST_F(SafetensorsTest, WritesReferenceLayout) {
  std::string path = tmp.path("l.safetensors");
  ASSERT_TRUE(writeSafetensors(path, {{"b", patterned(DType::I8, {3})},
                                      {"a", patterned(DType::F32, {2})}})
                  .isOk());
  std::string bytes = readBytes(path);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | uint8_t(bytes[i]);
  EXPECT_EQ(n % 8, 0u);
  ASSERT_EQ(bytes.size(), 8 + n + 8 + 3);
  std::string header = bytes.substr(8, n);
  // Keys sorted; f32 data first so that it stays aligned; space padding.
  std::string json = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":"
                     "[0,8]},\"b\":{\"dtype\":\"I8\",\"shape\":[3],"
                     "\"data_offsets\":[8,11]}}";
  EXPECT_EQ(header.substr(0, json.size()), json);
  EXPECT_EQ(header.find_first_not_of(' ', json.size()), std::string::npos);
}

TEST_F(SafetensorsTest, EmptyFile) {
  std::string path = tmp.path("e.safetensors");
  ASSERT_TRUE(writeSafetensors(path, {}).isOk());
  EXPECT_EQ(readBytes(path), le(8, 8) + "{}      ");
  Result<SafetensorsFile> file = SafetensorsFile::open(path);
  ASSERT_TRUE(file.isOk()) << file.message();
  EXPECT_TRUE(file.value().names().empty());
}

TEST_F(SafetensorsTest, ReadsHandWrittenHeader) {
  // Unpadded header, escapes in names, metadata, whitespace.
  std::string header = "{ \"__metadata__\": {\"k\": \"v\\u00e9\"},\n"
                       "  \"a\\\"b\": {\"dtype\": \"I32\", \"shape\": [2], "
                       "\"data_offsets\": [0, 8]} }";
  std::string data = le(5, 4) + le(uint32_t(-6), 4);
  writeBytes(tmp.path("h.safetensors"), image(header, data));
  Result<SafetensorsFile> file =
      SafetensorsFile::open(tmp.path("h.safetensors"));
  ASSERT_TRUE(file.isOk()) << file.message();
  EXPECT_EQ(file.value().metadata().at("k"), "v\xc3\xa9");
  Tensor t = file.value().get("a\"b").take();
  EXPECT_EQ(t.getAsDouble(0), 5.0);
  EXPECT_EQ(t.getAsDouble(1), -6.0);
}

TEST_F(SafetensorsTest, MisalignedDataIsCopied) {
  // A 5-byte header puts f32 data at offset 13: not 4-byte aligned.
  std::string header = "{\"x\":{\"dtype\":\"F32\",\"shape\":[2],"
                       "\"data_offsets\":[0,8]}}";
  header.append((8 - (8 + header.size()) % 8) % 8 + 1, ' ');
  float values[2] = {1.5f, -2.5f};
  std::string data(reinterpret_cast<const char *>(values), 8);
  writeBytes(tmp.path("m.safetensors"), image(header, data));
  Result<SafetensorsFile> file =
      SafetensorsFile::open(tmp.path("m.safetensors"));
  ASSERT_TRUE(file.isOk()) << file.message();
  Tensor t = file.value().get("x").take();
  EXPECT_TRUE(t.ownsStorage());
  EXPECT_EQ(t.getAsDouble(0), 1.5);
  EXPECT_EQ(t.getAsDouble(1), -2.5);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(SafetensorsTest, MissingFile) {
  Result<SafetensorsFile> file = SafetensorsFile::open(tmp.path("no.st"));
  ASSERT_FALSE(file.isOk());
  EXPECT_CONTAINS(file.message(), "No such file or directory");
}

TEST_F(SafetensorsTest, TooShortForTheLength) {
  EXPECT_CONTAINS(openError(""), "too short for the 8-byte header length");
  EXPECT_CONTAINS(openError("1234567"), "too short");
}

TEST_F(SafetensorsTest, HeaderLengthBeyondFileSize) {
  std::string message = openError(le(1000, 8) + "{}");
  EXPECT_CONTAINS(message,
                  "header length 1000 exceeds the file size (10 bytes)");
  EXPECT_CONTAINS(openError(le(~uint64_t(0), 8) + "{}"), "exceeds the file");
}

TEST_F(SafetensorsTest, InvalidJson) {
  struct Case {
    const char *header;
    const char *expected;
  } cases[] = {
      {"{\"a\":", "invalid JSON"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},}",
       "invalid JSON"},
      {"{'a': 1}", "invalid JSON"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}} x",
       "unexpected text after the JSON value"},
      {"[]", "does not start with '{'"},
      {"", "does not start with '{'"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},"
       "\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}",
       "duplicate key"},
      {"{\"a\xff\":{}}", "invalid UTF-8"},
  };
  for (const Case &c : cases) {
    std::string message = openError(image(c.header, std::string(4, 0)));
    EXPECT_CONTAINS(message, "invalid header");
    EXPECT_CONTAINS(message, c.expected);
  }
}

TEST_F(SafetensorsTest, UnsupportedDType) {
  for (const char *dtype : {"F8_E4M3", "F8_E5M2", "I16", "U64", "C64", "f32"}) {
    std::string message =
        openError(image(std::string("{\"w\":{\"dtype\":\"") + dtype +
                            "\",\"shape\":[1],\"data_offsets\":[0,1]}}",
                        std::string(8, 0)));
    EXPECT_CONTAINS(message, "tensor \"w\": unsupported dtype \"" +
                                 std::string(dtype) + "\"");
  }
}

TEST_F(SafetensorsTest, OffsetsOutOfRange) {
  std::string message = openError(
      image("{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}",
            std::string(12, 0)));
  EXPECT_CONTAINS(message, "data_offsets [0, 16] are out of range of the "
                           "12-byte data section");
  EXPECT_CONTAINS(openError(image("{\"w\":{\"dtype\":\"F32\",\"shape\":[0],"
                                  "\"data_offsets\":[8,4]}}",
                                  std::string(12, 0))),
                  "out of range");
  EXPECT_CONTAINS(openError(image("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],"
                                  "\"data_offsets\":[18446744073709551615,4]}}",
                                  std::string(12, 0))),
                  "'data_offsets' is not a pair of non-negative integers");
}

TEST_F(SafetensorsTest, OffsetsInconsistentWithShape) {
  std::string message = openError(
      image("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,"
            "20]}}",
            std::string(24, 0)));
  EXPECT_CONTAINS(message, "span 20 bytes but F32 [2, 3] needs 24");
  EXPECT_CONTAINS(
      openError(image("{\"w\":{\"dtype\":\"U8\",\"shape\":[4294967296,"
                      "4294967296,4294967296],\"data_offsets\":[0,8]}}",
                      std::string(8, 0))),
      "overflows");
}

TEST_F(SafetensorsTest, OverlappingTensors) {
  EXPECT_CONTAINS(
      openError(image("{\"a\":{\"dtype\":\"I32\",\"shape\":[2],"
                      "\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"I32\","
                      "\"shape\":[2],\"data_offsets\":[4,12]}}",
                      std::string(12, 0))),
      "tensors \"a\" and \"b\" have overlapping data_offsets");
}

TEST_F(SafetensorsTest, MalformedEntries) {
  struct Case {
    const char *header;
    const char *expected;
  } cases[] = {
      {"{\"w\":[1]}", "entry is not an object"},
      {"{\"w\":{\"shape\":[1],\"data_offsets\":[0,1]}}", "lacks 'dtype'"},
      {"{\"w\":{\"dtype\":\"U8\",\"data_offsets\":[0,1]}}", "lacks 'shape'"},
      {"{\"w\":{\"dtype\":\"U8\",\"shape\":[1]}}", "lacks 'data_offsets'"},
      {"{\"w\":{\"dtype\":8,\"shape\":[1],\"data_offsets\":[0,1]}}",
       "'dtype' is not a string"},
      {"{\"w\":{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,1]}}",
       "'shape' is not an array of non-negative integers"},
      {"{\"w\":{\"dtype\":\"U8\",\"shape\":[1.5],\"data_offsets\":[0,1]}}",
       "'shape' is not an array"},
      {"{\"w\":{\"dtype\":\"U8\",\"shape\":1,\"data_offsets\":[0,1]}}",
       "'shape' is not an array"},
      {"{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1,2]}}",
       "'data_offsets' is not a pair"},
      {"{\"__metadata__\":{\"k\":1}}", "__metadata__ value \"k\" is not a "
                                       "string"},
      {"{\"__metadata__\":[]}", "__metadata__ is not an object"},
  };
  for (const Case &c : cases)
    EXPECT_CONTAINS(openError(image(c.header, std::string(8, 0))), c.expected);
}

TEST_F(SafetensorsTest, EveryTruncationIsHandled) {
  std::string path = tmp.path("t.safetensors");
  ASSERT_TRUE(writeSafetensors(path, {{"a", patterned(DType::F64, {3})},
                                      {"b", patterned(DType::BF16, {5})}})
                  .isOk());
  std::string bytes = readBytes(path);
  for (size_t len = 0; len < bytes.size(); ++len) {
    writeBytes(tmp.path("cut.safetensors"), bytes.substr(0, len));
    EXPECT_FALSE(SafetensorsFile::open(tmp.path("cut.safetensors")).isOk())
        << len;
  }
}

TEST_F(SafetensorsTest, WriteErrors) {
  Tensor t = patterned(DType::F32, {1});
  Status duplicate =
      writeSafetensors(tmp.path("d.safetensors"), {{"a", t}, {"a", t}});
  ASSERT_FALSE(duplicate.isOk());
  EXPECT_CONTAINS(duplicate.message(), "duplicate tensor name \"a\"");
  Status reserved =
      writeSafetensors(tmp.path("d.safetensors"), {{"__metadata__", t}});
  ASSERT_FALSE(reserved.isOk());
  EXPECT_CONTAINS(reserved.message(), "reserved");
  Status utf8 = writeSafetensors(tmp.path("d.safetensors"), {{"\xff", t}});
  ASSERT_FALSE(utf8.isOk());
  EXPECT_CONTAINS(utf8.message(), "UTF-8");
  Status dir = writeSafetensors(tmp.path("no/dir.safetensors"), {{"a", t}});
  ASSERT_FALSE(dir.isOk());
  EXPECT_CONTAINS(dir.message(), "No such file or directory");
}

} // namespace

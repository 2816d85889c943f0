//===- JsonTest.cpp - the runtime's private strict JSON reader ------------===//

#include "Json.h"

#include <gtest/gtest.h>

using namespace fx::rt;
using namespace fx::rt::json;

namespace {

Value parseOk(std::string_view text) {
  Result<Value> result = parse(text);
  EXPECT_TRUE(result.isOk()) << text << ": " << result.message();
  return result.isOk() ? result.take() : Value();
}

std::string parseError(std::string_view text) {
  Result<Value> result = parse(text);
  EXPECT_FALSE(result.isOk()) << "accepted: " << text;
  return result.message();
}

TEST(JsonTest, ParsesEveryKind) {
  Value v = parseOk(" {\"a\": [1, -2, 3.5, 1e3, true, false, null, \"s\"],"
                    " \"b\": {}} \n");
  ASSERT_EQ(v.kind, Value::Kind::Object);
  ASSERT_EQ(v.keys.size(), 2u);
  const Value *a = v.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->elements.size(), 8u);
  EXPECT_EQ(a->elements[0].integer, 1);
  EXPECT_EQ(a->elements[1].integer, -2);
  EXPECT_EQ(a->elements[2].kind, Value::Kind::Number);
  EXPECT_EQ(a->elements[2].integer, std::nullopt);
  EXPECT_EQ(a->elements[2].text, "3.5");
  EXPECT_EQ(a->elements[3].integer, std::nullopt);
  EXPECT_TRUE(a->elements[4].boolean);
  EXPECT_EQ(a->elements[5].kind, Value::Kind::Bool);
  EXPECT_FALSE(a->elements[5].boolean);
  EXPECT_EQ(a->elements[6].kind, Value::Kind::Null);
  EXPECT_EQ(a->elements[7].text, "s");
  EXPECT_EQ(v.find("b")->kind, Value::Kind::Object);
  EXPECT_EQ(v.find("c"), nullptr);
}

TEST(JsonTest, IntegerRange) {
  EXPECT_EQ(parseOk("9223372036854775807").integer, INT64_MAX);
  EXPECT_EQ(parseOk("-9223372036854775808").integer, INT64_MIN);
  EXPECT_EQ(parseOk("9223372036854775808").integer, std::nullopt);
  EXPECT_EQ(parseOk("-9223372036854775809").integer, std::nullopt);
  EXPECT_EQ(parseOk("0").integer, 0);
  EXPECT_EQ(parseOk("-0").integer, 0);
}

TEST(JsonTest, StringEscapes) {
  EXPECT_EQ(parseOk(R"("a\"b\\c\/d\b\f\n\r\t")").text, "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(parseOk(R"("\u00e9\u20AC")").text, "\xc3\xa9\xe2\x82\xac");
  // A surrogate pair is one code point (U+1F600).
  EXPECT_EQ(parseOk(R"("\ud83d\ude00")").text, "\xf0\x9f\x98\x80");
  EXPECT_EQ(parseOk("\"caf\xc3\xa9\"").text, "caf\xc3\xa9");
}

TEST(JsonTest, RejectsNonStandardInput) {
  EXPECT_NE(parseError("{\"a\":1,}").find("expected a string key"),
            std::string::npos);
  EXPECT_NE(parseError("[1,]").find("expected a value"), std::string::npos);
  EXPECT_NE(parseError("{'a':1}").find("expected a string key"),
            std::string::npos);
  EXPECT_NE(parseError("01").find("leading zeros"), std::string::npos);
  EXPECT_NE(parseError("1.").find("digits after '.'"), std::string::npos);
  EXPECT_NE(parseError("1e").find("exponent"), std::string::npos);
  EXPECT_NE(parseError("-").find("expected digits"), std::string::npos);
  EXPECT_NE(parseError("+1").find("expected a value"), std::string::npos);
  EXPECT_NE(parseError("NaN").find("expected a value"), std::string::npos);
  EXPECT_NE(parseError("tru").find("expected a value"), std::string::npos);
  EXPECT_NE(parseError("\"a\nb\"").find("control character"),
            std::string::npos);
  EXPECT_NE(parseError(R"("\x")").find("invalid escape"), std::string::npos);
  EXPECT_NE(parseError(R"("\u12")").find("invalid \\u escape"),
            std::string::npos);
  EXPECT_NE(parseError(R"("\ud83d")").find("unpaired"), std::string::npos);
  EXPECT_NE(parseError(R"("\ude00")").find("unpaired"), std::string::npos);
  EXPECT_NE(parseError("\"abc").find("unterminated string"), std::string::npos);
  EXPECT_NE(parseError("{\"a\":1,\"a\":2}").find("duplicate key \"a\""),
            std::string::npos);
  EXPECT_NE(parseError("{} {}").find("unexpected text"), std::string::npos);
  EXPECT_NE(parseError("").find("unexpected end of input"), std::string::npos);
  EXPECT_NE(parseError("{\"a\" 1}").find("expected ':'"), std::string::npos);
  EXPECT_NE(parseError("[1 2]").find("expected ',' or ']'"), std::string::npos);
  EXPECT_NE(parseError("{\"a\":1 \"b\":2}").find("expected ',' or '}'"),
            std::string::npos);
  EXPECT_NE(parseError("/* c */ {}").find("expected a value"),
            std::string::npos);
}

TEST(JsonTest, RejectsInvalidUtf8) {
  for (const char *bad :
       {"\"\xff\"", "\"\xc0\xaf\"", "\"\xe0\x80\xaf\"", "\"\xed\xa0\x80\"",
        "\"\xf4\x90\x80\x80\"", "\"\xc3\"", "\"\xe2\x82\""})
    EXPECT_NE(parseError(bad).find("invalid UTF-8"), std::string::npos) << bad;
  EXPECT_TRUE(isValidUtf8("plain \xc3\xa9 \xf0\x9f\x98\x80"));
  EXPECT_FALSE(isValidUtf8("\xc3"));
}

TEST(JsonTest, ErrorsGiveTheOffset) {
  EXPECT_NE(parseError("[1, 2, x]").find("at byte 7"), std::string::npos);
}

TEST(JsonTest, BoundsNesting) {
  std::string deep(100000, '[');
  EXPECT_NE(parseError(deep).find("nesting deeper than"), std::string::npos);
  std::string ok = std::string(60, '[') + std::string(60, ']');
  parseOk(ok);
}

TEST(JsonTest, QuoteEscapes) {
  EXPECT_EQ(quote("a\"b\\c\n\x01\xc3\xa9"),
            "\"a\\\"b\\\\c\\u000a\\u0001\xc3\xa9\"");
  // quote() output parses back to the input.
  std::string tricky = "x\"\\\t\x1f/\xe2\x82\xac";
  EXPECT_EQ(parseOk(quote(tricky)).text, tricky);
}

} // namespace

//===- Json.cpp - a small strict JSON reader and string quoting -----------===//

#include "Json.h"

#include <cstring>

using namespace fx::rt;
using namespace fx::rt::json;

const Value *Value::find(std::string_view key) const {
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key)
      return &elements[i];
  return nullptr;
}

/// Length of the UTF-8 sequence at `text[pos]`, or 0 if it is malformed.
static size_t utf8SequenceLength(std::string_view text, size_t pos) {
  auto byte = [&](size_t i) -> unsigned {
    return pos + i < text.size() ? static_cast<unsigned char>(text[pos + i])
                                 : 0x100;
  };
  auto isCont = [&](size_t i) { return (byte(i) & 0xc0) == 0x80; };
  unsigned b0 = byte(0);
  if (b0 < 0x80)
    return 1;
  if (b0 >= 0xc2 && b0 <= 0xdf)
    return isCont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    unsigned b1 = byte(1);
    // No overlong forms (E0 80..9F) and no UTF-16 surrogates (ED A0..BF).
    if ((b0 == 0xe0 && b1 < 0xa0) || (b0 == 0xed && b1 >= 0xa0))
      return 0;
    return isCont(1) && isCont(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    unsigned b1 = byte(1);
    // No overlong forms (F0 80..8F) and nothing above U+10FFFF (F4 90..).
    if ((b0 == 0xf0 && b1 < 0x90) || (b0 == 0xf4 && b1 >= 0x90))
      return 0;
    return isCont(1) && isCont(2) && isCont(3) ? 4 : 0;
  }
  return 0;
}

bool json::isValidUtf8(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    size_t len = utf8SequenceLength(text, pos);
    if (!len)
      return false;
    pos += len;
  }
  return true;
}

static void appendUtf8(std::string &out, uint32_t codePoint) {
  if (codePoint < 0x80) {
    out.push_back(char(codePoint));
  } else if (codePoint < 0x800) {
    out.push_back(char(0xc0 | (codePoint >> 6)));
    out.push_back(char(0x80 | (codePoint & 0x3f)));
  } else if (codePoint < 0x10000) {
    out.push_back(char(0xe0 | (codePoint >> 12)));
    out.push_back(char(0x80 | ((codePoint >> 6) & 0x3f)));
    out.push_back(char(0x80 | (codePoint & 0x3f)));
  } else {
    out.push_back(char(0xf0 | (codePoint >> 18)));
    out.push_back(char(0x80 | ((codePoint >> 12) & 0x3f)));
    out.push_back(char(0x80 | ((codePoint >> 6) & 0x3f)));
    out.push_back(char(0x80 | (codePoint & 0x3f)));
  }
}

std::string json::quote(std::string_view text) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (byte < 0x20) {
      out += "\\u00";
      out.push_back(hex[byte >> 4]);
      out.push_back(hex[byte & 0xf]);
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

namespace {
class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  Result<Value> parseDocument() {
    Value value;
    skipSpace();
    if (Status s = parseValue(value, 0); !s.isOk())
      return s;
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the JSON value");
    return value;
  }

private:
  static constexpr int kMaxDepth = 64;

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }
  void skipSpace() {
    while (!atEnd() && (text[pos] == ' ' || text[pos] == '\t' ||
                        text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  Status fail(const std::string &what) const {
    return Status::error("invalid JSON at byte " + std::to_string(pos) + ": " +
                         what);
  }

  Status parseValue(Value &value, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth));
    switch (peek()) {
    case '{':
      return parseObject(value, depth);
    case '[':
      return parseArray(value, depth);
    case '"':
      value.kind = Value::Kind::String;
      return parseString(value.text);
    case 't':
      return parseWord("true", Value::Kind::Bool, true, value);
    case 'f':
      return parseWord("false", Value::Kind::Bool, false, value);
    case 'n':
      return parseWord("null", Value::Kind::Null, false, value);
    default:
      if (peek() == '-' || (peek() >= '0' && peek() <= '9'))
        return parseNumber(value);
      return atEnd() ? fail("unexpected end of input")
                     : fail("expected a value");
    }
  }

  Status parseWord(std::string_view word, Value::Kind kind, bool boolean,
                   Value &value) {
    if (text.substr(pos, word.size()) != word)
      return fail("expected a value");
    pos += word.size();
    value.kind = kind;
    value.boolean = boolean;
    return Status::ok();
  }

  Status parseObject(Value &value, int depth) {
    value.kind = Value::Kind::Object;
    ++pos; // '{'
    skipSpace();
    if (peek() == '}') {
      ++pos;
      return Status::ok();
    }
    while (true) {
      skipSpace();
      if (peek() != '"')
        return fail("expected a string key");
      std::string key;
      if (Status s = parseString(key); !s.isOk())
        return s;
      if (value.find(key))
        return fail("duplicate key " + quote(key));
      skipSpace();
      if (peek() != ':')
        return fail("expected ':'");
      ++pos;
      skipSpace();
      Value member;
      if (Status s = parseValue(member, depth + 1); !s.isOk())
        return s;
      value.keys.push_back(std::move(key));
      value.elements.push_back(std::move(member));
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() == '}') {
        ++pos;
        return Status::ok();
      }
      return fail("expected ',' or '}'");
    }
  }

  Status parseArray(Value &value, int depth) {
    value.kind = Value::Kind::Array;
    ++pos; // '['
    skipSpace();
    if (peek() == ']') {
      ++pos;
      return Status::ok();
    }
    while (true) {
      skipSpace();
      Value element;
      if (Status s = parseValue(element, depth + 1); !s.isOk())
        return s;
      value.elements.push_back(std::move(element));
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() == ']') {
        ++pos;
        return Status::ok();
      }
      return fail("expected ',' or ']'");
    }
  }

  /// Reads four hex digits of a \u escape.
  bool parseHex4(uint32_t &out) {
    if (text.size() - pos < 4)
      return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[pos++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        out |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        out |= uint32_t(c - 'A' + 10);
      else
        return false;
    }
    return true;
  }

  Status parseString(std::string &out) {
    ++pos; // '"'
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      auto c = static_cast<unsigned char>(text[pos]);
      if (c == '"') {
        ++pos;
        return Status::ok();
      }
      if (c < 0x20)
        return fail("unescaped control character in string");
      if (c == '\\') {
        ++pos;
        if (Status s = parseEscape(out); !s.isOk())
          return s;
        continue;
      }
      size_t len = utf8SequenceLength(text, pos);
      if (!len)
        return fail("invalid UTF-8 in string");
      out.append(text.substr(pos, len));
      pos += len;
    }
  }

  Status parseEscape(std::string &out) {
    if (atEnd())
      return fail("unterminated string");
    char c = text[pos++];
    switch (c) {
    case '"':
    case '\\':
    case '/':
      out.push_back(c);
      return Status::ok();
    case 'b':
      out.push_back('\b');
      return Status::ok();
    case 'f':
      out.push_back('\f');
      return Status::ok();
    case 'n':
      out.push_back('\n');
      return Status::ok();
    case 'r':
      out.push_back('\r');
      return Status::ok();
    case 't':
      out.push_back('\t');
      return Status::ok();
    case 'u':
      break;
    default:
      --pos;
      return fail("invalid escape in string");
    }
    uint32_t unit;
    if (!parseHex4(unit))
      return fail("invalid \\u escape");
    if (unit >= 0xdc00 && unit <= 0xdfff)
      return fail("unpaired UTF-16 surrogate in \\u escape");
    if (unit >= 0xd800 && unit <= 0xdbff) {
      uint32_t low;
      if (text.substr(pos, 2) != "\\u")
        return fail("unpaired UTF-16 surrogate in \\u escape");
      pos += 2;
      if (!parseHex4(low))
        return fail("invalid \\u escape");
      if (low < 0xdc00 || low > 0xdfff)
        return fail("unpaired UTF-16 surrogate in \\u escape");
      unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
    }
    appendUtf8(out, unit);
    return Status::ok();
  }

  Status parseNumber(Value &value) {
    size_t start = pos;
    bool negative = peek() == '-';
    if (negative)
      ++pos;
    auto isDigit = [&] { return peek() >= '0' && peek() <= '9'; };
    if (!isDigit())
      return fail("expected digits");
    if (peek() == '0') {
      ++pos;
      if (isDigit())
        return fail("leading zeros are not allowed");
    }
    while (isDigit())
      ++pos;
    bool integral = true;
    if (peek() == '.') {
      integral = false;
      ++pos;
      if (!isDigit())
        return fail("expected digits after '.'");
      while (isDigit())
        ++pos;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos;
      if (peek() == '+' || peek() == '-')
        ++pos;
      if (!isDigit())
        return fail("expected digits in exponent");
      while (isDigit())
        ++pos;
    }
    value.kind = Value::Kind::Number;
    value.text = std::string(text.substr(start, pos - start));
    if (integral) {
      // Accumulate negatively so that INT64_MIN fits.
      int64_t acc = 0;
      bool fits = true;
      for (size_t i = start + (negative ? 1 : 0); i < pos && fits; ++i) {
        int digit = text[i] - '0';
        if (acc < (INT64_MIN + digit) / 10)
          fits = false;
        else
          acc = acc * 10 - digit;
      }
      if (fits && !negative && acc == INT64_MIN)
        fits = false;
      if (fits)
        value.integer = negative ? acc : -acc;
    }
    return Status::ok();
  }

  std::string_view text;
  size_t pos = 0;
};
} // namespace

Result<Value> json::parse(std::string_view text) {
  return Parser(text).parseDocument();
}

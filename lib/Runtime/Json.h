//===- Json.h - a small strict JSON reader and string quoting ---*- C++ -*-===//
//
// Private to lib/Runtime: enough JSON for safetensors headers and artifact
// manifests. The parser accepts exactly RFC 8259 (no comments, trailing
// commas, NaN, or invalid UTF-8), rejects duplicate object keys, and bounds
// nesting depth so that a hostile header cannot exhaust the stack.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_JSON_H
#define FX_RUNTIME_JSON_H

#include "fx/Runtime/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fx::rt::json {

/// A parsed JSON value.
struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind = Kind::Null;
  bool boolean = false;
  /// Decoded UTF-8 of a String; the source text of a Number.
  std::string text;
  /// A Number's value when it is an integer (no fraction or exponent) that
  /// fits in int64_t.
  std::optional<int64_t> integer;
  /// Elements of an Array, or member values of an Object in source order.
  std::vector<Value> elements;
  /// Member keys of an Object, parallel to `elements`.
  std::vector<std::string> keys;

  /// The member named `key` of an Object, or nullptr.
  const Value *find(std::string_view key) const;
};

/// Parses `text` as one JSON value surrounded by optional whitespace. Errors
/// say what was expected and at which byte offset.
Result<Value> parse(std::string_view text);

/// True if `text` is well-formed UTF-8 (no overlong forms, surrogates, or
/// code points above U+10FFFF).
bool isValidUtf8(std::string_view text);

/// `text` as a JSON string literal, quotes included.
std::string quote(std::string_view text);

} // namespace fx::rt::json

#endif // FX_RUNTIME_JSON_H

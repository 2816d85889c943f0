//===- Support.h - small helpers of the Vulkan runtime ----------*- C++ -*-===//
//
// Private to lib/Runtime/Vulkan.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_VULKAN_SUPPORT_H
#define FX_RUNTIME_VULKAN_SUPPORT_H

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace fx::rt::vk::detail {

/// The value of environment variable `name`, if set.
inline std::optional<std::string> getEnv(const char *name) {
  const char *value = std::getenv(name);
  if (!value)
    return std::nullopt;
  return std::string(value);
}

/// An environment flag is on when set to anything but "", "0", "false" or
/// "off".
inline bool envFlag(const char *name) {
  std::optional<std::string> value = getEnv(name);
  return value && !value->empty() && *value != "0" && *value != "false" &&
         *value != "off";
}

/// Parses a non-negative decimal integer; nullopt for anything else.
inline std::optional<uint64_t> parseUnsigned(const std::string &text) {
  if (text.empty() || text.size() > 18)
    return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + uint64_t(c - '0');
  }
  return value;
}

} // namespace fx::rt::vk::detail

#endif // FX_RUNTIME_VULKAN_SUPPORT_H

//===- PipelineCache.cpp - the VkPipelineCache kept on disk ---------------===//
//
// Pipelines compile once per device and driver: the context loads the cache
// file of its device at creation and writes it back, when it changed, at
// destruction. Problems here only cost compile time, never correctness.
//
//===----------------------------------------------------------------------===//

#include "Context.h"

#include "../FileIO.h"
#include "Support.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace fx::rt;
using namespace fx::rt::vk;
using namespace fx::rt::vk::detail;
using fx::rt::detail::InputFile;
using fx::rt::detail::OutputFile;

namespace {

/// mkdir -p; failures are left for the file creation to notice.
void createDirectories(const std::string &dir) {
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    std::string prefix = dir.substr(0, slash);
    if (!prefix.empty())
      ::mkdir(prefix.c_str(), 0755);
    if (slash == std::string::npos)
      break;
  }
}

/// A little-endian uint32 of a pipeline cache header, which Vulkan writes
/// least significant byte first whatever the host's byte order.
uint32_t readLE32(const uint8_t *bytes) {
  return uint32_t(bytes[0]) | uint32_t(bytes[1]) << 8 |
         uint32_t(bytes[2]) << 16 | uint32_t(bytes[3]) << 24;
}

} // namespace

std::string
fx::rt::vk::detail::pipelineCacheDirectory(const ContextOptions &options) {
  std::string dir = options.pipelineCacheDir;
  if (dir.empty())
    dir = getEnv("FX_VULKAN_CACHE_DIR").value_or("");
  if (dir.empty()) {
    // XDG: a relative $XDG_CACHE_HOME is invalid and must be ignored.
    std::string xdg = getEnv("XDG_CACHE_HOME").value_or("");
    if (!xdg.empty() && xdg[0] == '/')
      dir = xdg + "/fx-mlir";
  }
  if (dir.empty()) {
    std::string home = getEnv("HOME").value_or("");
    if (!home.empty())
      dir = home + "/.cache/fx-mlir";
  }
  return dir == "none" ? std::string() : dir;
}

void Context::Impl::loadPipelineCache(const std::string &dir) {
  // Problems here only cost compile time, so they are never errors: an
  // unreadable, foreign or corrupt file is ignored, and a cache that cannot
  // be created leaves pipelines uncached.
  const VkPhysicalDeviceProperties &props = probe.properties;
  if (!dir.empty()) {
    char name[96];
    std::snprintf(name, sizeof(name),
                  "/vk-pipeline-cache-%04" PRIx32 "-%04" PRIx32 "-%" PRIu32
                  ".bin",
                  props.vendorID, props.deviceID, props.driverVersion);
    cachePath = dir + name;
    Result<InputFile> file = InputFile::open(cachePath);
    // 1 GiB: far more than any real cache; guards against odd files.
    if (file.isOk() && file.value().size() >= 32 &&
        file.value().size() < (1ull << 30)) {
      std::vector<uint8_t> data(file.value().size());
      if (file.value().readAt(0, data.data(), data.size()).isOk()) {
        // Drivers should reject a foreign cache themselves, but some have
        // crashed on one; VkPipelineCacheHeaderVersionOne names the device.
        uint32_t headerSize = readLE32(&data[0]);
        bool matches =
            headerSize >= 32 && headerSize <= data.size() &&
            readLE32(&data[4]) == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
            readLE32(&data[8]) == props.vendorID &&
            readLE32(&data[12]) == props.deviceID &&
            std::memcmp(&data[16], props.pipelineCacheUUID, VK_UUID_SIZE) == 0;
        if (matches)
          loadedCache = std::move(data);
      }
    }
  }
  VkPipelineCacheCreateInfo info = {
      VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  info.initialDataSize = loadedCache.size();
  info.pInitialData = loadedCache.empty() ? nullptr : loadedCache.data();
  if (fn.vkCreatePipelineCache(device, &info, nullptr, &pipelineCache) ==
      VK_SUCCESS)
    return;
  pipelineCache = VK_NULL_HANDLE;
  loadedCache.clear();
  info.initialDataSize = 0;
  info.pInitialData = nullptr;
  if (fn.vkCreatePipelineCache(device, &info, nullptr, &pipelineCache) !=
      VK_SUCCESS)
    pipelineCache = VK_NULL_HANDLE;
}

void Context::Impl::savePipelineCache() {
  if (cachePath.empty() || !pipelineCache || deviceLost)
    return;
  size_t size = 0;
  if (fn.vkGetPipelineCacheData(device, pipelineCache, &size, nullptr) !=
          VK_SUCCESS ||
      size == 0)
    return;
  std::vector<uint8_t> data(size);
  if (fn.vkGetPipelineCacheData(device, pipelineCache, &size, data.data()) !=
      VK_SUCCESS)
    return;
  data.resize(size);
  if (data == loadedCache)
    return;
  createDirectories(cachePath.substr(0, cachePath.rfind('/')));
  // Written aside and renamed into place, so concurrent processes never
  // read a half-written cache.
  std::string temporary =
      cachePath + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  Result<OutputFile> file = OutputFile::create(temporary);
  if (!file.isOk())
    return;
  if (!file.value().write(data.data(), data.size()).isOk() ||
      !file.value().close().isOk())
    return; // The OutputFile removes the partial file.
  if (std::rename(temporary.c_str(), cachePath.c_str()) != 0)
    std::remove(temporary.c_str());
}

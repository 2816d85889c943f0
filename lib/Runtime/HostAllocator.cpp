//===- HostAllocator.cpp - temporaries of compiled CPU code ---------------===//

#include "fx/Runtime/HostAllocator.h"

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

/// Blocks below this size go straight to the C library, which keeps them
/// in its own free lists.
constexpr size_t kCachedMinSize = size_t(64) << 10;
/// Alignment of cached blocks: a cache line, and what MLIR asks of
/// vectorized buffers.
constexpr size_t kBlockAlignment = 64;
/// Most bytes of freed blocks kept: enough for the temporaries of the
/// models this project runs (resnet50 at batch 32 peaks below it), small
/// next to the memory of the machines it runs on.
constexpr size_t kCacheLimit = size_t(1) << 30;

struct Cache {
  std::mutex mutex;
  /// Size of each cached-size block handed out and not yet freed.
  std::unordered_map<void *, size_t> live;
  /// Freed blocks by size.
  std::multimap<size_t, void *> free;
  size_t freeBytes = 0;
};

Cache &cache() {
  // Never destroyed: compiled code may free blocks during static
  // destruction of the host program.
  static Cache *instance = new Cache;
  return *instance;
}

size_t roundUp(size_t size, size_t to) { return (size + to - 1) / to * to; }

/// FX_POISON_ALLOCATIONS=1: every block handed to compiled code is filled
/// with 0xFF bytes (a NaN in every f32 lane) first. Fresh pages from the
/// kernel are zero, so code that reads a temporary it never wrote (a pad
/// border left unfilled) would otherwise pass a single-run test: poisoned,
/// it turns the output into NaNs. For tests; it costs a pass over every
/// temporary.
bool poisonAllocations() {
  static const bool poison = [] {
    const char *env = std::getenv("FX_POISON_ALLOCATIONS");
    return env && *env && std::string_view(env) != "0";
  }();
  return poison;
}

void *poisoned(void *block, size_t size) {
  if (block && poisonAllocations())
    std::memset(block, 0xFF, size);
  return block;
}

void *allocateBlock(size_t alignment, size_t size) {
  if (size < kCachedMinSize || alignment > kBlockAlignment) {
    if (alignment <= alignof(std::max_align_t))
      return std::malloc(size);
    return std::aligned_alloc(alignment, roundUp(size, alignment));
  }
  size = roundUp(size, 4096);
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.free.find(size);
    if (it != c.free.end()) {
      void *block = it->second;
      c.free.erase(it);
      c.freeBytes -= size;
      c.live[block] = size;
      return block;
    }
  }
  void *block = std::aligned_alloc(kBlockAlignment, size);
  if (!block)
    return nullptr;
  std::lock_guard<std::mutex> lock(c.mutex);
  c.live[block] = size;
  return block;
}

void *allocate(size_t alignment, size_t size) {
  return poisoned(allocateBlock(alignment, size), size);
}

} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  return allocate(alignof(std::max_align_t), size);
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  return allocate(alignment, size);
}

extern "C" void _mlir_memref_to_llvm_free(void *pointer) {
  if (!pointer)
    return;
  Cache &c = cache();
  std::vector<void *> evicted;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.live.find(pointer);
    if (it != c.live.end()) {
      size_t size = it->second;
      c.live.erase(it);
      if (size > kCacheLimit) {
        evicted.push_back(pointer);
      } else {
        // Over the bound: the largest cached blocks go first.
        while (c.freeBytes + size > kCacheLimit && !c.free.empty()) {
          auto last = std::prev(c.free.end());
          c.freeBytes -= last->first;
          evicted.push_back(last->second);
          c.free.erase(last);
        }
        c.free.emplace(size, pointer);
        c.freeBytes += size;
      }
      pointer = nullptr;
    }
  }
  for (void *block : evicted)
    std::free(block);
  if (pointer)
    std::free(pointer); // a block below the cached size
}

namespace fx::rt {

HostAllocatorStats hostAllocatorStats() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return {c.freeBytes, kCacheLimit, c.live.size()};
}

void releaseCachedHostMemory() {
  Cache &c = cache();
  std::vector<void *> blocks;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto &[size, block] : c.free)
      blocks.push_back(block);
    c.free.clear();
    c.freeBytes = 0;
  }
  for (void *block : blocks)
    std::free(block);
}

} // namespace fx::rt

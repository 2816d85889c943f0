//===- HostAllocatorTest.cpp - the allocator of compiled CPU code ---------===//

#include "fx/Runtime/HostAllocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

using namespace fx::rt;

namespace {

TEST(HostAllocator, LargeBlocksAreReusedBySize) {
  releaseCachedHostMemory();
  size_t size = size_t(1) << 20;
  void *first = _mlir_memref_to_llvm_alloc(size);
  ASSERT_NE(first, nullptr);
  std::memset(first, 1, size); // the whole block is usable
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
  _mlir_memref_to_llvm_free(first);
  EXPECT_GE(hostAllocatorStats().cachedBytes, size);
  // The next request of that size gets the cached block back; one of
  // another size does not.
  void *again = _mlir_memref_to_llvm_alloc(size);
  EXPECT_EQ(again, first);
  void *other = _mlir_memref_to_llvm_alloc(3 * size);
  EXPECT_NE(other, first);
  _mlir_memref_to_llvm_free(again);
  _mlir_memref_to_llvm_free(other);
  releaseCachedHostMemory();
  EXPECT_EQ(hostAllocatorStats().cachedBytes, 0u);
}

TEST(HostAllocator, AlignedAndSmallBlocks) {
  releaseCachedHostMemory();
  // Small blocks go to the C library and are not cached.
  void *small = _mlir_memref_to_llvm_alloc(100);
  ASSERT_NE(small, nullptr);
  _mlir_memref_to_llvm_free(small);
  EXPECT_EQ(hostAllocatorStats().cachedBytes, 0u);
  // Alignments are honored on both paths.
  for (size_t size : {size_t(96), size_t(256) << 10}) {
    void *block = _mlir_memref_to_llvm_aligned_alloc(128, size);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 128, 0u);
    std::memset(block, 0, size);
    _mlir_memref_to_llvm_free(block);
  }
  _mlir_memref_to_llvm_free(nullptr); // a no-op, as free(NULL)
  EXPECT_EQ(hostAllocatorStats().liveBlocks, 0u);
}

TEST(HostAllocator, CacheStaysWithinItsBound) {
  releaseCachedHostMemory();
  size_t limit = hostAllocatorStats().cacheLimit;
  // Blocks of a quarter of the bound each: freeing five keeps at most four.
  size_t size = limit / 4;
  void *blocks[5];
  for (void *&block : blocks) {
    block = _mlir_memref_to_llvm_alloc(size);
    ASSERT_NE(block, nullptr);
  }
  for (void *block : blocks)
    _mlir_memref_to_llvm_free(block);
  EXPECT_LE(hostAllocatorStats().cachedBytes, limit);
  releaseCachedHostMemory();
}

} // namespace

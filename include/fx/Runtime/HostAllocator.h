//===- HostAllocator.h - temporaries of compiled CPU code -------*- C++ -*-===//
//
// The allocation functions CPU code calls for its temporary buffers. The
// names and signatures are MLIR's (finalize-memref-to-llvm with
// use-generic-functions), so compiled code needs no MLIR runtime library.
//
// Large blocks are cached: a model allocates the same temporaries on every
// run, and returning them to the C library let it unmap them (or trim the
// heap), so each run paid a page fault and a page clear per 4 KiB touched.
// Through fxrt-run, mobilenet_v2 spent more time in the kernel than in its
// code (32 ms a run instead of 14 ms). Freed blocks of a size wait for the
// next request of that size, up to a bound on the bytes kept.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_HOSTALLOCATOR_H
#define FX_RUNTIME_HOSTALLOCATOR_H

#include <cstddef>
#include <cstdint>

extern "C" {

/// malloc for compiled code (memref.alloc without an alignment).
void *_mlir_memref_to_llvm_alloc(size_t size);
/// aligned_alloc for compiled code (memref.alloc with an alignment).
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
/// free for what the two above returned.
void _mlir_memref_to_llvm_free(void *pointer);
}

namespace fx::rt {

/// Bytes of freed blocks kept for reuse now, and the bound on them.
struct HostAllocatorStats {
  size_t cachedBytes = 0;
  size_t cacheLimit = 0;
  size_t liveBlocks = 0;
};
HostAllocatorStats hostAllocatorStats();

/// Frees every cached block (blocks in use are not affected).
void releaseCachedHostMemory();

} // namespace fx::rt

#endif // FX_RUNTIME_HOSTALLOCATOR_H

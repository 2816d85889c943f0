//===- MemRefCopy.h - memrefCopy for compiled code --------------*- C++ -*-===//
//
// Functions that code lowered by MLIR calls at run time. The names and
// signatures are fixed by MLIR's lowering of memref.copy (finalize-memref-
// to-llvm), so compiled code needs no MLIR runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_MEMREFCOPY_H
#define FX_RUNTIME_MEMREFCOPY_H

#include <cstdint>

extern "C" {

/// An unranked memref as compiled code passes it: the rank and a pointer to
/// a ranked descriptor {allocated, aligned, offset, sizes[rank],
/// strides[rank]}.
struct FxUnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

/// Copies the elements of `src` into `dst` (same shape, any strides);
/// `elementSize` is in bytes. Called by compiled code for a memref.copy
/// between non-contiguous buffers.
void memrefCopy(int64_t elementSize, FxUnrankedMemRef *src,
                FxUnrankedMemRef *dst);
}

#endif // FX_RUNTIME_MEMREFCOPY_H

//===- Parallel.h - the thread pool of compiled code ------------*- C++ -*-===//
//
// Compiled code runs its parallel loops (scf.forall after fx-cpu-pipeline)
// through fxrtParallelFor, on a thread pool owned by the fx runtime (not
// OpenMP's global state). The pool size is FX_NUM_THREADS or the number of
// hardware threads.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_PARALLEL_H
#define FX_RUNTIME_PARALLEL_H

#include "fx/Runtime/Profile.h"

#include <cstdint>

extern "C" {

// FxParallelBody (Profile.h): the body of a parallel loop, which runs
// iterations [begin, end) with the captured values in `context`.

/// Runs `body` over [0, count) split into one contiguous chunk per worker,
/// the calling thread taking part, and returns when all chunks are done.
/// Nested calls from inside a body run serially.
void fxrtParallelFor(int64_t count, FxParallelBody body, void *context);
}

namespace fx::rt {
/// Threads that fxrtParallelFor uses (workers plus the caller).
int getNumThreads();
/// Sets the number of threads (>= 1) for later fxrtParallelFor calls.
void setNumThreads(int threads);
} // namespace fx::rt

#endif // FX_RUNTIME_PARALLEL_H

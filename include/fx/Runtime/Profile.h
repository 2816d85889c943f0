//===- Profile.h - per-step times of a profiled run -------------*- C++ -*-===//
//
// `--profile` times every step of a run: each dispatch and copy on a Vulkan
// device (GPU timestamps), each parallel loop and the serial code between
// loops on the CPU (host clock). Both report a list of StepTime in the
// order the steps ran.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_PROFILE_H
#define FX_RUNTIME_PROFILE_H

#include <chrono>
#include <string>
#include <vector>

extern "C" {
/// The body of a parallel loop (see Parallel.h).
typedef void (*FxParallelBody)(int64_t begin, int64_t end, void *context);
}

namespace fx::rt {

/// The time of one step of the last profiled run.
struct StepTime {
  /// Vulkan: the kernel's name, or "copy". CPU: the loop's op and source
  /// line, or "serial code".
  std::string name;
  double microseconds = 0;
};

/// One outermost parallel loop of compiled CPU code.
struct LoopEvent {
  FxParallelBody body;
  std::chrono::steady_clock::time_point start, end;
};

/// While `trace` is set on a thread, each outermost fxrtParallelFor that
/// thread calls appends its body and start and end times to it; null stops
/// tracing. (One thread-local pointer test per loop when off.)
void setLoopTrace(std::vector<LoopEvent> *trace);

} // namespace fx::rt

#endif // FX_RUNTIME_PROFILE_H

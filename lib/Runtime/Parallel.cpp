//===- Parallel.cpp - the runtime's thread pool for compiled code ---------===//

#include "fx/Runtime/Parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace {

/// A fixed set of workers that wait for the next parallel loop. The pool
/// runs one loop at a time: a compiled graph issues its loops one after
/// another, but distinct models (or one model) may run on several threads at
/// once. A caller that finds the pool busy runs its whole loop on its own
/// thread rather than waiting: with the cores already taken by the loop in
/// flight, that costs little, and it can never deadlock.
class Pool {
public:
  explicit Pool(int threads) { resize(threads); }
  ~Pool() { stop(); }

  int size() {
    std::lock_guard<std::mutex> lock(mutex);
    return static_cast<int>(workers.size()) + 1;
  }

  void resize(int threads) {
    std::lock_guard<std::mutex> running(runMutex);
    stop();
    std::lock_guard<std::mutex> lock(mutex);
    stopping = false;
    // A new worker has seen every loop issued so far: it must not take the
    // last one (whose body and context are gone) for a new one.
    for (int i = 1; i < std::max(threads, 1); ++i)
      workers.emplace_back([this, i, seen = generation] { work(i, seen); });
  }

  void run(int64_t count, FxParallelBody body, void *context) {
    std::unique_lock<std::mutex> running(runMutex, std::try_to_lock);
    if (!running.owns_lock()) {
      body(0, count, context);
      return;
    }
    std::unique_lock<std::mutex> lock(mutex);
    int chunks = static_cast<int>(
        std::min<int64_t>(count, static_cast<int64_t>(workers.size()) + 1));
    if (chunks <= 1) {
      lock.unlock();
      body(0, count, context);
      return;
    }
    task = {count, chunks, body, context};
    pending = chunks - 1;
    ++generation;
    lock.unlock();
    wake.notify_all();
    runChunk(0);
    lock.lock();
    done.wait(lock, [&] { return pending == 0; });
  }

private:
  struct Task {
    int64_t count = 0;
    int chunks = 0;
    FxParallelBody body = nullptr;
    void *context = nullptr;
  };

  void runChunk(int chunk) {
    int64_t begin = task.count * chunk / task.chunks;
    int64_t end = task.count * (chunk + 1) / task.chunks;
    if (begin < end)
      task.body(begin, end, task.context);
  }

  void work(int index, uint64_t seen) {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      wake.wait(lock, [&] { return stopping || generation != seen; });
      if (stopping)
        return;
      seen = generation;
      if (index >= task.chunks)
        continue;
      lock.unlock();
      runChunk(index);
      lock.lock();
      if (--pending == 0)
        done.notify_one();
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    for (std::thread &t : workers)
      t.join();
    workers.clear();
  }

  /// Held by the caller whose loop the workers run (and by resize).
  std::mutex runMutex;
  /// Guards the task and the counters below.
  std::mutex mutex;
  std::condition_variable wake, done;
  std::vector<std::thread> workers;
  Task task;
  int pending = 0;
  uint64_t generation = 0;
  bool stopping = false;
};

int defaultThreads() {
  if (const char *env = std::getenv("FX_NUM_THREADS"))
    if (int n = std::atoi(env); n > 0)
      return n;
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? static_cast<int>(hw) : 1;
}

Pool &pool() {
  static Pool instance(defaultThreads());
  return instance;
}

/// Set while this thread runs a loop body: nested loops then run serially.
thread_local bool insideParallelLoop = false;

} // namespace

extern "C" void fxrtParallelFor(int64_t count, FxParallelBody body,
                                void *context) {
  if (count <= 0)
    return;
  if (insideParallelLoop) {
    body(0, count, context);
    return;
  }
  struct Guard {
    Guard() { insideParallelLoop = true; }
    ~Guard() { insideParallelLoop = false; }
  };
  // Workers mark themselves through the wrapper below.
  struct Wrapped {
    FxParallelBody body;
    void *context;
  } wrapped{body, context};
  Guard guard;
  pool().run(
      count,
      [](int64_t b, int64_t e, void *ctx) {
        auto *w = static_cast<Wrapped *>(ctx);
        bool outer = insideParallelLoop;
        insideParallelLoop = true;
        w->body(b, e, w->context);
        insideParallelLoop = outer;
      },
      &wrapped);
}

int fx::rt::getNumThreads() { return pool().size(); }

void fx::rt::setNumThreads(int threads) { pool().resize(threads); }

//===- Parallel.cpp - the runtime's thread pool for compiled code ---------===//

#include "fx/Runtime/Parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace {

/// The CPU the calling thread runs on, or -1 where that is not known.
int currentCpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

/// Moves the calling thread, worker `index` of a pool made on CPU
/// `creatorCpu`, onto the index-th CPU after that one among those it may
/// use, then lets it run anywhere again. A new thread starts on its
/// creator's CPU, and the scheduler does not move a thread that ran just
/// now (it counts it as cache-hot) to an idle CPU: a worker and the caller
/// that both poll for each other's chunks could share one CPU for tens of
/// milliseconds. A transformer encoder layer on 2 threads of a 2-CPU Zen
/// 5 VM took 0.68-0.74 ms per call in 23 of 30 processes timed for 10
/// calls (0.20-0.24 in the others, 0.36 on one thread). Not a pinning: the
/// mask is restored at once.
void moveAwayFromCreator(int creatorCpu, int index) {
#if defined(__linux__)
  cpu_set_t allowed;
  if (creatorCpu < 0 || sched_getaffinity(0, sizeof(allowed), &allowed) != 0 ||
      CPU_COUNT(&allowed) < 2)
    return;
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed))
      cpus.push_back(cpu);
  size_t first = std::find(cpus.begin(), cpus.end(), creatorCpu) - cpus.begin();
  if (first == cpus.size())
    return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpus[(first + index) % cpus.size()], &one);
  if (sched_setaffinity(0, sizeof(one), &one) == 0)
    sched_setaffinity(0, sizeof(allowed), &allowed);
#else
  (void)creatorCpu;
  (void)index;
#endif
}

/// A fixed set of workers that wait for the next parallel loop. The pool
/// runs one loop at a time: a compiled graph issues its loops one after
/// another, but distinct models (or one model) may run on several threads at
/// once. A caller that finds the pool busy runs its whole loop on its own
/// thread rather than waiting: with the cores already taken by the loop in
/// flight, that costs little, and it can never deadlock.
///
/// A model issues its loops back to back (mobilenet_v2: about 70 per call,
/// some of 20 us), so handing a loop to a sleeping worker through a futex
/// (about 15 us per loop, measured) would cost more than many of the loops.
/// Workers and the waiting caller therefore spin for a while (kSpin) before
/// they block, as OpenMP runtimes do (KMP_BLOCKTIME, GOMP_SPINCOUNT); a pool
/// left idle longer sleeps and costs nothing.
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
    stopping.store(false);
    // A new worker has seen every loop issued so far: it must not take the
    // last one (whose body and context are gone) for a new one.
    uint64_t seen = generation.load();
    int creatorCpu = currentCpu();
    for (int i = 1; i < std::max(threads, 1); ++i)
      workers.emplace_back([this, i, seen, creatorCpu] {
        moveAwayFromCreator(creatorCpu, i);
        work(i, seen);
      });
  }

  void run(int64_t count, FxParallelBody body, void *context) {
    std::unique_lock<std::mutex> running(runMutex, std::try_to_lock);
    if (!running.owns_lock()) {
      body(0, count, context);
      return;
    }
    int chunks = static_cast<int>(
        std::min<int64_t>(count, static_cast<int64_t>(workers.size()) + 1));
    if (chunks <= 1) {
      running.unlock();
      body(0, count, context);
      return;
    }
    // Every worker acknowledges every loop (those without a chunk at once),
    // so no worker can still be reading `task` when the next loop writes it.
    task = {count, chunks, body, context};
    pending.store(static_cast<int>(workers.size()), std::memory_order_relaxed);
    generation.fetch_add(1, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (sleepers)
        wake.notify_all();
    }
    runChunk(0);
    if (spin([&] { return pending.load(std::memory_order_acquire) == 0; }))
      return;
    std::unique_lock<std::mutex> lock(mutex);
    callerSleeping = true;
    done.wait(lock, [&] { return pending.load() == 0; });
    callerSleeping = false;
  }

private:
  struct Task {
    int64_t count = 0;
    int chunks = 0;
    FxParallelBody body = nullptr;
    void *context = nullptr;
  };

  /// How long a worker or the caller polls before it blocks.
  static constexpr std::chrono::microseconds kSpin{200};

  /// Polls `ready` for up to kSpin: true once it holds. The first polls
  /// only pause the core; later ones yield it to other runnable threads
  /// (an oversubscribed machine, a test run in parallel).
  template <typename Ready> static bool spin(Ready ready) {
    auto start = std::chrono::steady_clock::now();
    for (unsigned i = 0;; ++i) {
      if (ready())
        return true;
      if (i < 1024) {
        cpuRelax();
        continue;
      }
      if ((i & 63) == 0 && std::chrono::steady_clock::now() - start > kSpin)
        return false;
      std::this_thread::yield();
    }
  }

  static void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  void runChunk(int chunk) {
    int64_t begin = task.count * chunk / task.chunks;
    int64_t end = task.count * (chunk + 1) / task.chunks;
    if (begin < end)
      task.body(begin, end, task.context);
  }

  void work(int index, uint64_t seen) {
    while (true) {
      auto issued = [&] {
        return stopping.load(std::memory_order_acquire) ||
               generation.load(std::memory_order_acquire) != seen;
      };
      if (!spin(issued)) {
        std::unique_lock<std::mutex> lock(mutex);
        ++sleepers;
        wake.wait(lock, issued);
        --sleepers;
      }
      if (stopping.load())
        return;
      seen = generation.load(std::memory_order_acquire);
      if (index < task.chunks)
        runChunk(index);
      if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex);
        if (callerSleeping)
          done.notify_one();
      }
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping.store(true);
    }
    wake.notify_all();
    for (std::thread &t : workers)
      t.join();
    workers.clear();
  }

  /// Held by the caller whose loop the workers run (and by resize).
  std::mutex runMutex;
  /// Guards the sleeping flags below and the worker list.
  std::mutex mutex;
  std::condition_variable wake, done;
  std::vector<std::thread> workers;
  /// Written by the caller before it advances `generation`; read by the
  /// workers after they see the new generation.
  Task task;
  std::atomic<int> pending{0};
  std::atomic<uint64_t> generation{0};
  std::atomic<bool> stopping{false};
  int sleepers = 0;
  bool callerSleeping = false;
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

/// Where this thread's outermost loops are recorded (profiling), or null.
thread_local std::vector<fx::rt::LoopEvent> *loopTrace = nullptr;

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
  std::vector<fx::rt::LoopEvent> *trace = loopTrace;
  auto start = trace ? std::chrono::steady_clock::now()
                     : std::chrono::steady_clock::time_point();
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
  if (trace)
    trace->push_back({body, start, std::chrono::steady_clock::now()});
}

void fx::rt::setLoopTrace(std::vector<LoopEvent> *trace) { loopTrace = trace; }

int fx::rt::getNumThreads() { return pool().size(); }

void fx::rt::setNumThreads(int threads) { pool().resize(threads); }

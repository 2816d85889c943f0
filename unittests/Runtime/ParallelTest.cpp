//===- ParallelTest.cpp - the runtime's thread pool -----------------------===//

#include "fx/Runtime/Parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

struct Hits {
  std::vector<std::atomic<int>> counts;
  explicit Hits(size_t n) : counts(n) {}
};

void countRange(int64_t begin, int64_t end, void *ctx) {
  auto *hits = static_cast<Hits *>(ctx);
  for (int64_t i = begin; i < end; ++i)
    ++hits->counts[i];
}

TEST(ParallelTest, EveryIterationRunsOnce) {
  for (int threads : {1, 2, 3}) {
    fx::rt::setNumThreads(threads);
    EXPECT_EQ(fx::rt::getNumThreads(), threads);
    for (int64_t n : {0, 1, 2, 5, 1000}) {
      Hits hits(n);
      fxrtParallelFor(n, countRange, &hits);
      for (int64_t i = 0; i < n; ++i)
        EXPECT_EQ(hits.counts[i].load(), 1) << "n=" << n << " i=" << i;
    }
  }
}

void nested(int64_t begin, int64_t end, void *ctx) {
  // A parallel loop inside a body runs serially on the calling thread.
  for (int64_t i = begin; i < end; ++i)
    fxrtParallelFor(1, countRange, static_cast<Hits *>(ctx));
}

TEST(ParallelTest, NestedLoopsRunSerially) {
  fx::rt::setNumThreads(2);
  Hits hits(1);
  fxrtParallelFor(8, nested, &hits);
  EXPECT_EQ(hits.counts[0].load(), 8);
}

TEST(ParallelTest, ManyLoopsInARow) {
  fx::rt::setNumThreads(2);
  Hits hits(64);
  for (int round = 0; round < 200; ++round)
    fxrtParallelFor(64, countRange, &hits);
  for (auto &c : hits.counts)
    EXPECT_EQ(c.load(), 200);
}

TEST(ParallelTest, LoopsAfterIdlePauses) {
  // Workers spin for a while after a loop, then sleep: loops issued after
  // pauses longer than the spin (a model called now and then) must wake
  // them, and loops in quick succession must find them spinning.
  fx::rt::setNumThreads(3);
  Hits hits(30);
  for (int round = 0; round < 20; ++round) {
    if (round % 2 == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    fxrtParallelFor(30, countRange, &hits);
  }
  for (auto &c : hits.counts)
    EXPECT_EQ(c.load(), 20);
}

void slowChunk(int64_t begin, int64_t end, void *ctx) {
  // The caller's chunk ends first; the worker's outlasts the caller's spin,
  // so the caller blocks until the worker wakes it.
  if (begin > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  countRange(begin, end, ctx);
}

TEST(ParallelTest, CallerWaitsForASlowWorker) {
  fx::rt::setNumThreads(2);
  for (int round = 0; round < 5; ++round) {
    Hits hits(10);
    fxrtParallelFor(10, slowChunk, &hits);
    for (auto &c : hits.counts)
      EXPECT_EQ(c.load(), 1);
  }
}

TEST(ParallelTest, ConcurrentCallers) {
  // Several threads issuing loops at once (distinct models run from their
  // own threads): every iteration of every loop runs exactly once, and no
  // caller waits for another's loop forever.
  for (int threads : {1, 2, 4}) {
    fx::rt::setNumThreads(threads);
    constexpr int kCallers = 4, kRounds = 300, kSize = 97;
    std::vector<Hits> hits;
    hits.reserve(kCallers);
    for (int c = 0; c < kCallers; ++c)
      hits.emplace_back(kSize);
    std::vector<std::thread> callers;
    for (int c = 0; c < kCallers; ++c)
      callers.emplace_back([&hits, c] {
        for (int round = 0; round < kRounds; ++round)
          fxrtParallelFor(kSize, countRange, &hits[c]);
      });
    for (std::thread &t : callers)
      t.join();
    for (int c = 0; c < kCallers; ++c)
      for (int64_t i = 0; i < kSize; ++i)
        ASSERT_EQ(hits[c].counts[i].load(), kRounds)
            << "threads=" << threads << " caller=" << c << " i=" << i;
  }
}

} // namespace

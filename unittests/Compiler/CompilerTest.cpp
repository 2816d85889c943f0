//===- CompilerTest.cpp - the C++ embedding API ---------------------------===//
//
// fx::Compiler and the rt::Model it returns, as an application uses them:
// compile IR from a string or file (CPU, and Vulkan where a device exists),
// run on wrapped user memory, bind parameters, the compile cache, and every
// error path returning a message rather than aborting.
//
//===----------------------------------------------------------------------===//

#include "fx/Compiler/Compiler.h"
#include "fx/Runtime/Runner.h"
#include "fx/Runtime/Safetensors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>

using namespace fx;
using fx::rt::DType;
using fx::rt::Tensor;

#define EXPECT_CONTAINS(text, part)                                            \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                   \
      << "'" << (text) << "' lacks '" << (part) << "'"

namespace {

/// y = relu(x @ w) + b: x is an input, w and b parameters.
const char *kLinear = R"mlir(
func.func @linear(%x: tensor<2x3xf32>,
                  %w: tensor<3x2xf32> {fx.param = "fc.weight"},
                  %b: tensor<2xf32> {fx.param = "fc.bias"}) -> tensor<2x2xf32> {
  %0 = fx.mm %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = fx.relu %0 : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = fx.add %1, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %2 : tensor<2x2xf32>
}
)mlir";

/// A fresh directory, removed with its contents.
class TempDir {
public:
  TempDir() {
    std::string pattern = "/tmp/fx-compiler-test-XXXXXX";
    dir = mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() { (void)std::system(("rm -rf '" + dir + "'").c_str()); }
  std::string path(const std::string &name) const { return dir + "/" + name; }
  const std::string &str() const { return dir; }

private:
  std::string dir;
};

Tensor tensor(DType dtype, std::vector<int64_t> shape,
              std::vector<float> values) {
  Tensor t = Tensor::allocate(dtype, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    t.dataAs<float>()[i] = values[i];
  return t;
}

std::vector<float> values(const Tensor &t) {
  return std::vector<float>(t.dataAs<float>(), t.dataAs<float>() + t.numel());
}

/// Binds w and b of kLinear.
void bindLinear(rt::Model &model, float scale = 1) {
  ASSERT_TRUE(
      model
          .setParameter("fc.weight",
                        tensor(DType::F32, {3, 2}, {scale, 0, 0, scale, -1, 1}))
          .isOk());
  ASSERT_TRUE(
      model.setParameter("fc.bias", tensor(DType::F32, {2}, {10, 20})).isOk());
}

bool haveVulkan() {
  return rt::vk::Context::listDevices().isOk() &&
         !rt::vk::Context::listDevices().value().empty();
}

class CompilerTest : public ::testing::TestWithParam<const char *> {
protected:
  CompilerOptions options() {
    CompilerOptions o;
    o.target = GetParam();
    return o;
  }
  void SetUp() override {
    if (std::string(GetParam()) == "vulkan" && !haveVulkan())
      GTEST_SKIP() << "no Vulkan device";
  }
};

TEST_P(CompilerTest, CompilesAndRunsOnWrappedMemory) {
  Compiler compiler(options());
  auto model = compiler.compileString(kLinear);
  ASSERT_TRUE(model.isOk()) << model.message();
  rt::Model &m = *model.value();
  EXPECT_EQ(m.name(), "linear");
  EXPECT_EQ(m.target(), GetParam());
  ASSERT_EQ(m.inputs().size(), 1u);
  EXPECT_EQ(m.inputs()[0].str(), "f32[2, 3]");
  EXPECT_EQ(m.unboundParameters(),
            (std::vector<std::string>{"fc.weight", "fc.bias"}));
  bindLinear(m);
  EXPECT_TRUE(m.unboundParameters().empty());

  // User memory, wrapped without a copy; outputs into caller memory too.
  float x[6] = {1, 2, 3, -4, -5, -6};
  float y[4] = {0, 0, 0, 0};
  std::vector<Tensor> outputs = {Tensor::wrap(y, DType::F32, {2, 2})};
  rt::Status s = m.runInto({Tensor::wrap(x, DType::F32, {2, 3})}, outputs);
  ASSERT_TRUE(s.isOk()) << s.message();
  // x @ w = [[1-3, 2+3], [-4+6, -5-6]] = [[-2, 5], [2, -11]]
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{10, 25, 12, 20}));

  auto returned = m.run({Tensor::wrap(x, DType::F32, {2, 3})});
  ASSERT_TRUE(returned.isOk()) << returned.message();
  EXPECT_EQ(values(returned.value()[0]), (std::vector<float>{10, 25, 12, 20}));
}

TEST_P(CompilerTest, ModelsLoadedTogetherRunTheirOwnCode) {
  // Two models with the same entry name alive at once, the first loaded
  // before the second was compiled: each must run its own code. (The CPU
  // loader once closed the memfd it dlopen'ed; the next model's memfd got
  // the same /proc/self/fd path and dlopen returned the first library.)
  const char *add = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %y = fx.add %x, %x : (tensor<4xf32>, tensor<4xf32>) "
                    "-> tensor<4xf32>\n  return %y : tensor<4xf32>\n}\n";
  const char *mul = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %y = fx.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) "
                    "-> tensor<4xf32>\n  return %y : tensor<4xf32>\n}\n";
  Compiler compiler(options());
  auto doubled = compiler.compileString(add);
  ASSERT_TRUE(doubled.isOk()) << doubled.message();
  auto squared = compiler.compileString(mul);
  ASSERT_TRUE(squared.isOk()) << squared.message();
  Tensor x = tensor(DType::F32, {4}, {1, 2, 3, 4});
  auto a = doubled.value()->run({x});
  auto b = squared.value()->run({x});
  ASSERT_TRUE(a.isOk() && b.isOk());
  EXPECT_EQ(values(a.value()[0]), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(values(b.value()[0]), (std::vector<float>{1, 4, 9, 16}));
}

TEST_P(CompilerTest, RebindingAParameterChangesTheResult) {
  // Parameters stay resident between runs (on Vulkan, on the device); a new
  // tensor for one is picked up by the next run.
  Compiler compiler(options());
  auto model = compiler.compileString(kLinear);
  ASSERT_TRUE(model.isOk()) << model.message();
  rt::Model &m = *model.value();
  bindLinear(m);
  Tensor x = tensor(DType::F32, {2, 3}, {1, 2, 3, -4, -5, -6});
  for (int i = 0; i < 2; ++i) {
    auto y = m.run({x});
    ASSERT_TRUE(y.isOk()) << y.message();
    EXPECT_EQ(values(y.value()[0]), (std::vector<float>{10, 25, 12, 20}));
  }
  bindLinear(m, /*scale=*/2);
  auto y = m.run({x});
  ASSERT_TRUE(y.isOk()) << y.message();
  // x @ w = [[2-3, 4+3], [-8+6, -10-6]] = [[-1, 7], [-2, -16]]
  EXPECT_EQ(values(y.value()[0]), (std::vector<float>{10, 27, 10, 20}));
}

TEST_P(CompilerTest, ParameterComputationsFollowRebinding) {
  // w @ w depends on the parameter alone: CPU code computes it in its
  // prepare function, a Vulkan program in a prepare step; both run once
  // per binding, again after the parameter changes.
  const char *square = R"mlir(
func.func @square(%x: tensor<2x3xf32>, %w: tensor<3x3xf32> {fx.param = "w"}) -> tensor<2x3xf32> {
  %0 = fx.mm %w, %w : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %1 = fx.mm %x, %0 : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
)mlir";
  Compiler compiler(options());
  auto model = compiler.compileString(square);
  ASSERT_TRUE(model.isOk()) << model.message();
  rt::Model &m = *model.value();
  Tensor x = tensor(DType::F32, {2, 3}, {1, 2, 3, -1, 0, 2});
  // Binds w, then runs twice.
  auto bindAndRun = [&](std::vector<float> w, std::vector<float> expected) {
    ASSERT_TRUE(m.setParameter("w", tensor(DType::F32, {3, 3}, w)).isOk());
    for (int i = 0; i < 2; ++i) {
      auto y = m.run({x});
      ASSERT_TRUE(y.isOk()) << y.message();
      EXPECT_EQ(values(y.value()[0]), expected);
    }
  };
  // w = 2 I: w @ w = 4 I.
  bindAndRun({2, 0, 0, 0, 2, 0, 0, 0, 2}, {4, 8, 12, -4, 0, 8});
  // w = the cyclic shift P (columns 0 -> 1 -> 2 -> 0): w @ w = P^2, and
  // x @ P^2 moves column j of x to column j + 2.
  bindAndRun({0, 1, 0, 0, 0, 1, 1, 0, 0}, {2, 3, 1, 0, 2, -1});
}

TEST_P(CompilerTest, BindsWeightsFromSafetensors) {
  TempDir dir;
  std::vector<std::pair<std::string, Tensor>> weights = {
      {"fc.weight", tensor(DType::F32, {3, 2}, {1, 0, 0, 1, -1, 1})},
      {"fc.bias", tensor(DType::F32, {2}, {10, 20})}};
  ASSERT_TRUE(rt::writeSafetensors(dir.path("w.safetensors"), weights).isOk());
  std::vector<std::pair<std::string, Tensor>> partial = {
      {"fc.weight", weights[0].second}};
  ASSERT_TRUE(
      rt::writeSafetensors(dir.path("partial.safetensors"), partial).isOk());
  std::vector<std::pair<std::string, Tensor>> wrong = {
      {"fc.weight", tensor(DType::F32, {2, 3}, {})},
      {"fc.bias", weights[1].second}};
  ASSERT_TRUE(
      rt::writeSafetensors(dir.path("wrong.safetensors"), wrong).isOk());

  Compiler compiler(options());
  auto model = compiler.compileString(kLinear);
  ASSERT_TRUE(model.isOk()) << model.message();
  rt::Model &m = *model.value();
  Tensor x = tensor(DType::F32, {2, 3}, {1, 2, 3, -4, -5, -6});
  EXPECT_CONTAINS(m.run({x}).message(),
                  "parameter 'fc.weight' is not bound (bind the weights "
                  "first)");
  EXPECT_CONTAINS(m.bindWeights(dir.path("none.safetensors")).message(),
                  "none.safetensors: cannot open");
  EXPECT_CONTAINS(m.bindWeights(dir.path("partial.safetensors")).message(),
                  "parameter 'fc.bias' is not in");
  EXPECT_CONTAINS(m.bindWeights(dir.path("wrong.safetensors")).message(),
                  "parameter 'fc.weight' in");
  // A failed bind binds nothing.
  EXPECT_EQ(m.unboundParameters().size(), 2u);
  rt::Status s = m.bindWeights(dir.path("w.safetensors"));
  ASSERT_TRUE(s.isOk()) << s.message();
  auto y = m.run({x});
  ASSERT_TRUE(y.isOk()) << y.message();
  EXPECT_EQ(values(y.value()[0]), (std::vector<float>{10, 25, 12, 20}));
}

TEST_P(CompilerTest, RunErrorsNameTheInput) {
  Compiler compiler(options());
  auto model = compiler.compileString(kLinear);
  ASSERT_TRUE(model.isOk()) << model.message();
  rt::Model &m = *model.value();
  bindLinear(m);
  EXPECT_CONTAINS(m.run({}).message(),
                  "expected 1 inputs (besides parameters), got 0");
  EXPECT_CONTAINS(m.run({tensor(DType::F32, {3, 2}, {})}).message(), "input 0");
  EXPECT_CONTAINS(m.run({Tensor::allocate(DType::F16, {2, 3})}).message(),
                  "input 0");
  EXPECT_CONTAINS(
      m.setParameter("fc.weight", tensor(DType::F32, {2}, {})).message(),
      "parameter 'fc.weight'");
  EXPECT_CONTAINS(
      m.setParameter("fc.nope", tensor(DType::F32, {2}, {})).message(),
      "'linear' has no parameter named 'fc.nope'");
  std::vector<Tensor> outputs = {Tensor::allocate(DType::F32, {4})};
  EXPECT_CONTAINS(
      m.runInto({tensor(DType::F32, {2, 3}, {})}, outputs).message(),
      "output 0");
}

/// Graphs large enough that CPU code splits its loops over the thread pool.
const char *kStressGraphs[] = {
    R"mlir(
func.func @rows(%x: tensor<128x512xf32>) -> tensor<128x512xf32> {
  %0 = fx.softmax %x {dim = 1 : i64} : (tensor<128x512xf32>) -> tensor<128x512xf32>
  %1 = fx.sigmoid %0 : (tensor<128x512xf32>) -> tensor<128x512xf32>
  return %1 : tensor<128x512xf32>
})mlir",
    R"mlir(
func.func @mm(%a: tensor<96x80xf32>, %b: tensor<80x112xf32>) -> tensor<96x112xf32> {
  %0 = fx.mm %a, %b : (tensor<96x80xf32>, tensor<80x112xf32>) -> tensor<96x112xf32>
  %1 = fx.relu %0 : (tensor<96x112xf32>) -> tensor<96x112xf32>
  return %1 : tensor<96x112xf32>
})mlir",
    R"mlir(
func.func @sum(%x: tensor<256x300xf32>) -> tensor<300xf32> {
  %0 = fx.exp %x : (tensor<256x300xf32>) -> tensor<256x300xf32>
  %1 = fx.sum %0 {dim = array<i64: 0>} : (tensor<256x300xf32>) -> tensor<300xf32>
  return %1 : tensor<300xf32>
})mlir"};

// Threads x models x calls: distinct models from their own threads and one
// model from several threads at once, every output bit-identical to the
// single-threaded run's (run under ThreadSanitizer once: see the note in
// docs/Testing.md).
TEST_P(CompilerTest, ConcurrentRunsMatchSingleThreadedRuns) {
  Compiler compiler(options());
  struct Case {
    std::unique_ptr<rt::Model> model;
    std::vector<Tensor> inputs;
    std::vector<Tensor> expected;
  };
  std::vector<Case> cases;
  std::mt19937_64 rng(7);
  for (const char *graph : kStressGraphs) {
    auto model = compiler.compileString(graph);
    ASSERT_TRUE(model.isOk()) << model.message();
    Case c;
    c.model = model.take();
    for (const rt::TensorSpec &spec : c.model->signature().inputs) {
      auto input = rt::makeRandom(spec, rng);
      ASSERT_TRUE(input.isOk());
      c.inputs.push_back(input.take());
    }
    auto expected = c.model->run(c.inputs);
    ASSERT_TRUE(expected.isOk()) << expected.message();
    c.expected = expected.take();
    cases.push_back(std::move(c));
  }
  auto same = [](const Tensor &a, const Tensor &b) {
    return a.byteSize() == b.byteSize() &&
           std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
  };
  constexpr int kThreadsPerModel = 3, kCalls = 12;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (size_t m = 0; m < cases.size(); ++m)
    for (int t = 0; t < kThreadsPerModel; ++t)
      threads.emplace_back([&, m, t] {
        Case &c = cases[m];
        for (int call = 0; call < kCalls; ++call) {
          // Half the calls allocate their outputs, half write into ours.
          if ((call + t) % 2) {
            auto outputs = c.model->run(c.inputs);
            if (!outputs.isOk() || !same(outputs.value()[0], c.expected[0]))
              ++failures;
          } else {
            std::vector<Tensor> outputs = {
                Tensor::allocate(c.expected[0].dtype(), c.expected[0].shape())};
            if (!c.model->runInto(c.inputs, outputs).isOk() ||
                !same(outputs[0], c.expected[0]))
              ++failures;
          }
        }
      });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, CompilerTest,
                         ::testing::Values("cpu", "vulkan"));

/// Whether one of the last compile's notes contains `text`.
static bool hasNote(const CompileStats &stats, const std::string &text) {
  return std::any_of(stats.notes.begin(), stats.notes.end(),
                     [&](const std::string &note) {
                       return note.find(text) != std::string::npos;
                     });
}

TEST(CompilerErrors, BadIRHasALocation) {
  Compiler compiler;
  auto model = compiler.compileString("func.func @f(%x: tensor<2xf32>) {\n"
                                      "  %0 = fx.frobnicate %x\n}\n",
                                      "bad.mlir");
  ASSERT_FALSE(model.isOk());
  EXPECT_CONTAINS(model.message(), "bad.mlir:2:");
  model = compiler.compileString(
      "func.func @f(%x: tensor<2xf32>, %y: tensor<3xf32>) -> tensor<2xf32> {\n"
      "  %0 = fx.add %x, %y : (tensor<2xf32>, tensor<3xf32>) -> "
      "tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
      "shapes.mlir");
  ASSERT_FALSE(model.isOk());
  EXPECT_CONTAINS(model.message(), "shapes.mlir:2:");
}

TEST(CompilerErrors, FilesTargetsEntriesAndShapes) {
  EXPECT_CONTAINS(Compiler().compileFile("/nonexistent/m.mlir").message(),
                  "/nonexistent/m.mlir: cannot open");
  CompilerOptions tpu;
  tpu.target = "tpu";
  EXPECT_CONTAINS(Compiler(tpu).compileString(kLinear).message(),
                  "unknown target 'tpu' (expected cpu, vulkan or all)");
  CompilerOptions entry;
  entry.entry = "nope";
  EXPECT_CONTAINS(Compiler(entry).compileString(kLinear).message(),
                  "no public function named 'nope'");
  const char *dynamic =
      "func.func @d(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
      "  %0 = fx.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>\n"
      "  return %0 : tensor<?x4xf32>\n}\n";
  EXPECT_CONTAINS(Compiler().compileString(dynamic).message(),
                  "argument 0 of 'd' has the dynamic type "
                  "'tensor<?x4xf32>'; CPU code needs static shapes: give the "
                  "shapes to compile for (CompilerOptions::argumentShapes");
  CompilerOptions shaped;
  shaped.argumentShapes = {{3, 4}};
  auto model = Compiler(shaped).compileString(dynamic);
  ASSERT_TRUE(model.isOk()) << model.message();
  EXPECT_EQ(model.value()->inputs()[0].str(), "f32[3, 4]");
  shaped.argumentShapes = {{3, 5}};
  EXPECT_CONTAINS(Compiler(shaped).compileString(dynamic).message(),
                  "is declared 'tensor<?x4xf32>' but the given tensor has "
                  "shape [3, 5]");
  shaped.argumentShapes = {{3, 4}, {1}};
  EXPECT_CONTAINS(Compiler(shaped).compileString(dynamic).message(),
                  "2 argument shapes were given but 'd' has 1 arguments");
}

TEST(CompilerModes, ParseAndName) {
  for (const char *name : {"default", "reduce-overhead", "max-autotune"}) {
    auto mode = parseMode(name);
    ASSERT_TRUE(mode.isOk());
    EXPECT_STREQ(modeName(mode.value()), name);
  }
  EXPECT_CONTAINS(parseMode("turbo").message(),
                  "unknown mode 'turbo' (expected default, reduce-overhead "
                  "or max-autotune)");
  CompilerOptions options;
  options.mode = CompileMode::ReduceOverhead;
  Compiler compiler(options);
  ASSERT_TRUE(compiler.compileString(kLinear).isOk());
  EXPECT_TRUE(hasNote(compiler.lastCompile(), "reduce-overhead"));
  // The CPU code's note on how it runs the batch comes with it.
  EXPECT_TRUE(hasNote(compiler.lastCompile(), "--sub-batch auto"));
}

TEST(CompilerModes, MaxAutotuneTimesVariantsOnTheDevice) {
  if (!haveVulkan())
    GTEST_SKIP() << "no Vulkan device";
  CompilerOptions options;
  options.target = "vulkan";
  options.mode = CompileMode::MaxAutotune;
  Compiler compiler(options);
  auto model = compiler.compileString(kLinear);
  ASSERT_TRUE(model.isOk()) << model.message();
  const std::vector<std::string> &notes = compiler.lastCompile().notes;
  ASSERT_EQ(notes.size(), 5u);
  EXPECT_CONTAINS(notes[0], "max-autotune: workgroup 256, row workgroup 512");
  EXPECT_CONTAINS(notes[4], "max-autotune chose workgroup ");
  bindLinear(*model.value());
  auto y =
      model.value()->run({tensor(DType::F32, {2, 3}, {1, 2, 3, -4, -5, -6})});
  ASSERT_TRUE(y.isOk()) << y.message();
  EXPECT_EQ(values(y.value()[0]), (std::vector<float>{10, 25, 12, 20}));
}

TEST(CompileCache, SecondCompileIsAHit) {
  TempDir dir;
  CompilerOptions options;
  options.cacheDir = dir.path("cache");
  Compiler compiler(options);
  ASSERT_TRUE(compiler.compileString(kLinear).isOk());
  CompileStats miss = compiler.lastCompile();
  EXPECT_FALSE(miss.cacheHit);
  EXPECT_EQ(miss.cacheKey.size(), 32u);
  std::string cached = options.cacheDir + "/" + miss.cacheKey + ".fxa";
  EXPECT_TRUE(rt::readArtifact(cached).isOk());

  // The same IR, even spelled differently, is a hit, from another compiler
  // object too.
  std::string respelled = std::string("// a comment\n") + kLinear;
  Compiler again(options);
  auto model = again.compileString(respelled);
  ASSERT_TRUE(model.isOk()) << model.message();
  CompileStats hit = again.lastCompile();
  EXPECT_TRUE(hit.cacheHit);
  EXPECT_EQ(hit.cacheKey, miss.cacheKey);
  EXPECT_LT(hit.milliseconds, miss.milliseconds);
  std::printf("compile cache: miss %.1f ms, hit %.1f ms\n", miss.milliseconds,
              hit.milliseconds);
  bindLinear(*model.value());
  auto y =
      model.value()->run({tensor(DType::F32, {2, 3}, {1, 2, 3, -4, -5, -6})});
  ASSERT_TRUE(y.isOk()) << y.message();
  EXPECT_EQ(values(y.value()[0]), (std::vector<float>{10, 25, 12, 20}));

  // Other options or IR: other keys.
  CompilerOptions noFusion = options;
  noFusion.fusion = false;
  Compiler other(noFusion);
  ASSERT_TRUE(other.compileString(kLinear).isOk());
  EXPECT_FALSE(other.lastCompile().cacheHit);
  EXPECT_NE(other.lastCompile().cacheKey, miss.cacheKey);
  std::string changed = kLinear;
  changed.replace(changed.find("fx.relu"), 7, "fx.tanh");
  ASSERT_TRUE(compiler.compileString(changed).isOk());
  EXPECT_FALSE(compiler.lastCompile().cacheHit);

  // A damaged cache file is compiled again and replaced.
  {
    std::ofstream out(cached, std::ios::binary | std::ios::trunc);
    out << "garbage";
  }
  ASSERT_TRUE(compiler.compileString(kLinear).isOk());
  EXPECT_FALSE(compiler.lastCompile().cacheHit);
  EXPECT_TRUE(hasNote(compiler.lastCompile(), "is unusable and was replaced"));
  EXPECT_TRUE(rt::readArtifact(cached).isOk());
  ASSERT_TRUE(compiler.compileString(kLinear).isOk());
  EXPECT_TRUE(compiler.lastCompile().cacheHit);
}

TEST(CompileCache, UnwritableCacheDirectoryIsAnError) {
  CompilerOptions options;
  options.cacheDir = "/proc/fx-cache";
  EXPECT_CONTAINS(Compiler(options).compileString(kLinear).message(),
                  "cannot create the cache directory /proc/fx-cache");
}

TEST(CompilerDump, WritesTheIntermediateForms) {
  TempDir dir;
  CompilerOptions options;
  options.dumpDir = dir.path("dump");
  Compiler compiler(options);
  ASSERT_TRUE(compiler.compileString(kLinear).isOk());
  for (const char *file :
       {"linear.input.mlir", "linear.ll", "linear.s", "linear.dispatch.dot"}) {
    std::ifstream in(options.dumpDir + "/" + file);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    EXPECT_FALSE(text.empty()) << file;
  }
}

/// keepDispatchGraph: the CPU code's dispatch regions as a DOT digraph in
/// the compile's statistics, and no cache hit that would leave it empty.
TEST(CompilerDump, KeepsTheDispatchGraph) {
  TempDir dir;
  CompilerOptions options;
  options.keepDispatchGraph = true;
  options.cacheDir = dir.path("cache");
  Compiler compiler(options);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(compiler.compileString(kLinear).isOk());
    const std::string &graph = compiler.lastCompile().dispatchGraph;
    EXPECT_EQ(graph.rfind("digraph \"linear\" {", 0), 0u) << graph;
    EXPECT_NE(graph.find("region 0"), std::string::npos) << graph;
    EXPECT_FALSE(compiler.lastCompile().cacheHit);
  }
}

/// A linear layer with a short k and 16 rows: the CPU transposes its weight
/// once, in a prepare function (fx-hoist-parameter-computations).
const char *kPreparedLinear = R"mlir(
func.func @lin(%x: tensor<16x4xf32>,
               %w: tensor<8x4xf32> {fx.param = "fc.weight"}) -> tensor<16x8xf32> {
  %0 = fx.linear %x, %w : (tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
)mlir";

/// x @ w^T on the host.
std::vector<float> linearReference(const Tensor &x, const Tensor &w) {
  std::vector<float> y(16 * 8, 0);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 4; ++k)
        y[i * 8 + j] +=
            x.dataAs<float>()[i * 4 + k] * w.dataAs<float>()[j * 4 + k];
  return y;
}

TEST(CompilerPreparedParameters, ComputedOncePerBindingAndAgainOnRebind) {
  Compiler compiler;
  auto artifact = compiler.compileStringToArtifact(kPreparedLinear);
  ASSERT_TRUE(artifact.isOk()) << artifact.message();
  const rt::ArtifactEntry &entry = artifact.value().entries.at(0);
  ASSERT_TRUE(entry.cpu && entry.cpu->prepare);
  EXPECT_EQ(entry.cpu->prepare->symbol, "fxrt_entry_lin__prepare");
  EXPECT_EQ(entry.cpu->prepare->arguments, (std::vector<int64_t>{1}));
  ASSERT_EQ(entry.cpu->prepare->results.size(), 1u);
  EXPECT_EQ(entry.cpu->prepare->results[0].str(), "f32[4, 8]");
  // The public signature does not show the prepared parameter.
  EXPECT_EQ(entry.signature.inputs.size(), 2u);

  // Through an artifact file: the prepare function survives writing and
  // reading.
  TempDir dir;
  ASSERT_TRUE(rt::writeArtifact(dir.path("m.fxa"), artifact.value()).isOk());
  auto loaded = rt::Model::loadFile(dir.path("m.fxa"), {});
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  rt::Model &m = *loaded.value();
  Tensor x = Tensor::allocate(DType::F32, {16, 4});
  Tensor w = Tensor::allocate(DType::F32, {8, 4});
  for (int i = 0; i < 64; ++i)
    x.dataAs<float>()[i] = float(i % 7) - 3;
  for (int i = 0; i < 32; ++i)
    w.dataAs<float>()[i] = float(i % 5) * 0.5f - 1;
  ASSERT_TRUE(m.setParameter("fc.weight", w).isOk());
  for (int run = 0; run < 2; ++run) {
    auto y = m.run({x});
    ASSERT_TRUE(y.isOk()) << y.message();
    EXPECT_EQ(values(y.value()[0]), linearReference(x, w)) << "run " << run;
  }
  // The weight changed in place and bound again: the prepared transpose is
  // computed again, not reused.
  for (int i = 0; i < 32; ++i)
    w.dataAs<float>()[i] *= -2;
  ASSERT_TRUE(m.setParameter("fc.weight", w).isOk());
  auto y = m.run({x});
  ASSERT_TRUE(y.isOk()) << y.message();
  EXPECT_EQ(values(y.value()[0]), linearReference(x, w));
  // Another tensor bound: likewise.
  Tensor w2 = Tensor::allocate(DType::F32, {8, 4});
  for (int i = 0; i < 32; ++i)
    w2.dataAs<float>()[i] = float(i);
  ASSERT_TRUE(m.setParameter("fc.weight", w2).isOk());
  y = m.run({x});
  ASSERT_TRUE(y.isOk()) << y.message();
  EXPECT_EQ(values(y.value()[0]), linearReference(x, w2));
}

TEST(CompilerPreparedParameters, ArtifactReaderRefusesABadPrepareFunction) {
  Compiler compiler;
  auto artifact = compiler.compileStringToArtifact(kPreparedLinear);
  ASSERT_TRUE(artifact.isOk()) << artifact.message();
  TempDir dir;
  // Input 0 is x, not a parameter: a prepare function may not read it.
  rt::Artifact bad = artifact.value();
  bad.entries[0].cpu->prepare->arguments = {0};
  EXPECT_CONTAINS(rt::writeArtifact(dir.path("bad.fxa"), bad).message(),
                  "prepare function reads input 0, which is not a parameter");
  bad = artifact.value();
  bad.entries[0].cpu->prepare->symbol = "fxrt_entry_nothing";
  auto model = rt::Model::load(bad, {});
  EXPECT_CONTAINS(model.message(),
                  "the CPU code has no prepare function 'fxrt_entry_nothing'");
}

TEST(CompilerArtifacts, SavedArtifactRunsThroughTheRuntime) {
  TempDir dir;
  Compiler compiler;
  auto artifact = compiler.compileStringToArtifact(kLinear);
  ASSERT_TRUE(artifact.isOk()) << artifact.message();
  ASSERT_TRUE(rt::writeArtifact(dir.path("m.fxa"), artifact.value()).isOk());
  auto model = rt::Model::loadFile(dir.path("m.fxa"), {});
  ASSERT_TRUE(model.isOk()) << model.message();
  bindLinear(*model.value());
  auto y =
      model.value()->run({tensor(DType::F32, {2, 3}, {1, 2, 3, -4, -5, -6})});
  ASSERT_TRUE(y.isOk()) << y.message();
  EXPECT_EQ(values(y.value()[0]), (std::vector<float>{10, 25, 12, 20}));
  rt::ModelOptions vulkan;
  vulkan.target = "vulkan";
  EXPECT_CONTAINS(rt::Model::loadFile(dir.path("m.fxa"), vulkan).message(),
                  "entry 'linear' has no vulkan code (it has: cpu;");
}

} // namespace

namespace {

/// A function with a dynamic batch: CPU code needs a size, a Vulkan
/// program takes any.
const char *kDynamic = R"mlir(
func.func @scale(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = fx.exp %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = fx.neg %0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}
func.func @other(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = fx.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)mlir";

// What fx-run and fx-compile do through the API: parse once, read the
// declared entries, compile each with its own shapes.
TEST(CompilerSteps, ParseDeclareAndCompileEntries) {
  CompilerOptions options;
  options.target = "all";
  options.vulkanTarget = "lavapipe"; // a named target needs no device
  Compiler compiler(options);
  auto source = compiler.parseString(kDynamic, "two.mlir");
  ASSERT_TRUE(source.isOk()) << source.message();
  EXPECT_EQ(source.value()->entryPoints(),
            (std::vector<std::string>{"scale", "other"}));

  auto declared = compiler.declaredEntry(*source.value(), "scale");
  ASSERT_TRUE(declared.isOk()) << declared.message();
  EXPECT_EQ(declared.value().name, "scale");
  EXPECT_EQ(declared.value().signature.inputs[0].shape,
            (std::vector<int64_t>{rt::kDynamicDim, 4}));
  EXPECT_CONTAINS(compiler.declaredEntry(*source.value(), "").message(),
                  "2 public functions");

  // CPU code needs static shapes: the error says so in the caller's terms.
  EntryRequest dynamic{"scale", {}, "give a batch size"};
  EXPECT_CONTAINS(compiler.compileEntry(*source.value(), dynamic).message(),
                  "two.mlir:2:1: error: argument 0 of 'scale' has the "
                  "dynamic type 'tensor<?x4xf32>'; give a batch size");

  EntryRequest sized{"scale", {{3, 4}}, ""};
  auto entry = compiler.compileEntry(*source.value(), sized);
  ASSERT_TRUE(entry.isOk()) << entry.message();
  EXPECT_EQ(entry.value().name, "scale");
  EXPECT_TRUE(entry.value().cpu);
  EXPECT_TRUE(entry.value().vulkan);
  EXPECT_EQ(entry.value().signature.inputs[0].shape,
            (std::vector<int64_t>{3, 4}));

  // Vulkan alone keeps the dimension dynamic.
  CompilerOptions vulkanOnly = options;
  vulkanOnly.target = "vulkan";
  Compiler vulkanCompiler(vulkanOnly);
  auto vulkanSource = vulkanCompiler.parseString(kDynamic);
  ASSERT_TRUE(vulkanSource.isOk());
  auto program = vulkanCompiler.compileEntry(*vulkanSource.value(),
                                             EntryRequest{"scale", {}, ""});
  ASSERT_TRUE(program.isOk()) << program.message();
  EXPECT_FALSE(program.value().cpu);
  EXPECT_TRUE(program.value().vulkan && program.value().vulkan->isDynamic());
}

TEST(CompilerSteps, TextRemarksAndTargets) {
  CompilerOptions options;
  options.keepCPUText = true;
  options.fusionReport = true;
  Compiler compiler(options);
  auto source = compiler.parseString(kDynamic, "two.mlir");
  ASSERT_TRUE(source.isOk());
  auto entry = compiler.compileEntry(*source.value(), {"other", {}, ""});
  ASSERT_TRUE(entry.isOk()) << entry.message();
  const CompileStats &stats = compiler.lastCompile();
  EXPECT_CONTAINS(stats.llvmIR, "define");
  EXPECT_FALSE(stats.assembly.empty());
  // The fusion report's remarks, at the user's lines.
  EXPECT_CONTAINS(stats.diagnostics,
                  "two.mlir:7:1: remark: 1 dispatch regions");

  CompilerOptions badTarget;
  badTarget.target = "vulkan";
  badTarget.vulkanTarget = "gpu9000";
  Compiler bad(badTarget);
  EXPECT_CONTAINS(bad.compileString(kLinear).message(),
                  "unknown Vulkan target 'gpu9000' (expected vulkan13");
}

TEST(CompilerSteps, ParseErrors) {
  Compiler compiler;
  EXPECT_CONTAINS(compiler.parseFile("/nonexistent/m.mlir").message(),
                  "/nonexistent/m.mlir: cannot open");
  EXPECT_CONTAINS(compiler.parseString("func.func @f(", "bad.mlir").message(),
                  "bad.mlir:1:");
}

} // namespace

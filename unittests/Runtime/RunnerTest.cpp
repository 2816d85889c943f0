//===- RunnerTest.cpp - the runners' shared argument and report logic -----===//

#include "fx/Runtime/Runner.h"

#include "fx/Runtime/NumpyIO.h"
#include "fx/Runtime/Safetensors.h"

#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace fx::rt;
using namespace fx::rt::testing;

namespace {

Tensor filled(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t = Tensor::allocate(DType::F32, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    t.dataAs<float>()[i] = values[i];
  return t;
}

TEST(RunnerTest, TensorTypeString) {
  EXPECT_EQ(tensorTypeString(DType::F32, {4, kDynamicDim, 3}),
            "tensor<4x?x3xf32>");
  EXPECT_EQ(tensorTypeString(DType::Bool, {}), "tensor<i1>");
}

TEST(RunnerTest, MakeRandomIsSeededAndInRange) {
  std::mt19937_64 a(3), b(3);
  TensorSpec spec{"x", DType::F16, {64}};
  Tensor x = makeRandom(spec, a).take(), y = makeRandom(spec, b).take();
  ASSERT_EQ(x.dtype(), DType::F16);
  for (size_t i = 0; i < x.numel(); ++i) {
    EXPECT_EQ(x.getAsDouble(i), y.getAsDouble(i));
    EXPECT_GE(x.getAsDouble(i), -1.0);
    EXPECT_LE(x.getAsDouble(i), 1.0);
  }
  std::mt19937_64 c(0);
  Tensor ints = makeRandom({"i", DType::I32, {100}}, c).take();
  for (size_t i = 0; i < ints.numel(); ++i) {
    EXPECT_GE(ints.getAsDouble(i), 0);
    EXPECT_LE(ints.getAsDouble(i), 9);
  }
  Tensor bools = makeRandom({"b", DType::Bool, {100}}, c).take();
  for (size_t i = 0; i < bools.numel(); ++i)
    EXPECT_TRUE(bools.getAsDouble(i) == 0 || bools.getAsDouble(i) == 1);
  EXPECT_FALSE(makeRandom({"huge", DType::F32, {1ll << 62}}, c).isOk());
}

TEST(RunnerTest, CompareTensorsLikeAllclose) {
  Tensor want = filled({4}, {1, 2, NAN, 0});
  Comparison same = compareTensors(filled({4}, {1, 2, NAN, 0}), want, 0, 0);
  EXPECT_EQ(same.mismatches, 0u);
  Comparison c = compareTensors(filled({4}, {1.5, 2, 3, NAN}), want, 0.1, 0.1);
  EXPECT_EQ(c.mismatches, 3u);
  EXPECT_TRUE(std::isinf(c.maxAbs));
  EXPECT_DOUBLE_EQ(c.maxRel, 0.5);
  // Infinities match their own sign only.
  Tensor inf = filled({2}, {INFINITY, -INFINITY});
  EXPECT_EQ(
      compareTensors(filled({2}, {INFINITY, -INFINITY}), inf, 0, 0).mismatches,
      0u);
  EXPECT_EQ(
      compareTensors(filled({2}, {-INFINITY, 1}), inf, 0.1, 0.1).mismatches,
      2u);
}

TEST(RunnerTest, BindArguments) {
  TempDir tmp;
  ASSERT_TRUE(
      writeSafetensors(tmp.path("w.safetensors"), {{"w", filled({2}, {1, 2})}})
          .isOk());
  ASSERT_TRUE(writeNpy(tmp.path("x.npy"), filled({3, 2}, {})).isOk());
  std::vector<TensorSpec> args = {{"arg0", DType::F32, {kDynamicDim, 2}},
                                  {"w", DType::F32, {2}, true}};
  ArgumentSources sources;
  sources.weights = tmp.path("w.safetensors");
  sources.inputs = {tmp.path("x.npy")};
  Result<std::vector<Tensor>> bound = bindArguments("f", args, sources);
  ASSERT_TRUE(bound.isOk()) << bound.message();
  EXPECT_EQ(bound.value()[0].shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(bound.value()[1].getAsDouble(1), 2);

  sources.inputs.push_back(tmp.path("x.npy"));
  EXPECT_EQ(bindArguments("f", args, sources).message(),
            "'f' takes 1 inputs besides parameters, but 2 --input files were "
            "given");
  sources.inputs.clear();
  EXPECT_EQ(bindArguments("f", args, sources).message(),
            "argument 0 has dynamic dimensions (tensor<?x2xf32>); give its "
            "data with --input");
  args[0].shape = {2, 2};
  sources.weights.clear();
  EXPECT_EQ(bindArguments("f", args, sources).message(),
            "argument 1 (parameter 'w') needs a weights file: pass --weights");
}

TEST(RunnerTest, RunAndReport) {
  TempDir tmp;
  Tensor out = filled({2}, {1, 2});
  ASSERT_TRUE(writeNpy(tmp.path("ref.npy"), out).isOk());
  Executor executor;
  int runs = 0;
  executor.run = [&](const std::vector<Tensor> &) {
    ++runs;
    return Result<std::vector<Tensor>>(std::vector<Tensor>{out});
  };
  executor.runInto = [&](const std::vector<Tensor> &, std::vector<Tensor> &) {
    ++runs;
    return Status::ok();
  };
  executor.lastProfile = [] {
    return Result<std::vector<vk::StepTime>>(
        std::vector<vk::StepTime>{{"k0", 3}, {"copy", 1}});
  };
  // Wall times come from runs with profiling paused, GPU times from as
  // many more with it.
  std::vector<bool> pauses;
  int pausedRuns = 0;
  executor.pauseProfiling = [&](bool paused) { pauses.push_back(paused); };
  auto plainRunInto = executor.runInto;
  executor.runInto = [&](const std::vector<Tensor> &in,
                         std::vector<Tensor> &out) {
    pausedRuns += !pauses.empty() && pauses.back();
    return plainRunInto(in, out);
  };
  RunOptions options;
  options.bench = 2;
  options.prepareLabel = "load";
  options.print = true;
  options.expect = tmp.path("ref.npy");
  std::string text;
  Result<bool> passed = runAndReport(executor, {}, options,
                                     [&](std::string_view s) { text += s; });
  ASSERT_TRUE(passed.isOk()) << passed.message();
  EXPECT_TRUE(passed.value());
  EXPECT_EQ(runs, 1 + 3 + 2 + 2);
  EXPECT_EQ(pausedRuns, 2);
  EXPECT_EQ(pauses, (std::vector<bool>{true, false}));
  EXPECT_NE(text.find("load: 0.0 ms\nrun (2 runs): median "), std::string::npos)
      << text;
  // With timed runs, the GPU time of each and every step's median.
  EXPECT_NE(text.find("gpu (2 runs): median 4.0 us, min 4.0 us, max 4.0 us\n"
                      "profile: 2 steps, 4.0 us on the GPU (medians of the "
                      "timed runs)\n"
                      "     0        3.0 us   75.0%  k0\n"
                      "     1        1.0 us   25.0%  copy\n"
                      "output 0: f32[2] sum 3.000000e+00\n"
                      "output 0: max abs error 0, max rel error 0, 0 of 2 "
                      "elements outside rtol=1e-05 atol=1e-06\nPASS\n"),
            std::string::npos)
      << text;

  executor.validationErrors = [] { return uint64_t(2); };
  EXPECT_EQ(
      runAndReport(executor, {}, options, [](std::string_view) {}).message(),
      "2 Vulkan validation error(s) (printed above)");
}

} // namespace

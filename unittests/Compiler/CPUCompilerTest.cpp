//===- CPUCompilerTest.cpp - specialization, signatures and JIT in C++ ----===//

#include "fx/Compiler/CPUCompiler.h"
#include "fx/Compiler/Entry.h"
#include "fx/InitAll.h"
#include "fx/Runtime/CPUFunction.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace mlir;

namespace {

class CPUCompilerTest : public ::testing::Test {
protected:
  CPUCompilerTest() {
    ::fx::registerAllDialects(registry);
    ::fx::registerAllPasses();
    ctx = std::make_unique<MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(const char *source) {
    return parseSourceString<ModuleOp>(source, ctx.get());
  }

  /// Collects diagnostics emitted while `fn` runs.
  template <typename Fn> std::string diagnosticsOf(Fn fn) {
    std::string messages;
    ScopedDiagnosticHandler handler(ctx.get(), [&](Diagnostic &d) {
      messages += d.str() + "\n";
      return success();
    });
    fn();
    return messages;
  }

  DialectRegistry registry;
  std::unique_ptr<MLIRContext> ctx;
};

constexpr const char *kAddRelu = R"mlir(
  func.func @f(%x: tensor<?x3xf32>, %y: tensor<3xf32>) -> tensor<?x3xf32> {
    %0 = fx.add %x, %y : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    %1 = fx.relu %0 : (tensor<?x3xf32>) -> tensor<?x3xf32>
    return %1 : tensor<?x3xf32>
  })mlir";

TEST_F(CPUCompilerTest, SpecializesCompilesAndRuns) {
  OwningOpRef<ModuleOp> module = parse(kAddRelu);
  ASSERT_TRUE(module);
  func::FuncOp func = fx::findEntry(*module, "");
  ASSERT_TRUE(func);
  ASSERT_TRUE(succeeded(fx::specializeArguments(func, {{2, 3}, {3}})));
  FailureOr<fx::rt::FunctionSignature> sig = fx::getSignature(func);
  ASSERT_TRUE(succeeded(sig));
  EXPECT_EQ(sig->outputs.front().shape, (std::vector<int64_t>{2, 3}));

  auto jit = fx::JitModule::compile(*module, {});
  ASSERT_TRUE(succeeded(jit));
  auto packed = (*jit)->lookup("f");
  ASSERT_TRUE(static_cast<bool>(packed));
  fx::rt::CPUFunction function(*packed, *sig);

  float xs[6] = {-1, 2, -3, 4, -5, 6}, ys[3] = {0.5f, 0.5f, 0.5f};
  // Inputs wrap caller memory; the output is written into caller memory too.
  std::vector<fx::rt::Tensor> inputs = {
      fx::rt::Tensor::wrap(xs, fx::rt::DType::F32, {2, 3}),
      fx::rt::Tensor::wrap(ys, fx::rt::DType::F32, {3})};
  float out[6] = {};
  std::vector<fx::rt::Tensor> outputs = {
      fx::rt::Tensor::wrap(out, fx::rt::DType::F32, {2, 3})};
  ASSERT_TRUE(function.runInto(inputs, outputs).isOk());
  float expected[6] = {0, 2.5f, 0, 4.5f, 0, 6.5f};
  for (int i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(out[i], expected[i]) << i;
}

TEST_F(CPUCompilerTest, RejectsShapesThatDoNotFit) {
  OwningOpRef<ModuleOp> module = parse(kAddRelu);
  func::FuncOp func = fx::findEntry(*module, "f");
  std::string messages = diagnosticsOf([&] {
    EXPECT_TRUE(failed(fx::specializeArguments(func, {{2, 4}, {3}})));
  });
  EXPECT_NE(messages.find("argument 0 is declared 'tensor<?x3xf32>' but the "
                          "given tensor has shape [2, 4]"),
            std::string::npos)
      << messages;
}

TEST_F(CPUCompilerTest, SignatureNeedsStaticShapes) {
  OwningOpRef<ModuleOp> module = parse(kAddRelu);
  func::FuncOp func = fx::findEntry(*module, "f");
  std::string messages =
      diagnosticsOf([&] { EXPECT_TRUE(failed(fx::getSignature(func))); });
  EXPECT_NE(messages.find("argument 0 has the dynamic type"), std::string::npos)
      << messages;
}

TEST_F(CPUCompilerTest, RuntimeChecksInputs) {
  OwningOpRef<ModuleOp> module = parse(kAddRelu);
  func::FuncOp func = fx::findEntry(*module, "f");
  ASSERT_TRUE(succeeded(fx::specializeArguments(func, {{2, 3}, {3}})));
  FailureOr<fx::rt::FunctionSignature> sig = fx::getSignature(func);
  auto jit = fx::JitModule::compile(*module, {});
  ASSERT_TRUE(succeeded(jit));
  fx::rt::CPUFunction function(*(*jit)->lookup("f"), *sig);
  auto wrong = fx::rt::Tensor::allocate(fx::rt::DType::F16, {2, 3});
  auto y = fx::rt::Tensor::allocate(fx::rt::DType::F32, {3});
  auto result = function.run({wrong, y});
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.message(),
            "input 0 (arg0) expects f32[2, 3], got f16[2, 3]");
  EXPECT_FALSE(function.run({y}).isOk());
  EXPECT_TRUE(
      function.run({fx::rt::Tensor::allocate(fx::rt::DType::F32, {2, 3}), y})
          .isOk());
}

#if defined(__x86_64__)
// The JIT compiles for a named CPU level (to test code for lesser CPUs on
// any host), and refuses one whose features this host lacks rather than
// crash on an illegal instruction.
TEST_F(CPUCompilerTest, JitForNamedCPUs) {
  auto compileFor = [&](const std::string &cpu, std::string &messages) {
    OwningOpRef<ModuleOp> module = parse(kAddRelu);
    func::FuncOp func = fx::findEntry(*module, "f");
    EXPECT_TRUE(succeeded(fx::specializeArguments(func, {{2, 3}, {3}})));
    fx::CPUCompileOptions options;
    options.cpu = cpu;
    bool ok = false;
    messages = diagnosticsOf(
        [&] { ok = succeeded(fx::JitModule::compile(*module, options)); });
    return ok;
  };
  std::string messages;
  EXPECT_TRUE(compileFor("x86-64-v2", messages)) << messages;
  EXPECT_FALSE(compileFor("pentium-x9000", messages));
  EXPECT_NE(messages.find("unknown CPU 'pentium-x9000'"), std::string::npos)
      << messages;
  // The first of these CPUs whose features this host lacks is refused,
  // naming a missing feature; a host that has them all compiles each.
  std::vector<std::string> host = fx::rt::hostCPUFeatures();
  auto has = [&](const char *f) {
    return std::find(host.begin(), host.end(), f) != host.end();
  };
  struct Candidate {
    const char *cpu, *feature;
  };
  for (Candidate c : {Candidate{"x86-64-v4", "avx512f"},
                      Candidate{"sapphirerapids", "avx512fp16"}}) {
    if (has(c.feature)) {
      EXPECT_TRUE(compileFor(c.cpu, messages)) << messages;
      continue;
    }
    EXPECT_FALSE(compileFor(c.cpu, messages)) << c.cpu;
    EXPECT_NE(messages.find("this host cannot run code for CPU '" +
                            std::string(c.cpu) + "': it lacks"),
              std::string::npos)
        << messages;
    EXPECT_NE(messages.find(c.feature), std::string::npos) << messages;
    break;
  }
}
#endif

} // namespace

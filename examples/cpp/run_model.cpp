//===- run_model.cpp - embedding fx-mlir from C++ -------------------------===//
//
// Compiles a model with static shapes (e.g. examples/attention_block.mlir)
// with fx::Compiler for the CPU (or argv[2]), binds seeded weights as
// tensors, runs on an input wrapped without a copy and prints a summary of
// the output.
//
//   fx-example-cpp FILE.mlir [cpu|vulkan]
//
//===----------------------------------------------------------------------===//

#include "fx/Compiler/Compiler.h"

#include <cstdio>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.mlir [cpu|vulkan]\n", argv[0]);
    return 2;
  }
  fx::CompilerOptions options;
  options.target = argc > 2 ? argv[2] : "cpu";
  fx::Compiler compiler(options);
  auto model = compiler.compileFile(argv[1]);
  if (!model.isOk()) {
    std::fprintf(stderr, "compile failed: %s\n", model.message().c_str());
    return 1;
  }
  fx::rt::Model &m = *model.value();
  std::printf("compiled '%s' for %s in %.1f ms\n", m.name().c_str(),
              m.target().c_str(), compiler.lastCompile().milliseconds);

  // Seeded weights: every parameter, by name.
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> uniform(0.5f, 1.5f);
  for (const fx::rt::TensorSpec &spec : m.signature().inputs) {
    if (!spec.parameter)
      continue;
    fx::rt::Tensor weight = fx::rt::Tensor::allocate(spec.dtype, spec.shape);
    for (size_t i = 0; i < weight.numel(); ++i)
      weight.dataAs<float>()[i] = uniform(rng) * 0.1f;
    if (fx::rt::Status s = m.setParameter(spec.name, weight); !s.isOk()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      return 1;
    }
  }
  // The input: caller memory, wrapped without a copy.
  const fx::rt::TensorSpec in = m.inputs().at(0);
  std::vector<float> data(fx::rt::Tensor::allocate(in.dtype, in.shape).numel());
  for (float &v : data)
    v = uniform(rng) - 1.0f;
  auto outputs = m.run({fx::rt::Tensor::wrap(data.data(), in.dtype, in.shape)});
  if (!outputs.isOk()) {
    std::fprintf(stderr, "run failed: %s\n", outputs.message().c_str());
    return 1;
  }
  const fx::rt::Tensor &y = outputs.value()[0];
  double sum = 0;
  for (size_t i = 0; i < y.numel(); ++i)
    sum += y.getAsDouble(i);
  std::printf("output %s, sum %.6e\n", y.shapeString().c_str(), sum);
  return 0;
}

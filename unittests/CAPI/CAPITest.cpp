//===- CAPITest.cpp - the C API's error paths -----------------------------===//
//
// Every fx.h function that can fail reports an fx_error with a message for
// bad arguments instead of crashing: null pointers, options structs from an
// older header, unknown dtypes, negative dimensions, missing files, output
// counts that do not fit. (The working paths run in examples/c/mlp.c.)
//
//===----------------------------------------------------------------------===//

#include "fx/fx.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

namespace {

/// The message of `error` (freed), or "" for success.
std::string message(fx_error *error) {
  std::string text = error ? fx_error_message(error) : "";
  fx_error_free(error);
  return text;
}

#define EXPECT_ERROR(call, part)                                               \
  EXPECT_NE(message(call).find(part), std::string::npos) << #call

const char *kModel = "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                     "  %0 = fx.relu %x : (tensor<2xf32>) -> tensor<2xf32>\n"
                     "  return %0 : tensor<2xf32>\n}\n";

TEST(CAPITest, Tensors) {
  fx_tensor *t = nullptr;
  int64_t shape[] = {2, 3}, negative[] = {2, -1};
  EXPECT_ERROR(fx_tensor_create(FX_DTYPE_F32, shape, 2, nullptr),
               "out is null");
  EXPECT_ERROR(fx_tensor_create(fx_dtype(42), shape, 2, &t),
               "unknown dtype 42");
  EXPECT_ERROR(fx_tensor_create(FX_DTYPE_F32, nullptr, 2, &t),
               "the shape is null but the rank is 2");
  EXPECT_FALSE(
      message(fx_tensor_create(FX_DTYPE_F32, negative, 2, &t)).empty());
  EXPECT_ERROR(fx_tensor_wrap(nullptr, FX_DTYPE_F32, shape, 2, &t),
               "data is null");
  float data[2];
  EXPECT_ERROR(fx_tensor_wrap(data, FX_DTYPE_F32, negative, 2, &t),
               "negative dimension -1");
  EXPECT_EQ(t, nullptr);
  ASSERT_EQ(message(fx_tensor_create(FX_DTYPE_F16, shape, 2, &t)), "");
  EXPECT_EQ(fx_tensor_dtype(t), FX_DTYPE_F16);
  EXPECT_EQ(fx_tensor_rank(t), 2u);
  EXPECT_EQ(fx_tensor_shape(t)[1], 3);
  EXPECT_EQ(fx_tensor_byte_size(t), 12u);
  fx_tensor_free(t);
}

TEST(CAPITest, CompilerAndModelErrors) {
  fx_compiler_options old = {};
  old.struct_size = 4;
  fx_compiler *compiler = nullptr;
  EXPECT_ERROR(fx_compiler_create(&old, &compiler),
               "options.struct_size is 4; call fx_compiler_options_init");
  fx_compiler_options options;
  fx_compiler_options_init(&options);
  options.mode = "turbo";
  EXPECT_ERROR(fx_compiler_create(&options, &compiler), "unknown mode 'turbo'");
  options.mode = nullptr;
  ASSERT_EQ(message(fx_compiler_create(&options, &compiler)), "");

  fx_model *model = nullptr;
  EXPECT_ERROR(fx_compiler_compile_string(compiler, nullptr, &model),
               "a pointer is null");
  EXPECT_ERROR(fx_compiler_compile_string(compiler, "func.func @f(", &model),
               "<string>:1:");
  EXPECT_ERROR(fx_compiler_compile_file(compiler, "/nonexistent.mlir", &model),
               "/nonexistent.mlir: cannot open");
  EXPECT_ERROR(fx_model_load("/nonexistent.fxa", nullptr, &model),
               "/nonexistent.fxa: cannot open");
  fx_model_options oldModel = {};
  EXPECT_ERROR(fx_model_load("/nonexistent.fxa", &oldModel, &model),
               "call fx_model_options_init");
  EXPECT_EQ(model, nullptr);

  ASSERT_EQ(message(fx_compiler_compile_string(compiler, kModel, &model)), "");
  EXPECT_EQ(fx_model_num_inputs(model), 1u);
  EXPECT_EQ(fx_model_input_name(model, 5), nullptr);
  EXPECT_EQ(fx_model_input_shape(model, 5), nullptr);
  EXPECT_EQ(fx_model_output_rank(model, 5), 0u);
  EXPECT_ERROR(fx_model_bind_weights(model, "/nonexistent.safetensors"),
               "cannot open");
  EXPECT_ERROR(fx_model_set_parameter(model, "w", nullptr),
               "a pointer is null");

  float x[2] = {-1, 2};
  int64_t shape[] = {2};
  fx_tensor *input = nullptr, *output = nullptr;
  ASSERT_EQ(message(fx_tensor_wrap(x, FX_DTYPE_F32, shape, 1, &input)), "");
  const fx_tensor *inputs[] = {input};
  EXPECT_ERROR(fx_model_run(model, inputs, 1, &output, 2),
               "the model has 1 outputs, but room for 2 was given");
  EXPECT_ERROR(fx_model_run(model, nullptr, 1, &output, 1), "inputs is null");
  const fx_tensor *nullInput[] = {nullptr};
  EXPECT_ERROR(fx_model_run(model, nullInput, 1, &output, 1),
               "inputs[0] is null");
  EXPECT_ERROR(fx_model_run(model, inputs, 0, &output, 1),
               "expected 1 inputs (besides parameters), got 0");
  EXPECT_EQ(output, nullptr);
  ASSERT_EQ(message(fx_model_run(model, inputs, 1, &output, 1)), "");
  EXPECT_EQ(static_cast<float *>(fx_tensor_data(output))[0], 0.0f);
  EXPECT_EQ(static_cast<float *>(fx_tensor_data(output))[1], 2.0f);
  fx_tensor *wrong = nullptr;
  ASSERT_EQ(message(fx_tensor_create(FX_DTYPE_I32, shape, 1, &wrong)), "");
  fx_tensor *outputs[] = {wrong};
  EXPECT_ERROR(fx_model_run_into(model, inputs, 1, outputs, 1), "output 0");
  fx_tensor_free(wrong);
  fx_tensor_free(output);
  fx_tensor_free(input);
  fx_model_free(model);
  fx_compiler_free(compiler);
}

/// In-place inputs and outputs: the same memory on every call, runs on
/// them read and write it; indices out of range are errors.
TEST(CAPITest, InPlaceTensors) {
  fx_compiler_options options;
  fx_compiler_options_init(&options);
  fx_compiler *compiler = nullptr;
  ASSERT_EQ(message(fx_compiler_create(&options, &compiler)), "");
  fx_model *model = nullptr;
  ASSERT_EQ(message(fx_compiler_compile_string(compiler, kModel, &model)), "");
  fx_tensor *input = nullptr, *output = nullptr, *again = nullptr;
  EXPECT_ERROR(fx_model_in_place_input(nullptr, 0, &input), "model is null");
  EXPECT_ERROR(fx_model_in_place_input(model, 0, nullptr), "out is null");
  EXPECT_ERROR(fx_model_in_place_input(model, 1, &input),
               "fx_model_in_place_input: index 1 out of range (the model "
               "has 1)");
  EXPECT_ERROR(fx_model_in_place_output(model, 3, &output),
               "fx_model_in_place_output: index 3 out of range");
  ASSERT_EQ(message(fx_model_in_place_input(model, 0, &input)), "");
  ASSERT_EQ(message(fx_model_in_place_output(model, 0, &output)), "");
  ASSERT_EQ(message(fx_model_in_place_output(model, 0, &again)), "");
  EXPECT_EQ(fx_tensor_data(output), fx_tensor_data(again));
  EXPECT_EQ(fx_tensor_shape(input)[0], 2);
  auto *x = static_cast<float *>(fx_tensor_data(input));
  x[0] = -1;
  x[1] = 3;
  const fx_tensor *inputs[] = {input};
  fx_tensor *outputs[] = {output};
  ASSERT_EQ(message(fx_model_run_into(model, inputs, 1, outputs, 1)), "");
  EXPECT_EQ(static_cast<float *>(fx_tensor_data(again))[0], 0.0f);
  EXPECT_EQ(static_cast<float *>(fx_tensor_data(again))[1], 3.0f);
  fx_tensor_free(again);
  fx_tensor_free(output);
  fx_tensor_free(input);
  fx_model_free(model);
  fx_compiler_free(compiler);
}

/// sub_batch (API version 102): checked, passed to the compiler, and not
/// read from a version 101 struct.
TEST(CAPITest, SubBatch) {
  const char *mixing =
      "func.func @f(%x: tensor<4x2xf32>) -> tensor<2xf32> {\n"
      "  %0 = fx.sum %x {dim = array<i64: 0>} : (tensor<4x2xf32>) -> "
      "tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n}\n";
  fx_compiler_options options;
  fx_compiler_options_init(&options);
  EXPECT_EQ(options.sub_batch, nullptr);
  fx_compiler *compiler = nullptr;
  fx_model *model = nullptr;
  options.sub_batch = "two";
  EXPECT_ERROR(fx_compiler_create(&options, &compiler),
               "sub_batch: expected auto, off or a positive number of items, "
               "got 'two'");
  options.sub_batch = "1";
  ASSERT_EQ(message(fx_compiler_create(&options, &compiler)), "");
  EXPECT_ERROR(fx_compiler_compile_string(compiler, mixing, &model),
               "--sub-batch 1: cannot split the batch of 'f': it reduces over "
               "dimension 0");
  fx_compiler_free(compiler);
  // Version 101's struct: sub_batch is past its end and not read.
  options.struct_size = offsetof(fx_compiler_options, sub_batch);
  ASSERT_EQ(message(fx_compiler_create(&options, &compiler)), "");
  ASSERT_EQ(message(fx_compiler_compile_string(compiler, mixing, &model)), "");
  fx_model_free(model);
  fx_compiler_free(compiler);
}

/// Argument shapes (API version 101) specialize a dynamic dimension for
/// CPU code; a caller built against version 100 passes the shorter struct.
TEST(CAPITest, ArgumentShapes) {
  const char *dynamic =
      "func.func @f(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {\n"
      "  %0 = fx.relu %x : (tensor<?x2xf32>) -> tensor<?x2xf32>\n"
      "  return %0 : tensor<?x2xf32>\n}\n";
  fx_compiler_options options;
  fx_compiler_options_init(&options);
  EXPECT_EQ(options.num_arguments, 0u);
  fx_compiler *compiler = nullptr;
  fx_model *model = nullptr;

  // Version 100's struct: accepted, the arguments as declared.
  options.struct_size = offsetof(fx_compiler_options, num_arguments);
  options.num_arguments = 1; // past its end: not read
  ASSERT_EQ(message(fx_compiler_create(&options, &compiler)), "");
  EXPECT_ERROR(fx_compiler_compile_string(compiler, dynamic, &model),
               "CPU code needs static shapes");
  fx_compiler_free(compiler);

  fx_compiler_options_init(&options);
  options.num_arguments = 1;
  EXPECT_ERROR(fx_compiler_create(&options, &compiler),
               "num_arguments is 1 but argument_ranks or argument_shapes is "
               "null");
  size_t ranks[] = {2};
  int64_t negative[] = {-3, 2}, shape[] = {3, 2};
  const int64_t *bad[] = {negative}, *shapes[] = {shape};
  options.argument_ranks = ranks;
  options.argument_shapes = bad;
  EXPECT_ERROR(fx_compiler_create(&options, &compiler),
               "argument 0 has the size -3; sizes are non-negative");
  options.argument_shapes = shapes;
  ASSERT_EQ(message(fx_compiler_create(&options, &compiler)), "");
  ASSERT_EQ(message(fx_compiler_compile_string(compiler, dynamic, &model)), "");
  ASSERT_EQ(fx_model_input_rank(model, 0), 2u);
  EXPECT_EQ(fx_model_input_shape(model, 0)[0], 3);
  EXPECT_EQ(fx_api_version(), unsigned(FX_API_VERSION));
  fx_model_free(model);
  fx_compiler_free(compiler);
}

} // namespace

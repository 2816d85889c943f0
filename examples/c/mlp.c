/* A C program embedding fx-mlir through its C API (fx/fx.h, libfx.so):
 * compiles a two-layer MLP from FX-dialect IR for the CPU (or the target
 * given as argv[1]), binds its weights from C arrays, runs it, compiles it
 * again from the compile cache, saves it as an artifact, loads the artifact
 * with the runtime functions and runs it again, and shows an error.
 *
 *   fx-example-c [cpu|vulkan] [cache-dir] [artifact.fxa]
 */
#include "fx/fx.h"

#include <stdio.h>
#include <stdlib.h>

static const char *kModel =
    "func.func @mlp(%x: tensor<2x4xf32>,\n"
    "    %w1: tensor<4x8xf32> {fx.param = \"fc1.weight\"},\n"
    "    %w2: tensor<8x3xf32> {fx.param = \"fc2.weight\"}) -> tensor<2x3xf32> {\n"
    "  %0 = fx.mm %x, %w1 : (tensor<2x4xf32>, tensor<4x8xf32>) -> "
    "tensor<2x8xf32>\n"
    "  %1 = fx.relu %0 : (tensor<2x8xf32>) -> tensor<2x8xf32>\n"
    "  %2 = fx.mm %1, %w2 : (tensor<2x8xf32>, tensor<8x3xf32>) -> "
    "tensor<2x3xf32>\n"
    "  return %2 : tensor<2x3xf32>\n"
    "}\n";

/* Prints the error, frees it and exits. */
static void check(fx_error *error, const char *what) {
  if (!error)
    return;
  fprintf(stderr, "%s failed: %s\n", what, fx_error_message(error));
  fx_error_free(error);
  exit(1);
}

static float w1[4 * 8], w2[8 * 3], x[2 * 4];

/* Binds the weights and runs on x; prints and returns y[0][0]. */
static float run(fx_model *model) {
  int64_t w1Shape[] = {4, 8}, w2Shape[] = {8, 3}, xShape[] = {2, 4};
  fx_tensor *tw1, *tw2, *tx, *y;
  check(fx_tensor_wrap(w1, FX_DTYPE_F32, w1Shape, 2, &tw1), "wrap w1");
  check(fx_tensor_wrap(w2, FX_DTYPE_F32, w2Shape, 2, &tw2), "wrap w2");
  check(fx_tensor_wrap(x, FX_DTYPE_F32, xShape, 2, &tx), "wrap x");
  check(fx_model_set_parameter(model, "fc1.weight", tw1), "bind fc1.weight");
  check(fx_model_set_parameter(model, "fc2.weight", tw2), "bind fc2.weight");
  const fx_tensor *inputs[] = {tx};
  check(fx_model_run(model, inputs, 1, &y, 1), "run");
  const int64_t *shape = fx_tensor_shape(y);
  float *out = (float *)fx_tensor_data(y);
  printf("%s on %s: y[%lld x %lld] =", fx_model_name(model),
         fx_model_target(model), (long long)shape[0], (long long)shape[1]);
  for (int i = 0; i < 6; ++i)
    printf(" %.4f", out[i]);
  printf("\n");
  float first = out[0];
  fx_tensor_free(y);
  fx_tensor_free(tx);
  fx_tensor_free(tw2);
  fx_tensor_free(tw1);
  return first;
}

int main(int argc, char **argv) {
  const char *target = argc > 1 ? argv[1] : "cpu";
  const char *cacheDir = argc > 2 ? argv[2] : NULL;
  const char *artifact = argc > 3 ? argv[3] : "mlp.fxa";
  if (fx_api_version() / 100 != FX_API_VERSION / 100) {
    fprintf(stderr, "libfx has API version %u, this program %u\n",
            fx_api_version(), FX_API_VERSION);
    return 1;
  }
  for (int i = 0; i < 4 * 8; ++i)
    w1[i] = (float)((i * 7) % 11 - 5) / 10.0f;
  for (int i = 0; i < 8 * 3; ++i)
    w2[i] = (float)((i * 5) % 9 - 4) / 10.0f;
  for (int i = 0; i < 2 * 4; ++i)
    x[i] = (float)i - 3.5f;

  fx_compiler_options options;
  fx_compiler_options_init(&options);
  options.target = target;
  options.cache_dir = cacheDir;
  fx_compiler *compiler;
  check(fx_compiler_create(&options, &compiler), "fx_compiler_create");

  fx_model *model;
  check(fx_compiler_compile_string(compiler, kModel, &model), "compile");
  printf("compiled in %.1f ms (cache %s)\n",
         fx_compiler_last_milliseconds(compiler),
         fx_compiler_last_cache_hit(compiler) ? "hit" : "miss");
  printf("inputs: %zu (%s: rank %zu), outputs: %zu\n",
         fx_model_num_inputs(model), fx_model_input_name(model, 0),
         fx_model_input_rank(model, 0), fx_model_num_outputs(model));
  float first = run(model);
  fx_model_free(model);

  /* The same IR again: from the cache when there is one. */
  check(fx_compiler_compile_string(compiler, kModel, &model), "compile");
  printf("compiled again in %.1f ms (cache %s)\n",
         fx_compiler_last_milliseconds(compiler),
         fx_compiler_last_cache_hit(compiler) ? "hit" : "miss");
  fx_model_free(model);

  /* An artifact, loaded by the runtime functions alone. */
  FILE *file = fopen("mlp.mlir.tmp", "w");
  if (!file || fputs(kModel, file) < 0 || fclose(file) != 0) {
    fprintf(stderr, "cannot write mlp.mlir.tmp\n");
    return 1;
  }
  check(fx_compiler_save(compiler, "mlp.mlir.tmp", artifact), "save");
  remove("mlp.mlir.tmp");
  fx_model_options loadOptions;
  fx_model_options_init(&loadOptions);
  loadOptions.target = target;
  check(fx_model_load(artifact, &loadOptions, &model), "fx_model_load");
  float again = run(model);
  printf("artifact %s\n", first == again ? "matches" : "DIFFERS");

  /* Errors are values: a wrongly shaped input. */
  int64_t badShape[] = {4, 2};
  fx_tensor *bad, *y;
  check(fx_tensor_wrap(x, FX_DTYPE_F32, badShape, 2, &bad), "wrap");
  const fx_tensor *inputs[] = {bad};
  fx_error *error = fx_model_run(model, inputs, 1, &y, 1);
  printf("a [4, 2] input: %s\n", error ? fx_error_message(error) : "no error");
  fx_error_free(error);
  fx_tensor_free(bad);
  fx_model_free(model);
  fx_compiler_free(compiler);
  return first == again && error ? 0 : 1;
}

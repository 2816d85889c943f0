/*===- fx.h - the C API of fx-mlir ---------------------------------------===*\
|*                                                                            *|
|* A plain C interface over the runtime (load compiled artifacts, bind       *|
|* weights, run on the CPU or a Vulkan device) and the compiler (FX-dialect  *|
|* IR to a loaded model, with the compile cache), so that any language can  *|
|* embed fx-mlir. Two libraries implement it:                                *|
|*   libfxrt.so  the runtime functions only; no MLIR or LLVM inside.         *|
|*   libfx.so    everything, the fx_compiler_* functions included.           *|
|*                                                                            *|
|* Conventions:                                                               *|
|*  - Objects are opaque handles, created by fx_*_create/load/compile and    *|
|*    released by the matching fx_*_free (which accept NULL).                *|
|*  - A function that can fail returns an fx_error*: NULL on success, else   *|
|*    an error the caller reads with fx_error_message and frees with         *|
|*    fx_error_free. Nothing aborts on bad input; out-parameters are set     *|
|*    only on success.                                                        *|
|*  - Options structs begin with `struct_size`; fill them with the           *|
|*    fx_*_options_init functions, so that later versions can add members.  *|
|*  - Strings returned by accessors live as long as the object.              *|
|*  - Threads: distinct models and compilers may be used from different    *|
|*    threads at once. A model may also be run from several threads at     *|
|*    once (CPU models run concurrently, Vulkan models one call at a time); *|
|*    binding weights waits for runs in flight. A compiler compiles one     *|
|*    model at a time: give each thread its own.                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FX_FX_H
#define FX_FX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header. fx_api_version() returns the library's; they
 * must have the same major version (the value divided by 100). Minor
 * versions add: 101, the argument shapes of fx_compiler_options; 102, its
 * sub_batch. */
#define FX_API_VERSION 102

#if defined(__GNUC__)
#define FX_API __attribute__((visibility("default")))
#else
#define FX_API
#endif

typedef struct fx_error fx_error;
typedef struct fx_tensor fx_tensor;
typedef struct fx_model fx_model;
typedef struct fx_compiler fx_compiler;

/* Element types; the values are stable. */
typedef enum fx_dtype {
  FX_DTYPE_F32 = 0,
  FX_DTYPE_F16 = 1,
  FX_DTYPE_BF16 = 2,
  FX_DTYPE_F64 = 3,
  FX_DTYPE_I64 = 4,
  FX_DTYPE_I32 = 5,
  FX_DTYPE_I8 = 6,
  FX_DTYPE_U8 = 7,
  FX_DTYPE_BOOL = 8
} fx_dtype;

FX_API uint32_t fx_api_version(void);

/*===--- Errors ---------------------------------------------------------===*/

FX_API const char *fx_error_message(const fx_error *error);
FX_API void fx_error_free(fx_error *error);

/*===--- Tensors: dense, row-major ---------------------------------------===*/

/* A zero-filled tensor owning 64-byte aligned storage. */
FX_API fx_error *fx_tensor_create(fx_dtype dtype, const int64_t *shape,
                                  size_t rank, fx_tensor **out);
/* A tensor over caller memory, which must hold the elements in C order and
 * outlive the tensor; nothing is copied. */
FX_API fx_error *fx_tensor_wrap(void *data, fx_dtype dtype,
                                const int64_t *shape, size_t rank,
                                fx_tensor **out);
FX_API void fx_tensor_free(fx_tensor *tensor);
FX_API fx_dtype fx_tensor_dtype(const fx_tensor *tensor);
FX_API size_t fx_tensor_rank(const fx_tensor *tensor);
FX_API const int64_t *fx_tensor_shape(const fx_tensor *tensor);
FX_API void *fx_tensor_data(fx_tensor *tensor);
FX_API size_t fx_tensor_byte_size(const fx_tensor *tensor);

/*===--- Models: a compiled entry point loaded on a target ---------------===*/

typedef struct fx_model_options {
  uint32_t struct_size;
  /* The entry to load; NULL: the artifact's only one. */
  const char *entry;
  /* "cpu", "vulkan", or NULL: cpu if the entry has CPU code, else vulkan. */
  const char *target;
  /* The Vulkan device index; -1: FX_VULKAN_DEVICE, else the first discrete
   * GPU, else 0. */
  int vulkan_device;
  /* Non-zero: run under the Khronos validation layer. */
  int vulkan_validation;
} fx_model_options;

FX_API void fx_model_options_init(fx_model_options *options);

/* Loads an artifact (.fxa, from fx-compile or fx_compiler_save). `options`
 * may be NULL. */
FX_API fx_error *fx_model_load(const char *artifact_path,
                               const fx_model_options *options,
                               fx_model **out);
FX_API void fx_model_free(fx_model *model);

FX_API const char *fx_model_name(const fx_model *model);
/* "cpu" or "vulkan". */
FX_API const char *fx_model_target(const fx_model *model);

/* The inputs a run takes (the arguments that are not parameters) and the
 * outputs. An index out of range gives NULL or 0. */
FX_API size_t fx_model_num_inputs(const fx_model *model);
FX_API const char *fx_model_input_name(const fx_model *model, size_t index);
FX_API fx_dtype fx_model_input_dtype(const fx_model *model, size_t index);
FX_API size_t fx_model_input_rank(const fx_model *model, size_t index);
FX_API const int64_t *fx_model_input_shape(const fx_model *model,
                                           size_t index);
FX_API size_t fx_model_num_outputs(const fx_model *model);
FX_API fx_dtype fx_model_output_dtype(const fx_model *model, size_t index);
FX_API size_t fx_model_output_rank(const fx_model *model, size_t index);
FX_API const int64_t *fx_model_output_shape(const fx_model *model,
                                            size_t index);

/* Binds every parameter from a .safetensors file by name (memory-mapped). */
FX_API fx_error *fx_model_bind_weights(fx_model *model,
                                       const char *safetensors_path);
/* Binds one parameter; the tensor's storage is shared, not copied, and must
 * outlive the model's runs. Contents changed in place take effect when the
 * tensor is bound again (a Vulkan device keeps a copy; CPU code may have
 * prepared values from it, e.g. a packed convolution filter). */
FX_API fx_error *fx_model_set_parameter(fx_model *model, const char *name,
                                        const fx_tensor *tensor);

/* Runs on `inputs` (checked against the model); fills `outputs[i]` with new
 * tensors the caller frees. */
FX_API fx_error *fx_model_run(fx_model *model, const fx_tensor *const *inputs,
                              size_t num_inputs, fx_tensor **outputs,
                              size_t num_outputs);
/* Runs into caller-provided output tensors (checked against the model). */
FX_API fx_error *fx_model_run_into(fx_model *model,
                                   const fx_tensor *const *inputs,
                                   size_t num_inputs,
                                   fx_tensor *const *outputs,
                                   size_t num_outputs);

/* A tensor over the memory to write input `index` (of the non-parameter
 * inputs) in place, or to read output `index` from: passed to
 * fx_model_run_into, it spares that input's or output's copy (on Vulkan the
 * host memory the device buffer is filled from or read back to). The same
 * memory on every call, valid while the model lives; a run overwrites the
 * outputs. The caller frees the fx_tensor (not the memory). Errors: an index
 * out of range, a model of several compiled shapes or dynamic dimensions. */
FX_API fx_error *fx_model_in_place_input(fx_model *model, size_t index,
                                         fx_tensor **out);
FX_API fx_error *fx_model_in_place_output(fx_model *model, size_t index,
                                          fx_tensor **out);

/*===--- The compiler (libfx.so only) ------------------------------------===*/

typedef struct fx_compiler_options {
  uint32_t struct_size;
  /* "cpu" (default) or "vulkan". */
  const char *target;
  /* "default", "reduce-overhead" or "max-autotune" (see
   * fx/Compiler/Compiler.h); NULL: default. */
  const char *mode;
  /* Non-zero (default): fuse elementwise chains and form dispatch regions. */
  int fusion;
  /* If not NULL, write the input IR and the generated code here. */
  const char *dump_dir;
  /* If not NULL, the on-disk compile cache. */
  const char *cache_dir;
  /* The function to compile; NULL: the only public one. */
  const char *entry;
  /* CPU: "native" (default) or an LLVM CPU name such as "x86-64-v3". */
  const char *cpu;
  /* Vulkan: the device index (-1: the default device). */
  int vulkan_device;
  /* Since 101 (read when struct_size covers them): shapes for every
   * argument of the entry, parameters included, in order, to specialize its
   * dynamic dimensions (`?`; CPU code needs static shapes): num_arguments
   * shapes, argument i of argument_ranks[i] sizes at argument_shapes[i].
   * 0: the arguments as declared. */
  size_t num_arguments;
  const size_t *argument_ranks;
  const int64_t *const *argument_shapes;
  /* Since 102: CPU: how a batch-separable entry runs its batch: "auto"
   * (NULL, the default), "off", or the items per call, e.g. "1" (see
   * fx::CompilerOptions::subBatch). */
  const char *sub_batch;
} fx_compiler_options;

FX_API void fx_compiler_options_init(fx_compiler_options *options);
FX_API fx_error *fx_compiler_create(const fx_compiler_options *options,
                                    fx_compiler **out);
FX_API void fx_compiler_free(fx_compiler *compiler);

/* Compiles FX-dialect IR from a file or a NUL-terminated string and loads
 * it. Errors carry the compiler's diagnostics with source locations. */
FX_API fx_error *fx_compiler_compile_file(fx_compiler *compiler,
                                          const char *path, fx_model **out);
FX_API fx_error *fx_compiler_compile_string(fx_compiler *compiler,
                                            const char *text,
                                            fx_model **out);
/* Compiles the file at `path` into an artifact at `artifact_path`. */
FX_API fx_error *fx_compiler_save(fx_compiler *compiler, const char *path,
                                  const char *artifact_path);
/* Whether the last compile came from the cache, and how long it took. */
FX_API int fx_compiler_last_cache_hit(const fx_compiler *compiler);
FX_API double fx_compiler_last_milliseconds(const fx_compiler *compiler);

#ifdef __cplusplus
}
#endif

#endif /* FX_FX_H */

//===- Compiler.cpp - the C API over the compiler -------------------------===//

#include "Handles.h"

#include "fx/Compiler/Compiler.h"

#include <cstddef>

using namespace fx;

struct fx_compiler {
  std::unique_ptr<Compiler> compiler;
};

extern "C" {

void fx_compiler_options_init(fx_compiler_options *options) {
  *options = fx_compiler_options{};
  options->struct_size = sizeof(fx_compiler_options);
  options->fusion = 1;
  options->vulkan_device = -1;
}

fx_error *fx_compiler_create(const fx_compiler_options *options,
                             fx_compiler **out) {
  if (!out)
    return capi::error("fx_compiler_create: out is null");
  CompilerOptions compilerOptions;
  if (options) {
    // Callers built against version 100 pass the struct without the
    // argument shapes.
    constexpr size_t kVersion100Size =
        offsetof(fx_compiler_options, num_arguments);
    if (options->struct_size < kVersion100Size)
      return capi::error("fx_compiler_create: options.struct_size is " +
                         std::to_string(options->struct_size) +
                         "; call fx_compiler_options_init");
    constexpr size_t kVersion101Size = offsetof(fx_compiler_options, sub_batch);
    if (options->struct_size >= kVersion101Size && options->num_arguments) {
      if (!options->argument_ranks || !options->argument_shapes)
        return capi::error("fx_compiler_create: num_arguments is " +
                           std::to_string(options->num_arguments) +
                           " but argument_ranks or argument_shapes is null");
      for (size_t i = 0; i < options->num_arguments; ++i) {
        size_t rank = options->argument_ranks[i];
        const int64_t *sizes = options->argument_shapes[i];
        if (rank && !sizes)
          return capi::error("fx_compiler_create: argument_shapes[" +
                             std::to_string(i) + "] is null");
        std::vector<int64_t> shape(sizes, sizes + rank);
        for (int64_t size : shape)
          if (size < 0)
            return capi::error("fx_compiler_create: argument " +
                               std::to_string(i) + " has the size " +
                               std::to_string(size) +
                               "; sizes are non-negative");
        compilerOptions.argumentShapes.push_back(std::move(shape));
      }
    }
    if (options->target)
      compilerOptions.target = options->target;
    if (compilerOptions.target != "cpu" && compilerOptions.target != "vulkan")
      return capi::error("unknown target '" + compilerOptions.target +
                         "' (expected cpu or vulkan)");
    if (options->mode) {
      auto mode = parseMode(options->mode);
      if (!mode.isOk())
        return capi::error(mode.status());
      compilerOptions.mode = mode.value();
    }
    compilerOptions.fusion = options->fusion != 0;
    if (options->dump_dir)
      compilerOptions.dumpDir = options->dump_dir;
    if (options->cache_dir)
      compilerOptions.cacheDir = options->cache_dir;
    if (options->entry)
      compilerOptions.entry = options->entry;
    if (options->cpu)
      compilerOptions.cpu = options->cpu;
    compilerOptions.vulkanDevice = options->vulkan_device;
    if (options->struct_size >= sizeof(fx_compiler_options) &&
        options->sub_batch) {
      if (rt::Status s = checkSubBatch(options->sub_batch); !s.isOk())
        return capi::error("fx_compiler_create: sub_batch: " + s.message());
      compilerOptions.subBatch = options->sub_batch;
    }
  }
  *out = new fx_compiler{std::make_unique<Compiler>(compilerOptions)};
  return nullptr;
}

void fx_compiler_free(fx_compiler *compiler) { delete compiler; }

static fx_error *finish(rt::Result<std::unique_ptr<rt::Model>> model,
                        fx_model **out) {
  if (!model.isOk())
    return capi::error(model.status());
  *out = capi::wrapModel(model.take());
  return nullptr;
}

fx_error *fx_compiler_compile_file(fx_compiler *compiler, const char *path,
                                   fx_model **out) {
  if (!compiler || !path || !out)
    return capi::error("fx_compiler_compile_file: a pointer is null");
  return finish(compiler->compiler->compileFile(path), out);
}

fx_error *fx_compiler_compile_string(fx_compiler *compiler, const char *text,
                                     fx_model **out) {
  if (!compiler || !text || !out)
    return capi::error("fx_compiler_compile_string: a pointer is null");
  return finish(compiler->compiler->compileString(text), out);
}

fx_error *fx_compiler_save(fx_compiler *compiler, const char *path,
                           const char *artifact_path) {
  if (!compiler || !path || !artifact_path)
    return capi::error("fx_compiler_save: a pointer is null");
  auto artifact = compiler->compiler->compileFileToArtifact(path);
  if (!artifact.isOk())
    return capi::error(artifact.status());
  return capi::error(rt::writeArtifact(artifact_path, artifact.value()));
}

int fx_compiler_last_cache_hit(const fx_compiler *compiler) {
  return compiler->compiler->lastCompile().cacheHit;
}

double fx_compiler_last_milliseconds(const fx_compiler *compiler) {
  return compiler->compiler->lastCompile().milliseconds;
}

} // extern "C"

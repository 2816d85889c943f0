//===- Runtime.cpp - the C API over the runtime ---------------------------===//
//
// fx.h's error, tensor and model functions: thin wrappers over fx::rt that
// check every pointer and index they are given.
//
//===----------------------------------------------------------------------===//

#include "Handles.h"

using namespace fx;

static_assert(int(rt::DType::F32) == FX_DTYPE_F32 &&
                  int(rt::DType::F16) == FX_DTYPE_F16 &&
                  int(rt::DType::BF16) == FX_DTYPE_BF16 &&
                  int(rt::DType::F64) == FX_DTYPE_F64 &&
                  int(rt::DType::I64) == FX_DTYPE_I64 &&
                  int(rt::DType::I32) == FX_DTYPE_I32 &&
                  int(rt::DType::I8) == FX_DTYPE_I8 &&
                  int(rt::DType::U8) == FX_DTYPE_U8 &&
                  int(rt::DType::Bool) == FX_DTYPE_BOOL,
              "fx_dtype must mirror fx::rt::DType");

fx_error *capi::error(std::string message) {
  return new fx_error{std::move(message)};
}

fx_error *capi::error(const rt::Status &status) {
  return status.isOk() ? nullptr : error(status.message());
}

fx_model *capi::wrapModel(std::unique_ptr<rt::Model> model) {
  auto *handle = new fx_model;
  handle->inputs = model->inputs();
  handle->model = std::move(model);
  return handle;
}

/// The shape as a vector, or an error for a bad dtype or shape pointer.
static fx_error *toShape(fx_dtype dtype, const int64_t *shape, size_t rank,
                         std::vector<int64_t> &out) {
  if (int(dtype) < FX_DTYPE_F32 || int(dtype) > FX_DTYPE_BOOL)
    return capi::error("unknown dtype " + std::to_string(int(dtype)));
  if (rank && !shape)
    return capi::error("the shape is null but the rank is " +
                       std::to_string(rank));
  out.assign(shape, shape + rank);
  return nullptr;
}

extern "C" {

uint32_t fx_api_version(void) { return FX_API_VERSION; }

const char *fx_error_message(const fx_error *error) {
  return error ? error->message.c_str() : "no error";
}

void fx_error_free(fx_error *error) { delete error; }

fx_error *fx_tensor_create(fx_dtype dtype, const int64_t *shape, size_t rank,
                           fx_tensor **out) {
  if (!out)
    return capi::error("fx_tensor_create: out is null");
  std::vector<int64_t> dims;
  if (fx_error *e = toShape(dtype, shape, rank, dims))
    return e;
  auto tensor = rt::Tensor::tryAllocate(rt::DType(dtype), dims);
  if (!tensor.isOk())
    return capi::error(tensor.status());
  *out = new fx_tensor{tensor.take()};
  return nullptr;
}

fx_error *fx_tensor_wrap(void *data, fx_dtype dtype, const int64_t *shape,
                         size_t rank, fx_tensor **out) {
  if (!out)
    return capi::error("fx_tensor_wrap: out is null");
  std::vector<int64_t> dims;
  if (fx_error *e = toShape(dtype, shape, rank, dims))
    return e;
  for (int64_t d : dims)
    if (d < 0)
      return capi::error("fx_tensor_wrap: negative dimension " +
                         std::to_string(d));
  rt::Tensor tensor = rt::Tensor::wrap(data, rt::DType(dtype), dims);
  if (!data && tensor.byteSize())
    return capi::error("fx_tensor_wrap: data is null");
  *out = new fx_tensor{std::move(tensor)};
  return nullptr;
}

void fx_tensor_free(fx_tensor *tensor) { delete tensor; }

fx_dtype fx_tensor_dtype(const fx_tensor *tensor) {
  return fx_dtype(tensor->tensor.dtype());
}
size_t fx_tensor_rank(const fx_tensor *tensor) { return tensor->tensor.rank(); }
const int64_t *fx_tensor_shape(const fx_tensor *tensor) {
  return tensor->tensor.shape().data();
}
void *fx_tensor_data(fx_tensor *tensor) { return tensor->tensor.data(); }
size_t fx_tensor_byte_size(const fx_tensor *tensor) {
  return tensor->tensor.byteSize();
}

void fx_model_options_init(fx_model_options *options) {
  *options = fx_model_options{};
  options->struct_size = sizeof(fx_model_options);
  options->vulkan_device = -1;
}

fx_error *fx_model_load(const char *artifact_path,
                        const fx_model_options *options, fx_model **out) {
  if (!artifact_path || !out)
    return capi::error("fx_model_load: artifact_path or out is null");
  rt::ModelOptions modelOptions;
  if (options) {
    if (options->struct_size < sizeof(fx_model_options))
      return capi::error("fx_model_load: options.struct_size is " +
                         std::to_string(options->struct_size) +
                         "; call fx_model_options_init");
    modelOptions.entry = options->entry ? options->entry : "";
    modelOptions.target = options->target ? options->target : "";
    modelOptions.vulkan.device = options->vulkan_device;
    modelOptions.vulkan.validation = options->vulkan_validation != 0;
  }
  auto model = rt::Model::loadFile(artifact_path, modelOptions);
  if (!model.isOk())
    return capi::error(model.status());
  *out = capi::wrapModel(model.take());
  return nullptr;
}

void fx_model_free(fx_model *model) { delete model; }

const char *fx_model_name(const fx_model *model) {
  return model->model->name().c_str();
}
const char *fx_model_target(const fx_model *model) {
  return model->model->target().c_str();
}
size_t fx_model_num_inputs(const fx_model *model) {
  return model->inputs.size();
}
size_t fx_model_num_outputs(const fx_model *model) {
  return model->model->outputs().size();
}

// Accessors with an index out of range return null or zero.
static const rt::TensorSpec *inputSpec(const fx_model *model, size_t index) {
  return index < model->inputs.size() ? &model->inputs[index] : nullptr;
}
static const rt::TensorSpec *outputSpec(const fx_model *model, size_t index) {
  const auto &outputs = model->model->outputs();
  return index < outputs.size() ? &outputs[index] : nullptr;
}

const char *fx_model_input_name(const fx_model *model, size_t index) {
  const rt::TensorSpec *spec = inputSpec(model, index);
  return spec ? spec->name.c_str() : nullptr;
}
fx_dtype fx_model_input_dtype(const fx_model *model, size_t index) {
  const rt::TensorSpec *spec = inputSpec(model, index);
  return spec ? fx_dtype(spec->dtype) : FX_DTYPE_F32;
}
size_t fx_model_input_rank(const fx_model *model, size_t index) {
  const rt::TensorSpec *spec = inputSpec(model, index);
  return spec ? spec->shape.size() : 0;
}
const int64_t *fx_model_input_shape(const fx_model *model, size_t index) {
  const rt::TensorSpec *spec = inputSpec(model, index);
  return spec ? spec->shape.data() : nullptr;
}
fx_dtype fx_model_output_dtype(const fx_model *model, size_t index) {
  const rt::TensorSpec *spec = outputSpec(model, index);
  return spec ? fx_dtype(spec->dtype) : FX_DTYPE_F32;
}
size_t fx_model_output_rank(const fx_model *model, size_t index) {
  const rt::TensorSpec *spec = outputSpec(model, index);
  return spec ? spec->shape.size() : 0;
}
const int64_t *fx_model_output_shape(const fx_model *model, size_t index) {
  const rt::TensorSpec *spec = outputSpec(model, index);
  return spec ? spec->shape.data() : nullptr;
}

fx_error *fx_model_bind_weights(fx_model *model, const char *path) {
  if (!model || !path)
    return capi::error("fx_model_bind_weights: model or path is null");
  return capi::error(model->model->bindWeights(path));
}

fx_error *fx_model_set_parameter(fx_model *model, const char *name,
                                 const fx_tensor *tensor) {
  if (!model || !name || !tensor)
    return capi::error("fx_model_set_parameter: a pointer is null");
  return capi::error(model->model->setParameter(name, tensor->tensor));
}

/// The input tensors, or an error for null pointers.
static fx_error *gather(const fx_tensor *const *tensors, size_t count,
                        const char *what, std::vector<rt::Tensor> &out) {
  if (count && !tensors)
    return capi::error(std::string(what) + " is null");
  for (size_t i = 0; i < count; ++i) {
    if (!tensors[i])
      return capi::error(std::string(what) + "[" + std::to_string(i) +
                         "] is null");
    out.push_back(tensors[i]->tensor);
  }
  return nullptr;
}

fx_error *fx_model_run(fx_model *model, const fx_tensor *const *inputs,
                       size_t num_inputs, fx_tensor **outputs,
                       size_t num_outputs) {
  if (!model)
    return capi::error("fx_model_run: model is null");
  size_t expected = model->model->outputs().size();
  if (num_outputs != expected || (expected && !outputs))
    return capi::error("fx_model_run: the model has " +
                       std::to_string(expected) + " outputs, but room for " +
                       std::to_string(outputs ? num_outputs : 0) +
                       " was given");
  std::vector<rt::Tensor> in;
  if (fx_error *e = gather(inputs, num_inputs, "inputs", in))
    return e;
  auto result = model->model->run(in);
  if (!result.isOk())
    return capi::error(result.status());
  for (size_t i = 0; i < expected; ++i)
    outputs[i] = new fx_tensor{result.value()[i]};
  return nullptr;
}

fx_error *fx_model_run_into(fx_model *model, const fx_tensor *const *inputs,
                            size_t num_inputs, fx_tensor *const *outputs,
                            size_t num_outputs) {
  if (!model)
    return capi::error("fx_model_run_into: model is null");
  std::vector<rt::Tensor> in, out;
  if (fx_error *e = gather(inputs, num_inputs, "inputs", in))
    return e;
  if (fx_error *e = gather(outputs, num_outputs, "outputs", out))
    return e;
  return capi::error(model->model->runInto(in, out));
}

static fx_error *inPlace(fx_model *model, size_t index, fx_tensor **out,
                         bool input) {
  const char *name =
      input ? "fx_model_in_place_input" : "fx_model_in_place_output";
  if (!model || !out)
    return capi::error(std::string(name) + ": " + (model ? "out" : "model") +
                       " is null");
  auto tensors =
      input ? model->model->inPlaceInputs() : model->model->inPlaceOutputs();
  if (!tensors.isOk())
    return capi::error(tensors.status());
  if (index >= tensors.value().size())
    return capi::error(std::string(name) + ": index " + std::to_string(index) +
                       " out of range (the model has " +
                       std::to_string(tensors.value().size()) + ")");
  *out = new fx_tensor{tensors.value()[index]};
  return nullptr;
}

fx_error *fx_model_in_place_input(fx_model *model, size_t index,
                                  fx_tensor **out) {
  return inPlace(model, index, out, /*input=*/true);
}

fx_error *fx_model_in_place_output(fx_model *model, size_t index,
                                   fx_tensor **out) {
  return inPlace(model, index, out, /*input=*/false);
}

} // extern "C"

//===- Handles.h - what the C API's opaque handles hold ---------*- C++ -*-===//

#ifndef FX_LIB_CAPI_HANDLES_H
#define FX_LIB_CAPI_HANDLES_H

#include "fx/Runtime/Model.h"
#include "fx/fx.h"

#include <memory>
#include <string>

struct fx_error {
  std::string message;
};

struct fx_tensor {
  fx::rt::Tensor tensor;
};

struct fx_model {
  std::unique_ptr<fx::rt::Model> model;
  /// The run inputs (non-parameters), cached for the accessors.
  std::vector<fx::rt::TensorSpec> inputs;
};

namespace fx::capi {

/// A new error with `message`.
fx_error *error(std::string message);
/// Null for an ok status, else an error with its message.
fx_error *error(const rt::Status &status);
/// A handle for a loaded model.
fx_model *wrapModel(std::unique_ptr<rt::Model> model);

} // namespace fx::capi

#endif // FX_LIB_CAPI_HANDLES_H

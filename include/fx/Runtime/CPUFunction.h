//===- CPUFunction.h - calling compiled CPU code ----------------*- C++ -*-===//
//
// Calls a function compiled by fx-cpu-pipeline through its C interface. Plain
// C++: no MLIR or LLVM headers, so deployments carry only the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_CPUFUNCTION_H
#define FX_RUNTIME_CPUFUNCTION_H

#include "fx/Runtime/Status.h"
#include "fx/Runtime/Tensor.h"

#include <functional>
#include <string>
#include <vector>

namespace fx::rt {

/// A dimension that the argument's data decides (`?` in MLIR types): in the
/// runners' argument lists and in the signature of a model loaded from
/// entries of several shapes (fx-compile --dynamic-sizes).
constexpr int64_t kDynamicDim = -1;

/// The sizes one dimension of an input may take: torch.export.Dim's min and
/// max, which the importer records on the argument as
/// {fx_import.dim_ranges = {dimN = array<i64: MIN, MAX>}}. kUnboundedSize
/// as the max: no maximum.
struct DimRange {
  int64_t dim = 0, min = 0, max = 0;
  bool operator==(const DimRange &other) const {
    return dim == other.dim && min == other.min && max == other.max;
  }
};
constexpr int64_t kUnboundedSize = INT64_MAX;

/// The name, dtype and shape of one input or output.
struct TensorSpec {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  /// An input bound from the model's weights by `name` (an argument tagged
  /// {fx.param = "name"}) rather than given by the caller. Always false for
  /// outputs.
  bool parameter = false;
  /// Inputs: the ranges of sizes its (dynamic) dimensions may take; calls
  /// with sizes outside them are refused (checkRanges).
  std::vector<DimRange> ranges;

  /// E.g. "f32[2, 3]" (kDynamicDim prints as `?`).
  std::string str() const;
  /// Whether `dims` has this spec's rank and its dimensions where they are
  /// not kDynamicDim.
  bool admitsShape(const std::vector<int64_t> &dims) const;
  /// An error naming the first dimension of `dims` outside `ranges`
  /// (`what`: the input, as the message names it), else ok.
  Status checkRanges(const std::vector<int64_t> &dims,
                     const std::string &what) const;

  bool operator==(const TensorSpec &other) const {
    return name == other.name && dtype == other.dtype && shape == other.shape &&
           parameter == other.parameter;
  }
  bool operator!=(const TensorSpec &other) const { return !(*this == other); }
};

/// Inputs (in argument order) and outputs of a compiled entry point.
struct FunctionSignature {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;

  /// The inputs that are not parameters, e.g. "f32[2, 6], i64[2]".
  std::string inputsString() const;
  /// Checks a call's tensors against the signature: the counts, then each
  /// tensor's dtype and shape (errors name the input or output). Shared by
  /// every executor (CPU, Vulkan).
  Status checkArguments(const std::vector<Tensor> &inputs,
                        const std::vector<Tensor> &outputs) const;
  /// Zero-filled tensors for the outputs, filled by `runInto`: how every
  /// executor's `run` (outputs returned) builds on its `runInto` (outputs
  /// given).
  Result<std::vector<Tensor>> runWithNewOutputs(
      const std::function<Status(std::vector<Tensor> &)> &runInto) const;

  bool operator==(const FunctionSignature &other) const {
    return inputs == other.inputs && outputs == other.outputs;
  }
  bool operator!=(const FunctionSignature &other) const {
    return !(*this == other);
  }
};

/// The calling convention of compiled graphs: the packed wrapper of
/// `_mlir_ciface_<entry>`, called with `args[i]` pointing to a pointer to
/// the memref descriptor of input i, then of each output. Descriptors are
/// `{allocated, aligned, offset, sizes[rank], strides[rank]}` with 64-bit
/// fields; outputs are written into caller-provided buffers.
using PackedFunction = void (*)(void **);

/// A compiled entry point with its signature.
class CPUFunction {
public:
  CPUFunction(PackedFunction function, FunctionSignature signature)
      : function(function), sig(std::move(signature)) {}

  /// Code compiled for `subBatch` items of the outermost dimension of the
  /// inputs flagged in `sliced` (inputs past its end are not) and of every
  /// output (CPUCode::subBatch):
  /// runs take a whole batch and call the code once per consecutive slice.
  /// Errors: a sliced input or an output whose outermost dimension is not
  /// a multiple of `subBatch`, or that differs between them.
  Status setSubBatch(int64_t subBatch, std::vector<bool> sliced);
  int64_t subBatch() const { return subBatchItems; }

  const FunctionSignature &signature() const { return sig; }

  /// Checks `inputs` against the signature (count, dtype, shape; errors name
  /// the input), allocates the outputs and runs.
  Result<std::vector<Tensor>> run(const std::vector<Tensor> &inputs) const;

  /// Like run, writing into caller-provided `outputs` (checked likewise).
  Status runInto(const std::vector<Tensor> &inputs,
                 std::vector<Tensor> &outputs) const;

  /// Checks that `tensor` has `spec`'s dtype and a shape it admits (its
  /// dimensions where they are not kDynamicDim); `what` names it in the
  /// message.
  static Status check(const TensorSpec &spec, const Tensor &tensor,
                      const std::string &what);

private:
  PackedFunction function;
  FunctionSignature sig;
  /// 0: the code computes the whole signature at once.
  int64_t subBatchItems = 0, batchItems = 0;
  std::vector<bool> slicedInputs;
};

} // namespace fx::rt

#endif // FX_RUNTIME_CPUFUNCTION_H

//===- CPUFunction.cpp - calling compiled CPU code ------------------------===//

#include "fx/Runtime/CPUFunction.h"

#include <cstdint>
#include <sstream>

using namespace fx::rt;

std::string TensorSpec::str() const {
  std::ostringstream os;
  os << dtypeName(dtype) << "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    os << (i ? ", " : "");
    if (shape[i] == kDynamicDim)
      os << "?";
    else
      os << shape[i];
  }
  os << "]";
  return os.str();
}

std::string FunctionSignature::inputsString() const {
  std::string text;
  for (const TensorSpec &spec : inputs)
    if (!spec.parameter)
      text += (text.empty() ? "" : ", ") + spec.str();
  return text;
}

bool TensorSpec::admitsShape(const std::vector<int64_t> &dims) const {
  if (dims.size() != shape.size())
    return false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (shape[d] != kDynamicDim && shape[d] != dims[d])
      return false;
  return true;
}

Status TensorSpec::checkRanges(const std::vector<int64_t> &dims,
                               const std::string &what) const {
  for (const DimRange &range : ranges) {
    if (range.dim < 0 || size_t(range.dim) >= dims.size())
      continue;
    int64_t size = dims[range.dim];
    if (size >= range.min && size <= range.max)
      continue;
    return Status::error(
        what + " has size " + std::to_string(size) + " in dimension " +
        std::to_string(range.dim) +
        ", outside the range it was imported for: at least " +
        std::to_string(range.min) + " and " +
        (range.max == kUnboundedSize ? std::string("no maximum")
                                     : "at most " + std::to_string(range.max)) +
        " (torch.export.Dim's min and max, recorded as fx_import.dim_ranges). "
        "Pass a size in that range, or import the model with a Dim whose "
        "range holds this size");
  }
  return Status::ok();
}

Status CPUFunction::check(const TensorSpec &spec, const Tensor &tensor,
                          const std::string &what) {
  if (tensor.dtype() != spec.dtype || !spec.admitsShape(tensor.shape()))
    return Status::error(what + " expects " + spec.str() + ", got " +
                         dtypeName(tensor.dtype()) + tensor.shapeString());
  return spec.checkRanges(tensor.shape(), what);
}

namespace {
/// A memref descriptor laid out as 64-bit words, with row-major strides.
std::vector<int64_t> makeDescriptor(const Tensor &tensor) {
  const std::vector<int64_t> &shape = tensor.shape();
  size_t rank = shape.size();
  std::vector<int64_t> desc(3 + 2 * rank);
  auto ptr = reinterpret_cast<intptr_t>(tensor.data());
  desc[0] = static_cast<int64_t>(ptr);
  desc[1] = static_cast<int64_t>(ptr);
  desc[2] = 0;
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    desc[3 + i] = shape[i];
    desc[3 + rank + i] = stride;
    stride *= shape[i];
  }
  return desc;
}
} // namespace

Status
FunctionSignature::checkArguments(const std::vector<Tensor> &inputs,
                                  const std::vector<Tensor> &outputs) const {
  if (inputs.size() != this->inputs.size())
    return Status::error("expected " + std::to_string(this->inputs.size()) +
                         " inputs, got " + std::to_string(inputs.size()));
  if (outputs.size() != this->outputs.size())
    return Status::error("expected " + std::to_string(this->outputs.size()) +
                         " outputs, got " + std::to_string(outputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    Status s = CPUFunction::check(this->inputs[i], inputs[i],
                                  "input " + std::to_string(i) + " (" +
                                      this->inputs[i].name + ")");
    if (!s.isOk())
      return s;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    Status s = CPUFunction::check(this->outputs[i], outputs[i],
                                  "output " + std::to_string(i));
    if (!s.isOk())
      return s;
  }
  return Status::ok();
}

Result<std::vector<Tensor>> FunctionSignature::runWithNewOutputs(
    const std::function<Status(std::vector<Tensor> &)> &runInto) const {
  std::vector<Tensor> tensors;
  for (const TensorSpec &spec : outputs) {
    Result<Tensor> t = Tensor::tryAllocate(spec.dtype, spec.shape);
    if (!t.isOk())
      return t.status();
    tensors.push_back(t.take());
  }
  if (Status s = runInto(tensors); !s.isOk())
    return s;
  return tensors;
}

Status CPUFunction::setSubBatch(int64_t subBatch, std::vector<bool> sliced) {
  if (subBatch < 1)
    return Status::error("a sub-batch of " + std::to_string(subBatch));
  sliced.resize(sig.inputs.size(), false);
  int64_t batch = -1;
  auto check = [&](const TensorSpec &spec, const std::string &what) {
    int64_t outer = spec.shape.empty() ? -1 : spec.shape[0];
    if (outer < 1 || outer % subBatch || (batch >= 0 && outer != batch))
      return Status::error(
          "the CPU code computes " + std::to_string(subBatch) +
          " items at a time, which do not divide " + what + " " + spec.str() +
          (batch >= 0 ? " into batches of " + std::to_string(batch) : ""));
    batch = outer;
    return Status::ok();
  };
  for (size_t i = 0; i < sig.inputs.size(); ++i)
    if (sliced[i])
      if (Status s = check(sig.inputs[i], "input " + std::to_string(i));
          !s.isOk())
        return s;
  for (size_t i = 0; i < sig.outputs.size(); ++i)
    if (Status s = check(sig.outputs[i], "output " + std::to_string(i));
        !s.isOk())
      return s;
  if (batch < 0)
    return Status::error("a sub-batch for code without batched tensors");
  subBatchItems = subBatch;
  batchItems = batch;
  slicedInputs = std::move(sliced);
  return Status::ok();
}

Status CPUFunction::runInto(const std::vector<Tensor> &inputs,
                            std::vector<Tensor> &outputs) const {
  if (Status s = sig.checkArguments(inputs, outputs); !s.isOk())
    return s;
  std::vector<std::vector<int64_t>> descriptors;
  descriptors.reserve(inputs.size() + outputs.size());
  for (const Tensor &t : inputs)
    descriptors.push_back(makeDescriptor(t));
  for (const Tensor &t : outputs)
    descriptors.push_back(makeDescriptor(t));
  std::vector<void *> descriptorPtrs;
  for (auto &d : descriptors)
    descriptorPtrs.push_back(d.data());
  std::vector<void *> args;
  for (void *&p : descriptorPtrs)
    args.push_back(&p);
  if (!subBatchItems) {
    function(args.data());
    return Status::ok();
  }
  // One call per slice of subBatchItems items: the sliced tensors'
  // descriptors take the slice's size and point at it (the code's memrefs
  // have a static offset of 0); the others stay as they are.
  struct Slice {
    std::vector<int64_t> *descriptor;
    int64_t base, itemBytes;
  };
  std::vector<Slice> slices;
  for (size_t i = 0; i < descriptors.size(); ++i) {
    bool isInput = i < inputs.size();
    if (isInput && !slicedInputs[i])
      continue;
    const Tensor &t = isInput ? inputs[i] : outputs[i - inputs.size()];
    std::vector<int64_t> &d = descriptors[i];
    size_t rank = t.shape().size();
    d[3] = subBatchItems;
    slices.push_back({&d, d[0], d[3 + rank] * int64_t(dtypeSize(t.dtype()))});
  }
  for (int64_t first = 0; first < batchItems; first += subBatchItems) {
    for (Slice &slice : slices)
      (*slice.descriptor)[0] = (*slice.descriptor)[1] =
          slice.base + first * slice.itemBytes;
    function(args.data());
  }
  return Status::ok();
}

Result<std::vector<Tensor>>
CPUFunction::run(const std::vector<Tensor> &inputs) const {
  return sig.runWithNewOutputs(
      [&](std::vector<Tensor> &outputs) { return runInto(inputs, outputs); });
}

//===- Model.cpp - a compiled entry point loaded for running --------------===//

#include "fx/Runtime/Model.h"

#include "fx/Runtime/CPULibrary.h"
#include "fx/Runtime/Safetensors.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <shared_mutex>

namespace fx::rt {

struct Model::Impl {
  /// One compiled shape of the entry: artifacts compiled with
  /// `fx-compile --dynamic-sizes` hold several entries of one name that
  /// differ in their inputs' shapes.
  struct Variant {
    FunctionSignature signature;
    std::unique_ptr<CPULibrary> cpu;
    std::unique_ptr<vk::Executable> vulkan;
  };
  std::vector<Variant> variants;
  /// The variants' signature, with kDynamicDim where their shapes differ.
  FunctionSignature signature;
  /// The bound parameters, by argument index (empty for inputs).
  std::vector<std::optional<Tensor>> parameters;
  std::shared_ptr<vk::Context> context;
  /// The variant of the last run (for profiles).
  std::atomic<size_t> last{0};
  bool profiling = false;
  /// inPlaceInputs / inPlaceOutputs of a CPU model, made on first use.
  std::optional<std::vector<Tensor>> cpuInputs, cpuOutputs;
  /// Runs share it (CPU code keeps no state between calls, and a Vulkan
  /// executable serializes its own runs); binding parameters takes it alone.
  std::shared_mutex mutex;

  /// The variant whose input shapes `arguments` (all of them) have.
  Result<Variant *> pick(const std::vector<Tensor> &arguments) {
    if (variants.size() == 1)
      return &variants.front();
    // A variant compiled for these shapes, else one sized at run time (a
    // Vulkan program with dynamic dimensions).
    for (bool exact : {true, false})
      for (size_t v = 0; v < variants.size(); ++v) {
        const FunctionSignature &sig = variants[v].signature;
        bool match = sig.inputs.size() == arguments.size();
        for (size_t i = 0; match && i < arguments.size(); ++i)
          match = exact ? arguments[i].shape() == sig.inputs[i].shape
                        : sig.inputs[i].admitsShape(arguments[i].shape());
        if (match) {
          last = v;
          return &variants[v];
        }
      }
    std::string shapes, compiled;
    for (size_t i = 0; i < arguments.size() && i < signature.inputs.size(); ++i)
      if (!signature.inputs[i].parameter)
        shapes += (shapes.empty() ? "" : ", ") + arguments[i].shapeString();
    for (const Variant &variant : variants)
      compiled +=
          (compiled.empty() ? "" : "; ") + variant.signature.inputsString();
    return Status::error("no compiled shape for inputs " + shapes +
                         " (compiled for: " + compiled +
                         "; fx-compile --dynamic-sizes adds sizes)");
  }

  Result<std::vector<Tensor>> runAll(const std::vector<Tensor> &arguments) {
    auto variant = pick(arguments);
    if (!variant.isOk())
      return variant.status();
    if (variant.value()->cpu)
      return variant.value()->cpu->run(arguments);
    return variant.value()->vulkan->run(arguments);
  }
  Status runAllInto(const std::vector<Tensor> &arguments,
                    std::vector<Tensor> &outputs) {
    auto variant = pick(arguments);
    if (!variant.isOk())
      return variant.status();
    if (variant.value()->cpu)
      return variant.value()->cpu->runInto(arguments, outputs);
    return variant.value()->vulkan->runInto(arguments, outputs);
  }

  /// Parameters computed from the bound ones (CPU code with a prepare
  /// function) are computed again at the next run: a rebinding may reuse
  /// a tensor whose contents changed.
  void invalidatePrepared() {
    for (Variant &variant : variants) {
      if (variant.cpu)
        variant.cpu->invalidatePrepared();
      // Bound again, perhaps the same memory with new contents.
      if (variant.vulkan)
        variant.vulkan->forgetResidentParameters();
    }
  }

  /// The full argument list: `inputs` (checked) and the bound parameters.
  Result<std::vector<Tensor>> arguments(const std::vector<Tensor> &inputs) {
    std::vector<Tensor> all;
    size_t next = 0, expected = 0;
    for (const TensorSpec &spec : signature.inputs)
      expected += !spec.parameter;
    if (inputs.size() != expected)
      return Status::error("expected " + std::to_string(expected) +
                           " inputs (besides parameters), got " +
                           std::to_string(inputs.size()));
    for (size_t i = 0; i < signature.inputs.size(); ++i) {
      const TensorSpec &spec = signature.inputs[i];
      if (spec.parameter) {
        if (!parameters[i])
          return Status::error("parameter '" + spec.name +
                               "' is not bound (bind the weights first)");
        all.push_back(*parameters[i]);
        continue;
      }
      if (Status s = CPUFunction::check(spec, inputs[next],
                                        "input " + std::to_string(next));
          !s.isOk())
        return s;
      all.push_back(inputs[next++]);
    }
    return all;
  }
};

/// The signature of `variants` (entries of one name): theirs, with
/// kDynamicDim where their shapes differ; an error if they are not shape
/// variants (readers reject those, but artifacts built in memory are not
/// read).
static Result<FunctionSignature>
mergeVariants(const std::vector<const ArtifactEntry *> &variants) {
  FunctionSignature merged = variants.front()->signature;
  auto mergeList = [](std::vector<TensorSpec> &into,
                      const std::vector<TensorSpec> &from) {
    for (size_t i = 0; i < into.size(); ++i)
      for (size_t d = 0; d < into[i].shape.size(); ++d)
        if (into[i].shape[d] != from[i].shape[d])
          into[i].shape[d] = kDynamicDim;
  };
  for (const ArtifactEntry *other : variants) {
    if (!areShapeVariants(variants.front()->signature, other->signature))
      return Status::error(
          "the entries named '" + other->name +
          "' differ in more than their input and output shapes");
    mergeList(merged.inputs, other->signature.inputs);
    mergeList(merged.outputs, other->signature.outputs);
  }
  return merged;
}

Model::Model(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Model::~Model() = default;

Result<std::unique_ptr<Model>> Model::load(const Artifact &artifact,
                                           const ModelOptions &options) {
  return load(artifact, options, "");
}

Result<std::unique_ptr<Model>> Model::load(const Artifact &artifact,
                                           const ModelOptions &options,
                                           const std::string &origin) {
  // Errors about the artifact's contents name the file it came from.
  auto artifactError = [&](const std::string &message) {
    return Status::error((origin.empty() ? "" : origin + ": ") + message);
  };
  // Entries of one name are shapes of one entry point (--dynamic-sizes).
  std::vector<std::string> distinct;
  for (const ArtifactEntry &entry : artifact.entries)
    if (std::find(distinct.begin(), distinct.end(), entry.name) ==
        distinct.end())
      distinct.push_back(entry.name);
  std::string names;
  for (const std::string &name : distinct)
    names += (names.empty() ? "" : ", ") + name;
  std::string wanted = options.entry;
  if (wanted.empty()) {
    if (distinct.empty())
      return artifactError("the artifact has no entries");
    if (distinct.size() > 1)
      return artifactError("the artifact has " +
                           std::to_string(distinct.size()) + " entries (" +
                           names + "); choose one by name (--entry)");
    wanted = distinct.front();
  }
  std::vector<const ArtifactEntry *> variants;
  for (const ArtifactEntry &entry : artifact.entries)
    if (entry.name == wanted)
      variants.push_back(&entry);
  if (variants.empty())
    return artifactError("no entry named '" + wanted +
                         "' (the artifact has: " + names + ")");
  const ArtifactEntry *entry = variants.front();
  auto merged = mergeVariants(variants);
  if (!merged.isOk())
    return artifactError(merged.message());

  std::string target = options.target;
  if (target.empty())
    target = entry->cpu ? "cpu" : "vulkan";
  auto impl = std::make_unique<Impl>();
  impl->signature = merged.take();
  impl->parameters.resize(impl->signature.inputs.size());
  if (target != "cpu" && target != "vulkan")
    return Status::error("unknown target '" + target +
                         "' (expected cpu or vulkan)");
  for (const ArtifactEntry *variant : variants) {
    std::string has = std::string(variant->cpu ? "cpu" : "") +
                      (variant->cpu && variant->vulkan ? ", " : "") +
                      (variant->vulkan ? "vulkan" : "");
    if ((target == "cpu" && !variant->cpu) ||
        (target == "vulkan" && !variant->vulkan))
      return artifactError("entry '" + variant->name + "' has no " + target +
                           " code (it has: " + (has.empty() ? "none" : has) +
                           "; compile with fx-compile --target " + target +
                           " or all)");
    Impl::Variant &loaded = impl->variants.emplace_back();
    loaded.signature = variant->signature;
    if (target == "cpu") {
      auto library = CPULibrary::load(*variant->cpu, variant->signature);
      if (!library.isOk())
        return artifactError("entry '" + variant->name +
                             "': " + library.message());
      loaded.cpu = library.take();
      continue;
    }
    if (!impl->context) {
      impl->context = options.context;
      if (!impl->context) {
        auto context = vk::Context::create(options.vulkan);
        if (!context.isOk())
          return context.status();
        impl->context = context.take();
      }
    }
    auto executable = vk::Executable::load(impl->context, *variant->vulkan);
    if (!executable.isOk())
      return executable.status();
    loaded.vulkan = executable.take();
  }
  std::unique_ptr<Model> model(new Model(std::move(impl)));
  model->entryName = entry->name;
  model->targetName = target;
  return model;
}

Result<std::unique_ptr<Model>> Model::loadFile(const std::string &path,
                                               const ModelOptions &options) {
  auto artifact = readArtifact(path);
  if (!artifact.isOk())
    return artifact.status();
  return load(artifact.value(), options, path);
}

const FunctionSignature &Model::signature() const { return impl->signature; }

std::vector<TensorSpec> Model::inputs() const {
  std::vector<TensorSpec> result;
  for (const TensorSpec &spec : impl->signature.inputs)
    if (!spec.parameter)
      result.push_back(spec);
  return result;
}

const std::vector<TensorSpec> &Model::outputs() const {
  return impl->signature.outputs;
}

Status Model::bindWeights(const std::string &path) {
  auto file = SafetensorsFile::open(path);
  if (!file.isOk())
    return file.status();
  std::vector<std::optional<Tensor>> bound(impl->parameters.size());
  for (size_t i = 0; i < impl->signature.inputs.size(); ++i) {
    const TensorSpec &spec = impl->signature.inputs[i];
    if (!spec.parameter)
      continue;
    std::string what = "parameter '" + spec.name + "'";
    if (!file.value().contains(spec.name))
      return Status::error(what + " is not in " + path);
    auto tensor = file.value().get(spec.name);
    if (!tensor.isOk())
      return tensor.status();
    if (Status s =
            CPUFunction::check(spec, tensor.value(), what + " in " + path);
        !s.isOk())
      return s;
    bound[i] = tensor.take();
  }
  std::unique_lock<std::shared_mutex> lock(impl->mutex);
  for (size_t i = 0; i < bound.size(); ++i)
    if (bound[i])
      impl->parameters[i] = std::move(bound[i]);
  impl->invalidatePrepared();
  return Status::ok();
}

Status Model::setParameter(const std::string &name, const Tensor &tensor) {
  for (size_t i = 0; i < impl->signature.inputs.size(); ++i) {
    const TensorSpec &spec = impl->signature.inputs[i];
    if (!spec.parameter || spec.name != name)
      continue;
    if (Status s = CPUFunction::check(spec, tensor, "parameter '" + name + "'");
        !s.isOk())
      return s;
    std::unique_lock<std::shared_mutex> lock(impl->mutex);
    impl->parameters[i] = tensor;
    impl->invalidatePrepared();
    return Status::ok();
  }
  return Status::error("'" + entryName + "' has no parameter named '" + name +
                       "'");
}

std::vector<std::string> Model::unboundParameters() const {
  std::shared_lock<std::shared_mutex> lock(impl->mutex);
  std::vector<std::string> names;
  for (size_t i = 0; i < impl->signature.inputs.size(); ++i)
    if (impl->signature.inputs[i].parameter && !impl->parameters[i])
      names.push_back(impl->signature.inputs[i].name);
  return names;
}

Result<std::vector<Tensor>> Model::run(const std::vector<Tensor> &inputs) {
  std::shared_lock<std::shared_mutex> lock(impl->mutex);
  auto all = impl->arguments(inputs);
  if (!all.isOk())
    return all.status();
  return impl->runAll(all.value());
}

Status Model::runInto(const std::vector<Tensor> &inputs,
                      std::vector<Tensor> &outputs) {
  std::shared_lock<std::shared_mutex> lock(impl->mutex);
  auto all = impl->arguments(inputs);
  if (!all.isOk())
    return all.status();
  return impl->runAllInto(all.value(), outputs);
}

/// The in-place inputs (outputs) of `impl`'s only variant: the Vulkan
/// executable's host views, or tensors the model keeps for CPU code.
static Result<std::vector<Tensor>> inPlaceTensors(Model::Impl &impl,
                                                  bool inputs) {
  if (impl.variants.size() != 1)
    return Status::error(
        "the model holds " + std::to_string(impl.variants.size()) +
        " compiled shapes; in-place inputs and outputs need a single one");
  Model::Impl::Variant &variant = impl.variants.front();
  std::optional<std::vector<Tensor>> &kept =
      inputs ? impl.cpuInputs : impl.cpuOutputs;
  if (!variant.vulkan && kept)
    return *kept;
  const FunctionSignature &sig = variant.signature;
  const std::vector<TensorSpec> &specs = inputs ? sig.inputs : sig.outputs;
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (inputs && specs[i].parameter)
      continue;
    Result<Tensor> t = !variant.vulkan
                           ? Tensor::tryAllocate(specs[i].dtype, specs[i].shape)
                       : inputs ? variant.vulkan->hostInput(i)
                                : variant.vulkan->hostOutput(i);
    if (!t.isOk())
      return t.status();
    tensors.push_back(t.take());
  }
  if (!variant.vulkan)
    kept = tensors;
  return tensors;
}

Result<std::vector<Tensor>> Model::inPlaceInputs() {
  std::unique_lock<std::shared_mutex> lock(impl->mutex);
  return inPlaceTensors(*impl, /*inputs=*/true);
}

Result<std::vector<Tensor>> Model::inPlaceOutputs() {
  std::unique_lock<std::shared_mutex> lock(impl->mutex);
  return inPlaceTensors(*impl, /*inputs=*/false);
}

Executor Model::executor() {
  Executor executor;
  Impl *state = impl.get();
  executor.run = [state](const std::vector<Tensor> &in) {
    return state->runAll(in);
  };
  executor.runInto = [state](const std::vector<Tensor> &in,
                             std::vector<Tensor> &out) {
    return state->runAllInto(in, out);
  };
  if (!state->context && state->profiling) {
    executor.profiledOn = "CPU";
    executor.lastProfile = [state]() -> Result<std::vector<StepTime>> {
      return state->variants[state->last.load()].cpu->lastProfile();
    };
    executor.pauseProfiling = [state](bool paused) {
      for (Impl::Variant &variant : state->variants)
        variant.cpu->setProfilingPaused(paused);
    };
  }
  if (state->context) {
    executor.validationErrors = [state] {
      return state->context->validationErrors();
    };
    executor.memoryUse = [state] {
      vk::Executable::MemoryUse total;
      for (const Impl::Variant &variant : state->variants) {
        vk::Executable::MemoryUse one = variant.vulkan->memoryUse();
        total.totalBytes += one.totalBytes;
        total.arenaBytes += one.arenaBytes;
      }
      return total;
    };
    executor.lastCallTimes = [state] {
      return state->variants[state->last.load()].vulkan->lastCallTimes();
    };
    if (state->profiling) {
      executor.lastProfile = [state] {
        return state->variants[state->last.load()].vulkan->lastProfile();
      };
      executor.pauseProfiling = [state](bool paused) {
        for (Impl::Variant &variant : state->variants)
          variant.vulkan->setProfilingPaused(paused);
      };
    }
  }
  return executor;
}

Status Model::enableProfiling() {
  for (Impl::Variant &variant : impl->variants) {
    if (variant.cpu)
      variant.cpu->enableProfiling();
    else if (Status s = variant.vulkan->enableProfiling(); !s.isOk())
      return s;
  }
  impl->profiling = true;
  return Status::ok();
}

Result<int> runArtifact(const ArtifactRunOptions &options,
                        const OutputSink &out) {
  auto start = std::chrono::steady_clock::now();
  auto loaded = Model::loadFile(options.artifact, options.model);
  if (!loaded.isOk())
    return loaded.status();
  std::unique_ptr<Model> model = loaded.take();
  RunOptions run = options.run;
  run.prepareLabel = "load";
  run.prepareMs = millisecondsSince(start);
  auto arguments =
      bindArguments(model->name(), model->signature().inputs, options.sources);
  if (!arguments.isOk())
    return arguments.status();
  if (options.profile)
    if (Status s = model->enableProfiling(); !s.isOk())
      return s;
  Executor executor = model->executor();
  std::vector<Tensor> all = arguments.take();
  if (options.inPlaceIO) {
    auto inputs = model->inPlaceInputs();
    if (!inputs.isOk())
      return inputs.status();
    auto outputs = model->inPlaceOutputs();
    if (!outputs.isOk())
      return outputs.status();
    size_t next = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (model->signature().inputs[i].parameter)
        continue;
      Tensor &target = inputs.value()[next++];
      std::memcpy(target.data(), all[i].data(),
                  std::min(target.byteSize(), all[i].byteSize()));
      all[i] = target;
    }
    executor.run =
        [runInto = executor.runInto, outs = outputs.take()](
            const std::vector<Tensor> &in) -> Result<std::vector<Tensor>> {
      std::vector<Tensor> result = outs;
      if (Status s = runInto(in, result); !s.isOk())
        return s;
      return result;
    };
  }
  auto passed = runAndReport(executor, all, run, out);
  if (!passed.isOk())
    return passed.status();
  return passed.value() ? kExitOk : kExitMismatch;
}

} // namespace fx::rt

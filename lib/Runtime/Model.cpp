//===- Model.cpp - a compiled entry point loaded for running --------------===//

#include "fx/Runtime/Model.h"

#include "fx/Runtime/CpuLibrary.h"
#include "fx/Runtime/Safetensors.h"

#include <chrono>
#include <optional>

namespace fx::rt {

struct Model::Impl {
  FunctionSignature signature;
  /// The bound parameters, by argument index (empty for inputs).
  std::vector<std::optional<Tensor>> parameters;
  std::unique_ptr<CpuLibrary> cpu;
  std::shared_ptr<vk::Context> context;
  std::unique_ptr<vk::Executable> vulkan;
  bool profiling = false;

  Result<std::vector<Tensor>> runAll(const std::vector<Tensor> &arguments) {
    if (cpu)
      return cpu->function().run(arguments);
    return vulkan->run(arguments);
  }
  Status runAllInto(const std::vector<Tensor> &arguments,
                    std::vector<Tensor> &outputs) {
    if (cpu)
      return cpu->function().runInto(arguments, outputs);
    return vulkan->runInto(arguments, outputs);
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
      std::string what = "input " + std::to_string(next);
      if (Status s = CpuFunction::check(spec, inputs[next], what); !s.isOk())
        return s;
      all.push_back(inputs[next++]);
    }
    return all;
  }
};

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
  std::string names;
  for (const ArtifactEntry &entry : artifact.entries)
    names += (names.empty() ? "" : ", ") + entry.name;
  const ArtifactEntry *entry = nullptr;
  if (!options.entry.empty()) {
    entry = artifact.find(options.entry);
    if (!entry)
      return artifactError("no entry named '" + options.entry +
                           "' (the artifact has: " + names + ")");
  } else if (artifact.entries.size() == 1) {
    entry = &artifact.entries.front();
  } else if (artifact.entries.empty()) {
    return artifactError("the artifact has no entries");
  } else {
    return artifactError(
        "the artifact has " + std::to_string(artifact.entries.size()) +
        " entries (" + names + "); choose one by name (--entry)");
  }

  std::string target = options.target;
  if (target.empty())
    target = entry->cpu ? "cpu" : "vulkan";
  auto impl = std::make_unique<Impl>();
  impl->signature = entry->signature;
  impl->parameters.resize(entry->signature.inputs.size());
  std::string has = std::string(entry->cpu ? "cpu" : "") +
                    (entry->cpu && entry->vulkan ? ", " : "") +
                    (entry->vulkan ? "vulkan" : "");
  auto noCode = [&] {
    return artifactError("entry '" + entry->name + "' has no " + target +
                         " code (it has: " + (has.empty() ? "none" : has) +
                         "; compile with fx-compile --target " + target +
                         " or all)");
  };
  if (target == "cpu") {
    if (!entry->cpu)
      return noCode();
    auto library = CpuLibrary::load(*entry->cpu, entry->signature);
    if (!library.isOk())
      return artifactError("entry '" + entry->name + "': " + library.message());
    impl->cpu = library.take();
  } else if (target == "vulkan") {
    if (!entry->vulkan)
      return noCode();
    impl->context = options.context;
    if (!impl->context) {
      auto context = vk::Context::create(options.vulkan);
      if (!context.isOk())
        return context.status();
      impl->context = context.take();
    }
    auto executable = vk::Executable::load(impl->context, *entry->vulkan);
    if (!executable.isOk())
      return executable.status();
    impl->vulkan = executable.take();
  } else {
    return Status::error("unknown target '" + target +
                         "' (expected cpu or vulkan)");
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
            CpuFunction::check(spec, tensor.value(), what + " in " + path);
        !s.isOk())
      return s;
    bound[i] = tensor.take();
  }
  for (size_t i = 0; i < bound.size(); ++i)
    if (bound[i])
      impl->parameters[i] = std::move(bound[i]);
  return Status::ok();
}

Status Model::setParameter(const std::string &name, const Tensor &tensor) {
  for (size_t i = 0; i < impl->signature.inputs.size(); ++i) {
    const TensorSpec &spec = impl->signature.inputs[i];
    if (!spec.parameter || spec.name != name)
      continue;
    if (Status s = CpuFunction::check(spec, tensor, "parameter '" + name + "'");
        !s.isOk())
      return s;
    impl->parameters[i] = tensor;
    return Status::ok();
  }
  return Status::error("'" + entryName + "' has no parameter named '" + name +
                       "'");
}

std::vector<std::string> Model::unboundParameters() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < impl->signature.inputs.size(); ++i)
    if (impl->signature.inputs[i].parameter && !impl->parameters[i])
      names.push_back(impl->signature.inputs[i].name);
  return names;
}

Result<std::vector<Tensor>> Model::run(const std::vector<Tensor> &inputs) {
  auto all = impl->arguments(inputs);
  if (!all.isOk())
    return all.status();
  return impl->runAll(all.value());
}

Status Model::runInto(const std::vector<Tensor> &inputs,
                      std::vector<Tensor> &outputs) {
  auto all = impl->arguments(inputs);
  if (!all.isOk())
    return all.status();
  return impl->runAllInto(all.value(), outputs);
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
  if (state->vulkan) {
    executor.validationErrors = [state] {
      return state->context->validationErrors();
    };
    executor.memoryUse = [state] { return state->vulkan->memoryUse(); };
    if (state->profiling)
      executor.lastProfile = [state] { return state->vulkan->lastProfile(); };
  }
  return executor;
}

Status Model::enableProfiling() {
  if (!impl->vulkan)
    return Status::error("--profile needs the vulkan target (GPU "
                         "timestamps); this model runs on the " +
                         targetName);
  Status s = impl->vulkan->enableProfiling();
  impl->profiling = s.isOk();
  return s;
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
  auto passed = runAndReport(executor, arguments.value(), run, out);
  if (!passed.isOk())
    return passed.status();
  return passed.value() ? kExitOk : kExitMismatch;
}

} // namespace fx::rt

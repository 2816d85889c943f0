//===- Runner.cpp - what the command-line runners share -------------------===//
//
// The output text is part of the tools' interface (lit tests check it), so
// numbers are formatted with printf formats, exactly as fx-run printed them
// through llvm::format before this code was shared.
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/Runner.h"

#include "fx/Runtime/NumpyIO.h"
#include "fx/Runtime/Safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <optional>

using namespace fx::rt;

namespace {

/// printf into a std::string.
__attribute__((format(printf, 1, 2))) std::string format(const char *fmt, ...) {
  va_list args, copy;
  va_start(args, fmt);
  va_copy(copy, args);
  int length = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string text(length > 0 ? size_t(length) : 0, '\0');
  if (length > 0)
    std::vsnprintf(text.data(), text.size() + 1, fmt, args);
  va_end(args);
  return text;
}

/// A double as llvm::raw_ostream prints one ("%.6e", "nan", "INF", "-INF"),
/// which is what fx-run's output summaries have always shown.
std::string formatDouble(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return std::signbit(value) ? "-INF" : "INF";
  return format("%.6e", value);
}

bool endsWith(const std::string &text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status writeOutputs(const std::string &path,
                    const std::vector<Tensor> &outputs) {
  if (outputs.size() == 1 && endsWith(path, ".npy"))
    return writeNpy(path, outputs.front());
  if (!endsWith(path, ".npz"))
    return Status::error("--output must end in .npz for " +
                         std::to_string(outputs.size()) +
                         " outputs, or .npy for one");
  std::vector<std::pair<std::string, Tensor>> named;
  for (size_t i = 0; i < outputs.size(); ++i)
    named.push_back({"output" + std::to_string(i), outputs[i]});
  return writeNpz(path, named);
}

/// Compares `outputs` with the arrays of `path`, printing one line per
/// output and PASS or FAIL.
Result<bool> compareWithExpected(const std::vector<Tensor> &outputs,
                                 const std::string &path, double rtol,
                                 double atol, const OutputSink &out) {
  std::vector<Tensor> refs;
  if (endsWith(path, ".npz")) {
    auto loaded = readNpz(path);
    if (!loaded.isOk())
      return loaded.status();
    for (auto &entry : loaded.value())
      refs.push_back(entry.second);
  } else {
    auto loaded = readNpy(path);
    if (!loaded.isOk())
      return loaded.status();
    refs.push_back(loaded.take());
  }
  if (refs.size() != outputs.size())
    return Status::error(path + " holds " + std::to_string(refs.size()) +
                         " arrays but the function has " +
                         std::to_string(outputs.size()) + " outputs");
  bool ok = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (refs[i].shape() != outputs[i].shape())
      return Status::error("output " + std::to_string(i) + " has shape " +
                           outputs[i].shapeString() +
                           " but the expected array has " +
                           refs[i].shapeString());
    Comparison c = compareTensors(outputs[i], refs[i], rtol, atol);
    out(format("output %zu: max abs error %.3g, max rel error %.3g, %zu of "
               "%zu elements outside rtol=%g atol=%g\n",
               i, c.maxAbs, c.maxRel, c.mismatches, outputs[i].numel(), rtol,
               atol));
    ok &= c.mismatches == 0;
  }
  out(ok ? "PASS\n" : "FAIL: outputs differ from " + path + "\n");
  return ok;
}

} // namespace

std::string fx::rt::tensorTypeString(DType dtype,
                                     const std::vector<int64_t> &shape) {
  std::string text = "tensor<";
  for (int64_t dim : shape)
    text += (dim == kDynamicDim ? "?" : std::to_string(dim)) + "x";
  return text + dtypeName(dtype) + ">";
}

Result<Tensor> fx::rt::makeRandom(const TensorSpec &spec,
                                  std::mt19937_64 &rng) {
  // Floats are drawn as f32 and integers as i64, then cast: one seed gives
  // the same values whatever the width.
  bool isFloat = spec.dtype == DType::F32 || spec.dtype == DType::F16 ||
                 spec.dtype == DType::BF16;
  bool isInteger = spec.dtype == DType::I64 || spec.dtype == DType::I32;
  DType drawn = isFloat ? DType::F32 : isInteger ? DType::I64 : spec.dtype;
  Result<Tensor> allocated = Tensor::tryAllocate(drawn, spec.shape);
  if (!allocated.isOk())
    return allocated;
  Tensor t = allocated.take();
  size_t n = t.numel();
  if (isFloat) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t i = 0; i < n; ++i)
      t.dataAs<float>()[i] = dist(rng);
  } else if (isInteger) {
    std::uniform_int_distribution<int64_t> dist(0, 9);
    for (size_t i = 0; i < n; ++i)
      t.dataAs<int64_t>()[i] = dist(rng);
  } else {
    std::bernoulli_distribution dist(0.5);
    for (size_t i = 0; i < n; ++i)
      t.dataAs<uint8_t>()[i] = dist(rng);
  }
  if (drawn == spec.dtype)
    return t;
  return t.castTo(spec.dtype);
}

Result<std::vector<Tensor>>
fx::rt::bindArguments(const std::string &function,
                      const std::vector<TensorSpec> &arguments,
                      const ArgumentSources &sources) {
  std::optional<SafetensorsFile> weightFile;
  if (!sources.weights.empty()) {
    auto opened = SafetensorsFile::open(sources.weights);
    if (!opened.isOk())
      return opened.status();
    weightFile.emplace(opened.take());
  }
  size_t numInputs =
      std::count_if(arguments.begin(), arguments.end(),
                    [](const TensorSpec &spec) { return !spec.parameter; });
  if (!sources.inputs.empty() && sources.inputs.size() != numInputs)
    return Status::error(
        "'" + function + "' takes " + std::to_string(numInputs) +
        " inputs besides parameters, but " +
        std::to_string(sources.inputs.size()) + " --input files were given");
  std::mt19937_64 rng(sources.seed);
  std::vector<Tensor> tensors;
  size_t nextInput = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const TensorSpec &spec = arguments[i];
    std::string what = "argument " + std::to_string(i);
    Tensor tensor;
    std::string source;
    if (spec.parameter) {
      what += " (parameter '" + spec.name + "')";
      if (!weightFile)
        return Status::error(what + " needs a weights file: pass --weights");
      if (!weightFile->contains(spec.name))
        return Status::error(what + " is not in " + sources.weights);
      auto t = weightFile->get(spec.name);
      if (!t.isOk())
        return t.status();
      tensor = t.take();
      source = sources.weights;
    } else if (!sources.inputs.empty()) {
      source = sources.inputs[nextInput++];
      auto t = readNpy(source);
      if (!t.isOk())
        return t.status();
      tensor = t.take();
      what = "input " + std::to_string(nextInput - 1) + " (argument " +
             std::to_string(i) + ")";
    } else {
      if (std::count(spec.shape.begin(), spec.shape.end(), kDynamicDim))
        return Status::error(what + " has dynamic dimensions (" +
                             tensorTypeString(spec.dtype, spec.shape) +
                             "); give its data with --input");
      auto t = makeRandom(spec, rng);
      if (!t.isOk())
        return t.status();
      tensor = t.take();
    }
    if (tensor.dtype() != spec.dtype)
      return Status::error(what + " expects dtype " + dtypeName(spec.dtype) +
                           " but " + source + " holds " +
                           dtypeName(tensor.dtype()));
    if (!spec.admitsShape(tensor.shape()))
      return Status::error(what + " expects " +
                           tensorTypeString(spec.dtype, spec.shape) + " but " +
                           source + " has shape " + tensor.shapeString());
    if (Status s = spec.checkRanges(tensor.shape(), what + " (" + source + ")");
        !s.isOk())
      return s;
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

Comparison fx::rt::compareTensors(const Tensor &got, const Tensor &want,
                                  double rtol, double atol) {
  Comparison c;
  for (size_t i = 0; i < got.numel(); ++i) {
    double a = got.getAsDouble(i), b = want.getAsDouble(i);
    // Equal infinities match (their difference is NaN), as in allclose;
    // an infinity matches nothing else (rtol * inf would admit anything).
    if ((std::isnan(a) && std::isnan(b)) || a == b)
      continue;
    double abs = std::fabs(a - b);
    if (std::isnan(abs) || std::isinf(a) || std::isinf(b) ||
        abs > atol + rtol * std::fabs(b))
      ++c.mismatches;
    if (std::isnan(abs))
      abs = INFINITY;
    c.maxAbs = std::max(c.maxAbs, abs);
    if (b != 0)
      c.maxRel = std::max(c.maxRel, abs / std::fabs(b));
  }
  return c;
}

double fx::rt::millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

Result<bool> fx::rt::runAndReport(const Executor &executor,
                                  const std::vector<Tensor> &arguments,
                                  const RunOptions &options,
                                  const OutputSink &out) {
  auto result = executor.run(arguments);
  if (!result.isOk())
    return result.status();
  std::vector<Tensor> outputs = result.take();
  std::vector<std::vector<double>> stepTimes;
  if (options.bench > 0) {
    for (int i = 0; i < 3; ++i)
      if (Status s = executor.runInto(arguments, outputs); !s.isOk())
        return s;
    std::vector<double> times;
    // The host's part of each run: inputs in, submit, wait, outputs out.
    std::vector<double> callParts[4];
    // Wall times without the timestamps between steps (which cost time of
    // their own); with profiling, as many runs again for the GPU times.
    if (executor.pauseProfiling)
      executor.pauseProfiling(true);
    for (unsigned i = 0; i < options.bench; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (Status s = executor.runInto(arguments, outputs); !s.isOk())
        return s;
      times.push_back(millisecondsSince(start));
      if (executor.lastCallTimes) {
        vk::Executable::CallTimes call = executor.lastCallTimes();
        double parts[4] = {call.inputs, call.submit, call.wait, call.outputs};
        for (int p = 0; p < 4; ++p)
          callParts[p].push_back(parts[p]);
      }
    }
    if (executor.pauseProfiling)
      executor.pauseProfiling(false);
    // With profiling, each timed run's GPU time and per-step times.
    std::vector<double> gpuTimes, transfers[2];
    for (unsigned i = 0; executor.lastProfile && i < options.bench; ++i) {
      if (Status s = executor.runInto(arguments, outputs); !s.isOk())
        return s;
      if (executor.lastCallTimes) {
        vk::Executable::CallTimes call = executor.lastCallTimes();
        transfers[0].push_back(call.upload);
        transfers[1].push_back(call.download);
      }
      auto steps = executor.lastProfile();
      if (!steps.isOk())
        return steps.status();
      if (stepTimes.empty())
        stepTimes.resize(steps.value().size());
      double total = 0;
      for (size_t j = 0; j < steps.value().size() && j < stepTimes.size();
           ++j) {
        stepTimes[j].push_back(steps.value()[j].microseconds);
        total += steps.value()[j].microseconds;
      }
      gpuTimes.push_back(total);
    }
    std::sort(times.begin(), times.end());
    out(format("%s: %.1f ms\nrun (%u runs): median %.4f ms, min %.4f ms, max "
               "%.4f ms\n",
               options.prepareLabel.c_str(), options.prepareMs, options.bench,
               times[times.size() / 2], times.front(), times.back()));
    if (executor.memoryUse) {
      vk::Executable::MemoryUse memory = executor.memoryUse();
      std::string line =
          format("device memory: %.1f KiB", double(memory.totalBytes) / 1024);
      if (memory.arenaBytes)
        line += format(" (temporaries in a %.1f KiB arena)",
                       double(memory.arenaBytes) / 1024);
      out(line + "\n");
    }
    auto median = [](std::vector<double> &v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    if (!callParts[0].empty())
      out(format("host (medians): inputs in %.1f us, submit %.1f us, wait "
                 "%.1f us, outputs out %.1f us\n",
                 median(callParts[0]), median(callParts[1]),
                 median(callParts[2]), median(callParts[3])));
    if (!gpuTimes.empty()) {
      double middle = median(gpuTimes); // sorts: front and back are min, max
      std::string on = executor.profiledOn;
      std::transform(on.begin(), on.end(), on.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      out(format("%s (%u runs): median %.1f us, min %.1f us, max %.1f us\n",
                 on.c_str(), options.bench, middle, gpuTimes.front(),
                 gpuTimes.back()));
    }
    if (!transfers[0].empty() &&
        (median(transfers[0]) > 0 || median(transfers[1]) > 0))
      out(format("gpu transfers (medians): uploads %.1f us, downloads %.1f "
                 "us\n",
                 median(transfers[0]), median(transfers[1])));
  }
  if (executor.lastProfile) {
    auto profiled = executor.lastProfile();
    if (!profiled.isOk())
      return profiled.status();
    std::vector<StepTime> steps = profiled.take();
    // After timed runs, each step's median over them.
    if (!stepTimes.empty() && stepTimes.size() == steps.size())
      for (size_t j = 0; j < stepTimes.size(); ++j) {
        std::vector<double> &t = stepTimes[j];
        std::sort(t.begin(), t.end());
        steps[j].microseconds = t[t.size() / 2];
      }
    double total = 0;
    for (const StepTime &step : steps)
      total += step.microseconds;
    out(format("profile: %zu steps, %.1f us on the %s%s\n", steps.size(), total,
               executor.profiledOn.c_str(),
               stepTimes.empty() ? "" : " (medians of the timed runs)"));
    for (size_t i = 0; i < steps.size(); ++i) {
      const StepTime &step = steps[i];
      out(format("  %4zu %10.1f us  %5.1f%%  ", i, step.microseconds,
                 total > 0 ? 100 * step.microseconds / total : 0.0) +
          step.name + "\n");
    }
  }
  if (executor.validationErrors)
    if (uint64_t errors = executor.validationErrors())
      return Status::error(std::to_string(errors) +
                           " Vulkan validation error(s) (printed above)");
  if (options.print) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Tensor &t = outputs[i];
      double sum = 0;
      for (size_t j = 0; j < t.numel(); ++j)
        sum += t.getAsDouble(j);
      out("output " + std::to_string(i) + ": " + dtypeName(t.dtype()) +
          t.shapeString() + " sum " + formatDouble(sum) + "\n");
    }
  }
  if (!options.output.empty())
    if (Status s = writeOutputs(options.output, outputs); !s.isOk())
      return s;
  if (options.expect.empty())
    return true;
  return compareWithExpected(outputs, options.expect, options.rtol,
                             options.atol, out);
}

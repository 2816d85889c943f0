//===- fxrt-run.cpp - run a compiled artifact without the compiler --------===//
//
// Loads one entry of an artifact (.fxa, written by fx-compile or fx-run
// --save-artifact) onto the CPU or a Vulkan device and runs it the way
// fx-run runs a compiled function: the same arguments, messages and exit
// codes (the shared part is fx::rt::runArtifact). It links only the runtime
// (no LLVM or MLIR), so it has its own small argument parser instead of
// llvm::cl.
//
//===----------------------------------------------------------------------===//

#include "fx/Runtime/Model.h"
#include "fx/Runtime/Runner.h"
#include "fx/Runtime/VulkanRuntime.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rt = fx::rt;

namespace {

const char *const kHelp =
    R"(fxrt-run: run a compiled fx-mlir artifact on the CPU or a Vulkan device,
without the compiler

  fxrt-run [options] <model.fxa>
  fxrt-run --list-devices

  fxrt-run model.fxa --weights model.safetensors --input x.npy \
           --output y.npy --expect ref.npy --bench 20
  fxrt-run model.fxa --profile

Artifacts come from `fx-compile model.mlir -o model.fxa` (or fx-run
--save-artifact). Inputs that are model parameters are bound from --weights by
name; the others take the --input files in order (or seeded random data if
no --input is given).
Exit codes: 0 ok, 1 outputs differ from --expect, 2 error.

Options (give values as `--flag VALUE` or `--flag=VALUE`):
  --entry NAME           Entry point to run (default: the only one)
  --target cpu|vulkan    Code to run (default: cpu if the artifact has CPU
                         code for the entry, else vulkan)
  --weights FILE         Bind parameter inputs from this .safetensors file,
                         by name
  --input FILE           A .npy file for the next non-parameter input, in
                         order (repeat the flag). Without any, seeded random
                         inputs are made
  --seed N               Seed of the random inputs (default 0)
  --output FILE          Write the outputs: one to .npy, several (or any) to
                         .npz as output0, output1, ...
  --expect FILE          Compare the outputs with a .npy (one output) or .npz
                         (outputs in order); exit code 1 on mismatch
  --rtol X               Relative tolerance of --expect (default 1e-5)
  --atol X               Absolute tolerance of --expect (default 1e-6)
  --bench N              Time N runs after 3 warm-up runs; print median, min
                         and max, and the load time (Vulkan: also where a
                         run's time went on the host)
  --profile              Time every step of one run and print the table: Vulkan,
                         each dispatch and copy by GPU timestamps; CPU, each
                         parallel loop (by its op and source line) and the
                         serial code between loops. With --bench, the wall
                         times come from runs without timing and the step
                         times are medians of N more runs with it
  --in-place-io          Write the inputs once into the model's in-place
                         buffers (Vulkan: the mapped memory the device reads
                         them from) and read the outputs where the model
                         leaves them, so timed runs copy nothing on the host
                         (Model::inPlaceInputs; models of one shape)
  --print                Print a summary (dtype, shape, sum) of each output
  --device N             Vulkan device index from --list-devices (default:
                         FX_VULKAN_DEVICE, else the first discrete GPU,
                         else 0)
  --vulkan-validation    Run under the Khronos validation layer (also
                         FX_VULKAN_VALIDATION=1); validation errors fail the
                         run
  --list-devices         List the Vulkan devices and what they support, then
                         exit
  --help, -h             Print this help and exit

Pipelines are cached in ~/.cache/fx-mlir (FX_VULKAN_CACHE_DIR).
)";

int fail(const std::string &message) {
  std::fprintf(stderr, "fxrt-run: error: %s\n", message.c_str());
  return rt::kExitError;
}

struct Options {
  std::string artifact, entry, target, weights, output, expect;
  std::vector<std::string> inputs;
  double rtol = 1e-5, atol = 1e-6;
  unsigned seed = 0, bench = 0;
  int device = -1;
  bool profile = false, validation = false, print = false, listDevices = false,
       help = false, inPlaceIO = false;
};

/// `text` as an integer in [0, max]; `flag` names it in the error.
rt::Status parseUnsigned(const std::string &flag, const std::string &text,
                         unsigned long long max, unsigned long long &out) {
  bool digits = !text.empty() && text.size() <= 20 &&
                text.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  out = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE || out > max)
    return rt::Status::error(flag + " expects an integer from 0 to " +
                             std::to_string(max) + ", got '" + text + "'");
  return rt::Status::ok();
}

rt::Status parseDouble(const std::string &flag, const std::string &text,
                       double &out) {
  char *end = nullptr;
  errno = 0;
  out = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(out))
    return rt::Status::error(flag + " expects a number, got '" + text + "'");
  return rt::Status::ok();
}

/// One command-line flag: whether it takes a value, and what sets it.
struct Flag {
  const char *name;
  bool takesValue;
  std::function<rt::Status(const std::string &flag, const std::string &value)>
      set;
};

rt::Status parseArguments(int argc, char **argv, Options &o) {
  auto text = [](std::string &field) {
    return [&field](const std::string &, const std::string &value) {
      field = value;
      return rt::Status::ok();
    };
  };
  auto flag = [](bool &field) {
    return [&field](const std::string &, const std::string &) {
      field = true;
      return rt::Status::ok();
    };
  };
  auto number = [](double &field) {
    return [&field](const std::string &name, const std::string &value) {
      return parseDouble(name, value, field);
    };
  };
  auto count = [](unsigned &field) {
    return [&field](const std::string &name, const std::string &value) {
      unsigned long long parsed;
      rt::Status s = parseUnsigned(name, value, UINT_MAX, parsed);
      field = unsigned(parsed);
      return s;
    };
  };
  const std::vector<Flag> flags = {
      {"entry", true, text(o.entry)},
      {"target", true,
       [&](const std::string &name, const std::string &value) {
         if (value != "cpu" && value != "vulkan")
           return rt::Status::error(name + " expects cpu or vulkan, got '" +
                                    value + "'");
         o.target = value;
         return rt::Status::ok();
       }},
      {"weights", true, text(o.weights)},
      {"input", true,
       [&](const std::string &, const std::string &value) {
         o.inputs.push_back(value);
         return rt::Status::ok();
       }},
      {"output", true, text(o.output)},
      {"expect", true, text(o.expect)},
      {"rtol", true, number(o.rtol)},
      {"atol", true, number(o.atol)},
      {"seed", true, count(o.seed)},
      {"bench", true, count(o.bench)},
      {"device", true,
       [&](const std::string &name, const std::string &value) {
         unsigned long long parsed;
         rt::Status s = parseUnsigned(name, value, INT_MAX, parsed);
         o.device = int(parsed);
         return s;
       }},
      {"profile", false, flag(o.profile)},
      {"vulkan-validation", false, flag(o.validation)},
      {"print", false, flag(o.print)},
      {"in-place-io", false, flag(o.inPlaceIO)},
      {"list-devices", false, flag(o.listDevices)},
      {"help", false, flag(o.help)},
      {"h", false, flag(o.help)},
  };

  bool onlyPositionals = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (onlyPositionals || arg.size() < 2 || arg[0] != '-') {
      if (!o.artifact.empty())
        return rt::Status::error("more than one artifact given: '" +
                                 o.artifact + "' and '" + arg + "'");
      o.artifact = arg;
      continue;
    }
    if (arg == "--") {
      onlyPositionals = true;
      continue;
    }
    // Like llvm::cl: `-flag` and `--flag`, values after `=` or as the next
    // argument.
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    const Flag *match = nullptr;
    for (const Flag &f : flags)
      if (name == f.name)
        match = &f;
    if (!match)
      return rt::Status::error("unknown option '" + arg +
                               "' (see fxrt-run --help)");
    std::string shown = "--" + name;
    if (!match->takesValue && value)
      return rt::Status::error(shown + " takes no value");
    if (match->takesValue && !value) {
      if (i + 1 == argc)
        return rt::Status::error(shown + " needs a value");
      value = argv[++i];
    }
    if (rt::Status s = match->set(shown, value.value_or("")); !s.isOk())
      return s;
  }
  return rt::Status::ok();
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (rt::Status s = parseArguments(argc, argv, options); !s.isOk())
    return fail(s.message());
  if (options.help) {
    std::fputs(kHelp, stdout);
    return rt::kExitOk;
  }
  if (options.listDevices) {
    auto devices = rt::vk::Context::listDevices();
    if (!devices.isOk())
      return fail(devices.message());
    for (const rt::vk::DeviceInfo &info : devices.value())
      std::fputs(info.describe().c_str(), stdout);
    return rt::kExitOk;
  }
  if (options.artifact.empty())
    return fail("no artifact file (usage: fxrt-run [options] <model.fxa>; "
                "see --help)");

  rt::ArtifactRunOptions run;
  run.artifact = options.artifact;
  run.model.entry = options.entry;
  run.model.target = options.target;
  run.model.vulkan.device = options.device;
  run.model.vulkan.validation = options.validation;
  run.sources.weights = options.weights;
  run.sources.inputs = options.inputs;
  run.sources.seed = options.seed;
  run.run.bench = options.bench;
  run.run.print = options.print;
  run.run.output = options.output;
  run.run.expect = options.expect;
  run.run.rtol = options.rtol;
  run.run.atol = options.atol;
  run.profile = options.profile;
  run.inPlaceIO = options.inPlaceIO;
  auto exitCode = rt::runArtifact(run, [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  });
  if (!exitCode.isOk())
    return fail(exitCode.message());
  return exitCode.value();
}

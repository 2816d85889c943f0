//===- CPULibrary.cpp - CPU code compiled ahead of time -------------------===//

#include "fx/Runtime/CPULibrary.h"

#include "fx/Runtime/HostAllocator.h"
#include "fx/Runtime/MemRefCopy.h"
#include "fx/Runtime/Parallel.h"

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace fx::rt {

std::string hostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "unknown";
#endif
}

namespace {

/// A CPU feature the loader can check.
struct FeatureCheck {
  const char *name;
  bool (*present)();
};

#if defined(__x86_64__)
// __builtin_cpu_supports takes string literals only, hence one function
// each. The names are LLVM's (and the compiler's) feature names.
#define FX_X86_FEATURE(NAME, CPUID)                                            \
  {NAME, [] { return bool(__builtin_cpu_supports(CPUID)); }}
const FeatureCheck kFeatureChecks[] = {
    FX_X86_FEATURE("sse4.2", "sse4.2"),
    FX_X86_FEATURE("popcnt", "popcnt"),
    FX_X86_FEATURE("avx", "avx"),
    FX_X86_FEATURE("avx2", "avx2"),
    FX_X86_FEATURE("fma", "fma"),
    FX_X86_FEATURE("f16c", "f16c"),
    FX_X86_FEATURE("bmi", "bmi"),
    FX_X86_FEATURE("bmi2", "bmi2"),
    FX_X86_FEATURE("avx512f", "avx512f"),
    FX_X86_FEATURE("avx512bw", "avx512bw"),
    FX_X86_FEATURE("avx512cd", "avx512cd"),
    FX_X86_FEATURE("avx512dq", "avx512dq"),
    FX_X86_FEATURE("avx512vl", "avx512vl"),
    FX_X86_FEATURE("avx512vnni", "avx512vnni"),
    FX_X86_FEATURE("avx512bf16", "avx512bf16"),
    FX_X86_FEATURE("avx512fp16", "avx512fp16"),
};
#undef FX_X86_FEATURE
#else
const FeatureCheck kFeatureChecks[] = {{"", [] { return false; }}};
#endif

const FeatureCheck *findFeature(const std::string &name) {
  for (const FeatureCheck &check : kFeatureChecks)
    if (*check.name && name == check.name)
      return &check;
  return nullptr;
}

uint16_t elfMachine(const std::string &arch) {
  if (arch == "x86_64")
    return 62; // EM_X86_64
  if (arch == "aarch64")
    return 183; // EM_AARCH64
  return 0;
}

std::string dlerrorText() {
  const char *message = dlerror();
  return message ? message : "unknown dlopen error";
}

} // namespace

const std::vector<CPUImport> &cpuImports() {
  static const std::vector<CPUImport> imports = {
      {"fxrtParallelFor", reinterpret_cast<void *>(&fxrtParallelFor)},
      {"memrefCopy", reinterpret_cast<void *>(&memrefCopy)},
      {"_mlir_memref_to_llvm_alloc",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc)},
      {"_mlir_memref_to_llvm_aligned_alloc",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_aligned_alloc)},
      {"_mlir_memref_to_llvm_free",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_free)},
  };
  return imports;
}

std::vector<std::string> cpuImportNames() {
  std::vector<std::string> names;
  for (const CPUImport &import : cpuImports())
    names.push_back(import.name);
  return names;
}

const std::vector<std::string> &supportedCPUFeatures() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    for (const FeatureCheck &check : kFeatureChecks)
      if (*check.name)
        result.push_back(check.name);
    return result;
  }();
  return names;
}

std::vector<std::string> hostCPUFeatures() {
  std::vector<std::string> result;
  for (const FeatureCheck &check : kFeatureChecks)
    if (*check.name && check.present())
      result.push_back(check.name);
  return result;
}

Status checkCPUCode(const CPUCode &code) {
  std::string host = hostArch();
  if (code.arch != host)
    return Status::error("the CPU code is for " + code.arch +
                         " and this machine is " + host);
  std::string missing, unknown;
  for (const std::string &feature : code.features) {
    const FeatureCheck *check = findFeature(feature);
    if (!check)
      unknown += (unknown.empty() ? "" : ", ") + feature;
    else if (!check->present())
      missing += (missing.empty() ? "" : ", ") + feature;
  }
  if (!unknown.empty())
    return Status::error("the CPU code needs features this runtime cannot "
                         "check (" +
                         unknown + "); it comes from a newer compiler");
  if (!missing.empty())
    return Status::error("the CPU code was compiled for " + code.cpu +
                         " and needs " + missing +
                         ", which this CPU lacks; recompile with a lower "
                         "--cpu level (e.g. fx-compile --cpu x86-64-v3)");
  // An ELF64 little-endian shared object (ET_DYN) for the architecture.
  const std::vector<uint8_t> &so = code.library;
  if (so.size() < 64 ||
      std::memcmp(so.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      so[4] != 2 || so[5] != 1)
    return Status::error("the CPU code is not an ELF64 little-endian file");
  uint16_t type = uint16_t(so[16] | so[17] << 8);
  uint16_t machine = uint16_t(so[18] | so[19] << 8);
  if (type != 3)
    return Status::error("the CPU code is not an ELF shared object");
  if (machine != elfMachine(code.arch))
    return Status::error("the CPU code's ELF machine (" +
                         std::to_string(machine) + ") is not " + code.arch);
  return Status::ok();
}

CPULibrary::~CPULibrary() {
  dlclose(handle);
  close(fd);
}

Result<std::unique_ptr<CPULibrary>>
CPULibrary::load(const CPUCode &code, FunctionSignature signature) {
  if (Status s = checkCPUCode(code); !s.isOk())
    return s;
  // dlopen needs a path: an anonymous in-memory file gives one without
  // touching the disk.
  int fd = memfd_create("fx-cpu-code", MFD_CLOEXEC);
  if (fd < 0)
    return Status::error(std::string("memfd_create failed: ") +
                         std::strerror(errno));
  size_t written = 0;
  while (written < code.library.size()) {
    ssize_t n =
        write(fd, code.library.data() + written, code.library.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      std::string error = std::strerror(errno);
      close(fd);
      return Status::error("cannot write the CPU code to memory: " + error);
    }
    written += size_t(n);
  }
  // The path names the file for dlopen, which returns an already loaded
  // library of the same path instead of loading: the fd stays open (and
  // its number taken) while the library is loaded, or the next model's
  // memfd would get this number and run this model's code.
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::string error = dlerrorText();
    close(fd);
    return Status::error("cannot load the CPU code: " + error);
  }
  auto fail = [&](const std::string &message) {
    dlclose(handle);
    close(fd);
    return Status::error(message);
  };
  for (const std::string &name : code.imports) {
    const CPUImport *import = nullptr;
    for (const CPUImport &candidate : cpuImports())
      if (name == candidate.name)
        import = &candidate;
    void *slot = dlsym(handle, (kCPUImportPrefix + name).c_str());
    if (!import || !slot)
      return fail(
          "the CPU code imports '" + name + "', which " +
          (import ? "it does not declare" : "this runtime does not provide"));
    *static_cast<void **>(slot) = import->address;
  }
  void *entry = dlsym(handle, code.symbol.c_str());
  if (!entry)
    return fail("the CPU code has no entry point '" + code.symbol + "'");
  auto function = reinterpret_cast<PackedFunction>(entry);
  std::optional<CPUFunction> prepareFn;
  std::vector<int64_t> prepareArguments;
  // A sub-batch slices the entry's inputs that are not parameters (not the
  // prepared parameters appended below).
  std::vector<bool> sliced;
  for (const TensorSpec &spec : signature.inputs)
    sliced.push_back(!spec.parameter);
  if (code.prepare) {
    const CPUPrepare &prepare = *code.prepare;
    void *symbol = dlsym(handle, prepare.symbol.c_str());
    if (!symbol)
      return fail("the CPU code has no prepare function '" + prepare.symbol +
                  "'");
    if (Status s = checkPrepareArguments(prepare, signature); !s.isOk())
      return fail(s.message());
    // The prepare function takes the parameters as plain inputs; the entry
    // takes its results after its own inputs.
    FunctionSignature prepareSignature;
    for (int64_t index : prepare.arguments) {
      TensorSpec spec = signature.inputs[index];
      spec.parameter = false;
      prepareSignature.inputs.push_back(spec);
    }
    prepareSignature.outputs = prepare.results;
    for (TensorSpec spec : prepare.results) {
      spec.parameter = false;
      signature.inputs.push_back(spec);
    }
    prepareFn.emplace(reinterpret_cast<PackedFunction>(symbol),
                      std::move(prepareSignature));
    prepareArguments = prepare.arguments;
  }
  CPUFunction entryFn(function, signature);
  if (code.subBatch)
    if (Status s = entryFn.setSubBatch(code.subBatch, std::move(sliced));
        !s.isOk())
      return fail(s.message());
  return std::unique_ptr<CPULibrary>(
      new CPULibrary(handle, fd, std::move(entryFn), std::move(prepareFn),
                     std::move(prepareArguments)));
}

Result<std::vector<Tensor>>
CPULibrary::withPrepared(const std::vector<Tensor> &arguments) {
  std::vector<Tensor> parameters;
  std::vector<const void *> from;
  for (int64_t index : prepareArguments) {
    if (size_t(index) >= arguments.size())
      return Status::error("expected more inputs than " +
                           std::to_string(arguments.size()));
    parameters.push_back(arguments[index]);
    from.push_back(arguments[index].data());
  }
  std::vector<Tensor> all = arguments;
  std::lock_guard<std::mutex> lock(prepareMutex);
  if (prepared.empty() || from != preparedFrom) {
    auto results = prepareFn->run(parameters);
    if (!results.isOk())
      return Status::error("preparing the parameters: " + results.message());
    prepared = results.take();
    preparedFrom = std::move(from);
  }
  all.insert(all.end(), prepared.begin(), prepared.end());
  return all;
}

template <typename Call> auto CPULibrary::profiled(Call call) {
  if (!profiling || profilingPaused)
    return call();
  std::vector<LoopEvent> trace;
  setLoopTrace(&trace);
  auto start = std::chrono::steady_clock::now();
  auto result = call();
  auto end = std::chrono::steady_clock::now();
  setLoopTrace(nullptr);
  auto micros = [](auto from, auto to) {
    return std::chrono::duration<double, std::micro>(to - from).count();
  };
  std::vector<StepTime> run;
  auto last = start;
  for (const LoopEvent &event : trace) {
    run.push_back({"serial code", micros(last, event.start)});
    std::string name = "loop";
    for (const auto &[body, loopName] : loopNames)
      if (body == event.body)
        name = loopName;
    run.push_back({name, micros(event.start, event.end)});
    last = event.end;
  }
  run.push_back({"serial code", micros(last, end)});
  std::lock_guard<std::mutex> lock(profileMutex);
  steps = std::move(run);
  return result;
}

Result<std::vector<Tensor>>
CPULibrary::run(const std::vector<Tensor> &arguments) {
  if (!prepareFn)
    return profiled([&] { return fn.run(arguments); });
  auto all = withPrepared(arguments);
  if (!all.isOk())
    return all.status();
  return profiled([&] { return fn.run(all.value()); });
}

Status CPULibrary::runInto(const std::vector<Tensor> &arguments,
                           std::vector<Tensor> &outputs) {
  if (!prepareFn)
    return profiled([&] { return fn.runInto(arguments, outputs); });
  auto all = withPrepared(arguments);
  if (!all.isOk())
    return all.status();
  return profiled([&] { return fn.runInto(all.value(), outputs); });
}

void CPULibrary::enableProfiling() {
  profiling = true;
  loopNames.clear();
  struct Entry {
    FxParallelBody body;
    const char *name;
  };
  if (auto *table = static_cast<const Entry *>(dlsym(handle, kCPULoopTable)))
    for (const Entry *entry = table; entry->body; ++entry)
      loopNames.emplace_back(entry->body, entry->name ? entry->name : "loop");
}

std::vector<StepTime> CPULibrary::lastProfile() const {
  std::lock_guard<std::mutex> lock(profileMutex);
  return steps;
}

void CPULibrary::invalidatePrepared() {
  std::lock_guard<std::mutex> lock(prepareMutex);
  prepared.clear();
  preparedFrom.clear();
}

} // namespace fx::rt

# -*- Python -*-
# lit configuration for the fx-mlir tests (FileCheck based).

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fx_obj_root, "test")

# `lit --param python=PATH` runs the tests with another Python (the project
# venv with torch 2.x, Debian's python3 with torch 1.13, or one without torch).
config.python_executable = lit_config.params.get("python", config.python_executable)
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%fx_src_root", config.fx_src_root))
config.substitutions.append(("%fx_obj_root", config.fx_obj_root))

# The importer package (python/fx_mlir) runs from the source tree.
config.environment["PYTHONPATH"] = os.path.join(config.fx_src_root, "python")

# Strict FileCheck: captured variables are scoped to CHECK-LABEL blocks and
# every prefix must be used.
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "FX_REQUIRE_FEATURES", "VK_ICD_FILENAMES",
                                     "VK_DRIVER_FILES", "VK_LAYER_PATH"])
llvm_config.use_default_substitutions()

tool_dirs = [config.fx_tools_dir, config.llvm_tools_dir]
tools = ["fx-opt", "fx-run", "fx-compile", "fxrt-run", "not", "count", "split-file",
         "llvm-readelf", "fx-example-c", "fx-example-cpp"]
# fx-artifact-fuzzer is built by Clang only (fuzz/CMakeLists.txt).
if os.path.exists(os.path.join(config.fx_tools_dir, "fx-artifact-fuzzer")):
    config.available_features.add("fx-artifact-fuzzer")
    tools.append("fx-artifact-fuzzer")
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Optional parts of the machine, as features for REQUIRES: lines and
# %if ... %{ ... %} RUN lines, so that a machine without them reports the
# tests UNSUPPORTED rather than failing:
#   vulkan - a Vulkan device (fx-run --list-devices finds one; Mesa lavapipe
#            counts);
#   torch  - PyTorch (and torchvision's models) import in the tests' Python;
#   torch2 - that PyTorch has torch.export (2.1 or newer: the project venv's
#            2.13), as against Debian's 1.13 (`lit --param python=...`);
#   graphviz - Graphviz's dot on PATH (fx-compile --dispatch-graph=F.svg).
# With FX_REQUIRE_FEATURES="vulkan torch" (CI sets it), a missing feature is
# an error instead: the machine was meant to have it.
import subprocess


def _probe(cmd, expect=""):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, **config.environment))
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 and expect in proc.stdout else None


_fx_run = os.path.join(config.fx_tools_dir, "fx-run")
if _probe([_fx_run, "--list-devices"], expect="Vulkan device 0") is not None:
    config.available_features.add("vulkan")
_torch = _probe([config.python_executable, "-c",
                 "import torch, fx_mlir.torchvision_models as t; t.models(); "
                 "print(hasattr(torch, 'export'))"])
if _torch is not None:
    config.available_features.add("torch")
    if _torch.strip() == "True":
        config.available_features.add("torch2")
import shutil
if shutil.which("dot", path=config.environment.get("PATH", os.environ.get("PATH"))):
    config.available_features.add("graphviz")
# FileCheck prefixes for what the two captures write differently:
# --check-prefixes=CHECK,%torch-checks.
config.substitutions.append(("%torch-checks",
                             "TORCH2" if "torch2" in config.available_features else "TORCH1"))
for _feature in os.environ.get("FX_REQUIRE_FEATURES", "").split():
    if _feature not in config.available_features:
        lit_config.fatal(f"FX_REQUIRE_FEATURES names '{_feature}', which this machine lacks "
                         "(vulkan: no Vulkan device from fx-run --list-devices; torch: "
                         f"{config.python_executable} cannot import torch and torchvision's models; "
                         "torch2: its torch has no torch.export; graphviz: no dot on PATH)")

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

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%fx_src_root", config.fx_src_root))
config.substitutions.append(("%fx_obj_root", config.fx_obj_root))

# The importer package (python/fx_mlir) runs from the source tree.
config.environment["PYTHONPATH"] = os.path.join(config.fx_src_root, "python")

# Strict FileCheck: captured variables are scoped to CHECK-LABEL blocks and
# every prefix must be used.
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.fx_tools_dir, config.llvm_tools_dir]
tools = ["fx-opt", "fx-run", "fx-compile", "fxrt-run", "not", "count", "split-file",
         "llvm-readelf", "fx-example-c", "fx-example-cpp"]
# fx-artifact-fuzzer is built by Clang only (fuzz/CMakeLists.txt).
if os.path.exists(os.path.join(config.fx_tools_dir, "fx-artifact-fuzzer")):
    config.available_features.add("fx-artifact-fuzzer")
    tools.append("fx-artifact-fuzzer")
llvm_config.add_tool_substitutions(tools, tool_dirs)

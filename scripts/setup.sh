#!/usr/bin/env bash
# Installs what fx-mlir needs on a fresh Debian 12 machine, then configures and
# builds it in ./build (or $FX_BUILD_DIR). Safe to run again: it installs only
# missing packages and rebuilds incrementally (with ccache under ~/.cache).
# Two PyTorches: the project venv's (./.venv or $FX_VENV: requirements.txt,
# torch 2.13, the primary one) and Debian's python3-torch 1.13 for
# /usr/bin/python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FX_BUILD_DIR:-$root/build}

packages=(
  cmake ninja-build ccache
  clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libclang-rt-22-dev
  libgtest-dev libgmock-dev python3 python3-venv
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools spirv-tools
  python3-numpy python3-torch python3-torchvision
  libopenblas-dev libdnnl-dev linux-perf graphviz
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "fx-mlir: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

# The project venv, pinned by requirements.txt; reinstalled when that file
# changes (its copy in the venv is the stamp).
venv=${FX_VENV:-$root/.venv}
if ! cmp -s "$root/requirements.txt" "$venv/requirements.txt" 2>/dev/null; then
  echo "fx-mlir: setting up the Python venv $venv (requirements.txt)"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/requirements.txt"
  cp "$root/requirements.txt" "$venv/requirements.txt"
fi
# The fx_mlir package, editable (python/fx_mlir stays in this checkout):
# its entry point lets torch.compile find backend="fx_mlir" by name.
# Reinstalled when pyproject.toml or the checkout changes.
stamp="$venv/fx-mlir-package.stamp"
if ! { cat "$root/pyproject.toml"; echo "$root"; } | cmp -s - "$stamp" 2>/dev/null; then
  echo "fx-mlir: installing the fx_mlir package into $venv (editable)"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
    --no-build-isolation -e "$root"
  { cat "$root/pyproject.toml"; echo "$root"; } > "$stamp"
fi

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
lld=/usr/lib/llvm-22/bin/ld.lld
# Tests run with the venv's Python (lit's %python) unless told otherwise.
if [ ! -f "$build/build.ninja" ] ||
   ! grep -qx "Python3_EXECUTABLE:[A-Z]*=$venv/bin/python" "$build/CMakeCache.txt"; then
  echo "fx-mlir: configuring $build"
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE="$venv/bin/python" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_EXE_LINKER_FLAGS="--ld-path=$lld" \
    -DCMAKE_SHARED_LINKER_FLAGS="--ld-path=$lld"
fi
echo "fx-mlir: building"
# Everything: the tools, the C API libraries, the examples, the unit tests
# and (with Clang's libFuzzer) the artifact fuzzer.
ninja -C "$build"

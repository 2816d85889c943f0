#!/usr/bin/env bash
# The main job: sets up (see setup.sh), then compiles every example model in
# examples/ for the CPU and runs it on seeded random inputs and weights,
# printing output summaries and timings; then resnet18 against eager PyTorch,
# on the CPU and, when a Vulkan device is present, on Vulkan.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FX_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
tmp=$(mktemp -d)
for model in "$root"/examples/*.mlir; do
  name=$(basename "$model" .mlir)
  echo "== $name: compile for the CPU and run"
  # Seeded random weights for every {fx.param} argument, and a random input
  # (batch 2 where the batch is dynamic).
  /usr/bin/python3 "$root/scripts/make-example-data.py" "$model" "$tmp/$name"
  "$build/bin/fx-run" "$model" --weights "$tmp/$name.safetensors" \
    --input "$tmp/$name.input.npy" --print --bench 5
done
# A real PyTorch model: import torchvision's resnet18 (seeded random weights),
# compile it, run it and compare with eager PyTorch on the same input.
echo "== torchvision resnet18: import, compile for the CPU, run, compare with eager PyTorch"
/usr/bin/python3 "$root/utils/fx-model-check.py" "$build/bin/fx-run" torchvision:resnet18 \
  --input-shape 1,3,224,224 --bench 5
if "$build/bin/fx-run" --list-devices >/dev/null 2>&1; then
  echo "== torchvision resnet18 on Vulkan ($("$build/bin/fx-run" --list-devices | head -n1))"
  /usr/bin/python3 "$root/utils/fx-model-check.py" "$build/bin/fx-run" torchvision:resnet18 \
    --input-shape 1,3,224,224 --bench 5 --target vulkan
else
  echo "== no Vulkan device: skipping the Vulkan run"
fi

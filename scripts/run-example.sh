#!/usr/bin/env bash
# The main job: sets up (see setup.sh), then takes the example models in
# examples/ through what the compiler has today: parse and verify every op,
# canonicalize, and refine shapes, printing the resulting IR.
#
# Code generation and execution (fx-run on the CPU, then Vulkan) are the next
# milestones (issues 3 and 6); until they land this job stops at FX-level IR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FX_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
for model in "$root"/examples/*.mlir; do
  echo "== $(basename "$model"): verify, canonicalize, fx-refine-shapes"
  "$build/bin/fx-opt" "$model" --canonicalize --fx-refine-shapes
done

#!/usr/bin/env bash
# Sets up (see setup.sh) and runs every test suite: the lit tests (test/) and
# the GoogleTest unit tests (unittests/) with the venv's torch 2.13, then the
# importer's tests again with Debian's torch 1.13. Ends with the line
# "N passed, N failed" and exits non-zero if anything failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FX_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh" || { echo "0 passed, 1 failed"; exit 1; }
# The lit suites depend on generated docs as well as the tools.
ninja -C "$build" FXDialectDocGen FXTransformsPassesDocGen FXConversionPassesDocGen \
  FXCodegenCPUPassesDocGen FXCodegenSPIRVPassesDocGen FXDialectTransformsPassesDocGen >/dev/null ||
  { echo "0 passed, 1 failed"; exit 1; }

# Tests that need a Vulkan device or PyTorch declare it (REQUIRES: vulkan,
# REQUIRES: torch), so a machine without them reports them UNSUPPORTED. CI's
# machine is set up with both: there a missing one is an error, and so is
# any test reported unsupported.
if [ -n "${CI:-}" ]; then
  export FX_REQUIRE_FEATURES="${FX_REQUIRE_FEATURES-vulkan torch torch2 graphviz}"
fi

log=$(mktemp)
count() { sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | head -n1; }
passed=0
failed=0
# run LABEL LIT-ARGS...: one lit run, its counts added to the totals.
run() {
  local label=$1; shift
  echo "fx-mlir: $label"
  /usr/lib/llvm-22/bin/lit -sv "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]} n kind failures=0
  passed=$(( passed + $(count Passed || true) + 0 ))
  for kind in Failed Unresolved "Timed Out" "Unexpectedly Passed"; do
    n=$(count "$kind"); failures=$(( failures + ${n:-0} ))
  done
  local unsupported; unsupported=$(count Unsupported); unsupported=${unsupported:-0}
  if [ -n "${CI:-}" ] && [ "$unsupported" -gt 0 ]; then
    echo "fx-mlir: $unsupported tests were unsupported on the CI machine, which must run them all"
    failures=$(( failures + unsupported ))
  fi
  # lit failing without reporting a failed test (e.g. none found) still fails.
  if [ "$status" -ne 0 ] && [ "$failures" -eq 0 ]; then failures=1; fi
  failed=$(( failed + failures ))
}

# Everything, with the venv's torch 2.13 (the primary PyTorch)...
run "all tests (Python: the venv's, torch 2.13)" "$build/test" "$build/unittests"
# ...and the importer's tests again with Debian's torch 1.13 (make_fx), the
# other PyTorch this project supports (test/Python/Export and the
# torch.compile backend's test need torch 2).
if [ -n "${CI:-}" ] || /usr/bin/python3 -c "import torch" 2>/dev/null; then
  FX_REQUIRE_FEATURES="${FX_REQUIRE_FEATURES:+torch}" \
    run "the importer's tests with /usr/bin/python3 (Debian's torch 1.13)" \
    --param python=/usr/bin/python3 --filter-out "Python/Export/|Python/dynamo.py" \
    "$build/test/Python" "$build/test/Integration/Models"
fi
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

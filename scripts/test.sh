#!/usr/bin/env bash
# Sets up (see setup.sh) and runs every test suite: the lit tests (test/) and
# the GoogleTest unit tests (unittests/), in one lit run. Ends with the line
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
  export FX_REQUIRE_FEATURES="${FX_REQUIRE_FEATURES-vulkan torch}"
fi

log=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv "$build/test" "$build/unittests" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

count() { sed -n "s/^ *$1: *\([0-9]*\).*/\1/p" "$log" | head -n1; }
passed=$(( $(count Passed || true) + 0 ))
failed=0
for kind in Failed Unresolved "Timed Out" "Unexpectedly Passed"; do
  n=$(count "$kind"); failed=$(( failed + ${n:-0} ))
done
unsupported=$(count Unsupported); unsupported=${unsupported:-0}
if [ -n "${CI:-}" ] && [ "$unsupported" -gt 0 ]; then
  echo "fx-mlir: $unsupported tests were unsupported on the CI machine, which must run them all"
  failed=$(( failed + unsupported ))
fi
rm -f "$log"
# lit failing without reporting a failed test (e.g. no tests found) still fails.
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

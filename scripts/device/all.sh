#!/usr/bin/env bash
# Every GPU measurement of benches/RESULTS.md in one device call (#35, #36): the agreement
# tests, the throughput rows for each binary given (before/after, back to back), the large
# grids, the cost curves and the famous 16 beside the ant colony for the last binary. Usage:
#   scripts/device/all.sh TESTS_DIR|- LABEL=BINARY ...
# Writes into $OUT: tests.log, LABEL.log per binary, large-grids.csv, cost-*.csv,
# famous-gpu.csv and device.log (the last three scripts' output): 8 files for two binaries,
# what the device tool brings back. Draw the curves here with scripts/device/cost_plot.sh.
set -u
source scripts/device/setup.sh
export SKIP_SETUP=1
export DEVICE_LOG=$OUT/device.log
tests=$1; shift
last=${!#}; last=${last#*=}
if [ "$tests" = - ]; then
  scripts/device/bench.sh --rfss-long 1000000 "$@"
else
  scripts/device/bench.sh --tests "$tests" --rfss-long 1000000 "$@"
fi
scripts/device/large_grids.sh "$last"
scripts/device/cost_curve.sh "$last"
scripts/device/famous_gpu.sh "$last"

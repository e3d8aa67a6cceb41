#!/usr/bin/env bash
# The #36 target on 25x25 at 45% fixed: each of the ten puzzles of the paper model
# (puzzles/paper-25x25-f45.txt) by one cooperating population of 1,024 instances within
# 200,000 steps (pure ILCA: --preset shared --prune off, --pull 0.5 every 50 steps), on the
# GPU. If nothing solved early that is 1.3e12 cell-updates, about 6–7 minutes on an H200 at
# the rate of benches/RESULTS.md: POP_PUZZLES=K runs the first K puzzles only. Usage:
#   scripts/device/population_25.sh BINARY
# writes $OUT/population-25.csv (batch's CSV: one record per population: solved, first step)
# and appends the table to $DEVICE_LOG (default $OUT/population-25.log).
set -u
[ "${SKIP_SETUP:-}" ] || source scripts/device/setup.sh >/dev/null
bin=$1
W=$(mktemp -d)
K=${POP_PUZZLES:-10}; N=1024; STEPS=200000
# POP_QUICK=1: a short run, to try the script on a machine without a GPU (lavapipe).
[ "${POP_QUICK:-}" ] && { K=1; N=4; STEPS=200; }
grep -v '^#' puzzles/paper-25x25-f45.txt | head -n "$K" >$W/p.txt
log=${DEVICE_LOG:-$OUT/population-25.log}
cmd="batch paper-25x25-f45 (first $K) --preset shared --prune off --steps $STEPS --portfolio $N --runs 1 --pull 0.5 --backend gpu"
echo "\$ $cmd" >>$log
"$bin" batch $W/p.txt --preset shared --prune off --steps $STEPS --portfolio $N --runs 1 \
  --pull 0.5 --backend gpu --csv $OUT/population-25.csv >>$log 2>&1 \
  || { echo "batch failed: rc=$?" >>$log; tail -5 $log; exit 1; }
tail -12 $log

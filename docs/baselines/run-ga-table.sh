#!/bin/sh
# Reproduces the Pyuzzle GA operator tables: every selection × crossover × mutation,
# 25 runs each, population 1000, 250 generations, crossover 0.7, mutation 0.3.
# Usage: docs/baselines/run-ga-table.sh BINARY OUTDIR
set -e
BIN=${1:-gpu-sudoku}; OUT=${2:-.}
ALGOS=""
for s in fps tournament rank; do for c in single two uniform; do for m in swap inversion scramble; do
  ALGOS="$ALGOS,ga-$s-$c-$m"; done; done; done
ALGOS=${ALGOS#,}
for p in easy medium hard; do
  "$BIN" compare docs/baselines/ga-$p.txt --algos "$ALGOS" --runs 25 --max-iterations 250 \
    --budget-ms 0 --seed 1 --csv "$OUT/ga-$p.csv" --json "$OUT/ga-$p.json"
done

#!/bin/sh
# Reproduces the Pyuzzle GA operator tables: every selection × crossover × mutation,
# 25 runs each, population 1000, 250 generations, crossover 0.7, mutation 0.3.
# Usage: [RUNS=25] [MUTS="swap inversion scramble"] [PUZZLES="easy medium hard"] docs/baselines/run-ga-table.sh BINARY OUTDIR
set -e
BIN=${1:-gpu-sudoku}; OUT=${2:-.}
ALGOS=""; RUNS=${RUNS:-25}; MUTS=${MUTS:-swap inversion scramble}; PUZZLES=${PUZZLES:-easy medium hard}
for s in fps tournament rank; do for c in single two uniform; do for m in $MUTS; do
  ALGOS="$ALGOS,ga-$s-$c-$m"; done; done; done
ALGOS=${ALGOS#,}
for p in $PUZZLES; do
  "$BIN" compare docs/baselines/ga-$p.txt --algos "$ALGOS" --runs "$RUNS" --max-iterations 250 \
    --budget-ms 0 --seed 1 --csv "$OUT/ga-$p.csv" --json "$OUT/ga-$p.json"
done

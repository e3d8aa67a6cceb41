#!/usr/bin/env bash
# Behaviour snapshot for refactors: runs a fixed set of small, deterministic commands (ILCA on
# every option, RFSS plain and enhanced, a sweep, compare, trace, solve, rate, generate) and
# writes their outputs into OUT_DIR with timing fields removed. Run it before and after a
# change and `diff -r` the two folders: any difference is a change of behaviour.
#
#   scripts/snapshot.sh OUT_DIR [BINARY]     (BINARY defaults to target/release/gpu-sudoku)
#
# GPU runs use whatever adapter exists (`--backend gpu`); without one they are skipped.
set -euo pipefail
OUT=${1:?usage: scripts/snapshot.sh OUT_DIR [BINARY]}
B=${2:-target/release/gpu-sudoku}
mkdir -p "$OUT"
# A fixed work folder: file paths appear in the outputs.
T=/tmp/gpu-sudoku-snapshot
rm -rf "$T" && mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
head -23 puzzles/easy.txt >"$T/easy.txt"   # 3 header lines + 20 puzzles
head -23 puzzles/hard.txt >"$T/hard.txt"
head -13 puzzles/unique/hard.txt >"$T/uhard.txt"

# Drops what legitimately changes between runs: wall times, rates, the command line.
strip_json() { python3 -c '
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in ("timing", "command", "wall_s", "median_ms", "mean_ms")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
print(json.dumps(strip(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))' "$1"; }

run() { # NAME ARGS...: stdout (timing columns cut) and any --json written as $T/NAME.json
  local name=$1; shift
  "$B" "$@" >"$T/$name.out" 2>"$T/$name.err" || echo "exit $?" >>"$T/$name.out"
  if [ -f "$T/$name.json" ]; then strip_json "$T/$name.json" >"$OUT/$name.json"; fi
  if [ -f "$T/$name.csv" ]; then cp "$T/$name.csv" "$OUT/$name.csv"; fi
  true
}

i=0
for opts in "" "--compare free" "--compare all" "--tie first" "--tie keep" \
  "--lr 0.05" "--lr 0.175 --lp 3.5" "--sr 20" "--sr 20 --reset-check sum" \
  "--restart 30 --sr 10" "--penalty-floor 0.05 --lp 2" "--seed 7"; do
  i=$((i + 1))
  run "ilca-$i" batch "$T/easy.txt" "$T/hard.txt" --backend cpu --runs 3 --steps 120 $opts \
    --json "$T/ilca-$i.json" --csv "$T/ilca-$i.csv"
done
if [ -n "$("$B" adapters 2>/dev/null)" ]; then
  run ilca-gpu batch "$T/easy.txt" "$T/hard.txt" --backend gpu --runs 3 --steps 120 --sr 20 \
    --json "$T/ilca-gpu.json"
  run rfss-gpu batch "$T/easy.txt" --algo rfss --backend gpu --max-generations 3000 \
    --json "$T/rfss-gpu.json"
fi
for e in off propagate mrv; do
  run "rfss-$e" batch "$T/easy.txt" "$T/uhard.txt" --algo rfss --backend cpu \
    --max-generations 3000 --enhance "$e" --stall-generations 100 --json "$T/rfss-$e.json"
done
run sweep sweep "$T/easy.txt" "$T/hard.txt" --backend cpu --runs 2 --sr 10:50:20 --steps 100 \
  --baseline sr=0 --csv "$T/sweep.csv"
cp "$T/sweep.csv" "$OUT/sweep.csv"
run compare compare "$T/easy.txt" --algos backtrack,mrv,astar,ga,sa,hc,ilca,rfss --runs 1 \
  --budget-ms 0 --max-iterations 3000 --json "$T/compare.json"
run trace trace puzzles/classic.txt --lr 0.05 --sr 20 --csv "$T/trace.csv"
cp "$T/trace.out" "$OUT/trace.out"
run trace-rfss trace "$T/easy.txt" --index 2 --algo rfss --every 50 --max-generations 600 \
  --csv "$T/trace-rfss.csv"
cp "$T/trace-rfss.out" "$OUT/trace-rfss.out"
for f in easy.txt uhard.txt; do
  run "solve-$f" solve "$T/$f"
  cp "$T/solve-$f.out" "$OUT/solve-$f.out"
  run "rate-$f" rate "$T/$f" --json "$T/rate-$f.json"
  cp "$T/rate-$f.out" "$OUT/rate-$f.out"
done
run gen-paper generate --model paper --tier hard --count 5 --size 9 --seed 3
run gen-rated generate --model rated --tier evil --count 3 --size 9 --seed 1
run gen-16 generate --model paper --tier medium --unique --count 2 --size 16 --seed 1
for g in gen-paper gen-rated gen-16; do cp "$T/$g.out" "$OUT/$g.out"; done
echo "snapshot written to $OUT ($(ls "$OUT" | wc -l) files)"

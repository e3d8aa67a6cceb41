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
# A fixed work folder (SNAPSHOT_TMP to run two at once): file paths appear in the outputs.
T=${SNAPSHOT_TMP:-/tmp/gpu-sudoku-snapshot}
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
        return {k: strip(x) for k, x in v.items() if k not in ("timing", "command", "wall_s", "median_ms", "mean_ms", "seconds", "provenance", "tts99_s", "tts99_puzzle_median_s")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
print(json.dumps(strip(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))' "$1"; }

# Drops a table's timing columns (wall s, inst-steps/s; compare's ms per attempt) and the
# CSV's seconds column.
strip_text() { sed -E 's/[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+[kMG]?$//; s/[0-9]+\.[0-9]+(e-?[0-9]+)? ?(ms|s)\b/T/g' "$1"; }
strip_csv() { python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
drop = [i for i, h in enumerate(rows[0]) if h in ("seconds", "wall_s")] if rows else []
w = csv.writer(sys.stdout, lineterminator="\n")
for r in rows:
    w.writerow([x for i, x in enumerate(r) if i not in drop])' "$1"; }

run() { # NAME ARGS...: stdout and stderr (timing cut), the exit code, any --json/--csv written as $T/NAME.json/.csv
  local name=$1; shift
  "$B" "$@" >"$T/$name.out" 2>"$T/$name.err" || echo "exit $?" >>"$T/$name.out"
  strip_text "$T/$name.out" >"$OUT/$name.out"
  strip_text "$T/$name.err" >"$OUT/$name.err"
  if [ -f "$T/$name.json" ]; then strip_json "$T/$name.json" >"$OUT/$name.json"; fi
  if [ -f "$T/$name.csv" ]; then strip_csv "$T/$name.csv" >"$OUT/$name.csv"; fi
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
  --time-limit 0 --max-iterations 3000 --json "$T/compare.json"
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
# Every preset (shortened), both algorithms' JSON and CSV.
for p in alg1 table3 table4 table5 table6 improved improved10k hard-penalty pruned pruned-logic shared; do
  run "preset-$p" batch "$T/uhard.txt" --backend cpu --runs 2 --preset "$p" --steps 300 \
    --json "$T/preset-$p.json" --csv "$T/preset-$p.csv"
done
run rfss-csv batch "$T/easy.txt" --algo rfss --backend cpu --max-generations 2000 \
  --csv "$T/rfss-csv.csv"
# Every compare family: ACS, the exact solver, GA/A* variants, ILCA presets, enhanced RFSS.
run compare-all compare "$T/uhard.txt" --algos exact,acs,astar-small,ga-tournament-uniform-swap,ilca-table6,ilca-shared,rfss-propagate,rfss-logic,rfss-lookahead \
  --runs 2 --time-limit 0 --max-iterations 2000 --seed 3 --json "$T/compare-all.json" --csv "$T/compare-all.csv"
# Shards and merge: batch, compare, sweep.
for k in 1 2 3; do
  run "shard-b$k" batch "$T/easy.txt" "$T/hard.txt" --backend cpu --runs 3 --steps 100 \
    --shard "$k/3" --json "$T/shard-b$k.json"
  run "shard-c$k" compare "$T/easy.txt" --algos mrv,sa,ilca --runs 2 --time-limit 0 \
    --max-iterations 500 --seed 2 --shard "$k/3" --json "$T/shard-c$k.json"
done
run merge-b merge "$T"/shard-b?.json --json "$T/merge-b.json" --csv "$T/merge-b.csv"
run merge-c merge "$T"/shard-c?.json --json "$T/merge-c.json"
# Resume after a kill: whatever the killed run finished, the resumed report is the whole run's.
timeout -s KILL 2 "$B" batch "$T/easy.txt" "$T/hard.txt" --backend cpu --runs 30 --steps 250 \
  --chunk 8 --json "$T/resume.json" >/dev/null 2>&1 || true
run resume batch "$T/easy.txt" "$T/hard.txt" --backend cpu --runs 30 --steps 250 --chunk 8 \
  --resume --json "$T/resume.json"
sed -i '/^resuming: /d' "$OUT/resume.err"
cp puzzles/classic.txt "$T/one.txt"
# A sweep's figures (their names; the pictures are compared by eye).
run sweep-fig sweep "$T/easy.txt" --backend cpu --runs 2 --lr 0.5:1:0.5 --sr 0:20:20 --steps 60 \
  --csv "$T/sweep-fig.csv" --figures "$T/fig"
ls "$T/fig" >"$OUT/sweep-fig.list"
# Every error exit of the run commands named here (their messages on stderr).
run err-nofile batch "$T/missing.txt"
run err-runs batch "$T/easy.txt" --runs 0
run err-sr batch "$T/easy.txt" --sr 300 --steps 100
run err-shard batch "$T/easy.txt" --shard 0/3
run err-shard-many batch "$T/one.txt" --shard 5/9 --runs 1
run err-algo-flag batch "$T/easy.txt" --algo rfss --lr 0.5
run err-resume-stdout batch "$T/easy.txt" --resume --json -
run err-compare-budget compare "$T/easy.txt" --time-limit 0
run err-compare-algo compare "$T/easy.txt" --algos nosuch --max-iterations 10
run err-compare-dup compare "$T/easy.txt" "$T/easy.txt" --max-iterations 10
run err-sweep-range sweep "$T/easy.txt" --sr 10:0:5 --csv "$T/x.csv"
run err-merge-one merge "$T/shard-b0.json"
run err-merge-mixed merge "$T/shard-b0.json" "$T/shard-c1.json" "$T/shard-b2.json"
echo "snapshot written to $OUT ($(ls "$OUT" | wc -l) files)"

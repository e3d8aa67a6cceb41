#!/usr/bin/env bash
# GPU throughput measurements of benches/RESULTS.md ("GPU throughput, #15") in one device call.
# Usage: scripts/device/bench.sh [--tests DIR] [--rfss-gens G] [--rfss-long G] LABEL=BINARY ...
# Writes $OUT/<label>.log per binary; each binary runs the same commands, back to back on the
# same warm machine; binaries with --repeat also run the cap-off rows, and the last binary a
# long RFSS run (--rfss-long G generations).
set -u
[ "${SKIP_SETUP:-}" ] || source scripts/device/setup.sh
T="puzzles/easy.txt puzzles/medium.txt puzzles/hard.txt puzzles/evil.txt"
W=$(mktemp -d)
for i in $(seq 200); do sed -n '/^[^#]/p' puzzles/25x25.txt; done > $W/rfss1000.txt
RG=100000
if [ "${1:-}" = --tests ]; then
  # The agreement tests find the puzzles through the path they were built in.
  mkdir -p /work && { [ -e /work/main ] || ln -s "$PWD" /work/main; }
  for t in "$2"/*; do
    echo "== $t"; GPU_SUDOKU_REQUIRE_GPU=1 timeout 300 "$t" --test-threads 4 2>&1 | tail -4 | tee -a $OUT/tests.log
  done
  shift 2
fi
if [ "${1:-}" = --rfss-gens ]; then RG=$2; shift 2; fi
RL=0 # generations of a long RFSS run, for the last binary only
if [ "${1:-}" = --rfss-long ]; then RL=$2; shift 2; fi
last=${!#}
for arg in "$@"; do
  label=${arg%%=*}; bin=${arg#*=}
  log=$OUT/$label.log
  echo "== $label ($bin)" | tee -a $log
  run() { echo "\$ $*" >>$log; local s=$(date +%s%N); "$bin" "$@" >>$log 2>&1; local rc=$?; echo "rc=$rc wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))" >>$log; }
  new=; "$bin" bench --help | grep -q -- --repeat && new=1
  run bench $T --runs 10
  run bench $T --runs 10 --steps 1
  run bench $T --runs 10 --lr 0.0666667 --sr 65
  run bench $T --runs 2500 --cpu-instances 40000
  run bench puzzles/16x16.txt --runs 200 --lr 0.05 --compare free
  run bench puzzles/25x25.txt --runs 200 --lr 0.05 --compare free
  # The large grids under the default compare rule (sharing), where unit counts shorten both
  # the degrees and the reward test.
  run bench puzzles/25x25.txt --runs 200 --cpu-instances 100
  run bench puzzles/36x36.txt --runs 300 --cpu-instances 100
  run bench puzzles/49x49.txt --runs 300 --cpu-instances 100
  run bench puzzles/evil.txt --runs 40 --steps 2000
  if [ "$new" ]; then
    run bench puzzles/evil.txt --runs 40 --steps 2000 --no-loop-pass-cap
    run bench puzzles/25x25.txt --runs 200 --lr 0.05 --compare free --no-loop-pass-cap
  fi
  run rfss $W/rfss1000.txt --backend gpu --max-generations 1 --json $W/r.json
  run rfss $W/rfss1000.txt --backend gpu --max-generations $RG --json $W/r.json
  if [ "$arg" = "$last" ] && [ "$RL" != 0 ]; then
    run rfss $W/rfss1000.txt --backend gpu --max-generations $RL --json $W/r.json
  fi
  grep -E "^(gpu|cpu) |^\\$|rc=|agree|DISAG|GPU:" $log | tail -60
done

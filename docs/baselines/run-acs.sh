#!/bin/sh
# ACS (Lloyd & Amos) on the paper's instance model and on puzzles/famous.txt.
# Paper model: a random complete grid with a fraction of its cells kept fixed (d = 1 - fixed),
# COUNT instances per (size, fixed %), one attempt each under a wall-clock limit, seed 1.
# Famous puzzles: RUNS attempts of every puzzle, one file per puzzle so that each gets a row.
# Part q0: the same with acs-q0-0.1 (greedy in 10 % of the choices, as the authors' code does) on
# the famous puzzles and on 25x25 at 40, 45 and 50 % fixed.
# Part hard25 (not in the default PARTS): both on 50 25x25 instances at 40, 45 and 50 % fixed
# with a 120 s limit (the first 20 instances are those of part 25).
# Usage: [COUNT=100] [COUNT25=20] [RUNS=100] [PARTS="famous 9 16 25 q0"] docs/baselines/run-acs.sh BINARY OUTDIR
set -e
BIN=${1:-gpu-sudoku}; OUT=${2:-.}
COUNT=${COUNT:-100}; COUNT25=${COUNT25:-20}; RUNS=${RUNS:-100}; PARTS=${PARTS:-famous 9 16 25 q0}
FIXED="5 10 15 20 25 30 35 40 45 50 55 60 65 70 75 80 85 90 95"
mkdir -p "$OUT"
point() { # size fixed% count limit_ms [algorithm]
  d=$(awk "BEGIN { printf \"%.2f\", 1 - $2 / 100 }")
  f="$OUT/acs-$1x$1-f$2.txt"
  "$BIN" generate --model paper --d "$d" --size "$1" --count "$3" --seed "$1$2" -o "$f"
  name=$(echo "${5:-acs}" | tr , +)   # acs,acs-q0-0.1 -> acs+acs-q0-0.1 (no comma in a file name)
  "$BIN" compare "$f" --algos "${5:-acs}" --runs 1 --time-limit "$4ms" --seed 1 --csv "$OUT/$name-$1x$1-f$2.csv"
}
for part in $PARTS; do
  case $part in
    famous)
      mkdir -p "$OUT/famous"
      grep -v '^#' puzzles/famous.txt | while read -r p name; do echo "$p" > "$OUT/famous/${name#name=}.txt"; done
      "$BIN" compare "$OUT"/famous/*.txt --algos acs --runs "$RUNS" --time-limit 10s --seed 1 \
        --csv "$OUT/acs-famous.csv" ;;
    9) for f in $FIXED; do point 9 $f "$COUNT" 10000; done ;;
    16) for f in $FIXED; do point 16 $f "$COUNT" 20000; done ;;
    25) for f in $FIXED; do point 25 $f "$COUNT25" 60000; done ;;
    q0)
      "$BIN" compare "$OUT"/famous/*.txt --algos acs-q0-0.1 --runs "$RUNS" --time-limit 10s --seed 1 \
        --csv "$OUT/acs-q0-0.1-famous.csv"
      for f in 40 45 50; do point 25 $f "$COUNT25" 60000 acs-q0-0.1; done ;;
    hard25) for f in 40 45 50; do point 25 $f 50 120000 acs,acs-q0-0.1; done ;;
  esac
done

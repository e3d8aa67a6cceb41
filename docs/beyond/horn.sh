#!/bin/sh
# Horn's 25x25 run (issue #17, item 4): 25x25 puzzles with Horn's 301 clues of several kinds
# (rated tier, random removal with and without a unique solution, a 180-degree symmetric clue
# layout), and rated-easy puzzles with more clues, each rated (`rate --json`) and run with
# plain RFSS for a bounded 100,000 generations (`rfss --json`, CPU reference); then the
# logic-easy puzzles nearest to a solution for Horn's 750,000 generations and longer.
# Usage: sh docs/beyond/horn.sh [BINARY] [OUTDIR]  (files go to OUTDIR/horn)
set -e
BIN=${1:-target/release/gpu-sudoku}; H=${2:-docs/beyond}/horn
mkdir -p "$H"
G="$BIN generate --size 25 --count 4"
$G --model rated --tier easy --d 0.5184 --seed 101 -o "$H/rated-easy-301.txt"
$G --model rated --tier medium --d 0.5184 --seed 102 -o "$H/rated-medium-301.txt"
$G --model rated --tier hard --d 0.5184 --seed 103 -o "$H/rated-hard-301.txt"
$G --model paper --d 0.5184 --unique --seed 104 -o "$H/random-unique-301.txt"
$G --model paper --d 0.5184 --seed 105 -o "$H/random-301.txt"
# 180-degree symmetric layout: four complete grids, the centre cell kept and 162 of the 312 cell
# pairs (i, 624 - i) blanked, drawn with awk's seeded generator: 301 clues, not always unique.
$G --model paper --d 0.0001 --seed 106 -o "$H/full.tmp"
awk 'BEGIN { srand(106) }
  /^#/ { next }
  { g = $1; n = 0; for (i = 0; i < 312; i++) pick[i] = i
    for (i = 0; i < 162; i++) { j = i + int(rand() * (312 - i)); t = pick[i]; pick[i] = pick[j]; pick[j] = t }
    for (i = 0; i < 162; i++) { a = pick[i] + 1; b = 625 - pick[i]
      g = substr(g, 1, a - 1) "." substr(g, a + 1); g = substr(g, 1, b - 1) "." substr(g, b + 1) }
    print g " layout=symmetric-180" }' "$H/full.tmp" > "$H/symmetric-301.txt"
rm "$H/full.tmp"
# More clues: rated easy with 313, 325, 334, 344, 375 and 406 clues (d = 0.4992, 0.48, 0.4656,
# 0.4496, 0.4, 0.3504).
$G --model rated --tier easy --d 0.4992 --seed 110 -o "$H/rated-easy-313.txt"
$G --model rated --tier easy --d 0.48 --seed 111 -o "$H/rated-easy-325.txt"
$G --model rated --tier easy --d 0.4656 --seed 112 -o "$H/rated-easy-334.txt"
$G --model rated --tier easy --d 0.4496 --seed 107 -o "$H/rated-easy-344.txt"
$G --model rated --tier easy --d 0.4 --seed 108 -o "$H/rated-easy-375.txt"
$G --model rated --tier easy --d 0.3504 --seed 109 -o "$H/rated-easy-406.txt"
for f in rated-easy-301 rated-medium-301 rated-hard-301 random-unique-301 random-301 symmetric-301 \
         rated-easy-313 rated-easy-325 rated-easy-334 rated-easy-344 rated-easy-375 rated-easy-406; do
  start=$(date +%s)
  "$BIN" rate "$H/$f.txt" --json > "$H/$f.rate.json"
  nice -n 5 "$BIN" rfss "$H/$f.txt" --backend cpu --max-generations 100000 --json "$H/$f.rfss.json" > /dev/null
  echo "horn/$f $(($(date +%s) - start)) s ($(date -u +%Y-%m-%dT%H:%MZ))" >> "$H/../wall.txt"
done
# The largest clue count that failed in 100,000 generations, again for Horn's 750,000.
start=$(date +%s)
nice -n 5 "$BIN" rfss "$H/rated-easy-313.txt" --backend cpu --max-generations 750000 --json "$H/rated-easy-313-750k.rfss.json" > /dev/null
echo "horn/rated-easy-313-750k $(($(date +%s) - start)) s ($(date -u +%Y-%m-%dT%H:%MZ))" >> "$H/../wall.txt"
# And the logic-easy puzzles with Horn's 301 clues for Horn's 750,000.
start=$(date +%s)
nice -n 5 "$BIN" rfss "$H/rated-easy-301.txt" --backend cpu --max-generations 750000 --json "$H/rated-easy-301-750k.rfss.json" > /dev/null
echo "horn/rated-easy-301-750k $(($(date +%s) - start)) s ($(date -u +%Y-%m-%dT%H:%MZ))" >> "$H/../wall.txt"
# The two of them left with fewest conflicts (puzzles 1 and 3 of the file), for 2,000,000.
grep -v '^#' "$H/rated-easy-301.txt" | sed -n '2p;4p' > "$H/rated-easy-301-near.txt"
start=$(date +%s)
nice -n 5 "$BIN" rfss "$H/rated-easy-301-near.txt" --backend cpu --max-generations 2000000 --json "$H/rated-easy-301-near-2m.rfss.json" > /dev/null
echo "horn/rated-easy-301-near-2m $(($(date +%s) - start)) s ($(date -u +%Y-%m-%dT%H:%MZ))" >> "$H/../wall.txt"
# The other two (puzzles 0 and 2) for 3,000,000.
grep -v '^#' "$H/rated-easy-301.txt" | sed -n '1p;3p' > "$H/rated-easy-301-far.txt"
start=$(date +%s)
nice -n 5 "$BIN" rfss "$H/rated-easy-301-far.txt" --backend cpu --max-generations 3000000 --json "$H/rated-easy-301-far-3m.rfss.json" > /dev/null
echo "horn/rated-easy-301-far-3m $(($(date +%s) - start)) s ($(date -u +%Y-%m-%dT%H:%MZ))" >> "$H/../wall.txt"

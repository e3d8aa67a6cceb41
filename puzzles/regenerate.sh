#!/bin/sh
# Regenerates every generated puzzle file from its command (each file's header holds the same
# command). Run from the repository root: sh puzzles/regenerate.sh
set -e
cargo build --release --quiet
# No time limit: a slow machine makes the same files, only later (the limit never changes one).
G="target/release/gpu-sudoku generate --time-limit 0"
i=1
for t in easy medium hard evil; do
    $G --model paper --tier $t --count 100 --size 9 --seed $i -o puzzles/$t.txt
    i=$((i + 1))
done
i=11
for t in easy medium hard evil; do
    $G --model rated --tier $t --count 100 --size 9 --seed $i -o puzzles/unique/$t.txt
    i=$((i + 1))
done
$G --model paper --tier medium --unique --count 10 --size 16 --seed 16 -o puzzles/16x16.txt
$G --model paper --d 0.5184 --unique --count 5 --size 25 --seed 25 -o puzzles/25x25.txt
$G --model paper --d 0.4 --unique --count 3 --size 36 --seed 36 -o puzzles/36x36.txt
$G --model rated --tier medium --d 0.5184 --count 5 --size 25 --seed 25 -o puzzles/25x25-logic.txt
$G --model paper --d 0.4 --unique --count 3 --size 49 --seed 49 -o puzzles/49x49.txt
for s in 16 25; do
    for f in 40 45 50; do
        d=$(awk "BEGIN { printf \"%.2f\", 1 - $f / 100 }")
        $G --model paper --d "$d" --count 10 --size $s --seed 1 -o puzzles/paper-${s}x${s}-f$f.txt
    done
done

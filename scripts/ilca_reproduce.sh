#!/usr/bin/env bash
# Reproduces docs/REPRODUCTION.md: every setting of the ILCA paper's Tables 2-6 under every
# reading of the open choices, plus the improved variant, on the paper-model tiers.
#
#   scripts/ilca_reproduce.sh [PUZZLE_DIR] [WHAT]      (defaults: puzzles, all)
#   WHAT: paper | alt | classic | improved | unique | all
#
# Prints one markdown table row per run: setting | reading | easy | medium | hard | evil | overall.
# Needs a release build: cargo build --release.
set -euo pipefail
DIR=${1:-puzzles}
WHAT=${2:-all}
B=${GPU_SUDOKU:-target/release/gpu-sudoku}
TIERS="$DIR/easy.txt $DIR/medium.txt $DIR/hard.txt $DIR/evil.txt"
CLASSIC="53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"

# row LABEL READING FILES... -- OPTIONS...: one markdown row with the solved % of each file
row() {
  local label=$1 reading=$2; shift 2
  local files=()
  while [ "$1" != "--" ]; do files+=("$1"); shift; done
  shift
  local cells out
  if ! out=$("$B" batch "${files[@]}" --backend "${BACKEND:-cpu}" "$@" 2>&1); then
    echo "failed: $B batch ${files[*]} $*: $out" >&2
    exit 1
  fi
  cells=$(echo "$out" | awk 'NR > 2 && NF > 3 && $1 != "backend" { printf " %s |", $5 }')
  echo "| $label | $reading |$cells"
}

paper() {
  local settings=(
    "Table 2, Algorithm 1|--lr 1 --lp 1"
    "Table 3, lp/lr = 20 (lp = 1)|--lr 0.05 --lp 1"
    "Table 4, lp/lr = 20, lp = 3.5|--lr 0.175 --lp 3.5"
    "Table 5, sr = 40|--lr 1 --lp 1 --sr 40"
    "Table 6, lp/lr = 15 (lp = 1), sr = 65|--lr 0.0666667 --lp 1 --sr 65"
  )
  for s in "${settings[@]}"; do
    local label=${s%%|*} opts=${s#*|}
    for cmp in sharing free all; do
      for tie in random first keep; do
        row "$label" "$cmp, $tie" $TIERS -- --runs 10 --steps 250 $opts --compare $cmp --tie $tie
      done
    done
    if [[ $opts == *--sr* ]]; then
      for cmp in sharing free all; do
        row "$label" "$cmp, random, sum check" $TIERS -- --runs 10 --steps 250 $opts \
          --compare $cmp --tie random --reset-check sum
      done
    fi
  done
}

alt() {
  for cmp in sharing free all; do
    row "Table 3, lp/lr = 20 read as lr = 1, lp = 20" "$cmp, random" $TIERS -- \
      --runs 10 --lr 1 --lp 20 --compare $cmp
    row "Table 6, lp/lr = 15 read with lp = 3.5, sr = 65" "$cmp, random" $TIERS -- \
      --runs 10 --lr 0.2333333 --lp 3.5 --sr 65 --compare $cmp
  done
}

classic() {
  local f
  f=$(mktemp)
  echo "$CLASSIC" >"$f"
  for s in "Algorithm 1|--lr 1 --lp 1" "lp/lr = 20|--lr 0.05 --lp 1" "improved rates, 250 steps|--lr 0.01 --lp 1 --sr 50" "improved|--lr 0.01 --lp 1 --sr 50 --restart 500 --steps 20000"; do
    for cmp in sharing free all; do
      row "Fig. 3 puzzle, ${s%%|*}" "$cmp, random (100 runs)" "$f" -- --runs 100 ${s#*|} --compare $cmp
    done
  done
  rm -f "$f"
}

improved() {
  # Below 500 steps the restart never fires (and --restart may not exceed --steps).
  row "improved rates, 250 steps (no restart)" "sharing, random" $TIERS -- \
    --runs 10 --lr 0.01 --lp 1 --sr 50 --steps 250
  for steps in 1000 3000 10000 20000; do
    row "improved, $steps steps" "sharing, random" $TIERS -- \
      --runs 10 --lr 0.01 --lp 1 --sr 50 --restart 500 --steps $steps
  done
}

unique() {
  local files=("$DIR"/unique/*.txt)
  local settings=(
    "Algorithm 1|--lr 1 --lp 1"
    "Table 6 (lp = 1)|--lr 0.0666667 --lp 1 --sr 65"
    "improved, 3000 steps|--lr 0.01 --lp 1 --sr 50 --restart 500 --steps 3000"
    "improved, 20000 steps|--lr 0.01 --lp 1 --sr 50 --restart 500 --steps 20000"
    "hard penalties, 3000 steps|--lr 1 --lp 20 --sr 40 --restart 500 --steps 3000"
    "hard penalties, 20000 steps|--lr 1 --lp 20 --sr 40 --restart 500 --steps 20000"
  )
  for s in "${settings[@]}"; do
    row "unique tiers, ${s%%|*}" "sharing, random" "${files[@]}" -- --runs 10 ${s#*|}
  done
}

case $WHAT in
  paper) paper ;;
  alt) alt ;;
  classic) classic ;;
  improved) improved ;;
  unique) unique ;;
  all) paper; alt; classic; improved; unique ;;
  *) echo "unknown WHAT: $WHAT" >&2; exit 2 ;;
esac

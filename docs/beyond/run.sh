#!/bin/sh
# Regenerates every measurement of docs/BEYOND.md (issue #17, items 2-4), one job at a time.
# Usage, from the repository root:
#   [PARTS="gen ilca9 ilcafam ilca16 rfssmrv25 base9 basefam base16 base25 ilca25 rfss9 rfss16 rfss25 horn variant rfsslook"] \
#       sh docs/beyond/run.sh [BINARY] [OUTDIR]
# Every job is a `compare` run whose --json report lands in OUTDIR (default docs/beyond); the wall
# time of each job is appended to OUTDIR/wall.txt. Seed 1 everywhere; budgets are on the command
# lines below (steps, generations or milliseconds per attempt). docs/beyond/table.sh turns the
# reports into the tables of docs/BEYOND.md.
set -e
BIN=${1:-target/release/gpu-sudoku}; OUT=${2:-docs/beyond}
PARTS=${PARTS:-gen ilca9 ilcafam ilca16 rfssmrv25 base9 basefam base16 base25 ilca25 rfss9 rfss16 rfss25 horn variant rfsslook}
T9="puzzles/unique/easy.txt puzzles/unique/medium.txt puzzles/unique/hard.txt puzzles/unique/evil.txt"
FAM=puzzles/famous.txt
L16="puzzles/paper-16x16-f40.txt puzzles/paper-16x16-f45.txt puzzles/paper-16x16-f50.txt"
L25="puzzles/paper-25x25-f40.txt puzzles/paper-25x25-f45.txt puzzles/paper-25x25-f50.txt"
ILCA=ilca-table6,ilca-improved,ilca-hard-penalty
RFSS=rfss,rfss-propagate,rfss-mrv
mkdir -p "$OUT"
job() { # name, then compare's arguments
  name=$1; shift
  start=$(date +%s)
  nice -n 5 "$BIN" compare "$@" --seed 1 --json "$OUT/$name.json"
  echo "$name $(($(date +%s) - start)) s ($(date -u +%Y-%m-%dT%H:%MZ))" >> "$OUT/wall.txt"
}
for part in $PARTS; do
  case $part in
    gen) # the paper model at 40/45/50 % fixed (d = 1 - fixed), 10 puzzles per file
      for s in 16 25; do for f in 40 45 50; do
        d=$(awk "BEGIN { printf \"%.2f\", 1 - $f / 100 }")
        "$BIN" generate --model paper --d "$d" --size $s --count 10 --seed 1 -o "puzzles/paper-${s}x${s}-f$f.txt"
      done; done ;;
    ilca9) job ilca-9x9 $T9 --algos $ILCA --max-iterations 20000 --time-limit 0 --runs 2 ;;
    ilcafam) job ilca-famous $FAM --algos $ILCA --max-iterations 20000 --time-limit 0 --runs 10 ;;
    ilca16) job ilca-16x16 $L16 --algos $ILCA --max-iterations 20000 --time-limit 0 --runs 2 ;;
    ilca25) job ilca-25x25 $L25 --algos $ILCA --max-iterations 20000 --time-limit 0 --runs 1 ;;
    rfssmrv25) job rfss-mrv-25x25 $L25 --algos rfss-mrv --max-iterations 200000 --time-limit 0 ;;
    rfss9) job rfss-9x9 $T9 $FAM --algos $RFSS --max-iterations 200000 --time-limit 0 ;;
    rfss16) job rfss-16x16 $L16 --algos $RFSS --max-iterations 200000 --time-limit 0 ;;
    # Plain and propagate RFSS on 25x25 only at 50 % fixed (about 40 s per 200,000 generations
    # each: the three files would take 20 minutes here).
    rfss25) job rfss-25x25 puzzles/paper-25x25-f50.txt --algos rfss,rfss-propagate --max-iterations 200000 --time-limit 0 ;;
    # Baselines on the clock: ACS and the exact solver with a generous limit, SA and GA (which
    # rarely finish) with a shorter one.
    base9)
      job acs-exact-9x9 $T9 --algos acs,exact --time-limit 10s --runs 2
      job sa-ga-9x9 $T9 --algos sa,ga --time-limit 1s --runs 1 ;;
    basefam)
      job acs-exact-famous $FAM --algos acs,exact --time-limit 10s --runs 10
      job sa-ga-famous $FAM --algos sa,ga --time-limit 2s --runs 2 ;;
    base16)
      job acs-exact-16x16 $L16 --algos acs,exact --time-limit 20s --runs 2
      job sa-ga-16x16 $L16 --algos sa,ga --time-limit 5s --runs 1 ;;
    base25)
      job acs-exact-25x25 $L25 --algos acs,exact --time-limit 20s --runs 1
      job sa-ga-25x25 $L25 --algos sa,ga --time-limit 5s --runs 1 ;;
    horn) sh docs/beyond/horn.sh "$BIN" "$OUT" ;;
    # One variant idea (docs/BEYOND.md): RFSS + MRV decisions with a shorter stall (100
    # generations instead of 300) on the two 25x25 files where the default misses the target.
    variant)
      start=$(date +%s)
      nice -n 5 "$BIN" batch puzzles/paper-25x25-f45.txt puzzles/paper-25x25-f50.txt --algo rfss \
        --enhance mrv --stall-generations 100 --max-generations 200000 --backend cpu \
        --json "$OUT/variant-rfss-mrv-stall100.json"
      echo "variant $(($(date +%s) - start)) s ($(date -u +%Y-%m-%dT%H:%MZ))" >> "$OUT/wall.txt" ;;
    # The strongest RFSS variant (--enhance lookahead, with the short stall it is measured with
    # in docs/BEYOND.md) on every file of the table.
    rfsslook) job rfss-lookahead $T9 $FAM $L16 $L25 --algos rfss-lookahead --stall-generations 50 \
      --max-iterations 200000 --time-limit 0 ;;
    *) echo "unknown part $part" >&2; exit 2 ;;
  esac
done

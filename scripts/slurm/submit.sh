#!/usr/bin/env bash
# Submits a gpu-sudoku run as N shards on a Slurm cluster (a job array, one GPU per task) and a
# merge job that runs when every shard has succeeded:
#   scripts/slurm/submit.sh N OUT_DIR COMMAND ARGS...
#   e.g. scripts/slurm/submit.sh 16 runs/fig9 sweep puzzles/unique/*.txt --ratio 1:30:1 --sr 10:150:5 --steps 20000
# DRY_RUN=1 prints the sbatch commands instead of running them.
set -euo pipefail
N=${1:?number of shards}
OUT=${2:?output folder}
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
run() {
  if [ "${DRY_RUN:-0}" = 1 ]; then
    printf '%q ' "$@" >&2
    printf '\n' >&2
    echo 12345 # a job id for the dry run
  else
    "$@"
  fi
}
ARRAY=$(run sbatch --parsable --array=0-$((N - 1)) --export=ALL,SHARDS="$N",OUT="$OUT" \
  "$HERE/shard.sbatch" "$@")
run sbatch --parsable --dependency=afterok:"${ARRAY%%;*}" --export=ALL,SHARDS="$N",OUT="$OUT" \
  "$HERE/merge.sbatch" >/dev/null
echo "submitted: shards ${ARRAY%%;*} (0-$((N - 1))), then the merge into $OUT/merged.json"

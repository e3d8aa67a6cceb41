#!/usr/bin/env bash
# Submits a gpu-sudoku run as N shards on a Slurm cluster (a job array, one GPU per task) and a
# merge job that runs when every shard has succeeded:
#   scripts/slurm/submit.sh N OUT_DIR COMMAND ARGS...
#   e.g. scripts/slurm/submit.sh 16 runs/fig9 sweep puzzles/unique/*.txt --ratio 1:30:1 --sr 10:150:5 --steps 20000
# DRY_RUN=1 prints the sbatch commands instead of running them.
# A shard task's resources come from the environment (defaults as in shard.sbatch):
#   SHARD_GPUS   GPUs per shard (default 1; 0: no --gres, for a CPU partition)
#   SHARD_CPUS   CPUs per shard (default 4)
#   SHARD_TIME   time limit per shard (default 04:00:00)
#   SBATCH_EXTRA further sbatch options for every job, e.g. "--partition=gpu --account=lab"
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
case "$N" in '' | *[!0-9]* | 0) echo "submit.sh: the number of shards must be 1 or more, not '$N'" >&2; exit 2 ;; esac
GPUS=${SHARD_GPUS:-1}
case "$GPUS" in '' | *[!0-9]*) echo "submit.sh: SHARD_GPUS must be a whole number, not '$GPUS'" >&2; exit 2 ;; esac
if [ "$GPUS" = 0 ]; then GRES=(--gres=none); else GRES=(--gres="gpu:$GPUS"); fi
# Word-split on purpose: SBATCH_EXTRA holds several options.
# shellcheck disable=SC2206
EXTRA=(${SBATCH_EXTRA:-})
ARRAY=$(run sbatch --parsable --array=1-"$N" "${GRES[@]}" --cpus-per-task="${SHARD_CPUS:-4}" \
  --time="${SHARD_TIME:-04:00:00}" "${EXTRA[@]}" --export=ALL,SHARDS="$N",OUT="$OUT" \
  "$HERE/shard.sbatch" "$@")
MERGE=$(run sbatch --parsable --dependency=afterok:"${ARRAY%%;*}" "${EXTRA[@]}" \
  --export=ALL,SHARDS="$N",OUT="$OUT" "$HERE/merge.sbatch")
echo "submitted: shards 1-$N as job ${ARRAY%%;*}, then the merge as job ${MERGE%%;*} into $OUT/merged.json"
echo "progress: squeue -j ${ARRAY%%;*},${MERGE%%;*}   (after: sacct -j ${ARRAY%%;*},${MERGE%%;*})"

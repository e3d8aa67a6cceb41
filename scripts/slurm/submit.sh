#!/usr/bin/env bash
# Submits a gpu-sudoku run as N shards on a Slurm cluster (a job array, one GPU per task) and a
# merge job that runs when every shard has succeeded:
#   scripts/slurm/submit.sh N OUT_DIR COMMAND ARGS...
#   e.g. scripts/slurm/submit.sh 16 runs/fig9 sweep puzzles/unique/*.txt --ratio 1:30:1 --sr 10:150:5 --steps 20000
# The jobs' logs go to OUT_DIR/slurm-JOB_K.out (shard K) and OUT_DIR/slurm-JOB.out (the merge);
# the run's command and job ids to OUT_DIR/submit.env, which the other two forms read:
#   scripts/slurm/submit.sh --status OUT_DIR   each shard and the merge: done, queued, running or
#                                              failed (with its job and log); exits 1 when a shard
#                                              failed, 0 otherwise
#   scripts/slurm/submit.sh --resume OUT_DIR   resubmits the shards without a finished report (a
#                                              journal continues) and a new merge, after
#                                              cancelling the merge that can no longer run
# DRY_RUN=1 prints the sbatch commands instead of running them (and writes nothing).
# A shard task's resources come from the environment (defaults as in shard.sbatch; --resume
# takes those of the first submission unless set again):
#   SHARD_GPUS   GPUs per shard (default 1; 0: no --gres, for a CPU partition)
#   SHARD_CPUS   CPUs per shard (default 4)
#   SHARD_TIME   time limit per shard (default 04:00:00)
#   SBATCH_EXTRA further sbatch options for every job, e.g. "--partition=gpu --account=lab"
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ME="scripts/slurm/submit.sh"
die() {
  echo "submit.sh: $*" >&2
  exit 2
}
run() {
  if [ "${DRY_RUN:-0}" = 1 ]; then
    printf '%q ' "$@" >&2
    printf '\n' >&2
    echo 12345 # a job id for the dry run
  else
    "$@"
  fi
}

# Shard K is finished when its report is there and no journal of it is left (a sweep shard also
# needs its CSV): the state shard.sbatch skips or continues.
finished() {
  local k=$1
  [ -f "$OUT/shard-$k.json" ] && [ ! -e "$OUT/shard-$k.json.partial.jsonl" ] || return 1
  [ "${ARGS[0]}" != sweep ] || { [ -f "$OUT/shard-$k.csv" ] && [ ! -e "$OUT/shard-$k.csv.partial.jsonl" ]; }
}

# STATE[id]="STATE|REASON" of every job and array task of this run that Slurm still knows.
declare -A STATE=()
slurm_states() {
  local ids
  ids=$(
    IFS=,
    echo "${ARRAYS[*]%%:*}${MERGES[*]:+,${MERGES[*]}}"
  )
  while IFS='|' read -r id state reason; do
    [ -n "$id" ] && STATE[$id]="$state|$reason"
  done < <(squeue --states=all -h -r -j "$ids" -o '%i|%T|%r' 2>/dev/null || true)
  # Jobs squeue no longer shows (MinJobAge), from the accounting database where there is one.
  while IFS='|' read -r id state; do
    [ -n "$id" ] && [ -z "${STATE[$id]:-}" ] && STATE[$id]="${state%% *}|accounting"
  done < <(sacct -n -P -X -j "$ids" -o JobID,State 2>/dev/null || true)
}

# The last array task that ran shard K ("JOB_K"), or nothing.
task_of() {
  local k=$1 a job tasks t last=""
  for a in "${ARRAYS[@]}"; do
    job=${a%%:*}
    tasks=${a#*:}
    for t in ${tasks//,/ }; do
      if [ "$k" -ge "${t%-*}" ] && [ "$k" -le "${t#*-}" ]; then last="${job}_$k"; fi
    done
  done
  echo "$last"
}

queued() { case ${1%%|*} in PENDING | RUNNING | CONFIGURING | COMPLETING | REQUEUED | REQUEUE_HOLD | REQUEUE_FED | RESIZING | SUSPENDED | STAGE_OUT | SIGNALING) return 0 ;; *) return 1 ;; esac; }

load() {
  OUT=${1:?the output folder of a submitted run}
  OUT=${OUT%/}
  [ -f "$OUT/submit.env" ] || die "$OUT/submit.env not found: $OUT holds no run submitted by $ME"
  # shellcheck source=/dev/null
  . "$OUT/submit.env"
  cd "$SUBMIT_DIR" || die "cannot enter $SUBMIT_DIR, where the run was submitted"
  OUT=$SAVED_OUT
}

save() {
  {
    echo "# written by $ME: the run in this folder, for --status and --resume"
    printf 'SUBMIT_DIR=%q\nSAVED_OUT=%q\nSHARDS=%q\n' "$PWD" "$OUT" "$N"
    printf 'SAVED_GPUS=%q\nSAVED_CPUS=%q\nSAVED_TIME=%q\nSAVED_EXTRA=%q\n' \
      "$GPUS" "${SHARD_CPUS:-4}" "${SHARD_TIME:-04:00:00}" "${SBATCH_EXTRA:-}"
    printf 'ARGS=('
    printf '%q ' "${ARGS[@]}"
    printf ')\n# array jobs (JOB:TASKS) and merge jobs, first to last\nARRAYS=('
    printf '%q ' "${ARRAYS[@]}"
    printf ')\nMERGES=('
    [ ${#MERGES[@]} = 0 ] || printf '%q ' "${MERGES[@]}"
    printf ')\n'
  } >"$OUT/submit.env"
}

# Submits shards TASKS (an --array list such as 1-16 or 2,5) and a merge after them (or, with no
# tasks, the merge alone).
submit() {
  local tasks=$1 array="" merge dep=()
  case "$GPUS" in '' | *[!0-9]*) die "SHARD_GPUS must be a whole number, not '$GPUS'" ;; esac
  local gres
  if [ "$GPUS" = 0 ]; then gres=--gres=none; else gres=--gres="gpu:$GPUS"; fi
  # Word-split on purpose: SBATCH_EXTRA holds several options.
  # shellcheck disable=SC2206
  local extra=(${SBATCH_EXTRA:-})
  if [ "${DRY_RUN:-0}" != 1 ]; then mkdir -p "$OUT"; fi
  if [ -n "$tasks" ]; then
    array=$(run sbatch --parsable --array="$tasks" "$gres" --cpus-per-task="${SHARD_CPUS:-4}" \
      --time="${SHARD_TIME:-04:00:00}" --output="$OUT/slurm-%A_%a.out" --open-mode=append \
      "${extra[@]}" --export=ALL,SHARDS="$N",OUT="$OUT" "$HERE/shard.sbatch" "${ARGS[@]}")
    array=${array%%;*}
    ARRAYS+=("$array:$tasks")
    dep=(--dependency=afterok:"$array")
    # Saved at once, so that a failed merge submission leaves a run --resume can finish.
    if [ "${DRY_RUN:-0}" != 1 ]; then save; fi
  fi
  merge=$(run sbatch --parsable "${dep[@]}" --output="$OUT/slurm-%j.out" "${extra[@]}" \
    --export=ALL,SHARDS="$N",OUT="$OUT" "$HERE/merge.sbatch")
  merge=${merge%%;*}
  MERGES+=("$merge")
  if [ "${DRY_RUN:-0}" != 1 ]; then save; fi
  if [ -n "$tasks" ]; then
    local which="shards $tasks"
    case $tasks in *[!0-9]*) ;; *) which="shard $tasks" ;; esac
    echo "submitted: $which of $N as job $array, then the merge as job $merge into $OUT/merged.json"
  else
    echo "submitted: the merge as job $merge into $OUT/merged.json (every shard is finished)"
  fi
  echo "progress: squeue -j ${array:+$array,}$merge   (or: $ME --status $OUT)"
}

status() {
  load "$1"
  slurm_states
  local k t s failed=() line
  echo "$OUT: gpu-sudoku ${ARGS[*]}, in $SHARDS shards"
  for ((k = 1; k <= SHARDS; k++)); do
    t=$(task_of "$k")
    s=""
    [ -z "$t" ] || s=${STATE[$t]:-}
    if finished "$k"; then
      line="done ($OUT/shard-$k.json)"
    elif [ -n "$s" ] && queued "$s"; then
      line="${s%%|*} (job $t)"
    else
      failed+=("$k")
      if [ -n "$s" ]; then
        line="${s%%|*} (${s#*|}), job $t"
      else
        line="FAILED: no report, and job ${t:-none} is not in the queue"
      fi
      line="$line; its log $OUT/slurm-$t.out ends: $(tail -n 1 "$OUT/slurm-$t.out" 2>/dev/null || echo '(no log)')"
    fi
    echo "shard $k/$SHARDS: $line"
  done
  local m=""
  [ ${#MERGES[@]} = 0 ] || m=${MERGES[${#MERGES[@]} - 1]}
  s=""
  [ -z "$m" ] || s=${STATE[$m]:-}
  if [ -z "$m" ]; then
    echo "merge: not submitted"
  elif [ -f "$OUT/merged.json" ] && [ -f "$OUT/merged.csv" ]; then
    echo "merge: done ($OUT/merged.json, $OUT/merged.csv; its log: $OUT/slurm-$m.out)"
  elif [ -n "$s" ]; then
    echo "merge: ${s%%|*} (${s#*|}), job $m"
  else
    echo "merge: not run, job $m"
  fi
  if [ ${#failed[@]} -gt 0 ]; then
    local list
    list=$(
      IFS=,
      echo "${failed[*]}"
    )
    if [ ${#failed[@]} = 1 ]; then
      echo "shard $list failed: after fixing the cause, resubmit it and the merge with $ME --resume $OUT"
    else
      echo "shards $list failed: after fixing the cause, resubmit them and the merge with $ME --resume $OUT"
    fi
    return 1
  fi
}

resume() {
  load "$1"
  N=$SHARDS
  GPUS=${SHARD_GPUS:-$SAVED_GPUS}
  SHARD_CPUS=${SHARD_CPUS:-$SAVED_CPUS}
  SHARD_TIME=${SHARD_TIME:-$SAVED_TIME}
  SBATCH_EXTRA=${SBATCH_EXTRA-$SAVED_EXTRA}
  slurm_states
  local k t busy=() missing=() m s
  for ((k = 1; k <= SHARDS; k++)); do
    t=$(task_of "$k")
    if [ -n "$t" ] && [ -n "${STATE[$t]:-}" ] && queued "${STATE[$t]}"; then
      busy+=("job $t ${STATE[$t]%%|*}")
    elif ! finished "$k"; then
      missing+=("$k")
    fi
  done
  if [ ${#busy[@]} -gt 0 ]; then
    local list
    list=$(printf '%s, ' "${busy[@]}")
    echo "submit.sh: shards still queued or running (${list%, }): wait for them ($ME --status $OUT) or scancel them, then resume" >&2
    exit 1
  fi
  # A merge still queued waits on shards that failed: it can never run.
  for m in ${MERGES[@]+"${MERGES[@]}"}; do
    s=${STATE[$m]:-}
    if [ -n "$s" ] && queued "$s"; then
      if [ ${#missing[@]} = 0 ]; then
        echo "every shard is finished and the merge (job $m) is ${s%%|*}: nothing to resubmit"
        return 0
      fi
      scancel "$m"
      echo "cancelled the merge job $m (${s%%|*}, ${s#*|}): a shard it waited for failed"
    fi
  done
  if [ ${#missing[@]} = 0 ] && [ -f "$OUT/merged.json" ] && [ -f "$OUT/merged.csv" ]; then
    echo "every shard is finished and merged ($OUT/merged.json): nothing to resubmit"
    return 0
  fi
  submit "$(
    IFS=,
    echo "${missing[*]}"
  )"
}

case ${1:-} in
  --status)
    status "${2:-}"
    exit
    ;;
  --resume)
    resume "${2:-}"
    exit
    ;;
esac

N=${1:?number of shards}
OUT=${2:?output folder}
OUT=${OUT%/}
shift 2
case "$N" in '' | *[!0-9]* | 0) die "the number of shards must be 1 or more, not '$N'" ;; esac
[ $# -gt 0 ] || die "the gpu-sudoku command to shard is missing: batch, sweep or compare"
if [ "${DRY_RUN:-0}" != 1 ] && [ -e "$OUT/submit.env" ]; then
  die "$OUT already holds a submitted run ($OUT/submit.env): resume it with $ME --resume $OUT, or choose another folder"
fi
ARGS=("$@")
ARRAYS=()
MERGES=()
GPUS=${SHARD_GPUS:-1}
submit "1-$N"

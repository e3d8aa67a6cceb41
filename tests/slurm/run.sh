#!/usr/bin/env bash
# scripts/slurm/ against a real Slurm: a one-node cluster on this machine
# (scripts/slurm/test-cluster.sh), on which
#   a. submit.sh runs batch, sweep and compare in shards, and each merged report equals the
#      unsharded run record by record (the sweep CSV byte for byte); the merge job's log names
#      the merged files and the solved count;
#   b. a shard that fails (its report path is a folder) keeps the merge from running,
#      `submit.sh --status` names it, and `submit.sh --resume` reruns it alone and completes the run;
#   c. a shard requeued mid-run (scontrol requeue) continues its journal and the results are the
#      unsharded run's.
# Usage: GPU_SUDOKU=target/release/gpu-sudoku tests/slurm/run.sh
# Exits 77 (skipped, saying why) where Slurm cannot be had (not root, no apt-get), unless
# GPU_SUDOKU_REQUIRE_SLURM=1 (as CI sets it), which makes that a failure. Needs python3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${GPU_SUDOKU:?the gpu-sudoku binary to test, e.g. GPU_SUDOKU=target/release/gpu-sudoku}"
GPU_SUDOKU=$(cd "$(dirname "$GPU_SUDOKU")" && pwd)/$(basename "$GPU_SUDOKU")
export GPU_SUDOKU XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
SUBMIT=$ROOT/scripts/slurm/submit.sh
CLUSTER=$ROOT/scripts/slurm/test-cluster.sh
SAME=$ROOT/tests/slurm/same_report.py
STARTED=$(date +%s)

skip() {
  if [ "${GPU_SUDOKU_REQUIRE_SLURM:-0}" = 1 ]; then
    echo "slurm tests: FAILED: Slurm is required here (GPU_SUDOKU_REQUIRE_SLURM=1): $*" >&2
    exit 1
  fi
  echo "slurm tests: skipped: $*" >&2
  exit 77
}
command -v python3 >/dev/null || skip "python3 is missing (it compares the reports)"
[ -x "$GPU_SUDOKU" ] || { echo "slurm tests: $GPU_SUDOKU is not an executable" >&2; exit 2; }

W=$(mktemp -d "${TMPDIR:-/tmp}/gpu-sudoku-slurm-test.XXXXXX")
RAN=0
cleanup() {
  local rc=$?
  "$CLUSTER" stop || true
  if [ $rc = 0 ] || [ $RAN = 0 ]; then
    rm -rf "$W"
  else
    echo "slurm tests: the runs' folders and logs are kept in $W" >&2
  fi
}
trap cleanup EXIT
set +e
ENV=$("$CLUSTER" start 2>"$W/cluster.err")
rc=$?
set -e
case $rc in
  0) eval "$ENV" ;;
  77) skip "$(tail -n 1 "$W/cluster.err")" ;;
  *)
    cat "$W/cluster.err" >&2
    exit "$rc"
    ;;
esac
RAN=1
cat "$W/cluster.err"
cd "$W"
ln -s "$ROOT/puzzles" puzzles

fail() {
  echo "slurm tests: FAILED: $*" >&2
  squeue --states=all -r -o '%i %j %T %r' >&2 || true
  exit 1
}
ok() { echo "ok: $*"; }

# A job's (or array task's) state as Slurm knows it, or nothing.
state() { squeue --states=all -h -j "$1" -o '%T %r' 2>/dev/null | head -n 1; }

# Waits until the last merge job of run OUT is over; fails unless it completed.
wait_merge() {
  local out=$1 m s
  # shellcheck source=/dev/null
  m=$(. "$out/submit.env" && echo "${MERGES[${#MERGES[@]} - 1]}")
  for _ in $(seq 1200); do
    s=$(state "$m")
    case ${s%% *} in PENDING | RUNNING | CONFIGURING | COMPLETING) ;; *) break ;; esac
    case $s in *DependencyNeverSatisfied*) fail "$out: the merge job $m waits on a shard that failed: $("$SUBMIT" --status "$out" || true)" ;; esac
    sleep 0.1
  done
  [ "${s%% *}" = COMPLETED ] || fail "$out: the merge job $m is '$s', not COMPLETED: $(cat "$out/slurm-$m.out" 2>/dev/null)"
  MERGE_LOG=$out/slurm-$m.out
}

# The last line of the merge job's log names the files and the solved count of report WHOLE.
check_merge_log() {
  local out=$1 shards=$2 whole=$3 what=$4 want got
  want=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
if "overall" in r:
    print(r["overall"]["solved"], "of", r["overall"]["instances"])
else:
    a = r["attempts"]
    print(sum(x["solved"] for x in a), "of", len(a))' "$whole")
  got=$(tail -n 1 "$MERGE_LOG")
  case $got in
    "merged $shards shards: $out/merged.json, $out/merged.csv; solved $want $what ("*) ;;
    *) fail "$MERGE_LOG should end with 'merged $shards shards: $out/merged.json, $out/merged.csv; solved $want $what (…)', it ends with: $got" ;;
  esac
}

same() {
  local n
  n=$(python3 "$SAME" "$1" "$2") || fail "$1 is not the unsharded report $2"
  echo "$n"
}

# The unsharded run, its report in JSON.
whole() {
  local json=$1
  shift
  "$GPU_SUDOKU" "$@" --json "$json" >whole.out 2>&1 || fail "gpu-sudoku $*: $(cat whole.out)"
}

shards() { SHARD_GPUS=0 SHARD_CPUS=1 "$SUBMIT" "$@" >"$2.submit" || fail "submit.sh $*: $(cat "$2.submit")"; }

BATCH=(batch puzzles/easy.txt --runs 2 --steps 50 --backend cpu)
SWEEP=(sweep puzzles/easy.txt --runs 2 --steps 50 --sr 10:30:10 --backend cpu)
# shellcheck disable=SC2054 # --algos takes a comma-separated list
COMPARE=(compare puzzles/easy.txt --algos backtrack,mrv,ilca --runs 2 --time-limit 2s)

# All of a. and b. in the queue at once; the unsharded runs meanwhile.
shards 3 batch "${BATCH[@]}"
shards 3 sweep "${SWEEP[@]}"
shards 2 compare "${COMPARE[@]}"
mkdir -p failing/shard-2.json # shard 2 cannot write its report: a folder has its name
shards 3 failing "${BATCH[@]}"
grep -q '^progress: squeue -j [0-9]*,[0-9]*   (or: .*submit.sh --status batch)$' batch.submit ||
  fail "submit.sh should print the squeue command of its jobs: $(cat batch.submit)"
whole batch.json "${BATCH[@]}"
whole sweep.json "${SWEEP[@]}" --csv sweep.csv
whole compare.json "${COMPARE[@]}"

# a. Sharded = unsharded.
wait_merge batch
n=$(same batch/merged.json batch.json)
check_merge_log batch 3 batch.json instances
ok "batch in 3 shards: merged.json equals the unsharded run on all $n instances; the merge log says: $(tail -n 1 "$MERGE_LOG")"
wait_merge sweep
n=$(same sweep/merged.json sweep.json)
cmp -s sweep/merged.csv sweep.csv || fail "sweep/merged.csv is not the unsharded sweep.csv: $(diff sweep/merged.csv sweep.csv | head -5)"
case $(tail -n 1 "$MERGE_LOG") in
  "merged 3 shards: sweep/merged.json, sweep/merged.csv; solved "*" instances over 3 settings ("*) ;;
  *) fail "$MERGE_LOG should end with the merged files and the solved count over 3 settings: $(tail -n 1 "$MERGE_LOG")" ;;
esac
ok "sweep in 3 shards: merged.json equals the unsharded run on all $n rows, merged.csv byte for byte"
wait_merge compare
n=$(same compare/merged.json compare.json)
check_merge_log compare 2 compare.json attempts
ok "compare in 2 shards: merged.json equals the unsharded run on all $n attempts"

# b. A failing shard: no merge; --status names it; --resume reruns it alone.
# shellcheck source=/dev/null
FIRST_MERGE=$(. failing/submit.env && echo "${MERGES[0]}")
for _ in $(seq 600); do
  case $(state "$FIRST_MERGE") in *DependencyNeverSatisfied* | CANCELLED*) break ;; esac
  sleep 0.1
done
s=$(state "$FIRST_MERGE")
case $s in
  "PENDING DependencyNeverSatisfied" | CANCELLED*) ;;
  *) fail "the merge job $FIRST_MERGE of a run with a failed shard is '$s', not pending on a dependency never satisfied (or cancelled)" ;;
esac
[ ! -e failing/merged.json ] || fail "failing/merged.json was written although shard 2 failed"
ok "a failed shard: the merge job $FIRST_MERGE did not run ($s)"
set +e
"$SUBMIT" --status failing >status.out 2>&1
rc=$?
set -e
[ $rc = 1 ] || fail "submit.sh --status on a run with a failed shard should exit 1, not $rc: $(cat status.out)"
grep -q '^shard 2/3: FAILED .*is a folder, not a file$' status.out ||
  fail "submit.sh --status should name shard 2 as failed, with the end of its log: $(cat status.out)"
if ! grep -q '^shard 1/3: done' status.out || ! grep -q '^shard 3/3: done' status.out; then
  fail "submit.sh --status should show shards 1 and 3 done: $(cat status.out)"
fi
grep -q -- '--resume failing$' status.out || fail "submit.sh --status should say how to resume: $(cat status.out)"
ok "submit.sh --status names the failed shard: $(grep '^shard 2/3' status.out)"
before=$(stat -c %Y failing/shard-1.json failing/shard-3.json)
rmdir failing/shard-2.json # the cause, fixed
"$SUBMIT" --resume failing >resume.out 2>&1 || fail "submit.sh --resume failing: $(cat resume.out)"
grep -q "^cancelled the merge job $FIRST_MERGE " resume.out || [[ $s == CANCELLED* ]] ||
  fail "submit.sh --resume should cancel the merge that can no longer run: $(cat resume.out)"
grep -q '^submitted: shard 2 of 3 as job ' resume.out || fail "submit.sh --resume should resubmit shard 2 alone: $(cat resume.out)"
wait_merge failing
[ "$(stat -c %Y failing/shard-1.json failing/shard-3.json)" = "$before" ] || fail "--resume ran shards 1 or 3 again"
n=$(same failing/merged.json batch.json)
ok "submit.sh --resume reran shard 2 alone; merged.json equals the unsharded run on all $n instances"
"$SUBMIT" --status failing >status.out 2>&1 || fail "submit.sh --status after the resume: $(cat status.out)"
grep -q '^merge: done' status.out || fail "submit.sh --status should show the merge done: $(cat status.out)"

# c. A shard requeued mid-run continues its journal (chunks of 50 instances).
LONG=(batch puzzles/hard.txt --runs 6 --steps 2000 --chunk 50 --backend cpu)
shards 2 requeue "${LONG[@]}"
# shellcheck source=/dev/null
TASK=$(. requeue/submit.env && echo "${ARRAYS[0]%%:*}")_1
J=requeue/shard-1.json.partial.jsonl
for _ in $(seq 1200); do
  [ "$(wc -l 2>/dev/null <"$J" || echo 0)" -ge 2 ] && break # the header and a chunk
  sleep 0.05
done
if [ "$(state "$TASK")" != "RUNNING None" ] || [ ! -e "$J" ]; then
  fail "shard 1 ($TASK) should be running with a journal: $(state "$TASK")"
fi
set +e
"$SUBMIT" --resume requeue >resume.out 2>&1
rc=$?
set -e
if [ $rc != 1 ] || ! grep -q "^submit.sh: shards still queued or running (job $TASK RUNNING" resume.out; then
  fail "submit.sh --resume should refuse a run whose shards are running (exit 1, naming $TASK), not exit $rc: $(cat resume.out)"
fi
ok "submit.sh --resume refuses while shard 1 is running: $(cat resume.out)"
scontrol requeue "$TASK"
for _ in $(seq 300); do
  case $(state "$TASK") in PENDING*) break ;; esac
  sleep 0.1
done
[ "$(state "$TASK")" = "PENDING BeginTime" ] || fail "$TASK should be pending after the requeue: $(state "$TASK")"
kept=$(($(wc -l <"$J") - 1))
# Slurm lets a requeued job start again two minutes later; now, here.
scontrol update JobId="$TASK" StartTime=now
wait_merge requeue
LOG=requeue/slurm-$TASK.out
grep -q 'DUE TO JOB REQUEUE' "$LOG" || fail "$LOG should show the requeue: $(cat "$LOG")"
resumed=$(sed -n 's/^resuming: \([0-9]*\) chunks already done$/\1/p' "$LOG" | tail -n 1)
[ "${resumed:-0}" -ge 1 ] || fail "the requeued shard should continue its journal ($kept chunks when it was requeued): $(cat "$LOG")"
whole requeue.json "${LONG[@]}"
n=$(same requeue/merged.json requeue.json)
ok "shard 1 requeued mid-run continued its journal (it kept $resumed chunk(s) of 50 instances); merged.json equals the unsharded run on all $n instances"
echo "slurm tests: all passed in $(($(date +%s) - STARTED)) s"

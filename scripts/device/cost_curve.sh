#!/usr/bin/env bash
# The GPU/CPU cost curve of benches/RESULTS.md (#15): one `gpu-sudoku bench` per point, GPU and
# CPU side by side in the same run. Usage: scripts/device/cost_curve.sh BINARY; writes
# $OUT/cost-instances.csv and $OUT/cost-sizes.csv (and the bench output in $OUT/cost.log).
# Draw them here with scripts/device/cost_plot.sh.
set -u
[ "${SKIP_SETUP:-}" ] || source scripts/device/setup.sh >/dev/null
bin=$1
# COST_QUICK=1: two small points per curve, to try the script on a machine without a GPU.
RUNS="1 10 100 1000 10000"; SIZES="2 3 4 5 6 7 8"; STEPS=100
[ "${COST_QUICK:-}" ] && { RUNS="1 10"; SIZES="2 3"; STEPS=5; }
log=${DEVICE_LOG:-$OUT/cost.log}
W=$(mktemp -d)
# One bench, its "gpu"/"cpu" table rows as CSV columns: x, instances, then per engine
# seconds, instance-steps/s and cell-updates/s.
point() {
  local x=$1; shift
  echo "\$ $*" >>$log
  "$bin" bench "$@" >$W/out 2>&1; local rc=$?
  cat $W/out >>$log
  [ $rc = 0 ] || { echo "point $x failed (rc=$rc)" >&2; return; }
  awk -v x="$x" '$2 !~ /^[0-9]+$/ {next} $1=="gpu"{g=$2","$4","$5","$6} $1=="cpu"{c=$2","$4","$5","$6} END{print x","g","c}' $W/out
}
H=x,gpu_instances,gpu_seconds,gpu_inst_steps_per_s,gpu_cell_updates_per_s,cpu_instances,cpu_seconds,cpu_inst_steps_per_s,cpu_cell_updates_per_s
# 9x9, 250 steps, 10^2 … 10^6 instances (puzzles/evil.txt: 100 puzzles, mostly unsolved in 250
# steps, so nearly every instance runs every step); the CPU runs at most 40,000 of them.
{
  echo "$H"
  for runs in $RUNS; do
    point $((runs * 100)) puzzles/evil.txt --runs $runs --cpu-instances 40000
  done
} > $OUT/cost-instances.csv
# Grid sizes 4x4 … 64x64 at 1,000 instances (10 paper-model puzzles, d = 0.5, × 100 runs),
# 100 steps; the CPU runs the first 1,000 / 1,000 / 1,000 / 200 / 100 / 50 / 20.
{
  echo "${H/x,/side,}"
  for b in $SIZES; do
    n=$((b * b))
    "$bin" generate --model paper --d 0.5 --size $n --count 10 --seed 1 -o $W/p$n.txt 2>>$log
    case $b in 5) ci=200;; 6) ci=100;; 7) ci=50;; 8) ci=20;; *) ci=1000;; esac
    point $n $W/p$n.txt --runs 100 --steps $STEPS --cpu-instances $ci
  done
} > $OUT/cost-sizes.csv
cat $OUT/cost-instances.csv $OUT/cost-sizes.csv

#!/usr/bin/env bash
# Large grids on the GPU (#35): ILCA 25x25 … 64x64 in the default layout of states and degrees
# (words where they fit the device, bytes for 64x64), 25x25 … 49x49 with bytes too, and every
# size with its unit counts switched (on for 9x9 and 16x16, off from 25x25 on), then RFSS
# 64x64. Usage: scripts/device/large_grids.sh BINARY; writes $OUT/large-grids.csv (one row per
# ILCA bench: side, layout, unit counts (false for a binary without them), invocations, cells
# each, GPU median s, cell-updates/s, CPU cell-updates/s, agreement) and the commands' output
# in $OUT/large-grids.log.
set -u
[ "${SKIP_SETUP:-}" ] || source scripts/device/setup.sh >/dev/null
bin=$1
log=${DEVICE_LOG:-$OUT/large-grids.log}
W=$(mktemp -d)
# LARGE_QUICK=1: tiny runs, to try the script on a machine without a GPU.
RUNS=100; STEPS=100; SIDES="9 16 25 36 49 64"; RG=10000
[ "${LARGE_QUICK:-}" ] && { RUNS=1; STEPS=3; SIDES="9 25 64"; RG=3; }
echo "side,layout,unit_counts,invocations,cells_per_invocation,gpu_median_s,gpu_cell_updates_per_s,cpu_cell_updates_per_s,agreement" \
  > $OUT/large-grids.csv
for n in $SIDES; do
  # 10 paper-model puzzles, d = 0.5, × RUNS runs; the CPU runs the first few instances.
  "$bin" generate --model paper --d 0.5 --size $n --count 10 --seed 1 -o $W/p$n.txt 2>>$log
  # The switched counts: --unit-counts on where one cell per invocation leaves them off.
  switched=off; [ $n -le 16 ] && switched=on
  layouts="default bytes counts-$switched"; [ $n -le 16 -o $n = 64 ] && layouts="default counts-$switched"
  for layout in $layouts; do
    case $layout in
      bytes) flag="--state-layout bytes" ;;
      counts-*) flag="--unit-counts $switched" ;;
      *) flag= ;;
    esac
    echo "\$ bench p$n --runs $RUNS --steps $STEPS $flag" >>$log
    "$bin" bench $W/p$n.txt --runs $RUNS --steps $STEPS --cpu-instances 20 $flag --json $W/b.json \
      >$W/out 2>&1
    rc=$?; cat $W/out >>$log
    [ $rc = 0 ] || { echo "$n,$layout,failed rc=$rc,,,,,," >>$OUT/large-grids.csv; continue; }
    python3 - "$n" "$W/b.json" >>$OUT/large-grids.csv <<'EOF'
import json, sys
j = json.load(open(sys.argv[2])); g = j["gpu_runs"]
print(",".join(str(x) for x in [sys.argv[1], g["state_layout"], g.get("unit_counts", False),
    g["invocations_per_instance"], g["cells_per_invocation"], g["median_s"], j["gpu"]["cell_updates_per_s"],
    j["cpu"]["cell_updates_per_s"], "identical" if j["mismatches"] == 0 else "DIFFER"]))
EOF
  done
done
# RFSS 64x64: 100 instances (10 puzzles, 10 times each), RG generations.
for i in $(seq 10); do sed -n '/^[^#]/p' $W/p64.txt; done > $W/r64.txt 2>/dev/null
if [ -s $W/r64.txt ]; then
  echo "\$ rfss r64 (100 × 64x64) --backend gpu --max-generations $RG" >>$log
  "$bin" rfss $W/r64.txt --backend gpu --max-generations $RG --json $W/r.json 2>&1 | tail -3 >>$log
fi
cat $OUT/large-grids.csv
grep "^r64:" $log

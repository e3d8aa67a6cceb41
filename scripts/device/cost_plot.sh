#!/usr/bin/env bash
# Draws the cost curves measured by scripts/device/cost_curve.sh.
# Usage: scripts/device/cost_plot.sh DIR DEVICE  (DIR holds cost-instances.csv, cost-sizes.csv;
# writes DIR/cost-instances.png and DIR/cost-sizes.png; DEVICE names the GPU in the titles).
set -eu
dir=$1; dev=$2
bin=${GPU_SUDOKU:-target/release/gpu-sudoku}
W=$(mktemp -d)
awk -F, -v d="$dev" 'NR==1{print "log10 instances," d " instance-steps/s,CPU (16 cores) instance-steps/s"; next}
         {printf "%.3f,%s,%s\n", log($1)/log(10), $4, $8}' $dir/cost-instances.csv > $W/i.csv
awk -F, -v d="$dev" 'NR==1{print "side," d " instance-steps/s,CPU (16 cores) instance-steps/s"; next}
         {print $1","$4","$8}' $dir/cost-sizes.csv > $W/s.csv
"$bin" plot-lines $W/i.csv -o $dir/cost-instances.png --log-y \
  --title "ILCA 9x9, 250 steps: throughput against batch size" \
  --x-label "instances (log10)" --y-label "instance-steps per second"
"$bin" plot-lines $W/s.csv -o $dir/cost-sizes.png --log-y \
  --title "ILCA, 1,000 instances, 100 steps: throughput against grid side" \
  --x-label "grid side N (NxN)" --y-label "instance-steps per second"

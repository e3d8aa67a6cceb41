#!/usr/bin/env bash
# The famous 16 on the GPU beside the ant colony (#36, the median-time target): `compare
# --backend gpu` with cooperating portfolios of 64 (`ilca-shared:64:pull`, pure ILCA: --prune
# off) and independent ones (`ilca-shared:64`) beside `acs`, each attempt alone on the device
# after an untimed warm-up, 20,000 steps. Usage: scripts/device/famous_gpu.sh BINARY; writes
# $OUT/famous-gpu.csv (famous-cpu.csv on the CPU; per puzzle and entry: attempts, solved,
# median and mean seconds per attempt, median seconds of the solved ones) and appends the
# command's table to $DEVICE_LOG (default $OUT/famous-gpu.log).
set -u
[ "${SKIP_SETUP:-}" ] || source scripts/device/setup.sh >/dev/null
bin=$1
W=$(mktemp -d)
# FAMOUS_QUICK=1: a short run, to try the script on a machine without a GPU (lavapipe);
# FAMOUS_BACKEND=cpu: the same on the CPU reference, for the figures beside the GPU's.
RUNS=${FAMOUS_RUNS:-10}; STEPS=20000; ALGOS=acs,ilca-shared:64:pull,ilca-shared:64
[ "${FAMOUS_QUICK:-}" ] && { RUNS=1; STEPS=200; ALGOS=acs,ilca-shared:4:pull; }
BACKEND=${FAMOUS_BACKEND:-gpu}
log=${DEVICE_LOG:-$OUT/famous-gpu.log}
echo "\$ compare puzzles/famous.txt --algos $ALGOS --runs $RUNS --max-iterations $STEPS --prune off --backend $BACKEND" >>$log
"$bin" compare puzzles/famous.txt --algos $ALGOS --runs $RUNS --max-iterations $STEPS \
  --prune off --backend $BACKEND --csv $W/c.csv >>$log 2>&1 || { echo "compare failed: rc=$?" >>$log; cat $log; exit 1; }
python3 - "$W/c.csv" >$OUT/famous-$BACKEND.csv <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("puzzle,line,algo,backend,attempts,solved,median_s,mean_s,median_solved_s")
keys = sorted({(int(r["puzzle"]), r["line"], r["algo"]) for r in rows})
for puzzle, line, algo in keys:
    rs = [r for r in rows if (int(r["puzzle"]), r["line"], r["algo"]) == (puzzle, line, algo)]
    s = [float(r["seconds"]) for r in rs]
    ok = [float(r["seconds"]) for r in rs if r["solved"] == "true"]
    print(",".join(str(x) for x in [puzzle, line, algo, rs[0].get("param_backend") or "cpu",
        len(rs), len(ok), f"{statistics.median(s):.6f}", f"{statistics.mean(s):.6f}",
        f"{statistics.median(ok):.6f}" if ok else ""]))
PY
cat $OUT/famous-$BACKEND.csv

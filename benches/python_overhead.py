"""The Python layer's overhead on the ILCA paper's experiment (400 puzzles x 10 runs x 250
steps): `gs.batch` beside the same job through the command line (`gpu-sudoku batch`, whose
wall time holds the library call plus process start, reading and printing), alternated in one
run, medians of REPEATS each. benches/RESULTS.md ("Python") records the figures.

    python benches/python_overhead.py [--backend cpu|gpu|auto] [--repeats 7]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import time

import gpu_sudoku as gs

p = argparse.ArgumentParser()
p.add_argument("--backend", default="cpu")
p.add_argument("--repeats", type=int, default=7)
p.add_argument("--cli", default=shutil.which("gpu-sudoku") or "target/release/gpu-sudoku")
a = p.parse_args()

tiers = [f"puzzles/{t}.txt" for t in ("easy", "medium", "hard", "evil")]
gs.batch(tiers, runs=10, backend=a.backend, progress=False)  # warm: kernels, caches
py, cli = [], []
for _ in range(a.repeats):
    t = time.perf_counter()
    gs.batch(tiers, runs=10, backend=a.backend, progress=False)
    py.append(time.perf_counter() - t)
    t = time.perf_counter()
    subprocess.run([a.cli, "batch", *tiers, "--runs", "10", "--backend", a.backend],
                   check=True, capture_output=True, env={**os.environ})
    cli.append(time.perf_counter() - t)
mp, mc = statistics.median(py), statistics.median(cli)
print(f"backend {a.backend}, {a.repeats} alternated runs of 400 puzzles x 10 runs x 250 steps")
print(f"python gs.batch  median {mp:.3f} s  (min {min(py):.3f}, max {max(py):.3f})")
print(f"gpu-sudoku batch median {mc:.3f} s  (min {min(cli):.3f}, max {max(cli):.3f})")
print(f"python / command line: {mp / mc:.3f}")

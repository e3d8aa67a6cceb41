"""The ILCA paper's Table 2 row beside the command line's, a preset on a Kaggle-style CSV read
with pandas, and one trace figure (the paper's Figure 3 kind). docs/PYTHON.md walks through it;
CI runs it.

    python python/examples/paper.py [OUT_DIR]

Run from the repository root (it reads puzzles/); OUT_DIR (default: the current folder)
receives sudoku.csv and trace.png.
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd

import gpu_sudoku as gs

out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)

# 1. Table 2: Algorithm 1 (the default preset), 10 runs of each of the 100 puzzles per tier.
tiers = [f"puzzles/{t}.txt" for t in ("easy", "medium", "hard", "evil")]
table2 = gs.batch(tiers, runs=10, progress=False)
print(table2.summary)
cli = shutil.which("gpu-sudoku") or os.environ.get("GPU_SUDOKU_BIN")
if cli:
    shown = subprocess.run([cli, "batch", *tiers, "--runs", "10"], capture_output=True,
                           text=True, check=True).stdout
    # Same solved counts, intervals and steps; only the timing columns may differ.
    same = [l.split()[:-2] for l in shown.splitlines() if "%" in l]
    assert same == [l.split()[:-2] for l in str(table2.summary).splitlines() if "%" in l]
    print("the command line printed the same figures")

# 2. A Kaggle-style CSV (quizzes,solutions; 0 for a blank), read with pandas as strings.
made = gs.generate("rated", "hard", size=9, count=20, seed=3)
line = lambda g: "".join(map(str, g.ravel()))  # noqa: E731
pd.DataFrame({"quizzes": [line(g) for g in made.puzzles],
              "solutions": [line(g) for g in made.solutions]}).to_csv(f"{out}/sudoku.csv", index=False)
df = pd.read_csv(f"{out}/sudoku.csv", dtype=str)
improved = gs.batch(df["quizzes"], preset="improved", runs=5, progress=False)
inst = improved.to_pandas()
print(improved.summary)
solved = inst[inst.solved]
expected = df["solutions"].str.replace("0", ".")
assert (solved.grid.values == expected.iloc[solved.puzzle].values).all()
print(f"{len(solved)} of {len(inst)} runs solved; each matches the CSV's solution column")

# 3. A trace: how the most probable digit's probability grows, cell by cell (Figure 3).
t = gs.trace("puzzles/classic.txt", preset="improved", run=0)
top = t.probabilities.max(axis=2)  # steps × cells
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no figure")
else:
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(t.steps, top, lw=0.6, alpha=0.6)
    ax.set(xlabel="step", ylabel="largest digit probability",
           title=f"ILCA, classic puzzle: solved at step {t.solved_at}")
    fig.savefig(f"{out}/trace.png", dpi=120, bbox_inches="tight")
    print(f"wrote {out}/trace.png")

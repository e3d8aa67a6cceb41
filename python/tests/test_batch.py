"""batch: the command line's numbers, numpy and pandas shapes, GPU = CPU, progress, the GIL
and Ctrl-C."""

import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import gpu_sudoku as gs


def head(root, tmp_path, name="easy", count=12):
    """The first `count` puzzles of a shipped file, with its header (so the paper tier and the
    paper column stay)."""
    lines = (root / f"puzzles/{name}.txt").read_text().splitlines()
    comments = [l for l in lines if l.startswith("#")]
    body = [l for l in lines if l and not l.startswith("#")][:count]
    f = tmp_path / f"{name}.txt"
    f.write_text("\n".join(comments + body) + "\n")
    return f


def without_timing(table: str) -> str:
    """The table minus its two timing columns (wall s, inst-steps/s)."""
    return "\n".join(re.sub(r"\s+\S+\s+\S+$", "", l) if "%" in l else l for l in table.splitlines())


def cli_instances(path):
    with open(path, newline="") as f:
        return [(int(r["puzzle"]), int(r["run"]), r["solved"] == "true", int(r["steps"]), r["grid"])
                for r in csv.DictReader(f)]


def py_instances(r):
    df = r.to_pandas()
    return list(zip(df.puzzle.tolist(), df.run.tolist(), df.solved.tolist(), df.steps.tolist(),
                    df.grid.tolist()))


@pytest.mark.parametrize("extra", [[], ["--preset", "improved"]])
def test_ilca_same_as_cli(cli, root, tmp_path, extra):
    f = head(root, tmp_path)
    out = tmp_path / "cli.csv"
    p = subprocess.run([cli, "batch", str(f), "--runs", "3", "--backend", "cpu", "--csv", str(out), *extra],
                       capture_output=True, text=True, check=True)
    kw = {"preset": extra[1]} if extra else {}
    r = gs.batch(f, runs=3, backend="cpu", progress=False, **kw)
    assert py_instances(r) == cli_instances(out)
    assert without_timing(str(r.summary)) == without_timing(p.stdout.rstrip("\n"))


def test_rfss_same_as_cli(cli, root, tmp_path):
    f = head(root, tmp_path, "medium", 6)
    out = tmp_path / "cli.csv"
    subprocess.run([cli, "batch", str(f), "--algo", "rfss", "--backend", "cpu", "--csv", str(out)],
                   capture_output=True, text=True, check=True)
    r = gs.batch(f, algo="rfss", backend="cpu", progress=False)
    assert py_instances(r) == cli_instances(out)


def test_portfolio_same_as_cli(cli, root, tmp_path):
    f = root / "puzzles/famous.txt"
    out = tmp_path / "cli.csv"
    flags = ["--preset", "shared", "--prune", "off", "--steps", "300", "--runs", "2"]
    subprocess.run([cli, "batch", str(f), *flags, "--portfolio", "4", "--backend", "cpu",
                    "--csv", str(out)], capture_output=True, text=True, check=True)
    r = gs.batch(f, preset="shared", prune="off", steps=300, runs=2, portfolio=4,
                 backend="cpu", progress=False)
    assert py_instances(r) == cli_instances(out)
    assert len(py_instances(r)) == 16 * 2
    with pytest.raises(ValueError, match="tie='first'"):
        gs.batch(f, portfolio=4, tie="first", backend="cpu", progress=False)


def test_cooperating_portfolio_same_as_cli(cli, root, tmp_path):
    f = root / "puzzles/famous.txt"
    out = tmp_path / "cli.csv"
    flags = ["--preset", "shared", "--prune", "off", "--steps", "300", "--portfolio", "4"]
    subprocess.run([cli, "batch", str(f), *flags, "--pull", "0.5", "--pull-every", "30",
                    "--backend", "cpu", "--csv", str(out)], capture_output=True, text=True,
                   check=True)
    r = gs.batch(f, preset="shared", prune="off", steps=300, portfolio=4, pull=0.5,
                 pull_every=30, backend="cpu", progress=False)
    assert py_instances(r) == cli_instances(out)
    plain = gs.batch(f, preset="shared", prune="off", steps=300, portfolio=4, backend="cpu",
                     progress=False)
    assert py_instances(plain) != py_instances(r)
    with pytest.raises(ValueError, match="pull: cooperation"):
        gs.batch(f, pull=0.5, backend="cpu", progress=False)
    with pytest.raises(ValueError, match="pull: must be"):
        gs.batch(f, portfolio=4, pull=-1.0, backend="cpu", progress=False)
    with pytest.raises(ValueError, match="pull_every: only with pull"):
        gs.batch(f, portfolio=4, pull_every=10, backend="cpu", progress=False)


def test_summary_fields(root, tmp_path):
    f = head(root, tmp_path)
    r = gs.batch(f, runs=4, backend="cpu", progress=False)
    s = r.summary.overall
    assert s["instances"] == 48 and 0 <= s["solved_pct"] <= 100
    lo, hi = s["solved_pct_95"]
    assert lo <= s["solved_pct"] <= hi
    assert "tts99" in s and "tts99_puzzle_median" in s
    df = r.summary.to_pandas()
    assert list(df.index) == ["easy"] and "solved_pct_lo" in df.columns


def test_files_by_name_and_repeated_labels(root, tmp_path):
    a = head(root, tmp_path, "easy", 3)
    with pytest.raises(FileNotFoundError):
        gs.batch([str(a), str(tmp_path / "missing.txt")], progress=False)
    # Two inputs with one label: told apart in the instances' file column.
    p = gs.puzzles(["53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"])
    r = gs.batch([p, p], runs=1, backend="cpu", progress=False)
    assert list(r.to_pandas().file.cat.categories) == ["<list>", "<list>#2"]
    r.instances.steps[0] = 0  # the arrays are the caller's to change


def test_several_files_and_overall(root, tmp_path):
    a = head(root, tmp_path, "easy", 4)
    b = head(root, tmp_path, "medium", 3)
    r = gs.batch([a, b], runs=2, backend="cpu", progress=False)
    assert [row["file"] for row in r.summary.rows] == ["easy", "medium", "overall"]
    assert r.summary["overall"]["instances"] == 14
    assert sorted(set(r.instances.file.tolist())) == [0, 1]


def test_dtypes_and_shapes(root, tmp_path):
    r = gs.batch(head(root, tmp_path), runs=2, backend="cpu", progress=False)
    i = r.instances
    assert len(i) == 24
    assert i.grid.dtype == np.uint8 and i.grid.shape == (24, 9, 9)
    assert i.steps.dtype == np.uint32 and i.solved.dtype == bool
    df = r.to_pandas()
    assert str(df.grid.dtype) == "string" and len(df.grid[0]) == 81
    assert str(df.file.dtype) == "category"
    # A solved grid holds the rules: each row is a permutation of 1..9.
    for g in i.grid[i.solved]:
        assert all(sorted(row) == list(range(1, 10)) for row in g)


def test_reports_written_atomically(root, tmp_path):
    r = gs.batch(head(root, tmp_path), runs=1, backend="cpu", progress=False)
    r.to_json(tmp_path / "r.json")
    r.to_csv(tmp_path / "r.csv")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["tool"] == "gpu-sudoku" and len(doc["files"]) == 1
    assert (tmp_path / "r.csv").read_text().startswith("file,")
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_progress_callback(root, tmp_path):
    seen = []
    gs.batch(head(root, tmp_path), runs=2, backend="cpu", progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1][1] == 24 and all(d <= t for d, t in seen)


def test_gpu_same_as_cli_with_another_seed(gpu, cli, root, tmp_path):
    f = head(root, tmp_path, "medium", 6)
    out = tmp_path / "cli.csv"
    subprocess.run([cli, "batch", str(f), "--runs", "3", "--seed", "7", "--backend", "gpu",
                    "--csv", str(out)], capture_output=True, text=True, check=True)
    r = gs.batch(f, runs=3, seed=7, backend="gpu", progress=False)
    assert py_instances(r) == cli_instances(out)
    assert r.report["params"]["seed"] == 7


def test_gpu_equals_cpu(gpu, root, tmp_path):
    f = head(root, tmp_path, "medium", 8)
    a = gs.batch(f, runs=3, backend="cpu", progress=False)
    b = gs.batch(f, runs=3, backend="gpu", progress=False)
    assert py_instances(a) == py_instances(b)
    # RFSS on lavapipe takes seconds per puzzle: three easy ones.
    e = head(root, tmp_path, "easy", 3)
    c = gs.batch(e, algo="rfss", backend="cpu", progress=False)
    d = gs.batch(e, algo="rfss", backend="gpu", progress=False)
    assert py_instances(c) == py_instances(d)


def test_the_interpreter_is_released(root):
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    try:
        gs.batch(root / "puzzles/evil.txt", runs=5, backend="cpu", progress=False)
    finally:
        done.set()
        t.join()
    assert len(ticks) > 20


INTERRUPTED = r"""
import signal, sys, time, gpu_sudoku as gs
# A shell starts background jobs with SIGINT ignored, and Python then keeps it ignored: take
# Ctrl-C as an interactive session does, whoever started the tests.
signal.signal(signal.SIGINT, signal.default_int_handler)
started = []
def progress(done, total):
    if done and not started:
        started.append(1)
        print("running", flush=True)
try:
    gs.batch(sys.argv[1], runs=1000, backend="cpu", progress=progress)
    print("finished")
except KeyboardInterrupt:
    print("interrupted", time.monotonic())
"""


def test_ctrl_c_raises_keyboard_interrupt_within_a_second(root, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "TMPDIR": str(work)}  # where the run's scratch journal goes
    p = subprocess.Popen([sys.executable, "-c", INTERRUPTED, str(root / "puzzles/evil.txt")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=work,
                         env=env)
    assert p.stdout.readline() == "running\n", p.communicate()
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert out.startswith("interrupted"), (out, err)
    assert float(out.split()[1]) - sent < 1.0
    assert [f for f in os.listdir(work) if not f.startswith("gpu-sudoku-runtime")] == []

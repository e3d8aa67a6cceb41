"""compare, solve, rate, generate, trace and adapters."""

import json

import numpy as np
import pytest

import gpu_sudoku as gs

CLASSIC = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def test_solve_gives_a_verified_solution():
    [s] = gs.solve([CLASSIC])
    assert s.solutions == 1 and s.grid.shape == (9, 9) and s.grid.dtype == np.uint8
    clues = np.array([0 if c == "." else int(c) for c in CLASSIC]).reshape(9, 9)
    assert ((clues == 0) | (clues == s.grid)).all()
    for k in range(9):
        assert sorted(s.grid[k]) == sorted(s.grid[:, k]) == list(range(1, 10))


def test_solve_counts_none_and_many():
    empty = np.zeros((9, 9), dtype=np.uint8)
    assert gs.solve(empty)[0].solutions == 2
    # r1c9 has no candidate: 1-8 in its row, 9 in its column; no clue repeats.
    none = "12345678." + "........9" + "." * 63
    [s] = gs.solve([none])
    assert s.solutions == 0


def test_rate():
    [row] = gs.rate([CLASSIC])
    assert row["solutions"] == 1 and row["tier"] in ("easy", "medium", "hard", "evil")
    assert row["clues"] == 30


def test_generate_is_seeded():
    a = gs.generate("rated", "easy", size=9, count=3, seed=7)
    b = gs.generate("rated", "easy", size=9, count=3, seed=7)
    assert a.puzzles.shape == (3, 9, 9) and (a.puzzles == b.puzzles).all()
    assert ((a.puzzles == 0) | (a.puzzles == a.solutions)).all()
    with pytest.raises(ValueError, match="size"):
        gs.generate("rated", "easy", size=10)


def test_compare_rows_and_table():
    r = gs.compare([CLASSIC] * 2, ["ilca", "exact"], runs=2, progress=False)
    assert {row["algo"] for row in r.rows} == {"ilca", "exact"}
    assert "exact" in str(r)
    df = r.attempts()
    assert len(df) == 8 and set(df.algo) == {"ilca", "exact"}
    with pytest.raises(ValueError):
        gs.compare([CLASSIC], "no-such-solver", progress=False)


def test_compare_on_the_gpu_gives_the_cpus_outcomes(gpu):
    algos, kw = ["ilca-shared:4:pull", "rfss", "exact"], dict(max_iterations=200, progress=False)
    cpu = gs.compare([CLASSIC] * 2, algos, runs=2, **kw)
    on_gpu = gs.compare([CLASSIC] * 2, algos, runs=2, backend="gpu", **kw)
    key = ["algo", "puzzle", "run", "solved", "iterations"]
    assert cpu.attempts()[key].equals(on_gpu.attempts()[key])
    assert json.loads(on_gpu.to_json())["params"]["backend"] == "gpu"
    assert "backend" not in json.loads(cpu.to_json())["params"]
    assert "ILCA and RFSS entries on GPU" in str(on_gpu) and on_gpu.notes == []
    assert set(on_gpu.attempts().dropna(subset=["param_backend"]).algo) == set(algos[:2])
    with pytest.raises(ValueError, match="adapter"):
        gs.compare([CLASSIC], "exact", adapter="0", progress=False)


def test_trace_arrays():
    t = gs.trace([CLASSIC], run=0, preset="improved")
    k = len(t.steps)
    assert t.probabilities.shape == (k, 81, 9) and t.probabilities.dtype == np.float32
    assert np.allclose(t.probabilities.sum(axis=2), 1.0, atol=1e-4)
    assert t.states.shape == (k, 81) and t.degrees.shape == (k, 81)
    if t.solved_at is not None:
        assert t.steps[-1] == t.solved_at
    sparse = gs.trace([CLASSIC], run=0, preset="improved", every=5)
    assert len(sparse.steps) <= k // 5 + 2
    assert (sparse.probabilities[0] == t.probabilities[0]).all()


def test_trace_keeps_the_last_step_of_an_unsolved_run():
    t = gs.trace([CLASSIC], run=0, steps=10, every=4)
    assert t.solved_at is None and t.steps.tolist() == [1, 5, 9, 10]


def test_trace_refuses_a_missing_puzzle():
    with pytest.raises(ValueError, match="index"):
        gs.trace([CLASSIC], index=3)


def test_adapters_are_dicts():
    for a in gs.adapters():
        assert {"index", "name", "backend", "description"} <= set(a)


def test_version():
    assert gs.__version__ == "0.1.0"


def test_compare_takes_the_cli_time_limit():
    def budget(**kw):
        r = gs.compare([CLASSIC], ["sa"], max_iterations=10, progress=False, **kw)
        return json.loads(r._json())["params"]["budget_ms"]

    assert budget() == 2000
    assert budget(time_limit="500ms") == 500
    assert budget(time_limit="2m") == 120_000
    assert budget(time_limit=1.5) == 1500
    assert budget(budget_ms=700) == 700
    with pytest.raises(ValueError, match="unknown unit"):
        gs.compare([CLASSIC], ["sa"], time_limit="2 days", progress=False)
    with pytest.raises(TypeError, match="not both"):
        gs.compare([CLASSIC], ["sa"], time_limit="1s", budget_ms=5, progress=False)


def test_build_names_the_engine():
    b = gs.build()
    assert b["version"] == gs.__version__
    assert set(b) == {"version", "commit", "dirty", "rustc", "wgpu", "target"}
    assert b["rustc"].startswith("rustc ")
    r = gs.batch([CLASSIC], runs=1, steps=5, progress=False)
    assert json.loads(r.to_json())["build"]["commit"] == b["commit"]

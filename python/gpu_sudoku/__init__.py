"""gpu-sudoku from Python: ILCA and RFSS batched on the GPU (or every CPU core), with the
classic baselines, the exact solver, the rater and the generators.

Every call runs the Rust library's own job, the one the command line runs, so the same seed
and setting give the command line's results bit for bit. The interpreter is released while
the engine runs; Ctrl-C stops it within a second and raises ``KeyboardInterrupt``.

>>> import gpu_sudoku as gs
>>> r = gs.batch("puzzles/evil.txt", runs=10)      # doctest: +SKIP
>>> print(r.summary)                                # the table `gpu-sudoku batch` prints
>>> df = r.to_pandas()                              # one row per instance

Puzzles may be a path, a list of puzzle strings, a numpy array (n² or n×n per puzzle, 0 for
a blank) or a pandas Series of strings; see :func:`puzzles`.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Union

import numpy as np


def _quiet_vulkan_loader() -> None:
    """Mesa's Vulkan drivers print "XDG_RUNTIME_DIR is invalid or not set" on stderr when that
    folder is missing (containers, CI): point it at a private folder first, as the binary does
    (src/main.rs), so that stderr carries only the package's own lines."""
    d = os.environ.get("XDG_RUNTIME_DIR")
    if d and os.path.isdir(d):
        return
    uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USER", "user")
    path = os.path.join(tempfile.gettempdir(), f"gpu-sudoku-runtime-{uid}")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        os.environ["XDG_RUNTIME_DIR"] = path
    except OSError:
        pass


_quiet_vulkan_loader()

from . import _native  # noqa: E402
from ._native import ParseError  # noqa: E402

ParseError.__module__ = "gpu_sudoku"  # pickles and prints as gpu_sudoku.ParseError

__all__ = [
    "ParseError",
    "build",
    "Puzzles",
    "puzzles",
    "batch",
    "compare",
    "solve",
    "rate",
    "generate",
    "trace",
    "adapters",
    "presets",
    "BatchResult",
    "Summary",
    "Instances",
    "CompareResult",
    "Trace",
    "Solution",
    "Generated",
]

__version__ = _native.version()


def build() -> Dict[str, Any]:
    """The build of the engine in this package: version, git commit (``unknown`` outside a
    checkout), ``dirty`` (its sources differed from the commit; None when unknown), rustc,
    wgpu and target, as ``gpu-sudoku --version`` prints them and every JSON report records
    them under ``build``."""
    return dict(_native.build())

Puzzles = _native.Puzzles

#: Grid sides the engine takes (box sizes 2 to 8).
SIDES = (4, 9, 16, 25, 36, 49, 64)

Progress = Union[None, bool, Callable[[int, int], Any]]


# ---------------------------------------------------------------------------------------------
# Puzzles in


def puzzles(
    source: Any,
    *,
    size: Optional[int] = None,
    format: Optional[str] = None,
    column: Optional[str] = None,
) -> "Puzzles":
    """Reads puzzles from ``source``:

    - a path (``str`` or ``os.PathLike``): any file the command line reads (lines, integer
      grids, blocks, Kaggle-style CSV with ``column``, gzip); ``format`` forces one;
    - a list or tuple of puzzle strings (``"53..7...."``, one puzzle each);
    - a pandas Series of puzzle strings;
    - a numpy array of integers, 0 for a blank: one puzzle as n² or n×n, several as k×n² or
      k×n×n (a square 2-D array of a valid side is one grid);
    - a :class:`Puzzles` (returned as it is).

    Bad input raises :class:`ParseError` with ``file``, ``line`` and ``column`` (for a list,
    the line is the item's 1-based position); a missing file raises ``FileNotFoundError``.
    """
    if isinstance(source, _native.Puzzles):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if path != "-" and not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        return _native.read_file(path, size, format, column)
    if isinstance(source, np.ndarray):
        return _from_array(source, "<array>")
    series = _as_series(source)
    if series is not None:
        name = f"<{series.name}>" if series.name is not None else "<series>"
        return _from_strings(series.tolist(), name, size)
    if isinstance(source, (list, tuple)):
        if not source:
            raise ValueError("<list>: no puzzles")
        if all(isinstance(s, str) for s in source):
            return _from_strings(source, "<list>", size)
        if all(isinstance(s, np.ndarray) for s in source):
            return _from_array(np.stack(source), "<list>")
        raise TypeError("a list of puzzles must hold puzzle strings (or numpy arrays) only")
    raise TypeError(
        f"cannot read puzzles from {type(source).__name__}: give a path, a list of strings, "
        "a numpy array or a pandas Series"
    )


def _as_series(source: Any) -> Any:
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(source, pd.Series):
        return source
    return None


def _parse_error(file: str, line: int, column: Optional[int], message: str) -> ParseError:
    """A :class:`ParseError` raised here, with the place the native ones carry."""
    where = f"{file}:{line}" + (f":{column}" if column else "")
    err = ParseError(f"{where}: {message}")
    err.file, err.line, err.column, err.message = file, line, column, message
    return err


def _from_strings(items: Iterable[Any], name: str, size: Optional[int]) -> "Puzzles":
    lines = []
    for i, s in enumerate(items):
        if not isinstance(s, str):
            raise TypeError(f"{name}: item {i + 1} is {type(s).__name__}, not a puzzle string")
        # Item k is puzzle k: nothing may be skipped (a blank or comment line) or split.
        if "\n" in s or "\r" in s:
            raise _parse_error(name, i + 1, None, "a puzzle string holds a line break")
        if not s.strip() or s.lstrip().startswith("#"):
            raise _parse_error(name, i + 1, 1, "an empty or comment item, not a puzzle")
        lines.append(s)
    if not lines:
        raise ValueError(f"{name}: no puzzles")
    return _native.parse_text("\n".join(lines) + "\n", name, size, "line")


def _from_array(a: np.ndarray, name: str) -> "Puzzles":
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name}: puzzle arrays hold integers (0 for a blank), not {a.dtype}")
    if a.size and (a.min() < 0 or a.max() > 64):
        bad = a.min() if a.min() < 0 else a.max()
        raise ValueError(f"{name}: cell value {bad} is outside 0..=64")
    side = None
    if a.ndim == 1:
        a, side = a.reshape(1, -1), _side_of_area(a.shape[0], name)
    elif a.ndim == 2 and a.shape[0] == a.shape[1] and a.shape[0] in SIDES:
        a, side = a.reshape(1, -1), a.shape[0]
    elif a.ndim == 2:
        side = _side_of_area(a.shape[1], name)
    elif a.ndim == 3 and a.shape[1] == a.shape[2]:
        side = a.shape[1]
        a = a.reshape(a.shape[0], -1)
    else:
        raise ValueError(
            f"{name}: a puzzle array is n² or n×n (one puzzle), k×n² or k×n×n (k puzzles); "
            f"got shape {a.shape}"
        )
    if side not in SIDES:
        raise ValueError(f"{name}: a grid's side must be one of {SIDES}, got {side}")
    cells = np.ascontiguousarray(a, dtype=np.uint8)
    return _native.from_cells(cells.tobytes(), cells.shape[0], side, name)


def _side_of_area(area: int, name: str) -> int:
    for side in SIDES:
        if side * side == area:
            return side
    raise ValueError(f"{name}: {area} cells is not a grid (81 for 9x9, 256 for 16x16, …)")


def _inputs(source: Any, **read: Any) -> List["Puzzles"]:
    """One input, or several: a list of :class:`Puzzles`, of ``os.PathLike`` paths, or of
    strings of which one at least names an existing file (a list of strings none of which is
    a file is puzzles; a missing file among files raises ``FileNotFoundError``)."""
    if isinstance(source, (list, tuple)) and source:
        files = [s for s in source if isinstance(s, (os.PathLike, _native.Puzzles))]
        named = [s for s in source if isinstance(s, str)]
        if len(files) == len(source) or (
            len(files) + len(named) == len(source) and any(os.path.isfile(s) for s in named)
        ):
            return [puzzles(s, **read) for s in source]
    return [puzzles(source, **read)]


def _grids(cells: bytes, side: int) -> np.ndarray:
    """Grids as a writable uint8 array (k×n×n)."""
    return np.frombuffer(cells, dtype=np.uint8).reshape(-1, side, side).copy()


def _at_least_one(name: str, value: Optional[int]) -> Optional[int]:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise TypeError(f"{name}: a whole number is needed, not {value!r}")
    if value is not None and value < 1:
        raise ValueError(f"{name}: must be at least 1 (got {value})")
    return value


# ---------------------------------------------------------------------------------------------
# Progress and reports


def _progress(progress: Progress, what: str) -> Any:
    """The callback the engine's progress goes to (done, total), and what closes it."""
    if progress is False:
        return None, None
    if callable(progress) and progress is not True:
        return progress, None
    on_terminal = sys.stderr is not None and sys.stderr.isatty()
    if progress is None and not on_terminal:
        return None, None
    try:
        from tqdm.auto import tqdm  # type: ignore
    except ImportError:
        tqdm = None
    if tqdm is not None:
        bar = tqdm(desc=what, unit="inst", leave=False)

        def update(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        return update, bar.close
    if progress is None:
        return None, None

    def line(done: int, total: int) -> None:
        sys.stderr.write(f"\r{what}: {done}/{total} ({100.0 * done / max(total, 1):.0f}%)")
        sys.stderr.flush()

    return line, lambda: sys.stderr.write("\n")


def _run(call: Callable[..., Any], progress: Progress, what: str, *args: Any) -> Any:
    update, close = _progress(progress, what)
    try:
        return call(*args, update)
    finally:
        if close is not None:
            close()


def _write_atomic(path: Union[str, os.PathLike], text: str) -> None:
    """Writes ``text`` to a temporary file beside ``path``, then renames it into place."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".gpu-sudoku-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as a newly created file would be, not mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _command(name: str, args: Dict[str, Any]) -> List[str]:
    """The call as the reports record it (their `command` field)."""
    shown = ", ".join(f"{k}={v!r}" for k, v in args.items() if v is not None)
    return ["python", f"gpu_sudoku.{name}({shown})"]


def _pandas() -> Any:
    try:
        import pandas as pd  # type: ignore
    except ImportError as e:  # pragma: no cover - pandas is optional
        raise ImportError("to_pandas() needs pandas: pip install pandas") from e
    return pd


class _Report:
    """JSON and CSV reports, the same documents the command line writes."""

    def _json(self) -> str:
        raise NotImplementedError

    def _csv(self) -> str:
        raise NotImplementedError

    def to_json(self, path: Union[None, str, os.PathLike] = None) -> Optional[str]:
        """The JSON report; written atomically to ``path`` when given."""
        if path is None:
            return self._json()
        _write_atomic(path, self._json())
        return None

    def to_csv(self, path: Union[None, str, os.PathLike] = None) -> Optional[str]:
        """The per-instance CSV report; written atomically to ``path`` when given."""
        if path is None:
            return self._csv()
        _write_atomic(path, self._csv())
        return None

    @property
    def report(self) -> Dict[str, Any]:
        """The JSON report, parsed."""
        return json.loads(self._json())


# ---------------------------------------------------------------------------------------------
# batch


class Summary:
    """Per file (and overall, for several files): solved %, its 95% interval, steps, TTS99
    and TTS99/puzzle. ``str()`` is the table ``gpu-sudoku batch`` prints."""

    def __init__(self, rows: List[Dict[str, Any]], table: str):
        self.rows = rows
        self.table = table

    @property
    def overall(self) -> Dict[str, Any]:
        """The overall row (the only row for one file)."""
        return self.rows[-1]

    def __getitem__(self, label: str) -> Dict[str, Any]:
        for r in self.rows:
            if r["file"] == label:
                return r
        raise KeyError(label)

    def __len__(self) -> int:
        return len(self.rows)

    def __str__(self) -> str:
        return self.table.rstrip("\n")

    __repr__ = __str__

    def to_pandas(self) -> Any:
        """One row per file (and overall), the JSON report's summary fields as columns."""
        pd = _pandas()
        flat = []
        for r in self.rows:
            row = {k: v for k, v in r.items() if not isinstance(v, dict)}
            interval = row.pop("solved_pct_95", None) or (None, None)
            row["solved_pct_lo"], row["solved_pct_hi"] = interval
            tts = r.get("tts99") or {}
            row["tts99_steps"] = tts.get("steps") if isinstance(tts, dict) else tts
            row.update({f"timing_{k}": v for k, v in r["timing"].items()})
            flat.append(row)
        return pd.DataFrame(flat).set_index("file")


class Instances:
    """Every instance: numpy columns ``file``, ``puzzle``, ``line``, ``run``, ``solved``,
    ``steps`` and ``grid`` (uint8, k×n×n, 0 for a blank; a list of such arrays, one per file,
    when the files' sizes differ)."""

    def __init__(self, done: Any, labels: List[str]):
        cols = done.columns()
        u32 = lambda name: np.frombuffer(cols[name], dtype="<u4").astype(np.uint32)  # noqa: E731
        self.file = u32("file")
        self.puzzle = u32("puzzle")
        self.line = u32("line")
        self.run = u32("run")
        self.solved = u32("solved").astype(bool)
        self.steps = u32("steps")
        self.labels = labels
        grids = [_grids(done.grids(i), side) for i, side in enumerate(done.sides)]
        if len(set(done.sides)) <= 1:
            self.grid = np.concatenate(grids) if grids else np.zeros((0, 0, 0), np.uint8)
        else:
            self.grid = grids

    def __len__(self) -> int:
        return len(self.file)

    def to_pandas(self) -> Any:
        """One row per instance. ``grid`` is the one-line text of the final grid (a string, so
        pandas never reads it as a number), ``file`` the file's row label."""
        pd = _pandas()
        grids = self.grid if isinstance(self.grid, list) else [self.grid]
        text = [_line_of(g) for gs in grids for g in gs]
        return pd.DataFrame(
            {
                "file": pd.Categorical.from_codes(self.file.astype(np.int64), self.labels),
                "puzzle": self.puzzle,
                "line": self.line,
                "run": self.run,
                "solved": self.solved,
                "steps": self.steps,
                "grid": pd.array(text, dtype="string"),
            }
        )


_SYMBOLS = _native.symbols()  # the one-line format's digits, as the engine writes them


def _line_of(grid: np.ndarray) -> str:
    return "".join("." if v == 0 else _SYMBOLS[v - 1] for v in grid.ravel().tolist())


class BatchResult(_Report):
    """A finished batch: ``summary``, ``instances``, ``notes``, ``to_pandas()``, and the
    JSON/CSV reports (``to_json``, ``to_csv``)."""

    def __init__(self, done: Any):
        rows = json.loads(done.summaries)
        self.summary = Summary(rows, done.table)
        # One label per file (the overall row follows them), told apart where two repeat.
        labels: List[str] = []
        for r in rows[: len(done.sides)]:
            label, k = r["file"], 1
            while label in labels:
                k += 1
                label = f"{r['file']}#{k}"
            labels.append(label)
        self.instances = Instances(done, labels)
        self.notes: List[str] = list(done.notes)
        self._done = done

    def _json(self) -> str:
        return self._done.json()

    def _csv(self) -> str:
        return self._done.csv()

    def to_pandas(self) -> Any:
        """The instances as a DataFrame (see :meth:`Instances.to_pandas`)."""
        return self.instances.to_pandas()

    def __repr__(self) -> str:
        return f"<BatchResult: {len(self.instances)} instances>\n{self.summary}"


def batch(
    puzzles: Any,
    *,
    algo: str = "ilca",
    preset: Optional[str] = None,
    runs: Optional[int] = None,
    steps: Optional[int] = None,
    seed: Optional[int] = None,
    backend: str = "auto",
    adapter: Optional[str] = None,
    progress: Progress = None,
    size: Optional[int] = None,
    format: Optional[str] = None,
    column: Optional[str] = None,
    **params: Any,
) -> BatchResult:
    """Runs ILCA (or ``algo="rfss"``) on every puzzle, as ``gpu-sudoku batch`` does.

    ``runs`` per puzzle (default 10; RFSS runs each puzzle once), ``preset`` (default
    ``alg1``, the paper's Algorithm 1), ``steps``, ``seed`` (default 1) and any other
    parameter by its flag's name with ``_`` for ``-``: ILCA's ``lr``, ``lp``, ``sr``,
    ``restart``, ``penalty_floor``, ``compare``, ``tie``, ``reset_check``, ``prune``,
    ``share``; RFSS's ``max_generations``, ``stable_generations``, ``underflow``,
    ``underflow_log2``, ``enhance``, ``stall_generations``. ``backend`` is ``"auto"`` (a
    hardware GPU when one opens, else the CPU), ``"cpu"`` or ``"gpu"``; ``adapter`` picks one
    by index or name part, or ``"all"``. ``progress``: a callable ``(done, total)``, ``True``
    (tqdm when installed), ``False``, or ``None`` (tqdm on a terminal only). ``portfolio=N``
    (ILCA, not in the paper): each run is a portfolio of N instances of the puzzle, solved at
    its first instance's solution, as ``gpu-sudoku batch --portfolio N``; ``runs`` then counts
    portfolios and defaults to 1. ``pull=ALPHA`` (with ``portfolio``, not in the paper): the
    instances of a portfolio cooperate, every ``pull_every`` steps (default 50) pulled toward
    the best of them, as ``--pull ALPHA --pull-every STEPS``.
    """
    if algo == "ilca":
        if steps is not None:
            params["steps"] = steps
        if seed is not None:
            params["seed"] = seed
    elif steps is not None or seed is not None:
        raise ValueError("steps and seed apply only to algo='ilca' (RFSS takes max_generations)")
    _at_least_one("runs", runs)
    inputs = _inputs(puzzles, size=size, format=format, column=column)
    command = _command("batch", {"algo": algo, "preset": preset, "runs": runs, **params})
    done = _run(
        lambda cb: _native.batch(
            inputs, algo, runs, preset, params, backend, adapter, cb, command
        ),
        progress,
        "batch",
    )
    return BatchResult(done)


# ---------------------------------------------------------------------------------------------
# compare


class CompareResult(_Report):
    """A finished comparison: ``rows`` (per file and algorithm), ``str()`` the table
    ``gpu-sudoku compare`` prints, ``notes``, ``to_pandas()``, ``to_json``, ``to_csv``."""

    def __init__(self, done: Any):
        self.rows: List[Dict[str, Any]] = json.loads(done.rows)
        self.table: str = done.table
        self.notes: List[str] = list(done.notes)
        self._done = done

    def _json(self) -> str:
        return self._done.json

    def _csv(self) -> str:
        return self._done.csv

    def __str__(self) -> str:
        return self.table.rstrip("\n")

    __repr__ = __str__

    def to_pandas(self) -> Any:
        """One row per file and algorithm."""
        return _pandas().json_normalize(self.rows)

    def attempts(self) -> Any:
        """One row per attempt (the CSV report), as a DataFrame."""
        import io

        return _pandas().read_csv(io.StringIO(self._csv()))


def compare(
    puzzles: Any,
    algos: Union[None, str, Iterable[str]] = None,
    *,
    runs: Optional[int] = None,
    seed: Optional[int] = None,
    time_limit: Union[None, str, float] = None,
    budget_ms: Optional[int] = None,
    max_iterations: Optional[int] = None,
    preset: Optional[str] = None,
    prune: Optional[str] = None,
    share: Optional[float] = None,
    stall_generations: Optional[int] = None,
    backend: str = "cpu",
    adapter: Optional[str] = None,
    progress: Progress = None,
) -> CompareResult:
    """Runs several algorithms on the same puzzles, as ``gpu-sudoku compare`` does: ``ilca``,
    ``ilca-PRESET``, ``rfss``, ``rfss-ENHANCEMENT`` and the baselines (``backtrack``, ``mrv``,
    ``exact``, ``astar``, ``ga``, ``sa``, ``hc``, ``acs``, …), as a list or a comma-separated
    string. The command line's defaults: its algorithm list
    (``backtrack,mrv,astar,ga,sa,hc,ilca,rfss``), 1 run, seed 1, 2 s per baseline attempt;
    ``prune``, ``share`` and ``stall_generations`` as its flags. ``time_limit`` is the budget
    as ``--time-limit`` takes it (``"500ms"``, ``"2s"``, ``"2m"``, or a number of seconds; 0:
    none); ``budget_ms``, the report's name for it, gives it in milliseconds. ``backend`` is
    where the ILCA and RFSS entries run, as ``--backend``: ``"cpu"`` (the default), ``"gpu"``
    or ``"auto"``, with ``adapter`` as in ``batch``; the baselines always run on the CPU."""
    d = _native.defaults()
    if algos is None:
        algos = d["compare_algos"]
    names = algos if isinstance(algos, str) else ",".join(algos)
    _at_least_one("runs", runs)
    inputs = _inputs(puzzles)
    runs = d["compare_runs"] if runs is None else runs
    seed = d["seed"] if seed is None else seed
    if time_limit is not None and budget_ms is not None:
        raise TypeError("give time_limit or budget_ms, not both")
    if time_limit is not None:
        budget_ms = _native.time_limit_ms(str(time_limit))
    budget_ms = d["budget_ms"] if budget_ms is None else budget_ms
    command = _command(
        "compare",
        {
            "algos": names,
            "runs": runs,
            "seed": seed,
            "backend": None if backend == "cpu" else backend,
            "adapter": adapter,
        },
    )
    done = _run(
        lambda cb: _native.compare(
            inputs,
            names,
            runs,
            seed,
            budget_ms,
            max_iterations,
            preset,
            prune,
            share,
            stall_generations,
            backend,
            adapter,
            cb,
            command,
        ),
        progress,
        "compare",
    )
    return CompareResult(done)


# ---------------------------------------------------------------------------------------------
# solve, rate, generate


class Solution(NamedTuple):
    """The exact solver's answer: ``solutions`` is 0, 1, or 2 meaning two or more; ``grid``
    one solution (the puzzle itself when there is none)."""

    solutions: int
    grid: np.ndarray


def solve(puzzles: Any) -> List[Solution]:
    """The exact solver (``gpu-sudoku solve``) on every puzzle."""
    p = _first(puzzles)
    return [Solution(n, _grids(cells, p.side)[0]) for n, cells in _native.solve(p)]


def rate(puzzles: Any) -> List[Dict[str, Any]]:
    """``gpu-sudoku rate``'s rows: line, clues, blank fraction, solutions, tier, score,
    hardest technique and the uses of each."""
    return json.loads(_native.rate(_first(puzzles)))


class Generated(NamedTuple):
    """Generated puzzles and their solutions (uint8, k×n×n) and each one's extra fields."""

    puzzles: np.ndarray
    solutions: np.ndarray
    extra: List[str]


def generate(
    model: str = "rated",
    tier: Optional[str] = None,
    size: int = 9,
    count: int = 1,
    seed: int = 1,
) -> Generated:
    """``gpu-sudoku generate``: ``model`` ``"paper"`` (the ILCA paper's blank-fraction tiers)
    or ``"rated"`` (the rater's tiers); same seed, same puzzles."""
    made = _native.generate(model, tier, size, count, seed)
    return Generated(
        np.stack([_grids(g, size)[0] for g, _, _ in made]),
        np.stack([_grids(s, size)[0] for _, s, _ in made]),
        [e for _, _, e in made],
    )


def _first(source: Any) -> "Puzzles":
    inputs = _inputs(source)
    if len(inputs) != 1:
        raise ValueError("give one input (a path, a list, an array or a Series)")
    return inputs[0]


# ---------------------------------------------------------------------------------------------
# trace


class Trace(NamedTuple):
    """One ILCA run step by step (``gpu-sudoku trace``). ``probabilities[k]`` are every
    cell's digit probabilities before step ``steps[k]`` (cells × digits), ``states[k]`` and
    ``degrees[k]`` each cell's digit and number of differing neighbours after it."""

    steps: np.ndarray
    probabilities: np.ndarray
    states: np.ndarray
    degrees: np.ndarray
    solved_at: Optional[int]
    grid: np.ndarray


def trace(
    puzzle: Any,
    *,
    index: int = 0,
    run: int = 0,
    every: int = 1,
    preset: Optional[str] = None,
    **params: Any,
) -> Trace:
    """Runs ILCA on puzzle ``index`` of ``puzzle`` (run ``run``), keeping every ``every``-th
    step and the last: the data of the ILCA paper's Figures 3–4."""
    p = _first(puzzle)
    t = _native.trace(p, index, run, every, preset, params)
    b = t.buffers()
    cells = t.side * t.side
    k = len(t.steps)
    return Trace(
        np.asarray(t.steps, dtype=np.uint32),
        np.frombuffer(b["probabilities"], dtype="<f4").reshape(k, cells, t.side),
        np.frombuffer(b["states"], dtype=np.uint8).reshape(k, cells),
        np.frombuffer(b["degrees"], dtype=np.uint8).reshape(k, cells),
        t.solved_at,
        _grids(b["grid"], t.side)[0],
    )


# ---------------------------------------------------------------------------------------------
# adapters, presets


def adapters() -> List[Dict[str, Any]]:
    """Every GPU adapter wgpu sees (``gpu-sudoku adapters``); empty when there is none."""
    keys = ("index", "name", "backend", "device_type", "driver", "description")
    return [dict(zip(keys, a)) for a in _native.adapters()]


def presets() -> Dict[str, str]:
    """ILCA's named settings and what each is."""
    return dict(_native.presets())

"""Every kind of puzzle input, and every kind of bad one."""

import pathlib

import numpy as np
import pandas as pd
import pytest

import gpu_sudoku as gs

CLASSIC = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def classic_array() -> np.ndarray:
    return np.array([0 if c == "." else int(c) for c in CLASSIC], dtype=np.uint8)


def test_path_str_and_pathlib(root):
    a = gs.puzzles(str(root / "puzzles/easy.txt"))
    b = gs.puzzles(root / "puzzles/easy.txt")
    assert len(a) == len(b) == 100
    assert (a.side, a.label) == (9, "easy")
    assert a.cells() == b.cells()


def test_list_of_strings():
    p = gs.puzzles([CLASSIC, CLASSIC.replace("5", ".", 1)])
    assert len(p) == 2 and p.path == "<list>"
    assert np.frombuffer(p.cells(), np.uint8)[:2].tolist() == [5, 3]


def test_array_shapes_agree():
    flat = classic_array()
    forms = [flat, flat.reshape(9, 9), flat.reshape(1, 81), flat.reshape(1, 9, 9)]
    cells = {gs.puzzles(f).cells() for f in forms}
    assert len(cells) == 1
    many = gs.puzzles(np.stack([flat, flat, flat]))
    assert len(many) == 3


def test_pandas_series():
    s = pd.Series([CLASSIC] * 4, name="quizzes", dtype="string")
    p = gs.puzzles(s)
    assert len(p) == 4 and p.path == "<quizzes>"


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        gs.puzzles("no/such/file.txt")


def test_wrong_size_in_a_list_is_placed():
    with pytest.raises(gs.ParseError) as e:
        gs.puzzles([CLASSIC, CLASSIC[:80]])
    err = e.value
    assert isinstance(err, ValueError)
    assert (err.file, err.line) == ("<list>", 2)
    assert str(err).startswith("<list>:2")


def test_repeated_clue_in_a_file(tmp_path):
    bad = "55" + CLASSIC[2:]
    f = tmp_path / "bad.txt"
    f.write_text(CLASSIC + "\n" + bad + "\n")
    with pytest.raises(gs.ParseError) as e:
        gs.puzzles(f)
    assert e.value.line == 2 and e.value.file == str(f)
    assert e.value.column is not None


def test_repeated_clue_in_an_array_is_placed():
    a = classic_array()
    a[1] = 5  # row 1 holds 5 twice
    with pytest.raises(gs.ParseError) as e:
        gs.puzzles(np.stack([classic_array(), a]))
    assert (e.value.file, e.value.line, e.value.column) == ("<array>", 2, 2)
    assert "repeats" in str(e.value)


def test_value_too_large_in_an_array():
    a = classic_array()
    a[0] = 10
    with pytest.raises(gs.ParseError) as e:
        gs.puzzles(a)
    assert "larger than 9" in str(e.value)


def test_bad_shapes_and_dtypes():
    with pytest.raises(ValueError, match="not a grid"):
        gs.puzzles(np.zeros(80, dtype=np.uint8))
    with pytest.raises(ValueError, match="shape"):
        gs.puzzles(np.zeros((2, 9, 8), dtype=np.uint8))
    with pytest.raises(TypeError, match="integers"):
        gs.puzzles(np.zeros(81, dtype=np.float64))
    with pytest.raises(ValueError, match="outside"):
        gs.puzzles(np.full(81, -1, dtype=np.int64))


def test_items_are_puzzles_one_each():
    with pytest.raises(gs.ParseError) as e:
        gs.puzzles([CLASSIC, "", CLASSIC])
    assert (e.value.file, e.value.line) == ("<list>", 2)
    with pytest.raises(gs.ParseError) as e:
        gs.puzzles([CLASSIC, "# a comment"])
    assert e.value.line == 2 and e.value.message.startswith("an empty or comment item")


def test_parse_errors_pickle():
    import pickle

    with pytest.raises(gs.ParseError) as e:
        gs.puzzles([CLASSIC[:80]])
    again = pickle.loads(pickle.dumps(e.value))
    assert str(again) == str(e.value) and type(again) is gs.ParseError


def test_bad_lists():
    with pytest.raises(ValueError, match="no puzzles"):
        gs.puzzles([])
    with pytest.raises(TypeError):
        gs.puzzles([CLASSIC, 5])
    with pytest.raises(gs.ParseError, match="line break"):
        gs.puzzles([CLASSIC + "\n" + CLASSIC])
    with pytest.raises(TypeError):
        gs.puzzles(42)


def test_kaggle_csv_through_pandas(tmp_path, root):
    solved = gs.solve([CLASSIC])[0].grid.ravel()
    line = "".join(str(v) for v in solved)
    csv = tmp_path / "sudoku.csv"
    csv.write_text("quizzes,solutions\n" + CLASSIC.replace(".", "0") + "," + line + "\n")
    df = pd.read_csv(csv, dtype=str)
    # The file itself, and its column through pandas, are the same puzzle.
    assert gs.puzzles(df["quizzes"]).cells() == gs.puzzles(csv, column="quizzes").cells()

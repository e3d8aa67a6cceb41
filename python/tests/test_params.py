"""Parameters: the command line's defaults, and ValueError/TypeError with its messages."""

import pytest

import gpu_sudoku as gs

CLASSIC = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def test_bad_learning_rate():
    with pytest.raises(ValueError, match="^lp: "):
        gs.batch([CLASSIC], lp=-1.0, runs=1, backend="cpu", progress=False)


def test_a_value_the_preset_set_says_so():
    # `improved` sets sr; steps=1 makes it exceed the steps.
    with pytest.raises(ValueError) as e:
        gs.batch([CLASSIC], preset="improved", steps=1, runs=1, backend="cpu", progress=False)
    assert "comes from preset improved" in str(e.value) or "steps" in str(e.value)


def test_unknown_parameter_is_a_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'learning_rate'"):
        gs.batch([CLASSIC], learning_rate=0.5, backend="cpu", progress=False)
    with pytest.raises(TypeError, match="'lr' for RFSS"):
        gs.batch([CLASSIC], algo="rfss", lr=0.5, backend="cpu", progress=False)


def test_bad_numbers_are_value_errors():
    with pytest.raises(ValueError, match="runs: must be at least 1"):
        gs.batch([CLASSIC], runs=0, backend="cpu", progress=False)
    with pytest.raises(ValueError, match="steps: must be from 0 to 4294967295"):
        gs.batch([CLASSIC], steps=-5, backend="cpu", progress=False)
    with pytest.raises(TypeError, match="sr: a whole number is needed"):
        gs.batch([CLASSIC], sr=2.5, backend="cpu", progress=False)
    with pytest.raises(ValueError, match="runs: must be at least 1"):
        gs.compare([CLASSIC], "exact", runs=0, progress=False)


def test_bad_choices():
    with pytest.raises(ValueError, match="tie: no value `sideways`"):
        gs.batch([CLASSIC], tie="sideways", backend="cpu", progress=False)
    with pytest.raises(ValueError, match="preset: no preset `nope`"):
        gs.batch([CLASSIC], preset="nope", backend="cpu", progress=False)
    with pytest.raises(ValueError, match="backend: no backend `tpu`"):
        gs.batch([CLASSIC], backend="tpu", progress=False)
    with pytest.raises(ValueError, match="algo: no algorithm"):
        gs.batch([CLASSIC], algo="ants", progress=False)


def test_options_of_the_other_algorithm_are_refused():
    with pytest.raises(ValueError, match="only to algo='ilca'"):
        gs.batch([CLASSIC], algo="rfss", steps=10, progress=False)
    with pytest.raises(ValueError, match="stall_generations applies with enhance"):
        gs.batch([CLASSIC], algo="rfss", stall_generations=5, backend="cpu", progress=False)


def test_defaults_are_the_command_lines():
    r = gs.batch([CLASSIC], backend="cpu", progress=False)
    assert len(r.instances) == 10  # --runs 10
    report = r.report
    assert report["params"]["seed"] == 1 and report["params"]["steps"] == 250


def test_tie_first_runs_once_with_a_note():
    r = gs.batch([CLASSIC], tie="first", runs=5, backend="cpu", progress=False)
    assert len(r.instances) == 1
    assert any("ignores the seed" in n for n in r.notes)


def test_presets_listed():
    p = gs.presets()
    assert "alg1" in p and "improved" in p

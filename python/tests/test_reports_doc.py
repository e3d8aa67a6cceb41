"""docs/REPORTS.md cannot rot: its commands make the reports, then its Python blocks (schema
validation, pandas with dtypes) run on them as written."""

import re
import shlex
import subprocess

import pytest


def blocks(text: str, lang: str):
    return re.findall(r"^```" + lang + r"\n(.*?)^```", text, flags=re.S | re.M)


def test_the_reports_page_runs_as_written(root, cli, tmp_path, monkeypatch, capsys):
    page = (root / "docs" / "REPORTS.md").read_text()
    (tmp_path / "puzzles").symlink_to(root / "puzzles")
    commands = [line for block in blocks(page, "sh") for line in block.splitlines()
                if line.startswith("gpu-sudoku ")]
    assert len(commands) >= 6, commands
    for line in commands:
        argv = shlex.split(line)
        done = subprocess.run([cli, *argv[1:]], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, f"{line}\n{done.stderr}"
    code = blocks(page, "python")
    assert len(code) == 3
    monkeypatch.chdir(tmp_path)
    for block in code:
        exec(compile(block, "docs/REPORTS.md", "exec"), {})
    shown = capsys.readouterr().out
    assert "famous" in shown and "summary.solved_pct" in shown


def test_the_pages_dtypes_keep_what_pandas_would_lose(root, cli, tmp_path):
    """Without its dtypes, pandas reads an 81-digit grid as a number: the page's point."""
    pd = pytest.importorskip("pandas")
    out = tmp_path / "b.csv"
    subprocess.run([cli, "batch", str(root / "puzzles/famous.txt"), "--runs", "1", "--steps", "20",
                    "--backend", "cpu", "--csv", str(out)], check=True, capture_output=True)
    assert not isinstance(pd.read_csv(out)["grid"][0], str)  # an int of 81 digits
    assert pd.read_csv(out, dtype={"grid": "string"})["grid"].str.len().eq(81).all()

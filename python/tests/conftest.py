import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def cli() -> str:
    """The command line built from the same tree (CI installs it to target/install)."""
    given = os.environ.get("GPU_SUDOKU_BIN")
    candidates = [given] if given else []
    candidates += [
        str(ROOT / "target" / d / "gpu-sudoku") for d in ("install/bin", "release", "debug")
    ]
    candidates.append(shutil.which("gpu-sudoku") or "")
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    pytest.fail("no gpu-sudoku binary: build it (cargo build --release) or set GPU_SUDOKU_BIN")


@pytest.fixture(scope="session")
def gpu() -> bool:
    """Whether a GPU adapter opens; CI (GPU_SUDOKU_REQUIRE_GPU=1) requires one (lavapipe)."""
    import gpu_sudoku as gs

    if gs.adapters():
        return True
    if os.environ.get("GPU_SUDOKU_REQUIRE_GPU") == "1":
        pytest.fail("GPU_SUDOKU_REQUIRE_GPU=1 but no GPU adapter opens")
    pytest.skip("no GPU adapter")

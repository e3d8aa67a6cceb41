# Type stubs of the compiled module (python/src/lib.rs). The public API is gpu_sudoku's own
# functions (__init__.py), which turn these buffers and JSON texts into numpy and pandas.
from typing import Any, Callable, Dict, List, Optional, Tuple

class ParseError(ValueError):
    file: str
    line: int
    column: Optional[int]
    message: str

class Puzzles:
    path: str
    label: str
    side: int
    def __len__(self) -> int: ...
    def cells(self) -> bytes: ...
    def lines(self) -> List[int]: ...

class BatchDone:
    table: str
    summaries: str
    notes: List[str]
    sides: List[int]
    def json(self) -> str: ...
    def csv(self) -> str: ...
    def columns(self) -> Dict[str, bytes]: ...
    def grids(self, index: int) -> bytes: ...

class CompareDone:
    table: str
    notes: List[str]
    rows: str
    json: str
    csv: str

class TraceDone:
    steps: List[int]
    solved_at: Optional[int]
    side: int
    def buffers(self) -> Dict[str, bytes]: ...

Progress = Optional[Callable[[int, int], Any]]

def read_file(
    path: str, size: Optional[int] = None, format: Optional[str] = None, column: Optional[str] = None
) -> Puzzles: ...
def parse_text(
    text: str, name: str, size: Optional[int] = None, format: Optional[str] = None
) -> Puzzles: ...
def from_cells(cells: bytes, count: int, side: int, name: str) -> Puzzles: ...
def batch(
    inputs: List[Puzzles],
    algo: str,
    runs: Optional[int],
    preset: Optional[str],
    params: Dict[str, Any],
    backend: str,
    adapter: Optional[str],
    progress: Progress,
    command: List[str],
) -> BatchDone: ...
def compare(
    inputs: List[Puzzles],
    algos: str,
    runs: int,
    seed: int,
    budget_ms: int,
    max_iterations: Optional[int],
    preset: Optional[str],
    prune: Optional[str],
    share: Optional[float],
    stall_generations: Optional[int],
    backend: str,
    adapter: Optional[str],
    progress: Progress,
    command: List[str],
) -> CompareDone: ...
def solve(input: Puzzles) -> List[Tuple[int, bytes]]: ...
def rate(input: Puzzles) -> str: ...
def generate(
    model: str, tier: Optional[str], size: int, count: int, seed: int
) -> List[Tuple[bytes, bytes, str]]: ...
def trace(
    input: Puzzles, index: int, run: int, every: int, preset: Optional[str], params: Dict[str, Any]
) -> TraceDone: ...
def adapters() -> List[Tuple[int, str, str, str, str, str]]: ...
def presets() -> List[Tuple[str, str]]: ...
def version() -> str: ...
def symbols() -> str: ...
def build() -> Dict[str, Any]: ...
def time_limit_ms(text: str) -> int: ...
def defaults() -> Dict[str, Any]: ...

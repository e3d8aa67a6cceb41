//! The puzzle model: grids of any supported size, reading and writing puzzle files,
//! and the rule checks every reported solution goes through.

mod csv;
mod error;
mod format;
mod geometry;
mod lines;
mod parse;
mod rows;

pub use error::ParseError;
pub use format::{symbol_for, SYMBOLS};
pub use geometry::{Geometry, MAX_BOX, MIN_BOX};
pub use lines::MAX_LINE_BYTES;
pub use parse::{
    file_label, parse_str, read_puzzles, read_puzzles_from, read_puzzles_with, scan_puzzles,
    Format, PuzzleFile, PuzzleReader, ReadOptions, Scan,
};
pub use rows::grid_from_cells;

/// A grid of n×n cells holding 0 (blank) or a digit 1..=n.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    b: usize,
    cells: Vec<u8>,
}

impl Grid {
    /// An empty grid of box size `b`.
    pub fn empty(b: usize) -> Grid {
        let g = Geometry::get(b);
        Grid {
            b,
            cells: vec![0; g.cells],
        }
    }

    /// A grid from raw cell values; errors if the length or a value does not fit.
    pub fn from_cells(b: usize, cells: Vec<u8>) -> anyhow::Result<Grid> {
        anyhow::ensure!(
            (MIN_BOX..=MAX_BOX).contains(&b),
            "box size {b} is outside {MIN_BOX}..={MAX_BOX}"
        );
        let n = b * b;
        anyhow::ensure!(
            cells.len() == n * n,
            "a {n}x{n} grid needs {} cells, got {}",
            n * n,
            cells.len()
        );
        if let Some(v) = cells.iter().find(|&&v| v as usize > n) {
            anyhow::bail!("cell value {v} is larger than {n}");
        }
        Ok(Grid { b, cells })
    }

    pub fn geometry(&self) -> &'static Geometry {
        Geometry::get(self.b)
    }
    /// Box size b.
    pub fn box_size(&self) -> usize {
        self.b
    }
    /// Side length (and digit count) n = b².
    pub fn side(&self) -> usize {
        self.b * self.b
    }
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }
    pub fn get(&self, cell: usize) -> u8 {
        self.cells[cell]
    }
    pub fn set(&mut self, cell: usize, v: u8) {
        debug_assert!(v as usize <= self.side());
        self.cells[cell] = v;
    }
    /// Number of filled cells.
    pub fn clue_count(&self) -> usize {
        self.cells.iter().filter(|&&v| v != 0).count()
    }
    /// Fraction of blank cells (the ILCA paper's difficulty variable d under our reading).
    pub fn blank_fraction(&self) -> f64 {
        1.0 - self.clue_count() as f64 / self.cells.len() as f64
    }
    pub fn is_complete(&self) -> bool {
        self.cells.iter().all(|&v| v != 0)
    }

    /// The first pair of peers holding the same digit, if any: (cell, other cell, digit).
    pub fn first_conflict(&self) -> Option<(usize, usize, u8)> {
        let g = self.geometry();
        for u in 0..3 * g.n {
            let mut seen = [u16::MAX; 65];
            for &c in g.unit(u) {
                let v = self.cells[c as usize];
                if v == 0 {
                    continue;
                }
                if seen[v as usize] != u16::MAX {
                    let a = seen[v as usize] as usize;
                    return Some((a.min(c as usize), a.max(c as usize), v));
                }
                seen[v as usize] = c;
            }
        }
        None
    }

    /// No digit repeats in any row, column or box (blanks allowed).
    pub fn is_consistent(&self) -> bool {
        self.first_conflict().is_none()
    }

    /// Number of (unordered) pairs of peers that hold the same digit.
    pub fn conflict_pairs(&self) -> usize {
        let g = self.geometry();
        let mut count = 0;
        for c in 0..g.cells {
            let v = self.cells[c];
            if v != 0 {
                count += g
                    .peers_of(c)
                    .iter()
                    .filter(|&&q| q as usize > c && self.cells[q as usize] == v)
                    .count();
            }
        }
        count
    }

    /// True when `self` is a complete valid grid that keeps every clue of `puzzle`.
    /// Every "solved" any engine reports goes through this check.
    pub fn is_solution_of(&self, puzzle: &Grid) -> bool {
        self.verify_solution_of(puzzle).is_ok()
    }

    /// Like [`Grid::is_solution_of`], saying what is wrong.
    pub fn verify_solution_of(&self, puzzle: &Grid) -> Result<(), String> {
        match self.solution_fault(puzzle) {
            None => Ok(()),
            Some((_, why)) => Err(why),
        }
    }

    /// The first reason `self` is not a solution of `puzzle`, with the cell it concerns
    /// (0 when the sizes differ): a blank, a changed clue, or a repeated digit.
    pub(crate) fn solution_fault(&self, puzzle: &Grid) -> Option<(usize, String)> {
        if self.b != puzzle.b {
            return Some((
                0,
                format!(
                    "grid is {0}x{0} but the puzzle is {1}x{1}",
                    self.side(),
                    puzzle.side()
                ),
            ));
        }
        let n = self.side();
        if let Some(c) = self.cells.iter().position(|&v| v == 0) {
            return Some((c, format!("{} is blank", cell_name(c, n))));
        }
        if let Some(c) = (0..self.cells.len())
            .find(|&c| puzzle.cells[c] != 0 && puzzle.cells[c] != self.cells[c])
        {
            return Some((
                c,
                format!(
                    "{} changes clue {} to {}",
                    cell_name(c, n),
                    puzzle.cells[c],
                    self.cells[c]
                ),
            ));
        }
        self.first_conflict().map(|(a, b, v)| {
            (
                b,
                format!(
                    "digit {v} repeats at {} and {}",
                    cell_name(a, n),
                    cell_name(b, n)
                ),
            )
        })
    }
}

/// The 9x9 puzzle of the ILCA paper's Fig. 3 (also in the GA report and on Wikipedia's Sudoku
/// page), solved by ILCA in 13 time-steps there; `puzzles/classic.txt` holds it.
pub const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

/// Puzzles met one at a time, named by their content: how many, and the
/// [`crate::shard::content_hash`] of their one-line grids. Reports name an input so, and the
/// same puzzles under another name or layout are the same input.
#[derive(Clone, Copy, Debug, Default)]
pub struct Content {
    pub puzzles: usize,
    hash: crate::shard::ContentHasher,
}

impl Content {
    pub fn add(&mut self, grid: &Grid) {
        self.hash.update(grid.to_line().as_bytes());
        self.hash.end_part();
        self.puzzles += 1;
    }

    /// The content hash of the grids added so far.
    pub fn hash(&self) -> String {
        self.hash.finish()
    }
}

/// What the reports repeat of each puzzle's line, hashed puzzle by puzzle: its line number,
/// its extra fields and the solution the file gives. With [`Content`], it tells a file read
/// again from one whose lines moved or changed around the same grids.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineNotes {
    hash: crate::shard::ContentHasher,
}

impl LineNotes {
    pub fn add(&mut self, p: &Puzzle) {
        self.hash.update(p.line.to_string().as_bytes());
        self.hash.end_part();
        self.hash.update(p.extra.as_bytes());
        self.hash.end_part();
        if let Some(s) = &p.solution {
            self.hash.update(s.to_line().as_bytes());
        }
        self.hash.end_part();
    }

    /// The hash of the puzzles added so far.
    pub fn hash(&self) -> String {
        self.hash.finish()
    }
}

/// "r3c7" style 1-based cell name used in messages.
pub fn cell_name(cell: usize, n: usize) -> String {
    format!("r{}c{}", cell / n + 1, cell % n + 1)
}

/// One puzzle read from a file, with where it came from and what followed it on its line.
#[derive(Clone, Debug, PartialEq)]
pub struct Puzzle {
    pub grid: Grid,
    /// 1-based line where the puzzle starts in its file.
    pub line: usize,
    /// Whitespace-separated fields after the grid on the same line (rating, d, solution…), kept
    /// verbatim; for a CSV row, the other columns as `name=value` fields.
    pub extra: String,
    /// The solution the file gives (a CSV solution column), checked when read: complete,
    /// valid, and keeping every clue. Engines' solved grids can be compared with it.
    pub solution: Option<Grid>,
}

impl Puzzle {
    pub fn new(grid: Grid) -> Puzzle {
        Puzzle {
            grid,
            line: 0,
            extra: String::new(),
            solution: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLASSIC_SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    #[test]
    fn solution_check_accepts_the_classic_solution() {
        let p = parse_str(CLASSIC, None).unwrap().remove(0).grid;
        let s = parse_str(CLASSIC_SOLUTION, None).unwrap().remove(0).grid;
        assert!(p.is_consistent());
        assert!(s.is_solution_of(&p));
        assert_eq!(p.clue_count(), 30);
    }

    #[test]
    fn solution_check_rejects_changed_clue_and_conflict() {
        let p = parse_str(CLASSIC, None).unwrap().remove(0).grid;
        let mut s = parse_str(CLASSIC_SOLUTION, None).unwrap().remove(0).grid;
        s.set(0, 4); // clue 5 → 4: also a conflict
        assert!(s
            .verify_solution_of(&p)
            .unwrap_err()
            .contains("changes clue"));
        let mut s2 = parse_str(CLASSIC_SOLUTION, None).unwrap().remove(0).grid;
        let (a, b) = (s2.get(2), s2.get(3)); // swap two non-clue cells of row 1
        s2.set(2, b);
        s2.set(3, a);
        assert!(s2.verify_solution_of(&p).unwrap_err().contains("repeats"));
        assert!(s2.conflict_pairs() > 0);
    }
}

//! Plain backtracking (AUA report §4.4), backtracking with MRV ("AHA", §4.5) and the
//! project's exact solver as a baseline.

use super::{Attempt, Baseline, Budget, Clock};
use crate::exact::{Branching, Config, Propagation, Restarts, Solver};
use crate::puzzle::Grid;

/// Row, column and box of every cell of an n×n grid with b×b boxes.
pub(crate) fn rcb(n: usize, b: usize, c: usize) -> (usize, usize, usize) {
    let (r, col) = (c / n, c % n);
    (r, col, (r / b) * b + col / b)
}

/// Plain backtracking: the first empty cell in row-major order, digits 1..=n in order, each
/// checked against its row, column and box. One iteration = one node (a digit placed).
pub struct Backtracking;

struct Plain<'a> {
    n: usize,
    b: usize,
    cells: Vec<u8>,
    rows: Vec<u64>,
    cols: Vec<u64>,
    boxes: Vec<u64>,
    nodes: u64,
    clock: &'a Clock,
    stopped: bool,
}

impl Plain<'_> {
    fn search(&mut self, from: usize) -> bool {
        let Some(c) = (from..self.cells.len()).find(|&c| self.cells[c] == 0) else {
            return true;
        };
        let (r, col, bx) = rcb(self.n, self.b, c);
        let used = self.rows[r] | self.cols[col] | self.boxes[bx];
        for v in 1..=self.n as u8 {
            let bit = 1u64 << (v - 1);
            if used & bit != 0 {
                continue;
            }
            if self.clock.out_cheap(self.nodes) {
                self.stopped = true;
                return false;
            }
            self.nodes += 1;
            self.cells[c] = v;
            self.rows[r] |= bit;
            self.cols[col] |= bit;
            self.boxes[bx] |= bit;
            if self.search(c + 1) {
                return true;
            }
            self.cells[c] = 0;
            self.rows[r] &= !bit;
            self.cols[col] &= !bit;
            self.boxes[bx] &= !bit;
            if self.stopped {
                return false;
            }
        }
        false
    }
}

impl Baseline for Backtracking {
    fn name(&self) -> &str {
        "backtrack"
    }
    fn unit(&self) -> &str {
        "nodes"
    }
    fn solve(&self, puzzle: &Grid, _seed: u64, budget: &Budget) -> Attempt {
        let clock = Clock::new(budget);
        let (n, b) = (puzzle.side(), puzzle.box_size());
        let mut s = Plain {
            n,
            b,
            cells: puzzle.cells().to_vec(),
            rows: vec![0; n],
            cols: vec![0; n],
            boxes: vec![0; n],
            nodes: 0,
            clock: &clock,
            stopped: false,
        };
        let mut clash = false;
        for c in 0..n * n {
            let v = s.cells[c];
            if v != 0 {
                let (r, col, bx) = rcb(n, b, c);
                let bit = 1u64 << (v - 1);
                clash |= (s.rows[r] | s.cols[col] | s.boxes[bx]) & bit != 0;
                s.rows[r] |= bit;
                s.cols[col] |= bit;
                s.boxes[bx] |= bit;
            }
        }
        if !clash {
            s.search(0);
        }
        let grid = Grid::from_cells(b, s.cells).expect("values stay in range");
        Attempt::verified(puzzle, grid, s.nodes, &clock)
    }
}

/// Backtracking with the minimum-remaining-values heuristic ("AHA"): the exact solver with no
/// propagation beyond removing a placed digit from its peers, MRV branching, no restarts.
/// One iteration = one search node. The exact solver has a node limit but no clock: a time
/// budget is checked only before the search starts, so give `max_iterations` for large grids.
pub struct Mrv;

impl Baseline for Mrv {
    fn name(&self) -> &str {
        "mrv"
    }
    fn unit(&self) -> &str {
        "nodes"
    }
    fn solve(&self, puzzle: &Grid, _seed: u64, budget: &Budget) -> Attempt {
        let clock = Clock::new(budget);
        let mut solver = Solver::new(Config {
            propagation: Propagation::None,
            branching: Branching::Mrv,
            node_limit: budget.max_iterations,
            time_limit: None,
            restarts: Restarts::Off,
        });
        let grid = solver.solve(puzzle).unwrap_or_else(|| puzzle.clone());
        Attempt::verified(puzzle, grid, solver.stats().nodes, &clock)
    }
}

/// The project's exact solver (`exact::Solver` with its default configuration: singles and
/// locked candidates, MRV over cells and digit places, Luby restarts) under a baseline's budget:
/// the strongest complete method of the project, for comparison tables. One iteration = one
/// search node; the seed is not used (the solver is deterministic for a puzzle).
pub struct Exact;

impl Baseline for Exact {
    fn name(&self) -> &str {
        "exact"
    }
    fn unit(&self) -> &str {
        "nodes"
    }
    fn solve(&self, puzzle: &Grid, _seed: u64, budget: &Budget) -> Attempt {
        let clock = Clock::new(budget);
        let mut solver = Solver::new(Config {
            node_limit: budget.max_iterations,
            time_limit: budget.max_time,
            ..Config::default()
        });
        let grid = solver.solve(puzzle).unwrap_or_else(|| puzzle.clone());
        Attempt::verified(puzzle, grid, solver.stats().nodes, &clock)
    }
}

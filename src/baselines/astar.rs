//! Best-first ("A*") search of the INFO-H410 report (Lemahieu, Muller, Tribel): Algorithm 1
//! with four cell-ordering heuristics and threshold τ = 3. One iteration = one trial (a number
//! written into a cell).

use super::backtrack::rcb;
use super::{Attempt, Baseline, Budget, Clock};
use crate::puzzle::Grid;
use anyhow::{bail, Result};

/// Below this many possibilities a cell's heuristic is just its count (report §II-B5).
pub const THRESHOLD: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heuristic {
    /// Mode 0: |V(i,j)|.
    Basic,
    /// Mode 1: Σ|V| over the cell's row, column and box (Eq. 2).
    SmallCrossed,
    /// Mode 2: Σ|V| over the cell's band and stack (all rows and columns of the boxes crossed
    /// by its row and column) plus its row and column (Eq. 3).
    BigCrossed,
    /// Mode 3: Σ_y |V(y)| / `W[x][y]` over cells y with learned `W[x][y]` > 0 (Eq. 5).
    Weighted,
}

/// Best-first search with one heuristic (and, for [`Heuristic::Weighted`], its weight graph).
pub struct AStar {
    heuristic: Heuristic,
    /// n^4 weights for the side they were learned on.
    weights: Option<(usize, Vec<f64>)>,
    name: String,
}

impl AStar {
    /// Modes 0–2. For the weighted mode use [`AStar::weighted`].
    pub fn new(heuristic: Heuristic) -> AStar {
        let name = match heuristic {
            Heuristic::Basic => "astar",
            Heuristic::SmallCrossed => "astar-small",
            Heuristic::BigCrossed => "astar-big",
            Heuristic::Weighted => "astar-weighted",
        };
        AStar {
            heuristic,
            weights: None,
            name: name.to_string(),
        }
    }

    /// Mode 3 with weights learned by [`learn_weights`] on `training` with heuristic `base`.
    pub fn weighted(training: &[Grid], base: Heuristic) -> Result<AStar> {
        let (n, w) = learn_weights(training, base)?;
        Ok(AStar {
            heuristic: Heuristic::Weighted,
            weights: Some((n, w)),
            name: "astar-weighted".to_string(),
        })
    }

    pub fn weights(&self) -> Option<&[f64]> {
        self.weights.as_ref().map(|(_, w)| w.as_slice())
    }
}

/// Candidate bitmasks (bit v for digit v) of every cell; 0 for filled cells. `None` when a
/// blank cell has no candidate.
fn candidates(cells: &[u8], n: usize, b: usize) -> Option<Vec<u64>> {
    let (mut rows, mut cols, mut boxes) = (vec![0u64; n], vec![0u64; n], vec![0u64; n]);
    for (c, &v) in cells.iter().enumerate() {
        if v != 0 {
            let (r, col, bx) = rcb(n, b, c);
            rows[r] |= 1u64 << (v - 1);
            cols[col] |= 1u64 << (v - 1);
            boxes[bx] |= 1u64 << (v - 1);
        }
    }
    let all: u64 = u64::MAX >> (64 - n);
    let mut out = vec![0u64; n * n];
    let mut dead = false;
    for (c, &v) in cells.iter().enumerate() {
        if v == 0 {
            let (r, col, bx) = rcb(n, b, c);
            out[c] = all & !(rows[r] | cols[col] | boxes[bx]);
            dead |= out[c] == 0;
        }
    }
    (!dead).then_some(out)
}

/// Heuristic of every cell from the possibility counts `v` (0 for filled cells, whose
/// heuristic is 0 and never chosen).
fn heuristics(v: &[u32], n: usize, b: usize, mode: Heuristic, weights: Option<&[f64]>) -> Vec<f64> {
    let mut row = vec![0u32; n];
    let mut col = vec![0u32; n];
    let mut bx = vec![0u32; n];
    for (c, &k) in v.iter().enumerate() {
        let (r, cc, x) = rcb(n, b, c);
        row[r] += k;
        col[cc] += k;
        bx[x] += k;
    }
    (0..n * n)
        .map(|c| {
            let k = v[c];
            if k == 0 || k < THRESHOLD || mode == Heuristic::Basic {
                return k as f64;
            }
            let (r, cc, x) = rcb(n, b, c);
            match mode {
                Heuristic::Basic => k as f64,
                Heuristic::SmallCrossed => (row[r] + col[cc] + bx[x]) as f64,
                Heuristic::BigCrossed => {
                    let band: u32 = (r - r % b..r - r % b + b).map(|i| row[i]).sum();
                    let stack: u32 = (cc - cc % b..cc - cc % b + b).map(|j| col[j]).sum();
                    (band + stack + row[r] + col[cc]) as f64
                }
                Heuristic::Weighted => {
                    let w =
                        &weights.expect("weighted mode has weights")[c * n * n..(c + 1) * n * n];
                    v.iter()
                        .zip(w)
                        .filter(|(_, &w)| w > 0.0)
                        .map(|(&k, &w)| k as f64 / w)
                        .sum()
                }
            }
        })
        .collect()
}

struct Search<'a> {
    n: usize,
    b: usize,
    mode: Heuristic,
    weights: Option<&'a [f64]>,
    cells: Vec<u8>,
    trials: u64,
    clock: &'a Clock,
    stopped: bool,
    /// Cells filled on the current path, in order.
    path: Vec<usize>,
}

impl Search<'_> {
    fn run(&mut self) -> bool {
        let Some(cand) = candidates(&self.cells, self.n, self.b) else {
            return false;
        };
        let v: Vec<u32> = cand.iter().map(|m| m.count_ones()).collect();
        let h = heuristics(&v, self.n, self.b, self.mode, self.weights);
        // The blank cell with the lowest heuristic (filled cells have none); first on ties.
        let mut best: Option<usize> = None;
        for c in 0..self.cells.len() {
            if v[c] > 0 && best.is_none_or(|x| h[c] < h[x]) {
                best = Some(c);
            }
        }
        let Some(c) = best else {
            return true; // the board is full
        };
        for d in 1..=self.n as u8 {
            if cand[c] & (1u64 << (d - 1)) == 0 {
                continue;
            }
            if self.clock.out(self.trials) {
                self.stopped = true;
                return false;
            }
            self.trials += 1;
            self.cells[c] = d;
            self.path.push(c);
            if self.run() {
                return true;
            }
            self.path.pop();
            self.cells[c] = 0;
            if self.stopped {
                return false;
            }
        }
        false
    }
}

fn search(
    puzzle: &Grid,
    mode: Heuristic,
    weights: Option<&[f64]>,
    clock: &Clock,
) -> (Vec<u8>, u64, Vec<usize>) {
    let mut s = Search {
        n: puzzle.side(),
        b: puzzle.box_size(),
        mode,
        weights,
        cells: puzzle.cells().to_vec(),
        trials: 0,
        clock,
        stopped: false,
        path: Vec::new(),
    };
    if puzzle.is_consistent() {
        s.run();
    }
    (s.cells, s.trials, s.path)
}

impl Baseline for AStar {
    fn name(&self) -> &str {
        &self.name
    }
    fn unit(&self) -> &str {
        "trials"
    }
    fn solve(&self, puzzle: &Grid, _seed: u64, budget: &Budget) -> Attempt {
        let clock = Clock::new(budget);
        let weights = match &self.weights {
            Some((n, w)) if *n == puzzle.side() => Some(w.as_slice()),
            // Weights of another size do not apply: give up at once (reported unsolved).
            Some(_) => return Attempt::verified(puzzle, puzzle.clone(), 0, &clock),
            None => None,
        };
        let (cells, trials, _) = search(puzzle, self.heuristic, weights, &clock);
        let grid = Grid::from_cells(puzzle.box_size(), cells).expect("values stay in range");
        Attempt::verified(puzzle, grid, trials, &clock)
    }
}

/// Algorithm 2: solves every training puzzle with heuristic `base` (modes 0–2) and, along each
/// solution path, records for every filled cell x and every cell y the drop of y's heuristic
/// H_y(before x is filled) − H_y(after); `W[x][y]` is the mean drop. The report's pseudo-code
/// indexes N and M by (k, l) only and divides inside the per-Sudoku loop; we keep the n^4
/// graph it describes (§II-B4a) and average once over all fillings. Returns (n, W).
pub fn learn_weights(training: &[Grid], base: Heuristic) -> Result<(usize, Vec<f64>)> {
    if base == Heuristic::Weighted {
        bail!("weights are learned with the basic, small-crossed or big-crossed heuristic");
    }
    let Some(first) = training.first() else {
        bail!("the weighted A* heuristic needs at least one training puzzle");
    };
    let (n, b) = (first.side(), first.box_size());
    let nn = n * n;
    let mut sum = vec![0f64; nn * nn];
    let mut cnt = vec![0u32; nn * nn];
    let unlimited = Clock::new(&Budget {
        max_iterations: Some(1_000_000),
        max_time: None,
    });
    for p in training.iter().filter(|p| p.side() == n) {
        let (cells, _, path) = search(p, base, None, &unlimited);
        if cells.contains(&0) {
            continue; // unsolved within the limit: nothing to learn from
        }
        let mut board = p.cells().to_vec();
        let hv = |board: &[u8]| -> Vec<f64> {
            let cand = candidates(board, n, b).unwrap_or_else(|| vec![0; nn]);
            let v: Vec<u32> = cand.iter().map(|m| m.count_ones()).collect();
            heuristics(&v, n, b, base, None)
        };
        let mut before = hv(&board);
        for &x in &path {
            board[x] = cells[x];
            let after = hv(&board);
            for y in 0..nn {
                sum[x * nn + y] += before[y] - after[y];
                cnt[x * nn + y] += 1;
            }
            before = after;
        }
    }
    let w = sum
        .iter()
        .zip(&cnt)
        .map(|(&s, &m)| if m == 0 { 0.0 } else { s / m as f64 })
        .collect();
    Ok((n, w))
}

//! Simulated annealing (AUA report §3.2/§4.2 after Chi & Lange) and hill climbing (§4.1).
//! Both keep every row a permutation of its missing digits (clues fixed) and minimise the
//! number of digits missing from columns and boxes. A proposal swaps two free cells of one
//! row, each drawn with probability ∝ exp(conflicts of the cell). One iteration = one
//! proposal.

use super::{rng_for, Attempt, Baseline, Budget, Clock};
use crate::puzzle::Grid;
use anyhow::{bail, Result};
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::RngExt;

/// Simulated annealing: a proposal raising the cost by Δ is accepted when U ≤ exp(−Δ/T),
/// U uniform on [0, 1]; T = T0 · cooling^step.
pub struct SimulatedAnnealing {
    t0: f64,
    cooling: f64,
}

impl SimulatedAnnealing {
    /// The report's choice is T0 = 1, cooling = 0.995.
    pub fn new(t0: f64, cooling: f64) -> Result<SimulatedAnnealing> {
        if !(t0 > 0.0 && t0.is_finite()) {
            bail!("SA initial temperature must be a positive number (got {t0}); the report uses 1");
        }
        if !(cooling > 0.0 && cooling < 1.0) {
            bail!("SA cooling rate must be strictly between 0 and 1 (got {cooling}); the report uses 0.995");
        }
        Ok(SimulatedAnnealing { t0, cooling })
    }
}

/// Hill climbing: the same proposals, accepted when they do not raise the cost (sideways
/// moves allowed). The report's §4.1 describes a temperature-based acceptance, which is
/// simulated annealing; plain non-worsening acceptance is used here instead.
pub struct HillClimbing;

impl Baseline for SimulatedAnnealing {
    fn name(&self) -> &str {
        "sa"
    }
    fn unit(&self) -> &str {
        "steps"
    }
    fn solve(&self, puzzle: &Grid, seed: u64, budget: &Budget) -> Attempt {
        anneal(puzzle, seed, budget, Some((self.t0, self.cooling)))
    }
}

impl Baseline for HillClimbing {
    fn name(&self) -> &str {
        "hc"
    }
    fn unit(&self) -> &str {
        "steps"
    }
    fn solve(&self, puzzle: &Grid, seed: u64, budget: &Budget) -> Attempt {
        anneal(puzzle, seed, budget, None)
    }
}

struct Board {
    n: usize,
    b: usize,
    cells: Vec<u8>,
    /// counts[unit * (n+1) + v] for the n columns then the n boxes.
    counts: Vec<u16>,
}

impl Board {
    fn col_box(&self, c: usize) -> (usize, usize) {
        let (r, col) = (c / self.n, c % self.n);
        (col, self.n + (r / self.b) * self.b + col / self.b)
    }
    fn unit_cost(&self, u: usize) -> u32 {
        let k = &self.counts[u * (self.n + 1) + 1..(u + 1) * (self.n + 1)];
        k.iter().filter(|&&x| x == 0).count() as u32
    }
    fn cost(&self) -> u32 {
        (0..2 * self.n).map(|u| self.unit_cost(u)).sum()
    }
    fn put(&mut self, c: usize, v: u8, add: bool) {
        let (cu, bu) = self.col_box(c);
        for u in [cu, bu] {
            let k = &mut self.counts[u * (self.n + 1) + v as usize];
            if add {
                *k += 1
            } else {
                *k -= 1
            }
        }
    }
    fn conflicts(&self, c: usize) -> usize {
        let (cu, bu) = self.col_box(c);
        let v = self.cells[c] as usize;
        (self.counts[cu * (self.n + 1) + v] - 1) as usize
            + (self.counts[bu * (self.n + 1) + v] - 1) as usize
    }
    fn swap(&mut self, x: usize, y: usize) {
        let (vx, vy) = (self.cells[x], self.cells[y]);
        self.put(x, vx, false);
        self.put(y, vy, false);
        self.cells.swap(x, y);
        self.put(x, vy, true);
        self.put(y, vx, true);
    }
    fn units_of(&self, x: usize, y: usize) -> Vec<usize> {
        let (a, b) = self.col_box(x);
        let (c, d) = self.col_box(y);
        let mut u = vec![a, b, c, d];
        u.sort_unstable();
        u.dedup();
        u
    }
}

fn weighted_pick(cands: &[usize], w: &[f64], rng: &mut Xoshiro256PlusPlus) -> usize {
    let total: f64 = cands.iter().map(|&c| w[c]).sum();
    let mut x = rng.random::<f64>() * total;
    for &c in cands {
        x -= w[c];
        if x < 0.0 {
            return c;
        }
    }
    *cands.last().expect("non-empty")
}

fn anneal(puzzle: &Grid, seed: u64, budget: &Budget, schedule: Option<(f64, f64)>) -> Attempt {
    let clock = Clock::new(budget);
    let (n, b) = (puzzle.side(), puzzle.box_size());
    let mut rng = rng_for(seed);
    let mut cells = puzzle.cells().to_vec();
    let mut free_rows: Vec<Vec<usize>> = Vec::with_capacity(n);
    for r in 0..n {
        let row = &cells[r * n..(r + 1) * n];
        let mut missing: Vec<u8> = (1..=n as u8).filter(|v| !row.contains(v)).collect();
        let free: Vec<usize> = (r * n..(r + 1) * n).filter(|&c| cells[c] == 0).collect();
        if missing.len() != free.len() {
            // A row repeats a clue: no permutation can fix it.
            return Attempt::verified(puzzle, puzzle.clone(), 0, &clock);
        }
        missing.shuffle(&mut rng);
        for (&c, v) in free.iter().zip(missing) {
            cells[c] = v;
        }
        free_rows.push(free);
    }
    let mut board = Board {
        n,
        b,
        cells,
        counts: vec![0; 2 * n * (n + 1)],
    };
    for c in 0..n * n {
        board.put(c, board.cells[c], true);
    }
    // Cells that can move: free cells of rows with at least two free cells.
    let movable: Vec<usize> = free_rows
        .iter()
        .filter(|f| f.len() >= 2)
        .flatten()
        .copied()
        .collect();
    let exp_table: Vec<f64> = (0..=2 * n).map(|i| (i as f64).exp()).collect();
    let mut cost = board.cost();
    let mut best = (cost, board.cells.clone());
    let mut steps = 0u64;
    let mut w = vec![0f64; n * n];
    while cost > 0 && !movable.is_empty() && !clock.out_cheap(steps) {
        steps += 1;
        for &c in &movable {
            w[c] = exp_table[board.conflicts(c)];
        }
        let x = weighted_pick(&movable, &w, &mut rng);
        let row: Vec<usize> = free_rows[x / n]
            .iter()
            .copied()
            .filter(|&c| c != x)
            .collect();
        let y = weighted_pick(&row, &w, &mut rng);
        let units = board.units_of(x, y);
        let before: u32 = units.iter().map(|&u| board.unit_cost(u)).sum();
        board.swap(x, y);
        let after: u32 = units.iter().map(|&u| board.unit_cost(u)).sum();
        let accept = match schedule {
            None => after <= before,
            Some((t0, cooling)) => {
                let t = t0 * cooling.powf(steps as f64 - 1.0);
                after <= before || rng.random::<f64>() <= ((before as f64 - after as f64) / t).exp()
            }
        };
        if accept {
            cost = cost + after - before;
            if cost < best.0 {
                best = (cost, board.cells.clone());
            }
        } else {
            board.swap(x, y);
        }
    }
    let grid = Grid::from_cells(b, best.1).expect("values stay in range");
    Attempt::verified(puzzle, grid, steps, &clock)
}

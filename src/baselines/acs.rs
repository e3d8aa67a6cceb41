//! The ant colony system of Lloyd & Amos ("Solving Sudoku with Ant Colony Optimization",
//! IEEE Transactions on Games 2019; preprint arXiv:1805.03545): ants fill the cells one after
//! another with constraint propagation after every value they fix, pheromone sits on
//! (cell, value), the choice is greedy with probability q0 and a roulette otherwise, a local
//! update follows every choice, and after each cycle the best-so-far ant reinforces its values
//! with a deposit that itself evaporates ("best value evaporation"). One iteration = one
//! colony cycle (every ant visits every cell once). See docs/BASELINES.md for the reading.

use super::{rng_for, Attempt, Baseline, Budget, Clock};
use crate::puzzle::{Geometry, Grid};
use anyhow::{bail, Result};
use rand::rngs::Xoshiro256PlusPlus;
use rand::RngExt;

/// Parameters of the colony. `Default` gives the paper's published values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AcsParams {
    /// Ants per cycle (paper: 10).
    pub ants: usize,
    /// Probability that an ant takes the value of largest pheromone instead of spinning the
    /// roulette (paper: q0 = 0.9).
    pub q0: f64,
    /// Weight of the best-so-far deposit in the global update τ ← (1 − ρ)·τ + ρ·Δτ_best
    /// (paper: ρ = 0.9).
    pub rho: f64,
    /// Weight of τ0 in the local update τ ← (1 − ξ)·τ + ξ·τ0 (paper: ξ = 0.1).
    pub xi: f64,
    /// Best value evaporation: Δτ_best ← (1 − f_BVE)·Δτ_best after every cycle
    /// (paper: f_BVE = 0.005).
    pub bve: f64,
}

impl Default for AcsParams {
    fn default() -> Self {
        AcsParams {
            ants: 10,
            q0: 0.9,
            rho: 0.9,
            xi: 0.1,
            bve: 0.005,
        }
    }
}

/// More ants than this are refused (each holds a copy of the board).
pub const MAX_ANTS: usize = 1 << 16;

impl AcsParams {
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_ANTS).contains(&self.ants) {
            bail!(
                "ACS needs between 1 and {MAX_ANTS} ants (got {}); the paper uses 10",
                self.ants
            );
        }
        for (what, x, paper) in [
            ("q0", self.q0, 0.9),
            ("rho", self.rho, 0.9),
            ("xi", self.xi, 0.1),
        ] {
            if !(0.0..=1.0).contains(&x) {
                bail!("ACS {what} must be between 0 and 1 (got {x}); the paper uses {paper}");
            }
        }
        if !(0.0..1.0).contains(&self.bve) {
            bail!(
                "ACS best value evaporation must be at least 0 and below 1 (got {}); the paper uses 0.005",
                self.bve
            );
        }
        Ok(())
    }
}

pub struct Acs {
    params: AcsParams,
    name: String,
}

impl Acs {
    /// Named `acs` with the paper's parameters, `acs-q0-Q` when only q0 differs, `acs-custom`
    /// otherwise.
    pub fn new(params: AcsParams) -> Result<Acs> {
        params.validate()?;
        let paper = AcsParams::default();
        let name = if params == paper {
            "acs".to_string()
        } else if params
            == (AcsParams {
                q0: params.q0,
                ..paper
            })
        {
            format!("acs-q0-{}", params.q0)
        } else {
            "acs-custom".to_string()
        };
        Ok(Acs { params, name })
    }
    pub fn params(&self) -> &AcsParams {
        &self.params
    }
}

/// Candidate sets of every cell (bit v − 1 set = value v still possible). A cell is fixed when
/// one candidate is left and failed when none is; fixed cells never contradict each other.
/// Per unit, the fixed values and the number of places left for each value are kept up to
/// date, so that the rules cost O(1) and O(candidates) instead of a scan of three units.
#[derive(Clone, Debug)]
struct Board {
    geom: &'static Geometry,
    cand: Vec<u64>,
    fixed: usize,
    /// Values fixed in each unit (rows, then columns, then boxes).
    unit_fixed: Vec<u64>,
    /// `places[unit · n + v − 1]`: cells of the unit that still have v among their candidates.
    places: Vec<u8>,
}

fn single(set: u64) -> bool {
    set.is_power_of_two()
}

/// The values of a set, lowest first, as one-bit masks.
fn bits(set: u64) -> impl Iterator<Item = u64> {
    let mut rest = set;
    std::iter::from_fn(move || {
        let bit = rest & rest.wrapping_neg();
        rest ^= bit;
        (bit != 0).then_some(bit)
    })
}

impl Board {
    fn open(geom: &'static Geometry) -> Board {
        let n = geom.n;
        Board {
            geom,
            cand: vec![u64::MAX >> (64 - n); geom.cells],
            fixed: 0,
            unit_fixed: vec![0; 3 * n],
            places: vec![n as u8; 3 * n * n],
        }
    }

    /// The puzzle's clues fixed one by one with propagation, or `None` when a clue is ruled
    /// out by the others (then the puzzle has no solution).
    fn from_puzzle(puzzle: &Grid) -> Option<Board> {
        let mut board = Board::open(puzzle.geometry());
        for (cell, &v) in puzzle.cells().iter().enumerate() {
            if v == 0 {
                continue;
            }
            let bit = 1u64 << (v - 1);
            if board.cand[cell] & bit == 0 {
                return None;
            }
            if !single(board.cand[cell]) {
                board.fix(cell, bit);
            }
        }
        Some(board)
    }

    /// Copies `other` into `self` without reallocating.
    fn reset_to(&mut self, other: &Board) {
        self.cand.copy_from_slice(&other.cand);
        self.fixed = other.fixed;
        self.unit_fixed.copy_from_slice(&other.unit_fixed);
        self.places.copy_from_slice(&other.places);
    }

    fn has_failed_cell(&self) -> bool {
        self.cand.contains(&0)
    }

    /// Row, column and box unit of a cell.
    fn units(&self, cell: usize) -> [usize; 3] {
        let n = self.geom.n;
        let (r, c, bx) = self.geom.row_col_box(cell);
        [r, n + c, 2 * n + bx]
    }

    /// Narrows the candidates of `cell` to `set` (a subset), keeping the unit tables right.
    fn narrow(&mut self, cell: usize, set: u64) {
        let n = self.geom.n;
        let units = self.units(cell);
        for bit in bits(self.cand[cell] & !set) {
            let v = bit.trailing_zeros() as usize;
            for u in units {
                self.places[u * n + v] -= 1;
            }
        }
        self.cand[cell] = set;
        if single(set) {
            self.fixed += 1;
            for u in units {
                self.unit_fixed[u] |= set;
            }
        }
    }

    /// Fixes `cell` (open, with `bit` among its candidates) and propagates: every peer of a
    /// newly fixed cell is constrained, and a peer the rules fix is propagated in turn, depth
    /// first (an explicit stack of (cell, next peer) frames instead of recursion).
    fn fix(&mut self, cell: usize, bit: u64) {
        debug_assert!(!single(self.cand[cell]) && self.cand[cell] & bit != 0);
        self.narrow(cell, bit);
        let mut frames = vec![(cell, 0usize)];
        while let Some(frame) = frames.last_mut() {
            let peers = self.geom.peers_of(frame.0);
            let Some(&peer) = peers.get(frame.1) else {
                frames.pop();
                continue;
            };
            frame.1 += 1;
            let peer = peer as usize;
            if let Some(bit) = self.constrain(peer) {
                self.narrow(peer, bit);
                frames.push((peer, 0));
            }
        }
    }

    /// The paper's two rules on an open cell: values fixed in its peers leave its set; then it
    /// is to be fixed when one value is left, or when one of its values has no other place in
    /// its row, column or box (checked in that order). Returns the value to fix, if any.
    fn constrain(&mut self, cell: usize) -> Option<u64> {
        let set = self.cand[cell];
        if set.count_ones() < 2 {
            return None; // already fixed, or failed
        }
        let units = self.units(cell);
        let fixed_in_peers = units.iter().fold(0, |acc, &u| acc | self.unit_fixed[u]);
        let left = set & !fixed_in_peers;
        if single(left) {
            return Some(left);
        }
        self.narrow(cell, left);
        let n = self.geom.n;
        units.into_iter().find_map(|u| {
            let only = bits(left)
                .filter(|bit| self.places[u * n + bit.trailing_zeros() as usize] == 1)
                .fold(0, |acc, bit| acc | bit);
            single(only).then_some(only)
        })
    }

    /// Fixed cells with their value, open and failed cells blank.
    fn grid(&self) -> Grid {
        let cells = self
            .cand
            .iter()
            .map(|&s| {
                if single(s) {
                    s.trailing_zeros() as u8 + 1
                } else {
                    0
                }
            })
            .collect();
        Grid::from_cells(self.geom.b, cells).expect("values stay in range")
    }
}

/// The pheromone matrix and the best-so-far ant.
struct Colony {
    n: usize,
    /// τ[cell · n + value − 1].
    tau: Vec<f64>,
    tau0: f64,
    params: AcsParams,
    best: Option<Board>,
    /// Δτ_best: the deposit of the best-so-far ant, decaying by best value evaporation.
    best_value: f64,
}

impl Colony {
    fn new(geom: &Geometry, params: AcsParams) -> Colony {
        let tau0 = 1.0 / geom.cells as f64;
        Colony {
            n: geom.n,
            tau: vec![tau0; geom.cells * geom.n],
            tau0,
            params,
            best: None,
            best_value: 0.0,
        }
    }

    fn tau(&self, cell: usize, bit: u64) -> f64 {
        self.tau[cell * self.n + bit.trailing_zeros() as usize]
    }

    fn tau_mut(&mut self, cell: usize, bit: u64) -> &mut f64 {
        &mut self.tau[cell * self.n + bit.trailing_zeros() as usize]
    }

    /// A value of `set` (two or more candidates of `cell`): with probability q0 the one of
    /// largest τ (the lowest value on ties), otherwise by roulette ∝ τ.
    fn choose(&self, cell: usize, set: u64, rng: &mut Xoshiro256PlusPlus) -> u64 {
        if rng.random::<f64>() < self.params.q0 {
            let mut best = (f64::NEG_INFINITY, 0);
            for bit in bits(set) {
                let t = self.tau(cell, bit);
                if t > best.0 {
                    best = (t, bit);
                }
            }
            return best.1;
        }
        let total: f64 = bits(set).map(|bit| self.tau(cell, bit)).sum();
        let mut x = rng.random::<f64>() * total;
        let mut last = 0;
        for bit in bits(set) {
            x -= self.tau(cell, bit);
            if x < 0.0 {
                return bit;
            }
            last = bit;
        }
        last // only reached through rounding
    }

    /// After an ant fixes `bit` in `cell`: τ ← (1 − ξ)·τ + ξ·τ0.
    fn local_update(&mut self, cell: usize, bit: u64) {
        let (xi, tau0) = (self.params.xi, self.tau0);
        let t = self.tau_mut(cell, bit);
        *t = (1.0 - xi) * *t + xi * tau0;
    }

    /// The cycle's best ant becomes the best-so-far when its deposit c / (c − fixed) beats
    /// the (evaporated) Δτ_best. `board` must not be complete.
    fn offer(&mut self, board: &Board) {
        let cells = board.cand.len();
        let deposit = cells as f64 / (cells - board.fixed) as f64;
        if deposit > self.best_value {
            self.best_value = deposit;
            match &mut self.best {
                Some(b) => b.reset_to(board),
                None => self.best = Some(board.clone()),
            }
        }
    }

    /// τ ← (1 − ρ)·τ + ρ·Δτ_best on every fixed (cell, value) of the best-so-far ant, then
    /// Δτ_best ← (1 − f_BVE)·Δτ_best.
    fn global_update(&mut self) {
        let rho = self.params.rho;
        let deposit = self.best_value;
        if let Some(best) = self.best.take() {
            for (cell, &s) in best.cand.iter().enumerate() {
                if single(s) {
                    let t = self.tau_mut(cell, s);
                    *t = (1.0 - rho) * *t + rho * deposit;
                }
            }
            self.best = Some(best);
        }
        self.best_value *= 1.0 - self.params.bve;
    }
}

struct Ant {
    board: Board,
    cell: usize,
}

impl Ant {
    /// Visits the ant's current cell: an open cell gets a value, fixed with propagation and
    /// followed by the local update; a fixed or failed cell is passed. Then the next cell.
    fn step(&mut self, colony: &mut Colony, rng: &mut Xoshiro256PlusPlus) {
        let set = self.board.cand[self.cell];
        if set.count_ones() >= 2 {
            let bit = colony.choose(self.cell, set, rng);
            self.board.fix(self.cell, bit);
            colony.local_update(self.cell, bit);
        }
        self.cell = (self.cell + 1) % self.board.cand.len();
    }
}

/// Distinct random start cells for the ants (they repeat only when there are more ants than
/// cells): a partial Fisher–Yates shuffle of `order`, which keeps any permutation of the cells.
fn draw_start_cells(order: &mut [usize], ants: &mut [Ant], rng: &mut Xoshiro256PlusPlus) {
    let cells = order.len();
    let distinct = ants.len().min(cells);
    for i in 0..distinct {
        let j = rng.random_range(i..cells);
        order.swap(i, j);
    }
    for (i, ant) in ants.iter_mut().enumerate() {
        ant.cell = order[i % distinct];
    }
}

impl Baseline for Acs {
    fn name(&self) -> &str {
        &self.name
    }
    fn unit(&self) -> &str {
        "iterations"
    }
    fn solve(&self, puzzle: &Grid, seed: u64, budget: &Budget) -> Attempt {
        let clock = Clock::new(budget);
        let Some(start) = Board::from_puzzle(puzzle) else {
            return Attempt::verified(puzzle, puzzle.clone(), 0, &clock);
        };
        let cells = start.cand.len();
        // Complete after propagation alone, or a cell no ant can ever fill.
        if start.fixed == cells || start.has_failed_cell() {
            return Attempt::verified(puzzle, start.grid(), 0, &clock);
        }
        let mut colony = Colony::new(start.geom, self.params);
        let mut rng = rng_for(seed);
        let mut ants: Vec<Ant> = (0..self.params.ants)
            .map(|_| Ant {
                board: start.clone(),
                cell: 0,
            })
            .collect();
        let mut order: Vec<usize> = (0..cells).collect();
        let mut iterations = 0u64;
        while !clock.out(iterations) {
            iterations += 1;
            draw_start_cells(&mut order, &mut ants, &mut rng);
            for ant in &mut ants {
                ant.board.reset_to(&start);
            }
            // The paper's order: each cell step is taken by every ant in turn.
            for _ in 0..cells {
                for ant in &mut ants {
                    ant.step(&mut colony, &mut rng);
                }
            }
            let mut leader = &ants[0];
            for ant in &ants[1..] {
                if ant.board.fixed > leader.board.fixed {
                    leader = ant;
                }
            }
            if leader.board.fixed == cells {
                return Attempt::verified(puzzle, leader.board.grid(), iterations, &clock);
            }
            colony.offer(&leader.board);
            colony.global_update();
        }
        let best = colony.best.as_ref().unwrap_or(&start);
        Attempt::verified(puzzle, best.grid(), iterations, &clock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::parse_str;

    fn board(rows: &str) -> Board {
        let p = parse_str(rows, None).expect("valid")[0].grid.clone();
        Board::from_puzzle(&p).expect("no clue is ruled out")
    }

    fn values(b: &Board, cell: usize) -> Vec<u8> {
        (1..=b.geom.n as u8)
            .filter(|v| b.cand[cell] & (1 << (v - 1)) != 0)
            .collect()
    }

    #[test]
    fn a_fixed_value_leaves_its_peers_only() {
        // 4x4, cell 0 = 1: its row (1, 2, 3), column (4, 8, 12) and box (1, 4, 5) lose 1.
        let b = board("1...............");
        assert_eq!(b.fixed, 1);
        for peer in [1, 2, 3, 4, 5, 8, 12] {
            assert_eq!(values(&b, peer), [2, 3, 4], "cell {peer}");
        }
        for other in [6, 7, 9, 10, 11, 13, 14, 15] {
            assert_eq!(values(&b, other), [1, 2, 3, 4], "cell {other}");
        }
    }

    #[test]
    fn a_cell_left_with_one_value_is_fixed_and_propagated() {
        // Row 0 = 1 2 3 _: cell 3 keeps only 4, is fixed, and 4 leaves its column and box.
        let b = board("123.............");
        assert_eq!(values(&b, 3), [4]);
        assert_eq!(b.fixed, 4);
        assert_eq!(values(&b, 7), [1, 2]); // box 1: 3 and 4 gone (and 4 from column 3)
        assert_eq!(values(&b, 15), [1, 2, 3]); // column 3: only 4 gone
        assert_eq!(b.grid().to_line(), "1234............");
    }

    #[test]
    fn a_value_with_one_place_in_a_unit_is_fixed_there() {
        // 1 . | . .      Box 2 (rows 2-3, columns 0-1): column 0 holds 1 and cell 9 holds 2,
        // . . | 1 .      so 1 can only go to cell 13, which still has the candidates 1, 3, 4:
        // ----+----      the hidden single, not a naked one, fixes it when cell 9 is fixed.
        // . 2 | . .
        // . . | . .
        let b = board("1.....1..2......");
        assert_eq!(values(&b, 13), [1]);
        // Without the clue at 9, cell 13 keeps all of 1, 3, 4 (1 can still go to cell 9).
        let open = board("1.....1.........");
        assert_eq!(values(&open, 13), [1, 2, 3, 4]);
        assert_eq!(values(&open, 9), [1, 2, 3, 4]);
        let mut b9 = open.clone();
        b9.fix(9, 1 << 1);
        assert_eq!(b9.grid().get(13), 1);
        // Row 2 then has 1 in one place only (cell 11: columns 0 and 2 hold 1, cell 9 is 2).
        assert_eq!(b9.grid().get(11), 1);
        assert_eq!(b9.cand, board("1.....1..2......").cand);
    }

    #[test]
    fn a_cell_can_be_left_with_no_value() {
        // Row 0 = 1 2 _ _ (cells 2, 3 keep 3 and 4). Fixing cell 6 (row 1, column 2, box 1) to
        // 3 leaves cell 2 only 4, which is fixed and empties cell 3: a failed cell, which the
        // ant's score does not count.
        let mut b = board("12..............");
        assert_eq!(values(&b, 2), [3, 4]);
        let before = b.fixed;
        b.fix(6, 1 << 2);
        assert_eq!(values(&b, 2), [4]);
        assert_eq!(b.cand[3], 0);
        assert!(b.has_failed_cell());
        assert_eq!(b.fixed, b.cand.iter().filter(|s| single(**s)).count());
        assert!(b.fixed >= before + 2);
        assert_eq!(b.grid().get(3), 0);
    }

    #[test]
    fn a_clue_ruled_out_by_the_others_is_no_solution() {
        // Row 0 = 1 2 _ _ and cell 6 = 3 (box 1) force 4 into cell 2, so the clue 4 at cell 10,
        // in the same column, is ruled out: no solution, and no ant is sent.
        let p = parse_str("12....3...4.....", None).expect("valid")[0]
            .grid
            .clone();
        assert!(Board::from_puzzle(&p).is_none());
        let a = Acs::new(AcsParams::default())
            .unwrap()
            .solve(&p, 1, &Budget::iterations(10));
        assert!(!a.solved);
        assert_eq!(a.iterations, 0);
    }

    /// The hand-worked 4x4: c = 16 cells, τ0 = 1/16 = 0.0625, ρ = 0.9, ξ = 0.1, f_BVE = 0.005.
    #[test]
    fn pheromone_updates_by_hand_on_a_4x4() {
        let geom = Geometry::get(2);
        let mut colony = Colony::new(geom, AcsParams::default());
        assert_eq!(colony.tau0, 0.0625);
        // Local update on an untouched (cell, value) keeps τ0: 0.9·0.0625 + 0.1·0.0625.
        colony.local_update(10, 1);
        assert_eq!(colony.tau(10, 1), 0.0625);

        // Cycle 1's best ant, made by hand: the first 12 cells of a solution fixed, 4 open.
        // Δτ = 16 / (16 − 12) = 4 beats Δτ_best = 0.
        let mut best = Board::open(geom);
        let solution = "1234341221434321";
        for (cell, ch) in solution.chars().enumerate().take(12) {
            best.cand[cell] = 1 << (ch.to_digit(10).unwrap() - 1);
        }
        best.fixed = 12;
        colony.offer(&best);
        assert_eq!(colony.best_value, 4.0);
        colony.global_update();
        // Fixed (cell, value): 0.1·0.0625 + 0.9·4 = 3.60625; everything else stays 0.0625.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(colony.tau(0, 1), 3.60625));
        assert!(close(colony.tau(11, 1 << 2), 3.60625)); // cell 11 = 3
        assert!(close(colony.tau(0, 1 << 1), 0.0625));
        assert!(close(colony.tau(12, 1 << 3), 0.0625)); // open cell of the best ant
                                                        // Best value evaporation: Δτ_best = 4 · 0.995 = 3.98.
        assert!(close(colony.best_value, 3.98));
        // Local update on a reinforced value: 0.9 · 3.60625 + 0.1 · 0.0625 = 3.251875.
        colony.local_update(0, 1);
        assert!(close(colony.tau(0, 1), 3.251875));

        // Cycle 2: the cycle's best has 11 fixed cells, Δτ = 16/5 = 3.2 < 3.98: the best-so-far
        // stays and deposits 3.98: 0.1 · 3.60625 + 0.9 · 3.98 = 3.942625 on cell 1 = 2.
        let mut worse = best.clone();
        worse.cand[11] = 0b1111;
        worse.fixed = 11;
        colony.offer(&worse);
        assert_eq!(colony.best.as_ref().unwrap().fixed, 12);
        colony.global_update();
        assert!(close(colony.tau(1, 1 << 1), 3.942625));
        assert!(close(colony.best_value, 3.98 * 0.995));
        // At cycle k the 12-cell best holds Δτ_best = 4 · 0.995^(k − 1) and keeps its place while
        // that is at least 3.2, i.e. for k − 1 ≤ ln(0.8) / ln(0.995) = 44.5: up to cycle 45.
        for k in 3..=45 {
            colony.offer(&worse);
            assert_eq!(colony.best.as_ref().unwrap().fixed, 12, "cycle {k}");
            colony.global_update();
        }
        assert!(colony.best_value > 3.2 * 0.995 && colony.best_value < 3.2);
        colony.offer(&worse); // cycle 46: the 11-cell ant takes over
        assert_eq!(colony.best.as_ref().unwrap().fixed, 11);
        assert_eq!(colony.best_value, 3.2);
    }

    #[test]
    fn greedy_takes_the_largest_pheromone_and_the_roulette_follows_it() {
        let geom = Geometry::get(2);
        let mut colony = Colony::new(geom, AcsParams::default());
        // Cell 5, candidates 1, 2, 4 with τ = 1, 3, 1 (value 3 is not a candidate).
        colony.tau[5 * 4..6 * 4].copy_from_slice(&[1.0, 3.0, 9.0, 1.0]);
        let set = 0b1011;
        let mut rng = rng_for(9);
        colony.params.q0 = 1.0;
        assert!((0..50).all(|_| colony.choose(5, set, &mut rng) == 0b10));
        colony.params.q0 = 0.0;
        let mut counts = [0usize; 4];
        for _ in 0..10_000 {
            counts[colony.choose(5, set, &mut rng).trailing_zeros() as usize] += 1;
        }
        // Expected 2000, 6000, 0, 2000.
        assert_eq!(counts[2], 0);
        assert!((1800..2200).contains(&counts[0]), "{counts:?}");
        assert!((5700..6300).contains(&counts[1]), "{counts:?}");
        assert!((1800..2200).contains(&counts[3]), "{counts:?}");
    }

    #[test]
    fn start_cells_are_distinct_until_the_ants_outnumber_the_cells() {
        let geom = Geometry::get(2);
        let mut rng = rng_for(3);
        let mut order: Vec<usize> = (0..16).collect();
        let ant = |_| Ant {
            board: Board::open(geom),
            cell: 0,
        };
        let mut ten: Vec<Ant> = (0..10).map(ant).collect();
        draw_start_cells(&mut order, &mut ten, &mut rng);
        let mut cells: Vec<usize> = ten.iter().map(|a| a.cell).collect();
        cells.sort_unstable();
        cells.dedup();
        assert_eq!(cells.len(), 10);
        let mut many: Vec<Ant> = (0..20).map(ant).collect();
        draw_start_cells(&mut order, &mut many, &mut rng);
        let mut cells: Vec<usize> = many.iter().map(|a| a.cell).collect();
        cells.sort_unstable();
        cells.dedup();
        assert_eq!(cells.len(), 16);
    }

    /// The rules as the paper states them, by scanning the three units: the reference the
    /// incremental tables of [`Board`] must agree with (same depth-first order).
    fn reference_fix(geom: &Geometry, cand: &mut [u64], cell: usize, bit: u64) {
        cand[cell] = bit;
        for &peer in geom.peers_of(cell) {
            let peer = peer as usize;
            let set = cand[peer];
            if set.count_ones() < 2 {
                continue;
            }
            let (r, c, bx) = geom.row_col_box(peer);
            let mut fixed = 0;
            let mut elsewhere = [0u64; 3];
            for (k, u) in [r, geom.n + c, 2 * geom.n + bx].into_iter().enumerate() {
                for &q in geom.unit(u) {
                    if q as usize != peer {
                        elsewhere[k] |= cand[q as usize];
                        if single(cand[q as usize]) {
                            fixed |= cand[q as usize];
                        }
                    }
                }
            }
            let left = set & !fixed;
            cand[peer] = left;
            let to_fix = if single(left) {
                Some(left)
            } else {
                elsewhere
                    .iter()
                    .map(|e| left & !e)
                    .find(|&only| single(only))
            };
            if let Some(bit) = to_fix {
                reference_fix(geom, cand, peer, bit);
            }
        }
    }

    #[test]
    fn incremental_propagation_matches_the_plain_rules() {
        for (b, seed) in [(2, 1), (2, 2), (3, 3), (3, 4), (3, 5), (4, 6), (5, 7)] {
            let geom = Geometry::get(b);
            let mut rng = rng_for(seed);
            let mut board = Board::open(geom);
            let mut plain = board.cand.clone();
            loop {
                let open: Vec<usize> = (0..geom.cells)
                    .filter(|&c| board.cand[c].count_ones() >= 2)
                    .collect();
                let Some(&cell) = open.get(rng.random_range(0..open.len().max(1))) else {
                    break;
                };
                let choices: Vec<u64> = bits(board.cand[cell]).collect();
                let bit = choices[rng.random_range(0..choices.len())];
                board.fix(cell, bit);
                reference_fix(geom, &mut plain, cell, bit);
                assert_eq!(board.cand, plain, "{b}x{b} seed {seed}");
            }
            // The tables agree with the candidate sets they summarise.
            let n = geom.n;
            assert_eq!(board.fixed, plain.iter().filter(|s| single(**s)).count());
            for u in 0..3 * n {
                let cells = geom.unit(u).iter().map(|&c| board.cand[c as usize]);
                let fixed = cells.clone().filter(|s| single(*s)).fold(0, |a, s| a | s);
                assert_eq!(board.unit_fixed[u], fixed);
                for v in 0..n {
                    let places = cells.clone().filter(|s| s >> v & 1 == 1).count();
                    assert_eq!(board.places[u * n + v] as usize, places);
                }
            }
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        let bad = |p: AcsParams| Acs::new(p).err().expect("refused").to_string();
        let d = AcsParams::default();
        assert!(bad(AcsParams { ants: 0, ..d }).contains("ant"));
        assert!(bad(AcsParams {
            ants: MAX_ANTS + 1,
            ..d
        })
        .contains("ants"));
        assert!(bad(AcsParams { q0: 1.5, ..d }).contains("q0"));
        assert!(bad(AcsParams { rho: -0.1, ..d }).contains("rho"));
        assert!(bad(AcsParams { xi: f64::NAN, ..d }).contains("xi"));
        assert!(bad(AcsParams { bve: 1.0, ..d }).contains("evaporation"));
        assert!(Acs::new(d).is_ok());
    }
}

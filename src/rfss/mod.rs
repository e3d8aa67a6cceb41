//! RFSS: resource-defined fitness sharing for Sudoku (Horn, GECCO'17 Companion), on the CPU
//! ([`cpu`], the reference) and on the GPU ([`gpu`], `shaders/rfss.wgsl`), bit for bit alike.
//!
//! - A *species* is a placement (numeral, row, column) in a blank cell that repeats no clue.
//! - A *resource* is a blank cell, or a (numeral,row), (numeral,column) or (numeral,box) that no
//!   clue already covers. Every species covers exactly four resources.
//! - One generation: `load(r) = Σ_{x covers r} p(x)`, niche count `m(x) = ¼ Σ_{r∈R(x)} load(r)`
//!   (equal to the paper's pairwise `Σ_y p(y)·f(x,y)`), shared fitness `1/m(x)`, proportionate
//!   selection `p'(x) = p(x)·f_sh(x) / Σ_y p(y)·f_sh(y)`.
//! - Read-off: per blank cell the species of highest proportion (ties: lowest species index);
//!   the run stops when that grid has been valid and unchanged for `stable_generations`
//!   consecutive generations, or at `max_generations`.
//!
//! The f32 arithmetic is specified in [`arith`] so that the CPU and any Vulkan GPU give identical
//! bits; `docs/RFSS.md` explains why each step is safe.

pub mod arith;
pub mod cpu;
pub mod enhance;
pub mod gpu;
pub mod report;
pub mod run;
pub mod trace;

use crate::param::{check, ParamError};
use crate::puzzle::{cell_name, Grid};
use crate::report::InstanceResult;
use anyhow::{bail, Result};
use serde::Serialize;

pub use trace::{trace, write_trace_csv, Trace};

crate::choice! {
    /// What happens to proportions that fall below the underflow threshold
    /// `2^-underflow_log2`.
    pub enum Underflow {
        /// The species dies: its proportion becomes exactly 0 and stays 0.
        Extinct = "extinct",
        /// The proportion is held at the threshold, so the species can grow back.
        Floor = "floor",
    }
}

crate::choice! {
    /// A labelled extension beyond the paper; `Off` is plain RFSS as published.
    pub enum Enhancement {
        /// Plain RFSS (the paper).
        Off = "off",
        /// ENHANCEMENT (not in the paper): forced placements (naked and hidden singles) are
        /// filled in before the species are built, and whenever the read-off stalls at an
        /// invalid grid for `stall_generations`, the dominant species of stable cells are
        /// committed as clues, singles are propagated, and the run restarts on the reduced
        /// puzzle. See `docs/RFSS.md`.
        Propagate = "propagate",
        /// ENHANCEMENT (not in the paper): like `Propagate`, but each decision is taken on a
        /// cell with the fewest candidates (minimum remaining values), the one where RFSS's
        /// favourite holds the largest share of the cell's proportion; RFSS orders the numerals
        /// to try. A hybrid of RFSS with an MRV search; see `docs/RFSS.md`.
        Mrv = "mrv",
        /// ENHANCEMENT (not in the paper): like `Mrv`, with logic beyond singles at every node
        /// (locked candidates, naked and hidden subsets: the exact solver's strong
        /// propagation, to a fixpoint with singles), so species that logic rules out are never
        /// built and contradictions show before RFSS runs; see `docs/RFSS.md`.
        Logic = "logic",
        /// ENHANCEMENT (not in the paper): like `Logic`, plus failed-literal probes at every
        /// node (each numeral of every two-candidate cell tried with singles; those that fail
        /// are removed) and decisions on the two-candidate cell whose probes force the most
        /// placements, RFSS choosing which of its two numerals to commit; see `docs/RFSS.md`.
        Lookahead = "lookahead",
    }
}

/// Resources every species covers: its cell, and its numeral's row, column and box.
pub const RES_PER_SPECIES: usize = 4;

/// Parameters of an RFSS run. [`RfssParams::validate`] says what is wrong with bad values.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RfssParams {
    /// Upper bound on generations per instance (≥ 1).
    pub max_generations: u32,
    /// The read-off must be a valid grid, unchanged, for this many consecutive generations (≥ 1).
    pub stable_generations: u32,
    /// Policy for proportions below `2^-underflow_log2`.
    pub underflow: Underflow,
    /// Threshold exponent k: proportions below 2^-k are extinct or floored (10..=120).
    pub underflow_log2: u32,
    /// Switch for the enhancement beyond the paper.
    pub enhancement: Enhancement,
    /// Enhancement only: generations an invalid read-off must stay unchanged before it acts (≥ 1).
    pub stall_generations: u32,
}

impl Default for RfssParams {
    fn default() -> Self {
        RfssParams {
            max_generations: 100_000,
            stable_generations: 100,
            underflow: Underflow::Extinct,
            underflow_log2: 100,
            enhancement: Enhancement::Off,
            stall_generations: 300,
        }
    }
}

/// Smallest and largest allowed `underflow_log2`: below 10 the threshold removes species that
/// still matter; above 120 shared fitness 1/m could overflow f32.
pub const UNDERFLOW_LOG2_RANGE: std::ops::RangeInclusive<u32> = 10..=120;

impl RfssParams {
    /// Checks every parameter; the error says which value to change and to what.
    pub fn validate(&self) -> Result<(), ParamError> {
        check(self.max_generations >= 1, "max_generations", || {
            "must be at least 1 (got 0)".into()
        })?;
        check(self.stable_generations >= 1, "stable_generations", || {
            "must be at least 1 (got 0): 1 stops at the first valid read-off".into()
        })?;
        check(
            UNDERFLOW_LOG2_RANGE.contains(&self.underflow_log2),
            "underflow_log2",
            || {
                format!(
                    "must be in {}..={} (got {}): proportions below 2^-k are {}",
                    UNDERFLOW_LOG2_RANGE.start(),
                    UNDERFLOW_LOG2_RANGE.end(),
                    self.underflow_log2,
                    match self.underflow {
                        Underflow::Extinct => "made extinct",
                        Underflow::Floor => "held at 2^-k",
                    }
                )
            },
        )?;
        check(self.stall_generations >= 1, "stall_generations", || {
            "must be at least 1 (got 0)".into()
        })
    }

    /// The underflow threshold 2^-underflow_log2 (exact in f32, a normal number).
    pub fn threshold(&self) -> f32 {
        f32::from_bits((127 - self.underflow_log2) << 23)
    }
}

/// One species: numeral `numeral` in (blank) cell `cell`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Species {
    pub cell: u32,
    pub numeral: u8,
}

/// The fixed structure of one RFSS instance: species, resources and who covers what.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The puzzle the species were built from (after forced placements when enhanced).
    pub puzzle: Grid,
    /// Species in ascending (cell, numeral) order; the index is the species id.
    pub species: Vec<Species>,
    /// Per species its four resources, in the order cell, (numeral,row), (numeral,col), (numeral,box).
    pub res: Vec<[u32; RES_PER_SPECIES]>,
    /// Number of resources. Resources `0..n_blank` are the blank cells in ascending cell order.
    pub n_res: usize,
    /// The blank cells, ascending; resource i < n_blank is cell `blank[i]`.
    pub blank: Vec<u32>,
    /// CSR: the species covering resource r are `res_sp[res_ptr[r]..res_ptr[r+1]]`, ascending.
    pub res_ptr: Vec<u32>,
    pub res_sp: Vec<u32>,
}

impl Problem {
    /// Builds species and resources from a puzzle; `Err` with a reason when the puzzle is
    /// unsolvable up front (clues repeat, a blank cell has no candidate, a numeral has no place
    /// left in a row, column or box).
    pub fn build(puzzle: &Grid) -> std::result::Result<Problem, String> {
        Problem::build_with(puzzle, None)
    }

    /// Like [`Problem::build`], keeping only the placements whose bit (numeral d → bit d−1) is
    /// set in `allowed[cell]` (the enhancement's candidate sets).
    pub fn build_with(
        puzzle: &Grid,
        allowed: Option<&[u64]>,
    ) -> std::result::Result<Problem, String> {
        let geo = puzzle.geometry();
        let (n, b) = (geo.n, geo.b);
        if let Some((a, c, v)) = puzzle.first_conflict() {
            return Err(format!(
                "clues repeat: {} and {} both hold {}",
                cell_name(a, n),
                cell_name(c, n),
                crate::puzzle::symbol_for(v)
            ));
        }
        // used[kind][unit * n + numeral-1]: the clue set covers (numeral, unit).
        let mut used = vec![vec![false; n * n]; 3];
        for cell in 0..geo.cells {
            let v = puzzle.get(cell);
            if v != 0 {
                let (r, c, bx) = geo.row_col_box(cell);
                let d = v as usize - 1;
                used[0][r * n + d] = true;
                used[1][c * n + d] = true;
                used[2][bx * n + d] = true;
            }
        }
        let blank: Vec<u32> = (0..geo.cells)
            .filter(|&c| puzzle.get(c) == 0)
            .map(|c| c as u32)
            .collect();
        // Resource numbering: blank cells, then uncovered (numeral,row), (numeral,col), (numeral,box),
        // each kind in (unit, numeral) order.
        let mut res_id = vec![vec![u32::MAX; n * n]; 3];
        let mut next = blank.len() as u32;
        for kind in 0..3 {
            for key in 0..n * n {
                if !used[kind][key] {
                    res_id[kind][key] = next;
                    next += 1;
                }
            }
        }
        let n_res = next as usize;
        let mut species = Vec::new();
        let mut res = Vec::new();
        for (i, &cell) in blank.iter().enumerate() {
            let (r, c, bx) = geo.row_col_box(cell as usize);
            let before = species.len();
            for d in 0..n {
                if used[0][r * n + d] || used[1][c * n + d] || used[2][bx * n + d] {
                    continue;
                }
                if allowed.is_some_and(|a| a[cell as usize] & (1u64 << d) == 0) {
                    continue;
                }
                species.push(Species {
                    cell,
                    numeral: (d + 1) as u8,
                });
                res.push([
                    i as u32,
                    res_id[0][r * n + d],
                    res_id[1][c * n + d],
                    res_id[2][bx * n + d],
                ]);
            }
            if species.len() == before {
                return Err(format!(
                    "{} has no candidate: every numeral {}",
                    cell_name(cell as usize, n),
                    if allowed.is_some() {
                        "is excluded there"
                    } else {
                        "already appears among its peers"
                    }
                ));
            }
        }
        let mut count = vec![0u32; n_res];
        for rs in &res {
            for &r in rs {
                count[r as usize] += 1;
            }
        }
        for (kind, ids) in res_id.iter().enumerate() {
            for (key, &r) in ids.iter().enumerate() {
                if r != u32::MAX && count[r as usize] == 0 {
                    let (unit, d) = (key / n, key % n + 1);
                    let what = match kind {
                        0 => format!("row {}", unit + 1),
                        1 => format!("column {}", unit + 1),
                        _ => format!("box {} (boxes are {b}x{b}, numbered row by row)", unit + 1),
                    };
                    return Err(format!(
                        "numeral {} has no place left in {what}",
                        crate::puzzle::symbol_for(d as u8)
                    ));
                }
            }
        }
        let mut res_ptr = vec![0u32; n_res + 1];
        for r in 0..n_res {
            res_ptr[r + 1] = res_ptr[r] + count[r];
        }
        let mut fill = res_ptr.clone();
        let mut res_sp = vec![0u32; res_ptr[n_res] as usize];
        // Species are visited in ascending order, so every list comes out ascending.
        for (x, rs) in res.iter().enumerate() {
            for &r in rs {
                res_sp[fill[r as usize] as usize] = x as u32;
                fill[r as usize] += 1;
            }
        }
        Ok(Problem {
            puzzle: puzzle.clone(),
            species,
            res,
            n_res,
            blank,
            res_ptr,
            res_sp,
        })
    }

    /// Number of species.
    pub fn n_species(&self) -> usize {
        self.species.len()
    }

    /// Number of blank cells (= cell resources).
    pub fn n_blank(&self) -> usize {
        self.blank.len()
    }

    /// Species covering resource r, ascending.
    pub fn covering(&self, r: usize) -> &[u32] {
        &self.res_sp[self.res_ptr[r] as usize..self.res_ptr[r + 1] as usize]
    }

    /// Equal initial proportions 1/S (computed on the host, uploaded to the GPU as bits).
    pub fn initial_proportions(&self) -> Vec<f32> {
        vec![1.0f32 / self.n_species() as f32; self.n_species()]
    }

    /// The grid of a read-off: the puzzle with each blank cell set to its chosen species' numeral.
    pub fn grid_of(&self, argmax: &[u32]) -> Grid {
        let mut g = self.puzzle.clone();
        for (i, &x) in argmax.iter().enumerate() {
            let s = self.species[x as usize];
            debug_assert_eq!(s.cell, self.blank[i]);
            g.set(s.cell as usize, s.numeral);
        }
        g
    }
}

/// Per-generation read-off bookkeeping (`Readoff` in rfss.wgsl holds the same fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Readoff {
    /// Generations done (0 = the initial proportions).
    pub generation: u32,
    /// Consecutive generations (ending now) with the same valid read-off.
    pub streak: u32,
    /// Generation at which the current streak started.
    pub streak_start: u32,
    /// Resources covered more than once by the read-off, counted with multiplicity −1.
    pub conflicts: u32,
    /// Consecutive generations (ending now) with an unchanged read-off.
    pub unchanged: u32,
    /// The run has ended (stop rule or generation limit).
    pub done: bool,
}

impl Readoff {
    /// Folds a fresh read-off (its conflict count and whether it differs from the last one) into
    /// the streaks, then applies the stop rule. The WGSL kernel does the same in `finish_readoff`.
    pub fn update(&mut self, conflicts: u32, changed: bool, params: &RfssParams) {
        self.conflicts = conflicts;
        self.unchanged = if changed { 0 } else { self.unchanged + 1 };
        if conflicts == 0 {
            if self.streak > 0 && !changed {
                self.streak += 1;
            } else {
                self.streak = 1;
                self.streak_start = self.generation;
            }
        } else {
            self.streak = 0;
        }
        self.done =
            self.streak >= params.stable_generations || self.generation >= params.max_generations;
    }
}

/// Why a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase", tag = "status", content = "reason")]
pub enum Status {
    /// The read-off is a verified solution.
    Solved,
    /// The generation limit came first; the read-off is not a solution.
    Unsolved,
    /// Nothing was run: the puzzle cannot be solved (the reason says why).
    Unsolvable(String),
}

impl Status {
    /// The status as the JSON and the tables spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Unsolved => "unsolved",
            Status::Unsolvable(_) => "unsolvable",
        }
    }
}

/// The result of one RFSS instance.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RfssOutcome {
    #[serde(flatten)]
    pub status: Status,
    /// Generations run.
    pub generations: u32,
    /// When solved: the generation from which the read-off was this (valid) grid.
    pub solved_at: Option<u32>,
    /// The final read-off (the puzzle itself when unsolvable up front), one-line format.
    pub grid: String,
    /// Conflicts left in the final read-off.
    pub conflicts: u32,
    /// Number of species of the (last) problem that ran.
    pub species: u32,
    /// Enhancement only: how many times the run restarted on a reduced puzzle.
    pub restarts: u32,
    /// Work done: Σ over the run's problems of species × generations run on it.
    pub species_updates: u64,
}

impl RfssOutcome {
    pub fn solved(&self) -> bool {
        self.status == Status::Solved
    }

    /// Outcome of a puzzle that cannot be run.
    pub fn unsolvable(puzzle: &Grid, reason: String) -> RfssOutcome {
        RfssOutcome {
            status: Status::Unsolvable(reason),
            generations: 0,
            solved_at: None,
            grid: puzzle.to_line(),
            conflicts: 0,
            species: 0,
            restarts: 0,
            species_updates: 0,
        }
    }

    /// The shared per-instance record: `run` is 0 (RFSS is deterministic), `steps` is the
    /// generation of the solution when solved, otherwise the generations run.
    pub fn to_instance_result(&self, puzzle: usize) -> InstanceResult {
        InstanceResult {
            puzzle,
            run: 0,
            solved: self.solved(),
            steps: self.solved_at.unwrap_or(self.generations),
            grid: self.grid.clone(),
        }
    }
}

/// Turns the final state of a run into an outcome, verifying any claimed solution against the
/// rules and the clues of the original `puzzle` (so no unverified "solved" is ever reported).
pub(crate) fn finish(
    puzzle: &Grid,
    prob: &Problem,
    st: &Readoff,
    argmax: &[u32],
    restarts: u32,
    generations: u32,
    updates_before: u64,
) -> Result<RfssOutcome> {
    let grid = prob.grid_of(argmax);
    let verified = grid.verify_solution_of(puzzle);
    if st.conflicts == 0 {
        if let Err(e) = &verified {
            bail!("internal error: RFSS read-off has no conflict but is not a solution: {e}");
        }
    }
    let solved = st.conflicts == 0 && verified.is_ok();
    Ok(RfssOutcome {
        status: if solved {
            Status::Solved
        } else {
            Status::Unsolved
        },
        generations,
        solved_at: solved.then_some(st.streak_start + (generations - st.generation)),
        grid: grid.to_line(),
        conflicts: st.conflicts,
        species: prob.n_species() as u32,
        restarts,
        species_updates: updates_before + prob.n_species() as u64 * st.generation as u64,
    })
}

#[cfg(test)]
pub(crate) mod tests;

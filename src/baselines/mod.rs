//! Classic baselines the bio-inspired solvers are compared against (CPU only, deterministic
//! for a seed): plain backtracking, backtracking with MRV ("AHA"), best-first search with the
//! four cell-ordering heuristics of the INFO-H410 A* report, the Pyuzzle genetic algorithm,
//! simulated annealing and hill climbing (AUA report), and the ant colony system of Lloyd &
//! Amos. See docs/BASELINES.md for what each paper leaves open and how it was settled here.

pub mod acs;
pub mod astar;
pub mod backtrack;
pub mod ga;
pub mod local;
#[cfg(test)]
mod tests;

use crate::puzzle::Grid;
use crate::report::InstanceResult;
use anyhow::{bail, Result};
use rand::rngs::Xoshiro256PlusPlus;
use rand::SeedableRng;
use rayon::prelude::*;
use std::time::{Duration, Instant};

pub use acs::{Acs, AcsParams};
pub use astar::{AStar, Heuristic};
pub use backtrack::{Backtracking, Exact, Mrv};
pub use ga::{Crossover, Ga, GaParams, Mutation, Selection};
pub use local::{HillClimbing, SimulatedAnnealing};

/// Limits of one attempt: whichever is hit first stops it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Iterations (nodes, trials, generations, steps or colony cycles, see [`Baseline::unit`]).
    pub max_iterations: Option<u64>,
    /// Wall-clock time. Stopping on time makes a run depend on the machine; leave it out for
    /// exactly reproducible results.
    pub max_time: Option<Duration>,
}

impl Budget {
    pub fn iterations(n: u64) -> Budget {
        Budget {
            max_iterations: Some(n),
            max_time: None,
        }
    }
}

/// Tracks a [`Budget`] during an attempt.
pub(crate) struct Clock {
    start: Instant,
    budget: Budget,
}

impl Clock {
    pub(crate) fn new(budget: &Budget) -> Clock {
        Clock {
            start: Instant::now(),
            budget: *budget,
        }
    }
    /// True when `iterations` reached the limit or (checked on every call) time ran out or a
    /// stop was asked for ([`crate::interrupt`]; the job then drops the attempt).
    pub(crate) fn out(&self, iterations: u64) -> bool {
        if crate::interrupt::requested() {
            return true;
        }
        if let Some(m) = self.budget.max_iterations {
            if iterations >= m {
                return true;
            }
        }
        match self.budget.max_time {
            Some(t) => self.start.elapsed() >= t,
            None => false,
        }
    }
    /// Like [`Clock::out`] but reads the clock only every 1024 iterations (for cheap steps).
    pub(crate) fn out_cheap(&self, iterations: u64) -> bool {
        if let Some(m) = self.budget.max_iterations {
            if iterations >= m {
                return true;
            }
        }
        iterations.is_multiple_of(1024) && self.out(iterations)
    }
    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

/// How one attempt ended. `solved` is set only after `grid` passed
/// [`Grid::verify_solution_of`] against the puzzle.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    pub solved: bool,
    /// The final (best) grid; may be incomplete or conflicting when not solved.
    pub grid: Grid,
    /// Nodes, trials, generations, steps or colony cycles used.
    pub iterations: u64,
    pub elapsed: Duration,
}

impl Attempt {
    /// Builds an attempt, verifying the grid against `puzzle` (a claim is never trusted).
    pub(crate) fn verified(puzzle: &Grid, grid: Grid, iterations: u64, clock: &Clock) -> Attempt {
        let solved = grid.verify_solution_of(puzzle).is_ok();
        Attempt {
            solved,
            grid,
            iterations,
            elapsed: clock.elapsed(),
        }
    }
}

impl Attempt {
    /// The shared per-instance record of attempt (`puzzle`, `run`); `steps` is the iteration
    /// count, refused when it does not fit the record's 32 bits.
    pub fn to_instance_result(&self, puzzle: usize, run: usize) -> Result<InstanceResult> {
        let Ok(steps) = u32::try_from(self.iterations) else {
            bail!(
                "puzzle {puzzle} run {run}: {} iterations do not fit a 32-bit count",
                self.iterations
            );
        };
        Ok(InstanceResult {
            puzzle,
            run,
            solved: self.solved,
            steps,
            grid: self.grid.to_line(),
        })
    }
}

/// A baseline solver. `solve` must be deterministic for (puzzle, seed) when the budget has no
/// time limit.
pub trait Baseline: Send + Sync {
    /// Short name as used by `gpu-sudoku compare --algos`.
    fn name(&self) -> &str;
    /// What one iteration is ("nodes", "trials", "generations", "steps", "iterations").
    fn unit(&self) -> &str;
    fn solve(&self, puzzle: &Grid, seed: u64, budget: &Budget) -> Attempt;
}

/// Does the baseline called `name` ignore its seed, so that every run of a puzzle repeats the
/// first (the searches: backtracking, MRV, the exact solver, A*)? Reports then count puzzles,
/// not runs, for their intervals and give no TTS99, which assumes independent runs.
pub fn ignores_seed(name: &str) -> bool {
    matches!(
        name,
        "backtrack" | "mrv" | "exact" | "astar" | "astar-small" | "astar-big" | "astar-weighted"
    )
}

/// Names accepted by [`by_name`].
pub const NAMES: [&str; 11] = [
    "backtrack",
    "mrv",
    "exact",
    "astar",
    "astar-small",
    "astar-big",
    "astar-weighted",
    "ga",
    "sa",
    "hc",
    "acs",
];

/// The baseline called `name` with the reports' default parameters; also
/// `ga-SELECTION-CROSSOVER-MUTATION` (e.g. `ga-fps-uniform-swap`) for any GA combination and
/// `acs-q0-Q` (e.g. `acs-q0-0.1`) for ACS with another greedy probability. `astar-weighted` learns its
/// weights (Algorithm 2, trained with the basic heuristic) on `training` puzzles.
pub fn by_name(name: &str, training: &[Grid]) -> Result<Box<dyn Baseline>> {
    Ok(match name {
        "backtrack" => Box::new(Backtracking),
        "mrv" => Box::new(Mrv),
        "exact" => Box::new(Exact),
        "astar" => Box::new(AStar::new(Heuristic::Basic)),
        "astar-small" => Box::new(AStar::new(Heuristic::SmallCrossed)),
        "astar-big" => Box::new(AStar::new(Heuristic::BigCrossed)),
        "astar-weighted" => Box::new(AStar::weighted(training, Heuristic::Basic)?),
        "sa" => Box::new(SimulatedAnnealing::new(1.0, 0.995)?),
        "hc" => Box::new(HillClimbing),
        other if other == "acs" || other.starts_with("acs-q0-") => {
            Box::new(Acs::new(acs_params(other)?)?)
        }
        other if other == "ga" || other.starts_with("ga-") => Box::new(Ga::new(ga_params(other)?)?),
        other => bail!(
            "unknown baseline `{other}`; valid names: {}, ga-SELECTION-CROSSOVER-MUTATION, acs-q0-Q",
            NAMES.join(", ")
        ),
    })
}

/// ACS's parameters under the name `acs` or `acs-q0-Q`.
fn acs_params(name: &str) -> Result<AcsParams> {
    let Some(q0) = name.strip_prefix("acs-q0-") else {
        return Ok(AcsParams::default());
    };
    let q0 = q0.parse().map_err(|_| {
        anyhow::anyhow!("`{name}`: ACS q0 must be a number between 0 and 1, e.g. acs-q0-0.1")
    })?;
    Ok(AcsParams {
        q0,
        ..AcsParams::default()
    })
}

/// The GA's parameters under the name `ga` or `ga-SELECTION-CROSSOVER-MUTATION`.
fn ga_params(name: &str) -> Result<GaParams> {
    match name.strip_prefix("ga-") {
        None if name == "ga" => Ok(GaParams::default()),
        None => bail!("unknown baseline `{name}`"),
        Some(combination) => GaParams::default().with_combination(combination),
    }
}

/// What the baseline called `name` runs, as text: two names with the same text (`acs` and
/// `acs-q0-0.9`, or `ga` and the GA combination it defaults to) are one setting.
pub fn setting_of(name: &str) -> Result<String> {
    Ok(if name == "acs" || name.starts_with("acs-q0-") {
        format!("acs {:?}", acs_params(name)?)
    } else if name == "ga" || name.starts_with("ga-") {
        format!("ga {:?}", ga_params(name)?)
    } else {
        name.to_string()
    })
}

/// A fresh seeded generator for (seed, puzzle, run).
pub(crate) fn rng_for(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// Runs `runs` attempts of every puzzle on all cores; attempt (p, r) uses seed
/// `mix(seed, p, r)`. Results in (puzzle, run) order. `tick` is called per attempt.
pub fn run_batch(
    baseline: &dyn Baseline,
    puzzles: &[Grid],
    runs: usize,
    seed: u64,
    budget: &Budget,
    tick: &(dyn Fn() + Sync),
) -> Vec<Attempt> {
    run_attempts(
        baseline,
        puzzles,
        runs,
        0..puzzles.len() * runs,
        seed,
        budget,
        tick,
    )
}

/// Attempts `items` of [`run_batch`]'s (item i is puzzle i / runs, run i % runs), the same
/// attempts whatever part of a batch runs them (for shards and chunks).
pub fn run_attempts(
    baseline: &dyn Baseline,
    puzzles: &[Grid],
    runs: usize,
    items: std::ops::Range<usize>,
    seed: u64,
    budget: &Budget,
    tick: &(dyn Fn() + Sync),
) -> Vec<Attempt> {
    items
        .into_par_iter()
        .map(|i| {
            let (p, r) = (i / runs, i % runs);
            let a = baseline.solve(&puzzles[p], mix(seed, p as u64, r as u64), budget);
            tick();
            a
        })
        .collect()
}

/// Seed of attempt (puzzle, run) under `seed` (splitmix64 of the three).
pub fn mix(seed: u64, puzzle: u64, run: u64) -> u64 {
    let mut z = seed
        ^ puzzle.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ run.wrapping_mul(0xbf58_476d_1ce4_e5b9).rotate_left(17);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

//! Puzzle generation, two models (see docs/PUZZLES.md):
//!
//! - **paper**: the ILCA paper's tiers read as a blank fraction d. A random complete grid gets
//!   round(d·n²) cells blanked, chosen uniformly at random; d is given, or drawn uniformly in the
//!   tier's band. Uniqueness is not guaranteed. Each puzzle records `d=0.6123`.
//! - **rated**: unique puzzles of a human-style tier. Clues are removed from a random complete
//!   grid in random order, each removal kept only if the puzzle stays unique and (below evil)
//!   its rating stays within the tier; the result is kept when its tier is the one asked for,
//!   otherwise a new grid is tried. Each puzzle records `tier=… score=… hardest=…`.
//!
//! Every puzzle i of a run draws from its own random stream, derived from (seed, i), so the
//! output does not depend on the number of threads and puzzle i is the same in a longer run.
//!
//! Both models draw a new complete grid when one does not give what was asked; after
//! [`max_grids`] grids for one puzzle they give up with an error that says what the grids did
//! reach and suggests a setting that works (some requests can never be met: a unique 9x9 with
//! 4 clues, a 4x4 that needs more than singles).

pub mod complete;
pub mod rate;
pub mod report;

use crate::choice::Choice;
use crate::exact::{Config, Solver};
use crate::puzzle::{Geometry, Grid};
use anyhow::{bail, ensure, Result};
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt, SeedableRng};
use rayon::prelude::*;
use std::time::{Duration, Instant};

pub use complete::{pattern_puzzle, random_complete, scrambled_pattern};
pub use rate::{rate, rate_capped, rate_capped_until, rate_with_solution, Rating, Technique};

crate::choice! {
    /// Difficulty tiers. For the paper model they are bands of the blank fraction d; for the
    /// rated model they are the tier of the hardest technique the rater needs.
    #[derive(PartialOrd, Ord)]
    pub enum Tier {
        /// Paper: d in (0.1, 0.4); rated: singles only.
        Easy = "easy",
        /// Paper: d in [0.4, 0.55); rated: up to pointing, claiming and pairs.
        Medium = "medium",
        /// Paper: d in [0.55, 0.7); rated: up to triples, X-wing, XY-wing and swordfish.
        Hard = "hard",
        /// Paper: d in [0.7, 0.9); rated: needs a guess.
        Evil = "evil",
    }
}

impl Tier {
    /// The paper's d band: (low, high, low end included). Easy (0.1, 0.4), Medium [0.4, 0.55),
    /// Hard [0.55, 0.7), Evil [0.7, 0.9); the high end is always excluded.
    pub fn d_band(self) -> (f64, f64, bool) {
        match self {
            Tier::Easy => (0.1, 0.4, false),
            Tier::Medium => (0.4, 0.55, true),
            Tier::Hard => (0.55, 0.7, true),
            Tier::Evil => (0.7, 0.9, true),
        }
    }

    /// Whether `d` lies in this tier's band.
    pub fn band_contains(self, d: f64) -> bool {
        let (lo, hi, lo_in) = self.d_band();
        (if lo_in { d >= lo } else { d > lo }) && d < hi
    }

    /// The paper tier whose band holds `d`, if any.
    pub fn for_d(d: f64) -> Option<Tier> {
        Tier::ALL.iter().copied().find(|t| t.band_contains(d))
    }
}

/// The paper tier a puzzle file was generated as (`gpu-sudoku generate --model paper --tier T`,
/// recorded in the file's first header line), if any: the shipped `puzzles/{easy,…}.txt`. Only
/// the paper's own instances count: 9x9 and not `--unique` (a 16x16 or a unique file made with
/// the same tier word is not what the paper measured).
pub fn paper_tier_of(header: &[String]) -> Option<Tier> {
    let first = header.first()?;
    let words: Vec<&str> = first.split_whitespace().collect();
    let flag = |name: &str| {
        words
            .iter()
            .position(|w| *w == name)
            .and_then(|i| words.get(i + 1))
    };
    if !words.contains(&"generate")
        || flag("--model") != Some(&"paper")
        || words.contains(&"--unique")
        || flag("--size").is_some_and(|s| *s != "9")
    {
        return None;
    }
    let t = flag("--tier")?;
    Tier::from_name(t)
}

crate::choice! {
    /// Which generator.
    pub enum Model {
        /// Blank a fraction d of a random complete grid (the ILCA paper's tiers; not always
        /// unique).
        Paper = "paper",
        /// Unique puzzles dug until the human-style rater gives the tier asked for.
        Rated = "rated",
    }
}

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub model: Model,
    /// Tier: the d band (paper) or the rater's tier (rated, required there).
    pub tier: Option<Tier>,
    /// Paper model: a fixed blank fraction (at most 4 decimals), instead of or inside the tier.
    pub d: Option<f64>,
    /// Paper model: blank only cells whose removal keeps the solution unique (see
    /// [`paper_puzzle`]); the blank count is the same.
    pub unique: bool,
    /// Box size (3 for 9x9).
    pub b: usize,
    pub count: usize,
    pub seed: u64,
}

/// One generated puzzle and the fields recorded after it on its line.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    pub grid: Grid,
    /// The complete grid it was made from (a solution; the solution for rated puzzles).
    pub solution: Grid,
    /// `d=0.6123` (paper) or `tier=hard score=153 hardest=x-wing` (rated).
    pub extra: String,
}

impl Spec {
    /// Checks the parameters, saying what to change.
    pub fn validate(&self) -> Result<()> {
        ensure!(
            (crate::puzzle::MIN_BOX..=crate::puzzle::MAX_BOX).contains(&self.b),
            "size {0}x{0} is not supported: use --size 4, 9, 16, 25, 36, 49 or 64",
            self.b * self.b
        );
        ensure!(self.count > 0, "--count must be at least 1");
        match self.model {
            Model::Paper => {
                if self.tier.is_none() && self.d.is_none() {
                    bail!("the paper model needs --tier (d drawn in its band) or --d (a blank fraction)");
                }
                if let Some(d) = self.d {
                    ensure!(
                        d.is_finite() && d > 0.0 && d < 1.0,
                        "--d {} is outside (0, 1): it is the fraction of blank cells, e.g. --d 0.75",
                        crate::param::show(d)
                    );
                    check_decimals(d)?;
                    // A d that rounds to no blank cell (or to all) makes complete (or empty)
                    // grids labelled with it.
                    let cells = self.b.pow(4);
                    let k = blanks_for(d, cells, None);
                    ensure!(
                        (1..cells).contains(&k),
                        "--d {d} blanks round(d·{cells}) = {k} of the {cells} cells of a {0}x{0} \
                         grid: pick d between {1:.4} and {2:.4}",
                        self.b * self.b,
                        0.5 / cells as f64 + 1e-4,
                        1.0 - 0.5 / cells as f64 - 1e-4
                    );
                    if let Some(t) = self.tier {
                        let (lo, hi, lo_in) = t.d_band();
                        ensure!(
                            t.band_contains(d),
                            "--d {d} is outside the {t} band {}{lo}, {hi}): drop --tier or pick d in the band",
                            if lo_in { "[" } else { "(" }
                        );
                    }
                }
            }
            Model::Rated => {
                ensure!(
                    self.tier.is_some(),
                    "the rated model needs --tier easy|medium|hard|evil"
                );
                if let Some(d) = self.d {
                    ensure!(
                        d.is_finite() && d > 0.0 && d < 0.9,
                        "--d {} is outside (0, 0.9): with the rated model it is the blank fraction the digging stops at",
                        crate::param::show(d)
                    );
                    check_decimals(d)?;
                }
                ensure!(
                    !self.unique,
                    "--unique belongs to the paper model; rated puzzles are always unique"
                );
            }
        }
        Ok(())
    }
}

/// Complete grids one puzzle may use before generation gives up: 1,000 up to 9x9, 100 for
/// 16x16, 10 from 25x25 on (where one grid costs seconds). The shipped files need at most
/// 36 (the rated 9x9 sets) and 1 (every larger file).
pub fn max_grids(b: usize) -> usize {
    match b {
        0..=3 => 1000,
        4 => 100,
        _ => 10,
    }
}

/// Generates `spec.count` puzzles in parallel; `progress` is called once per finished puzzle.
/// Deterministic for the spec (seed included), whatever the number of threads. Fails when a
/// puzzle needs more than [`max_grids`] complete grids.
pub fn generate(spec: &Spec, progress: &(dyn Fn() + Sync)) -> Result<Vec<Generated>> {
    generate_within(spec, None, progress)
}

/// [`generate`], giving up (an error that names the puzzle) on a puzzle that takes longer than
/// `limit`. A limit never changes a puzzle: each is made whole, or the run fails.
pub fn generate_within(
    spec: &Spec,
    limit: Option<Duration>,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<Generated>> {
    spec.validate()?;
    (0..spec.count)
        .into_par_iter()
        .map(|i| {
            crate::interrupt::check()?;
            let mut rng = puzzle_rng(spec.seed, i as u64);
            let deadline = Deadline::after(limit);
            let out = match spec.model {
                Model::Paper => paper_puzzle_until(spec, deadline, &mut rng),
                Model::Rated => rated_puzzle_until(
                    spec.b,
                    spec.tier.expect("validated"),
                    spec.d
                        .map(|d| blanks_for(d, Geometry::get(spec.b).cells, None)),
                    deadline,
                    &mut rng,
                ),
            };
            progress();
            out.map_err(|e| e.context(format!("puzzle {} of the run", i + 1)))
        })
        .collect()
}

/// When the making of one puzzle gives up: checked between the cells it digs and the grids it
/// draws, and the exact solver's time limit. A solver call stopped by it fails the puzzle, so
/// a limit decides only whether a puzzle is made, never which.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    at: Option<Instant>,
    limit: Option<Duration>,
}

impl Deadline {
    /// No limit.
    pub const NONE: Deadline = Deadline {
        at: None,
        limit: None,
    };

    /// `limit` from now (`None`: no limit).
    pub fn after(limit: Option<Duration>) -> Deadline {
        Deadline {
            at: limit.and_then(|l| Instant::now().checked_add(l)),
            limit,
        }
    }

    /// An error once the deadline has passed.
    pub fn check(&self) -> Result<()> {
        if self.passed() {
            return Err(self.reached());
        }
        Ok(())
    }

    fn passed(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
    }

    /// The error of a puzzle stopped by the deadline.
    fn reached(&self) -> anyhow::Error {
        TimeLimitReached(self.limit.unwrap_or_default()).into()
    }

    /// [`rate_capped`], or the error of a rating the deadline stopped.
    fn rate(&self, grid: &Grid, solution: &Grid, cap: Tier) -> Result<Option<Rating>> {
        rate_capped_until(grid, solution, cap, &|| self.passed()).map_err(|_| self.reached())
    }

    /// How many solutions `grid` has besides value `v` at `c` (0 or 1), or the error of a
    /// search the deadline stopped (the call may run until it, not longer).
    fn others(&self, solver: &mut Solver, grid: &Grid, c: usize, v: u8) -> Result<usize> {
        self.check()?;
        let left = self
            .at
            .map(|at| at.saturating_duration_since(Instant::now()));
        // A zero limit means none to the solver: the check above has just passed.
        solver.set_time_limit(left.map(|d| d.max(Duration::from_millis(1))));
        let o = solver.count_excluding(grid, 1, Some((c, v)));
        if o.aborted {
            return Err(self.reached());
        }
        Ok(o.count)
    }
}

/// The error of a puzzle that took longer than its time limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLimitReached(pub Duration);

impl std::fmt::Display for TimeLimitReached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "gave up after the time limit of {} s (--time-limit)",
            crate::param::show(self.0.as_secs_f64())
        )
    }
}

impl std::error::Error for TimeLimitReached {}

/// The random stream of puzzle `index` of a run with `seed`.
pub fn puzzle_rng(seed: u64, index: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(splitmix(splitmix(seed) ^ index))
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// d is written with 4 decimals (on each line and in the header command), so it may have no more.
fn check_decimals(d: f64) -> Result<()> {
    ensure!(
        round4(d) == d,
        "--d {d} has more than 4 decimals (d is recorded as d=0.xxxx)"
    );
    Ok(())
}

fn round4(d: f64) -> f64 {
    (d * 1e4).round() / 1e4
}

/// Number of cells to blank for blank fraction `d` on `cells` cells, kept inside the tier's
/// band when one is given (so the puzzle's own blank fraction lies in the band too).
pub fn blanks_for(d: f64, cells: usize, tier: Option<Tier>) -> usize {
    let k = (d * cells as f64).round() as usize;
    let Some(t) = tier else { return k.min(cells) };
    let frac = |k: usize| k as f64 / cells as f64;
    let inside: Vec<usize> = (0..=cells).filter(|&k| t.band_contains(frac(k))).collect();
    match (inside.first(), inside.last()) {
        (Some(&lo), Some(&hi)) => k.clamp(lo, hi),
        _ => k,
    }
}

/// The paper model: one puzzle. Plain: k = round(d·n²) cells of a random complete grid,
/// chosen uniformly, are blanked. Unique variant: the cells are visited in random order and a
/// cell is blanked only if the puzzle keeps a unique solution, until k are blank (a new grid
/// is drawn if the visit ends first, up to [`max_grids`]).
pub fn paper_puzzle<R: Rng + ?Sized>(spec: &Spec, rng: &mut R) -> Result<Generated> {
    paper_puzzle_until(spec, Deadline::NONE, rng)
}

/// [`paper_puzzle`] within `deadline`.
pub fn paper_puzzle_until<R: Rng + ?Sized>(
    spec: &Spec,
    deadline: Deadline,
    rng: &mut R,
) -> Result<Generated> {
    let d = match spec.d {
        Some(d) => d,
        None => {
            let t = spec.tier.expect("validated");
            let (lo, hi, _) = t.d_band();
            loop {
                let d = round4(rng.random_range(lo..hi));
                if t.band_contains(d) {
                    break d;
                }
            }
        }
    };
    let cells = Geometry::get(spec.b).cells;
    let k = blanks_for(d, cells, spec.tier);
    let mut solver = Solver::new(Config::default());
    let mut reached = Vec::new();
    for _ in 0..max_grids(spec.b) {
        deadline.check()?;
        let solution = random_complete(spec.b, rng);
        let mut order: Vec<usize> = (0..cells).collect();
        order.shuffle(rng);
        let mut grid = solution.clone();
        let mut blanks = 0;
        for &c in &order {
            if blanks == k {
                break;
            }
            let v = grid.get(c);
            grid.set(c, 0);
            if spec.unique && deadline.others(&mut solver, &grid, c, v)? != 0 {
                grid.set(c, v);
            } else {
                blanks += 1;
            }
        }
        if blanks == k {
            return Ok(Generated {
                grid,
                solution,
                extra: format!("d={d:.4}"),
            });
        }
        reached.push(blanks);
    }
    reached.sort_unstable();
    let n = spec.b * spec.b;
    let typical = reached[reached.len() / 2];
    bail!(
        "gave up after {} complete grids: none kept a unique solution with {k} of its {cells} cells blank (d={d:.4}); \
         blanking reached {}..={} cells, typically {typical}: a unique {n}x{n} puzzle needs more clues. \
         Try --d {:.2} or lower, or drop --unique",
        reached.len(),
        reached[0],
        reached[reached.len() - 1],
        (typical as f64 / cells as f64 - 0.005).max(0.01)
    )
}

/// The rated model: one unique puzzle of tier `tier`.
pub fn rated_puzzle<R: Rng + ?Sized>(b: usize, tier: Tier, rng: &mut R) -> Result<Generated> {
    rated_puzzle_with(b, tier, None, rng)
}

/// The rated model. Without `blanks`: one unique puzzle of tier `tier`, dug as deep as
/// uniqueness and the tier allow. With `blanks` (`--d`): digging stops at that many blank
/// cells, like a magazine puzzle of a given clue count, and the puzzle's tier may be any tier
/// up to `tier` (a new grid is drawn when the digging cannot reach the count). A new grid is
/// drawn when the result does not fit, up to [`max_grids`].
pub fn rated_puzzle_with<R: Rng + ?Sized>(
    b: usize,
    tier: Tier,
    blanks: Option<usize>,
    rng: &mut R,
) -> Result<Generated> {
    rated_puzzle_until(b, tier, blanks, Deadline::NONE, rng)
}

/// [`rated_puzzle_with`] within `deadline`.
pub fn rated_puzzle_until<R: Rng + ?Sized>(
    b: usize,
    tier: Tier,
    blanks: Option<usize>,
    deadline: Deadline,
    rng: &mut R,
) -> Result<Generated> {
    // What the grids gave: puzzles per tier, and the most blanks dug.
    let mut tiers = [0usize; 4];
    let mut most_blanks = 0;
    for _ in 0..max_grids(b) {
        deadline.check()?;
        let solution = random_complete(b, rng);
        let grid = dig_until(&solution, tier, blanks, deadline, rng)?;
        let rating = deadline
            .rate(&grid, &solution, Tier::Evil)?
            .expect("an evil cap never stops the rater");
        let dug = grid.cells().iter().filter(|&&v| v == 0).count();
        tiers[rating.tier as usize] += 1;
        most_blanks = most_blanks.max(dug);
        let fits = match blanks {
            None => rating.tier == tier,
            Some(k) => rating.tier <= tier && dug == k,
        };
        if fits {
            let extra = format!(
                "tier={} score={} hardest={}",
                rating.tier,
                rating.score,
                rating.hardest.map(Technique::name).unwrap_or("none")
            );
            return Ok(Generated {
                grid,
                solution,
                extra,
            });
        }
    }
    let n = b * b;
    let grids: usize = tiers.iter().sum();
    let seen: Vec<String> = Tier::ALL
        .iter()
        .filter(|t| tiers[**t as usize] > 0)
        .map(|t| format!("{} {t}", tiers[*t as usize]))
        .collect();
    match blanks {
        Some(k) if most_blanks < k => bail!(
            "gave up after {grids} complete grids: digging never reached {k} blank cells (at most {most_blanks}) \
             while keeping the puzzle unique and at or under {tier}. Try --d {:.2} or lower, or a harder --tier",
            (most_blanks as f64 / (n * n) as f64 - 0.005).max(0.01)
        ),
        _ => {
            let common = Tier::ALL
                .iter()
                .copied()
                .max_by_key(|t| tiers[*t as usize])
                .expect("four tiers");
            bail!(
                "gave up after {grids} complete grids: none gave {} {tier} {n}x{n} puzzle (they gave {}); \
                 the techniques of that tier are rarely or never needed at this size. Try --tier {common}",
                crate::report::a_or_an(&tier.to_string()),
                seen.join(", ")
            )
        }
    }
}

/// Removes clues of `solution` in random order while the puzzle stays unique and, below evil,
/// its rating stays at or under `cap`.
pub fn dig<R: Rng + ?Sized>(solution: &Grid, cap: Tier, rng: &mut R) -> Grid {
    dig_to(solution, cap, None, rng)
}

/// Like [`dig`], stopping once `blanks` cells are blank (when given).
pub fn dig_to<R: Rng + ?Sized>(
    solution: &Grid,
    cap: Tier,
    blanks: Option<usize>,
    rng: &mut R,
) -> Grid {
    dig_until(solution, cap, blanks, Deadline::NONE, rng).expect("no deadline")
}

/// [`dig_to`] within `deadline`.
fn dig_until<R: Rng + ?Sized>(
    solution: &Grid,
    cap: Tier,
    blanks: Option<usize>,
    deadline: Deadline,
    rng: &mut R,
) -> Result<Grid> {
    let g = Geometry::get(solution.box_size());
    let mut order: Vec<usize> = (0..g.cells).collect();
    order.shuffle(rng);
    let mut grid = solution.clone();
    let mut solver = Solver::new(Config::default());
    let mut blank = 0;
    for c in order {
        if Some(blank) == blanks {
            break;
        }
        deadline.check()?;
        let v = grid.get(c);
        grid.set(c, 0);
        let unique = deadline.others(&mut solver, &grid, c, v)? == 0;
        let keep = unique && (cap == Tier::Evil || deadline.rate(&grid, solution, cap)?.is_some());
        if keep {
            blank += 1;
        } else {
            grid.set(c, v);
        }
    }
    Ok(grid)
}

#[cfg(test)]
mod tests;

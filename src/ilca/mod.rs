//! ILCA: irregular learning cellular automata (Chatzinikolaou et al., Natural Computing 2024).
//!
//! Every free cell is a learning automaton holding a weight per digit. One time-step, for every
//! cell at once:
//! 1. **choose**: the cell's state is its digit of largest weight (ties: [`TieBreak`]);
//! 2. **degree**: the number of its |N| peers whose state differs (Definition 2);
//!    if every cell has degree |N| the grid is valid and the run stops (solved at this step);
//! 3. **learn** (Algorithm 1): reward when the degree is |N|, or when it is strictly higher than
//!    the degree of every neighbour in the [`Compare`] set; otherwise penalise. The chosen digit's
//!    weight is multiplied by r(d) = 1 + d/|N|·lr or p(d) = max(1 − (1 − d/|N|)·lp, floor) (Eq. 8–9);
//! 4. **reset** (Algorithm 3): every `sr` steps, the free cells of each row, column or box whose
//!    states are not a valid unit ([`ResetCheck`]) get their initial weights back;
//!    **restart** (not in the paper, off by default): every `restart` steps every free cell gets
//!    its initial weights back, whatever its units (takes the place of the selective reset when
//!    both fall on the same step);
//! 5. **resource sharing** (not in the paper, off by default, [`IlcaParams::share`]): in the
//!    `learn` stage a free cell with a conflict first multiplies its weight of every digit by
//!    s = 1/(1 + share) once per peer holding that digit, a digit held by k peers by s^k (the
//!    resource-sharing idea of RFSS: a placement is worth less the more of its units' other cells
//!    claim the same numeral), then is rewarded or penalised as in 3.
//!
//! Weights are unnormalised f32: the probability of digit k is w_k / Σw. The paper renormalises
//! after every update; that leaves every ratio, hence every choice, unchanged, so we rescale only by
//! powers of two (exact) to keep the largest weight within [2^-32, 2^32], and weights below 2^-100
//! become 0, each product at once (before the rescale could revive a subnormal). A cell whose
//! learning leaves every weight 0 (a penalty factor of 0, possible with floor 0 and lp > 1, or
//! every product of a large share flushed) has no probability vector left, so it gets its
//! initial weights back at once (no preset can reach it). The only
//! arithmetic on weights is correctly rounded f32 multiplies by factors made on the host (one per update, plus one per peer under resource
//! sharing, each by the same s, so their order does not matter): there is no addition, division
//! or reduction that a GPU could fuse or reorder, so the WGSL kernel (`shaders/ilca.wgsl`) and the
//! CPU reference ([`cpu`]) agree bit for bit.
//!
//! **Cooperation** (not in the paper, off by default, [`Pull`]): the instances of a portfolio
//! share what they learn. Every `every` steps each instance multiplies, in every free cell, its
//! weight of the digit that the portfolio's best instance holds there by 1 + alpha, then
//! rescales the row: a per-cell reward toward a teacher, one more f32 multiply by a host-made
//! factor (`shaders/ilca_pull.wgsl` ↔ [`cpu::pull`]).

pub mod bench;
pub mod cpu;
pub mod gpu;
pub mod presets;
pub mod run;
pub mod trace;

use crate::param::{check, ParamError};
use crate::puzzle::Grid;
use serde::Serialize;

crate::choice! {
    /// Which neighbours' degrees a conflicted cell must beat to be rewarded (the paper's
    /// "higher than all its neighbors' degrees" admits readings).
    pub enum Compare {
        /// The neighbours that chose the same digit (the cells it conflicts with).
        Sharing = "sharing",
        /// Every free (non-clue) neighbour.
        Free = "free",
        /// Every neighbour, clues included (a clue's degree is |N| unless a neighbour copies it,
        /// so a conflicted cell next to a clue is never rewarded).
        All = "all",
    }
}

crate::choice! {
    /// How the argmax picks among digits of equal largest weight (all digits start equal).
    pub enum TieBreak {
        /// Uniformly at random among the tied digits (counter-based draw).
        Random = "random",
        /// The smallest tied digit.
        First = "first",
        /// The current state if it is among the tied digits, otherwise random.
        Keep = "keep",
    }
}

crate::choice! {
    /// When a row, column or box counts as resolved for the selective reset.
    pub enum ResetCheck {
        /// The unit holds every digit exactly once (the exact form of Eq. 10).
        Permutation = "permutation",
        /// The states sum to n(n+1)/2 (Eq. 10 as printed: 45 for 9x9; lets some invalid units
        /// pass).
        Sum = "sum",
    }
}

crate::choice! {
    /// What is done to a puzzle before ILCA starts (NOT IN THE PAPER when not `off`).
    pub enum Prune {
        /// ILCA gets the puzzle as it is (the paper).
        Off = "off",
        /// Naked and hidden singles are placed first (on the host, before any engine starts),
        /// and ILCA learns only the cells they leave open; a puzzle the singles contradict is
        /// left as it is. The reported grid is checked against the original clues.
        Singles = "singles",
        /// Every cell that logic without guessing fixes is placed first: naked and hidden
        /// singles, locked candidates and naked and hidden subsets, to a fixpoint (the exact
        /// solver's strong propagation), and in the cells left open the digits that logic rules
        /// out start with weight 0; otherwise as `singles`.
        Logic = "logic",
    }
}

impl Prune {
    /// The puzzle ILCA starts from under this choice (see [`Prune`]), as a function of the
    /// puzzle given.
    pub fn on(self) -> impl Fn(&Grid) -> Grid {
        move |puzzle| match self {
            Prune::Off => puzzle.clone(),
            Prune::Singles => {
                crate::exact::place_singles(puzzle).unwrap_or_else(|_| puzzle.clone())
            }
            Prune::Logic => crate::exact::place_by_logic(puzzle).unwrap_or_else(|| puzzle.clone()),
        }
    }

    /// Per cell of `puzzle` (the puzzle ILCA starts from, [`Prune::on`]'s result), the digits
    /// ILCA may start with (bit d for digit d + 1), where they are fewer than those no clue peer
    /// holds: `logic`'s candidates; `None` for the other choices and for a puzzle the logic
    /// contradicts.
    pub fn candidates(self, puzzle: &Grid) -> Option<Vec<u64>> {
        match self {
            Prune::Off | Prune::Singles => None,
            Prune::Logic => crate::exact::logic_candidates(puzzle),
        }
    }
}

/// Every parameter of an ILCA run; the CLI, the CPU engine and the GPU engine share it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct IlcaParams {
    /// Maximum time-steps per run (the paper: 250).
    pub steps: u32,
    /// Reward learning rate lr (Eq. 8); 1 is Algorithm 1.
    pub lr: f64,
    /// Penalty learning rate lp (Eq. 9); 1 is Algorithm 1.
    pub lp: f64,
    /// Selective reset period sr in steps; 0 = off.
    pub sr: u32,
    /// Full restart period in steps (every free cell back to its initial weights); 0 = off.
    /// Not in the paper: part of the improved variant (docs/REPRODUCTION.md).
    pub restart: u32,
    /// Smallest penalty factor: Eq. 9 gives p ≤ 0 for small degrees when lp > 1.
    pub penalty_floor: f64,
    pub compare: Compare,
    pub tie: TieBreak,
    pub reset_check: ResetCheck,
    /// Seed of the counter-based generator (draws depend on seed, puzzle, run, step, cell).
    pub seed: u64,
    /// Preprocessing of the puzzle (not in the paper unless `off`); see [`Prune`].
    pub prune: Prune,
    /// Resource sharing (not in the paper; 0 = off): a free cell with a conflict multiplies its
    /// weight of each digit by 1/(1 + share) per peer holding that digit, before its reward or
    /// penalty (see the module docs, step 5).
    pub share: f64,
}

impl Default for IlcaParams {
    fn default() -> Self {
        IlcaParams {
            steps: 250,
            lr: 1.0,
            lp: 1.0,
            sr: 0,
            restart: 0,
            penalty_floor: 0.001,
            compare: Compare::Sharing,
            tie: TieBreak::Random,
            reset_check: ResetCheck::Permutation,
            seed: 1,
            prune: Prune::Off,
            share: 0.0,
        }
    }
}

/// Largest step limit accepted (a run is bounded work on every backend).
pub const MAX_STEPS: u32 = 1_000_000;

/// Largest learning rate (lr or lp) accepted.
pub const MAX_RATE: f64 = 1000.0;

impl IlcaParams {
    /// Do these parameters make ILCA ignore the seed? Its only random draws break argmax
    /// ties, so with `--tie first` every run of a puzzle is the same run.
    pub fn ignores_seed(&self) -> bool {
        self.tie == TieBreak::First
    }

    /// The runs of each puzzle that `asked` runs give: as asked, or (at most) one when the
    /// parameters ignore the seed, as every further run would repeat the first.
    pub fn runs_per_puzzle(&self, asked: usize) -> usize {
        if self.ignores_seed() {
            asked.min(1)
        } else {
            asked
        }
    }

    /// Checks the parameters, saying what is wrong and what would be right.
    pub fn validate(&self) -> Result<(), ParamError> {
        check((1..=MAX_STEPS).contains(&self.steps), "steps", || {
            format!("must be between 1 and {MAX_STEPS}, got {}", self.steps)
        })?;
        check(
            self.lr.is_finite() && self.lr > 0.0 && self.lr <= MAX_RATE,
            "lr",
            || {
                format!(
                    "must be a number in (0, 1000] (reward factor r = 1 + d/|N|·lr > 1), got {}",
                    crate::param::show(self.lr)
                )
            },
        )?;
        check(
            self.lp.is_finite() && self.lp > 0.0 && self.lp <= MAX_RATE,
            "lp",
            || {
                format!(
                    "must be a number in (0, 1000] (penalty factor p = 1 − (1 − d/|N|)·lp < 1), got {}",
                    crate::param::show(self.lp)
                )
            },
        )?;
        check(
            self.penalty_floor.is_finite() && (0.0..1.0).contains(&self.penalty_floor),
            "penalty_floor",
            || {
                format!(
                    "must be in [0, 1), got {}",
                    crate::param::show(self.penalty_floor)
                )
            },
        )?;
        check(self.sr <= self.steps, "sr", || {
            format!(
                "{} is larger than the step limit {}: the reset would never run (0 turns it off)",
                self.sr, self.steps
            )
        })?;
        check(self.restart <= self.steps, "restart", || {
            format!(
                "{} is larger than the step limit {}: the restart would never run (0 turns it off)",
                self.restart, self.steps
            )
        })?;
        check(
            self.share.is_finite() && (0.0..=MAX_RATE).contains(&self.share),
            "share",
            || {
                format!(
                    "must be a number in [0, 1000] (0 turns resource sharing off), got {}",
                    crate::param::show(self.share)
                )
            },
        )?;
        check(
            self.share == 0.0 || self.share_factor() != Some(1.0),
            "share",
            || {
                format!(
                    "{} is too small to act: its factor 1/(1 + share) rounds to 1 in f32; give \
                     at least 3e-8, or 0 for off",
                    crate::param::show(self.share)
                )
            },
        )
    }

    /// The factor s = 1/(1 + share) of resource sharing, rounded once to f32 on the host (both
    /// engines read it); `None` when sharing is off.
    pub fn share_factor(&self) -> Option<f32> {
        (self.share != 0.0).then(|| (1.0 / (1.0 + self.share)) as f32)
    }

    /// Reward factors r(d) and penalty factors p(d) for d = 0..=|N|, rounded once to f32 on the
    /// host; both engines read these tables, so no engine evaluates Eq. 8–9 itself. A factor
    /// that would be subnormal in f32 becomes 0 (GPUs may flush subnormals).
    pub fn factor_tables(&self, n_peers: usize) -> (Vec<f32>, Vec<f32>) {
        let nn = n_peers as f64;
        let normal = |x: f64| {
            let f = x as f32;
            if f < f32::MIN_POSITIVE {
                0.0
            } else {
                f
            }
        };
        let reward = (0..=n_peers)
            .map(|d| normal(1.0 + d as f64 / nn * self.lr))
            .collect();
        let penalty = (0..=n_peers)
            .map(|d| normal((1.0 - (1.0 - d as f64 / nn) * self.lp).max(self.penalty_floor)))
            .collect();
        (reward, penalty)
    }
}

/// One run to do: setting `setting` of a batch on its puzzle `puzzle`, run number `run`. Its
/// random draws depend on (seed, puzzle, run) only, so an instance gives the same result in any
/// batch that holds it, in any order, on any backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instance {
    pub setting: usize,
    pub puzzle: usize,
    pub run: usize,
}

/// What an engine runs: instances of some settings on some puzzles (all of one size), results in
/// the order of `instances`.
#[derive(Clone, Debug)]
pub struct Batch<'a> {
    pub puzzles: &'a [Grid],
    /// The number the first of `puzzles` has in its file: an instance's puzzle index is into
    /// `puzzles`, its random key uses the file's number (`first_puzzle + puzzle`), so a window
    /// of a big file runs as the whole file would. Results carry the index into `puzzles`.
    pub first_puzzle: usize,
    /// Instances come in consecutive groups of this many, each a portfolio (1: none): an
    /// engine may stop an instance once another of its group has solved in fewer steps, and
    /// then reports it unsolved where it stopped. Only a portfolio's first solution means
    /// anything then (`job::batch::portfolio_record`), and it is the same on every engine.
    pub portfolio: usize,
    /// Cooperation between the instances of each portfolio ([`Pull`]); `None`: they are
    /// independent. With it, a portfolio's instances share one setting and one puzzle and run
    /// in lockstep; the engines stop them all at the portfolio's first solution.
    pub pull: Option<Pull>,
    pub settings: &'a [IlcaParams],
    pub instances: Vec<Instance>,
}

impl<'a> Batch<'a> {
    /// Every setting × puzzle × run, in that nesting.
    pub fn all(puzzles: &'a [Grid], settings: &'a [IlcaParams], runs: usize) -> Batch<'a> {
        let mut instances = Vec::with_capacity(settings.len() * puzzles.len() * runs);
        for setting in 0..settings.len() {
            for puzzle in 0..puzzles.len() {
                instances.extend((0..runs).map(|run| Instance {
                    setting,
                    puzzle,
                    run,
                }));
            }
        }
        Batch {
            puzzles,
            first_puzzle: 0,
            portfolio: 1,
            pull: None,
            settings,
            instances,
        }
    }

    /// `runs` runs of every puzzle with one setting.
    pub fn runs(puzzles: &'a [Grid], params: &'a IlcaParams, runs: usize) -> Batch<'a> {
        Batch::all(puzzles, std::slice::from_ref(params), runs)
    }

    /// Checks the settings and that every instance names a setting and a puzzle of the batch,
    /// with indices that fit the random key's 32-bit counters.
    pub fn validate(&self) -> Result<(), ParamError> {
        for s in self.settings {
            s.validate()?;
        }
        if let Some(pull) = &self.pull {
            pull.validate()?;
            let n = self.portfolio;
            check((2..=MAX_COOPERATING).contains(&n), "portfolio", || {
                format!("cooperation needs portfolios of 2 to {MAX_COOPERATING} instances, got {n}")
            })?;
            check(self.instances.len().is_multiple_of(n), "portfolio", || {
                format!(
                    "{} instances are not whole portfolios of {n}",
                    self.instances.len()
                )
            })?;
            for group in self.instances.chunks(n) {
                let (s, p) = (group[0].setting, group[0].puzzle);
                check(
                    group.iter().all(|i| (i.setting, i.puzzle) == (s, p)),
                    "portfolio",
                    || "a cooperating portfolio's instances share one setting and puzzle".into(),
                )?;
            }
        }
        let limit = u32::MAX as usize;
        for i in &self.instances {
            check(i.setting < self.settings.len(), "setting", || {
                format!(
                    "{} is not one of the batch's {} settings",
                    i.setting,
                    self.settings.len()
                )
            })?;
            check(i.puzzle < self.puzzles.len(), "puzzle", || {
                format!(
                    "{} is not one of the batch's {} puzzles",
                    i.puzzle,
                    self.puzzles.len()
                )
            })?;
            let numbered = self.first_puzzle.saturating_add(i.puzzle);
            check(numbered <= limit && i.run <= limit, "runs", || {
                format!(
                    "instance ({numbered}, {}) does not fit 32-bit counters",
                    i.run
                )
            })?;
        }
        Ok(())
    }

    /// The random key of instance `i` (see [`crate::rng::instance_key`]).
    pub fn key(&self, i: &Instance) -> u32 {
        let puzzle = (self.first_puzzle + i.puzzle) as u32;
        crate::rng::instance_key(self.settings[i.setting].seed, puzzle, i.run as u32)
    }

    /// Results in instance order, grouped per setting (for batches made by [`Batch::all`]).
    pub fn per_setting<T>(&self, results: Vec<T>) -> Vec<Vec<T>> {
        let mut out: Vec<Vec<T>> = (0..self.settings.len()).map(|_| Vec::new()).collect();
        for (i, r) in self.instances.iter().zip(results) {
            out[i.setting].push(r);
        }
        out
    }
}

/// Most instances in a cooperating portfolio: the kernel ranks an instance by (conflicted
/// cells × portfolio + index), which must fit 32 bits for 64x64 (4,096 cells).
pub const MAX_COOPERATING: usize = 1 << 16;

/// Cooperation between the instances of a portfolio (issue #36; not in the paper). Every
/// `every` steps (after the step's learning and reset, unless the step limit was reached or an
/// instance of the portfolio solved), each instance multiplies, in every free cell, its weight
/// of the digit the portfolio's best instance holds there by 1 + `alpha` and rescales the row
/// as learning does. The best is the instance with the fewest conflicted free cells at that
/// step, the lowest-numbered on ties; it is not pulled itself. No search and no propagation:
/// one more reward per cell, toward a teacher. Pulling often spends the diversity independent
/// instances have (docs/BEYOND.md: every 20 steps nothing solves, every 50 helps).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Pull {
    /// Steps between two pulls.
    pub every: u32,
    /// The pull's strength: the teacher's digit is multiplied by 1 + alpha.
    pub alpha: f64,
}

impl Default for Pull {
    /// What worked best in the research probe (docs/BEYOND.md, issue #36).
    fn default() -> Self {
        Pull {
            every: 50,
            alpha: 0.5,
        }
    }
}

impl Pull {
    /// The factor 1 + alpha, rounded once to f32 on the host (both engines read it).
    pub fn factor(&self) -> f32 {
        (1.0 + self.alpha) as f32
    }

    pub fn validate(&self) -> Result<(), ParamError> {
        check(self.every >= 1, "pull_every", || {
            "must be at least 1 step".into()
        })?;
        check(
            self.alpha.is_finite() && self.alpha > 0.0 && self.alpha <= MAX_RATE,
            "pull",
            || {
                format!(
                    "must be a number in (0, 1000] (the teacher's digit is multiplied by \
                     1 + pull), got {}",
                    crate::param::show(self.alpha)
                )
            },
        )?;
        check(self.factor() > 1.0, "pull", || {
            format!(
                "{} is too small to act: 1 + pull rounds to 1 in f32; give at least 6e-8",
                crate::param::show(self.alpha)
            )
        })
    }
}

/// Weight rescaling bounds (see the module docs): keep the largest weight in [2^-32, 2^32].
pub const SCALE_HIGH: f32 = 4_294_967_296.0; // 2^32
pub const SCALE_LOW: f32 = 1.0 / 4_294_967_296.0; // 2^-32
/// Weights below 2^-100 become 0 (never a subnormal, which GPUs may flush).
pub const FLUSH_BELOW: f32 = 7.888_609_e-31; // 2^-100

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_exact_powers_of_two() {
        assert_eq!(SCALE_HIGH, 2f32.powi(32));
        assert_eq!(SCALE_LOW, 2f32.powi(-32));
        assert_eq!(FLUSH_BELOW, 2f32.powi(-100));
    }

    #[test]
    fn factor_tables_follow_eq_8_and_9() {
        let p = IlcaParams {
            lr: 0.5,
            lp: 3.5,
            ..Default::default()
        };
        let (r, pen) = p.factor_tables(20);
        assert_eq!(r.len(), 21);
        assert_eq!(r[20], 1.5);
        assert_eq!(r[10], 1.25);
        assert_eq!(pen[20], 1.0);
        assert_eq!(pen[18], (1.0f64 - 0.1 * 3.5) as f32);
        assert_eq!(pen[0], 0.001f32); // 1 - 3.5 < 0 → floor
    }

    #[test]
    fn the_share_factor_is_rounded_once_and_absent_when_off() {
        assert_eq!(IlcaParams::default().share_factor(), None);
        let p = IlcaParams {
            share: 0.05,
            ..Default::default()
        };
        assert_eq!(p.share_factor(), Some((1.0f64 / 1.05) as f32));
        let p = IlcaParams {
            share: 1.0,
            ..Default::default()
        };
        assert_eq!(p.share_factor(), Some(0.5));
    }

    #[test]
    fn bad_parameters_are_refused_with_reasons() {
        let bad = |f: fn(&mut IlcaParams)| {
            let mut p = IlcaParams::default();
            f(&mut p);
            p.validate().unwrap_err().to_string()
        };
        assert!(bad(|p| p.lp = -1.0).starts_with("lp: must be a number in (0, 1000]"));
        assert!(bad(|p| p.lr = f64::NAN).starts_with("lr: "));
        assert!(bad(|p| p.steps = 0).starts_with("steps: "));
        assert!(bad(|p| p.sr = 300).contains("sr: 300 is larger than the step limit 250"));
        assert!(bad(|p| p.penalty_floor = 1.0).starts_with("penalty_floor: "));
        assert!(bad(|p| p.restart = 251).contains("restart: 251 is larger than the step limit 250"));
        assert!(bad(|p| p.share = -0.1).starts_with("share: must be a number in [0, 1000]"));
        assert!(bad(|p| p.share = f64::INFINITY).starts_with("share: "));
        assert!(bad(|p| p.share = 1000.5).starts_with("share: "));
        assert!(bad(|p| p.share = 1e-8).contains("too small to act"));
        // Numbers far from 1 are shown in exponent form, not as thirty digits.
        assert!(bad(|p| p.share = 1e30).ends_with("got 1e30"));
        assert!(bad(|p| p.lr = 1e30).ends_with("got 1e30"));
        assert!(bad(|p| p.share = 1e-300).starts_with("share: 1e-300 is too small"));
        assert!(bad(|p| p.share = 1001.0).ends_with("got 1001"));
        // The smallest share that acts is the one the message names.
        assert!(bad(|p| p.share = 2.9e-8).contains("give at least 3e-8"));
        let acts = IlcaParams {
            share: 3e-8,
            ..Default::default()
        };
        assert!(acts.validate().is_ok() && acts.share_factor() < Some(1.0));
        assert!(IlcaParams::default().validate().is_ok());
    }
}

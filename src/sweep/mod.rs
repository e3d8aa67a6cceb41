//! Parameter sweeps of ILCA: one or two parameters over ranges, every setting of every puzzle
//! file run as one batch (settings are a batch dimension of the engines), resolution rates per
//! file, overall and per difficulty bin, as CSV rows and the ILCA paper's figures.
//!
//! **Step limits cost nothing.** A run's dynamics do not depend on its step limit except where
//! it stops (the engines skip only the learning of the last allowed step, which cannot change
//! anything before it), so a run with the largest limit S tells for every s ≤ S whether the
//! instance is solved within s steps: solved at step k ≤ s. A `--steps` sweep therefore runs
//! each setting once, with the largest limit.
//!
//! **Random draws.** Instance (p, r) draws from `rng::instance_key(seed, p, r)`, p being the
//! puzzle's index in the concatenation of the given files of its size, in the order given (the
//! engines' batch indexing); the draws do not depend on the setting, so settings are compared
//! on common random numbers.

mod csv;
pub mod figures;
mod parse;
mod plan;
mod run;

pub use csv::{csv_text, parse_csv, CSV_HEADER};
pub use parse::{parse_baseline, parse_values, MAX_RANGE_VALUES};
pub use plan::Plan;
pub use run::{check_d_bin, check_file, d_bin, difficulty, Input, Sweep};

use crate::ilca::{Compare, IlcaParams, Prune, ResetCheck, TieBreak};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A parameter a sweep can vary.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Param {
    /// lp/lr, with lp (or lr) fixed.
    Ratio,
    Lr,
    Lp,
    Sr,
    Steps,
}

impl Param {
    pub const ALL: [Param; 5] = [Param::Ratio, Param::Lr, Param::Lp, Param::Sr, Param::Steps];

    /// The CSV column and command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Param::Ratio => "ratio",
            Param::Lr => "lr",
            Param::Lp => "lp",
            Param::Sr => "sr",
            Param::Steps => "steps",
        }
    }

    pub fn from_name(s: &str) -> Option<Param> {
        Param::ALL.into_iter().find(|p| p.name() == s)
    }

    /// Axis title in figures.
    pub fn axis_label(self) -> &'static str {
        match self {
            Param::Ratio => "learning rates ratio lp/lr",
            Param::Lr => "reward learning rate lr",
            Param::Lp => "penalty learning rate lp (learning speed)",
            Param::Sr => "selective reset period sr (time-steps)",
            Param::Steps => "maximum time-steps",
        }
    }

    /// Whether `v` is a value this parameter can take (the engine's own bounds, checked for
    /// every value of a range as for a single one); the reason where it is not.
    pub fn check(self, v: f64) -> Result<(), String> {
        let max = crate::ilca::MAX_STEPS as f64;
        let whole = v.fract() == 0.0;
        match self {
            Param::Ratio if v > 0.0 && v.is_finite() => Ok(()),
            Param::Ratio => Err("lp/lr must be positive".into()),
            Param::Lr | Param::Lp if v > 0.0 && v <= crate::ilca::MAX_RATE => Ok(()),
            Param::Lr | Param::Lp => Err(format!(
                "{} must be in (0, {}]",
                self.name(),
                crate::ilca::MAX_RATE
            )),
            Param::Sr if whole && (0.0..=max).contains(&v) => Ok(()),
            Param::Sr => Err(format!("sr is a whole number of steps from 0 to {max}")),
            Param::Steps if whole && (1.0..=max).contains(&v) => Ok(()),
            Param::Steps => Err(format!("steps is a whole number from 1 to {max}")),
        }
    }

    /// Short symbol for titles.
    pub fn symbol(self) -> &'static str {
        match self {
            Param::Ratio => "lp/lr",
            Param::Lr => "lr",
            Param::Lp => "lp",
            Param::Sr => "sr",
            Param::Steps => "max steps",
        }
    }

    /// Takes whole numbers only (step counts).
    pub fn integer(self) -> bool {
        matches!(self, Param::Sr | Param::Steps)
    }
}

/// What a sweep is given for one parameter: one value, or the values to sweep.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    One(f64),
    Range(Vec<f64>),
}

/// Most settings (grid points) one sweep may have.
pub const MAX_POINTS: usize = 1_000_000;

/// One setting of a sweep (a grid point).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Point {
    pub lr: f64,
    pub lp: f64,
    /// lp/lr: the given value when `--ratio` is used, otherwise lp/lr to 10 digits.
    pub ratio: f64,
    pub sr: u32,
    pub steps: u32,
}

impl Point {
    pub fn get(&self, p: Param) -> f64 {
        match p {
            Param::Ratio => self.ratio,
            Param::Lr => self.lr,
            Param::Lp => self.lp,
            Param::Sr => self.sr as f64,
            Param::Steps => self.steps as f64,
        }
    }
}

/// Whether a row belongs to the sweep or to the reference setting of `--baseline`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Sweep,
    Baseline,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Sweep => "sweep",
            Role::Baseline => "baseline",
        }
    }
}

/// One engine setting: the parameters it runs with (the largest step limit of its points) and
/// the points it answers.
#[derive(Clone, Debug)]
pub struct RunSetting {
    pub role: Role,
    pub params: IlcaParams,
    pub points: Vec<Point>,
}

/// Everything a sweep is given: the parameters it is given values for, and the reference setting.
#[derive(Clone, Debug, Default)]
pub struct SweepSpec {
    /// Per parameter, one value or a range; parameters left out keep the base setting's value.
    pub values: BTreeMap<Param, Values>,
    /// The reference setting's overrides, e.g. `[(Lr, 1.0), (Lp, 1.0), (Sr, 0.0)]`.
    pub baseline: Option<Vec<(Param, f64)>>,
}

impl SweepSpec {
    fn get(&self, p: Param) -> Option<&Values> {
        self.values.get(&p)
    }
}

/// Which rows a CSV line summarises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    /// One puzzle file (tier).
    File,
    /// All files together (the paper's "overall").
    All,
    /// The puzzles whose d lies in [d_lo, d_hi), all files together.
    D,
}

impl Group {
    pub fn name(self) -> &'static str {
        match self {
            Group::File => "file",
            Group::All => "all",
            Group::D => "d",
        }
    }
}

/// The engine's parameters a sweep does not vary: the same in every row of one sweep, written in
/// each CSV row (after the results) so that a row says everything that ran.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Fixed {
    pub restart: u32,
    pub penalty_floor: f64,
    pub compare: Compare,
    pub tie: TieBreak,
    pub reset_check: ResetCheck,
    pub prune: Prune,
    pub share: f64,
    pub seed: u64,
}

impl Fixed {
    /// The CSV columns, in [`Fixed::csv_fields`]' order (the JSON names of the parameters).
    pub const COLUMNS: &'static str =
        "restart,penalty_floor,compare,tie,reset_check,prune,share,seed";

    /// The parameters of `p` that no sweep varies.
    pub fn of(p: &IlcaParams) -> Fixed {
        Fixed {
            restart: p.restart,
            penalty_floor: p.penalty_floor,
            compare: p.compare,
            tie: p.tie,
            reset_check: p.reset_check,
            prune: p.prune,
            share: p.share,
            seed: p.seed,
        }
    }

    /// The engine setting of `point` with these fixed parameters.
    pub fn params(&self, point: &Point) -> IlcaParams {
        IlcaParams {
            steps: point.steps,
            lr: point.lr,
            lp: point.lp,
            sr: point.sr,
            restart: self.restart,
            penalty_floor: self.penalty_floor,
            compare: self.compare,
            tie: self.tie,
            reset_check: self.reset_check,
            seed: self.seed,
            prune: self.prune,
            share: self.share,
        }
    }

    /// `(name, value)` of each parameter, as the CSV writes it.
    pub fn csv_fields(&self) -> [(&'static str, String); 8] {
        [
            ("restart", self.restart.to_string()),
            ("penalty_floor", self.penalty_floor.to_string()),
            ("compare", self.compare.to_string()),
            ("tie", self.tie.to_string()),
            ("reset_check", self.reset_check.to_string()),
            ("prune", self.prune.to_string()),
            ("share", self.share.to_string()),
            ("seed", self.seed.to_string()),
        ]
    }
}

/// One CSV row: a setting's results over a group of puzzles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Row {
    /// The swept parameters, `+`-joined (`ratio+sr`).
    pub swept: String,
    pub role: Role,
    pub point: Point,
    pub group: Group,
    /// File label, `all`, or the d bin (`0.40-0.45`).
    pub label: String,
    pub d_lo: Option<f64>,
    pub d_hi: Option<f64>,
    pub puzzles: usize,
    pub instances: usize,
    pub solved: usize,
    /// Mean step at which the solved instances were solved; `None` when none was.
    pub mean_steps_solved: Option<f64>,
    /// The parameters the sweep held fixed; `None` in a CSV written before they were recorded.
    pub fixed: Option<Fixed>,
}

impl Row {
    pub fn solved_pct(&self) -> f64 {
        if self.instances == 0 {
            f64::NAN
        } else {
            100.0 * self.solved as f64 / self.instances as f64
        }
    }
}

#[cfg(test)]
mod tests;

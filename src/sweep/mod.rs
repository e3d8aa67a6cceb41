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

pub mod figures;

use crate::backend::Device;
use crate::ilca::{Batch, IlcaParams};
use crate::puzzle::{Grid, Puzzle};
use crate::report::InstanceResult;
use anyhow::{bail, ensure, Context, Result};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A parameter a sweep can vary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

    fn integer(self) -> bool {
        matches!(self, Param::Sr | Param::Steps)
    }
}

/// A parameter on the command line: one value, or the values of a range `A:B:STEP`.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    Value(f64),
    Range(Vec<f64>),
}

/// Most values one range may have.
pub const MAX_RANGE_VALUES: usize = 10_000;
/// Most settings (grid points) one sweep may have.
pub const MAX_POINTS: usize = 1_000_000;

fn decimals(s: &str) -> Option<usize> {
    if s.contains(['e', 'E']) {
        return None;
    }
    Some(s.split_once('.').map_or(0, |(_, f)| f.len()))
}

/// Parses `--<param> TEXT`: a number, or `A:B:STEP` (A ≤ B, STEP > 0; B is included when it is
/// on the grid). Values are rounded to the decimals written, so `0.1:0.5:0.1` gives 0.3, not
/// 0.30000000000000004. `sr` and `steps` take whole numbers.
pub fn parse_spec(param: Param, text: &str) -> Result<Spec> {
    let flag = format!("--{}", param.name());
    let t = text.trim();
    let num = |s: &str, what: &str| -> Result<f64> {
        let v: f64 = s.trim().parse().map_err(|_| {
            anyhow::anyhow!(
                "{flag} {t}: the {what} `{s}` is not a number (write a value like 3.5 or a range A:B:STEP like 10:150:5)"
            )
        })?;
        ensure!(
            v.is_finite(),
            "{flag} {t}: the {what} must be a finite number"
        );
        Ok(v)
    };
    let whole = |v: f64| -> Result<()> {
        if param.integer() {
            ensure!(
                v.fract() == 0.0 && v >= 0.0,
                "{flag} {t}: {} is not a whole number of steps",
                crate::plot::fmt_num(v)
            );
        }
        Ok(())
    };
    if !t.contains(':') {
        let v = num(t, "value")?;
        whole(v)?;
        return Ok(Spec::Value(v));
    }
    let parts: Vec<&str> = t.split(':').collect();
    ensure!(
        parts.len() == 3,
        "{flag} {t}: a range is A:B:STEP (start, end, step), e.g. 10:150:5; got {} fields",
        parts.len()
    );
    let (a, b, step) = (
        num(parts[0], "start A")?,
        num(parts[1], "end B")?,
        num(parts[2], "step")?,
    );
    ensure!(
        step > 0.0,
        "{flag} {t}: the step must be positive (got {})",
        parts[2].trim()
    );
    ensure!(
        b >= a,
        "{flag} {t}: the end {} is below the start {} (write A:B:STEP with A ≤ B)",
        parts[1].trim(),
        parts[0].trim()
    );
    let count = ((b - a) / step + 1e-9).floor() + 1.0;
    ensure!(
        count <= MAX_RANGE_VALUES as f64,
        "{flag} {t}: {count} values; at most {MAX_RANGE_VALUES} per range (use a larger step)"
    );
    let dec = match (decimals(parts[0].trim()), decimals(parts[2].trim())) {
        (Some(x), Some(y)) => Some(x.max(y)),
        _ => None,
    };
    let mut values = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let mut v = a + i as f64 * step;
        if let Some(d) = dec {
            v = format!("{v:.d$}")
                .parse()
                .expect("a formatted number parses");
        }
        whole(v)?;
        values.push(v);
    }
    Ok(Spec::Range(values))
}

/// Rounds to 10 significant digits (for ratios computed as lp/lr).
fn round_sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.9e}").parse().unwrap_or(x)
}

/// One setting of a sweep (a grid point).
#[derive(Clone, Copy, Debug, PartialEq)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// Everything the command line says about a sweep.
#[derive(Clone, Debug, Default)]
pub struct SweepSpec {
    pub ratio: Option<Spec>,
    pub lr: Option<Spec>,
    pub lp: Option<Spec>,
    pub sr: Option<Spec>,
    pub steps: Option<Spec>,
    /// `--baseline` overrides, e.g. `[(Lr, 1.0), (Lp, 1.0), (Sr, 0.0)]`.
    pub baseline: Option<Vec<(Param, f64)>>,
}

impl SweepSpec {
    fn spec(&self, p: Param) -> Option<&Spec> {
        match p {
            Param::Ratio => self.ratio.as_ref(),
            Param::Lr => self.lr.as_ref(),
            Param::Lp => self.lp.as_ref(),
            Param::Sr => self.sr.as_ref(),
            Param::Steps => self.steps.as_ref(),
        }
    }
}

/// Parses `--baseline lr=1,lp=1,sr=0`.
pub fn parse_baseline(text: &str) -> Result<Vec<(Param, f64)>> {
    let mut v = Vec::new();
    for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((k, val)) = part.split_once('=') else {
            bail!("--baseline {text}: `{part}` is not KEY=VALUE (e.g. --baseline lr=1,lp=1,sr=0)");
        };
        let p = Param::from_name(k.trim())
            .filter(|p| *p != Param::Steps)
            .with_context(|| {
                format!(
                    "--baseline {text}: unknown key `{}` (use lr, lp, ratio, sr)",
                    k.trim()
                )
            })?;
        let Spec::Value(x) = parse_spec(p, val)? else {
            bail!(
                "--baseline {text}: {} takes one value, not a range",
                p.name()
            );
        };
        ensure!(
            !v.iter().any(|(q, _)| *q == p),
            "--baseline {text}: {} is given twice",
            p.name()
        );
        v.push((p, x));
    }
    ensure!(
        !v.is_empty(),
        "--baseline needs KEY=VALUE pairs, e.g. lr=1,lp=1,sr=0"
    );
    Ok(v)
}

/// The settings of a sweep.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The swept parameters with their values (one or two), in the order ratio, lr, lp, sr, steps.
    pub axes: Vec<(Param, Vec<f64>)>,
    /// The grid, the first axis outermost.
    pub points: Vec<Point>,
    /// The engine settings: sweep settings first, then the baseline's (if any).
    pub runs: Vec<RunSetting>,
}

impl Plan {
    /// Resolves the command line into settings. `base` gives every parameter not in `spec`
    /// (its lr, lp, sr, steps are the defaults of those). With `--ratio`, lp/lr is fixed by
    /// fixing lp (given or `base.lp`) and setting lr = lp/ratio; with `--lr` given instead,
    /// lp = lr·ratio. Every engine setting is validated.
    pub fn new(spec: &SweepSpec, base: &IlcaParams) -> Result<Plan> {
        let mut axes = Vec::new();
        for p in Param::ALL {
            if let Some(Spec::Range(v)) = spec.spec(p) {
                axes.push((p, v.clone()));
            }
        }
        ensure!(
            !axes.is_empty(),
            "nothing to sweep: give a range A:B:STEP to one or two of --ratio, --lr, --lp, --sr, --steps (e.g. --sr 10:150:5)"
        );
        ensure!(
            axes.len() <= 2,
            "{} ranges given ({}); a sweep varies one parameter or a pair",
            axes.len(),
            axes.iter()
                .map(|(p, _)| format!("--{}", p.name()))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if spec.ratio.is_some() {
            ensure!(
                !(spec.lr.is_some() && spec.lp.is_some()),
                "--ratio sets lp/lr: give --lp (lr = lp/ratio) or --lr (lp = lr·ratio), not both"
            );
        }
        let total: usize = axes.iter().map(|(_, v)| v.len()).product();
        ensure!(
            total <= MAX_POINTS,
            "{total} settings; at most {MAX_POINTS} per sweep (use larger steps)"
        );
        let fixed = |p: Param, default: f64| match spec.spec(p) {
            Some(Spec::Value(v)) => Some(*v),
            Some(Spec::Range(_)) => None,
            None => Some(default),
        };
        let mut points = Vec::with_capacity(total);
        for i in 0..total {
            let mut vals: HashMap<Param, f64> = HashMap::new();
            let mut rem = i;
            for (p, v) in axes.iter().rev() {
                vals.insert(*p, v[rem % v.len()]);
                rem /= v.len();
            }
            let get = |p: Param, default: f64| {
                vals.get(&p)
                    .copied()
                    .or(fixed(p, default))
                    .expect("swept or fixed")
            };
            let steps = get(Param::Steps, base.steps as f64) as u32;
            let sr = get(Param::Sr, base.sr as f64) as u32;
            let (lr, lp, ratio) = if spec.ratio.is_some() {
                let ratio = get(Param::Ratio, 1.0);
                ensure!(ratio > 0.0, "--ratio must be positive (lp/lr), got {ratio}");
                if spec.lr.is_some() {
                    let lr = get(Param::Lr, base.lr);
                    (lr, lr * ratio, ratio)
                } else {
                    let lp = get(Param::Lp, base.lp);
                    (lp / ratio, lp, ratio)
                }
            } else {
                let (lr, lp) = (get(Param::Lr, base.lr), get(Param::Lp, base.lp));
                (lr, lp, round_sig(lp / lr))
            };
            points.push(Point {
                lr,
                lp,
                ratio,
                sr,
                steps,
            });
        }
        let mut runs = group_runs(Role::Sweep, &points, base)?;
        if let Some(over) = &spec.baseline {
            let mut bpoints = Vec::new();
            let steps_values: Vec<u32> = match spec.spec(Param::Steps) {
                Some(Spec::Range(v)) => v.iter().map(|&s| s as u32).collect(),
                Some(Spec::Value(s)) => vec![*s as u32],
                None => vec![base.steps],
            };
            let given = |p: Param| over.iter().find(|(q, _)| *q == p).map(|&(_, v)| v);
            for (p, _) in &axes {
                let covered = match p {
                    Param::Steps => true,
                    Param::Ratio | Param::Lr | Param::Lp => {
                        given(Param::Ratio).is_some()
                            || (given(Param::Lr).is_some() && given(Param::Lp).is_some())
                            || given(*p).is_some()
                    }
                    Param::Sr => given(Param::Sr).is_some(),
                };
                ensure!(
                    covered,
                    "--baseline must set {} because --{} is swept (e.g. --baseline lr=1,lp=1,sr=0)",
                    p.name(),
                    p.name()
                );
            }
            let fix = |p: Param, d: f64| given(p).or(fixed(p, d));
            let sr = fix(Param::Sr, base.sr as f64).expect("checked above") as u32;
            // The ratio: the baseline's own, else the sweep's fixed one (a swept ratio must
            // be replaced, checked above), unless the baseline sets both rates.
            let ratio = given(Param::Ratio).or(match &spec.ratio {
                Some(Spec::Value(r)) => Some(*r),
                _ => None,
            });
            let both = given(Param::Lr).is_some() && given(Param::Lp).is_some();
            let (lr, lp, ratio) = match ratio {
                Some(r) if !both => match given(Param::Lr) {
                    Some(lr) => (lr, lr * r, r),
                    None => {
                        let lp = fix(Param::Lp, base.lp).context("--baseline must set lp")?;
                        (lp / r, lp, r)
                    }
                },
                _ => {
                    let lr = fix(Param::Lr, base.lr).context("--baseline must set lr")?;
                    let lp = fix(Param::Lp, base.lp).context("--baseline must set lp")?;
                    (lr, lp, round_sig(lp / lr))
                }
            };
            for steps in steps_values {
                bpoints.push(Point {
                    lr,
                    lp,
                    ratio,
                    sr,
                    steps,
                });
            }
            runs.extend(group_runs(Role::Baseline, &bpoints, base).context("in --baseline")?);
        }
        Ok(Plan { axes, points, runs })
    }

    pub fn swept(&self) -> String {
        self.axes
            .iter()
            .map(|(p, _)| p.name())
            .collect::<Vec<_>>()
            .join("+")
    }
}

/// Groups points that differ only in their step limit into one engine setting.
fn group_runs(role: Role, points: &[Point], base: &IlcaParams) -> Result<Vec<RunSetting>> {
    let mut order: Vec<(u64, u64, u32)> = Vec::new();
    let mut groups: HashMap<(u64, u64, u32), Vec<Point>> = HashMap::new();
    for p in points {
        let k = (p.lr.to_bits(), p.lp.to_bits(), p.sr);
        if !groups.contains_key(&k) {
            order.push(k);
        }
        groups.entry(k).or_default().push(*p);
    }
    let mut runs = Vec::with_capacity(order.len());
    for k in order {
        let pts = groups.remove(&k).expect("grouped above");
        let first = pts[0];
        let steps = pts.iter().map(|p| p.steps).max().expect("non-empty");
        let params = IlcaParams {
            steps,
            lr: first.lr,
            lp: first.lp,
            sr: first.sr,
            ..base.clone()
        };
        params.validate().with_context(|| {
            format!(
                "setting lr = {}, lp = {}, lp/lr = {}, sr = {}, steps = {steps}",
                first.lr, first.lp, first.ratio, first.sr
            )
        })?;
        runs.push(RunSetting {
            role,
            params,
            points: pts,
        });
    }
    Ok(runs)
}

/// One puzzle file of a sweep.
#[derive(Clone, Debug)]
pub struct Input {
    /// Row label: the file name without directory and extension ("evil").
    pub label: String,
    pub puzzles: Vec<Grid>,
    /// Difficulty d of each puzzle (see [`difficulty`]).
    pub d: Vec<f64>,
}

/// A puzzle's difficulty variable d: the `d=` field of its extra text (what `gpu-sudoku
/// generate` records), else the fraction of blank cells (the same quantity for generated
/// puzzles). The flag says whether the fallback was used.
pub fn difficulty(p: &Puzzle) -> (f64, bool) {
    for tok in p.extra.split_whitespace() {
        if let Some(v) = tok.strip_prefix("d=").and_then(|v| v.parse::<f64>().ok()) {
            if v.is_finite() {
                return (v, false);
            }
        }
    }
    (p.grid.blank_fraction(), true)
}

impl Input {
    pub fn new(label: impl Into<String>, puzzles: &[Puzzle]) -> Input {
        Input {
            label: label.into(),
            puzzles: puzzles.iter().map(|p| p.grid.clone()).collect(),
            d: puzzles.iter().map(|p| difficulty(p).0).collect(),
        }
    }
}

/// Which rows a CSV line summarises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// One CSV row: a setting's results over a group of puzzles.
#[derive(Clone, Debug, PartialEq)]
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

/// The CSV header (the column order of [`Row::csv_line`]).
pub const CSV_HEADER: &str = "swept,role,lr,lp,ratio,sr,steps,group,label,d_lo,d_hi,puzzles,instances,solved,solved_pct,mean_steps_solved";

impl Row {
    /// The row as a CSV line (floats in shortest round-trip form, so they read back exactly).
    pub fn csv_line(&self) -> String {
        let opt = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.2},{}",
            self.swept,
            self.role.name(),
            self.point.lr,
            self.point.lp,
            self.point.ratio,
            self.point.sr,
            self.point.steps,
            self.group.name(),
            self.label,
            opt(self.d_lo),
            opt(self.d_hi),
            self.puzzles,
            self.instances,
            self.solved,
            self.solved_pct(),
            self.mean_steps_solved
                .map(|m| format!("{m:.2}"))
                .unwrap_or_default()
        )
    }
}

/// Reads rows written by a sweep (`name` is used in errors).
pub fn parse_csv(name: &str, text: &str) -> Result<Vec<Row>> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        bail!("{name}: empty file (expected the sweep CSV header `{CSV_HEADER}`)");
    };
    ensure!(
        header.trim() == CSV_HEADER,
        "{name}:1: not a sweep CSV: the header must be `{CSV_HEADER}`"
    );
    let mut rows = Vec::new();
    for (ln, line) in lines {
        let ln = ln + 1;
        let f: Vec<&str> = line.split(',').collect();
        ensure!(
            f.len() == 16,
            "{name}:{ln}: {} fields, expected 16 (a partly written last line? delete it)",
            f.len()
        );
        let fl = |i: usize| -> Result<f64> {
            f[i].parse::<f64>().map_err(|_| {
                anyhow::anyhow!("{name}:{ln}: column {} is not a number: `{}`", i + 1, f[i])
            })
        };
        let int = |i: usize| -> Result<usize> {
            f[i].parse::<usize>().map_err(|_| {
                anyhow::anyhow!(
                    "{name}:{ln}: column {} is not a whole number: `{}`",
                    i + 1,
                    f[i]
                )
            })
        };
        let opt = |i: usize| -> Result<Option<f64>> {
            if f[i].is_empty() {
                Ok(None)
            } else {
                fl(i).map(Some)
            }
        };
        let role = match f[1] {
            "sweep" => Role::Sweep,
            "baseline" => Role::Baseline,
            x => bail!("{name}:{ln}: role `{x}` is neither sweep nor baseline"),
        };
        let group = match f[7] {
            "file" => Group::File,
            "all" => Group::All,
            "d" => Group::D,
            x => bail!("{name}:{ln}: group `{x}` is not file, all or d"),
        };
        for s in f[0].split('+') {
            ensure!(
                Param::from_name(s).is_some(),
                "{name}:{ln}: swept parameter `{s}` is not one of ratio, lr, lp, sr, steps"
            );
        }
        let row = Row {
            swept: f[0].to_string(),
            role,
            point: Point {
                lr: fl(2)?,
                lp: fl(3)?,
                ratio: fl(4)?,
                sr: int(5)? as u32,
                steps: int(6)? as u32,
            },
            group,
            label: f[8].to_string(),
            d_lo: opt(9)?,
            d_hi: opt(10)?,
            puzzles: int(11)?,
            instances: int(12)?,
            solved: int(13)?,
            mean_steps_solved: opt(15)?,
        };
        ensure!(
            row.solved <= row.instances,
            "{name}:{ln}: {} solved of {} instances",
            row.solved,
            row.instances
        );
        rows.push(row);
    }
    Ok(rows)
}

/// The d bin of a difficulty: (index, lo, hi) for bins of width `w`.
pub fn d_bin(d: f64, w: f64) -> (i64, f64, f64) {
    let i = (d / w + 1e-9).floor() as i64;
    let r = |x: f64| format!("{x:.6}").parse::<f64>().expect("formatted");
    (i, r(i as f64 * w), r((i + 1) as f64 * w))
}

/// A running sweep: the inputs and options shared by its blocks.
pub struct Sweep<'a> {
    pub plan: &'a Plan,
    pub inputs: &'a [Input],
    pub runs: usize,
    /// Width of the difficulty bins of the `d` rows.
    pub d_bin: f64,
}

impl Sweep<'_> {
    /// Instances one engine setting runs (all files).
    pub fn instances_per_setting(&self) -> usize {
        self.inputs.iter().map(|i| i.puzzles.len()).sum::<usize>() * self.runs
    }

    /// Runs the given engine settings (usually a block of `plan.runs`): one engine call per
    /// puzzle size, all these settings batched together. Returns their rows, in order.
    pub fn run_block(
        &self,
        device: &Device,
        settings: &[RunSetting],
        progress: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<Row>> {
        ensure!(self.runs >= 1, "--runs must be at least 1");
        for inp in self.inputs {
            ensure!(!inp.puzzles.is_empty(), "{}: no puzzles", inp.label);
            ensure!(
                inp.d.len() == inp.puzzles.len(),
                "{}: one d per puzzle needed",
                inp.label
            );
        }
        ensure!(
            self.d_bin > 0.0 && self.d_bin <= 1.0,
            "--d-bin must be in (0, 1], got {}",
            self.d_bin
        );
        // Files grouped by puzzle size (first appearance order); puzzle indices run over the
        // group's concatenation.
        let mut sizes: Vec<usize> = Vec::new();
        for inp in self.inputs {
            if let Some(p) = inp.puzzles.first() {
                if !sizes.contains(&p.box_size()) {
                    sizes.push(p.box_size());
                }
            }
        }
        let params: Vec<IlcaParams> = settings.iter().map(|s| s.params.clone()).collect();
        // results[file][setting] = that file's instances, puzzle-major.
        let mut results: Vec<Vec<Vec<InstanceResult>>> = vec![Vec::new(); self.inputs.len()];
        // offset[file] = index of the file's first puzzle in its size group.
        let mut offset = vec![0usize; self.inputs.len()];
        for b in sizes {
            let members: Vec<usize> = (0..self.inputs.len())
                .filter(|&i| self.inputs[i].puzzles.first().map(|p| p.box_size()) == Some(b))
                .collect();
            let mut start = 0;
            for &i in &members {
                offset[i] = start;
                start += self.inputs[i].puzzles.len();
            }
            let puzzles: Vec<Grid> = members
                .iter()
                .flat_map(|&i| self.inputs[i].puzzles.iter().cloned())
                .collect();
            let batch = Batch::all(&puzzles, &params, self.runs);
            let out = batch.per_setting(crate::ilca::run::run(device, &batch, progress)?);
            for per_setting in out {
                let mut it = per_setting.into_iter();
                for &i in &members {
                    let k = self.inputs[i].puzzles.len() * self.runs;
                    results[i].push(it.by_ref().take(k).collect());
                }
            }
        }
        let mut rows = Vec::new();
        for (s, set) in settings.iter().enumerate() {
            for pt in &set.points {
                rows.extend(self.rows_for(set.role, pt, &offset, |f| &results[f][s]));
            }
        }
        Ok(rows)
    }

    /// Rows of one point from its setting's results (`res(file)`).
    fn rows_for<'r>(
        &self,
        role: Role,
        pt: &Point,
        offset: &[usize],
        res: impl Fn(usize) -> &'r Vec<InstanceResult>,
    ) -> Vec<Row> {
        #[derive(Default)]
        struct Acc {
            puzzles: usize,
            instances: usize,
            solved: usize,
            steps: u64,
        }
        let add = |a: &mut Acc, r: &InstanceResult| {
            a.instances += 1;
            if r.solved && r.steps <= pt.steps {
                a.solved += 1;
                a.steps += r.steps as u64;
            }
        };
        let swept = self.plan.swept();
        let row = |group, label: String, lo, hi, a: &Acc| Row {
            swept: swept.clone(),
            role,
            point: *pt,
            group,
            label,
            d_lo: lo,
            d_hi: hi,
            puzzles: a.puzzles,
            instances: a.instances,
            solved: a.solved,
            mean_steps_solved: (a.solved > 0).then(|| a.steps as f64 / a.solved as f64),
        };
        let mut rows = Vec::new();
        let mut all = Acc::default();
        let mut bins: BTreeMap<i64, (f64, f64, Acc)> = BTreeMap::new();
        for (f, inp) in self.inputs.iter().enumerate() {
            let mut acc = Acc {
                puzzles: inp.puzzles.len(),
                ..Acc::default()
            };
            all.puzzles += inp.puzzles.len();
            for r in res(f) {
                add(&mut acc, r);
                add(&mut all, r);
                let (i, lo, hi) = d_bin(inp.d[r.puzzle - offset[f]], self.d_bin);
                let e = bins.entry(i).or_insert((lo, hi, Acc::default()));
                add(&mut e.2, r);
                if r.run == 0 {
                    e.2.puzzles += 1;
                }
            }
            rows.push(row(Group::File, inp.label.clone(), None, None, &acc));
        }
        if self.inputs.len() > 1 {
            rows.push(row(Group::All, "all".into(), None, None, &all));
        }
        for (lo, hi, acc) in bins.values() {
            rows.push(row(
                Group::D,
                format!("{lo:.2}-{hi:.2}"),
                Some(*lo),
                Some(*hi),
                acc,
            ));
        }
        rows
    }
}

/// Resuming: the engine settings whose rows are all in `done` (rows of an earlier, interrupted
/// run of the same sweep). Errors when those rows do not match this sweep's files and runs.
pub fn completed(sweep: &Sweep, done: &[Row]) -> Result<HashSet<usize>> {
    let key = |role: Role, p: &Point| (role, p.lr.to_bits(), p.lp.to_bits(), p.sr, p.steps);
    let mut have: HashMap<_, Vec<&Row>> = HashMap::new();
    for r in done.iter().filter(|r| r.group == Group::File) {
        have.entry(key(r.role, &r.point)).or_default().push(r);
    }
    let swept = sweep.plan.swept();
    if let Some(r) = done.first() {
        ensure!(
            r.swept == swept,
            "the CSV holds a sweep of {} but this one sweeps {swept}: use another --csv",
            r.swept
        );
    }
    let mut out = HashSet::new();
    for (i, set) in sweep.plan.runs.iter().enumerate() {
        let all_there = set.points.iter().all(|p| {
            have.get(&key(set.role, p)).is_some_and(|rows| {
                sweep
                    .inputs
                    .iter()
                    .all(|inp| rows.iter().any(|r| r.label == inp.label))
            })
        });
        if !all_there {
            continue;
        }
        for p in &set.points {
            for r in &have[&key(set.role, p)] {
                let inp = sweep.inputs.iter().find(|i| i.label == r.label);
                let want = inp.map(|i| (i.puzzles.len(), i.puzzles.len() * sweep.runs));
                ensure!(
                    want == Some((r.puzzles, r.instances)),
                    "the CSV's rows for {} ({} puzzles, {} instances) do not match this sweep's files and --runs: use another --csv or drop --resume",
                    r.label,
                    r.puzzles,
                    r.instances
                );
            }
        }
        out.insert(i);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

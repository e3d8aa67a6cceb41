//! The registry of `compare`'s entries: which names `--algos` takes, what each runs with, and
//! how one attempt of each runs.
//!
//! A new baseline is registered here: [`crate::baselines::by_name`] builds it (and
//! [`crate::baselines::setting_of`] names its setting, [`crate::baselines::ignores_seed`] says
//! whether its runs repeat), [`parse`] takes its name as a [`Entry::Baseline`], and
//! [`run_attempts`] runs it with the run's budget and seed. ILCA (`ilca`, `ilca-PRESET`) and
//! RFSS (`rfss`, `rfss-ENHANCEMENT`) entries carry their own parameters.

use crate::backend::Device;
use crate::baselines::{self, Budget};
use crate::choice::Choice;
use crate::ilca::presets::{self, Preset};
use crate::ilca::{self, Batch, IlcaParams, Instance, Prune, Pull};
use crate::puzzle::Grid;
use crate::report::InstanceResult;
use crate::rfss::{self, Enhancement, RfssParams};
use anyhow::{bail, Result};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// One entry of `--algos`: a baseline by name, or an ILCA or RFSS setting under its name.
#[derive(Clone, Debug)]
pub enum Entry {
    Baseline(String),
    /// ILCA: name, parameters, the instances an attempt is made of (1; N for a portfolio,
    /// `ilca:N` or `ilca-PRESET:N`, solved at its first instance's solution, as `batch
    /// --portfolio N`), and their cooperation (`ilca:N:pull`: [`Pull`]'s default, as `batch
    /// --pull`).
    Ilca(String, IlcaParams, usize, Option<Pull>),
    Rfss(String, RfssParams),
}

impl Entry {
    /// The entry's name, as `--algos` gives it and the reports write it.
    pub fn name(&self) -> &str {
        match self {
            Entry::Baseline(n) | Entry::Ilca(n, ..) | Entry::Rfss(n, _) => n,
        }
    }

    /// The parameters of an ILCA or RFSS entry, as the reports write them (a baseline has
    /// none of its own: it runs with the run's budget and seed).
    pub fn params_json(&self) -> Option<serde_json::Result<serde_json::Value>> {
        match self {
            Entry::Baseline(_) => None,
            Entry::Ilca(_, p, portfolio, pull) => Some(serde_json::to_value(p).map(|mut v| {
                if *portfolio > 1 {
                    v["portfolio"] = (*portfolio).into();
                }
                if let Some(pull) = pull {
                    v["pull"] = serde_json::to_value(pull).expect("a pull serialises");
                }
                v
            })),
            Entry::Rfss(_, p) => Some(serde_json::to_value(p)),
        }
    }
}

/// What a run's options give its entries: the limits and seed, the `ilca` entry's preset, and
/// what reaches every ILCA entry (pruning, sharing) and every enhanced RFSS entry (the stall).
#[derive(Clone, Debug)]
pub struct Options {
    /// Seed of every stochastic entry.
    pub seed: u64,
    /// Wall-clock budget per attempt of a baseline in milliseconds (0: none).
    pub budget_ms: u64,
    /// Iteration limit per attempt; replaces the step limit of every ILCA entry and the
    /// generation limit of RFSS when given.
    pub max_iterations: Option<u64>,
    /// The setting of the `ilca` entry (Algorithm 1 without).
    pub preset: Option<&'static Preset>,
    pub prune: Option<Prune>,
    pub share: Option<f64>,
    pub stall_generations: Option<u32>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            seed: super::DEFAULT_SEED,
            budget_ms: super::DEFAULT_BUDGET_MS,
            max_iterations: None,
            preset: None,
            prune: None,
            share: None,
            stall_generations: None,
        }
    }
}

/// The entries `list` (comma-separated names) names, with `options` folded into their
/// parameters; refused: no limit at all, an unknown or repeated name, two names of one
/// setting, an option no entry takes, and a setting the limits make invalid.
pub fn entries(list: &str, options: &Options) -> Result<Vec<Entry>> {
    check_limits(options.budget_ms, options.max_iterations)?;
    let ilca_steps = limit(options.max_iterations, "ILCA steps")?;
    let base = options
        .preset
        .map_or_else(IlcaParams::default, Preset::params);
    let ilca = IlcaParams {
        seed: options.seed,
        prune: options.prune.unwrap_or(base.prune),
        share: options.share.unwrap_or(base.share),
        ..base
    };
    let rfss = RfssParams {
        max_generations: limit(options.max_iterations, "RFSS generations")?
            .unwrap_or(RfssParams::default().max_generations),
        ..RfssParams::default()
    };
    let mut entries = parse(list, &ilca, (options.prune, options.share), &rfss)?;
    refuse_unused_options(&entries, options)?;
    for entry in &mut entries {
        apply_limits(entry, ilca_steps, options.stall_generations)?;
    }
    refuse_one_setting_twice(&entries)?;
    Ok(entries)
}

/// Local search may never end: a run needs a time budget or an iteration limit.
pub fn check_limits(budget_ms: u64, max_iterations: Option<u64>) -> Result<()> {
    if budget_ms == 0 && max_iterations.is_none() {
        bail!("give a time budget (--time-limit) or --max-iterations: local search may never end");
    }
    Ok(())
}

/// `--max-iterations` as the step or generation limit of `what` (at most `u32::MAX`).
fn limit(max_iterations: Option<u64>, what: &str) -> Result<Option<u32>> {
    max_iterations
        .map(|m| {
            u32::try_from(m).map_err(|_| {
                anyhow::anyhow!(
                    "--max-iterations {m} is too large for {what} (at most {})",
                    u32::MAX
                )
            })
        })
        .transpose()
}

/// The entries `s` names: `ilca` with `ilca`'s parameters, `ilca-PRESET` with the preset's
/// (pruning and sharing as given, else the preset's), `rfss` and `rfss-ENHANCEMENT` with
/// `rfss`'s, any other name a baseline (checked now, before any work).
pub fn parse(
    s: &str,
    ilca: &IlcaParams,
    (prune, share): (Option<Prune>, Option<f64>),
    rfss: &RfssParams,
) -> Result<Vec<Entry>> {
    let mut out = Vec::new();
    for name in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        // `ilca…:N`: attempts that are portfolios of N instances; `ilca…:N:pull`: cooperating.
        let (name_n, pull) = match name.strip_suffix(":pull") {
            Some(rest) if rest.starts_with("ilca") => (rest, Some(Pull::default())),
            _ => (name, None),
        };
        let (base, portfolio) = match name_n.split_once(':') {
            Some((base, n)) if base.starts_with("ilca") => {
                let n: usize = n
                    .parse()
                    .ok()
                    .filter(|n| (2..=1_048_576).contains(n))
                    .ok_or_else(|| {
                        anyhow::anyhow!(
                            "--algos: `{name}`: a portfolio is ilca:N or ilca-PRESET:N with N \
                             from 2 to 1048576 (cooperating: ilca:N:pull, N up to {})",
                            crate::ilca::MAX_COOPERATING
                        )
                    })?;
                if pull.is_some() && n > crate::ilca::MAX_COOPERATING {
                    bail!(
                        "--algos: `{name}`: cooperating portfolios hold at most {} instances",
                        crate::ilca::MAX_COOPERATING
                    );
                }
                (base, n)
            }
            _ if pull.is_some() => bail!(
                "--algos: `{name}`: cooperation is between the instances of a portfolio: \
                 ilca:N:pull or ilca-PRESET:N:pull"
            ),
            _ => (name, 1),
        };
        let entry = if base == "ilca" {
            Entry::Ilca(name.into(), ilca.clone(), portfolio, pull)
        } else if let Some(p) = base.strip_prefix("ilca-") {
            let Some(preset) = presets::by_name(p) else {
                bail!(
                    "--algos: no ILCA preset `{p}`; presets: {}",
                    presets::PRESETS
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            };
            let params = preset.params();
            let params = IlcaParams {
                seed: ilca.seed,
                prune: prune.unwrap_or(params.prune),
                share: share.unwrap_or(params.share),
                ..params
            };
            Entry::Ilca(name.into(), params, portfolio, pull)
        } else if name == "rfss" {
            Entry::Rfss(name.into(), rfss.clone())
        } else if let Some(e) = name.strip_prefix("rfss-") {
            let Some(enhancement) = Enhancement::from_name(e).filter(|e| *e != Enhancement::Off)
            else {
                bail!(
                    "--algos: `{name}`: RFSS variants are rfss-propagate, rfss-mrv, rfss-logic \
                     and rfss-lookahead"
                );
            };
            Entry::Rfss(
                name.into(),
                RfssParams {
                    enhancement,
                    ..rfss.clone()
                },
            )
        } else {
            // Validates the name (and GA combination) now, before any work.
            if name != "astar-weighted" {
                if let Err(e) = baselines::by_name(name, &[]) {
                    bail!(
                        "--algos: {e}; and ilca, ilca-PRESET, rfss, rfss-propagate, rfss-mrv, \
                         rfss-logic, rfss-lookahead"
                    );
                }
            }
            Entry::Baseline(name.into())
        };
        if out.iter().any(|a: &Entry| a.name() == entry.name()) {
            bail!("--algos names `{name}` twice");
        }
        out.push(entry);
    }
    if out.is_empty() {
        bail!("--algos is empty; give a comma-separated list such as backtrack,mrv,ilca");
    }
    Ok(out)
}

/// An option no entry takes would be dropped without a word: refused, naming what takes it.
fn refuse_unused_options(entries: &[Entry], options: &Options) -> Result<()> {
    if options.stall_generations.is_some()
        && !entries
            .iter()
            .any(|x| matches!(x, Entry::Rfss(_, p) if p.enhancement != Enhancement::Off))
    {
        bail!(
            "--stall-generations applies to the enhanced RFSS entries only (rfss-propagate, \
             rfss-mrv, rfss-logic, rfss-lookahead), and --algos has none: add one or leave the \
             option out"
        );
    }
    let has_ilca = entries.iter().any(|x| matches!(x, Entry::Ilca(..)));
    for (flag, given) in [
        ("--share", options.share.is_some()),
        ("--prune", options.prune.is_some()),
    ] {
        if given && !has_ilca {
            bail!(
                "{flag} applies to the ILCA entries only (ilca, ilca-PRESET), and --algos has \
                 none: add one or leave the option out"
            );
        }
    }
    let is_ilca = |x: &Entry| x.name() == "ilca" || x.name().starts_with("ilca:");
    if options.preset.is_some() && !entries.iter().any(is_ilca) {
        bail!(
            "--preset sets the `ilca` entry, and --algos has none (a preset of its own runs as \
             the entry ilca-PRESET): add `ilca` to --algos or leave the option out"
        );
    }
    Ok(())
}

/// The step limit `--max-iterations` gives every ILCA entry, the stall every enhanced RFSS
/// entry; each setting then validated.
fn apply_limits(entry: &mut Entry, ilca_steps: Option<u32>, stall: Option<u32>) -> Result<()> {
    match entry {
        Entry::Ilca(name, p, portfolio, _) => {
            p.steps = ilca_steps.unwrap_or(p.steps);
            if *portfolio > 1 && p.ignores_seed() {
                bail!(
                    "--algos {name}: --tie first ignores the seed, so every instance of a \
                     portfolio would be the same run"
                );
            }
            // compare has no --sr or --restart: name the entry and the budget that fits.
            for (what, v) in [("selective reset", p.sr), ("restart", p.restart)] {
                if v > p.steps {
                    bail!(
                        "--algos {name}: its {what} period, {v} steps, is longer than \
                         --max-iterations {}; give --max-iterations {v} or more, or leave the \
                         entry out",
                        p.steps
                    );
                }
            }
            // The step limit came from --max-iterations: name that, not batch's --steps.
            p.validate().map_err(|e| match ilca_steps {
                Some(_) if e.param == "steps" => anyhow::anyhow!(
                    "--max-iterations: {} (it is the step limit of --algos {name})",
                    e.problem
                ),
                _ => e.into(),
            })?;
        }
        Entry::Rfss(_, p) => {
            // Only the enhanced entries take decisions, so only they take the stall.
            if p.enhancement != Enhancement::Off {
                p.stall_generations = stall.unwrap_or(p.stall_generations);
            }
            p.validate()?
        }
        Entry::Baseline(_) => {}
    }
    Ok(())
}

/// Two names of one setting (`ilca` and `ilca-alg1`, two presets that differ only in the
/// step limit `--max-iterations` replaces, or `acs` and `acs-q0-0.9`) would run it twice as two
/// rows: refused.
pub fn refuse_one_setting_twice(entries: &[Entry]) -> Result<()> {
    let setting = |a: &Entry| match a {
        Entry::Baseline(name) => baselines::setting_of(name)
            .ok()
            .map(|s| serde_json::json!({ "baseline": s })),
        Entry::Ilca(..) => a.params_json()?.ok(),
        Entry::Rfss(_, p) => serde_json::to_value(p)
            .ok()
            .map(|v| serde_json::json!({ "rfss": v })),
    };
    for (i, later) in entries.iter().enumerate() {
        let Some(v) = setting(later) else { continue };
        if let Some(same) = entries[..i]
            .iter()
            .find(|a| setting(a).as_ref() == Some(&v))
        {
            bail!(
                "--algos: `{}` and `{}` are one setting here; name it once",
                same.name(),
                later.name()
            );
        }
    }
    Ok(())
}

/// Does the `compare` entry `algo` ignore the seed (RFSS and the searches), so that every run
/// of a puzzle repeats its first, timed again?
pub fn ignores_seed(algo: &str) -> bool {
    algo == "rfss" || algo.starts_with("rfss-") || baselines::ignores_seed(algo)
}

/// How one attempt went: solved or not, its iterations, its wall time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tried {
    pub solved: bool,
    pub iterations: u64,
    pub elapsed: Duration,
}

/// Attempts `items` of `entry` on `grids` (item i: puzzle i / runs, run i % runs), each timed
/// alone, `tick` called as each finishes; with what an iteration is (nodes, trials,
/// generations, steps). A baseline runs on the CPU with `seed` (mixed per puzzle and run) and
/// `budget`; ILCA and RFSS entries with their own parameters, on `device`.
#[allow(clippy::too_many_arguments)]
pub fn run_attempts(
    entry: &Entry,
    device: &Device,
    grids: &[Grid],
    runs: usize,
    items: std::ops::Range<usize>,
    seed: u64,
    budget: &Budget,
    tick: &(dyn Fn() + Sync),
) -> Result<(String, Vec<Tried>)> {
    Ok(match entry {
        Entry::Baseline(name) => {
            let b = baselines::by_name(name, grids)?;
            let r = baselines::run_attempts(b.as_ref(), grids, runs, items, seed, budget, tick)
                .into_iter()
                .map(|x| Tried {
                    solved: x.solved,
                    iterations: x.iterations,
                    elapsed: x.elapsed,
                })
                .collect();
            (b.unit().to_string(), r)
        }
        // Each attempt runs alone through the runner, so that it is timed alone; a portfolio's
        // instances (runs run·N … run·N + N − 1) run together, as in `batch`.
        Entry::Ilca(_, params, n, pull) => {
            // The warm-up's step limit: the shortest the setting takes (its reset periods
            // included), so that it runs every kernel the attempts do.
            let warm_up = IlcaParams {
                steps: params.sr.max(params.restart).max(1),
                ..params.clone()
            };
            let attempt = |i: usize, warm: bool| {
                let params = if warm { &warm_up } else { params };
                let batch = Batch {
                    puzzles: grids,
                    first_puzzle: 0,
                    portfolio: *n,
                    pull: *pull,
                    settings: std::slice::from_ref(params),
                    instances: (0..*n)
                        .map(|j| Instance {
                            setting: 0,
                            puzzle: i / runs,
                            run: i % runs * n + j,
                        })
                        .collect(),
                };
                let instances = ilca::run::run(device, &batch, &|_| {})?;
                Ok(crate::job::batch::portfolio_record(
                    &instances,
                    params.steps,
                ))
            };
            ("steps".into(), each_attempt(device, items, tick, attempt)?)
        }
        // RFSS is deterministic: every run of a puzzle is the same run, timed again.
        Entry::Rfss(_, params) => {
            let warm_up = RfssParams {
                max_generations: 1,
                ..params.clone()
            };
            let attempt = |i: usize, warm: bool| {
                let (p, params) = (i / runs, if warm { &warm_up } else { params });
                let grid = std::slice::from_ref(&grids[p]);
                let o = rfss::run::run(device, grid, params, &|_| {})?.remove(0);
                Ok(o.to_instance_result(p))
            };
            (
                "generations".into(),
                each_attempt(device, items, tick, attempt)?,
            )
        }
    })
}

/// Runs `attempt(item, false)` on every item, each timed alone, `tick` after each: on the CPU
/// one attempt per core at a time; on a GPU one at a time, each alone on the device, after
/// `attempt(first item, true)` (a short untimed warm-up) has compiled the kernels and made the
/// buffers the attempts reuse, so the first attempt's time is not a process's start-up.
fn each_attempt(
    device: &Device,
    items: std::ops::Range<usize>,
    tick: &(dyn Fn() + Sync),
    attempt: impl Fn(usize, bool) -> Result<InstanceResult> + Sync,
) -> Result<Vec<Tried>> {
    let timed = |i| {
        let t = Instant::now();
        let res = attempt(i, false)?;
        let tried = Tried {
            solved: res.solved,
            iterations: res.steps as u64,
            elapsed: t.elapsed(),
        };
        tick();
        Ok(tried)
    };
    match device {
        Device::Cpu => items.into_par_iter().map(timed).collect(),
        Device::Gpu(_) => {
            if !items.is_empty() {
                attempt(items.start, true)?;
            }
            items.map(timed).collect()
        }
    }
}

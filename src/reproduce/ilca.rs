//! `reproduce ilca`: the paper's Tables 2–6 under one or every reading of what the text leaves
//! open, on the four tiers; per table and tier the paper's rate, the measured rate with its
//! Wilson 95% interval, and TTS99.

use super::{interval, opt};
use crate::backend::{Device, Progress};
use crate::choice::Choice;
use crate::ilca::presets::{Preset, PRESETS};
use crate::ilca::{run, Batch, Compare, IlcaParams, ResetCheck, TieBreak};
use crate::puzzle::Grid;
use crate::report::batch::{FileResults, Summary};
use anyhow::Result;
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Instant;

/// One reading of the open choices (docs/REPRODUCTION.md §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Reading {
    pub compare: Compare,
    pub tie: TieBreak,
    pub reset_check: ResetCheck,
}

impl Default for Reading {
    /// The documented default reading: `IlcaParams::default()`'s.
    fn default() -> Reading {
        let d = IlcaParams::default();
        Reading {
            compare: d.compare,
            tie: d.tie,
            reset_check: d.reset_check,
        }
    }
}

impl std::fmt::Display for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, {}", self.compare, self.tie)?;
        if self.reset_check != ResetCheck::Permutation {
            write!(f, ", {} check", self.reset_check)?;
        }
        Ok(())
    }
}

impl Reading {
    /// Every compare rule × tie rule, and, for settings with a selective reset, the sum check
    /// with random ties (the rows of docs/REPRODUCTION.md §3).
    pub fn all(with_reset: bool) -> Vec<Reading> {
        let mut v = Vec::new();
        for &compare in Compare::ALL {
            for &tie in TieBreak::ALL {
                v.push(Reading {
                    compare,
                    tie,
                    reset_check: ResetCheck::Permutation,
                });
            }
        }
        if with_reset {
            for &compare in Compare::ALL {
                v.push(Reading {
                    compare,
                    tie: TieBreak::Random,
                    reset_check: ResetCheck::Sum,
                });
            }
        }
        v
    }

    pub fn apply(&self, p: IlcaParams) -> IlcaParams {
        IlcaParams {
            compare: self.compare,
            tie: self.tie,
            reset_check: self.reset_check,
            ..p
        }
    }
}

/// The paper presets (Tables 2–6), in table order.
pub fn paper_presets() -> Vec<&'static Preset> {
    PRESETS.iter().filter(|p| p.paper.is_some()).collect()
}

/// One tier (or the overall row) of one setting: the paper's rate and what was measured.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct TierRow {
    pub tier: String,
    /// The paper's rate (%), where it reports one.
    pub paper: Option<f64>,
    pub measured: Summary,
}

/// One setting (table × reading) on every tier.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SettingRows {
    /// "Table 2" etc.
    pub table: &'static str,
    pub preset: &'static str,
    pub reading: Reading,
    pub params: IlcaParams,
    /// Runs per puzzle of this setting: the run's count, or 1 for a reading that ignores the
    /// seed (tie first).
    pub runs: usize,
    pub tiers: Vec<TierRow>,
    pub overall: TierRow,
}

/// Everything `reproduce ilca` measured.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct IlcaReproduction {
    pub runs: usize,
    pub settings: Vec<SettingRows>,
}

/// Runs every `presets` × `readings` setting on every tier (`tiers`: name and puzzles, in the
/// order easy, medium, hard, evil) with `runs` runs per puzzle.
pub fn reproduce_ilca(
    device: &Device,
    tiers: &[(String, Vec<Grid>)],
    presets: &[&'static Preset],
    readings: &dyn Fn(&Preset) -> Vec<Reading>,
    runs: usize,
    seed: u64,
    progress: Progress,
) -> Result<IlcaReproduction> {
    let mut settings = Vec::new();
    for preset in presets {
        let paper = preset.paper.expect("a paper preset");
        for reading in readings(preset) {
            let params = IlcaParams {
                seed,
                ..reading.apply(preset.params())
            };
            // A reading that ignores the seed (tie first) runs each puzzle once: further runs
            // would repeat it, and count as independent tries in the intervals.
            let runs_here = params.runs_per_puzzle(runs);
            let mut files = Vec::new();
            for (name, puzzles) in tiers {
                let t0 = Instant::now();
                let batch = Batch::runs(puzzles, &params, runs_here);
                let results = run::run(device, &batch, progress)?;
                files.push(FileResults {
                    ignores_seed: params.ignores_seed(),
                    ..FileResults::held(
                        name.clone(),
                        name.clone(),
                        puzzles.first().map_or(0, Grid::side),
                        (0..puzzles.len()).collect(),
                        results,
                        t0.elapsed(),
                        Default::default(),
                        Default::default(),
                    )
                });
            }
            let tier_rows = files
                .iter()
                .map(|f| TierRow {
                    tier: f.label.clone(),
                    paper: paper.tier(&f.label),
                    measured: f.summary(),
                })
                .collect();
            settings.push(SettingRows {
                table: paper.table,
                preset: preset.name,
                reading,
                params,
                runs: runs_here,
                tiers: tier_rows,
                overall: TierRow {
                    tier: "overall".into(),
                    paper: Some(paper.overall),
                    measured: Summary::overall(&files),
                },
            });
        }
    }
    Ok(IlcaReproduction { runs, settings })
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{v}%"))
}

fn tts(s: &Summary) -> String {
    match (s.tts99, s.timing.tts99_s) {
        (Some(t), Some(sec)) => format!("{:.0} ({})", t.steps, fmt_seconds(sec)),
        (Some(t), None) => format!("{:.0}", t.steps),
        _ => "–".into(),
    }
}

fn fmt_seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

impl IlcaReproduction {
    /// Rows of one setting as (label, paper, measured) for both renderings.
    fn rows(s: &SettingRows) -> impl Iterator<Item = &TierRow> {
        s.tiers.iter().chain(std::iter::once(&s.overall))
    }

    /// The table for a terminal: per setting, per tier, paper vs measured.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for s in &self.settings {
            let _ = writeln!(
                out,
                "{} (preset {}), reading {}: {} per puzzle, {} steps",
                s.table,
                s.preset,
                s.reading,
                if s.runs == 1 {
                    "1 run".to_string()
                } else {
                    format!("{} runs", s.runs)
                },
                s.params.steps
            );
            let _ = writeln!(
                out,
                "  {:<8} {:>7} {:>9} {:>13} {:>10} {:>26}",
                "tier", "paper", "measured", "95% interval", "mean steps", "TTS99 steps (seconds)"
            );
            for r in Self::rows(s) {
                let m = &r.measured;
                let _ = writeln!(
                    out,
                    "  {:<8} {:>7} {:>8.1}% {:>13} {:>10} {:>26}",
                    r.tier,
                    pct(r.paper),
                    m.solved_pct,
                    interval(m),
                    opt(m.mean_steps, 1),
                    tts(m)
                );
            }
        }
        out
    }

    /// The markdown of docs/REPRODUCTION.md: one table per paper table, a row per reading with
    /// the paper's row first; each cell "measured (interval)".
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let mut last = "";
        for s in &self.settings {
            if s.table != last {
                last = s.table;
                let tiers: Vec<&str> = Self::rows(s).map(|r| r.tier.as_str()).collect();
                let _ = writeln!(
                    out,
                    "\n### {} (`--preset {}`), {} runs per puzzle\n",
                    s.table, s.preset, self.runs
                );
                let _ = writeln!(out, "| reading | {} |", tiers.join(" | "));
                let _ = writeln!(out, "|---|{}", "---|".repeat(tiers.len()));
                let paper: Vec<String> = Self::rows(s).map(|r| pct(r.paper)).collect();
                let _ = writeln!(out, "| **paper** | {} |", paper.join(" | "));
            }
            let cells: Vec<String> = Self::rows(s)
                .map(|r| format!("{:.1}% ({})", r.measured.solved_pct, interval(&r.measured)))
                .collect();
            // A reading run once per puzzle (it ignores the seed) says so beside its name.
            let once = if s.runs != self.runs {
                " (1 run: deterministic)"
            } else {
                ""
            };
            let _ = writeln!(out, "| {}{once} | {} |", s.reading, cells.join(" | "));
        }
        let _ = writeln!(
            out,
            "\nCells: solved % of runs (Wilson 95% interval). TTS99 per tier is in the JSON \
             (`--json`) and the terminal table."
        );
        out
    }
}

//! `reproduce rfss`: Horn's one published run (a 25x25 with 301 clues, solved in 750,000
//! generations) beside plain RFSS on the shipped 25x25 puzzles with 301 clues, and the resolution
//! rates on the 9x9 tiers, plain and with the labelled enhancement `propagate` (docs/RFSS.md).
//!
//! RFSS is deterministic: each puzzle runs once and a rate counts puzzles, not runs.

use super::{interval, md_row, opt};
use crate::backend::{Device, Progress};
use crate::puzzle::{Grid, PuzzleFile};
use crate::report::batch::{FileResults, Summary};
use crate::rfss::{self, Enhancement, RfssOutcome, RfssParams};
use anyhow::{Context, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Instant;

/// What Horn reports of his run (J. Horn, "Solving a Large Sudoku by Co-evolving Numerals",
/// GECCO'17 Companion, §3 and Fig. 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct HornRun {
    /// The puzzle: a 25x25 from puzzle-magazine.com (not available to us).
    pub side: usize,
    pub clues: usize,
    pub blanks: usize,
    /// Species left after the clues ("1703 competing species").
    pub species: usize,
    /// Generations run (Fig. 3: 750,000; "it takes over 700,000 generations" to separate).
    pub generations: u32,
    /// One run on one puzzle, and it solved it.
    pub runs: usize,
    pub solved: usize,
    /// "The upper group numbers 324 species and does indeed form a solution."
    pub upper_group: usize,
}

/// Horn's run, as published.
pub const HORN_2017: HornRun = HornRun {
    side: 25,
    clues: 301,
    blanks: 324,
    species: 1703,
    generations: 750_000,
    runs: 1,
    solved: 1,
    upper_group: 324,
};

/// One puzzle of Horn's size: its clues and what plain RFSS did with it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct HornPuzzle {
    /// 0-based index in its file.
    pub puzzle: usize,
    /// 1-based line in its file.
    pub line: usize,
    pub clues: usize,
    pub blanks: usize,
    #[serde(flatten)]
    pub outcome: RfssOutcome,
}

/// One file of Horn-sized puzzles.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct HornFile {
    pub path: String,
    pub label: String,
    pub puzzles: Vec<HornPuzzle>,
    /// Solved puzzles, their Wilson interval and generations (as `batch --algo rfss`).
    pub summary: Summary,
}

/// Horn's run beside ours.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct HornReproduction {
    pub paper: HornRun,
    pub params: RfssParams,
    pub files: Vec<HornFile>,
    pub overall: Summary,
}

/// One tier of a column: its file and the rate measured.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct TierRow {
    pub tier: String,
    pub path: String,
    pub measured: Summary,
}

/// One puzzle set (paper model or unique) under one setting (plain or enhanced).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct TierColumn {
    /// "paper model" or "unique (rated)".
    pub puzzles: String,
    pub params: RfssParams,
    pub tiers: Vec<TierRow>,
    pub overall: Summary,
}

/// The 9x9 tier rates: every puzzle set, plain and with `--enhance propagate`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct TierRates {
    pub columns: Vec<TierColumn>,
}

/// Everything `reproduce rfss` measured (either part may be left out).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RfssReproduction {
    pub horn: Option<HornReproduction>,
    pub tiers: Option<TierRates>,
}

/// Runs every puzzle of `file` once; the outcomes and the file's shared record.
fn run_file(
    device: &Device,
    file: &PuzzleFile,
    params: &RfssParams,
    progress: Progress,
) -> Result<(Vec<RfssOutcome>, FileResults)> {
    let grids: Vec<Grid> = file.puzzles.iter().map(|p| p.grid.clone()).collect();
    let t0 = Instant::now();
    let outcomes = rfss::run::run(device, &grids, params, progress)
        .with_context(|| format!("running {}", file.path))?;
    let wall = t0.elapsed();
    let (results, details) = rfss::run::records(&outcomes, 0)?;
    let record = FileResults {
        ignores_seed: true,
        ..FileResults::held(
            file.path.clone(),
            file.label(),
            file.b * file.b,
            file.puzzles.iter().map(|p| p.line).collect(),
            results,
            wall,
            details,
            FileResults::solutions_in(&file.puzzles),
        )
    };
    Ok((outcomes, record))
}

/// Plain RFSS (the paper's algorithm) on every puzzle of `files` for `max_generations`
/// (Horn's 750,000 reproduces his run).
pub fn reproduce_horn(
    device: &Device,
    files: &[PuzzleFile],
    max_generations: u32,
    progress: Progress,
) -> Result<HornReproduction> {
    let params = RfssParams {
        max_generations,
        ..RfssParams::default()
    };
    let mut records = Vec::new();
    let mut out = Vec::new();
    for file in files {
        let (outcomes, record) = run_file(device, file, &params, progress)?;
        let puzzles = file
            .puzzles
            .iter()
            .zip(outcomes)
            .enumerate()
            .map(|(i, (p, outcome))| {
                let clues = p.grid.cells().iter().filter(|&&v| v != 0).count();
                HornPuzzle {
                    puzzle: i,
                    line: p.line,
                    clues,
                    blanks: p.grid.cells().len() - clues,
                    outcome,
                }
            })
            .collect();
        out.push(HornFile {
            path: file.path.clone(),
            label: record.label.clone(),
            puzzles,
            summary: record.summary(),
        });
        records.push(record);
    }
    Ok(HornReproduction {
        paper: HORN_2017,
        params,
        files: out,
        overall: Summary::overall(&records),
    })
}

/// Every puzzle set of `sets` (a name and its tier files, in tier order), plain and with
/// `--enhance propagate`, for `max_generations` per puzzle.
pub fn reproduce_tiers(
    device: &Device,
    sets: &[(String, Vec<PuzzleFile>)],
    max_generations: u32,
    progress: Progress,
) -> Result<TierRates> {
    let mut columns = Vec::new();
    for (name, files) in sets {
        for enhancement in [Enhancement::Off, Enhancement::Propagate] {
            let params = RfssParams {
                max_generations,
                enhancement,
                ..RfssParams::default()
            };
            let mut records = Vec::new();
            for file in files {
                records.push(run_file(device, file, &params, progress)?.1);
            }
            columns.push(TierColumn {
                puzzles: name.clone(),
                tiers: records
                    .iter()
                    .map(|r| TierRow {
                        tier: r.label.clone(),
                        path: r.path.clone(),
                        measured: r.summary(),
                    })
                    .collect(),
                overall: Summary::overall(&records),
                params,
            });
        }
    }
    Ok(TierRates { columns })
}

/// "3/5 solved (17.0–92.7%)".
fn rate(s: &Summary) -> String {
    format!("{}/{} solved ({}%)", s.solved, s.instances, interval(s))
}

fn setting(p: &RfssParams) -> String {
    match p.enhancement {
        Enhancement::Off => "plain".into(),
        e => format!("`--enhance {e}`"),
    }
}

/// A tier cell: "96.0% (90.2–98.4), 265 / 1" (mean / median generation of the solutions).
fn tier_cell(s: &Summary) -> String {
    let gens = match (s.mean_steps, s.median_steps) {
        (Some(mean), Some(median)) => format!(", {mean:.0} / {median:.0}"),
        _ => String::new(),
    };
    format!("{:.1}% ({}){gens}", s.solved_pct, interval(s))
}

impl HornReproduction {
    fn paper_line(&self) -> String {
        let p = &self.paper;
        format!(
            "Horn 2017: {} run on one {}x{} with {} clues ({} blanks): {} species, solved in {} \
             generations (the upper group of {} species is the solution)",
            p.runs, p.side, p.side, p.clues, p.blanks, p.species, p.generations, p.upper_group
        )
    }

    fn text(&self) -> String {
        let mut out = format!(
            "{}\nmeasured: plain RFSS, at most {} generations, one run per puzzle \
             (deterministic)\n",
            self.paper_line(),
            self.params.max_generations
        );
        let _ = writeln!(
            out,
            "  {:<14} {:>6} {:>5} {:>7} {:>10} {:>9} {:>11} {:>9}",
            "file", "puzzle", "clues", "species", "status", "solved at", "generations", "conflicts"
        );
        for f in &self.files {
            for p in &f.puzzles {
                let o = &p.outcome;
                let _ = writeln!(
                    out,
                    "  {:<14} {:>6} {:>5} {:>7} {:>10} {:>9} {:>11} {:>9}",
                    f.label,
                    p.puzzle,
                    p.clues,
                    o.species,
                    o.status.name(),
                    o.solved_at.map_or("–".into(), |g| g.to_string()),
                    o.generations,
                    o.conflicts
                );
            }
            let _ = writeln!(out, "  {}: {}", f.label, rate(&f.summary));
        }
        let _ = writeln!(out, "  overall: {}", rate(&self.overall));
        out
    }

    fn markdown(&self) -> String {
        let p = &self.paper;
        let mut out = format!(
            "\n### Horn's 25x25 run: plain RFSS, at most {} generations\n\n",
            self.params.max_generations
        );
        out += &md_row(&[
            "puzzle",
            "clues",
            "species",
            "solved",
            "conflicts left",
            "generations (solved at)",
        ]);
        out += "|---|---|---|---|---|---|\n";
        out += &md_row(&[
            "**Horn 2017** (puzzle-magazine.com, 1 run)".into(),
            p.clues.to_string(),
            p.species.to_string(),
            format!("yes (upper group of {})", p.upper_group),
            "0".into(),
            p.generations.to_string(),
        ]);
        for f in &self.files {
            for q in &f.puzzles {
                let o = &q.outcome;
                out += &md_row(&[
                    format!("`{}` #{}", f.path, q.puzzle),
                    q.clues.to_string(),
                    o.species.to_string(),
                    if o.solved() { "yes" } else { "no" }.into(),
                    o.conflicts.to_string(),
                    match o.solved_at {
                        Some(g) => format!("{} ({g})", o.generations),
                        None => o.generations.to_string(),
                    },
                ]);
            }
        }
        let _ = writeln!(
            out,
            "\nSolved (Wilson 95% interval): {};\noverall {}.",
            self.files
                .iter()
                .map(|f| format!("`{}` {}", f.path, rate(&f.summary)))
                .collect::<Vec<_>>()
                .join(", "),
            rate(&self.overall)
        );
        out
    }
}

impl TierRates {
    fn text(&self) -> String {
        let mut out = String::new();
        for c in &self.columns {
            if !out.is_empty() {
                out.push('\n');
            }
            let _ = writeln!(
                out,
                "9x9 tiers, {}, {}: at most {} generations, one run per puzzle (deterministic)",
                c.puzzles,
                setting(&c.params).replace('`', ""),
                c.params.max_generations
            );
            let _ = writeln!(
                out,
                "  {:<8} {:>7} {:>6} {:>9} {:>13} {:>10} {:>11}",
                "tier", "puzzles", "solved", "solved %", "95% interval", "mean gens", "median gens"
            );
            for (tier, s) in c
                .tiers
                .iter()
                .map(|t| (t.tier.as_str(), &t.measured))
                .chain([("overall", &c.overall)])
            {
                let _ = writeln!(
                    out,
                    "  {:<8} {:>7} {:>6} {:>8.1}% {:>13} {:>10} {:>11}",
                    tier,
                    s.puzzles,
                    s.solved,
                    s.solved_pct,
                    interval(s),
                    opt(s.mean_steps, 1),
                    opt(s.median_steps, 1)
                );
            }
        }
        out
    }

    fn markdown(&self) -> String {
        let Some(first) = self.columns.first() else {
            return String::new();
        };
        let mut out = format!(
            "\n### 9x9 tiers: at most {} generations, one run per puzzle\n\n",
            first.params.max_generations
        );
        let mut header = vec!["tier".to_string()];
        header.extend(
            self.columns
                .iter()
                .map(|c| format!("{}, {}", c.puzzles, setting(&c.params))),
        );
        out += &md_row(&header);
        let _ = writeln!(out, "|---|{}", "---|".repeat(self.columns.len()));
        for (i, t) in first.tiers.iter().enumerate() {
            let mut row = vec![t.tier.clone()];
            row.extend(self.columns.iter().map(|c| {
                c.tiers
                    .get(i)
                    .map_or("–".into(), |t| tier_cell(&t.measured))
            }));
            out += &md_row(&row);
        }
        let mut row = vec!["overall".to_string()];
        row.extend(self.columns.iter().map(|c| tier_cell(&c.overall)));
        out += &md_row(&row);
        out += "\nCells: solved % of the puzzles (Wilson 95% interval), then the mean / median \
                generation\nfrom which the verified solution held, over the solved puzzles.\n";
        out
    }
}

impl RfssReproduction {
    /// The tables for a terminal.
    pub fn text(&self) -> String {
        let parts: Vec<String> = [
            self.horn.as_ref().map(HornReproduction::text),
            self.tiers.as_ref().map(TierRates::text),
        ]
        .into_iter()
        .flatten()
        .collect();
        parts.join("\n")
    }

    /// The tables of docs/RFSS.md.
    pub fn markdown(&self) -> String {
        [
            self.horn.as_ref().map(HornReproduction::markdown),
            self.tiers.as_ref().map(TierRates::markdown),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::parse_str;

    fn file(path: &str, text: &str) -> PuzzleFile {
        PuzzleFile {
            path: path.into(),
            b: 2,
            puzzles: parse_str(text, None).unwrap(),
            header: Vec::new(),
        }
    }

    #[test]
    fn horn_and_tier_tables_from_small_runs() {
        // 4x4: the first solves, the second repeats a clue (unsolvable up front).
        let f = file("dir/small.txt", "1.3.3.12.1.343.1\n12....3...4.....");
        let h = reproduce_horn(&Device::Cpu, std::slice::from_ref(&f), 50, &|_| {}).unwrap();
        assert_eq!(h.paper.species, 1703);
        assert_eq!(h.files[0].puzzles[0].clues, 10);
        assert_eq!(h.files[0].puzzles[0].blanks, 6);
        assert!(h.files[0].puzzles[0].outcome.solved());
        assert_eq!((h.overall.solved, h.overall.instances), (1, 2));
        let text = h.text();
        assert!(text.contains("1703 species, solved in 750000"), "{text}");
        assert!(text.contains("small: 1/2 solved (9.5–90.5%)"), "{text}");
        let md = h.markdown();
        assert!(md.contains("| **Horn 2017** (puzzle-magazine.com, 1 run) | 301 | 1703 |"));
        assert!(
            md.contains("| `dir/small.txt` #1 | 4 | 0 | no | 0 | 0 |"),
            "{md}"
        );
        let t = reproduce_tiers(
            &Device::Cpu,
            &[("paper model".into(), vec![f])],
            50,
            &|_| {},
        )
        .unwrap();
        assert_eq!(t.columns.len(), 2);
        assert_eq!(t.columns[1].params.enhancement, Enhancement::Propagate);
        let md = t.markdown();
        assert!(
            md.contains("| tier | paper model, plain | paper model, `--enhance propagate` |"),
            "{md}"
        );
        assert!(md.contains("| small | 50.0% (9.5–90.5), "), "{md}");
        assert!(t.text().contains("paper model, --enhance propagate"));
    }
}

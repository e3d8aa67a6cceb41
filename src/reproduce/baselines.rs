//! `reproduce baselines`: the A* trial counts of the INFO-H410 report and the GA operator table
//! of the Pyuzzle report, each report's figure beside ours (docs/BASELINES.md). Both run the
//! library's baselines ([`crate::baselines::by_name`], [`crate::baselines::run_batch`]) exactly
//! as `compare` does.

use super::md_row;
use crate::baselines::{self, Budget, Crossover, GaParams, Mutation, Selection};
use crate::puzzle::{Grid, PuzzleFile};
use crate::report::batch::Summary;
use anyhow::{bail, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Instant;

/// The puzzles the A* rows run on (file stems in the inputs folder, docs/baselines/): 500 of
/// the paper model with 67.3% blanks (`generate --model paper --d 0.673 --count 500 --seed 1`)
/// and their first 10, for plain backtracking.
pub const ASTAR_500: &str = "astar-d0673-500";
pub const ASTAR_10: &str = "astar-d0673-10";

/// Iteration limit of every A* row: far above any count measured (the report has no limit), so
/// a hit shows up as an unsolved puzzle instead of a loop without end.
pub const ASTAR_ITERATION_LIMIT: u64 = 100_000_000;

/// A mean the report gives and how many puzzles it averaged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ReportMean {
    pub mean: f64,
    pub puzzles: usize,
}

/// One row of the A* comparison.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct AstarSpec {
    /// The baseline's name for [`baselines::by_name`].
    pub algo: &'static str,
    /// The report's name of the method.
    pub method: &'static str,
    /// The input file (stem).
    pub file: &'static str,
    /// The report's mean, where it gives one.
    pub report: Option<ReportMean>,
}

/// INFO-H410 report (A* with four cell-ordering heuristics), §IV-C1 "Results": mean trials of
/// modes 0–3 over 10,000 random Sudokus (mode 3 with the weights learned by mode 0, "Weights
/// 0"), and plain backtracking over 10 Sudokus: 43,507. Two rows of ours have no counterpart
/// there: A* on backtracking's 10 puzzles, and MRV ("AHA" of the AUA report).
pub const INFO_H410: [AstarSpec; 7] = [
    AstarSpec {
        algo: "backtrack",
        method: "backtracking",
        file: ASTAR_10,
        report: Some(ReportMean {
            mean: 43_507.0,
            puzzles: 10,
        }),
    },
    AstarSpec {
        algo: "astar",
        method: "A* mode 0 on the same 10",
        file: ASTAR_10,
        report: None,
    },
    AstarSpec {
        algo: "astar",
        method: "mode 0, basic",
        file: ASTAR_500,
        report: Some(ReportMean {
            mean: 206.59,
            puzzles: 10_000,
        }),
    },
    AstarSpec {
        algo: "astar-small",
        method: "mode 1, small crossed",
        file: ASTAR_500,
        report: Some(ReportMean {
            mean: 205.44,
            puzzles: 10_000,
        }),
    },
    AstarSpec {
        algo: "astar-big",
        method: "mode 2, big crossed",
        file: ASTAR_500,
        report: Some(ReportMean {
            mean: 205.44,
            puzzles: 10_000,
        }),
    },
    AstarSpec {
        algo: "astar-weighted",
        method: "mode 3, weights from mode 0",
        file: ASTAR_500,
        report: Some(ReportMean {
            mean: 206.72,
            puzzles: 10_000,
        }),
    },
    AstarSpec {
        algo: "mrv",
        method: "MRV (\"AHA\")",
        file: ASTAR_500,
        report: None,
    },
];

/// The report's solved counts on one puzzle, as printed in its first table for the puzzle:
/// rows `CROSSOVER_MUTATION`, columns fps, tournament, rank (`None`: not run by the report).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GaReport {
    pub puzzle: &'static str,
    /// The input file (stem).
    pub file: &'static str,
    pub clues: usize,
    pub solved: &'static [(&'static str, [Option<u32>; 3])],
}

impl GaReport {
    /// The report's count for one combination, if it ran it.
    pub fn count(&self, s: Selection, c: Crossover, m: Mutation) -> Option<u32> {
        let key = format!("{}_{}", c.name(), m.name());
        let column = Selection::ALL.iter().position(|&x| x == s)?;
        self.solved
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, counts)| counts[column])
    }
}

/// Runs per combination, generations and operator rates of the Pyuzzle report's §6.
pub const PYUZZLE_RUNS: usize = 25;
pub const PYUZZLE_GENERATIONS: u64 = 250;

/// Pyuzzle report (GA with 3 selections × 3 crossovers × 3 mutations), §6 "Results": solved runs
/// of 25 per combination, population 1000, 250 generations, crossover 0.7, mutation 0.3. Its
/// puzzles are not printed (only their clue counts); ours are in docs/baselines/ga-*.txt
/// (docs/BASELINES.md says how they were made). The medium puzzle was run with swap only, the
/// hard one with fps and rank only.
pub const PYUZZLE_GA: [GaReport; 3] = [
    GaReport {
        puzzle: "easy",
        file: "ga-easy",
        clues: 38,
        solved: &[
            ("two_swap", [Some(22), Some(13), Some(23)]),
            ("single_swap", [Some(17), Some(9), Some(25)]),
            ("uniform_swap", [Some(17), Some(10), Some(23)]),
            ("single_inversion", [Some(8), Some(3), Some(13)]),
            ("uniform_inversion", [Some(5), Some(4), Some(9)]),
            ("two_inversion", [Some(5), Some(0), Some(8)]),
            ("two_scramble", [Some(2), Some(1), Some(3)]),
            ("single_scramble", [Some(1), Some(0), Some(4)]),
            ("uniform_scramble", [Some(1), Some(0), Some(2)]),
        ],
    },
    GaReport {
        puzzle: "medium",
        file: "ga-medium",
        clues: 33,
        solved: &[
            ("single_swap", [Some(22), Some(11), Some(22)]),
            ("uniform_swap", [Some(18), Some(13), Some(23)]),
            ("two_swap", [Some(17), Some(7), Some(21)]),
        ],
    },
    GaReport {
        puzzle: "hard",
        file: "ga-hard",
        clues: 30,
        solved: &[
            ("single_swap", [Some(7), None, Some(7)]),
            ("uniform_swap", [Some(10), None, Some(3)]),
            ("two_swap", [Some(3), None, Some(5)]),
        ],
    },
];

/// One A* row: the report's figure and what we measured.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct AstarRow {
    #[serde(flatten)]
    pub spec: AstarSpec,
    pub path: String,
    /// "trials" or "nodes".
    pub unit: String,
    /// Solved puzzles, mean/median iterations of the solved ones (`mean_steps`), as `compare`.
    pub measured: Summary,
}

/// The A* trial counts.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct AstarTable {
    pub iteration_limit: u64,
    pub rows: Vec<AstarRow>,
}

/// One combination on one puzzle.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct GaCell {
    /// The `compare` name, e.g. `ga-rank-single-swap`.
    pub algo: String,
    pub selection: &'static str,
    pub crossover: &'static str,
    pub mutation: &'static str,
    /// The report's solved runs of 25, where it ran the combination.
    pub report: Option<u32>,
    pub measured: Summary,
}

/// Every combination on one puzzle.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct GaPuzzle {
    pub puzzle: &'static str,
    pub path: String,
    pub clues: usize,
    pub cells: Vec<GaCell>,
}

/// The GA operator table.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct GaTable {
    pub runs: usize,
    pub generations: u64,
    pub seed: u64,
    pub population: usize,
    pub crossover_rate: f64,
    pub mutation_rate: f64,
    pub tournament_size: usize,
    pub puzzles: Vec<GaPuzzle>,
}

/// Everything `reproduce baselines` measured (either part may be left out).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct BaselinesReproduction {
    pub astar: Option<AstarTable>,
    pub ga: Option<GaTable>,
}

/// The file called `stem` among `files`.
fn input<'a>(files: &'a [PuzzleFile], stem: &str) -> Result<&'a PuzzleFile> {
    match files.iter().find(|f| f.label() == stem) {
        Some(f) if !f.puzzles.is_empty() => Ok(f),
        Some(f) => bail!("{}: no puzzles in the file", f.path),
        None => bail!("internal error: the input {stem} was not read"),
    }
}

/// `runs` attempts of every puzzle of `file` with `algo` under `budget`, summarised.
fn measure(
    algo: &str,
    file: &PuzzleFile,
    runs: usize,
    seed: u64,
    budget: &Budget,
    tick: &(dyn Fn() + Sync),
) -> Result<(String, Summary)> {
    let grids: Vec<Grid> = file.puzzles.iter().map(|p| p.grid.clone()).collect();
    let baseline = baselines::by_name(algo, &grids)?;
    let t0 = Instant::now();
    let attempts = baselines::run_batch(baseline.as_ref(), &grids, runs, seed, budget, tick);
    let wall = t0.elapsed();
    let results = attempts
        .iter()
        .enumerate()
        .map(|(i, a)| a.to_instance_result(i / runs, i % runs))
        .collect::<Result<Vec<_>>>()?;
    let summary = Summary::of(grids.len(), &results, wall);
    // A search repeats its first run: no TTS99 (it assumes independent runs).
    let summary = if baselines::ignores_seed(algo) {
        summary.without_tts()
    } else {
        summary
    };
    Ok((baseline.unit().to_string(), summary))
}

/// Every row of [`INFO_H410`] once per puzzle (the methods are deterministic) on `files`
/// (which must hold [`ASTAR_10`] and [`ASTAR_500`]).
pub fn reproduce_astar(files: &[PuzzleFile], tick: &(dyn Fn() + Sync)) -> Result<AstarTable> {
    let budget = Budget::iterations(ASTAR_ITERATION_LIMIT);
    let mut rows = Vec::new();
    for spec in INFO_H410 {
        let file = input(files, spec.file)?;
        let (unit, measured) = measure(spec.algo, file, 1, 0, &budget, tick)?;
        rows.push(AstarRow {
            spec,
            path: file.path.clone(),
            unit,
            measured,
        });
    }
    Ok(AstarTable {
        iteration_limit: ASTAR_ITERATION_LIMIT,
        rows,
    })
}

/// Every selection × crossover × mutation on every puzzle of [`PYUZZLE_GA`] (its files among
/// `files`), `runs` runs each of at most `generations` generations, attempt seeds from `seed`.
pub fn reproduce_ga(
    files: &[PuzzleFile],
    runs: usize,
    generations: u64,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<GaTable> {
    let budget = Budget::iterations(generations);
    let mut puzzles = Vec::new();
    for report in &PYUZZLE_GA {
        let file = input(files, report.file)?;
        let mut cells = Vec::new();
        for s in Selection::ALL {
            for c in Crossover::ALL {
                for m in Mutation::ALL {
                    let algo = format!("ga-{}-{}-{}", s.name(), c.name(), m.name());
                    let (_, measured) = measure(&algo, file, runs, seed, &budget, tick)?;
                    cells.push(GaCell {
                        algo,
                        selection: s.name(),
                        crossover: c.name(),
                        mutation: m.name(),
                        report: report.count(s, c, m),
                        measured,
                    });
                }
            }
        }
        puzzles.push(GaPuzzle {
            puzzle: report.puzzle,
            path: file.path.clone(),
            clues: report.clues,
            cells,
        });
    }
    let p = GaParams::default();
    Ok(GaTable {
        runs,
        generations,
        seed,
        population: p.population,
        crossover_rate: p.crossover_rate,
        mutation_rate: p.mutation_rate,
        tournament_size: p.tournament_size,
        puzzles,
    })
}

/// Rows of cells as columns padded to their widest cell (first column left, others right).
fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == 0 {
                    format!("{c:<w$}", w = widths[0])
                } else {
                    format!("{c:>w$}", w = widths[i])
                }
            })
            .collect();
        let _ = writeln!(out, "  {}", cells.join("  ").trim_end());
    }
    out
}

/// The rows as markdown, the first being the header.
fn markdown_table(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        out += &md_row(r);
        if i == 0 {
            let _ = writeln!(out, "|{}", "---|".repeat(r.len()));
        }
    }
    out
}

impl AstarTable {
    fn rows(&self) -> Vec<Vec<String>> {
        let mut rows = vec![vec![
            "method".to_string(),
            "file".into(),
            "puzzles".into(),
            "solved".into(),
            "mean (median) here".into(),
            "report".into(),
        ]];
        for r in &self.rows {
            let m = &r.measured;
            rows.push(vec![
                format!("{} ({})", r.spec.method, r.unit),
                r.spec.file.into(),
                m.puzzles.to_string(),
                m.solved.to_string(),
                match (m.mean_steps, m.median_steps) {
                    (Some(mean), Some(median)) => format!("{mean:.2} ({median})"),
                    _ => "–".into(),
                },
                r.spec.report.map_or("–".into(), |p| {
                    format!("{} ({} puzzles)", p.mean, p.puzzles)
                }),
            ]);
        }
        rows
    }

    fn heading(&self) -> &'static str {
        "A* trial counts (INFO-H410 §IV-C1): mean iterations of the solved puzzles, one run each"
    }
}

impl GaTable {
    /// One table per puzzle: rows CROSSOVER_MUTATION, solved runs per selection and in total,
    /// ours then the report's.
    fn rows(&self, p: &GaPuzzle) -> Vec<Vec<String>> {
        let mut rows = vec![vec![
            format!("{} ({} clues)", p.puzzle, p.clues),
            "fps".into(),
            "tournament".into(),
            "rank".into(),
            "total".into(),
            "report: fps".into(),
            "tourn.".into(),
            "rank".into(),
            "total".into(),
        ]];
        let cell = |s: Selection, c: Crossover, m: Mutation| {
            p.cells
                .iter()
                .find(|x| {
                    x.selection == s.name() && x.crossover == c.name() && x.mutation == m.name()
                })
                .expect("every combination ran")
        };
        // Totals of the known counts; "–" when there is none.
        let sum = |v: &mut dyn Iterator<Item = Option<usize>>| -> String {
            let known: Vec<usize> = v.flatten().collect();
            if known.is_empty() {
                "–".into()
            } else {
                known.iter().sum::<usize>().to_string()
            }
        };
        // The table's rows of cells: [fps, tournament, rank] per CROSSOVER_MUTATION.
        let mut table: Vec<(String, [&GaCell; 3])> = Vec::new();
        for m in Mutation::ALL {
            for c in Crossover::ALL {
                let [f, t, r] = Selection::ALL.map(|s| cell(s, c, m));
                table.push((format!("{}_{}", c.name(), m.name()), [f, t, r]));
            }
        }
        let ours = |x: &GaCell| Some(x.measured.solved);
        let report = |x: &GaCell| x.report.map(|v| v as usize);
        // One row: label, ours per selection and total, the report's per selection and total.
        let line = |label: String, rows: &[&[&GaCell; 3]], only_reported: bool| {
            let mine = |x: &GaCell| ours(x).filter(|_| !only_reported || x.report.is_some());
            let mut row = vec![label];
            for i in 0..3 {
                row.push(sum(&mut rows.iter().map(|r| mine(r[i]))));
            }
            row.push(sum(&mut rows
                .iter()
                .flat_map(|r| r.iter().map(|x| mine(x)))));
            for i in 0..3 {
                row.push(sum(&mut rows.iter().map(|r| report(r[i]))));
            }
            row.push(sum(&mut rows
                .iter()
                .flat_map(|r| r.iter().map(|x| report(x)))));
            row
        };
        for (label, cells) in &table {
            rows.push(line(label.clone(), &[cells], false));
        }
        let all: Vec<&[&GaCell; 3]> = table.iter().map(|(_, c)| c).collect();
        rows.push(line("total".into(), &all, false));
        if table
            .iter()
            .any(|(_, c)| c.iter().any(|x| x.report.is_none()))
        {
            rows.push(line("total, the report's combinations".into(), &all, true));
        }
        rows
    }

    fn heading(&self) -> String {
        format!(
            "GA operator table (Pyuzzle §6): solved runs of {} per combination (report: of {}), \
             population {}, {} generations, crossover {}, mutation {}, tournament size {}, seed {}",
            self.runs,
            PYUZZLE_RUNS,
            self.population,
            self.generations,
            self.crossover_rate,
            self.mutation_rate,
            self.tournament_size,
            self.seed
        )
    }
}

impl BaselinesReproduction {
    /// The tables for a terminal.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if let Some(a) = &self.astar {
            let _ = writeln!(out, "{}", a.heading());
            out += &aligned(&a.rows());
        }
        if let Some(g) = &self.ga {
            if !out.is_empty() {
                out.push('\n');
            }
            let _ = writeln!(out, "{}", g.heading());
            for (i, p) in g.puzzles.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out += &aligned(&g.rows(p));
            }
        }
        out
    }

    /// The tables of docs/BASELINES.md.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        if let Some(a) = &self.astar {
            let _ = writeln!(out, "\n### {}\n", a.heading());
            out += &markdown_table(&a.rows());
        }
        if let Some(g) = &self.ga {
            let _ = writeln!(out, "\n### {}\n", g.heading());
            for p in &g.puzzles {
                out += &markdown_table(&g.rows(p));
                out.push('\n');
            }
            out += "Per combination the JSON (`--json`) holds the Wilson 95% interval of the \
                    rate, the mean and median generation of the solved runs, and TTS99.\n";
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_constants_match_the_reports_totals() {
        // The Pyuzzle report's totals: easy 78 / 40 / 110 = 228, medium 57 / 31 / 66 = 154,
        // hard 20 / – / 15 = 35.
        let totals: Vec<[u32; 3]> = PYUZZLE_GA
            .iter()
            .map(|r| {
                let mut t = [0; 3];
                for (_, counts) in r.solved {
                    for (i, c) in counts.iter().enumerate() {
                        t[i] += c.unwrap_or(0);
                    }
                }
                t
            })
            .collect();
        assert_eq!(totals, [[78, 40, 110], [57, 31, 66], [20, 0, 15]]);
        let easy = &PYUZZLE_GA[0];
        assert_eq!(
            easy.count(Selection::Rank, Crossover::Single, Mutation::Swap),
            Some(25)
        );
        assert_eq!(
            PYUZZLE_GA[2].count(Selection::Tournament, Crossover::Single, Mutation::Swap),
            None
        );
        assert_eq!(
            PYUZZLE_GA[1].count(Selection::Fps, Crossover::Two, Mutation::Inversion),
            None
        );
        // Every row names a baseline (the weighted one needs puzzles to learn from).
        let classic = crate::puzzle::parse_str(crate::puzzle::CLASSIC, None).unwrap();
        for spec in INFO_H410 {
            baselines::by_name(spec.algo, &[classic[0].grid.clone()]).unwrap();
        }
    }

    #[test]
    fn tables_show_ours_beside_the_report() {
        let table = |rows: &[Vec<String>]| markdown_table(rows);
        let rows = vec![
            vec!["a".to_string(), "b".into()],
            vec!["long cell".to_string(), "1".into()],
        ];
        assert_eq!(table(&rows), "| a | b |\n|---|---|\n| long cell | 1 |\n");
        assert_eq!(aligned(&rows), "  a          b\n  long cell  1\n");
    }
}

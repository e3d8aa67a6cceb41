//! `gpu-sudoku rate FILE`: score, tier, clue count, blank fraction and number of solutions
//! (0, 1 or 2 = "two or more") of every puzzle, as a table or JSON. Only puzzles with exactly
//! one solution get a score and tier (docs/PUZZLES.md explains the rater). Exit code 0 unless
//! the file cannot be read.

use anyhow::Result;
use gpu_sudoku::exact::{classify, Solutions};
use gpu_sudoku::generate::{rate_with_solution, Technique, Tier};
use gpu_sudoku::puzzle::read_puzzles;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle file (`-` reads standard input).
    pub file: String,
    /// Side length (4, 9, 16, 25, 36, 49, 64) when the file's layout leaves it open.
    #[arg(long)]
    pub size: Option<usize>,
    /// JSON (one array of objects) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// One row of the report.
#[derive(Serialize, Debug)]
pub struct Row {
    pub line: usize,
    pub clues: usize,
    pub blank_fraction: f64,
    /// 0, 1, or 2 meaning two or more.
    pub solutions: usize,
    pub tier: Option<String>,
    pub score: Option<u64>,
    pub hardest: Option<String>,
    /// Uses per technique (only those used).
    pub uses: BTreeMap<String, u32>,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let file = read_puzzles(&a.file, a.size)?;
    let pb = super::progress::bar(file.puzzles.len(), "rating");
    let rows: Vec<Row> = file
        .puzzles
        .par_iter()
        .map(|p| {
            let (solutions, rating) = match classify(&p.grid) {
                Solutions::None => (0, None),
                Solutions::Multiple(_) => (2, None),
                Solutions::Unique(s) => (1, Some(rate_with_solution(&p.grid, &s))),
            };
            pb.inc(1);
            Row {
                line: p.line,
                clues: p.grid.clue_count(),
                blank_fraction: p.grid.blank_fraction(),
                solutions,
                tier: rating.as_ref().map(|r| r.tier.to_string()),
                score: rating.as_ref().map(|r| r.score),
                hardest: rating
                    .as_ref()
                    .map(|r| r.hardest.map(Technique::name).unwrap_or("none").to_string()),
                uses: rating
                    .as_ref()
                    .map(|r| {
                        Technique::ALL
                            .iter()
                            .filter(|&&t| r.uses_of(t) > 0)
                            .map(|&t| (t.name().to_string(), r.uses_of(t)))
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect();
    pb.finish_and_clear();
    let mut out = String::new();
    if a.json {
        out = serde_json::to_string_pretty(&rows)?;
        out.push('\n');
        super::progress::print_stdout(&out)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{:>6} {:>6} {:>6} {:>9} {:>7} {:>6}  hardest",
        "line", "clues", "blank", "solutions", "tier", "score"
    )?;
    for r in &rows {
        writeln!(
            out,
            "{:>6} {:>6} {:>6.3} {:>9} {:>7} {:>6}  {}",
            r.line,
            r.clues,
            r.blank_fraction,
            if r.solutions == 2 {
                "2+".to_string()
            } else {
                r.solutions.to_string()
            },
            r.tier.as_deref().unwrap_or("-"),
            r.score.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
            r.hardest.as_deref().unwrap_or("-")
        )?;
    }
    let count = |s: usize| rows.iter().filter(|r| r.solutions == s).count();
    let tiers: Vec<String> = Tier::ALL
        .iter()
        .map(|t| {
            let k = rows
                .iter()
                .filter(|r| r.tier.as_deref() == Some(t.name()))
                .count();
            format!("{k} {t}")
        })
        .collect();
    writeln!(
        out,
        "# {}: {} puzzles; solutions: {} unique, {} with 2+, {} with none; tiers of the unique ones: {}",
        file.path,
        rows.len(),
        count(1),
        count(2),
        count(0),
        tiers.join(", ")
    )?;
    super::progress::print_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

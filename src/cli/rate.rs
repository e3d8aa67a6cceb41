//! `gpu-sudoku rate FILE`: score, tier, clue count, blank fraction and number of solutions
//! (0, 1 or 2 = "two or more") of every puzzle, as a table or JSON. Only puzzles with exactly
//! one solution get a score and tier (docs/PUZZLES.md explains the rater). A puzzle whose
//! search `--max-nodes` or `--time-limit` stopped is reported as `line N: gave up after K nodes`
//! (JSON: `solutions` null, `gave_up_after_nodes` K). Exit code 0, 3 when the search gave up
//! on some puzzle, 1 when the file cannot be read.

use super::args::{gave_up_line, print_table, InputArgs, ReportArgs, SearchLimits, GAVE_UP};
use anyhow::Result;
use gpu_sudoku::choice::Choice;
use gpu_sudoku::exact::Classified;
use gpu_sudoku::generate::report::{self, count_solutions, count_tier, Row};
use gpu_sudoku::generate::Tier;
use gpu_sudoku::puzzle::PuzzleFile;
use std::fmt::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit status: 0 every puzzle rated or counted; 3 the search gave up on some \
puzzle (--max-nodes, --time-limit); 1 an error such as an unreadable file."
)]
pub struct Args {
    /// Puzzle file (`-` reads standard input).
    pub file: String,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub reports: ReportArgs,
    #[command(flatten)]
    pub limits: SearchLimits,
}

pub fn run(a: Args) -> Result<ExitCode> {
    a.limits.config()?;
    a.reports.check(&[&a.file])?;
    let file = a.input.read(&a.file)?;
    let classified = a.limits.classify_all(&file.puzzles, "solving")?;
    let pb = super::progress::bar(file.puzzles.len(), "rating");
    let rows = report::rows(&file.puzzles, &classified, &|| pb.inc(1));
    pb.finish_and_clear();
    let status = if rows.iter().any(|r| r.solutions.is_none()) {
        ExitCode::from(GAVE_UP)
    } else {
        ExitCode::SUCCESS
    };
    a.reports.write(
        || Ok(report::json(std::env::args().collect(), &file, &rows)?),
        || report::csv(&file.path, &rows),
    )?;
    print_table(&a.reports, &table(&file, &rows, &classified)?);
    Ok(status)
}

/// The table: a line per puzzle, then the totals.
fn table(file: &PuzzleFile, rows: &[Row], classified: &[Classified]) -> Result<String> {
    let mut out = String::new();
    writeln!(
        out,
        "{:>6} {:>6} {:>6} {:>9} {:>7} {:>6}  hardest",
        "line", "clues", "blank", "solutions", "tier", "score"
    )?;
    for (r, c) in rows.iter().zip(classified) {
        if let Some(line) = gave_up_line(c, r.line) {
            writeln!(out, "{line}")?;
            continue;
        }
        writeln!(
            out,
            "{:>6} {:>6} {:>6.3} {:>9} {:>7} {:>6}  {}",
            r.line,
            r.clues,
            r.blank_fraction,
            match r.solutions {
                Some(2) => "2+".to_string(),
                Some(k) => k.to_string(),
                None => "?".to_string(),
            },
            r.tier.as_deref().unwrap_or("-"),
            r.score.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
            r.hardest.as_deref().unwrap_or("-")
        )?;
    }
    let count = |s: usize| count_solutions(rows, s);
    let given_up = rows.len() - count(0) - count(1) - count(2);
    let tiers: Vec<String> = Tier::ALL
        .iter()
        .map(|&t| format!("{} {t}", count_tier(rows, t)))
        .collect();
    writeln!(
        out,
        "# {}: {}; solutions: {} unique, {} with 2+, {} with none{}; tiers of the unique ones: {}",
        file.path,
        gpu_sudoku::report::count(rows.len() as u64, "puzzle", "puzzles"),
        count(1),
        count(2),
        count(0),
        if given_up > 0 {
            format!(", {given_up} given up (search limits)")
        } else {
            String::new()
        },
        tiers.join(", ")
    )?;
    Ok(out)
}

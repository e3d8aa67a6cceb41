//! `gpu-sudoku rate FILE`: score, tier, clue count, blank fraction and number of solutions
//! (0, 1 or 2 = "two or more") of every puzzle, as a table or JSON. Only puzzles with exactly
//! one solution get a score and tier (docs/PUZZLES.md explains the rater). A puzzle whose
//! search `--max-nodes` or `--time-limit` stopped is reported as `line N: gave up after K nodes`
//! (JSON: `solutions` null, `gave_up_after_nodes` K). Exit code 0, 3 when the search gave up
//! on some puzzle, 1 when the file cannot be read.

use super::args::{print_table, InputArgs, ReportArgs};
use super::solve::{classify_all, Classified, SearchLimits, GAVE_UP};
use anyhow::Result;
use gpu_sudoku::choice::Choice;
use gpu_sudoku::exact::Solutions;
use gpu_sudoku::generate::{rate_with_solution, Technique, Tier};
use gpu_sudoku::report::schema::{Header, InputInfo};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
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

/// One row of the report.
#[derive(Serialize, Debug)]
pub struct Row {
    pub line: usize,
    pub clues: usize,
    pub blank_fraction: f64,
    /// 0, 1, or 2 meaning two or more; None when the search gave up.
    pub solutions: Option<usize>,
    /// Search nodes when the search limits stopped it (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gave_up_after_nodes: Option<u64>,
    pub tier: Option<String>,
    pub score: Option<u64>,
    pub hardest: Option<String>,
    /// Uses per technique (only those used).
    pub uses: BTreeMap<String, u32>,
    /// The puzzle line's extra fields (e.g. `name=ai-escargot`; absent when none).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub extra: String,
}

/// The JSON report: the tool, the command and the inputs (a list of one, named and shaped as
/// in `batch`, `compare` and `reproduce`), then one object per puzzle.
#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    header: Header,
    inputs: [InputInfo; 1],
    puzzles: &'a [Row],
}

/// One CSV row per puzzle; techniques as `name:uses` joined by spaces. `path` and `line` are
/// the key that joins a puzzle's row to `batch`'s (`file`, `line`) and `compare`'s (`path`,
/// `line`) rows; `extra` is the puzzle line's extra fields (e.g. `name=ai-escargot`).
fn csv(path: &str, rows: &[Row]) -> String {
    use gpu_sudoku::report::batch::csv_field;
    let mut out = String::from(
        "path,line,clues,blank_fraction,solutions,gave_up_after_nodes,tier,score,hardest,uses,\
         extra\n",
    );
    let opt = |x: Option<String>| x.unwrap_or_default();
    for r in rows {
        let uses: Vec<String> = r.uses.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            csv_field(path),
            r.line,
            r.clues,
            r.blank_fraction,
            opt(r.solutions.map(|k| k.to_string())),
            opt(r.gave_up_after_nodes.map(|k| k.to_string())),
            opt(r.tier.clone()),
            opt(r.score.map(|k| k.to_string())),
            opt(r.hardest.clone()),
            uses.join(" "),
            csv_field(&r.extra)
        ));
    }
    out
}

pub fn run(a: Args) -> Result<ExitCode> {
    a.limits.config()?;
    a.reports.check(&[&a.file])?;
    let file = a.input.read(&a.file)?;
    let classified = classify_all(&file.puzzles, &a.limits, "solving")?;
    let pb = super::progress::bar(file.puzzles.len(), "rating");
    let rows: Vec<Row> = file
        .puzzles
        .par_iter()
        .zip(&classified)
        .map(|(p, c)| {
            let (solutions, rating, gave_up_after_nodes) = match c {
                Classified::Known(Solutions::None) => (Some(0), None, None),
                Classified::Known(Solutions::Multiple(_)) => (Some(2), None, None),
                Classified::Known(Solutions::Unique(s)) => {
                    (Some(1), Some(rate_with_solution(&p.grid, s)), None)
                }
                Classified::GaveUp { nodes, .. } => (None, None, Some(*nodes)),
            };
            pb.inc(1);
            Row {
                line: p.line,
                clues: p.grid.clue_count(),
                blank_fraction: p.grid.blank_fraction(),
                solutions,
                gave_up_after_nodes,
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
                extra: p.extra.clone(),
            }
        })
        .collect();
    pb.finish_and_clear();
    let status = if rows.iter().any(|r| r.solutions.is_none()) {
        ExitCode::from(GAVE_UP)
    } else {
        ExitCode::SUCCESS
    };
    a.reports.write(
        || {
            let report = Report {
                header: Header::new(std::env::args().collect()),
                inputs: [InputInfo::of_file(&file)],
                puzzles: &rows,
            };
            Ok(serde_json::to_string_pretty(&report)? + "\n")
        },
        || csv(&file.path, &rows),
    )?;
    let mut out = String::new();
    writeln!(
        out,
        "{:>6} {:>6} {:>6} {:>9} {:>7} {:>6}  hardest",
        "line", "clues", "blank", "solutions", "tier", "score"
    )?;
    for (r, c) in rows.iter().zip(&classified) {
        if let Some(line) = c.gave_up_line(r.line) {
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
    let count = |s: usize| rows.iter().filter(|r| r.solutions == Some(s)).count();
    let given_up = rows.len() - count(0) - count(1) - count(2);
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
        "# {}: {} puzzles; solutions: {} unique, {} with 2+, {} with none{}; tiers of the unique ones: {}",
        file.path,
        rows.len(),
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
    print_table(&a.reports, &out);
    Ok(status)
}

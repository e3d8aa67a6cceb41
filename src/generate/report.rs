//! A file's puzzles rated (what `gpu-sudoku rate` reports): per puzzle its clues, blank
//! fraction, number of solutions and, for a unique one, its score, tier and techniques; as JSON
//! and CSV. Only puzzles with exactly one solution get a score and tier.

use super::rate::{rate_with_solution, Technique};
use super::Tier;
use crate::choice::Choice;
use crate::exact::{Classified, Solutions};
use crate::puzzle::{Puzzle, PuzzleFile};
use crate::report::batch::{csv_field, Header, InputInfo};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// One puzzle's row of the report.
#[derive(Serialize, Debug, Clone, PartialEq)]
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

impl Row {
    /// The row of puzzle `p`, whose solutions the search classified as `c`; a unique puzzle
    /// is rated.
    pub fn of(p: &Puzzle, c: &Classified) -> Row {
        let (solutions, rating, gave_up_after_nodes) = match c {
            Classified::Known(Solutions::None) => (Some(0), None, None),
            Classified::Known(Solutions::Multiple(_)) => (Some(2), None, None),
            Classified::Known(Solutions::Unique(s)) => {
                (Some(1), Some(rate_with_solution(&p.grid, s)), None)
            }
            Classified::GaveUp { nodes, .. } => (None, None, Some(*nodes)),
        };
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
    }
}

/// The rows of every puzzle (rated in parallel), `done` called after each.
pub fn rows(puzzles: &[Puzzle], classified: &[Classified], done: &(dyn Fn() + Sync)) -> Vec<Row> {
    puzzles
        .par_iter()
        .zip(classified)
        .map(|(p, c)| {
            let row = Row::of(p, c);
            done();
            row
        })
        .collect()
}

/// How many rows have `solutions` solutions (2: two or more).
pub fn count_solutions(rows: &[Row], solutions: usize) -> usize {
    rows.iter()
        .filter(|r| r.solutions == Some(solutions))
        .count()
}

/// How many rows are of `tier`.
pub fn count_tier(rows: &[Row], tier: Tier) -> usize {
    rows.iter()
        .filter(|r| r.tier.as_deref() == Some(tier.name()))
        .count()
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

/// The JSON report of `file`'s `rows`, made by `command`.
pub fn json(command: Vec<String>, file: &PuzzleFile, rows: &[Row]) -> serde_json::Result<String> {
    let report = Report {
        header: Header::new(command),
        inputs: [InputInfo::of_file(file)],
        puzzles: rows,
    };
    Ok(serde_json::to_string_pretty(&report)? + "\n")
}

/// One CSV row per puzzle; techniques as `name:uses` joined by spaces. `path` and `line` are
/// the key that joins a puzzle's row to `batch`'s (`file`, `line`) and `compare`'s (`path`,
/// `line`) rows; `extra` is the puzzle line's extra fields (e.g. `name=ai-escargot`).
pub fn csv(path: &str, rows: &[Row]) -> String {
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

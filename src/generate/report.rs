//! A file's puzzles rated (what `gpu-sudoku rate` reports): per puzzle its clues, blank
//! fraction, number of solutions and, for a unique one, its score, tier and techniques; as JSON
//! and CSV. Only puzzles with exactly one solution get a score and tier.

use super::rate::{rate_with_solution, Technique};
use super::Tier;
use crate::choice::Choice;
use crate::exact::{Classified, Solutions};
use crate::puzzle::Puzzle;
use crate::report::batch::{Header, InputInfo};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;

/// One puzzle's row of the report.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, schemars::JsonSchema)]
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
    #[serde(default, skip_serializing_if = "String::is_empty")]
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

/// The totals of a report's rows, added up as the rows stream past.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub puzzles: usize,
    /// By number of solutions: none, one, two or more.
    pub solutions: [usize; 3],
    /// Unique puzzles by tier, in [`Tier::ALL`] order.
    pub tiers: [usize; Tier::ALL.len()],
}

impl Counts {
    pub fn add(&mut self, row: &Row) {
        self.puzzles += 1;
        if let Some(k) = row.solutions {
            self.solutions[k.min(2)] += 1;
        }
        if let Some(t) = Tier::ALL
            .iter()
            .position(|t| row.tier.as_deref() == Some(t.name()))
        {
            self.tiers[t] += 1;
        }
    }

    /// Puzzles whose search the limits stopped.
    pub fn given_up(&self) -> usize {
        self.puzzles - self.solutions.iter().sum::<usize>()
    }
}

/// The fields the JSON report opens with: the tool, the command and the inputs (a list of one,
/// named and shaped as in `batch`, `compare` and `reproduce`); one object per puzzle follows.
#[derive(Serialize, schemars::JsonSchema)]
struct Opening {
    #[serde(flatten)]
    header: Header,
    inputs: [InputInfo; 1],
}

/// The whole JSON report as [`write_json`] writes it: the opening, then a row per puzzle.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)] // only its schema is used
struct RateJson {
    #[serde(flatten)]
    opening: Opening,
    /// One row per puzzle, in the file's order.
    puzzles: Vec<Row>,
}

/// The JSON Schema of the `rate` report (`gpu-sudoku schema rate`).
pub fn json_schema() -> serde_json::Value {
    crate::report::schema::json_schema_of::<RateJson>("gpu-sudoku rate report", false)
}

/// Writes the JSON report of `input`, made by `command`, with the rows `each_row` hands over
/// in order (one held at a time): the same text as the whole report pretty-printed at once.
pub fn write_json(
    w: &mut dyn Write,
    command: Vec<String>,
    input: InputInfo,
    each_row: impl FnOnce(&mut dyn FnMut(&Row) -> std::io::Result<()>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let opening = serde_json::to_string_pretty(&Opening {
        header: Header::new(command),
        inputs: [input],
    })?;
    // The opening object without its closing brace, then the rows as its last field.
    let opening = opening
        .strip_suffix("\n}")
        .ok_or_else(|| std::io::Error::other("internal error: an unexpected JSON layout"))?;
    write!(w, "{opening},\n  \"puzzles\": [")?;
    let mut first = true;
    each_row(&mut |row| {
        let text = serde_json::to_string_pretty(row)?;
        w.write_all(if first { b"\n" } else { b",\n" })?;
        first = false;
        for (i, line) in text.lines().enumerate() {
            if i > 0 {
                w.write_all(b"\n")?;
            }
            write!(w, "    {line}")?;
        }
        Ok(())
    })?;
    w.write_all(if first { b"]\n}\n" } else { b"\n  ]\n}\n" })
}

/// The CSV's columns.
pub const CSV_COLUMNS: [&str; 11] = [
    "path",
    "line",
    "clues",
    "blank_fraction",
    "solutions",
    "gave_up_after_nodes",
    "tier",
    "score",
    "hardest",
    "uses",
    "extra",
];

/// Writes the CSV, a row per puzzle as `each` visits them; techniques as `name:uses` joined by
/// spaces. `path` and `line` are the key that joins a puzzle's row to `batch`'s (`file`,
/// `line`) and `compare`'s (`path`, `line`) rows; `extra` is the puzzle line's extra fields
/// (e.g. `name=ai-escargot`).
pub fn write_csv(
    w: &mut dyn Write,
    path: &str,
    each: impl FnOnce(&mut dyn FnMut(&Row) -> std::io::Result<()>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let opt = |x: Option<String>| x.unwrap_or_default();
    let mut csv = crate::csv_io::Writer::new(w);
    csv.row(CSV_COLUMNS)?;
    each(&mut |r: &Row| {
        let uses: Vec<String> = r.uses.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        csv.row([
            path.to_string(),
            r.line.to_string(),
            r.clues.to_string(),
            r.blank_fraction.to_string(),
            opt(r.solutions.map(|k| k.to_string())),
            opt(r.gave_up_after_nodes.map(|k| k.to_string())),
            opt(r.tier.clone()),
            opt(r.score.map(|k| k.to_string())),
            opt(r.hardest.clone()),
            uses.join(" "),
            r.extra.clone(),
        ])
    })?;
    csv.finish().map(drop)
}

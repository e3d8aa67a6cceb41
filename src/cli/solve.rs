//! `gpu-sudoku solve FILE`: the exact solver on every puzzle of a file.
//!
//! One output line per puzzle, in file order: the solution (one-line format), or
//! `line N: no solution`, or `line N: multiple solutions` (with `--any`: one of the solutions),
//! or `line N: gave up after K nodes (T s)` when `--max-nodes` or `--time-limit` stopped the
//! search. Every solution printed has been checked against the rules and the clues.
//! Exit code: 0 when every puzzle has exactly one solution (with `--any`: at least one),
//! 2 when some puzzle has none (or, without `--any`, several), 3 when the search gave up on
//! some puzzle (before 2), 1 on an error such as bad input.

use super::args::{gave_up_line, InputArgs, SearchLimits, GAVE_UP, STREAM_CHUNK};
use anyhow::{anyhow, Result};
use gpu_sudoku::exact::{Classified, Solutions};
use gpu_sudoku::puzzle::{Grid, Puzzle};
use std::fmt::Write;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit status: 0 every puzzle has exactly one solution (with --any: at least one); \
2 some puzzle has none (or, without --any, several); 3 the search gave up on some puzzle \
(--max-nodes, --time-limit); 1 an error such as bad input."
)]
pub struct Args {
    /// Puzzle file (`-` reads standard input).
    pub file: String,
    #[command(flatten)]
    pub input: InputArgs,
    /// Print boxed grids for people instead of one line per puzzle.
    #[arg(long)]
    pub pretty: bool,
    /// For a puzzle with several solutions, print one of them (and count it as solved).
    #[arg(long)]
    pub any: bool,
    #[command(flatten)]
    pub limits: SearchLimits,
}

/// What the answers were: per kind, and against the file's solution column.
#[derive(Default)]
struct Counts {
    unique: usize,
    multiple: usize,
    none: usize,
    gave_up: usize,
    /// Puzzles whose file gives a solution: answers equal to it, answers that differ
    /// (possible only where the puzzle has several solutions).
    as_file: usize,
    not_as_file: usize,
}

pub fn run(a: Args) -> Result<ExitCode> {
    a.limits.config()?;
    // Like a filter, solve reads its input as it goes (no check of the whole file first): the
    // answers before a bad line are printed, then the error ends the run.
    let mut reader = a.input.open(&a.file)?;
    let started = Instant::now();
    let solver = a.limits.classifier(0, "solving")?;
    let mut counts = Counts::default();
    let mut puzzles = 0;
    let mut chunk = reader.next_chunk(STREAM_CHUNK)?;
    // Nobody reads the answers any more: the exit code says so, and the work stops.
    while !chunk.is_empty() && !super::output::stdout_failed() {
        let (results, next) = std::thread::scope(|scope| {
            let solving = scope.spawn(|| solver.classify(&chunk, true));
            let next = reader.next_chunk(STREAM_CHUNK);
            (solving.join(), next)
        });
        let results = results.map_err(|_| anyhow!("internal error: the solver panicked"))?;
        let mut out = String::new();
        for (p, c) in chunk.iter().zip(&results) {
            answer(&a, p, c, &mut counts, &mut out)?;
        }
        solver.suspend(|| super::output::stdout(&out));
        puzzles += chunk.len();
        chunk = next?;
    }
    solver.finish();
    let path = reader.file();
    if super::output::stdout_failed() {
        errln!("{path}: stopped after {puzzles} puzzles: standard output is closed");
    }
    let Counts {
        unique,
        multiple,
        none,
        gave_up,
        as_file,
        not_as_file,
    } = counts;
    if as_file + not_as_file > 0 {
        errln!(
            "{path}: {} answers compared with the file's solution column: {as_file} equal, {not_as_file} differ",
            as_file + not_as_file
        );
    }
    errln!(
        "{path}: {}, {unique} unique, {multiple} with several solutions, {none} without a solution{} ({:.3} s)",
        gpu_sudoku::report::count(puzzles as u64, "puzzle", "puzzles"),
        if gave_up > 0 {
            format!(", {gave_up} given up (search limits)")
        } else {
            String::new()
        },
        started.elapsed().as_secs_f64()
    );
    let ok = none == 0 && (a.any || multiple == 0);
    Ok(if gave_up > 0 {
        ExitCode::from(GAVE_UP)
    } else if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

/// Counts what the search found for puzzle `p` and writes its output: the solution shown, or a
/// line about a puzzle with no grid to show.
fn answer(a: &Args, p: &Puzzle, c: &Classified, n: &mut Counts, out: &mut String) -> Result<()> {
    // A line about a puzzle with no grid to show (`line N: …`): under --pretty a `#` comment
    // and a blank line, so that the output stays a file the blocks reader takes back.
    let note = |out: &mut String, text: &str| {
        if a.pretty {
            writeln!(out, "# {text}\n")
        } else {
            writeln!(out, "{text}")
        }
    };
    let r = match c {
        Classified::Known(r) => r,
        Classified::GaveUp { .. } => {
            n.gave_up += 1;
            note(out, &gave_up_line(c, p.line).expect("gave up"))?;
            return Ok(());
        }
    };
    let shown = match r {
        Solutions::Unique(s) => {
            n.unique += 1;
            Some(s)
        }
        Solutions::Multiple(s) => {
            n.multiple += 1;
            a.any.then_some(s)
        }
        Solutions::None => {
            n.none += 1;
            None
        }
    };
    match shown {
        Some(s) => show(a.pretty, p, s, n, out),
        None => {
            let what = match r {
                Solutions::None => "no solution",
                _ => "multiple solutions",
            };
            note(out, &format!("line {}: {what}", p.line))?;
            Ok(())
        }
    }
}

/// Writes solution `s` of puzzle `p`, checked against the rules and the clues, and compared
/// with the file's solution where it gives one.
fn show(pretty: bool, p: &Puzzle, s: &Grid, n: &mut Counts, out: &mut String) -> Result<()> {
    s.verify_solution_of(&p.grid).map_err(|e| {
        anyhow!(
            "internal error: the solver's answer to line {} is wrong: {e}",
            p.line
        )
    })?;
    if let Some(given) = &p.solution {
        if given == s {
            n.as_file += 1;
        } else {
            n.not_as_file += 1;
        }
    }
    if pretty {
        // A `#` header keeps the output a file the blocks reader takes back.
        writeln!(out, "# line {}:\n{}", p.line, s.to_pretty())?;
    } else {
        writeln!(out, "{}", s.to_line())?;
    }
    Ok(())
}

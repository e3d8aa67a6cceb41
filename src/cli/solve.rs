//! `gpu-sudoku solve FILE`: the exact solver on every puzzle of a file.
//!
//! One output line per puzzle, in file order: the solution (one-line format), or
//! `line N: no solution`, or `line N: multiple solutions` (with `--any`: one of the solutions).
//! Every solution printed has been checked against the rules and the clues.
//! Exit code: 0 when every puzzle has exactly one solution (with `--any`: at least one),
//! 2 when some puzzle has none (or, without `--any`, several), 1 on an error such as bad input.

use anyhow::{anyhow, Result};
use gpu_sudoku::exact::{classify, Solutions};
use gpu_sudoku::puzzle::read_puzzles;
use rayon::prelude::*;
use std::fmt::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle file (`-` reads standard input).
    pub file: String,
    /// Side length (4, 9, 16, 25, 36, 49, 64) when the file's layout leaves it open.
    #[arg(long)]
    pub size: Option<usize>,
    /// Print boxed grids for people instead of one line per puzzle.
    #[arg(long)]
    pub pretty: bool,
    /// For a puzzle with several solutions, print one of them (and count it as solved).
    #[arg(long)]
    pub any: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let file = read_puzzles(&a.file, a.size)?;
    let started = std::time::Instant::now();
    let pb = super::progress::bar(file.puzzles.len(), "solving");
    let results: Vec<Solutions> = file
        .puzzles
        .par_iter()
        .map(|p| {
            let r = classify(&p.grid);
            pb.inc(1);
            r
        })
        .collect();
    pb.finish_and_clear();
    let (mut unique, mut multiple, mut none) = (0, 0, 0);
    let mut out = String::new();
    for (p, r) in file.puzzles.iter().zip(&results) {
        let shown = match r {
            Solutions::Unique(s) => {
                unique += 1;
                Some(s)
            }
            Solutions::Multiple(s) => {
                multiple += 1;
                a.any.then_some(s)
            }
            Solutions::None => {
                none += 1;
                None
            }
        };
        match shown {
            Some(s) => {
                s.verify_solution_of(&p.grid).map_err(|e| {
                    anyhow!(
                        "internal error: the solver's answer to line {} is wrong: {e}",
                        p.line
                    )
                })?;
                if a.pretty {
                    writeln!(out, "line {}:\n{}", p.line, s.to_pretty())?;
                } else {
                    writeln!(out, "{}", s.to_line())?;
                }
            }
            None => {
                let what = match r {
                    Solutions::None => "no solution",
                    _ => "multiple solutions",
                };
                if a.pretty {
                    writeln!(out, "line {}: {what}\n", p.line)?;
                } else {
                    writeln!(out, "line {}: {what}", p.line)?;
                }
            }
        }
    }
    super::progress::print_stdout(&out)?;
    errln!(
        "{}: {} puzzles, {unique} unique, {multiple} with several solutions, {none} without a solution ({:.3} s)",
        file.path,
        file.puzzles.len(),
        started.elapsed().as_secs_f64()
    );
    let ok = none == 0 && (a.any || multiple == 0);
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

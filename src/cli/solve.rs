//! `gpu-sudoku solve FILE`: the exact solver on every puzzle of a file.
//!
//! One output line per puzzle, in file order: the solution (one-line format), or
//! `line N: no solution`, or `line N: multiple solutions` (with `--any`: one of the solutions),
//! or `line N: gave up after K nodes (T s)` when `--max-nodes` or `--time-limit` stopped the
//! search. Every solution printed has been checked against the rules and the clues.
//! Exit code: 0 when every puzzle has exactly one solution (with `--any`: at least one),
//! 2 when some puzzle has none (or, without `--any`, several), 3 when the search gave up on
//! some puzzle (before 2), 1 on an error such as bad input.

use super::args::InputArgs;
use anyhow::{anyhow, ensure, Result};
use gpu_sudoku::exact::{Config, Solutions, Solver};
use gpu_sudoku::puzzle::Puzzle;
use rayon::prelude::*;
use std::fmt::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Exit status when the search gave up on some puzzle (`solve` and `rate`).
pub const GAVE_UP: u8 = 3;

/// Search limits per puzzle, shared by `solve` and `rate`.
#[derive(clap::Args, Debug, Clone)]
pub struct SearchLimits {
    /// Give up on a puzzle after this many search nodes (0: no limit); it is then reported as
    /// `line N: gave up after K nodes` (`# line N: …` under `solve --pretty`) and the exit
    /// status is 3.
    #[arg(long, default_value_t = 10_000_000, value_name = "N")]
    pub max_nodes: u64,
    /// Give up on a puzzle after this many seconds of search (0: no limit).
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    pub time_limit: f64,
}

impl SearchLimits {
    /// The default exact solver with these limits.
    pub fn config(&self) -> Result<Config> {
        ensure!(
            self.time_limit.is_finite() && self.time_limit >= 0.0,
            "--time-limit {} is not a number of seconds: give one such as 60, or 0 for no limit",
            self.time_limit
        );
        let time_limit = Duration::try_from_secs_f64(self.time_limit).map_err(|_| {
            anyhow!(
                "--time-limit {} is too large: give at most {} seconds, or 0 for no limit",
                self.time_limit,
                u32::MAX
            )
        })?;
        Ok(Config {
            node_limit: (self.max_nodes > 0).then_some(self.max_nodes),
            time_limit: (!time_limit.is_zero()).then_some(time_limit),
            ..Config::default()
        })
    }
}

/// What the search found for one puzzle within the limits.
pub enum Classified {
    Known(Solutions),
    GaveUp { nodes: u64, seconds: f64 },
}

impl Classified {
    /// `line N: gave up after K nodes (T s)`, or None when the answer is known.
    pub fn gave_up_line(&self, line: usize) -> Option<String> {
        match self {
            Classified::Known(_) => None,
            Classified::GaveUp { nodes, seconds } => Some(format!(
                "line {line}: gave up after {nodes} nodes ({seconds:.1} s); raise --max-nodes or --time-limit"
            )),
        }
    }
}

/// Classifies every puzzle (none, unique, several) in parallel within `limits`, with a progress
/// bar labelled `what` (on a terminal only) that also shows the nodes searched so far.
pub fn classify_all(
    puzzles: &[Puzzle],
    limits: &SearchLimits,
    what: &str,
) -> Result<Vec<Classified>> {
    let config = limits.config()?;
    let nodes = Arc::new(AtomicU64::new(0));
    let pb = super::progress::bar(puzzles.len(), what);
    let done = AtomicBool::new(false);
    let results = std::thread::scope(|scope| {
        let ticker = (!pb.is_hidden()).then(|| {
            scope.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    let k = nodes.load(Ordering::Relaxed);
                    if k > 0 {
                        pb.set_message(format!("{what} ({k} nodes searched)"));
                    }
                    std::thread::park_timeout(Duration::from_millis(200));
                }
            })
        });
        let results: Vec<Classified> = puzzles
            .par_iter()
            .map(|p| {
                let started = Instant::now();
                let mut solver = Solver::new(config).with_node_counter(Arc::clone(&nodes));
                let r = match solver.classify(&p.grid) {
                    Some(s) => Classified::Known(s),
                    None => Classified::GaveUp {
                        nodes: solver.stats().nodes,
                        seconds: started.elapsed().as_secs_f64(),
                    },
                };
                pb.inc(1);
                r
            })
            .collect();
        done.store(true, Ordering::Relaxed);
        if let Some(t) = ticker {
            t.thread().unpark();
        }
        results
    });
    pb.finish_and_clear();
    Ok(results)
}

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

pub fn run(a: Args) -> Result<ExitCode> {
    a.limits.config()?;
    let file = a.input.read(&a.file)?;
    let started = Instant::now();
    let results = classify_all(&file.puzzles, &a.limits, "solving")?;
    let (mut unique, mut multiple, mut none, mut gave_up) = (0, 0, 0, 0);
    // Puzzles whose file gives a solution: how many answers were compared with it, how many
    // differ (possible only where the puzzle has several solutions).
    let (mut as_file, mut not_as_file) = (0, 0);
    let mut out = String::new();
    // A line about a puzzle with no grid to show (`line N: …`): under --pretty a `#` comment
    // and a blank line, so that the output stays a file the blocks reader takes back.
    let note = |out: &mut String, text: &str| {
        if a.pretty {
            writeln!(out, "# {text}\n")
        } else {
            writeln!(out, "{text}")
        }
    };
    for (p, c) in file.puzzles.iter().zip(&results) {
        let r = match c {
            Classified::Known(r) => r,
            Classified::GaveUp { .. } => {
                gave_up += 1;
                note(&mut out, &c.gave_up_line(p.line).expect("gave up"))?;
                continue;
            }
        };
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
                if let Some(given) = &p.solution {
                    if given == s {
                        as_file += 1;
                    } else {
                        not_as_file += 1;
                    }
                }
                if a.pretty {
                    // A `#` header keeps the output a file the blocks reader takes back.
                    writeln!(out, "# line {}:\n{}", p.line, s.to_pretty())?;
                } else {
                    writeln!(out, "{}", s.to_line())?;
                }
            }
            None => {
                let what = match r {
                    Solutions::None => "no solution",
                    _ => "multiple solutions",
                };
                note(&mut out, &format!("line {}: {what}", p.line))?;
            }
        }
    }
    super::output::stdout(&out);
    if as_file + not_as_file > 0 {
        errln!(
            "{}: {} answers compared with the file's solution column: {as_file} equal, {not_as_file} differ",
            file.path,
            as_file + not_as_file
        );
    }
    errln!(
        "{}: {} puzzles, {unique} unique, {multiple} with several solutions, {none} without a solution{} ({:.3} s)",
        file.path,
        file.puzzles.len(),
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

//! `gpu-sudoku trace`: the step-by-step evolution of one ILCA run (the data behind the paper's
//! Fig. 3 and 4): per step the grid with the changed cells marked and the counts of conflicts,
//! rewards, penalties and resets; `--csv` adds per step and cell the state, its degree, the
//! feedback and the normalised probability vector the state was chosen from.
//!
//! `--algo rfss`: the species-proportion history of one RFSS run (Horn's Fig. 3), sampled every
//! `--every` generations; `--csv` writes every species' proportion at every sample.

use super::args::{Algo, InputArgs, OnePuzzle};
use super::ilca_args::IlcaArgs;
use super::output::Output;
use super::rfss_args::RfssArgs;
use anyhow::{bail, Result};
use gpu_sudoku::ilca::trace;
use gpu_sudoku::puzzle::{symbol_for, Grid};
use std::fmt::Write as _;
use std::process::ExitCode;

/// The trace's text goes to standard error when `--csv -` takes standard output, so that the
/// CSV stays a CSV (as `batch` and `compare` move their table off a report's stream).
static TEXT_TO_STDERR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn text(s: &str) {
    if TEXT_TO_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
        super::output::stderr(s)
    } else {
        super::output::stdout(s)
    }
}

macro_rules! tln {
    ($($t:tt)*) => {
        text(&format!("{}\n", format_args!($($t)*)))
    };
}

macro_rules! tout {
    ($($t:tt)*) => {
        text(&format!($($t)*))
    };
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub which: OnePuzzle,
    /// Which run (0-based): with the same seed, the same instance as in `batch` (ILCA only).
    #[arg(long, default_value_t = 0)]
    pub run: usize,
    /// Algorithm: ilca or rfss (plain RFSS on the CPU reference; no enhancement).
    #[arg(long, value_enum, default_value_t = Algo::Ilca)]
    pub algo: Algo,
    #[command(flatten)]
    pub max_iterations: super::args::MaxIterations,
    #[command(flatten)]
    pub ilca: IlcaArgs,
    #[command(flatten)]
    pub rfss: RfssArgs,
    /// RFSS: sample the proportions every N generations (generation 0 and the last included)
    /// [default: 1000].
    #[arg(long, value_name = "N")]
    pub every: Option<u32>,
    /// ILCA: write per step and cell: state, changed, degree, feedback, reset and
    /// probabilities. RFSS: per sample the generation, the read-off's conflicts and every
    /// species' proportion (columns `n4r1c3` = numeral 4 in row 1, column 3). `-` writes it to
    /// standard output, the trace's text then going to standard error.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Print only the per-step counts, not the grids (ILCA).
    #[arg(long)]
    pub no_grids: bool,
}

/// The puzzle the argument names (see [`InputArgs::one`]); the `--csv` output is checked first
/// (before any work).
fn load(a: &Args) -> Result<(Grid, String)> {
    if let Some(path) = &a.csv {
        super::output::check(&[&a.which.puzzle], &[Output::new("--csv", path)])?;
    }
    a.input.one(&a.which)
}

/// The grid with changed cells in brackets.
fn render(choice: &[u8], changed: &[bool], b: usize) -> String {
    let n = b * b;
    let mut out = String::new();
    for r in 0..n {
        if r > 0 && r % b == 0 {
            let seg = "-".repeat(3 * b);
            let _ = writeln!(out, "  {}", vec![seg; b].join("+"));
        }
        out.push_str("  ");
        for c in 0..n {
            if c > 0 && c % b == 0 {
                out.push('|');
            }
            let i = r * n + c;
            let s = symbol_for(choice[i]);
            if changed[i] {
                let _ = write!(out, "[{s}]");
            } else {
                let _ = write!(out, " {s} ");
            }
        }
        out.push('\n');
    }
    out
}

pub fn run(mut a: Args) -> Result<ExitCode> {
    a.max_iterations.apply(a.algo, &mut a.ilca, &mut a.rfss);
    TEXT_TO_STDERR.store(
        a.csv.as_deref() == Some("-"),
        std::sync::atomic::Ordering::Relaxed,
    );
    if a.algo == Algo::Rfss {
        return run_rfss(a);
    }
    a.rfss.refuse_for("ilca")?;
    if a.every.is_some() {
        bail!("--every applies only to --algo rfss (an ILCA trace shows every step)");
    }
    let params = a.ilca.params()?;
    let (puzzle, origin) = load(&a)?;
    let start = trace::start(&puzzle, &params, a.which.index, a.run)?;
    let b = start.b;
    tln!(
        "ILCA trace of {} (puzzle {}, run {}): {}",
        origin,
        a.which.index,
        a.run,
        gpu_sudoku::job::batch_table::describe(&params, a.ilca.preset_name(&params))
    );
    if !a.no_grids {
        tln!("puzzle ({} clues):", puzzle.clue_count());
        tout!("{}", render(puzzle.cells(), &vec![false; b.pow(4)], b));
    }
    if let Some((pruned, placed)) = trace::pruned(&puzzle, &params) {
        // The engine starts from the pruned puzzle: say what the pruning placed, so that the
        // cells it fixed do not seem to come from nowhere at step 1.
        tln!(
            "--prune {} placed {} cells before step 1 (not in the paper){}",
            params.prune,
            placed.iter().filter(|&&p| p).count(),
            if a.no_grids { "" } else { ", marked:" }
        );
        if !a.no_grids {
            tout!("{}", render(pruned.cells(), &placed, b));
        }
    }
    let mut csv = match &a.csv {
        Some(_) => {
            let mut w = gpu_sudoku::csv_io::Writer::new(Vec::new());
            w.row(trace::csv_header(b * b))?;
            Some(w)
        }
        None => None,
    };
    let end = trace::record(&puzzle, &params, a.which.index, a.run, |s| {
        tln!("{}", step_line(s));
        if !a.no_grids {
            tout!("{}", render(&s.states, &s.changed, b));
        }
        if let Some(out) = csv.as_mut() {
            s.write_csv(&start.clue, out)?;
        }
        Ok(())
    })?;
    match end.solved_at {
        Some(s) => tln!(
            "solved at step {s} (verified against the rules and the clues): {}",
            end.grid.to_line()
        ),
        None => tln!(
            "not solved within {} steps: {} conflicting pairs remain: {}",
            params.steps,
            end.grid.conflict_pairs(),
            end.grid.to_line()
        ),
    }
    if let (Some(path), Some(csv)) = (&a.csv, csv) {
        Output::new("--csv", path).write(&csv.finish()?)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A step's counts, one line.
fn step_line(s: &trace::TraceStep) -> String {
    let info = &s.info;
    format!(
        "step {}: {} changed, {} in conflict, {} rewarded, {} penalised{}{}",
        s.step,
        info.changed,
        info.conflicted,
        info.rewarded,
        info.penalised,
        if info.emptied > 0 {
            format!(
                " ({} left with no weight: initial weights back)",
                info.emptied
            )
        } else {
            String::new()
        },
        if info.reset > 0 {
            format!(", {} reset", info.reset)
        } else {
            String::new()
        }
    )
}

/// `trace --algo rfss`: one plain RFSS run on the CPU reference, sampled every `--every`
/// generations: conflicts of the read-off, living species and the spread of proportions.
fn run_rfss(a: Args) -> Result<ExitCode> {
    let given = a.ilca.given();
    if !given.is_empty() || a.run != 0 {
        let mut all = given;
        if a.run != 0 {
            all.push("--run");
        }
        bail!(
            "{} {} only to --algo ilca (RFSS is deterministic: one run, no seed)",
            all.join(", "),
            if all.len() == 1 { "applies" } else { "apply" }
        );
    }
    let params = a.rfss.params()?;
    let every = a.every.unwrap_or(1000);
    let (puzzle, origin) = load(&a)?;
    let t = gpu_sudoku::rfss::trace(&puzzle, &params, every)?;
    tln!(
        "RFSS trace of {origin} (puzzle {}): {} species, max-generations {}, underflow {} below 2^-{}, sampled every {every} generations",
        a.which.index,
        t.species.len(),
        params.max_generations,
        params.underflow,
        params.underflow_log2,
    );
    tln!(
        "{:>10}  {:>9}  {:>13}  {:>11}  {:>11}",
        "generation",
        "conflicts",
        "alive species",
        "max p",
        "min p > 0"
    );
    for k in 0..t.generations.len() {
        let p = &t.proportions[k];
        let alive: Vec<f32> = p.iter().copied().filter(|&v| v > 0.0).collect();
        let max = alive.iter().copied().fold(0.0f32, f32::max);
        let min = alive.iter().copied().fold(f32::INFINITY, f32::min);
        tln!(
            "{:>10}  {:>9}  {:>13}  {:>11.3e}  {:>11.3e}",
            t.generations[k],
            t.conflicts[k],
            alive.len(),
            max,
            min
        );
    }
    let o = &t.outcome;
    match o.solved_at {
        Some(g) if o.solved() => tln!(
            "solved: the read-off is a valid grid from generation {g} (verified against the rules and the clues): {}",
            o.grid
        ),
        _ => tln!(
            "not solved after {} generations: {} conflicts in the read-off: {}",
            o.generations, o.conflicts, o.grid
        ),
    }
    if let Some(path) = &a.csv {
        let mut text = Vec::new();
        gpu_sudoku::rfss::write_trace_csv(&t, &mut text)?;
        Output::new("--csv", path).write(&text)?;
        errln!(
            "{} samples of {} species written to {path}",
            t.generations.len(),
            t.species.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

//! The command line: one module per subcommand, each a thin layer over the library.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// `println!` that never panics: a closed or full standard output is remembered (see
/// `output.rs`) and the command goes on to write its files.
macro_rules! outln {
    () => {
        $crate::cli::output::stdout("\n")
    };
    ($($t:tt)*) => {
        $crate::cli::output::stdout(&format!("{}\n", format_args!($($t)*)))
    };
}

/// `eprintln!` that never panics (see [`outln!`]).
macro_rules! errln {
    ($($t:tt)*) => {
        $crate::cli::output::stderr(&format!("{}\n", format_args!($($t)*)))
    };
}

mod adapters;
mod args;
mod batch;
mod bench;
mod cnf;
mod compare;
mod completions;
mod generate;
mod ilca_args;
mod merge;
pub mod output;
mod plot;
mod progress;
mod rate;
mod reproduce;
mod rfss;
mod rfss_args;
mod schema;
mod solve;
mod sweep;
mod trace;

/// `-V`: version and commit; `--version`: the whole build identity (crate::build_info).
static SHORT_VERSION: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| gpu_sudoku::build_info::BUILD.short());
static LONG_VERSION: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| gpu_sudoku::build_info::BUILD.long());

#[derive(Parser, Debug)]
#[command(
    name = "gpu-sudoku",
    version = SHORT_VERSION.as_str(),
    long_version = LONG_VERSION.as_str(),
    about = "Bio-inspired Sudoku solvers (ILCA, RFSS) batched on the GPU, checked against CPU references",
    long_about = None
)]
pub struct Cli {
    /// Worker threads of the CPU engines and of result checking [default: one per core; the
    /// RAYON_NUM_THREADS environment variable sets the same].
    #[arg(short = 'j', long, global = true, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run ILCA (or RFSS with --algo rfss) on puzzle files, several runs each, and report
    /// solved %, steps and speed.
    Batch(batch::Args),
    /// Show one ILCA run step by step (grids, conflicts, rewards, penalties, probabilities).
    Trace(trace::Args),
    /// Run one ILCA batch on the CPU reference and on the GPU, compare throughput and results.
    Bench(bench::Args),
    /// Sweep one or two ILCA parameters over ranges on puzzle files: CSV of resolution rates + figures.
    Sweep(sweep::Args),
    /// Reproduce a paper's results in one command: paper vs measured, with 95% intervals and
    /// time-to-solution (the tables of docs/REPRODUCTION.md, docs/RFSS.md and docs/BASELINES.md
    /// are `reproduce ilca|rfss|baselines --markdown`).
    #[command(subcommand)]
    Reproduce(reproduce::Command),
    /// Run RFSS (resource-defined fitness sharing, Horn 2017) on every puzzle of a file.
    Rfss(rfss::Args),
    /// Compare the classic baselines, ILCA and RFSS (CPU) on the same puzzle files:
    /// solved %, wall time per attempt and iterations per algorithm and file.
    Compare(compare::Args),
    /// Solve every puzzle of a file exactly (constraint propagation + MRV); reports puzzles
    /// with no or several solutions by line.
    Solve(solve::Args),
    /// Write a puzzle as a SAT problem (DIMACS CNF) for any SAT solver; `--decode` reads the
    /// solver's answer back as a grid, verified against the rules and the clues.
    Cnf(cnf::Args),
    /// Rate puzzles like a person would solve them: score, tier, clues, blank fraction, solutions.
    Rate(rate::Args),
    /// Generate puzzles: the paper model (blank fraction d) or the rated model (unique, tiered).
    Generate(generate::Args),
    /// Redraw a sweep's figures from its CSV.
    PlotSweep(plot::SweepArgs),
    /// Draw an ILCA trace CSV: grids by step (paper Fig. 3) and probability histories (Fig. 4).
    PlotTrace(plot::TraceArgs),
    /// Draw the series of a wide CSV over x (e.g. RFSS species proportions, Horn's Fig. 3).
    PlotLines(plot::LinesArgs),
    /// Join the JSON reports of the shards of one run (`--shard K/N`) into the unsharded report.
    Merge(merge::Args),
    /// List the GPU adapters wgpu can see (their index or name goes to --adapter).
    Adapters(adapters::Args),
    /// Print the JSON Schema of a report kind (batch, compare, sweep, rate, rfss, reproduce).
    Schema(schema::Args),
    /// Print shell completions (bash, zsh, fish, elvish, powershell) made from this command line.
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff) made from this command line.
    Man(completions::ManArgs),
}

/// Runs the command line; errors are printed as `error: …` with their causes (parameters named
/// by their flags) and exit code 1.
pub fn main() -> ExitCode {
    // A negative number after a flag is its value (`--sr -1` is refused as a bad --sr, not as
    // an unknown argument `-1`), in every subcommand.
    fn negatives_are_values(c: clap::Command) -> clap::Command {
        c.allow_negative_numbers(true)
            .mut_subcommands(negatives_are_values)
    }
    let matches = negatives_are_values(<Cli as clap::CommandFactory>::command()).get_matches();
    let cli =
        <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Some(n) = cli.threads {
        // The first thing to touch the pool: nothing has built it yet.
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n as usize)
            .build_global()
        {
            errln!("error: -j {n}: cannot start the worker threads: {e}");
            return ExitCode::FAILURE;
        }
    }
    let result = match cli.command {
        Command::Batch(a) => batch::run(a),
        Command::Trace(a) => trace::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Reproduce(c) => reproduce::run(c),
        Command::Rfss(a) => rfss::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Cnf(a) => cnf::run(a),
        Command::Rate(a) => rate::run(a),
        Command::Generate(a) => generate::run(a),
        Command::PlotSweep(a) => plot::run_sweep(a),
        Command::PlotTrace(a) => plot::run_trace(a),
        Command::PlotLines(a) => plot::run_lines(a),
        Command::Merge(a) => merge::run(a),
        Command::Adapters(a) => adapters::run(a),
        Command::Schema(a) => schema::run(a),
        Command::Completions(a) => completions::completions(a),
        Command::Man(a) => completions::man(a),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            errln!("error: {}", args::explain(&e));
            ExitCode::FAILURE
        }
    };
    // A closed or full standard output or error decides the exit code (141, or 1).
    output::stream_exit_code().map_or(code, ExitCode::from)
}

#[cfg(test)]
mod tests {
    /// clap checks a command's flags only when it parses that command: a flag name used twice
    /// (e.g. by a flattened group) would panic at run time. This checks every subcommand now.
    #[test]
    fn every_command_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}

//! `gpu-sudoku batch`: runs ILCA on every puzzle of one or more files, several runs each, and
//! reports a table per file (the paper's Table 2 layout), plus optional JSON and CSV.

use super::ilca_args::IlcaArgs;
use crate::gpu::Backend;
use crate::ilca::run::IlcaRunner;
use crate::puzzle::{read_puzzles, Grid};
use crate::report::batch::{ilca_json, instances_csv, table, BatchInfo, FileResults};
use anyhow::{bail, Context, Result};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle files (one table row each; `-` reads standard input).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Runs per puzzle (independent random streams).
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    #[command(flatten)]
    pub ilca: IlcaArgs,
    /// Where to run: auto (GPU if possible, else CPU), cpu or gpu.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// GPU adapter (index or part of its name, see `gpu-sudoku adapters`).
    #[arg(long)]
    pub adapter: Option<String>,
    /// Write the full report (parameters, summaries, every instance) as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Write one CSV row per instance.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<String>,
    /// Force the grid size (side length: 4, 9, 16, 25…) instead of detecting it.
    #[arg(long, value_name = "N")]
    pub size: Option<usize>,
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.runs == 0 {
        bail!("--runs must be at least 1 (runs per puzzle)");
    }
    let params = a.ilca.params()?;
    // Read every file first: a bad file fails before any work is done.
    let mut inputs = Vec::new();
    for path in &a.files {
        let f = read_puzzles(path, a.size)?;
        if f.puzzles.is_empty() {
            bail!("{path}: no puzzles in the file");
        }
        inputs.push(f);
    }
    let runner = IlcaRunner::open(a.backend, a.adapter.as_deref())?;
    if let Some(note) = &runner.note {
        eprintln!("{note}");
    }
    let total: u64 = inputs
        .iter()
        .map(|f| (f.puzzles.len() * a.runs) as u64)
        .sum();
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(total);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix:>8} [{bar:40}] {pos}/{len} instances, {elapsed} (eta {eta})",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut files = Vec::new();
    for f in &inputs {
        bar.set_prefix(f.label());
        let grids: Vec<Grid> = f.puzzles.iter().map(|p| p.grid.clone()).collect();
        let t0 = Instant::now();
        let results = runner
            .run(&grids, a.runs, &params, &|| bar.inc(1))
            .with_context(|| format!("running {}", f.path))?;
        let wall = t0.elapsed();
        // Every engine verifies; check once more here, so nothing unverified is ever reported.
        for r in results.iter().filter(|r| r.solved) {
            let g = crate::puzzle::parse_str(&r.grid, Some(grids[r.puzzle].side()))?
                .remove(0)
                .grid;
            if let Err(why) = g.verify_solution_of(&grids[r.puzzle]) {
                bail!(
                    "internal error: engine reported puzzle {} run {} solved but {why}",
                    r.puzzle,
                    r.run
                );
            }
        }
        files.push(FileResults {
            path: f.path.clone(),
            label: f.label(),
            side: f.b * f.b,
            lines: f.puzzles.iter().map(|p| p.line).collect(),
            results,
            wall,
        });
    }
    bar.finish_and_clear();
    let engine = runner.engine();
    println!(
        "ILCA on {}{}: {} runs/puzzle, steps {}, lr {}, lp {}, sr {}, restart {}, penalty floor {}, compare {:?}, tie {:?}, reset check {:?}, seed {}",
        engine.name(),
        engine.adapter().map(|a| format!(" ({a})")).unwrap_or_default(),
        a.runs,
        params.steps,
        params.lr,
        params.lp,
        params.sr,
        params.restart,
        params.penalty_floor,
        params.compare,
        params.tie,
        params.reset_check,
        params.seed
    );
    print!("{}", table(&files));
    let command: Vec<String> = std::env::args().collect();
    if let Some(path) = &a.json {
        let info = BatchInfo {
            command: &command,
            backend: engine.name(),
            adapter: engine.adapter(),
            runs: a.runs,
            params: &params,
        };
        std::fs::write(path, ilca_json(&info, &files))
            .with_context(|| format!("cannot write --json {path}"))?;
    }
    if let Some(path) = &a.csv {
        std::fs::write(path, instances_csv(&files))
            .with_context(|| format!("cannot write --csv {path}"))?;
    }
    Ok(ExitCode::SUCCESS)
}

//! `gpu-sudoku batch`: runs ILCA (several runs each) or RFSS (deterministic: once) on every
//! puzzle of one or more files and reports a table per file (the ILCA paper's Table 2 layout),
//! plus optional JSON and CSV of the same shape for both algorithms.

use super::args::{print_table, DeviceArgs, ReportArgs};
use super::ilca_args::IlcaArgs;
use super::rfss_args::RfssArgs;
use anyhow::{bail, Context, Result};
use gpu_sudoku::ilca::{self, Batch, IlcaParams};
use gpu_sudoku::puzzle::{read_puzzles, Grid};
use gpu_sudoku::report::batch::{batch_json, instances_csv, table, BatchInfo, FileResults};
use gpu_sudoku::report::InstanceResult;
use gpu_sudoku::rfss::{self, RfssParams};
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle files (one table row each; `-` reads standard input).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Algorithm: ilca (learning cellular automata) or rfss (resource-defined fitness sharing).
    #[arg(long, value_enum, default_value_t = Algo::Ilca)]
    pub algo: Algo,
    /// Runs per puzzle (independent random streams) [default: 10]. RFSS is deterministic: it
    /// runs each puzzle once.
    #[arg(long)]
    pub runs: Option<usize>,
    #[command(flatten)]
    pub ilca: IlcaArgs,
    #[command(flatten)]
    pub rfss: RfssArgs,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub reports: ReportArgs,
    /// Force the grid size (side length: 4, 9, 16, 25…) instead of detecting it.
    #[arg(long, value_name = "N")]
    pub size: Option<usize>,
}

/// The algorithms `batch` and `trace` run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Algo {
    Ilca,
    Rfss,
}

/// The chosen algorithm with its parameters.
enum Run {
    Ilca(IlcaParams, usize),
    Rfss(RfssParams),
}

/// Text of the JSON `note` and the table header for RFSS.
const RFSS_NOTE: &str =
    "RFSS is deterministic (no random draws): every run would be identical, so each puzzle runs once";

pub fn run(a: Args) -> Result<ExitCode> {
    if a.runs == Some(0) {
        bail!("--runs must be at least 1 (runs per puzzle)");
    }
    let run = match a.algo {
        Algo::Ilca => {
            a.rfss.refuse_for("ilca")?;
            Run::Ilca(a.ilca.params()?, a.runs.unwrap_or(10))
        }
        Algo::Rfss => {
            let changed = a.ilca.changed();
            if !changed.is_empty() {
                bail!(
                    "{} {} only to --algo ilca, not to --algo rfss",
                    changed.join(", "),
                    if changed.len() == 1 {
                        "applies"
                    } else {
                        "apply"
                    }
                );
            }
            let params = a.rfss.params()?;
            if a.runs.is_some_and(|r| r > 1) {
                errln!("note: {RFSS_NOTE}");
            }
            Run::Rfss(params)
        }
    };
    // Read every file first: a bad file fails before any work is done.
    let mut inputs = Vec::new();
    for path in &a.files {
        let f = read_puzzles(path, a.size)?;
        if f.puzzles.is_empty() {
            bail!("{path}: no puzzles in the file");
        }
        inputs.push(f);
    }
    let input_paths: Vec<&str> = a.files.iter().map(String::as_str).collect();
    a.reports.check(&input_paths)?;
    let device = a.device.open()?;
    let runs = match &run {
        Run::Ilca(_, runs) => *runs,
        Run::Rfss(_) => 1,
    };
    let total: u64 = inputs.iter().map(|f| (f.puzzles.len() * runs) as u64).sum();
    let bar = super::progress::bar(total as usize, "");
    let mut files = Vec::new();
    for f in &inputs {
        bar.set_message(f.label());
        let grids: Vec<Grid> = f.puzzles.iter().map(|p| p.grid.clone()).collect();
        let t0 = Instant::now();
        let progress = |k: usize| bar.inc(k as u64);
        let (results, details): (Vec<InstanceResult>, Vec<serde_json::Value>) = match &run {
            Run::Ilca(params, runs) => (
                ilca::run::run(&device, &Batch::runs(&grids, params, *runs), &progress)
                    .with_context(|| format!("running {}", f.path))?,
                Vec::new(),
            ),
            Run::Rfss(params) => {
                let outcomes = rfss::run::run(&device, &grids, params, &progress)
                    .with_context(|| format!("running {}", f.path))?;
                let results = outcomes
                    .iter()
                    .enumerate()
                    .map(|(i, o)| o.to_instance_result(i))
                    .collect();
                let details = outcomes
                    .iter()
                    .map(serde_json::to_value)
                    .collect::<Result<_, _>>()?;
                (results, details)
            }
        };
        let wall = t0.elapsed();
        // Every engine verifies; check once more here, so nothing unverified is ever reported.
        for r in results.iter().filter(|r| r.solved) {
            let g = gpu_sudoku::puzzle::parse_str(&r.grid, Some(grids[r.puzzle].side()))?
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
            details,
        });
    }
    bar.finish_and_clear();
    let adapter = device
        .adapter()
        .map(|a| format!(" ({a})"))
        .unwrap_or_default();
    let adapter_name = device.adapter();
    let command: Vec<String> = std::env::args().collect();
    let (info, unit) = match &run {
        Run::Ilca(params, runs) => {
            print_table(&a.reports, &(format!(
                "ILCA on {}{adapter}: {runs} runs/puzzle, steps {}, lr {}, lp {}, sr {}, restart {}, penalty floor {}, compare {:?}, tie {:?}, reset check {:?}, seed {}",
                device.name(),
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
            ) + "\n"));
            let info = BatchInfo {
                algorithm: "ilca",
                command: &command,
                backend: device.name(),
                adapter: adapter_name.as_deref(),
                runs: *runs,
                seed: Some(params.seed),
                note: None,
                params: serde_json::to_value(params)?,
            };
            (info, "steps")
        }
        Run::Rfss(params) => {
            print_table(&a.reports, &(format!(
                "RFSS on {}{adapter}: 1 run/puzzle (deterministic), max generations {}, stable generations {}, underflow {:?} below 2^-{}, enhancement {:?}{}",
                device.name(),
                params.max_generations,
                params.stable_generations,
                params.underflow,
                params.underflow_log2,
                params.enhancement,
                if params.enhancement == rfss::Enhancement::Off {
                    String::new()
                } else {
                    format!(" (stall generations {})", params.stall_generations)
                }
            ) + "\n"));
            let info = BatchInfo {
                algorithm: "rfss",
                command: &command,
                backend: device.name(),
                adapter: adapter_name.as_deref(),
                runs: 1,
                seed: None,
                note: Some(RFSS_NOTE),
                params: serde_json::to_value(params)?,
            };
            (info, "gens")
        }
    };
    print_table(&a.reports, &table(&files, unit));
    a.reports
        .write(|| Ok(batch_json(&info, &files)), || instances_csv(&files))?;
    Ok(ExitCode::SUCCESS)
}

//! `gpu-sudoku batch`: runs ILCA (several runs each) or RFSS (deterministic: once) on every
//! puzzle of one or more files and reports a table, a row per file as each finishes (the ILCA
//! paper's Table 2 layout, with the rate's 95% interval and the time-to-solution), plus optional
//! JSON and CSV of the same shape for both algorithms. When the setting is one of the paper's and
//! the file a shipped paper tier, the paper's rate stands beside the measured one.

use super::args::{print_table, DeviceArgs, ReportArgs};
use super::ilca_args::{describe, IlcaArgs};
use super::rfss_args::RfssArgs;
use anyhow::{bail, Context, Result};
use gpu_sudoku::generate::paper_tier_of;
use gpu_sudoku::ilca::presets::{PaperRates, Preset};
use gpu_sudoku::ilca::{self, Batch, IlcaParams};
use gpu_sudoku::puzzle::{read_puzzles, Grid, PuzzleFile};
use gpu_sudoku::report::batch::{
    batch_json, instances_csv, BatchInfo, FileResults, Summary, Table,
};
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
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: Option<u32>,
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
    Ilca {
        params: IlcaParams,
        runs: usize,
        preset: Option<&'static str>,
    },
    Rfss(RfssParams),
}

/// Text of the JSON `note` and the table header for RFSS.
const RFSS_NOTE: &str =
    "RFSS is deterministic (no random draws): every run would be identical, so each puzzle runs once";

/// Runs per puzzle when `--runs` is not given (the paper's 10).
const DEFAULT_RUNS: u32 = 10;

/// Refuses the options of the other algorithm instead of ignoring them.
pub fn refuse(given: Vec<&str>, only_for: &str, not_for: &str) -> Result<()> {
    if !given.is_empty() {
        bail!(
            "{} {} only to --algo {only_for}, not to --algo {not_for}",
            given.join(", "),
            if given.len() == 1 { "applies" } else { "apply" }
        );
    }
    Ok(())
}

pub fn run(a: Args) -> Result<ExitCode> {
    let run = match a.algo {
        Algo::Ilca => {
            a.rfss.refuse_for("ilca")?;
            let params = a.ilca.params()?;
            Run::Ilca {
                preset: a.ilca.preset_name(&params),
                params,
                runs: a.runs.unwrap_or(DEFAULT_RUNS) as usize,
            }
        }
        Algo::Rfss => {
            refuse(a.ilca.given(), "ilca", "rfss")?;
            let params = a.rfss.params()?;
            if a.runs.is_some_and(|r| r > 1) {
                errln!("note: {RFSS_NOTE}");
            }
            Run::Rfss(params)
        }
    };
    // Outputs and inputs are checked before any work: a bad file fails before anything runs.
    let input_paths: Vec<&str> = a.files.iter().map(String::as_str).collect();
    super::args::refuse_stdin_twice(&input_paths)?;
    a.reports.check(&input_paths)?;
    let mut inputs = Vec::new();
    for path in &a.files {
        let f = read_puzzles(path, a.size)?;
        if f.puzzles.is_empty() {
            bail!("{path}: no puzzles in the file");
        }
        inputs.push(f);
    }
    let device = a.device.open()?;
    let say = |text: &str| print_table(&a.reports, text);
    let adapter = device
        .adapter()
        .map(|a| format!(" ({a})"))
        .unwrap_or_default();
    let (runs, unit, paper) = match &run {
        Run::Ilca {
            params,
            runs,
            preset,
        } => {
            say(&format!(
                "ILCA on {}{adapter}: {runs} runs/puzzle, {}\n",
                device.name(),
                describe(params, *preset)
            ));
            (
                *runs,
                "steps",
                Preset::paper_setting_of(params).and_then(|p| p.paper),
            )
        }
        Run::Rfss(params) => {
            say(&format!(
                "RFSS on {}{adapter}: 1 run/puzzle (deterministic), max-generations {}, \
                 stable-generations {}, underflow {} below 2^-{}, enhance {}{}\n",
                device.name(),
                params.max_generations,
                params.stable_generations,
                params.underflow,
                params.underflow_log2,
                params.enhancement,
                if params.enhancement == rfss::Enhancement::Off {
                    String::new()
                } else {
                    format!(" (stall-generations {})", params.stall_generations)
                }
            ));
            (1, "gens", None)
        }
    };
    // The paper's rate per file: only for a paper setting on a shipped paper tier.
    let tiers: Vec<Option<&'static str>> = inputs
        .iter()
        .map(|f| paper_tier_of(&f.header).map(|t| t.name()))
        .collect();
    let paper = paper.filter(|_| tiers.iter().any(Option::is_some));
    let labels: Vec<String> = inputs.iter().map(PuzzleFile::label).collect();
    let table = Table::new(&labels, unit, paper.is_some());
    let total: usize = inputs.iter().map(|f| f.puzzles.len() * runs).sum();
    let bar = super::progress::bar(total, "");
    let mut files = Vec::new();
    for (f, tier) in inputs.iter().zip(&tiers) {
        bar.set_message(f.label());
        let grids: Vec<Grid> = f.puzzles.iter().map(|p| p.grid.clone()).collect();
        let t0 = Instant::now();
        let progress = |k: usize| bar.inc(k as u64);
        let (results, details): (Vec<InstanceResult>, Vec<serde_json::Value>) = match &run {
            Run::Ilca { params, runs, .. } => (
                ilca::run::run(&device, &Batch::runs(&grids, params, *runs), &progress)
                    .with_context(|| format!("running {}", f.path))?,
                Vec::new(),
            ),
            Run::Rfss(params) => {
                let outcomes = rfss::run::run(&device, &grids, params, &progress)
                    .with_context(|| format!("running {}", f.path))?;
                rfss::run::records(&outcomes)?
            }
        };
        let wall = t0.elapsed();
        verify(&results, &grids)?;
        let file = FileResults {
            path: f.path.clone(),
            label: f.label(),
            side: f.b * f.b,
            lines: f.puzzles.iter().map(|p| p.line).collect(),
            results,
            wall,
            details,
        };
        if files.is_empty() {
            bar.suspend(|| say(&table.header()));
        }
        let rate = paper.zip(*tier).and_then(|(p, t)| p.tier(t));
        bar.suspend(|| say(&table.row(&file.label, &file.summary(), rate)));
        files.push(file);
    }
    bar.finish_and_clear();
    if files.len() > 1 {
        let rate = paper
            .filter(|_| tiers.iter().all(Option::is_some))
            .map(|p| p.overall);
        say(&table.row("overall", &Summary::overall(&files), rate));
    }
    if let Some(p) = paper {
        say(&paper_note(&p, &files, &tiers));
    }
    let command: Vec<String> = std::env::args().collect();
    let adapter_name = device.adapter();
    let info = match &run {
        Run::Ilca {
            params,
            runs,
            preset,
        } => BatchInfo {
            algorithm: "ilca",
            preset: *preset,
            command: &command,
            backend: device.name(),
            adapter: adapter_name.as_deref(),
            runs: *runs,
            seed: Some(params.seed),
            note: None,
            params: serde_json::to_value(params)?,
        },
        Run::Rfss(params) => BatchInfo {
            algorithm: "rfss",
            preset: None,
            command: &command,
            backend: device.name(),
            adapter: adapter_name.as_deref(),
            runs: 1,
            seed: None,
            note: Some(RFSS_NOTE),
            params: serde_json::to_value(params)?,
        },
    };
    a.reports.write(
        || Ok(batch_json(&info, &files)),
        || instances_csv(&info, &files),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Every engine verifies; check once more here, so nothing unverified is ever reported.
fn verify(results: &[InstanceResult], grids: &[Grid]) -> Result<()> {
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
    Ok(())
}

/// What a first run needs to read the paper column: which table it is, how far this reading
/// is from it, and where to go next.
fn paper_note(p: &PaperRates, files: &[FileResults], tiers: &[Option<&str>]) -> String {
    let gaps: Vec<String> = files
        .iter()
        .zip(tiers)
        .filter_map(|(f, t)| {
            let paper = p.tier((*t)?)?;
            Some(format!(
                "{} {:+.1}",
                t.unwrap(),
                f.summary().solved_pct - paper
            ))
        })
        .collect();
    format!(
        "paper: {} of Chatzinikolaou et al. 2024 (measured − paper, points: {}). No reading of the \
         paper reproduces its rates (docs/REPRODUCTION.md); `gpu-sudoku reproduce ilca` sets every \
         table beside its measurement, and `--preset improved` (not the paper) solves Evil.\n",
        p.table,
        if gaps.is_empty() {
            "–".into()
        } else {
            gaps.join(", ")
        }
    )
}

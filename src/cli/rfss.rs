//! `gpu-sudoku rfss FILE`: runs resource-defined fitness sharing on every puzzle of a file, one
//! row per puzzle (0-based, as everywhere), with `--json`/`--csv` records of every outcome.

use super::args::InputArgs;
use super::args::{print_table, DeviceArgs, ReportArgs};
use super::rfss_args::RfssArgs;
use anyhow::{bail, Result};
use gpu_sudoku::puzzle::Grid;
use gpu_sudoku::report::batch::csv_field;
use gpu_sudoku::report::schema::Header;
use gpu_sudoku::rfss::{self, Enhancement, RfssOutcome, RfssParams, Status};
use serde::Serialize;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle file (one puzzle per line, or n lines of integers); `-` reads standard input.
    pub file: String,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub rfss: RfssArgs,
    #[command(flatten)]
    pub reports: ReportArgs,
    /// GPU only: run without the per-dispatch generation cap that llvmpipe's loop limit needs,
    /// to measure what the cap costs on a real GPU (on lavapipe results then go wrong).
    #[arg(long)]
    pub no_loop_pass_cap: bool,
}

/// One puzzle's record in the JSON report.
#[derive(Serialize)]
struct PuzzleJson<'a> {
    puzzle: usize,
    line: usize,
    #[serde(flatten)]
    outcome: &'a RfssOutcome,
}

/// The JSON report: provenance and parameters like `batch`, then every puzzle's outcome.
#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    header: Header,
    algorithm: &'static str,
    backend: &'static str,
    adapter: Option<String>,
    path: &'a str,
    params: &'a RfssParams,
    puzzles: Vec<PuzzleJson<'a>>,
    timing: Timing,
}

#[derive(Serialize)]
struct Timing {
    wall_s: f64,
    generations_per_s: f64,
    species_updates_per_s: f64,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let params = a.rfss.params()?;
    a.reports.check(&[&a.file])?;
    let file = a.input.read(&a.file)?;
    let grids: Vec<Grid> = file.puzzles.iter().map(|p| p.grid.clone()).collect();
    let device = a.device.open()?;
    if a.no_loop_pass_cap && device.gpu().is_none() {
        bail!("--no-loop-pass-cap is a GPU setting: add --backend gpu");
    }
    let opts = rfss::gpu::GpuOptions {
        loop_pass_cap: !a.no_loop_pass_cap,
        ..Default::default()
    };
    let pb = super::progress::bar(grids.len(), "rfss");
    let t0 = Instant::now();
    let outcomes = rfss::run::run_with(&device, &grids, &params, &opts, &|k| pb.inc(k as u64))?;
    let secs = t0.elapsed().as_secs_f64();
    pb.finish_and_clear();
    // The puzzle's line (and its extra fields, e.g. a name) find it in the file.
    let mut t = format!(
        "{:>6}  {:>6}  {:<11}  {:>11}  {:>11}  {:>8}  {:>9}  {:>8}\n",
        "puzzle", "line", "status", "solved at", "generations", "species", "conflicts", "restarts"
    );
    for (i, (o, p)) in outcomes.iter().zip(&file.puzzles).enumerate() {
        t += &format!(
            "{:>6}  {:>6}  {:<11}  {:>11}  {:>11}  {:>8}  {:>9}  {:>8}{}\n",
            i,
            p.line,
            o.status.name(),
            o.solved_at.map(|g| g.to_string()).unwrap_or("-".into()),
            o.generations,
            o.species,
            o.conflicts,
            o.restarts,
            if p.extra.is_empty() {
                String::new()
            } else {
                format!("  {}", p.extra)
            }
        );
        if let Status::Unsolvable(r) = &o.status {
            t += &format!("        {r}\n");
        }
    }
    let updates: f64 = outcomes.iter().map(|o| o.species_updates as f64).sum();
    let gens: u64 = outcomes.iter().map(|o| o.generations as u64).sum();
    let solved = outcomes.iter().filter(|o| o.solved()).count();
    t += &format!(
        "{}: solved {solved}/{} on {} in {secs:.3} s; {gens} generations ({:.0} generations/s), \
         {:.3e} species-updates/s{}\nRFSS is deterministic: one run per puzzle.\n",
        file.label(),
        outcomes.len(),
        device.describe(),
        gens as f64 / secs,
        updates / secs,
        if params.enhancement == Enhancement::Off {
            ""
        } else {
            " (enhanced: forced placements are not counted)"
        }
    );
    print_table(&a.reports, &t);
    a.reports.write(
        || {
            let report = Report {
                header: Header::new(std::env::args().collect()),
                algorithm: "rfss",
                backend: device.name(),
                adapter: device.adapter(),
                path: &file.path,
                params: &params,
                puzzles: outcomes
                    .iter()
                    .zip(&file.puzzles)
                    .enumerate()
                    .map(|(i, (o, p))| PuzzleJson {
                        puzzle: i,
                        line: p.line,
                        outcome: o,
                    })
                    .collect(),
                timing: Timing {
                    wall_s: secs,
                    generations_per_s: gens as f64 / secs,
                    species_updates_per_s: updates / secs,
                },
            };
            Ok(serde_json::to_string_pretty(&report)? + "\n")
        },
        || {
            // The columns of `batch --algo rfss`'s CSV where they mean the same (file, label,
            // puzzle, line, the `param_…` columns, extra), so the two join and stack.
            let mut s = String::from(
                "file,label,puzzle,line,status,solved_at,generations,species,conflicts,restarts,\
                 species_updates,grid,param_enhancement,param_max_generations,\
                 param_stable_generations,param_stall_generations,param_underflow,\
                 param_underflow_log2,extra\n",
            );
            for (i, (o, p)) in outcomes.iter().zip(&file.puzzles).enumerate() {
                s += &format!(
                    "{},{},{i},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                    csv_field(&file.path),
                    csv_field(&file.label()),
                    p.line,
                    o.status.name(),
                    o.solved_at.map(|g| g.to_string()).unwrap_or_default(),
                    o.generations,
                    o.species,
                    o.conflicts,
                    o.restarts,
                    o.species_updates,
                    o.grid,
                    params.enhancement,
                    params.max_generations,
                    params.stable_generations,
                    params.stall_generations,
                    params.underflow,
                    params.underflow_log2,
                    csv_field(&p.extra)
                );
            }
            s
        },
    )?;
    Ok(ExitCode::SUCCESS)
}

//! `gpu-sudoku rfss FILE`: runs resource-defined fitness sharing on every puzzle of a file, one
//! row per puzzle (0-based, as everywhere), with `--json`/`--csv` records of every outcome.

use super::args::{print_table, DeviceArgs, InputArgs, ReportArgs};
use super::rfss_args::RfssArgs;
use anyhow::{bail, Result};
use gpu_sudoku::backend::Device;
use gpu_sudoku::rfss::report::FileRun;
use gpu_sudoku::rfss::{self, Enhancement, Status};
use std::process::ExitCode;

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

pub fn run(a: Args) -> Result<ExitCode> {
    let params = a.rfss.params()?;
    a.reports.check(&[&a.file])?;
    let file = a.input.read(&a.file)?;
    let device = a.device.open()?;
    if a.no_loop_pass_cap && device.gpu().is_none() {
        bail!("--no-loop-pass-cap is a GPU setting: add --backend gpu");
    }
    let opts = rfss::gpu::GpuOptions {
        loop_pass_cap: !a.no_loop_pass_cap,
        ..Default::default()
    };
    let pb = super::progress::bar(file.puzzles.len(), "rfss");
    let done = FileRun::run(&device, &file, &params, &opts, &|k| pb.inc(k as u64))?;
    pb.finish_and_clear();
    print_table(&a.reports, &table(&done, &device));
    a.reports.write(
        || Ok(done.json(std::env::args().collect(), &device)?),
        || done.csv(),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The table: a row per puzzle (its line and extra fields, e.g. a name, find it in the file),
/// then the totals and rates.
fn table(done: &FileRun, device: &Device) -> String {
    let mut t = format!(
        "{:>6}  {:>6}  {:<11}  {:>11}  {:>11}  {:>8}  {:>9}  {:>8}\n",
        "puzzle", "line", "status", "solved at", "generations", "species", "conflicts", "restarts"
    );
    for (i, (o, p)) in done.outcomes.iter().zip(&done.file.puzzles).enumerate() {
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
    let (secs, gens) = (done.wall_s, done.generations());
    t += &format!(
        "{}: solved {}/{} on {} in {secs:.3} s; {gens} generations ({:.0} generations/s), \
         {:.3e} species-updates/s{}\nRFSS is deterministic: one run per puzzle.\n",
        done.file.label(),
        done.solved(),
        done.outcomes.len(),
        device.describe(),
        gens as f64 / secs,
        done.species_updates() / secs,
        if done.params.enhancement == Enhancement::Off {
            ""
        } else {
            " (enhanced: forced placements are not counted)"
        }
    );
    t
}

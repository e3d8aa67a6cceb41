//! `gpu-sudoku rfss FILE`: runs resource-defined fitness sharing on every puzzle of a file.

use super::args::DeviceArgs;
use super::rfss_args::RfssArgs;
use anyhow::Result;
use gpu_sudoku::puzzle::{read_puzzles, Grid};
use gpu_sudoku::rfss::{self, Enhancement, Status};
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle file (one puzzle per line, or n lines of integers); `-` reads standard input.
    pub file: String,
    /// Force the grid side (4, 9, 16, 25, 36, 49, 64) instead of detecting it.
    #[arg(long)]
    pub size: Option<usize>,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub rfss: RfssArgs,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let params = a.rfss.params()?;
    let file = read_puzzles(&a.file, a.size)?;
    let grids: Vec<Grid> = file.puzzles.iter().map(|p| p.grid.clone()).collect();
    let device = a.device.open()?;
    let pb = super::progress::bar(grids.len(), "rfss");
    let t0 = Instant::now();
    let outcomes = rfss::run::run(&device, &grids, &params, &|k| pb.inc(k as u64))?;
    let device = device.describe();
    let secs = t0.elapsed().as_secs_f64();
    pb.finish_and_clear();
    outln!(
        "{:>6}  {:<11}  {:>11}  {:>11}  {:>8}  {:>9}  {:>8}",
        "puzzle",
        "status",
        "solved at",
        "generations",
        "species",
        "conflicts",
        "restarts"
    );
    let mut updates = 0f64;
    let mut gens = 0u64;
    for (i, o) in outcomes.iter().enumerate() {
        let status = match &o.status {
            Status::Solved => "solved".to_string(),
            Status::Unsolved => "unsolved".to_string(),
            Status::Unsolvable(_) => "unsolvable".to_string(),
        };
        outln!(
            "{:>6}  {:<11}  {:>11}  {:>11}  {:>8}  {:>9}  {:>8}",
            i + 1,
            status,
            o.solved_at.map(|g| g.to_string()).unwrap_or("-".into()),
            o.generations,
            o.species,
            o.conflicts,
            o.restarts
        );
        if let Status::Unsolvable(r) = &o.status {
            outln!("        {r}");
        }
        updates += o.species_updates as f64;
        gens += o.generations as u64;
    }
    let solved = outcomes.iter().filter(|o| o.solved()).count();
    outln!(
        "{}: solved {solved}/{} on {device} in {secs:.3} s; {gens} generations ({:.0} generations/s), \
         {:.3e} species-updates/s{}",
        file.label(),
        outcomes.len(),
        gens as f64 / secs,
        updates / secs,
        if params.enhancement == Enhancement::Off {
            ""
        } else {
            " (enhanced: forced placements are not counted)"
        }
    );
    outln!("RFSS is deterministic: one run per puzzle.");
    Ok(ExitCode::SUCCESS)
}

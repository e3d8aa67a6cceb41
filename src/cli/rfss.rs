//! `gpu-sudoku rfss FILE`: runs resource-defined fitness sharing on every puzzle of a file.

use crate::gpu::{Backend, Gpu};
use crate::puzzle::{read_puzzles, Grid};
use crate::rfss::{self, Enhancement, RfssOutcome, RfssParams, Status, Underflow};
use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle file (one puzzle per line, or n lines of integers); `-` reads standard input.
    pub file: String,
    /// Force the grid side (4, 9, 16, 25, 36, 49, 64) instead of detecting it.
    #[arg(long)]
    pub size: Option<usize>,
    /// Where to run: the GPU when there is one (auto), the CPU reference, or the GPU.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: Backend,
    /// GPU adapter: index or part of the name from `gpu-sudoku adapters`.
    #[arg(long)]
    pub adapter: Option<String>,
    /// Generation limit per puzzle.
    #[arg(long, default_value_t = 100_000)]
    pub max_generations: u32,
    /// The read-off must stay the same valid grid this many generations before the run stops.
    #[arg(long, default_value_t = 100)]
    pub stable_generations: u32,
    /// What happens to proportions below 2^-underflow-log2: extinct (set to 0) or floor (held).
    #[arg(long, value_enum, default_value = "extinct")]
    pub underflow: Underflow,
    /// Exponent k of the underflow threshold 2^-k (10..=120).
    #[arg(long, default_value_t = 100)]
    pub underflow_log2: u32,
    /// Enhancement beyond the paper: `propagate` (forced placements, decisions at stalls).
    #[arg(long, value_enum, default_value = "off")]
    pub enhance: Enhancement,
    /// With --enhance: generations an invalid read-off must stay unchanged before a decision.
    #[arg(long, default_value_t = 300)]
    pub stall_generations: u32,
    /// Write the species-proportion history of one puzzle (CPU, plain RFSS) to this CSV file.
    #[arg(long)]
    pub trace_csv: Option<String>,
    /// Puzzle to trace (1-based index in the file).
    #[arg(long, default_value_t = 1)]
    pub trace_puzzle: usize,
    /// Trace sampling interval in generations.
    #[arg(long, default_value_t = 1000)]
    pub trace_every: u32,
}

fn bar(len: usize) -> ProgressBar {
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} puzzles {elapsed}")
            .expect("valid template"),
    );
    pb
}

pub fn run(a: Args) -> Result<ExitCode> {
    let params = RfssParams {
        max_generations: a.max_generations,
        stable_generations: a.stable_generations,
        underflow: a.underflow,
        underflow_log2: a.underflow_log2,
        enhancement: a.enhance,
        stall_generations: a.stall_generations,
    };
    params.validate()?;
    let file = read_puzzles(&a.file, a.size)?;
    let grids: Vec<Grid> = file.puzzles.iter().map(|p| p.grid.clone()).collect();
    if let Some(path) = &a.trace_csv {
        if a.trace_puzzle == 0 || a.trace_puzzle > grids.len() {
            anyhow::bail!(
                "--trace-puzzle {} is out of range: the file has {} puzzles (1-based)",
                a.trace_puzzle,
                grids.len()
            );
        }
        let t = rfss::trace(&grids[a.trace_puzzle - 1], &params, a.trace_every)?;
        let f = std::fs::File::create(path).with_context(|| format!("cannot create {path}"))?;
        rfss::write_trace_csv(&t, std::io::BufWriter::new(f))?;
        eprintln!(
            "trace of puzzle {}: {} samples of {} species written to {path}",
            a.trace_puzzle,
            t.generations.len(),
            t.species.len()
        );
    }
    let gpu = match a.backend {
        Backend::Cpu => None,
        Backend::Gpu => Some(Gpu::open(a.adapter.as_deref())?),
        Backend::Auto => match Gpu::open_auto(a.adapter.as_deref()) {
            Ok(g) => Some(g),
            Err(e) => {
                eprintln!("note: no GPU ({e:#}); running on the CPU");
                None
            }
        },
    };
    let pb = bar(grids.len());
    let t0 = Instant::now();
    let (outcomes, device): (Vec<RfssOutcome>, String) = match &gpu {
        Some(g) => (
            rfss::gpu::run_with_progress(g, &grids, &params, &mut |done, _| {
                pb.set_position(done as u64)
            })?,
            g.describe(),
        ),
        None => (
            grids
                .par_iter()
                .map(|g| {
                    let o = rfss::cpu::run_one(g, &params);
                    pb.inc(1);
                    o
                })
                .collect::<Result<Vec<_>>>()?,
            format!("CPU ({} threads)", rayon::current_num_threads()),
        ),
    };
    let secs = t0.elapsed().as_secs_f64();
    pb.finish_and_clear();
    println!(
        "{:>6}  {:<11}  {:>11}  {:>11}  {:>8}  {:>9}  {:>8}",
        "puzzle", "status", "solved at", "generations", "species", "conflicts", "restarts"
    );
    let mut updates = 0f64;
    let mut gens = 0u64;
    for (i, o) in outcomes.iter().enumerate() {
        let status = match &o.status {
            Status::Solved => "solved".to_string(),
            Status::Unsolved => "unsolved".to_string(),
            Status::Unsolvable(_) => "unsolvable".to_string(),
        };
        println!(
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
            println!("        {r}");
        }
        updates += o.species_updates as f64;
        gens += o.generations as u64;
    }
    let solved = outcomes.iter().filter(|o| o.solved()).count();
    println!(
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
    println!("RFSS is deterministic: one run per puzzle.");
    Ok(ExitCode::SUCCESS)
}

//! `gpu-sudoku bench`: the same ILCA batch on the CPU reference (all cores) and on the GPU in
//! one process, their throughput side by side, and a check that they agree: flags →
//! [`bench::Request`] → [`bench::run`] → table and reports.

use super::args::{choice, print_table, DeviceArgs, InputArgs, ReportArgs};
use super::ilca_args::IlcaArgs;
use anyhow::{bail, Context, Result};
use gpu_sudoku::backend::{Backend, Device};
use gpu_sudoku::ilca::bench::{self, Measured, Report, Request};
use gpu_sudoku::ilca::gpu::{KernelLayout, StateLayout, UnitCounts};
use gpu_sudoku::puzzle::Grid;
use gpu_sudoku::report::count;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle files (one size); their puzzles form one batch.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Runs per puzzle.
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    /// Run the CPU on only the first N instances (0 = all) and compare rates; for huge batches.
    #[arg(long, default_value_t = 0)]
    pub cpu_instances: usize,
    // The GPU the bench runs on (`--adapter`); the bench always runs the CPU reference too,
    // and needs a GPU: `--backend cpu` is refused.
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Time the GPU run this many times (after one warm-up run, left out) and report the median
    /// (the lower middle run for an even count); every run must give the same results.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Run without the per-dispatch step cap that llvmpipe's loop limit needs, to measure what
    /// the cap costs on a real GPU (on lavapipe results then disagree with the CPU).
    #[arg(long)]
    pub no_loop_pass_cap: bool,
    /// Keep states and degrees in workgroup memory as words or bytes (default: words where
    /// they fit the device), to measure one layout against the other.
    #[arg(long, hide = true, value_parser = choice::<StateLayout>())]
    pub state_layout: Option<StateLayout>,
    /// Keep per-unit digit counts in workgroup memory or not (default: wherever an invocation
    /// owns several cells, 25x25 and up), to measure the kernel with them against without.
    #[arg(long, hide = true, value_parser = choice::<UnitCounts>())]
    pub unit_counts: Option<UnitCounts>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub ilca: IlcaArgs,
    /// The step cap by its common name (every command's iteration cap answers to it): --steps.
    #[arg(long, value_name = "N", conflicts_with = "steps")]
    pub max_iterations: Option<u32>,
    #[command(flatten)]
    pub reports: ReportArgs,
}

pub fn run(mut a: Args) -> Result<ExitCode> {
    if let Some(n) = a.max_iterations {
        a.ilca.steps = Some(n);
    }
    let params = a.ilca.params()?;
    if a.runs == 0 {
        bail!("--runs must be at least 1");
    }
    if a.device.backend == Backend::Cpu {
        bail!(
            "--backend cpu: the bench runs the CPU reference beside a GPU, so it needs a GPU \
             (leave --backend out, or give --backend gpu)"
        );
    }
    let files: Vec<&str> = a.files.iter().map(String::as_str).collect();
    a.reports.check(&files)?;
    let request = Request {
        puzzles: read(&a)?,
        params,
        runs: a.runs,
        cpu_instances: a.cpu_instances,
        repeat: a.repeat,
        loop_pass_cap: !a.no_loop_pass_cap,
        layout: KernelLayout {
            states: a.state_layout,
            unit_counts: a.unit_counts,
        },
    };
    request.check_memory()?;
    let (device, _) = Device::open(Backend::Gpu, a.device.adapter.as_deref())
        .context("the bench needs a GPU adapter")?;
    errln!("GPU: {}", device.gpu().expect("a GPU device").describe());
    let report = bench::run(&device, &request)?;
    print_table(&a.reports, &table(&a, &request, &report));
    a.reports.write(
        || Ok(report.json(std::env::args().collect(), &files, &request)?),
        || report.csv(&request),
    )?;
    Ok(if report.mismatches != 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The puzzles of every file, one batch (one size).
fn read(a: &Args) -> Result<Vec<Grid>> {
    let mut puzzles: Vec<Grid> = Vec::new();
    for f in &a.files {
        let file = a.input.read(f)?;
        if let Some(p) = puzzles.first() {
            if p.box_size() != file.b {
                bail!("{f}: all files of a bench must hold puzzles of one size");
            }
        }
        puzzles.extend(file.puzzles.into_iter().map(|p| p.grid));
    }
    Ok(puzzles)
}

/// The table: what ran, each engine's rates, the GPU's runs and the agreement.
fn table(a: &Args, req: &Request, r: &Report) -> String {
    let cells = req.puzzles[0].geometry().cells as f64;
    let params = &req.params;
    let mut t = format!(
        "batch: {} x {} = {} of {n}x{n}; {}\n",
        count(req.puzzles.len() as u64, "puzzle", "puzzles"),
        count(req.runs as u64, "run", "runs"),
        count(req.instances() as u64, "instance", "instances"),
        gpu_sudoku::job::batch_table::describe(params, a.ilca.preset_name(params)),
        n = req.puzzles[0].side()
    );
    t += &format!(
        "{:<6} {:>10} {:>8} {:>10} {:>16} {:>16} {:>14}\n",
        "engine", "instances", "solved%", "seconds", "inst-steps/s", "cell-updates/s", "solved/s"
    );
    for (name, m) in [("cpu", &r.cpu), ("gpu", &r.gpu)] {
        t += &engine_row(name, m, cells);
    }
    t += &gpu_runs(r);
    if a.no_loop_pass_cap {
        t += "gpu: without the per-dispatch loop-pass cap\n";
    }
    t += &format!(
        "gpu/cpu instance-steps/s ratio: {}x (cpu: {})\n",
        fmt_ratio(r.gpu.steps_per_s() / r.cpu.steps_per_s()),
        count(r.cpu_threads as u64, "thread", "threads")
    );
    if r.mismatches != 0 {
        t += &format!(
            "DISAGREEMENT: {} of {} instances differ between CPU and GPU\n",
            r.mismatches, r.compared
        );
    } else {
        t += &format!(
            "agreement: all {} instances run on both engines are identical\n",
            r.compared
        );
    }
    t
}

/// An engine's row of the table.
fn engine_row(name: &str, m: &Measured, cells: f64) -> String {
    format!(
        "{:<6} {:>10} {:>8.1} {:>10.4} {:>16.4e} {:>16.4e} {:>14.1}\n",
        name,
        m.instances,
        100.0 * m.solved as f64 / m.instances as f64,
        m.seconds,
        m.steps_per_s(),
        m.steps_per_s() * cells,
        m.solved as f64 / m.seconds
    )
}

/// The GPU's runs: the warm-up, the timed ones and the median run's phases.
fn gpu_runs(r: &Report) -> String {
    let runs = &r.runs;
    let mut t = format!(
        "gpu runs: first (warm-up, left out) {:.4} s; {} timed: median {:.4} s, min {:.4} s, \
         max {:.4} s\n",
        r.first.seconds,
        runs.len(),
        r.median.seconds,
        runs[0].seconds,
        runs[runs.len() - 1].seconds
    );
    let m = r.mapping;
    t += &format!(
        "gpu kernel: {} per instance, {} each; states and degrees in workgroup memory as {}{}\n",
        count(m.tpi as u64, "invocation", "invocations"),
        count(m.cpt as u64, "cell", "cells"),
        m.layout(),
        if m.counts { ", with unit counts" } else { "" }
    );
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    // The first run's split beside the median's: where a process's first batch loses its time.
    for (name, run) in [("median", &r.median), ("first", &r.first)] {
        if let Some(p) = run.phases {
            t += &format!(
                "gpu {name} run: prepare {:.2} ms, upload {:.2} ms, compute and readback {:.2} \
                 ms, results {:.2} ms\n",
                ms(p.prepare),
                ms(p.upload),
                ms(p.compute),
                ms(p.results)
            );
        }
    }
    t
}

/// A speed ratio with three significant digits (0.0123x on a software GPU, 31.4x on an H100).
fn fmt_ratio(r: f64) -> String {
    if r >= 100.0 || r == 0.0 || !r.is_finite() {
        format!("{r:.0}")
    } else {
        let digits = (2 - r.abs().log10().floor() as i32).max(0) as usize;
        format!("{r:.digits$}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ratios_keep_three_digits() {
        let f = super::fmt_ratio;
        assert_eq!(
            (f(0.01234), f(5.2), f(31.44), f(250.4)),
            ("0.0123".into(), "5.20".into(), "31.4".into(), "250".into())
        );
    }
}

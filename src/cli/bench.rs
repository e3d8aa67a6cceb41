//! `gpu-sudoku bench`: the same ILCA batch on the CPU reference (all cores) and on the GPU in
//! one process, their throughput side by side, and a check that they agree.

use super::args::{print_table, InputArgs, ReportArgs};
use anyhow::{bail, Context, Result};
use std::process::ExitCode;
use std::time::Instant;

use super::ilca_args::IlcaArgs;
use gpu_sudoku::backend::{Backend, Device};
use gpu_sudoku::ilca::{self, Batch};
use gpu_sudoku::puzzle::Grid;
use gpu_sudoku::report::schema::Header;
use gpu_sudoku::report::InstanceResult;
use serde::Serialize;

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
    /// GPU adapter: index from `gpu-sudoku adapters` or part of its name.
    #[arg(long)]
    pub adapter: Option<String>,
    /// Time the GPU run this many times (after one warm-up run, left out) and report the median
    /// (the lower middle run for an even count); every run must give the same results.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Run without the per-dispatch step cap that llvmpipe's loop limit needs, to measure what
    /// the cap costs on a real GPU (on lavapipe results then disagree with the CPU).
    #[arg(long)]
    pub no_loop_pass_cap: bool,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub ilca: IlcaArgs,
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// One timed GPU run.
#[derive(Clone, Copy)]
struct Timed {
    seconds: f64,
    phases: Option<ilca::gpu::Phases>,
}

/// Work done by one engine on a batch.
struct Measured {
    instances: usize,
    solved: usize,
    instance_steps: u64,
    seconds: f64,
}

impl Measured {
    fn of(results: &[InstanceResult], seconds: f64) -> Measured {
        Measured {
            instances: results.len(),
            solved: results.iter().filter(|r| r.solved).count(),
            instance_steps: results.iter().map(|r| r.steps as u64).sum(),
            seconds,
        }
    }
    fn steps_per_s(&self) -> f64 {
        self.instance_steps as f64 / self.seconds
    }
}

pub fn run(a: Args) -> Result<ExitCode> {
    let params = a.ilca.params()?;
    if a.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let files: Vec<&str> = a.files.iter().map(String::as_str).collect();
    a.reports.check(&files)?;
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
    let cells = puzzles[0].geometry().cells as f64;
    let total = puzzles.len().saturating_mul(a.runs);
    // The bench holds every instance at once: the batch, both engines' results and the GPU
    // buffers' host copies (states uploaded, states read back).
    {
        use gpu_sudoku::limits;
        let cells = puzzles[0].geometry().cells;
        limits::check_memory(
            total as u64,
            2 * limits::held_bytes_per_instance(cells) + 8 * cells as u64,
            "the batch, both engines' results and the GPU's host-side buffers",
            limits::available_memory(),
            "use fewer --runs or puzzles",
        )?;
    }
    let (device, _) = Device::open(Backend::Gpu, a.adapter.as_deref())
        .context("the bench needs a GPU adapter")?;
    let gpu = device.gpu().expect("a GPU device");
    errln!("GPU: {}", gpu.describe());

    // Compile once and run once outside the timing (the driver's first-use work, e.g. its
    // memory pools), so the timed runs measure the work alone.
    ilca::gpu::Kernel::cached(gpu, puzzles[0].box_size())?;
    let batch = Batch::runs(&puzzles, &params, a.runs);
    let opts = ilca::gpu::GpuOptions {
        loop_pass_cap: !a.no_loop_pass_cap,
        ..Default::default()
    };
    let timed = |b: &Batch| -> Result<(Vec<InstanceResult>, Timed)> {
        let t = Instant::now();
        let (r, phases) = if params.prune == ilca::Prune::Off {
            let (r, phases) = ilca::gpu::run_timed(gpu, b, &opts, &|_| {})?;
            (r, Some(phases))
        } else {
            // Pruning runs on the host first (ilca::run); no split of its time.
            (ilca::run::run_with(&device, b, &opts, &|_| {})?, None)
        };
        let seconds = t.elapsed().as_secs_f64();
        Ok((r, Timed { seconds, phases }))
    };
    let (g_res, first) = timed(&batch)?;
    let mut runs = Vec::new();
    for _ in 0..a.repeat {
        let (r, t) = timed(&batch)?;
        if r != g_res {
            bail!("the GPU gave different results for the same batch on a repeated run");
        }
        runs.push(t);
    }
    runs.sort_by(|x, y| x.seconds.total_cmp(&y.seconds));
    // The lower of the two middle runs for an even count.
    let median = runs[(runs.len() - 1) / 2];
    let g = Measured::of(&g_res, median.seconds);

    // The CPU runs the first `cpu_instances` instances: whole puzzles × runs.
    let cpu_puzzles = if a.cpu_instances == 0 {
        puzzles.len()
    } else {
        a.cpu_instances.div_ceil(a.runs).clamp(1, puzzles.len())
    };
    let t = Instant::now();
    let c_res = ilca::run::run(
        &Device::Cpu,
        &Batch::runs(&puzzles[..cpu_puzzles], &params, a.runs),
        &|_| {},
    )?;
    let c = Measured::of(&c_res, t.elapsed().as_secs_f64());
    let mismatches = c_res.iter().zip(&g_res).filter(|(x, y)| x != y).count();

    let mut t = format!(
        "batch: {} puzzles x {} runs = {total} instances of {n}x{n}; {}\n",
        puzzles.len(),
        a.runs,
        super::ilca_args::describe(&params, a.ilca.preset_name(&params)),
        n = puzzles[0].side()
    );
    t += &format!(
        "{:<6} {:>10} {:>8} {:>10} {:>16} {:>16} {:>14}\n",
        "engine", "instances", "solved%", "seconds", "inst-steps/s", "cell-updates/s", "solved/s"
    );
    for (name, m) in [("cpu", &c), ("gpu", &g)] {
        t += &format!(
            "{:<6} {:>10} {:>8.1} {:>10.4} {:>16.4e} {:>16.4e} {:>14.1}\n",
            name,
            m.instances,
            100.0 * m.solved as f64 / m.instances as f64,
            m.seconds,
            m.steps_per_s(),
            m.steps_per_s() * cells,
            m.solved as f64 / m.seconds
        );
    }
    t += &format!(
        "gpu runs: first (warm-up, left out) {:.4} s; {} timed: median {:.4} s, min {:.4} s, \
         max {:.4} s\n",
        first.seconds,
        runs.len(),
        median.seconds,
        runs[0].seconds,
        runs[runs.len() - 1].seconds
    );
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    if let Some(p) = median.phases {
        t += &format!(
            "gpu median run: prepare {:.2} ms, upload {:.2} ms, compute and readback {:.2} ms, \
             results {:.2} ms\n",
            ms(p.prepare),
            ms(p.upload),
            ms(p.compute),
            ms(p.results)
        );
    }
    if a.no_loop_pass_cap {
        t += "gpu: without the per-dispatch loop-pass cap\n";
    }
    t += &format!(
        "gpu/cpu instance-steps/s ratio: {}x (cpu: {} threads)\n",
        fmt_ratio(g.steps_per_s() / c.steps_per_s()),
        rayon::current_num_threads()
    );
    if mismatches != 0 {
        t += &format!(
            "DISAGREEMENT: {mismatches} of {} instances differ between CPU and GPU\n",
            c_res.len()
        );
    } else {
        t += &format!(
            "agreement: all {} instances run on both engines are identical\n",
            c_res.len()
        );
    }
    print_table(&a.reports, &t);

    let engine = |name: &'static str, m: &Measured| EngineJson {
        engine: name,
        instances: m.instances,
        solved: m.solved,
        instance_steps: m.instance_steps,
        seconds: m.seconds,
        instance_steps_per_s: m.steps_per_s(),
        cell_updates_per_s: m.steps_per_s() * cells,
    };
    let report = Report {
        header: Header::new(std::env::args().collect()),
        adapter: gpu.describe(),
        files: &files,
        side: puzzles[0].side(),
        puzzles: puzzles.len(),
        runs: a.runs,
        params: &params,
        cpu: engine("cpu", &c),
        gpu: engine("gpu", &g),
        gpu_runs: GpuRunsJson {
            first_s: first.seconds,
            timed: runs.len(),
            median_s: median.seconds,
            min_s: runs[0].seconds,
            max_s: runs[runs.len() - 1].seconds,
            loop_pass_cap: !a.no_loop_pass_cap,
            median_split_ms: median.phases.map(|p| SplitJson {
                prepare: ms(p.prepare),
                upload: ms(p.upload),
                compute_and_readback: ms(p.compute),
                results: ms(p.results),
            }),
        },
        cpu_threads: rayon::current_num_threads(),
        compared: c_res.len(),
        mismatches,
    };
    a.reports.write(
        || Ok(serde_json::to_string_pretty(&report)? + "\n"),
        || report.csv(),
    )?;
    Ok(if mismatches != 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `bench --json`: what was run, each engine's work and rate, the GPU's runs and the agreement.
#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    header: Header,
    adapter: String,
    files: &'a [&'a str],
    side: usize,
    puzzles: usize,
    runs: usize,
    params: &'a gpu_sudoku::ilca::IlcaParams,
    cpu: EngineJson,
    gpu: EngineJson,
    gpu_runs: GpuRunsJson,
    cpu_threads: usize,
    /// Instances run on both engines and compared; `mismatches` of them differ.
    compared: usize,
    mismatches: usize,
}

#[derive(Serialize)]
struct EngineJson {
    engine: &'static str,
    instances: usize,
    solved: usize,
    instance_steps: u64,
    seconds: f64,
    instance_steps_per_s: f64,
    cell_updates_per_s: f64,
}

#[derive(Serialize)]
struct GpuRunsJson {
    first_s: f64,
    timed: usize,
    median_s: f64,
    min_s: f64,
    max_s: f64,
    loop_pass_cap: bool,
    median_split_ms: Option<SplitJson>,
}

#[derive(Serialize)]
struct SplitJson {
    prepare: f64,
    upload: f64,
    compute_and_readback: f64,
    results: f64,
}

impl Report<'_> {
    /// `bench --csv`: a row per engine (the GPU's figures are the median run's).
    fn csv(&self) -> String {
        let mut out = String::from(
            "engine,side,instances,solved,instance_steps,seconds,instance_steps_per_s,\
             cell_updates_per_s,compared,mismatches\n",
        );
        for e in [&self.cpu, &self.gpu] {
            out += &format!(
                "{},{},{},{},{},{},{},{},{},{}\n",
                e.engine,
                self.side,
                e.instances,
                e.solved,
                e.instance_steps,
                e.seconds,
                e.instance_steps_per_s,
                e.cell_updates_per_s,
                self.compared,
                self.mismatches
            );
        }
        out
    }
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

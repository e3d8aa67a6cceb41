//! The same ILCA batch on the CPU reference (all cores) and on a GPU in one process (what
//! `gpu-sudoku bench` measures): each engine's throughput, the GPU's timed runs (after a
//! warm-up run, left out) and a check that the two engines agree instance for instance.

use super::{gpu, Batch, IlcaParams, Prune};
use crate::backend::Device;
use crate::puzzle::Grid;
use crate::report::batch::Header;
use crate::report::InstanceResult;
use anyhow::{bail, Result};
use serde::Serialize;
use std::time::Instant;

/// What to measure: `runs` runs of every puzzle (one size) under `params`.
#[derive(Clone, Debug)]
pub struct Request {
    pub puzzles: Vec<Grid>,
    pub params: IlcaParams,
    pub runs: usize,
    /// Run the CPU on only the first this many instances (whole puzzles × runs); 0 = all.
    pub cpu_instances: usize,
    /// Timed GPU runs (after the warm-up run); the median is reported.
    pub repeat: u32,
    /// The per-dispatch step cap that llvmpipe's loop limit needs (on by default).
    pub loop_pass_cap: bool,
    /// The kernel's layout in workgroup memory (default: the kernel's choice).
    pub layout: gpu::KernelLayout,
}

impl Request {
    /// Instances on the GPU: puzzles × runs.
    pub fn instances(&self) -> usize {
        self.puzzles.len().saturating_mul(self.runs)
    }

    /// Refuses a bench whose instances would not fit in memory: it holds every instance at
    /// once (the batch, both engines' results and the GPU buffers' host copies).
    pub fn check_memory(&self) -> Result<()> {
        use crate::limits;
        let cells = self.puzzles[0].geometry().cells;
        limits::check_memory(
            self.instances() as u64,
            2 * limits::held_bytes_per_instance(cells) + 8 * cells as u64,
            "the batch, both engines' results and the GPU's host-side buffers",
            limits::available_memory(),
            "use fewer --runs or puzzles",
        )
    }
}

/// One timed GPU run.
#[derive(Clone, Copy, Debug)]
pub struct Timed {
    pub seconds: f64,
    /// Its split into phases (none where pruning runs on the host first).
    pub phases: Option<gpu::Phases>,
}

/// Work done by one engine on a batch.
#[derive(Clone, Debug)]
pub struct Measured {
    pub instances: usize,
    pub solved: usize,
    pub instance_steps: u64,
    pub seconds: f64,
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

    pub fn steps_per_s(&self) -> f64 {
        self.instance_steps as f64 / self.seconds
    }
}

/// What the bench measured.
#[derive(Clone, Debug)]
pub struct Report {
    /// The GPU adapter, described.
    pub adapter: String,
    /// The CPU's work; the GPU's, timed by its median run.
    pub cpu: Measured,
    pub gpu: Measured,
    /// The warm-up run (left out of the timing).
    pub first: Timed,
    /// The timed runs, fastest first.
    pub runs: Vec<Timed>,
    /// The median timed run (the lower middle one for an even count).
    pub median: Timed,
    /// Instances run on both engines and compared; `mismatches` of them differ.
    pub compared: usize,
    pub mismatches: usize,
    /// Threads the CPU reference ran on.
    pub cpu_threads: usize,
    /// How the GPU kernel mapped an instance onto invocations.
    pub mapping: gpu::Mapping,
}

/// Runs the request on the CPU and on `device` (a GPU): the GPU once to warm up, then
/// `repeat` timed runs that must all give the same results.
pub fn run(device: &Device, req: &Request) -> Result<Report> {
    let gpu = device.gpu().expect("the bench runs on a GPU device");
    let params = &req.params;
    // Compile once and run once outside the timing (the driver's first-use work, e.g. its
    // memory pools), so the timed runs measure the work alone.
    let kernel = gpu::Kernel::cached(gpu, req.puzzles[0].box_size(), req.layout)?;
    let batch = Batch::runs(&req.puzzles, params, req.runs);
    let opts = gpu::GpuOptions {
        loop_pass_cap: req.loop_pass_cap,
        layout: req.layout,
        ..Default::default()
    };
    let timed = |b: &Batch| -> Result<(Vec<InstanceResult>, Timed)> {
        let t = Instant::now();
        let (r, phases) = if params.prune == Prune::Off {
            let (r, phases) = gpu::run_timed(gpu, b, &opts, &|_| {})?;
            (r, Some(phases))
        } else {
            // Pruning runs on the host first (ilca::run); no split of its time.
            (super::run::run_with(device, b, &opts, &|_| {})?, None)
        };
        let seconds = t.elapsed().as_secs_f64();
        Ok((r, Timed { seconds, phases }))
    };
    let (g_res, first) = timed(&batch)?;
    let mut runs = Vec::new();
    for _ in 0..req.repeat {
        let (r, t) = timed(&batch)?;
        if r != g_res {
            bail!("the GPU gave different results for the same batch on a repeated run");
        }
        runs.push(t);
    }
    runs.sort_by(|x, y| x.seconds.total_cmp(&y.seconds));
    let median = runs[(runs.len() - 1) / 2];
    // The CPU runs the first `cpu_instances` instances: whole puzzles × runs.
    let cpu_puzzles = if req.cpu_instances == 0 {
        req.puzzles.len()
    } else {
        req.cpu_instances
            .div_ceil(req.runs)
            .clamp(1, req.puzzles.len())
    };
    let t = Instant::now();
    let c_res = super::run::run(
        &Device::Cpu,
        &Batch::runs(&req.puzzles[..cpu_puzzles], params, req.runs),
        &|_| {},
    )?;
    let cpu = Measured::of(&c_res, t.elapsed().as_secs_f64());
    Ok(Report {
        adapter: gpu.describe(),
        cpu,
        gpu: Measured::of(&g_res, median.seconds),
        first,
        median,
        runs,
        compared: c_res.len(),
        mismatches: c_res.iter().zip(&g_res).filter(|(x, y)| x != y).count(),
        cpu_threads: rayon::current_num_threads(),
        mapping: kernel.mapping(),
    })
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

impl Report {
    /// The JSON report of the bench of `req` on `files`, made by `command`: what was run, each
    /// engine's work and rate, the GPU's runs and the agreement.
    pub fn json(
        &self,
        command: Vec<String>,
        files: &[&str],
        req: &Request,
    ) -> serde_json::Result<String> {
        let cells = req.puzzles[0].geometry().cells as f64;
        let runs = &self.runs;
        let report = Json {
            header: Header::new(command),
            adapter: self.adapter.clone(),
            files,
            side: req.puzzles[0].side(),
            puzzles: req.puzzles.len(),
            runs: req.runs,
            params: &req.params,
            cpu: EngineJson::of("cpu", &self.cpu, cells),
            gpu: EngineJson::of("gpu", &self.gpu, cells),
            gpu_runs: GpuRunsJson {
                first_s: self.first.seconds,
                timed: runs.len(),
                median_s: self.median.seconds,
                min_s: runs[0].seconds,
                max_s: runs[runs.len() - 1].seconds,
                loop_pass_cap: req.loop_pass_cap,
                invocations_per_instance: self.mapping.tpi,
                cells_per_invocation: self.mapping.cpt,
                state_layout: self.mapping.layout(),
                unit_counts: self.mapping.counts,
                median_split_ms: self.median.phases.map(SplitJson::of),
                first_split_ms: self.first.phases.map(SplitJson::of),
            },
            cpu_threads: self.cpu_threads,
            compared: self.compared,
            mismatches: self.mismatches,
        };
        Ok(serde_json::to_string_pretty(&report)? + "\n")
    }

    /// The CSV report: a row per engine (the GPU's figures are the median run's).
    pub fn csv(&self, req: &Request) -> std::io::Result<String> {
        let cells = req.puzzles[0].geometry().cells as f64;
        let side = req.puzzles[0].side();
        let header = [
            "engine",
            "side",
            "instances",
            "solved",
            "instance_steps",
            "seconds",
            "instance_steps_per_s",
            "cell_updates_per_s",
            "compared",
            "mismatches",
        ];
        let rows = [("cpu", &self.cpu), ("gpu", &self.gpu)].map(|(name, m)| {
            let e = EngineJson::of(name, m, cells);
            [
                e.engine.to_string(),
                side.to_string(),
                e.instances.to_string(),
                e.solved.to_string(),
                e.instance_steps.to_string(),
                e.seconds.to_string(),
                e.instance_steps_per_s.to_string(),
                e.cell_updates_per_s.to_string(),
                self.compared.to_string(),
                self.mismatches.to_string(),
            ]
        });
        crate::csv_io::to_string(header, rows)
    }
}

#[derive(Serialize)]
struct Json<'a> {
    #[serde(flatten)]
    header: Header,
    adapter: String,
    files: &'a [&'a str],
    side: usize,
    puzzles: usize,
    runs: usize,
    params: &'a IlcaParams,
    cpu: EngineJson,
    gpu: EngineJson,
    gpu_runs: GpuRunsJson,
    cpu_threads: usize,
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

impl EngineJson {
    fn of(engine: &'static str, m: &Measured, cells: f64) -> EngineJson {
        EngineJson {
            engine,
            instances: m.instances,
            solved: m.solved,
            instance_steps: m.instance_steps,
            seconds: m.seconds,
            instance_steps_per_s: m.steps_per_s(),
            cell_updates_per_s: m.steps_per_s() * cells,
        }
    }
}

#[derive(Serialize)]
struct GpuRunsJson {
    first_s: f64,
    timed: usize,
    median_s: f64,
    min_s: f64,
    max_s: f64,
    loop_pass_cap: bool,
    invocations_per_instance: usize,
    cells_per_invocation: usize,
    state_layout: gpu::StateLayout,
    /// The kernel keeps per-unit digit counts ([`gpu::Mapping::counts`]).
    unit_counts: bool,
    median_split_ms: Option<SplitJson>,
    /// The warm-up run's split: what a process's first batch pays beyond the median's.
    first_split_ms: Option<SplitJson>,
}

#[derive(Serialize)]
struct SplitJson {
    prepare: f64,
    upload: f64,
    compute_and_readback: f64,
    results: f64,
}

impl SplitJson {
    fn of(p: gpu::Phases) -> SplitJson {
        SplitJson {
            prepare: ms(p.prepare),
            upload: ms(p.upload),
            compute_and_readback: ms(p.compute),
            results: ms(p.results),
        }
    }
}

//! Host side of the GPU ILCA engine (`shaders/ilca.wgsl`): batches of (puzzle, run) instances,
//! split into chunks that fit the adapter's buffers and into submissions of bounded work.

use anyhow::{ensure, Result};

use super::Gpu;
use crate::ilca::cpu::Prepared;
use crate::ilca::{Compare, IlcaParams, ResetCheck, TieBreak};
use crate::puzzle::Grid;
use crate::report::InstanceResult;
use crate::rng;

const KERNEL: &str = include_str!("../../shaders/ilca.wgsl");
const RNG: &str = include_str!("../../shaders/rng.wgsl");

/// Invocations per workgroup we aim for.
const WG_TARGET: usize = 256;

/// How instances map onto workgroups for one grid size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// Instances per workgroup.
    pub ipw: usize,
    /// Invocations per instance.
    pub tpi: usize,
    /// Cells per invocation.
    pub cpt: usize,
}

impl Mapping {
    /// Small grids pack several instances in a workgroup (9x9: 3 × 81 = 243 invocations, a cell
    /// each); big grids give an instance all 256 invocations, several cells each.
    pub fn for_cells(cells: usize) -> Mapping {
        if cells <= WG_TARGET {
            Mapping {
                ipw: WG_TARGET / cells,
                tpi: cells,
                cpt: 1,
            }
        } else {
            Mapping {
                ipw: 1,
                tpi: WG_TARGET,
                cpt: cells.div_ceil(WG_TARGET),
            }
        }
    }
}

/// Knobs of the GPU engine that do not change results.
#[derive(Clone, Debug)]
pub struct GpuOptions {
    /// Upper bound on instances per chunk (the adapter's buffer limits bound it too).
    pub max_chunk: usize,
    /// Cell-steps per submission: bounds the time of one dispatch (GPU watchdogs kill long ones).
    pub cell_steps_per_submission: u64,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            max_chunk: 1 << 20,
            cell_steps_per_submission: 1 << 29,
        }
    }
}

/// Uniform block of the kernel (field order = `Params` in ilca.wgsl).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Uniforms {
    num_instances: u32,
    t0: u32,
    k_steps: u32,
    max_steps: u32,
    groups_x: u32,
    fresh: u32,
    _pad: [u32; 2],
}

/// Status bit of an instance that reached its step limit unsolved (`EXHAUSTED` in ilca.wgsl).
const EXHAUSTED: u32 = 0x8000_0000;

/// One setting's block in the tables buffer (layout = SET_STRIDE in ilca.wgsl).
fn setting_words(p: &IlcaParams, n_peers: usize) -> Vec<u32> {
    let (reward, penalty) = p.factor_tables(n_peers);
    let mut v = vec![
        p.steps,
        p.sr,
        match p.compare {
            Compare::Sharing => 0,
            Compare::Free => 1,
            Compare::All => 2,
        },
        match p.tie {
            TieBreak::Random => 0,
            TieBreak::First => 1,
            TieBreak::Keep => 2,
        },
        match p.reset_check {
            ResetCheck::Permutation => 0,
            ResetCheck::Sum => 1,
        },
        p.restart,
    ];
    v.extend(reward.iter().map(|f| f.to_bits()));
    v.extend(penalty.iter().map(|f| f.to_bits()));
    v
}

/// A compiled ILCA kernel for one grid size.
pub struct IlcaKernel {
    pipeline: wgpu::ComputePipeline,
    bgl: wgpu::BindGroupLayout,
    b: usize,
    mapping: Mapping,
}

impl IlcaKernel {
    pub fn new(gpu: &Gpu, b: usize) -> Result<IlcaKernel> {
        let g = crate::puzzle::Geometry::get(b);
        let mapping = Mapping::for_cells(g.cells);
        let wg_bytes = 4 * (mapping.ipw * g.cells + mapping.ipw + mapping.ipw * 3 * g.n) as u32;
        ensure!(
            wg_bytes <= gpu.limits.max_compute_workgroup_storage_size,
            "{n}x{n} needs {wg_bytes} bytes of workgroup memory; {dev} offers {have}",
            n = g.n,
            dev = gpu.describe(),
            have = gpu.limits.max_compute_workgroup_storage_size
        );
        let source = format!(
            "const B: u32 = {}u;\nconst N: u32 = {}u;\nconst CELLS: u32 = {}u;\nconst NP: u32 = {}u;\n\
             const IPW: u32 = {}u;\nconst TPI: u32 = {}u;\nconst CPT: u32 = {}u;\n{RNG}\n{KERNEL}",
            g.b, g.n, g.cells, g.n_peers, mapping.ipw, mapping.tpi, mapping.cpt
        );
        let (pipeline, bgl) = gpu.compute_pipeline(
            "ilca",
            &source,
            &[false, false, false, true, true, true],
            true,
        )?;
        Ok(IlcaKernel {
            pipeline,
            bgl,
            b,
            mapping,
        })
    }

    pub fn mapping(&self) -> Mapping {
        self.mapping
    }

    /// The kernel for box size `b`, compiled once per device.
    pub fn cached(gpu: &Gpu, b: usize) -> Result<std::sync::Arc<IlcaKernel>> {
        gpu.cached(&format!("ilca-{b}"), || IlcaKernel::new(gpu, b))
    }
}

/// Runs `runs` runs of every puzzle on the GPU: the same results as
/// [`crate::ilca::cpu::run_batch`], instance for instance. `tick` is called once per
/// finished instance.
pub fn run_batch(
    gpu: &Gpu,
    puzzles: &[Grid],
    runs: usize,
    params: &IlcaParams,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<InstanceResult>> {
    run_batch_with(gpu, puzzles, runs, params, &GpuOptions::default(), tick)
}

/// [`run_batch`] with explicit chunking and submission sizes.
pub fn run_batch_with(
    gpu: &Gpu,
    puzzles: &[Grid],
    runs: usize,
    params: &IlcaParams,
    opts: &GpuOptions,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<InstanceResult>> {
    let mut v = run_sweep_with(gpu, puzzles, runs, std::slice::from_ref(params), opts, tick)?;
    Ok(v.pop().unwrap_or_default())
}

/// Every setting × puzzle × run in one batch (settings are a batch dimension: parameters per
/// instance, not per dispatch); results per setting, as [`crate::ilca::cpu::run_sweep`].
pub fn run_sweep(
    gpu: &Gpu,
    puzzles: &[Grid],
    runs: usize,
    settings: &[IlcaParams],
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Vec<InstanceResult>>> {
    run_sweep_with(gpu, puzzles, runs, settings, &GpuOptions::default(), tick)
}

/// [`run_sweep`] with explicit chunking and submission sizes.
pub fn run_sweep_with(
    gpu: &Gpu,
    puzzles: &[Grid],
    runs: usize,
    settings: &[IlcaParams],
    opts: &GpuOptions,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Vec<InstanceResult>>> {
    for s in settings {
        s.validate()?;
    }
    ensure!(runs >= 1, "--runs must be at least 1");
    let Some(first) = puzzles.first() else {
        return Ok(vec![Vec::new(); settings.len()]);
    };
    let b = first.box_size();
    ensure!(
        puzzles.iter().all(|p| p.box_size() == b),
        "all puzzles of a GPU batch must have the same size"
    );
    let kernel = IlcaKernel::cached(gpu, b)?;
    let g = first.geometry();
    let (cells, n) = (g.cells, g.n);

    // Tables shared by every instance: peers, units, then each setting's block.
    let mut tables: Vec<u32> = g.peers.iter().map(|&x| x as u32).collect();
    tables.extend(g.units.iter().map(|&x| x as u32));
    for s in settings {
        tables.extend(setting_words(s, g.n_peers));
    }
    let tables_buf = gpu.storage_init("ilca tables", &tables, false);

    // Chunk size: a chunk's weights (cells × n f32 per instance) and puzzle data (at most one
    // puzzle per instance) must each fit one binding.
    let per_instance = ((cells * n + cells) * 4) as u64;
    let by_limit = (gpu.max_binding_bytes() / per_instance).max(1) as usize;
    let chunk = by_limit.min(opts.max_chunk).max(1);
    let per_setting = puzzles.len() * runs;
    let total = per_setting * settings.len();
    let batch = Batch {
        puzzles,
        runs,
        settings,
    };
    let mut results = Vec::with_capacity(total);
    let mut start = 0;
    while start < total {
        let end = (start + chunk).min(total);
        results.extend(run_chunk(
            gpu,
            &kernel,
            &tables_buf,
            &batch,
            opts,
            start,
            end,
            tick,
        )?);
        start = end;
    }
    let mut out: Vec<Vec<InstanceResult>> = Vec::with_capacity(settings.len());
    let mut it = results.into_iter();
    for _ in settings {
        out.push(it.by_ref().take(per_setting).collect());
    }
    Ok(out)
}

/// What a sweep runs: instance i is (setting, puzzle, run) in that nesting.
struct Batch<'a> {
    puzzles: &'a [Grid],
    runs: usize,
    settings: &'a [IlcaParams],
}

impl Batch<'_> {
    fn split(&self, i: usize) -> (usize, usize, usize) {
        let per_setting = self.puzzles.len() * self.runs;
        let rem = i % per_setting;
        (i / per_setting, rem / self.runs, rem % self.runs)
    }
}

#[allow(clippy::too_many_arguments)]
fn run_chunk(
    gpu: &Gpu,
    kernel: &IlcaKernel,
    tables_buf: &wgpu::Buffer,
    batch: &Batch,
    opts: &GpuOptions,
    start: usize,
    end: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<InstanceResult>> {
    let g = crate::puzzle::Geometry::get(kernel.b);
    let (cells, n) = (g.cells, g.n);
    let count = end - start;

    // Puzzle data of the puzzles this chunk touches: clues, then initial weight bits. Initial
    // weights do not depend on the setting, so any setting prepares them.
    let mut local = std::collections::BTreeMap::new();
    for i in start..end {
        let (_, p, _) = batch.split(i);
        let next = local.len();
        local.entry(p).or_insert(next);
    }
    let mut order: Vec<(usize, usize)> = local.iter().map(|(&p, &l)| (l, p)).collect();
    order.sort_unstable();
    let mut pdata = Vec::with_capacity(order.len() * (cells + cells * n));
    for &(_, p) in &order {
        let prep = Prepared::new(&batch.puzzles[p], &batch.settings[0]);
        pdata.extend(prep.clue.iter().map(|&v| v as u32));
        pdata.extend(prep.init.iter().map(|f| f.to_bits()));
    }
    let mut info = Vec::with_capacity(3 * count);
    for i in start..end {
        let (s, p, r) = batch.split(i);
        info.push(local[&p] as u32);
        info.push(rng::instance_key(
            batch.settings[s].seed,
            p as u32,
            r as u32,
        ));
        info.push(s as u32);
    }
    let max_steps = batch.settings.iter().map(|s| s.steps).max().unwrap_or(1);
    let pdata_buf = gpu.storage_init("ilca puzzles", &pdata, false);
    let info_buf = gpu.storage_init("ilca instances", &info, false);
    let weights_buf = gpu.storage_zeroed("ilca weights", (count * cells * n * 4) as u64);
    let choices_buf = gpu.storage_zeroed("ilca choices", (count * cells * 4) as u64);
    let status_buf = gpu.storage_zeroed("ilca status", (count * 4) as u64);
    let uniform_buf = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("ilca params"),
        size: std::mem::size_of::<Uniforms>() as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("ilca"),
        layout: &kernel.bgl,
        entries: &[
            (0, &uniform_buf),
            (1, tables_buf),
            (2, &pdata_buf),
            (3, &info_buf),
            (4, &weights_buf),
            (5, &choices_buf),
            (6, &status_buf),
        ]
        .map(|(binding, buf)| wgpu::BindGroupEntry {
            binding,
            resource: buf.as_entire_binding(),
        }),
    });

    let m = kernel.mapping;
    let groups = count.div_ceil(m.ipw) as u32;
    let max_dim = gpu.limits.max_compute_workgroups_per_dimension.max(1);
    let groups_x = groups.min(max_dim);
    let groups_y = groups.div_ceil(groups_x);
    let k_steps =
        (opts.cell_steps_per_submission / (count * cells) as u64).clamp(1, max_steps as u64) as u32;

    let mut t0 = 0u32;
    let mut finished = 0usize;
    let mut status = vec![0u32; count];
    while t0 < max_steps {
        let k = k_steps.min(max_steps - t0);
        let u = Uniforms {
            num_instances: count as u32,
            t0,
            k_steps: k,
            max_steps,
            groups_x,
            fresh: (t0 == 0) as u32,
            _pad: [0; 2],
        };
        gpu.queue
            .write_buffer(&uniform_buf, 0, bytemuck::bytes_of(&u));
        let mut enc = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("ilca"),
            });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("ilca steps"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&kernel.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(groups_x, groups_y, 1);
        }
        gpu.queue.submit([enc.finish()]);
        t0 += k;
        // Only the status words come back between submissions.
        status = gpu.read_u32(&status_buf, count)?;
        let done = status.iter().filter(|&&s| s != 0).count();
        for _ in finished..done {
            tick();
        }
        finished = done;
        if done == count {
            break;
        }
    }
    let choices = gpu.read_u32(&choices_buf, count * cells)?;
    let mut out = Vec::with_capacity(count);
    for (k, i) in (start..end).enumerate() {
        let (set, p, r) = batch.split(i);
        let cells_k: Vec<u8> = choices[k * cells..(k + 1) * cells]
            .iter()
            .map(|&v| v as u8)
            .collect();
        let grid = Grid::from_cells(kernel.b, cells_k)?;
        let st = status[k];
        if st == 0 {
            // Cannot happen once every step ran; counted so progress still ends at 100%.
            tick();
        }
        let ok = st != 0 && st & EXHAUSTED == 0;
        out.push(InstanceResult {
            puzzle: p,
            run: r,
            solved: ok && grid.is_solution_of(&batch.puzzles[p]),
            steps: if ok { st } else { batch.settings[set].steps },
            grid: grid.to_line(),
        });
    }
    Ok(out)
}

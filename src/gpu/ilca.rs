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
    steps: u32,
    sr: u32,
    compare: u32,
    tie: u32,
    reset_check: u32,
    groups_x: u32,
    fresh: u32,
    _pad: [u32; 2],
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
    params.validate()?;
    ensure!(runs >= 1, "--runs must be at least 1");
    let Some(first) = puzzles.first() else {
        return Ok(Vec::new());
    };
    let b = first.box_size();
    ensure!(
        puzzles.iter().all(|p| p.box_size() == b),
        "all puzzles of a GPU batch must have the same size"
    );
    let kernel = IlcaKernel::cached(gpu, b)?;
    let g = first.geometry();
    let (cells, n) = (g.cells, g.n);

    // Tables shared by every instance: peers, units, factor bits.
    let (reward, penalty) = params.factor_tables(g.n_peers);
    let mut tables: Vec<u32> = g.peers.iter().map(|&x| x as u32).collect();
    tables.extend(g.units.iter().map(|&x| x as u32));
    tables.extend(reward.iter().map(|f| f.to_bits()));
    tables.extend(penalty.iter().map(|f| f.to_bits()));
    let tables_buf = gpu.storage_init("ilca tables", &tables, false);

    // Chunk size: the weights buffer (cells × n f32 per instance) must fit one binding, and so
    // must the per-chunk puzzle data (at most one puzzle per instance).
    let per_instance = (cells * n * 4) as u64;
    let by_limit = (gpu.max_binding_bytes() / per_instance).max(1) as usize;
    let chunk = by_limit.min(opts.max_chunk).max(1);
    let total = puzzles.len() * runs;
    let mut results = Vec::with_capacity(total);
    let mut start = 0;
    while start < total {
        let end = (start + chunk).min(total);
        results.extend(run_chunk(
            gpu,
            &kernel,
            &tables_buf,
            puzzles,
            runs,
            params,
            opts,
            start,
            end,
            tick,
        )?);
        start = end;
    }
    Ok(results)
}

#[allow(clippy::too_many_arguments)]
fn run_chunk(
    gpu: &Gpu,
    kernel: &IlcaKernel,
    tables_buf: &wgpu::Buffer,
    puzzles: &[Grid],
    runs: usize,
    params: &IlcaParams,
    opts: &GpuOptions,
    start: usize,
    end: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<InstanceResult>> {
    let g = crate::puzzle::Geometry::get(kernel.b);
    let (cells, n) = (g.cells, g.n);
    let count = end - start;
    let (p_first, p_last) = (start / runs, (end - 1) / runs);

    // Puzzle data of the puzzles this chunk touches: clues, then initial weight bits.
    let mut pdata = Vec::with_capacity((p_last - p_first + 1) * (cells + cells * n));
    for p in &puzzles[p_first..=p_last] {
        let prep = Prepared::new(p, params);
        pdata.extend(prep.clue.iter().map(|&v| v as u32));
        pdata.extend(prep.init.iter().map(|f| f.to_bits()));
    }
    let mut info = Vec::with_capacity(2 * count);
    for i in start..end {
        let (p, r) = (i / runs, i % runs);
        info.push((p - p_first) as u32);
        info.push(rng::instance_key(params.seed, p as u32, r as u32));
    }
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
    let k_steps = (opts.cell_steps_per_submission / (count * cells) as u64)
        .clamp(1, params.steps as u64) as u32;

    let mut t0 = 0u32;
    let mut solved_so_far = 0usize;
    let mut status = vec![0u32; count];
    while t0 < params.steps {
        let k = k_steps.min(params.steps - t0);
        let u = Uniforms {
            num_instances: count as u32,
            t0,
            k_steps: k,
            steps: params.steps,
            sr: params.sr,
            compare: match params.compare {
                Compare::Sharing => 0,
                Compare::Free => 1,
                Compare::All => 2,
            },
            tie: match params.tie {
                TieBreak::Random => 0,
                TieBreak::First => 1,
                TieBreak::Keep => 2,
            },
            reset_check: match params.reset_check {
                ResetCheck::Permutation => 0,
                ResetCheck::Sum => 1,
            },
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
        let solved = status.iter().filter(|&&s| s != 0).count();
        for _ in solved_so_far..solved {
            tick();
        }
        solved_so_far = solved;
        if solved == count {
            break;
        }
    }
    let choices = gpu.read_u32(&choices_buf, count * cells)?;
    let mut out = Vec::with_capacity(count);
    for (k, i) in (start..end).enumerate() {
        let (p, r) = (i / runs, i % runs);
        let cells_k: Vec<u8> = choices[k * cells..(k + 1) * cells]
            .iter()
            .map(|&v| v as u8)
            .collect();
        let grid = Grid::from_cells(kernel.b, cells_k)?;
        let ok = status[k] != 0;
        if !ok {
            tick();
        }
        out.push(InstanceResult {
            puzzle: p,
            run: r,
            solved: ok && grid.is_solution_of(&puzzles[p]),
            steps: if ok { status[k] } else { params.steps },
            grid: grid.to_line(),
        });
    }
    Ok(out)
}

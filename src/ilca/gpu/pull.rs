//! Host side of cooperation on the GPU ([`super::super::Pull`]; `shaders/ilca_pull.wgsl`, the
//! twin of [`super::super::cpu::pull`]): its prelude, bind group and two pipelines, and the
//! dispatches a chunk of the ILCA engine records after every `every`-th step.

use anyhow::Result;
use std::mem::size_of;

use super::{InstanceInfo, Kernel, FLUSH_BELOW, SCALE_HIGH, SCALE_LOW};
use crate::gpu::{grid_2d, Binding, BoundsChecks, Gpu, Pipeline, Prelude};

const KERNEL: &str = include_str!("../../../shaders/ilca_pull.wgsl");

/// Invocations per workgroup (one workgroup per instance): cells are spread over them.
const PULL_WG: usize = 64;

/// The uniform block of both entry points (`PullParams` in ilca_pull.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct PullUniforms {
    num_instances: u32,
    portfolio: u32,
    factor_bits: u32,
    groups_x: u32,
}

crate::wgsl_struct!(PullUniforms as ILCA_PULL_PULLPARAMS {
    num_instances, portfolio, factor_bits, groups_x
});

/// The bind group (names as in ilca_pull.wgsl, checked when compiling): the ILCA kernel's
/// buffers of a chunk, and one word per portfolio for its best instance.
const BINDINGS: [Binding; 8] = [
    Binding::uniform("P"),
    Binding::read("tables"),
    Binding::read("puzzle_data"),
    Binding::read("inst_info"),
    Binding::read_write("weights"),
    Binding::read("choices"),
    Binding::read("status"),
    Binding::read_write("best"),
];
const _: () = assert!(crate::gpu::layout::bindings_match(
    crate::gpu::layout::ILCA_PULL_BINDINGS,
    &BINDINGS
));

/// The `const` lines before the pull kernel for box size `b`, from the Rust definitions.
fn prelude(b: usize) -> Prelude {
    let g = crate::puzzle::Geometry::get(b);
    let word = |offset: usize| offset / size_of::<u32>();
    let mut p = Prelude::new();
    p.size("N", g.n)
        .size("CELLS", g.cells)
        .size("NP", g.n_peers)
        .size("PUZ_STRIDE", super::puzzle_stride(b))
        .size("INFO_WORDS", word(size_of::<InstanceInfo>()))
        .size(
            "INFO_PUZZLE",
            word(std::mem::offset_of!(InstanceInfo, local_puzzle)),
        )
        .size("PULL_WG", PULL_WG)
        .f32_bits("SCALE_HIGH", SCALE_HIGH)
        .f32_bits("SCALE_LOW", SCALE_LOW)
        .f32_bits("FLUSH_BELOW", FLUSH_BELOW);
    p
}

/// Most loop passes one invocation of either entry point makes for box size `b` (a loop of t
/// trips: t + 1 passes): `rank` counts its cells' conflicts over their peers, `pull` finds
/// each row's maximum and scales it.
pub(super) fn loop_passes(b: usize) -> u64 {
    let g = crate::puzzle::Geometry::get(b);
    let cells = g.cells.div_ceil(PULL_WG) as u64;
    let (n, np) = (g.n as u64, g.n_peers as u64);
    let rank = cells + 1 + cells * (np + 1);
    let pull = cells + 1 + cells * 2 * (n + 1);
    rank.max(pull)
}

/// The pull kernel's two pipelines for one grid size.
pub struct PullKernel {
    rank: Pipeline,
    pull: Pipeline,
}

impl PullKernel {
    fn new(gpu: &Gpu, b: usize) -> Result<PullKernel> {
        anyhow::ensure!(
            loop_passes(b) <= crate::gpu::LOOP_PASS_BUDGET,
            "internal error: the pull kernel exceeds the loop budget"
        );
        let source = prelude(b).source(&[KERNEL]);
        // Indices are in range by construction (instance < num_instances, cells and peers
        // from the tables); the agreement tests run every path.
        let make = |entry| {
            Pipeline::entry(
                gpu,
                "ilca pull",
                entry,
                &source,
                &BINDINGS,
                BoundsChecks::Off,
            )
        };
        Ok(PullKernel {
            rank: make("rank")?,
            pull: make("pull")?,
        })
    }

    /// The kernel for box size `b`, compiled once per device.
    pub fn cached(gpu: &Gpu, b: usize) -> Result<std::sync::Arc<PullKernel>> {
        gpu.cached(&format!("ilca-pull-{b}"), || PullKernel::new(gpu, b))
    }
}

/// A chunk's cooperation: the bind groups over its buffers and the portfolios' `best` words.
pub(super) struct ChunkPull {
    kernel: std::sync::Arc<PullKernel>,
    bind_rank: wgpu::BindGroup,
    bind_pull: wgpu::BindGroup,
    best: wgpu::Buffer,
    groups: (u32, u32),
}

impl ChunkPull {
    /// For a chunk of `count` instances in portfolios of `portfolio` (whole ones, in order)
    /// whose ILCA buffers are `ilca` (tables, puzzle data, instance lines, weights, choices,
    /// status), pulling by `factor`.
    pub(super) fn new(
        gpu: &Gpu,
        kernel: &Kernel,
        ilca: [&wgpu::Buffer; 6],
        count: usize,
        portfolio: usize,
        factor: f32,
    ) -> Result<ChunkPull> {
        let pull = PullKernel::cached(gpu, kernel.b)?;
        let groups = grid_2d(gpu, count as u32);
        let uniforms = PullUniforms {
            num_instances: count as u32,
            portfolio: portfolio as u32,
            factor_bits: factor.to_bits(),
            groups_x: groups.0,
        };
        let uniform = gpu.uniform_init("ilca pull params", &uniforms);
        let best = gpu.storage_zeroed(
            "ilca pull best",
            (count.div_ceil(portfolio) * size_of::<u32>()) as u64,
        );
        let [tables, pdata, info, weights, choices, status] = ilca;
        let buffers = [
            &uniform, tables, pdata, info, weights, choices, status, &best,
        ];
        Ok(ChunkPull {
            bind_rank: pull.rank.bind(gpu, &buffers),
            bind_pull: pull.pull.bind(gpu, &buffers),
            kernel: pull,
            best,
            groups,
        })
    }

    /// Records one pull, after a dispatch that ended at a multiple of `every` steps.
    pub(super) fn record(&self, enc: &mut wgpu::CommandEncoder) {
        enc.clear_buffer(&self.best, 0, None);
        let k = &self.kernel;
        k.rank.dispatch(enc, &self.bind_rank, self.groups);
        k.pull.dispatch(enc, &self.bind_pull, self.groups);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every number the pull kernel shares with Rust comes from its prelude.
    #[test]
    fn the_pull_kernel_takes_every_shared_number_from_the_prelude() {
        for b in 2usize..=8 {
            let errors = prelude(b).check_kernel(KERNEL, &[]);
            assert!(errors.is_empty(), "{b}: {errors:#?}");
        }
    }

    /// 64x64: 64 cells per invocation, 175 peers each, well inside the budget.
    #[test]
    fn the_pull_kernel_fits_the_loop_budget_at_every_size() {
        assert_eq!(loop_passes(8), 65 + 64 * 176);
        for b in 2..=8 {
            assert!(loop_passes(b) <= crate::gpu::LOOP_PASS_BUDGET, "{b}");
        }
    }
}

//! Host side of the final grids' packing (`shaders/ilca_grids.wgsl`): after a chunk's last
//! step, its instances' states go from a word per cell (`choices`, what the ILCA kernel carries
//! between dispatches) to a byte per cell, so the readback holds a quarter of the bytes and the
//! host builds each `Grid` from its bytes where they are mapped.

use anyhow::Result;
use std::mem::size_of;

use crate::gpu::{grid_2d, Binding, BoundsChecks, Gpu, Lent, Pipeline, Prelude};

const KERNEL: &str = include_str!("../../../shaders/ilca_grids.wgsl");

/// Invocations per workgroup, one output word each.
const GRIDS_WG: usize = 256;

/// Cells per output word: a byte each.
const CELLS_PER_WORD: usize = size_of::<u32>();

/// The uniform block (`GridsParams` in ilca_grids.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct GridsUniforms {
    num_words: u32,
    groups_x: u32,
    _pad0: u32,
    _pad1: u32,
}

crate::wgsl_struct!(GridsUniforms as ILCA_GRIDS_GRIDSPARAMS {
    num_words, groups_x, _pad0, _pad1
});

/// The bind group (names as in ilca_grids.wgsl, checked when compiling).
const BINDINGS: [Binding; 3] = [
    Binding::uniform("P"),
    Binding::read("choices"),
    Binding::read_write("grids"),
];
const _: () = assert!(crate::gpu::layout::bindings_match(
    crate::gpu::layout::ILCA_GRIDS_BINDINGS,
    &BINDINGS
));

/// Words of one packed grid of box size `b`: its cells, four to a word.
pub(super) fn grid_words(b: usize) -> usize {
    crate::puzzle::Geometry::get(b)
        .cells
        .div_ceil(CELLS_PER_WORD)
}

/// The `const` lines before the kernel for box size `b`, from the Rust definitions.
fn prelude(b: usize) -> Prelude {
    let mut p = Prelude::new();
    p.size("CELLS", crate::puzzle::Geometry::get(b).cells)
        .size("GRID_WORDS", grid_words(b))
        .size("CELLS_PER_WORD", CELLS_PER_WORD)
        .size("BYTE_BITS", u8::BITS as usize)
        .size("GRIDS_WG", GRIDS_WG);
    p
}

/// The packing kernel for one grid size.
pub struct GridsKernel {
    pipeline: Pipeline,
}

impl GridsKernel {
    fn new(gpu: &Gpu, b: usize) -> Result<GridsKernel> {
        let source = prelude(b).source(&[KERNEL]);
        // Indices are in range by construction (word < num_words = instances × GRID_WORDS,
        // cell < CELLS); the agreement tests read every grid back.
        let pipeline = Pipeline::new(gpu, "ilca grids", &source, &BINDINGS, BoundsChecks::Off)?;
        Ok(GridsKernel { pipeline })
    }

    /// The kernel for box size `b`, compiled once per device.
    pub fn cached(gpu: &Gpu, b: usize) -> Result<std::sync::Arc<GridsKernel>> {
        gpu.cached(&format!("ilca-grids-{b}"), || GridsKernel::new(gpu, b))
    }
}

/// A chunk's packed grids: the buffer they go to and the dispatch that fills it.
pub(super) struct ChunkGrids {
    kernel: std::sync::Arc<GridsKernel>,
    bind: wgpu::BindGroup,
    /// `count × grid_words(b)` words, a byte per cell.
    pub(super) grids: Lent,
    groups: (u32, u32),
}

impl ChunkGrids {
    /// For a chunk of `count` instances of box size `b` whose states are in `choices`.
    pub(super) fn new(
        gpu: &Gpu,
        b: usize,
        choices: &wgpu::Buffer,
        count: usize,
    ) -> Result<ChunkGrids> {
        let kernel = GridsKernel::cached(gpu, b)?;
        let words = count * grid_words(b);
        let groups = grid_2d(gpu, words.div_ceil(GRIDS_WG) as u32);
        let uniform = gpu.uniform_init(
            "ilca grids params",
            &GridsUniforms {
                num_words: words as u32,
                groups_x: groups.0,
                _pad0: 0,
                _pad1: 0,
            },
        );
        let grids = gpu.lend_storage("ilca grids", (words * size_of::<u32>()) as u64);
        let bind = kernel.pipeline.bind(gpu, &[&uniform, choices, &*grids]);
        Ok(ChunkGrids {
            kernel,
            bind,
            grids,
            groups,
        })
    }

    /// Records the packing, after the chunk's last dispatch.
    pub(super) fn record(&self, enc: &mut wgpu::CommandEncoder) {
        (self.kernel.pipeline).dispatch(enc, &self.bind, self.groups);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every number the packing kernel shares with Rust comes from its prelude.
    #[test]
    fn the_grids_kernel_takes_every_shared_number_from_the_prelude() {
        for b in 2usize..=8 {
            let errors = prelude(b).check_kernel(KERNEL, &[]);
            assert!(errors.is_empty(), "{b}: {errors:#?}");
        }
    }

    /// 64x64's 4,096 cells are 1,024 words; a digit (at most 64) fits a byte.
    #[test]
    fn a_grid_packs_four_cells_to_a_word() {
        assert_eq!(grid_words(3), 21);
        assert_eq!(grid_words(8), 1024);
        assert!(64 <= u8::MAX as usize);
    }
}

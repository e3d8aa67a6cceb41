//! Host side of the GPU ILCA engine (`shaders/ilca.wgsl`): a [`Batch`] of instances, split
//! into chunks that fit the adapter's buffers and into submissions of bounded work. Same results
//! as [`super::cpu::run`], instance for instance, bit for bit.

use anyhow::{ensure, Result};
use std::mem::size_of;

use super::cpu::Problem;
use super::{
    Batch, Compare, IlcaParams, Instance, Prune, ResetCheck, TieBreak, FLUSH_BELOW, SCALE_HIGH,
    SCALE_LOW,
};
use crate::choice::Choice;
use crate::gpu::{grid_2d, Binding, BoundsChecks, Gpu, Pipeline, Prelude, LOOP_PASS_BUDGET};
use crate::puzzle::Grid;
use crate::report::InstanceResult;
use rayon::prelude::*;

mod grids;
mod pull;

const KERNEL: &str = include_str!("../../shaders/ilca.wgsl");

/// Invocations per workgroup for grids of at most this many cells (several instances each),
/// and per instance for grids up to 3 × as many cells.
const WG_TARGET: usize = 256;

/// Most invocations per workgroup for larger grids (one instance each), where the device allows.
const WG_MAX: usize = 1024;

/// Cells to a workgroup-memory word in the byte layout ([`Mapping::packed`]): states are at
/// most 64 and degrees at most 175, so a byte each.
pub const CELLS_PER_WORD: usize = 4;

/// Digit counts to a workgroup-memory word in the unit counts ([`Mapping::counts`]): a unit
/// holds at most 64 cells, so a byte each.
pub const COUNTS_PER_WORD: usize = 4;

/// How instances map onto workgroups for one grid size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// Instances per workgroup.
    pub ipw: usize,
    /// Invocations per instance.
    pub tpi: usize,
    /// Cells per invocation.
    pub cpt: usize,
    /// States and degrees one byte per cell, four to a workgroup-memory word (`PACKED` in
    /// ilca.wgsl); an invocation then owns runs of four cells. Else one word per cell.
    pub packed: bool,
    /// Each instance keeps, per unit, how many of its cells hold each digit (`COUNTS` in
    /// ilca.wgsl), so a cell's degree costs 2B state reads instead of NP, and the reward test
    /// of `--compare sharing` visits only the peers that share the cell's digit. On by default
    /// wherever an invocation owns several cells (whose peers are then not kept in registers)
    /// and they fit the device (64x64 within 16 KiB goes without);
    /// [`KernelLayout::unit_counts`] can ask for them anywhere, or for none.
    pub counts: bool,
}

crate::choice! {
    /// How the kernel keeps an instance's states and degrees in workgroup memory (see
    /// [`Mapping::packed`]). By default words wherever they fit the device, bytes elsewhere
    /// (64x64 on every current device, 49x49 on lavapipe); [`KernelLayout::states`] can ask
    /// for either.
    pub enum StateLayout {
        /// One u32 per cell (`Mapping::within`).
        Words = "words",
        /// One byte per cell, four to a word (`Mapping::packed_within`).
        Bytes = "bytes",
    }
}

crate::choice! {
    /// Whether the kernel keeps unit counts ([`Mapping::counts`]), when asked
    /// ([`KernelLayout::unit_counts`]).
    pub enum UnitCounts {
        /// Kept, even with one cell per invocation.
        On = "on",
        /// Not kept: every degree and reward test reads the peers one by one.
        Off = "off",
    }
}

/// What a caller asks of the kernel's workgroup-memory layout; each `None` leaves
/// [`Mapping::choose`]'s default. Only to measure one layout against another
/// (`gpu-sudoku bench --state-layout`, `--unit-counts`); results are the same under every one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelLayout {
    /// States and degrees as words or bytes.
    pub states: Option<StateLayout>,
    /// Unit counts on or off.
    pub unit_counts: Option<UnitCounts>,
}

impl Mapping {
    /// The mapping on a device that runs 1,024 invocations per workgroup (see [`Mapping::within`]).
    pub fn for_cells(cells: usize) -> Mapping {
        Mapping::within(cells, WG_MAX)
    }

    /// Small grids pack several instances in a workgroup (9x9: 3 × 81 = 243 invocations, a cell
    /// each); up to 768 cells an instance gets 256 invocations (25x25: 3 cells each); larger
    /// grids get up to `max_invocations` (at most 1,024), as few cells each as that allows,
    /// spread evenly (36x36: 648 invocations of 2 cells, 49x49: 801 of 3). Measured on an H200
    /// (benches/RESULTS.md): 49x49 1.9x faster than 256 invocations of 10 cells, 36x36 within
    /// the noise; 25x25 over 625 invocations of one cell ranged from 7% faster to 20% slower,
    /// so it keeps 256.
    pub fn within(cells: usize, max_invocations: usize) -> Mapping {
        let wide = max_invocations.min(WG_MAX);
        if cells <= WG_TARGET {
            Mapping {
                ipw: WG_TARGET / cells,
                tpi: cells,
                cpt: 1,
                packed: false,
                counts: false,
            }
        } else if cells <= 3 * WG_TARGET || wide <= WG_TARGET {
            let cpt = cells.div_ceil(WG_TARGET);
            Mapping {
                ipw: 1,
                tpi: WG_TARGET,
                cpt,
                packed: false,
                counts: cpt > 1,
            }
        } else {
            let cpt = cells.div_ceil(wide);
            Mapping {
                ipw: 1,
                tpi: cells.div_ceil(cpt),
                cpt,
                packed: false,
                counts: cpt > 1,
            }
        }
    }

    /// The byte layout: one instance per workgroup, each invocation owning whole words (runs
    /// of four cells), as few as `max_invocations` (at most 1,024) allow. 64x64: 1,024
    /// invocations of 4 cells; 49x49: 601 of 4.
    pub fn packed_within(cells: usize, max_invocations: usize) -> Mapping {
        let words = cells.div_ceil(CELLS_PER_WORD);
        let wpt = words.div_ceil(max_invocations.clamp(1, WG_MAX));
        Mapping {
            ipw: 1,
            tpi: words.div_ceil(wpt),
            cpt: CELLS_PER_WORD * wpt,
            packed: true,
            counts: true,
        }
    }

    /// Its layout of states and degrees in workgroup memory.
    pub fn layout(&self) -> StateLayout {
        if self.packed {
            StateLayout::Bytes
        } else {
            StateLayout::Words
        }
    }

    /// The mapping `ask` asks for; where it leaves the states' layout open, words if they fit
    /// `workgroup_limit` bytes and bytes otherwise, and where it leaves the unit counts open,
    /// without them only where the layout does not fit with them (64x64 within the 16,384
    /// bytes every Vulkan device offers).
    pub fn choose(
        b: usize,
        max_invocations: usize,
        workgroup_limit: usize,
        ask: KernelLayout,
    ) -> Mapping {
        let cells = crate::puzzle::Geometry::get(b).cells;
        let asked = |m: Mapping| match ask.unit_counts {
            Some(c) => Mapping {
                counts: c == UnitCounts::On,
                ..m
            },
            None => m,
        };
        let words = asked(Mapping::within(cells, max_invocations));
        let bytes = asked(Mapping::packed_within(cells, max_invocations));
        // Unit counts are worth more than words (benches/RESULTS.md, "Unit counts"): they are
        // dropped only where no layout fits with them.
        let fits = |m: Mapping| workgroup_bytes(b, m) <= workgroup_limit;
        let or_without_counts = |m: Mapping| {
            if fits(m) || ask.unit_counts.is_some() {
                m
            } else {
                Mapping { counts: false, ..m }
            }
        };
        match ask.states {
            Some(StateLayout::Words) => or_without_counts(words),
            Some(StateLayout::Bytes) => or_without_counts(bytes),
            None if fits(words) => words,
            None => or_without_counts(bytes),
        }
    }
}

/// Upper bound of the loop passes one invocation of `shaders/ilca.wgsl` makes (see
/// [`LOOP_PASS_BUDGET`]): every loop counted as its trips plus one pass for the exit test,
/// for the invocation with the most work, every branch taken (lanes of one group may take
/// different ones) and no loop assumed unrolled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopPasses {
    /// Per time-step (the step loop's own pass included).
    pub per_step: u64,
    /// Once per dispatch: loading and storing the weights, listing peers, the step loop's exit.
    pub per_dispatch: u64,
}

impl LoopPasses {
    /// The bound for box size `b`. Measured on lavapipe (Mesa unrolls some loops of constant
    /// length, so fewer passes): an uncapped dispatch went wrong after about 6,000 steps of a
    /// 9x9 (≈ 11 passes per step), 685 of a 16x16 (≈ 97) and, with unit counts, 524 of a 25x25
    /// (≈ 125) and 288 of a 36x36 (≈ 228); this bound gives 100, 173, 581 and 561. `sharing`:
    /// some instance of the dispatch runs resource sharing, whose loops are then counted too.
    pub fn for_box(b: usize, sharing: bool) -> LoopPasses {
        let g = crate::puzzle::Geometry::get(b);
        LoopPasses::for_mapping(b, Mapping::for_cells(g.cells), sharing)
    }

    /// The bound for box size `b` under mapping `m`.
    pub fn for_mapping(b: usize, m: Mapping, sharing: bool) -> LoopPasses {
        let g = crate::puzzle::Geometry::get(b);
        let (n, np, cpt) = (g.n as u64, g.n_peers as u64, m.cpt as u64);
        // A loop of `t` trips: t + 1 passes.
        let lp = |t: u64| t + 1;
        // `for k < CPT` (the invocation's cells) with `inner` passes per cell.
        let own_cells = |inner: u64| lp(cpt) + cpt * inner;
        let units = (3 * n).div_ceil(m.tpi as u64); // `for u = j; u < 3N; u += TPI`
        let b = b as u64;
        // Degrees: every peer's state, or with unit counts the cell's row and column within
        // its box (one loop of B trips).
        let degrees = if m.counts { lp(b) } else { lp(np) };
        // Reward test: every peer, or with unit counts the row, the column and the rest of the
        // box as three loops (inside one of three trips).
        let reward = if m.counts {
            lp(3) + 2 * lp(n - 1) + lp((b - 1) * (b - 1))
        } else {
            lp(np)
        };
        let per_step = 1 // the step loop
            + own_cells(lp(n - 1) + lp(n)) // 1. choose: the maximum, then the tie pick
            + own_cells(degrees) // 2. degrees
            + lp(units) + units * lp(n) // resolved units for the selective reset
            // 3.-4. reward test and rescale (skipped by a reset), then the one restore loop
            // (the reset's, or after learning left no weight); under sharing, the peers'
            // digits and the whole row's rescale (maximum, then scale and flush)
            + own_cells(lp(n) + reward + lp(n) + if sharing { lp(np) + 2 * lp(n) } else { 0 });
        let per_dispatch = if m.cpt == 1 { lp(np) } else { 0 } // peers listed
            + if m.counts { lp(count_words(g.n, m).div_ceil(m.tpi) as u64) } else { 0 } // counts cleared
            + own_cells(2 * lp(n)) // weights loaded (fresh or carried over)
            + 1 // the step loop's exit
            + own_cells(lp(n)); // weights stored
        LoopPasses {
            per_step,
            per_dispatch,
        }
    }
}

/// Most time-steps one dispatch of the kernel may run for box size `b`, so that no invocation
/// exceeds [`LOOP_PASS_BUDGET`] loop passes (599 for 9x9, 346 for 16x16, 102 for 25x25,
/// 31 for 64x64; with resource sharing (`sharing`) 425, 242, 64 and 19), on a device that runs
/// 1,024 invocations per workgroup. Applied on every adapter; a submission holds as many
/// dispatches as it needs.
pub fn max_steps_per_dispatch(b: usize, sharing: bool) -> Result<u32> {
    let g = crate::puzzle::Geometry::get(b);
    max_steps_per_dispatch_for(b, Mapping::for_cells(g.cells), sharing)
}

/// [`max_steps_per_dispatch`] under mapping `m`.
pub fn max_steps_per_dispatch_for(b: usize, m: Mapping, sharing: bool) -> Result<u32> {
    let lp = LoopPasses::for_mapping(b, m, sharing);
    let k = crate::gpu::rounds_within_loop_budget(lp.per_step, lp.per_dispatch);
    ensure!(
        k >= 1,
        "one ILCA step of a {n}x{n} grid needs up to {} loop passes per GPU invocation, more \
         than the {} a dispatch may make; run it on the CPU",
        lp.per_step + lp.per_dispatch,
        LOOP_PASS_BUDGET,
        n = b * b
    );
    Ok(k.min(u32::MAX as u64) as u32)
}

/// Whether some setting runs resource sharing, whose loops the dispatch cap must then count
/// (the kernel runs them only for such instances, so other batches keep longer dispatches).
pub fn shares(settings: &[IlcaParams]) -> bool {
    settings.iter().any(|s| s.share_factor().is_some())
}

/// Workgroup memory the kernel for box size `b` under mapping `m` declares: per instance two
/// copies of `states` and one of `degrees` (a word per cell, or packed a byte), two `unhappy`
/// flags, `unit_ok` per unit and the unit counts (a byte per unit and digit; one unused word
/// without them). In words, up to 36x36 fits the 32,768 bytes of lavapipe and up to 49x49
/// (36,612) the 49,152 NVIDIA's Vulkan driver offers; 64x64 (62,216) fits neither, so it is
/// packed (25,352).
pub fn workgroup_bytes(b: usize, m: Mapping) -> usize {
    let g = crate::puzzle::Geometry::get(b);
    let words = if m.packed {
        g.cells.div_ceil(CELLS_PER_WORD)
    } else {
        g.cells
    };
    size_of::<u32>() * m.ipw * (3 * words + 2 + 3 * g.n + count_words(g.n, m))
}

/// Words of one instance's unit counts (`COUNT_WORDS` in ilca.wgsl): a byte per unit and digit,
/// or, without them, the one word the kernel still declares.
fn count_words(n: usize, m: Mapping) -> usize {
    if m.counts {
        (3 * n * n).div_ceil(COUNTS_PER_WORD)
    } else {
        1
    }
}

/// Knobs of the GPU engine that do not change results.
#[derive(Clone, Debug)]
pub struct GpuOptions {
    /// Upper bound on instances per chunk (the adapter's buffer limits bound it too).
    pub max_chunk: usize,
    /// Cell-steps per submission: bounds the time of one submission (GPU watchdogs kill long
    /// ones). A submission holds one dispatch per [`max_steps_per_dispatch`] steps.
    pub cell_steps_per_submission: u64,
    /// Cap the steps of a dispatch by [`max_steps_per_dispatch`] (on by default, on every
    /// adapter). Off only to measure what the cap costs on a GPU without llvmpipe's loop
    /// limit (`gpu-sudoku bench --no-loop-pass-cap`): on lavapipe, results then go wrong.
    pub loop_pass_cap: bool,
    /// The kernel's layout in workgroup memory (default: [`Mapping::choose`]'s). Only to
    /// measure one against another (`gpu-sudoku bench --state-layout`, `--unit-counts`).
    pub layout: KernelLayout,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            max_chunk: 1 << 20,
            cell_steps_per_submission: 1 << 31,
            loop_pass_cap: true,
            layout: KernelLayout::default(),
        }
    }
}

/// The uniform block of one dispatch (`Params` in ilca.wgsl; a test checks the two layouts).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Uniforms {
    pub num_instances: u32,
    pub t0: u32,
    pub k_steps: u32,
    pub max_steps: u32,
    pub groups_x: u32,
    pub fresh: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}

crate::wgsl_struct!(Uniforms as ILCA_PARAMS {
    num_instances, t0, k_steps, max_steps, groups_x, fresh, _pad1, _pad2
});
// Uniform blocks are laid out in 16-byte multiples.
const _: () = assert!(size_of::<Uniforms>().is_multiple_of(16));

/// One instance's line of the `inst_info` buffer (`InstanceInfo` in ilca.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct InstanceInfo {
    /// Index of its puzzle among the chunk's puzzles.
    local_puzzle: u32,
    /// Random key, [`Batch::key`].
    key: u32,
    /// Index of its setting in the tables.
    setting: u32,
}

crate::wgsl_struct!(InstanceInfo as ILCA_INSTANCEINFO {
    local_puzzle, key, setting
});

/// Most steps between two looks at a portfolio batch's status words, where the instances that
/// can no longer be their portfolio's first solution stop (a look costs one submission).
const PORTFOLIO_CHECK_STEPS: u32 = 256;

/// Status bit of an instance that reached its step limit unsolved (`EXHAUSTED` in ilca.wgsl).
const EXHAUSTED: u32 = 0x8000_0000;

impl Compare {
    /// The kernel's code for this rule (`COMPARE_*` in ilca.wgsl, from [`prelude`]).
    pub const fn code(self) -> u32 {
        match self {
            Compare::Sharing => 0,
            Compare::Free => 1,
            Compare::All => 2,
        }
    }
}

impl TieBreak {
    /// The kernel's code for this rule (`TIE_*` in ilca.wgsl, from [`prelude`]).
    pub const fn code(self) -> u32 {
        match self {
            TieBreak::Random => 0,
            TieBreak::First => 1,
            TieBreak::Keep => 2,
        }
    }
}

impl ResetCheck {
    /// The kernel's code for this check (`RESET_CHECK_*` in ilca.wgsl, from [`prelude`]).
    pub const fn code(self) -> u32 {
        match self {
            ResetCheck::Permutation => 0,
            ResetCheck::Sum => 1,
        }
    }
}

/// The head of one setting's block in the tables buffer; the reward factors (|N| + 1 f32 bits)
/// and the penalty factors (as many) follow it. The kernel reads the block by the word offsets
/// `SET_*` the [`prelude`] gives.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct SettingHead {
    steps: u32,
    sr: u32,
    compare: u32,
    tie: u32,
    reset_check: u32,
    restart: u32,
    /// Bits of the resource-sharing factor s; 0 (off) is no factor: s = 1/(1 + share) is at
    /// least 1/1001.
    share: u32,
}

/// Words of one setting's block for `n_peers` peers.
fn setting_stride(n_peers: usize) -> usize {
    size_of::<SettingHead>() / size_of::<u32>() + 2 * (n_peers + 1)
}

/// The kernel's bind group, binding i = entry i (names as in ilca.wgsl, checked when compiling).
pub(crate) const BINDINGS: [Binding; 7] = [
    Binding::uniform("P"),
    Binding::read("tables"),
    Binding::read("puzzle_data"),
    Binding::read("inst_info"),
    Binding::read_write("weights"),
    Binding::read_write("choices"),
    Binding::read_write("status"),
];
const _: () = assert!(crate::gpu::layout::bindings_match(
    crate::gpu::layout::ILCA_BINDINGS,
    &BINDINGS
));

/// The `const` lines before the kernel for box size `b` under mapping `m`: sizes, the layout of
/// its buffers, the status bit, the f32 constants of [`super::cpu`]'s rescale, and the codes of
/// the options, all from their Rust definitions (the kernel restates none).
pub(crate) fn prelude(b: usize, m: Mapping) -> Prelude {
    let g = crate::puzzle::Geometry::get(b);
    let word = |offset: usize| offset / size_of::<u32>();
    let mut p = Prelude::new();
    p.size("B", g.b)
        .size("N", g.n)
        .size("CELLS", g.cells)
        .size("NP", g.n_peers)
        .size("IPW", m.ipw)
        .size("TPI", m.tpi)
        .size("CPT", m.cpt)
        .bool("PACKED", m.packed)
        .size("CELLS_PER_WORD", CELLS_PER_WORD)
        .bool("COUNTS", m.counts)
        .size("COUNTS_PER_WORD", COUNTS_PER_WORD)
        .size("COUNT_WORDS", count_words(g.n, m))
        // tables: peers | units | settings (see run_inner)
        .size("UNITS_OFF", g.peers.len())
        .size("SET_OFF", g.peers.len() + g.units.len())
        .size("SET_STRIDE", setting_stride(g.n_peers))
        .size("SET_STEPS", word(std::mem::offset_of!(SettingHead, steps)))
        .size("SET_SR", word(std::mem::offset_of!(SettingHead, sr)))
        .size(
            "SET_COMPARE",
            word(std::mem::offset_of!(SettingHead, compare)),
        )
        .size("SET_TIE", word(std::mem::offset_of!(SettingHead, tie)))
        .size(
            "SET_RESET_CHECK",
            word(std::mem::offset_of!(SettingHead, reset_check)),
        )
        .size(
            "SET_RESTART",
            word(std::mem::offset_of!(SettingHead, restart)),
        )
        .size("SET_SHARE", word(std::mem::offset_of!(SettingHead, share)))
        .size("SET_FACTORS", word(size_of::<SettingHead>()))
        // puzzle data: clues | initial weight bits (see run_chunk)
        .size("PUZ_STRIDE", puzzle_stride(b))
        .bits("EXHAUSTED", EXHAUSTED)
        .f32_bits("SCALE_HIGH", SCALE_HIGH)
        .f32_bits("SCALE_LOW", SCALE_LOW)
        .f32_bits("FLUSH_BELOW", FLUSH_BELOW)
        .codes("COMPARE", Compare::code)
        .codes("TIE", TieBreak::code)
        .codes("RESET_CHECK", ResetCheck::code);
    p
}

/// Words of one puzzle's block in `puzzle_data`: clues, then initial weight bits (see
/// `run_chunk`).
fn puzzle_stride(b: usize) -> usize {
    let g = crate::puzzle::Geometry::get(b);
    g.cells + g.cells * g.n
}

/// The kernel's source for box size `b`: its [`prelude`], the RNG, the kernel.
pub(crate) fn source(b: usize, m: Mapping) -> String {
    prelude(b, m).source(&[crate::rng::WGSL, KERNEL])
}

/// One setting's block in the tables buffer: [`SettingHead`], then the factors.
fn setting_words(p: &IlcaParams, n_peers: usize) -> Vec<u32> {
    let (reward, penalty) = p.factor_tables(n_peers);
    let head = SettingHead {
        steps: p.steps,
        sr: p.sr,
        compare: p.compare.code(),
        tie: p.tie.code(),
        reset_check: p.reset_check.code(),
        restart: p.restart,
        share: p.share_factor().map_or(0, f32::to_bits),
    };
    let mut v = bytemuck::cast_slice::<SettingHead, u32>(&[head]).to_vec();
    v.extend(reward.iter().map(|f| f.to_bits()));
    v.extend(penalty.iter().map(|f| f.to_bits()));
    assert_eq!(v.len(), setting_stride(n_peers));
    v
}

/// The ILCA kernel compiled for one grid size.
pub struct Kernel {
    pipeline: Pipeline,
    b: usize,
    mapping: Mapping,
}

impl Kernel {
    pub fn new(gpu: &Gpu, b: usize, layout: KernelLayout) -> Result<Kernel> {
        let g = crate::puzzle::Geometry::get(b);
        let limit = gpu
            .limits
            .max_compute_invocations_per_workgroup
            .min(gpu.limits.max_compute_workgroup_size_x);
        let mapping = Mapping::choose(
            b,
            limit as usize,
            gpu.limits.max_compute_workgroup_storage_size as usize,
            layout,
        );
        let invocations = (mapping.ipw * mapping.tpi) as u32;
        ensure!(
            invocations <= gpu.limits.max_compute_invocations_per_workgroup
                && invocations <= gpu.limits.max_compute_workgroup_size_x,
            "{n}x{n} ILCA runs {invocations} invocations per workgroup; {dev} offers {have}; \
             run it on the CPU",
            n = g.n,
            dev = gpu.describe(),
            have = gpu.limits.max_compute_invocations_per_workgroup
        );
        let wg_bytes = workgroup_bytes(b, mapping) as u32;
        ensure!(
            wg_bytes <= gpu.limits.max_compute_workgroup_storage_size,
            "{n}x{n} ILCA needs {wg_bytes} bytes of workgroup memory; {dev} offers {have}; \
             run it on the CPU",
            n = g.n,
            dev = gpu.describe(),
            have = gpu.limits.max_compute_workgroup_storage_size
        );
        // Every index of the kernel is in range by construction (cell < CELLS, instance <
        // num_instances, peer and unit tables built here); the agreement tests run every path.
        let pipeline = Pipeline::new(
            gpu,
            "ilca",
            &source(b, mapping),
            &BINDINGS,
            BoundsChecks::Off,
        )?;
        Ok(Kernel {
            pipeline,
            b,
            mapping,
        })
    }

    pub fn mapping(&self) -> Mapping {
        self.mapping
    }

    /// The kernel for box size `b` (and `layout`, see [`GpuOptions::layout`]), compiled
    /// once per device, with the kernel that packs its grids for the readback (so that a
    /// caller who compiles first, as `bench` does, has compiled everything a run needs).
    pub fn cached(gpu: &Gpu, b: usize, layout: KernelLayout) -> Result<std::sync::Arc<Kernel>> {
        grids::GridsKernel::cached(gpu, b)?;
        gpu.cached(&format!("ilca-{b}-{layout:?}"), || {
            Kernel::new(gpu, b, layout)
        })
    }
}

/// Runs every instance of `batch` on the GPU; results in instance order, the same as
/// [`super::cpu::run`]. `progress(k)` is called as k more instances finish.
pub fn run(
    gpu: &Gpu,
    batch: &Batch,
    opts: &GpuOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<InstanceResult>> {
    Ok(run_timed(gpu, batch, opts, progress)?.0)
}

/// Where the wall time of a GPU run went (`gpu-sudoku bench` prints it).
#[derive(Clone, Copy, Debug, Default)]
pub struct Phases {
    /// Host work before a chunk's first submission: tables, initial weights, instance lines
    /// (from the second chunk on, while the GPU runs the previous chunk's last submission).
    pub prepare: std::time::Duration,
    /// Buffers created and their contents handed to the driver, the bind group (host side:
    /// the copies themselves run with the first submission, inside `compute`).
    pub upload: std::time::Duration,
    /// The rest of the host's wait on the GPU: recording and submitting, the status read
    /// after each submission and the wait for each chunk's final readback (from the second
    /// chunk on, the GPU runs the next chunk meanwhile).
    pub compute: std::time::Duration,
    /// Host work on the read-back results: grids built and checked.
    pub results: std::time::Duration,
}

/// [`run`], also saying where its time went.
pub fn run_timed(
    gpu: &Gpu,
    batch: &Batch,
    opts: &GpuOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<(Vec<InstanceResult>, Phases)> {
    let mut phases = Phases::default();
    let (results, _) = run_inner(gpu, batch, opts, progress, false, &mut phases)?;
    Ok((results, phases))
}

/// [`run`], also returning every instance's final weights (as
/// [`super::cpu::run_keeping_weights`]), for the agreement tests.
pub fn run_keeping_weights(
    gpu: &Gpu,
    batch: &Batch,
    opts: &GpuOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<(Vec<InstanceResult>, Vec<Vec<f32>>)> {
    run_inner(gpu, batch, opts, progress, true, &mut Phases::default())
}

fn run_inner(
    gpu: &Gpu,
    batch: &Batch,
    opts: &GpuOptions,
    progress: &(dyn Fn(usize) + Sync),
    keep_weights: bool,
    phases: &mut Phases,
) -> Result<(Vec<InstanceResult>, Vec<Vec<f32>>)> {
    batch.validate()?;
    let Some(first) = batch.puzzles.first() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let b = first.box_size();
    ensure!(
        batch.puzzles.iter().all(|p| p.box_size() == b),
        "all puzzles of a GPU batch must have the same size"
    );
    let kernel = Kernel::cached(gpu, b, opts.layout)?;
    let g = first.geometry();
    let (cells, n) = (g.cells, g.n);

    let clock = std::time::Instant::now();
    // Tables shared by every instance: peers, units, then each setting's block.
    let mut tables: Vec<u32> = g.peers.iter().map(|&x| x as u32).collect();
    tables.extend(g.units.iter().map(|&x| x as u32));
    for s in batch.settings {
        tables.extend(setting_words(s, g.n_peers));
    }
    let tables_buf = gpu.storage_init("ilca tables", &tables);
    phases.upload += clock.elapsed();

    // Chunk size: a chunk's weights (cells × n f32 per instance) and puzzle data (at most one
    // puzzle per instance) must each fit one binding, and its readback (status, choices and
    // weights: one staging buffer) one buffer.
    let per_instance = (size_of::<f32>() * (cells * n + cells + 1)) as u64;
    let by_limit = (gpu.max_binding_bytes() / per_instance).max(1) as usize;
    let mut chunk = by_limit.min(opts.max_chunk).max(1);
    if batch.pull.is_some() {
        // Cooperating portfolios are never split: a chunk holds whole ones.
        let n = batch.portfolio;
        ensure!(
            n <= by_limit,
            "a cooperating portfolio of {n} instances of a {side}x{side} grid needs {} bytes of \
             weights in one buffer; {} binds at most {}: use a smaller portfolio or the CPU",
            n as u64 * per_instance,
            gpu.describe(),
            gpu.max_binding_bytes(),
            side = g.n
        );
        chunk = (chunk / n).max(1) * n;
    }
    let mut results = Vec::with_capacity(batch.instances.len());
    let mut weights = Vec::new();
    // A chunk's results are read back and built (checked on every core) once the next chunk's
    // first submission is on the GPU, and the next chunk is prepared while the GPU runs its
    // last one: the host's work overlaps the device's.
    let mut pending = None;
    let mut first = 0;
    for (k, part) in batch.instances.chunks(chunk).enumerate() {
        let (built, next) = run_chunk(
            gpu,
            &kernel,
            &tables_buf,
            batch,
            (k, first, part),
            opts,
            progress,
            keep_weights,
            pending.take(),
            phases,
        )?;
        if let Some((r, w)) = built {
            results.extend(r);
            weights.extend(w);
        }
        pending = Some(next);
        first += part.len();
    }
    if let Some(last) = pending {
        let (r, w) = last.finish(gpu, phases)?;
        results.extend(r);
        weights.extend(w);
    }
    Ok((results, weights))
}

/// A chunk's results and, when kept, its final weights.
type Built = (Vec<InstanceResult>, Vec<Vec<f32>>);

/// How a chunk's results are built from its mapped readback.
type Builder<'a> = Box<dyn FnOnce(&[u8]) -> Result<Built> + 'a>;

/// The readback buffers of consecutive chunks: one chunk's results wait in one while the next
/// chunk's status words come back through the other (both kept in the device's pool).
const READBACK: [&str; 2] = ["ilca readback", "ilca readback (next chunk)"];

/// A chunk whose last submission (its status words and grids copied for the readback) is on
/// the GPU and not yet read: [`Pending::finish`] waits for it and builds the results.
struct Pending<'a> {
    staging: crate::gpu::Lent,
    /// Taken by `finish`; still here when the chunk is dropped unread (an error), so its
    /// buffer, maybe still to be mapped, is not lent again.
    reading: Option<crate::gpu::Reading>,
    build: Option<Builder<'a>>,
    /// Instances of the chunk that `progress` has not counted yet.
    unreported: usize,
    progress: &'a (dyn Fn(usize) + Sync),
}

impl Pending<'_> {
    fn finish(mut self, gpu: &Gpu, phases: &mut Phases) -> Result<Built> {
        let clock = std::time::Instant::now();
        let (Some(reading), Some(build)) = (self.reading.take(), self.build.take()) else {
            anyhow::bail!("a chunk's results were read twice");
        };
        let mut building = std::time::Duration::ZERO;
        let built = gpu.read_back(reading, &self.staging, |bytes| {
            let clock = std::time::Instant::now();
            let built = build(bytes);
            building = clock.elapsed();
            built
        });
        let built = built.inspect_err(|_| self.staging.spoil())??;
        phases.results += building;
        phases.compute += clock.elapsed() - building;
        (self.progress)(self.unreported);
        // A stop request during the last submission: nothing of the chunk is kept.
        crate::interrupt::check()?;
        Ok(built)
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if self.reading.is_some() {
            self.staging.spoil();
        }
    }
}

/// Runs chunk `k` (`part`, the batch's instances from `first` on) up to its last submission,
/// which it leaves on the GPU as a [`Pending`]; once its own first submission is on the GPU,
/// it finishes the chunk before it (`previous`) and returns those results too.
#[allow(clippy::too_many_arguments)]
fn run_chunk<'a>(
    gpu: &Gpu,
    kernel: &Kernel,
    tables_buf: &wgpu::Buffer,
    batch: &'a Batch,
    (k, first, part): (usize, usize, &'a [Instance]),
    opts: &GpuOptions,
    progress: &'a (dyn Fn(usize) + Sync),
    keep_weights: bool,
    mut previous: Option<Pending<'a>>,
    phases: &mut Phases,
) -> Result<(Option<Built>, Pending<'a>)> {
    let clock = std::time::Instant::now();
    // The portfolio (`Batch::portfolio`) of instance k of the part.
    let portfolio_of = |k: usize| (first + k) / batch.portfolio.max(1);
    let g = crate::puzzle::Geometry::get(kernel.b);
    let (cells, n) = (g.cells, g.n);
    let count = part.len();

    // Puzzle data of the puzzles this chunk touches, in order of first use: clues, then initial
    // weight bits. Of a setting, initial weights depend on its pruning only (`logic` removes
    // candidates), so there is one copy per (puzzle, pruning) and any such setting prepares it.
    let prunings = Prune::ALL.len();
    let pruning_of: Vec<usize> = (batch.settings.iter())
        .map(|s| Prune::ALL.iter().position(|&p| p == s.prune).unwrap_or(0))
        .collect();
    let key_of = |i: &Instance| i.puzzle * prunings + pruning_of[i.setting];
    let mut local = vec![u32::MAX; batch.puzzles.len() * prunings];
    let mut order = Vec::new();
    for i in part {
        let slot = &mut local[key_of(i)];
        if *slot == u32::MAX {
            *slot = order.len() as u32;
            order.push(*i);
        }
    }
    let mut pdata = Vec::with_capacity(order.len() * (cells + cells * n));
    for i in &order {
        let prob = Problem::new(&batch.puzzles[i.puzzle], &batch.settings[i.setting]);
        pdata.extend(prob.clue.iter().map(|&v| v as u32));
        pdata.extend(prob.init.iter().map(|f| f.to_bits()));
    }
    let info: Vec<InstanceInfo> = part
        .iter()
        .map(|i| InstanceInfo {
            local_puzzle: local[key_of(i)],
            key: batch.key(i),
            setting: i.setting as u32,
        })
        .collect();
    let max_steps = part
        .iter()
        .map(|i| batch.settings[i.setting].steps)
        .max()
        .unwrap_or(1);
    phases.prepare += clock.elapsed();
    let clock = std::time::Instant::now();
    // The chunk's buffers come from the device's pool (the previous chunk's or batch's) and
    // hold what it left: the first dispatch (`fresh`) writes every instance's weights and
    // choices before anything reads them, and the status words are cleared below.
    let pdata_buf = gpu.lend_storage_with("ilca puzzles", &pdata);
    let info_buf = gpu.lend_storage_with("ilca instances", &info);
    let weights_buf = gpu.lend_storage(
        "ilca weights",
        (count * cells * n * size_of::<f32>()) as u64,
    );
    let choices_buf = gpu.lend_storage("ilca choices", (count * cells * size_of::<u32>()) as u64);
    let status_buf = gpu.lend_storage("ilca status", (count * size_of::<u32>()) as u64);
    let uniform_size = size_of::<Uniforms>() as u64;
    let uniform_buf = gpu.uniform_init("ilca params", &<Uniforms as bytemuck::Zeroable>::zeroed());
    // The kernel's buffers after its uniforms; the pull kernel binds them too.
    let state = [
        tables_buf,
        &*pdata_buf,
        &*info_buf,
        &*weights_buf,
        &*choices_buf,
        &*status_buf,
    ];
    let bind = kernel
        .pipeline
        .bind(gpu, &[&[&uniform_buf], &state[..]].concat());

    // Cooperation (`Batch::pull`): its dispatches after every `every`-th step.
    let cooperation = match &batch.pull {
        Some(p) => Some((
            p.every,
            pull::ChunkPull::new(gpu, kernel, state, count, batch.portfolio, p.factor())?,
        )),
        None => None,
    };
    let m = kernel.mapping;
    let groups = grid_2d(gpu, count.div_ceil(m.ipw) as u32);
    // Steps per submission bound its time; steps per dispatch are capped by the loop budget
    // (lavapipe), so a submission may hold several dispatches, each with its own uniforms
    // (copied from a list into the uniform buffer before its pass).
    let mut k_steps =
        (opts.cell_steps_per_submission / (count * cells) as u64).clamp(1, max_steps as u64) as u32;
    if batch.portfolio > 1 {
        // Portfolios stop their instances between submissions: often enough to pay.
        k_steps = k_steps.min(PORTFOLIO_CHECK_STEPS);
    }
    let cap = if opts.loop_pass_cap {
        max_steps_per_dispatch_for(kernel.b, kernel.mapping, shares(batch.settings))?
    } else {
        max_steps
    };
    // Dispatches end at the step limits of `cap` and, cooperating, at every pull.
    let every = cooperation.as_ref().map_or(u32::MAX, |c| c.0);
    let dispatches = k_steps.div_ceil(cap) as u64 + k_steps.div_ceil(every) as u64 + 1;
    let list_buf = gpu.lend(
        "ilca params per dispatch",
        wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        dispatches * uniform_size,
    );

    // One staging buffer for every readback: the status words after each submission, and after
    // the submission that reaches the last step also the grids, a byte per cell (and the
    // weights), packed and copied by the same submission: one wait for the whole result.
    let packed = grids::ChunkGrids::new(gpu, kernel.b, &choices_buf, count)?;
    let grid_stride = grids::grid_words(kernel.b) * size_of::<u32>();
    let status_bytes = (count * size_of::<u32>()) as u64;
    let grids_bytes = (count * grid_stride) as u64;
    let weights_bytes = if keep_weights {
        (count * cells * n * size_of::<f32>()) as u64
    } else {
        0
    };
    let all_bytes = status_bytes + grids_bytes + weights_bytes;
    let staging = gpu.lend_staging(READBACK[k % 2], all_bytes);
    let copy_results = |enc: &mut wgpu::CommandEncoder| {
        packed.record(enc);
        enc.copy_buffer_to_buffer(&packed.grids, 0, &staging, status_bytes, grids_bytes);
        if keep_weights {
            let at = status_bytes + grids_bytes;
            enc.copy_buffer_to_buffer(&weights_buf, 0, &staging, at, weights_bytes);
        }
    };
    phases.upload += clock.elapsed();
    let clock = std::time::Instant::now();

    // The results, built where the last readback is mapped (no copy of it first), on every
    // core (a million instances take half a second on one): grids built and checked.
    let (b, puzzles, settings) = (kernel.b, batch.puzzles, batch.settings);
    let build = move |bytes: &[u8]| -> Result<Built> {
        let (at, end) = (status_bytes as usize, (status_bytes + grids_bytes) as usize);
        let (status, grids) = (view::<u32>(&bytes[..at]), &bytes[at..end]);
        let out = (part.par_iter().enumerate())
            .map(|(k, i)| -> Result<InstanceResult> {
                let first = k * grid_stride;
                let grid = Grid::from_cells(b, grids[first..first + cells].to_vec())?;
                let st = status[k];
                let ok = st != 0 && st & EXHAUSTED == 0;
                Ok(InstanceResult {
                    puzzle: i.puzzle,
                    run: i.run,
                    solved: ok && grid.is_solution_of(&puzzles[i.puzzle]),
                    steps: if ok { st } else { settings[i.setting].steps },
                    grid: grid.to_line(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let weights = view::<f32>(&bytes[end..])
            .chunks((cells * n).max(1))
            .map(<[f32]>::to_vec)
            .collect();
        Ok((out, weights))
    };

    // The previous chunk's results: built once this chunk's first submission is on the GPU.
    let mut built_previous = None;
    let mut finishing = std::time::Duration::ZERO;
    // On an error this chunk's readback may be pending: its buffer is not lent again.
    let mut finish_previous = || {
        let Some(p) = previous.take() else {
            return Ok(());
        };
        let clock = std::time::Instant::now();
        let built = p.finish(gpu, phases);
        finishing += clock.elapsed();
        built_previous = Some(built.inspect_err(|_| staging.spoil())?);
        anyhow::Ok(())
    };
    let mut t0 = 0u32;
    let mut finished = 0usize;
    let mut last_reading = None;
    while t0 < max_steps {
        let end_t = t0 + k_steps.min(max_steps - t0);
        let mut list = Vec::new();
        // Per dispatch of the list: whether a pull follows it.
        let mut pulls = Vec::new();
        let mut t = t0;
        while t < end_t {
            let k = cap.min(end_t - t).min(every - t % every);
            pulls.push((t + k).is_multiple_of(every) && t + k < max_steps);
            list.push(Uniforms {
                num_instances: count as u32,
                t0: t,
                k_steps: k,
                max_steps,
                groups_x: groups.0,
                fresh: (t == 0) as u32,
                _pad1: 0,
                _pad2: 0,
            });
            t += k;
        }
        gpu.queue
            .write_buffer(&list_buf, 0, bytemuck::cast_slice(&list));
        let mut enc = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("ilca"),
            });
        if t0 == 0 {
            // A lent buffer holds its last user's words; 0 = running.
            enc.clear_buffer(&status_buf, 0, Some(status_bytes));
        }
        for i in 0..list.len() as u64 {
            enc.copy_buffer_to_buffer(&list_buf, i * uniform_size, &uniform_buf, 0, uniform_size);
            kernel.pipeline.dispatch(&mut enc, &bind, groups);
            if let (true, Some((_, c))) = (pulls[i as usize], &cooperation) {
                c.record(&mut enc);
            }
        }
        t0 = end_t;
        // Only the status words come back between submissions; the last one also brings the
        // results, read by `Pending::finish`.
        enc.copy_buffer_to_buffer(&status_buf, 0, &staging, 0, status_bytes);
        let last = t0 == max_steps;
        if last {
            copy_results(&mut enc);
        }
        let reading =
            gpu.submit_reading(enc, &staging, if last { all_bytes } else { status_bytes });
        finish_previous()?;
        if last {
            last_reading = Some(reading);
            break;
        }
        let (mut done, status) = gpu
            .read_back(reading, &staging, |bytes| {
                let status = bytes[..status_bytes as usize].chunks_exact(4);
                let done = status.filter(|s| s != &[0; 4]).count();
                // In portfolios, the status words decide which instances stop.
                let words = (batch.portfolio > 1 && done < count)
                    .then(|| view::<u32>(&bytes[..status_bytes as usize]).into_owned());
                (done, words)
            })
            .inspect_err(|_| staging.spoil())?;
        if let Some(mut status) = status {
            // An instance still running in a portfolio one of whose instances has solved (in
            // at most the steps run so far) can no longer be its first solution: it stops, as
            // one that reached its limit unsolved (the CPU stops it too; the records agree).
            let solved: std::collections::BTreeSet<usize> = (0..count)
                .filter(|&k| status[k] != 0 && status[k] & EXHAUSTED == 0)
                .map(portfolio_of)
                .collect();
            let mut stopped = 0;
            for (k, st) in status.iter_mut().enumerate() {
                if *st == 0 && solved.contains(&portfolio_of(k)) {
                    *st = EXHAUSTED | max_steps;
                    stopped += 1;
                }
            }
            if stopped > 0 {
                gpu.queue
                    .write_buffer(&status_buf, 0, bytemuck::cast_slice(&status));
                done += stopped;
            }
        }
        progress(done - finished);
        finished = done;
        crate::interrupt::check()?;
        if done == count {
            break;
        }
    }
    // (The loop ran at least once, so the previous chunk is finished; this keeps it so.)
    finish_previous()?;
    let reading = match last_reading {
        Some(r) => r,
        // Every instance finished before the last step: the results alone.
        None => {
            let mut enc = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("ilca results"),
                });
            enc.copy_buffer_to_buffer(&status_buf, 0, &staging, 0, status_bytes);
            copy_results(&mut enc);
            gpu.submit_reading(enc, &staging, all_bytes)
        }
    };
    phases.compute += clock.elapsed() - finishing;
    let pending = Pending {
        staging,
        reading: Some(reading),
        build: Some(Box::new(build)),
        unreported: count - finished,
        progress,
    };
    Ok((built_previous, pending))
}

/// `bytes` as values of `T` where they lie, aligned as a mapped range is
/// ([`wgpu::MAP_ALIGNMENT`]); copied only where they are not.
fn view<T: bytemuck::Pod>(bytes: &[u8]) -> std::borrow::Cow<'_, [T]> {
    bytemuck::try_cast_slice(bytes).map_or_else(
        |_| std::borrow::Cow::Owned(bytemuck::pod_collect_to_vec(bytes)),
        std::borrow::Cow::Borrowed,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every number the kernel shares with Rust comes from the prelude: each prelude constant
    /// is used, none is declared again, no bit pattern is written in the kernel, and no option
    /// code is compared with a bare number (`s_tie == 2u` was; `s_tie == TIE_KEEP` is).
    #[test]
    fn the_kernel_takes_every_shared_number_from_the_prelude() {
        for b in 2usize..=8 {
            let m = Mapping::for_cells(b.pow(4));
            let p = prelude(b, m);
            let errors = p.check_kernel(KERNEL, &["s_compare", "s_tie", "s_check"]);
            assert!(errors.is_empty(), "{b}: {errors:#?}");
            assert!(source(b, m).starts_with(p.text()));
        }
        for removed in ["== 0u", "== 1u", "== 2u"] {
            for code in ["s_compare", "s_tie", "s_check"] {
                assert!(
                    !KERNEL.contains(&format!("{code} {removed}")),
                    "{code} {removed}"
                );
            }
        }
        let p = prelude(3, Mapping::for_cells(81));
        for name in [
            "COMPARE_SHARING",
            "COMPARE_FREE",
            "COMPARE_ALL",
            "TIE_RANDOM",
            "TIE_FIRST",
            "TIE_KEEP",
            "RESET_CHECK_PERMUTATION",
            "RESET_CHECK_SUM",
            "EXHAUSTED",
            "FLUSH_BELOW_BITS",
            "SET_FACTORS",
        ] {
            assert!(p.names().iter().any(|n| n == name), "{name}");
        }
        assert!(p.text().contains("const TIE_KEEP: u32 = 2u;\n"));
        assert!(p
            .text()
            .contains("const FLUSH_BELOW_BITS: u32 = 0x0d800000u;"));
    }

    /// A setting's block is laid out as the prelude's offsets say.
    #[test]
    fn setting_words_follow_the_prelude_offsets() {
        let s = IlcaParams {
            steps: 77,
            sr: 5,
            restart: 9,
            tie: TieBreak::Keep,
            compare: Compare::Free,
            reset_check: ResetCheck::Sum,
            share: 0.25,
            ..Default::default()
        };
        let w = setting_words(&s, 20);
        assert_eq!(w.len(), setting_stride(20));
        assert_eq!(w.len(), 7 + 2 * 21);
        let p = prelude(3, Mapping::for_cells(81));
        let at = |name: &str| -> usize {
            let line = p
                .text()
                .lines()
                .find(|l| l.starts_with(&format!("const {name}: u32 = ")))
                .unwrap();
            line.split(" = ")
                .nth(1)
                .unwrap()
                .trim_end_matches("u;")
                .parse()
                .unwrap()
        };
        assert_eq!(w[at("SET_STEPS")], 77);
        assert_eq!(w[at("SET_SR")], 5);
        assert_eq!(w[at("SET_RESTART")], 9);
        assert_eq!(w[at("SET_TIE")], TieBreak::Keep.code());
        assert_eq!(w[at("SET_COMPARE")], Compare::Free.code());
        assert_eq!(w[at("SET_RESET_CHECK")], ResetCheck::Sum.code());
        assert_eq!(w[at("SET_SHARE")], s.share_factor().unwrap().to_bits());
        let (reward, _) = s.factor_tables(20);
        assert_eq!(w[at("SET_FACTORS")], reward[0].to_bits());
        assert_eq!(at("SET_STRIDE"), w.len());
    }

    #[test]
    fn loop_pass_bound_by_hand() {
        // 9x9: one cell per invocation, N = 9, 20 peers, 27 units over 81 invocations.
        // step: 1 + (2 + 9 + 10) + (2 + 21) + (2 + 10) + (2 + 10 + 21 + 10) = 100;
        // dispatch: 21 + (2 + 20) + 1 + (2 + 10) = 56; (60,000 - 56) / 100 = 599.
        let lp = LoopPasses::for_box(3, false);
        assert_eq!((lp.per_step, lp.per_dispatch), (100, 56));
        assert_eq!(max_steps_per_dispatch(3, false).unwrap(), 599);
        // Resource sharing adds the peers' digits (21) and the row's rescale (10 + 10) to the
        // learning: 141 per step, (60,000 - 56) / 141 = 425.
        let lp = LoopPasses::for_box(3, true);
        assert_eq!((lp.per_step, lp.per_dispatch), (141, 56));
        assert_eq!(max_steps_per_dispatch(3, true).unwrap(), 425);
        // 25x25: three cells per invocation, N = 25, 64 peers, 75 units over 256 invocations,
        // with unit counts (469 words): degrees from the box's row and column (6 passes), the
        // reward test in three parts (4 + 25 + 25 + 17 = 71).
        // step: 1 + (4 + 3 (25 + 26)) + (4 + 3 * 6) + (2 + 26) + (4 + 3 (26 + 71 + 26)) = 581;
        // dispatch: 3 (counts cleared) + (4 + 3 * 52) + 1 + (4 + 3 * 26) = 246;
        // with sharing 3 (65 + 26 + 26) more per step: 932.
        let lp = LoopPasses::for_box(5, false);
        assert_eq!((lp.per_step, lp.per_dispatch), (581, 246));
        assert_eq!(max_steps_per_dispatch(5, false).unwrap(), 102);
        assert_eq!(LoopPasses::for_box(5, true).per_step, 932);
        assert_eq!(max_steps_per_dispatch(5, true).unwrap(), 64);
        assert_eq!(max_steps_per_dispatch(4, false).unwrap(), 346);
        assert_eq!(max_steps_per_dispatch(4, true).unwrap(), 242);
        assert_eq!(max_steps_per_dispatch(8, false).unwrap(), 31);
        assert_eq!(max_steps_per_dispatch(8, true).unwrap(), 19);
    }

    #[test]
    fn a_batch_with_one_sharing_setting_gets_the_sharing_cap() {
        let plain = IlcaParams::default();
        let sharing = IlcaParams {
            share: 0.05,
            ..Default::default()
        };
        assert!(!shares(std::slice::from_ref(&plain)));
        assert!(shares(&[plain, sharing]));
    }

    #[test]
    fn loop_pass_bound_covers_the_counts_measured_on_lavapipe() {
        // First step count at which one uncapped dispatch differed from the CPU on lavapipe
        // (`gpu-sudoku bench --no-loop-pass-cap`, bisected; 9x9 and 16x16 before unit counts,
        // 25x25 … 49x49 with them, on 2026-11-29; 146 steps of a 25x25 before them), under
        // lavapipe's mapping (49x49 in bytes there); with sharing the kernel runs more loops,
        // and the bound counts them.
        for (b, sharing, bad) in [
            (3, false, 6_000),
            (4, false, 685),
            (5, false, 524),
            (6, false, 288),
            (7, false, 112),
            (5, true, 212),
        ] {
            let m = Mapping::choose(b, 1024, 32_768, Default::default());
            let lp = LoopPasses::for_mapping(b, m, sharing);
            let cap = max_steps_per_dispatch_for(b, m, sharing).unwrap() as u64;
            assert!(lp.per_dispatch + cap * lp.per_step <= LOOP_PASS_BUDGET);
            assert!(
                cap < bad,
                "{b}: {cap} steps per dispatch, lavapipe failed at {bad}"
            );
            // The bound per step is at least what lavapipe counted (65,535 passes / steps).
            assert!(lp.per_step * bad >= 65_535, "{b}: {}", lp.per_step);
        }
    }

    #[test]
    fn workgroup_memory_fits_nvidia_up_to_49x49() {
        let bytes: Vec<usize> = (2..=8)
            .map(|b| workgroup_bytes(b, Mapping::for_cells(b.pow(4))))
            .collect();
        assert_eq!(bytes, [4032, 3276, 3276, 9684, 19880, 36612, 62216]);
        assert!(bytes[..6].iter().all(|&x| x <= 49_152));
    }

    #[test]
    fn states_and_degrees_fit_the_byte_layout() {
        let max = (1usize << (32 / CELLS_PER_WORD)) - 1;
        for b in 2..=8 {
            let g = crate::puzzle::Geometry::get(b);
            assert!(g.n <= max && g.n_peers <= max, "{b}");
        }
    }

    #[test]
    fn every_size_fits_at_least_one_step_per_dispatch() {
        for (b, sharing) in (2..=8).flat_map(|b| [(b, false), (b, true)]) {
            let k = max_steps_per_dispatch(b, sharing).unwrap();
            let lp = LoopPasses::for_box(b, sharing);
            assert!(k >= 1, "{b}");
            assert!(
                lp.per_dispatch + k as u64 * lp.per_step <= LOOP_PASS_BUDGET,
                "{b}"
            );
            assert!(
                lp.per_dispatch + (k as u64 + 1) * lp.per_step > LOOP_PASS_BUDGET,
                "{b}"
            );
        }
    }
}

//! RFSS on the GPU: many puzzle instances per batch, one workgroup per instance
//! (`shaders/rfss.wgsl`), generations looped in bounded submissions.
//!
//! Between submissions only the per-instance status words (8 × u32) are read back; finished
//! instances are skipped by the kernel. The initial read-off (generation 0) and the
//! enhancement's restarts are computed on the host with the CPU code, so both backends take
//! the same decisions at the same generations.

use super::cpu::State;
use super::enhance::{self, Search};
use super::{finish, Problem, Readoff, RfssOutcome, RfssParams, Underflow, RES_PER_SPECIES};
use crate::gpu::{grid_2d, Binding, BoundsChecks, Gpu, Pipeline, Prelude, LOOP_PASS_BUDGET};
use crate::puzzle::Grid;
use anyhow::{bail, ensure, Result};
use std::mem::size_of;
use std::time::{Duration, Instant};

/// The kernel source.
pub const SHADER: &str = include_str!("../../shaders/rfss.wgsl");

/// Workgroup size of the kernel (= [`super::arith::LANES`]).
pub const WORKGROUP: u32 = super::arith::LANES as u32;

/// Most generations in one dispatch (bounds the time of a dispatch, e.g. for OS watchdogs).
pub const MAX_GENS_PER_DISPATCH: u32 = 1000;

/// Most generations in one submission, which holds as many dispatches as these need; between
/// submissions the host reads every instance's read-off state (one wait each).
pub const MAX_GENS_PER_SUBMIT: u32 = 1_000_000;

/// Upper bound of the loop passes one invocation of the kernel makes per generation on `prob`:
/// every loop counted as its trip count plus one exit pass, for the lane with the most work
/// (strided loops: ⌈n/256⌉ trips; inner loops: the longest covering list), no loop assumed
/// unrolled (the `rcp` loop is counted; the reduction tree has no loop). The kernel's generation loop
/// adds one pass per generation. Measured on lavapipe for the 16x16 of the tests: 40 passes per
/// generation for the busiest 8-lane group; this bound gives 70 (a test checks that it is at
/// least that count, and that dispatches it sizes stay short of the measured cut).
pub fn loop_passes_per_generation(prob: &Problem) -> u64 {
    let q = |n: usize| n.div_ceil(WORKGROUP as usize) as u64;
    let (n_sp, n_res, n_blank) = (prob.n_species(), prob.n_res, prob.n_blank());
    let len = |r: usize| prob.covering(r).len() as u64;
    let l_all = (0..n_res).map(len).max().unwrap_or(0);
    let l_cell = (0..n_blank).map(len).max().unwrap_or(0);
    let strided = |n: usize, inner: u64| q(n) + 1 + q(n) * inner;
    let rcp = super::arith::RCP_STEPS as u64 + 1;
    1 // the generation loop
        // the loops that load the workgroup arrays and write them back, once per dispatch,
        // counted per generation as an upper bound
        + 2 * strided(n_sp, 0) + strided(n_res, 0) + 2 * strided(n_blank, 0)
        + strided(n_blank, 0) // 1. the blank cells' loads copied (not in a dispatch's first)
        + strided((n_res - n_blank).div_ceil(TALLIES_PER_WORD as usize), 0) // 1. tallies cleared
        + strided(n_res, l_all + 1) // 1. loads
        + strided(n_sp, rcp) // 2. w (with rcp per species)
        + rcp // 2. normaliser
        + strided(n_blank, l_cell + 1) // 3. selection and read-off, per cell
}

/// Most generations one dispatch may run for problems whose bound is `passes` (≥ 1).
pub fn max_gens_per_dispatch(passes: u64) -> Result<u32> {
    // One extra pass: the generation loop's exit.
    let g = crate::gpu::rounds_within_loop_budget(passes, 1);
    if g == 0 {
        bail!(
            "one RFSS generation needs up to {passes} loop passes per GPU invocation, more than \
             the {LOOP_PASS_BUDGET} a dispatch may make; run it on the CPU"
        );
    }
    Ok(g.min(MAX_GENS_PER_DISPATCH as u64) as u32)
}

/// Aimed-at wall time of one submission; the generations per submission adapt to it (results do
/// not depend on how generations are split into submissions).
const TARGET_SUBMIT: Duration = Duration::from_millis(200);

/// `Readoff::flags` (= `GpuReadoff::flags`): the instance is done (solved, or at its limit).
const FLAG_DONE: u32 = 1;
/// `Readoff::flags`: the enhancement wants to act ([`enhance::stalled`]); the host takes over.
const FLAG_STALLED: u32 = 2;

/// Read-off tallies per workgroup word (`TALLIES_PER_WORD` in rfss.wgsl): a byte each, the
/// width of `cpu::tally`'s counts (which asserts that a count fits it).
const TALLIES_PER_WORD: u32 = u32::BITS / u8::BITS;

/// [`RES_PER_SPECIES`] as the buffers count it.
const RPS: u32 = RES_PER_SPECIES as u32;

impl Underflow {
    /// The kernel's code for this policy (`UNDERFLOW_*` in rfss.wgsl, from [`prelude`]).
    pub const fn code(self) -> u32 {
        match self {
            Underflow::Extinct => 0,
            Underflow::Floor => 1,
        }
    }
}

/// The uniform block (`Params` in rfss.wgsl; a test checks the two layouts).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct KParams {
    gens: u32,
    zero: u32,
    thr_bits: u32,
    underflow: u32,
    stable: u32,
    stall: u32,
    n_inst: u32,
    groups_x: u32,
    node_cap: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

/// Where one instance's data lies in the shared buffers (`Header` in rfss.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Header {
    sp_off: u32,
    n_sp: u32,
    n_res: u32,
    load_off: u32,
    ptr_off: u32,
    list_off: u32,
    blank_off: u32,
    n_blank: u32,
}

impl Header {
    /// `prob`'s sizes (species, resources, blank cells), no offsets.
    fn sizes(prob: &Problem) -> Header {
        Header {
            n_sp: prob.n_species() as u32,
            n_res: prob.n_res as u32,
            n_blank: prob.n_blank() as u32,
            ..Default::default()
        }
    }
}

/// An instance's [`Readoff`] with its generation limit and flags (`Readoff` in rfss.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GpuReadoff {
    generation: u32,
    streak: u32,
    streak_start: u32,
    conflicts: u32,
    unchanged: u32,
    flags: u32,
    limit: u32,
    pad: u32,
}

impl GpuReadoff {
    fn from(st: &Readoff, limit: u32) -> GpuReadoff {
        GpuReadoff {
            generation: st.generation,
            streak: st.streak,
            streak_start: st.streak_start,
            conflicts: st.conflicts,
            unchanged: st.unchanged,
            flags: if st.done { FLAG_DONE } else { 0 },
            limit,
            pad: 0,
        }
    }
    fn readoff(&self) -> Readoff {
        Readoff {
            generation: self.generation,
            streak: self.streak,
            streak_start: self.streak_start,
            conflicts: self.conflicts,
            unchanged: self.unchanged,
            done: self.flags & FLAG_DONE != 0,
        }
    }
}

/// One instance on the host side: its current problem, enhancement search, and where its slot is.
struct Slot {
    puzzle_index: usize,
    /// The original puzzle (solutions are verified against its clues).
    puzzle: Grid,
    prob: Problem,
    search: Option<Search>,
    restarts: u32,
    offset: u32,
    updates: u64,
    /// Capacity of the slot (the first problem's sizes; restarts only shrink problems).
    cap: Header,
    /// [`loop_passes_per_generation`] of the largest problem the slot has held.
    passes: u64,
    finished: Option<RfssOutcome>,
    final_p: Vec<f32>,
}

/// The kernel's bind group, binding i = entry i (names as in rfss.wgsl, checked when compiling).
pub(crate) const BINDINGS: [Binding; 8] = [
    Binding::uniform("params"),
    Binding::read("headers"),
    Binding::read("sp_res"),
    Binding::read("csr"),
    Binding::read_write("p"),
    Binding::read_write("scratch"),
    Binding::read_write("argmax"),
    Binding::read_write("state"),
];
const _: () = assert!(crate::gpu::layout::bindings_match(
    crate::gpu::layout::RFSS_BINDINGS,
    &BINDINGS
));

crate::wgsl_struct!(KParams as RFSS_PARAMS {
    gens, zero, thr_bits, underflow, stable, stall, n_inst, groups_x, node_cap, pad0, pad1, pad2
});
crate::wgsl_struct!(Header as RFSS_HEADER {
    sp_off, n_sp, n_res, load_off, ptr_off, list_off, blank_off, n_blank
});
crate::wgsl_struct!(GpuReadoff as RFSS_READOFF {
    generation, streak, streak_start, conflicts, unchanged, flags, limit, pad
});

/// Sizes of the workgroup arrays a kernel variant holds an instance in (`WG_*` in rfss.wgsl),
/// or `None`: the instances stay in the storage buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkgroupArrays {
    pub species: u32,
    pub resources: u32,
    pub blanks: u32,
}

/// The kernel variant a batch runs: how many words the read-off's tallies take (`WG_TALLY`;
/// always in workgroup memory) and, where the batch fits beside them, the workgroup arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    pub tally_words: u32,
    pub arrays: Option<WorkgroupArrays>,
}

/// Sizes rounded up, so that batches share variants.
fn rounded(x: u32) -> u32 {
    x.div_ceil(256).max(1) * 256
}

impl Variant {
    /// The variant a batch of `problems` runs on `gpu` (for tests and tools; the engine sizes
    /// its batches' slots the same way).
    pub fn for_problems(gpu: &Gpu, problems: &[Problem], arrays: bool) -> Result<Variant> {
        Variant::for_batch(gpu, problems.iter().map(Header::sizes), arrays)
    }

    /// The variant for the largest of `caps`: the tallies (a byte per non-cell resource), and
    /// the arrays if `arrays` is asked and they fit the device's workgroup memory beside the
    /// tallies and the kernel's other workgroup variables. Refused where even the tallies do not
    /// fit (a 64x64 needs 12 KiB; every device offers 16 KiB).
    pub(crate) fn for_batch(
        gpu: &Gpu,
        caps: impl Iterator<Item = Header>,
        arrays: bool,
    ) -> Result<Variant> {
        let (mut sp, mut res, mut blank, mut tally) = (0, 0, 0, 0);
        for c in caps {
            (sp, res, blank) = (sp.max(c.n_sp), res.max(c.n_res), blank.max(c.n_blank));
            tally = tally.max((c.n_res - c.n_blank).div_ceil(TALLIES_PER_WORD));
        }
        let tally_words = rounded(tally);
        let a = WorkgroupArrays {
            species: rounded(sp),
            resources: rounded(res),
            blanks: rounded(blank),
        };
        // The lanes of the normaliser and a few words more, the tallies; then p and w per
        // species, a load per resource, a read-off and the next load per blank cell.
        let limit = gpu.limits.max_compute_workgroup_storage_size as u64;
        let base = 4 * (512 + tally_words as u64);
        ensure!(
            base <= limit,
            "an RFSS instance with {res} resources needs {base} bytes of GPU workgroup memory, \
             more than this device offers ({limit}); run it on the CPU"
        );
        let bytes = base + 4 * (2 * a.species as u64 + a.resources as u64 + 2 * a.blanks as u64);
        Ok(Variant {
            tally_words,
            arrays: (arrays && bytes <= limit).then_some(a),
        })
    }
}

/// The `const` lines before the kernel of `variant`: the tallies' size, whether and how large
/// the workgroup arrays are, the arithmetic's constants ([`super::arith`]), the species' stride,
/// the flag bits and the underflow codes, all from their Rust definitions (the kernel restates
/// none).
pub fn prelude(variant: Variant) -> Prelude {
    let a = variant.arrays.unwrap_or(WorkgroupArrays {
        species: 1,
        resources: 1,
        blanks: 1,
    });
    let mut p = Prelude::new();
    p.bool("WGM", variant.arrays.is_some())
        .u32("WG_SP", a.species)
        .u32("WG_RES", a.resources)
        .u32("WG_BLANK", a.blanks)
        .u32("WG_TALLY", variant.tally_words)
        .u32("TALLIES_PER_WORD", TALLIES_PER_WORD)
        .u32("TALLY_BITS", u32::BITS / TALLIES_PER_WORD)
        .u32("LANES", WORKGROUP)
        .bits("RCP_MAGIC", super::arith::RCP_MAGIC)
        .u32("RCP_STEPS", super::arith::RCP_STEPS)
        .u32("RES_PER_SPECIES", RPS)
        .u32("FLAG_DONE", FLAG_DONE)
        .u32("FLAG_STALLED", FLAG_STALLED)
        .codes("UNDERFLOW", Underflow::code);
    p
}

/// The kernel's source for `variant`: its [`prelude`], then shaders/rfss.wgsl.
pub fn source(variant: Variant) -> String {
    prelude(variant).source(&[SHADER])
}

/// The RFSS kernel of `variant`, compiled once per device and variant, without naga's bounds
/// checks (they cost about a fifth of its speed on an H200): the host checks every index the
/// kernel will derive before it places an instance's data ([`check_placement`]).
fn kernel(gpu: &Gpu, variant: Variant) -> Result<std::sync::Arc<Pipeline>> {
    gpu.cached(&format!("rfss-{variant:?}"), || {
        Pipeline::new(gpu, "rfss", &source(variant), &BINDINGS, BoundsChecks::Off)
    })
}

/// Knobs of the GPU engine that do not change results.
#[derive(Clone, Debug)]
pub struct GpuOptions {
    /// Generations per submission, fixed (a submission holds as many dispatches as the loop
    /// budget needs, see [`max_gens_per_dispatch`]); `None` adapts them to a submission time of
    /// about 200 ms.
    pub gens_per_submit: Option<u32>,
    /// Cap the generations of a dispatch by [`max_gens_per_dispatch`] (on by default, on every
    /// adapter). Off only to measure what the cap costs on a GPU without llvmpipe's loop limit
    /// (dispatches of up to [`MAX_GENS_PER_DISPATCH`]); on lavapipe, results then go wrong.
    pub loop_pass_cap: bool,
    /// Hold each instance in workgroup memory during a dispatch where the batch fits it (see
    /// [`WorkgroupArrays`]); off: always in the storage buffers (the agreement tests run both).
    pub workgroup_arrays: bool,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            gens_per_submit: None,
            loop_pass_cap: true,
            workgroup_arrays: true,
        }
    }
}

/// Runs every puzzle on the GPU; outcomes in puzzle order, the same as [`super::cpu::run`],
/// bit for bit. `progress(k)` is called as k more puzzles finish.
pub fn run(
    gpu: &Gpu,
    puzzles: &[Grid],
    params: &RfssParams,
    opts: &GpuOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<RfssOutcome>> {
    Ok(
        run_keeping_proportions(gpu, puzzles, params, opts, progress)?
            .into_iter()
            .map(|(o, _)| o)
            .collect(),
    )
}

/// [`run`], also returning each instance's final proportions (for the agreement tests).
pub fn run_keeping_proportions(
    gpu: &Gpu,
    puzzles: &[Grid],
    params: &RfssParams,
    opts: &GpuOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<(RfssOutcome, Vec<f32>)>> {
    params.validate()?;
    let mut out: Vec<Option<(RfssOutcome, Vec<f32>)>> = vec![None; puzzles.len()];
    let mut slots = Vec::new();
    for (i, g) in puzzles.iter().enumerate() {
        match enhance::prepare(g, params) {
            Err(reason) => out[i] = Some((RfssOutcome::unsolvable(g, reason), Vec::new())),
            Ok((prob, search)) => slots.push(Slot {
                puzzle_index: i,
                puzzle: g.clone(),
                cap: Header::sizes(&prob),
                passes: loop_passes_per_generation(&prob),
                prob,
                search,
                restarts: 0,
                offset: 0,
                updates: 0,
                finished: None,
                final_p: Vec::new(),
            }),
        }
    }
    progress(puzzles.len() - slots.len());
    // Split into batches that fit the device's binding limit.
    let limit = gpu.max_binding_bytes();
    let mut start = 0;
    while start < slots.len() {
        let mut end = start;
        let (mut sp, mut csr) = (0u64, 0u64);
        while end < slots.len() {
            let c = &slots[end].cap;
            let (nsp, ncsr) = (
                sp + c.n_sp as u64,
                csr + (c.n_res as u64 + 1) + RPS as u64 * c.n_sp as u64,
            );
            let biggest = (RPS as u64 * nsp).max(ncsr).max(nsp + csr) * size_of::<u32>() as u64;
            if biggest > limit && end > start {
                break;
            }
            if biggest > limit {
                bail!(
                    "puzzle {} needs {} bytes of GPU buffer, more than this device binds ({limit}); \
                     run it on the CPU",
                    slots[end].puzzle_index,
                    biggest
                );
            }
            sp = nsp;
            csr = ncsr;
            end += 1;
        }
        let batch = &mut slots[start..end];
        let variant = Variant::for_batch(gpu, batch.iter().map(|s| s.cap), opts.workgroup_arrays)?;
        let k = kernel(gpu, variant)?;
        run_batch(gpu, &k, batch, params, opts, progress)?;
        for s in batch.iter_mut() {
            out[s.puzzle_index] = Some((
                s.finished.take().expect("finished instance"),
                std::mem::take(&mut s.final_p),
            ));
        }
        start = end;
    }
    Ok(out
        .into_iter()
        .map(|o| o.expect("every instance"))
        .collect())
}

/// Flat host copies of every instance of a batch, laid out as the kernel expects.
struct Layout {
    headers: Vec<Header>,
    sp_res: Vec<u32>,
    csr: Vec<u32>,
    p: Vec<f32>,
    argmax: Vec<u32>,
    state: Vec<GpuReadoff>,
    n_scratch: usize,
}

/// The slots of a batch: offsets and capacities (the first problem's sizes; the enhancement's
/// restarts only ever shrink a problem, so they fit in the same slot).
fn capacities(slots: &[Slot]) -> Vec<Header> {
    let total_sp: u32 = slots.iter().map(|s| s.cap.n_sp).sum();
    let (mut sp, mut res, mut ptr, mut blank) = (0u32, 0u32, 0u32, 0u32);
    let mut caps = Vec::with_capacity(slots.len());
    for s in slots {
        let c = s.cap;
        caps.push(Header {
            sp_off: sp,
            n_sp: c.n_sp,
            n_res: c.n_res,
            load_off: total_sp + res,
            ptr_off: ptr,
            list_off: ptr + c.n_res + 1,
            blank_off: blank,
            n_blank: c.n_blank,
        });
        sp += c.n_sp;
        res += c.n_res;
        ptr += c.n_res + 1 + RPS * c.n_sp;
        blank += c.n_blank;
    }
    caps
}

/// A problem placed in slot `cap`: its header (offsets of the slot, the problem's own sizes),
/// its species' resources, and its csr block (pointers padded to the slot's capacity, then lists).
fn place(cap: &Header, prob: &Problem) -> Result<(Header, Vec<u32>, Vec<u32>)> {
    let s = Header::sizes(prob);
    let header = Header {
        n_sp: s.n_sp,
        n_res: s.n_res,
        n_blank: s.n_blank,
        ..*cap
    };
    let sp_res: Vec<u32> = prob.res.iter().flatten().copied().collect();
    let mut csr = prob.res_ptr.clone();
    csr.resize(cap.n_res as usize + 1, *prob.res_ptr.last().unwrap_or(&0));
    csr.extend_from_slice(&prob.res_sp);
    check_placement(cap, &header, &sp_res, &csr)?;
    Ok((header, sp_res, csr))
}

/// Every index the kernel derives from an instance's data stays inside the instance's slot
/// `cap`: its species' resources (the first, its cell, a blank cell's read-off), the covering
/// lists and their bounds, and each blank cell's list is non-empty (the read-off starts from
/// its first species). The kernel runs without bounds checks on this promise.
fn check_placement(cap: &Header, h: &Header, sp_res: &[u32], csr: &[u32]) -> Result<()> {
    let ptr_len = cap.n_res as usize + 1;
    ensure!(
        h.n_sp <= cap.n_sp
            && h.n_res <= cap.n_res
            && h.n_blank <= cap.n_blank.min(h.n_res)
            && h.n_res - h.n_blank <= cap.n_res - cap.n_blank.min(cap.n_res)
            && sp_res.len() == RES_PER_SPECIES * h.n_sp as usize
            && csr.len() >= ptr_len
            && csr.len() <= ptr_len + RES_PER_SPECIES * cap.n_sp as usize,
        "internal error: an RFSS instance does not fit its GPU slot"
    );
    // Its cell first, then three non-cell resources: the cells' lists partition the species
    // (the read-off selects each species once) and the tallies' index stays in range.
    let species_ok = sp_res
        .chunks(RES_PER_SPECIES)
        .all(|r| r[0] < h.n_blank && r[1..].iter().all(|&x| h.n_blank <= x && x < h.n_res));
    ensure!(
        species_ok,
        "internal error: an RFSS species names a resource out of range"
    );
    let (ptr, list) = csr.split_at(ptr_len);
    for r in 0..h.n_res as usize {
        let (a, e) = (ptr[r] as usize, ptr[r + 1] as usize);
        ensure!(
            a <= e && e <= list.len() && (a < e || r >= h.n_blank as usize),
            "internal error: RFSS resource {r} has a covering list out of range"
        );
        ensure!(
            list[a..e].iter().all(|&x| x < h.n_sp),
            "internal error: RFSS resource {r} lists a species out of range"
        );
    }
    // Each species in exactly one cell's list, its own.
    let mut seen = vec![false; h.n_sp as usize];
    for r in 0..h.n_blank as usize {
        for &x in &list[ptr[r] as usize..ptr[r + 1] as usize] {
            let own = sp_res[RES_PER_SPECIES * x as usize] as usize == r;
            ensure!(
                own && !std::mem::replace(&mut seen[x as usize], true),
                "internal error: RFSS cell {r} lists species {x} of another cell"
            );
        }
    }
    ensure!(
        seen.iter().all(|&s| s),
        "internal error: an RFSS species is in no cell's list"
    );
    Ok(())
}

fn layout(engines: &[State], caps: &[Header], params: &RfssParams) -> Result<Layout> {
    let total_sp: usize = caps.iter().map(|c| c.n_sp as usize).sum();
    let total_res: usize = caps.iter().map(|c| c.n_res as usize).sum();
    let total_csr: usize = caps
        .iter()
        .map(|c| (c.n_res + 1 + RPS * c.n_sp) as usize)
        .sum();
    let total_blank: usize = caps.iter().map(|c| c.n_blank as usize).sum();
    let mut l = Layout {
        headers: Vec::with_capacity(caps.len()),
        sp_res: vec![0; RES_PER_SPECIES * total_sp],
        csr: vec![0; total_csr],
        p: vec![0.0; total_sp],
        argmax: vec![0; total_blank],
        state: Vec::with_capacity(caps.len()),
        n_scratch: total_sp + total_res,
    };
    for (e, cap) in engines.iter().zip(caps) {
        let (h, spr, csr) = place(cap, &e.prob)?;
        l.sp_res[RES_PER_SPECIES * h.sp_off as usize..][..spr.len()].copy_from_slice(&spr);
        l.csr[h.ptr_off as usize..][..csr.len()].copy_from_slice(&csr);
        l.p[h.sp_off as usize..][..e.p.len()].copy_from_slice(&e.p);
        l.argmax[h.blank_off as usize..][..e.argmax.len()].copy_from_slice(&e.argmax);
        l.state
            .push(GpuReadoff::from(&e.st, params.max_generations));
        l.headers.push(h);
    }
    Ok(l)
}

fn kparams(params: &RfssParams, n_inst: u32, groups_x: u32) -> KParams {
    KParams {
        gens: 1,
        zero: 0,
        thr_bits: params.threshold().to_bits(),
        underflow: params.underflow.code(),
        stable: params.stable_generations,
        stall: if params.enhancement == super::Enhancement::Off {
            0
        } else {
            params.stall_generations
        },
        n_inst,
        groups_x,
        node_cap: enhance::node_cap(params),
        pad0: 0,
        pad1: 0,
        pad2: 0,
    }
}

/// The device buffers of one batch and their bind group.
struct Buffers {
    params: wgpu::Buffer,
    headers: wgpu::Buffer,
    sp_res: wgpu::Buffer,
    csr: wgpu::Buffer,
    p: wgpu::Buffer,
    scratch: wgpu::Buffer,
    argmax: wgpu::Buffer,
    state: wgpu::Buffer,
    bind: wgpu::BindGroup,
}

impl Buffers {
    fn new(gpu: &Gpu, k: &Pipeline, lay: &Layout, kp: &KParams) -> Buffers {
        let params = gpu.uniform_init("rfss params", kp);
        let headers = gpu.storage_init("rfss headers", &lay.headers);
        let sp_res = gpu.storage_init("rfss species resources", &lay.sp_res);
        let csr = gpu.storage_init("rfss covering lists", &lay.csr);
        let p = gpu.storage_init("rfss proportions", &lay.p);
        let scratch = gpu.storage_init("rfss scratch", &vec![0f32; lay.n_scratch]);
        let argmax = gpu.storage_init("rfss read-off", &lay.argmax);
        let state = gpu.storage_init("rfss state", &lay.state);
        let bind = k.bind(
            gpu,
            &[
                &params, &headers, &sp_res, &csr, &p, &scratch, &argmax, &state,
            ],
        );
        Buffers {
            params,
            headers,
            sp_res,
            csr,
            p,
            scratch,
            argmax,
            state,
            bind,
        }
    }

    /// Submits `count` dispatches of the kernel with the current parameters.
    fn dispatch(&self, gpu: &Gpu, k: &Pipeline, groups: (u32, u32), count: u32) {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        for _ in 0..count {
            k.dispatch(&mut enc, &self.bind, groups);
        }
        gpu.queue.submit([enc.finish()]);
    }
}

/// For the agreement tests and debugging: runs one problem (plain RFSS, no stop rule: the
/// limit is far away) in dispatches of `splits[i]` generations and returns the proportions and
/// the scratch (w per species, then loads per resource) after each. With `capped`, a split
/// longer than [`max_gens_per_dispatch`] allows runs as several dispatches (as [`run`] does);
/// without it, as one dispatch, whatever the loop budget.
pub fn trace_dispatches(
    gpu: &Gpu,
    prob: &Problem,
    params: &RfssParams,
    splits: &[u32],
    capped: bool,
) -> Result<Vec<(Vec<f32>, Vec<f32>)>> {
    let mut e = State::new(prob.clone(), params);
    e.st.done = false;
    let cap = Header::sizes(prob);
    let caps = vec![Header {
        load_off: cap.n_sp,
        list_off: cap.n_res + 1,
        ..cap
    }];
    let mut p2 = params.clone();
    p2.max_generations = u32::MAX;
    p2.stable_generations = u32::MAX;
    let lay = layout(std::slice::from_ref(&e), &caps, &p2)?;
    let mut kp = kparams(&p2, 1, 1);
    let k = kernel(gpu, Variant::for_batch(gpu, caps.iter().copied(), true)?)?;
    let bufs = Buffers::new(gpu, &k, &lay, &kp);
    let most = if capped {
        max_gens_per_dispatch(loop_passes_per_generation(prob))?
    } else {
        u32::MAX
    };
    let mut out = Vec::new();
    for &g in splits {
        let mut left = g;
        while left > 0 {
            kp.gens = left.min(most);
            left -= kp.gens;
            gpu.queue
                .write_buffer(&bufs.params, 0, bytemuck::bytes_of(&kp));
            bufs.dispatch(gpu, &k, (1, 1), 1);
        }
        let p: Vec<f32> = gpu.read_pod(&bufs.p, 0, lay.p.len())?;
        let s: Vec<f32> = gpu.read_pod(&bufs.scratch, 0, lay.n_scratch)?;
        out.push((p, s));
    }
    Ok(out)
}

fn run_batch(
    gpu: &Gpu,
    k: &Pipeline,
    slots: &mut [Slot],
    params: &RfssParams,
    opts: &GpuOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<()> {
    let fixed = opts.gens_per_submit;
    let n = slots.len();
    // Generation 0 (initial proportions and read-off) on the host, with the CPU code.
    let engines: Vec<State> = slots
        .iter()
        .map(|s| State::new(s.prob.clone(), params))
        .collect();
    let capacity = capacities(slots);
    let mut lay = layout(&engines, &capacity, params)?;
    let groups = grid_2d(gpu, n as u32);
    let mut kp = kparams(params, n as u32, groups.0);
    let bufs = Buffers::new(gpu, k, &lay, &kp);
    let state_bytes = size_of::<GpuReadoff>() as u64;
    let header_bytes = size_of::<Header>() as u64;
    let word = size_of::<u32>() as u64;
    let mut reported = 0;
    let mut states = lay.state.clone();
    let mut gens_per_submit: u32 = fixed.unwrap_or(8);
    loop {
        let running: Vec<usize> = (0..n).filter(|&i| states[i].flags == 0).collect();
        let stalled: Vec<usize> = (0..n)
            .filter(|&i| states[i].flags == FLAG_STALLED)
            .collect();
        let done = (0..n).filter(|&i| states[i].flags == FLAG_DONE).count();
        progress(done - reported);
        reported = done;
        crate::interrupt::check()?;
        // Enhancement: stalled instances get their next problem on the host (CPU code), then
        // continue in their slot.
        for &i in &stalled {
            let s = &mut slots[i];
            let h = lay.headers[i];
            let p: Vec<f32> = gpu.read_pod(&bufs.p, h.sp_off as u64 * word, h.n_sp as usize)?;
            let argmax: Vec<u32> =
                gpu.read_pod(&bufs.argmax, h.blank_off as u64 * word, h.n_blank as usize)?;
            let search = s
                .search
                .as_mut()
                .expect("stalled only with the enhancement on");
            s.offset += states[i].generation;
            s.updates += s.prob.n_species() as u64 * states[i].generation as u64;
            match search.on_stall(&s.prob, &p, &argmax) {
                Ok(prob) => {
                    s.restarts += 1;
                    let sub = RfssParams {
                        max_generations: params.max_generations - s.offset,
                        ..params.clone()
                    };
                    let e = State::new(prob, &sub);
                    let (hdr, spr, csr) = place(&capacity[i], &e.prob)?;
                    let q = &gpu.queue;
                    q.write_buffer(
                        &bufs.headers,
                        i as u64 * header_bytes,
                        bytemuck::bytes_of(&hdr),
                    );
                    if !spr.is_empty() {
                        // Four resources per species.
                        q.write_buffer(
                            &bufs.sp_res,
                            hdr.sp_off as u64 * 4 * word,
                            bytemuck::cast_slice(&spr),
                        );
                        q.write_buffer(
                            &bufs.p,
                            hdr.sp_off as u64 * word,
                            bytemuck::cast_slice(&e.p),
                        );
                    }
                    q.write_buffer(
                        &bufs.csr,
                        hdr.ptr_off as u64 * word,
                        bytemuck::cast_slice(&csr),
                    );
                    if !e.argmax.is_empty() {
                        q.write_buffer(
                            &bufs.argmax,
                            hdr.blank_off as u64 * word,
                            bytemuck::cast_slice(&e.argmax),
                        );
                    }
                    let ks = GpuReadoff::from(&e.st, sub.max_generations);
                    q.write_buffer(&bufs.state, i as u64 * state_bytes, bytemuck::bytes_of(&ks));
                    states[i] = ks;
                    lay.headers[i] = hdr;
                    s.passes = s.passes.max(loop_passes_per_generation(&e.prob));
                    s.prob = e.prob;
                }
                Err(reason) => {
                    // The search is exhausted: no solution exists.
                    s.finished = Some(RfssOutcome {
                        generations: s.offset,
                        restarts: s.restarts,
                        species_updates: s.updates,
                        ..RfssOutcome::unsolvable(&s.puzzle, reason)
                    });
                    let mut ks = states[i];
                    ks.flags = FLAG_DONE;
                    gpu.queue.write_buffer(
                        &bufs.state,
                        i as u64 * state_bytes,
                        bytemuck::bytes_of(&ks),
                    );
                    states[i] = ks;
                }
            }
        }
        if running.is_empty() && stalled.is_empty() {
            break;
        }
        // Do not run past the largest remaining generation budget.
        let remaining = (0..n)
            .filter(|&i| states[i].flags == 0)
            .map(|i| states[i].limit - states[i].generation)
            .max()
            .unwrap_or(0);
        if remaining == 0 {
            continue;
        }
        // The loop budget of the busiest running instance caps the dispatch (llvmpipe).
        let passes = (0..n)
            .filter(|&i| states[i].flags == 0)
            .map(|i| slots[i].passes)
            .max()
            .unwrap_or(1);
        // This submission's generations, in dispatches of `kp.gens` (the last may run past
        // `remaining`: an instance stops at its own limit). With an enhancement, one dispatch:
        // a stalled instance waits for the host until the submission ends.
        let per_dispatch = if opts.loop_pass_cap {
            max_gens_per_dispatch(passes)?
        } else {
            MAX_GENS_PER_DISPATCH
        };
        let mut total = gens_per_submit.min(remaining).max(1);
        if kp.stall != 0 {
            total = total.min(per_dispatch);
        }
        // Equal dispatches: at most count - 1 generations past `total`.
        let count = total.div_ceil(per_dispatch);
        kp.gens = total.div_ceil(count);
        gpu.queue
            .write_buffer(&bufs.params, 0, bytemuck::bytes_of(&kp));
        let t0 = Instant::now();
        bufs.dispatch(gpu, k, groups, count);
        states = gpu.read_pod(&bufs.state, 0, n)?;
        if fixed.is_none() {
            let dt = t0.elapsed().max(Duration::from_micros(50));
            let scale = TARGET_SUBMIT.as_secs_f64() / dt.as_secs_f64();
            let ran = count as f64 * kp.gens as f64;
            gens_per_submit = ((ran * scale.clamp(0.5, 4.0)) as u32).clamp(1, MAX_GENS_PER_SUBMIT);
        }
    }
    // Final read-offs and proportions.
    let argmax: Vec<u32> = gpu.read_pod(&bufs.argmax, 0, lay.argmax.len())?;
    let p_all: Vec<f32> = gpu.read_pod(&bufs.p, 0, lay.p.len())?;
    for (i, s) in slots.iter_mut().enumerate() {
        if s.finished.is_some() {
            continue;
        }
        let h = lay.headers[i];
        let am = &argmax[h.blank_off as usize..][..h.n_blank as usize];
        let st = states[i].readoff();
        s.final_p = p_all[h.sp_off as usize..][..h.n_sp as usize].to_vec();
        s.finished = Some(finish(
            &s.puzzle,
            &s.prob,
            &st,
            am,
            s.restarts,
            s.offset + st.generation,
            s.updates,
        )?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every number the kernel shares with Rust comes from the prelude: each prelude constant
    /// is used, none is declared again (LANES, RCP_MAGIC, RCP_STEPS, FLAG_* were), no bit
    /// pattern is written in the kernel, and the underflow code and flags are compared by name.
    #[test]
    fn the_kernel_takes_every_shared_number_from_the_prelude() {
        let arrays = WorkgroupArrays {
            species: 512,
            resources: 256,
            blanks: 256,
        };
        for a in [None, Some(arrays)] {
            let a = Variant {
                tally_words: 512,
                arrays: a,
            };
            let p = prelude(a);
            let errors = p.check_kernel(SHADER, &["params.underflow", "st.flags"]);
            assert!(errors.is_empty(), "{a:?}: {errors:#?}");
            assert!(source(a).starts_with(p.text()));
        }
        assert!(!SHADER.contains("params.floor"));
        assert!(!SHADER.contains("256u"));
        let p = prelude(Variant {
            tally_words: 256,
            arrays: None,
        });
        assert!(p.text().contains("const LANES: u32 = 256u;\n"));
        assert!(p.text().contains("const RCP_MAGIC: u32 = 0x7ef311c3u;\n"));
        assert!(p.text().contains("const UNDERFLOW_FLOOR: u32 = 1u;\n"));
        assert!(p.text().contains("const RES_PER_SPECIES: u32 = 4u;\n"));
    }

    /// The kernel reads without bounds checks: a placement with any index out of its slot is
    /// refused on the host.
    #[test]
    fn placements_out_of_range_are_refused() {
        let g = crate::puzzle::parse_str("1.3.3.1..1.3.3.1", None).unwrap()[0]
            .grid
            .clone();
        let prob = Problem::build(&g).unwrap();
        let (n_sp, n_res, n_blank) = (
            prob.n_species() as u32,
            prob.n_res as u32,
            prob.n_blank() as u32,
        );
        let cap = Header {
            sp_off: 0,
            n_sp,
            n_res,
            load_off: n_sp,
            ptr_off: 0,
            list_off: n_res + 1,
            blank_off: 0,
            n_blank,
        };
        let (h, spr, csr) = place(&cap, &prob).unwrap();
        let ptr_len = n_res as usize + 1;
        let refused = |h: &Header, spr: &[u32], csr: &[u32]| check_placement(&cap, h, spr, csr);
        // A species naming a resource past the last, or a cell that is not blank.
        let mut bad = spr.clone();
        bad[1] = n_res;
        assert!(refused(&h, &bad, &csr).is_err());
        let mut bad = spr.clone();
        bad[0] = n_blank;
        assert!(refused(&h, &bad, &csr).is_err());
        // A covering list naming a species past the last, or ending past the lists.
        let mut bad = csr.clone();
        bad[ptr_len] = n_sp;
        assert!(refused(&h, &spr, &bad).is_err());
        let mut bad = csr.clone();
        bad[n_res as usize] = csr.len() as u32;
        assert!(refused(&h, &spr, &bad).is_err());
        // A blank cell with no species: the read-off would read past its list.
        let mut bad = csr.clone();
        bad[1] = bad[0];
        assert!(refused(&h, &spr, &bad).is_err());
        // More species than the slot holds.
        let big = Header {
            n_sp: n_sp + 1,
            ..h
        };
        assert!(refused(&big, &spr, &csr).is_err());
        // The read-off's assumptions: a species' other resources are not cells (its tallies'
        // index), each species is in its own cell's list and in no other.
        let why = |r: Result<()>| r.unwrap_err().to_string();
        let mut bad = spr.clone();
        bad[1] = 0;
        assert!(why(refused(&h, &bad, &csr)).contains("resource out of range"));
        let mut bad = csr.clone();
        bad[ptr_len] = prob.covering(1)[0]; // cell 0's first species, one of cell 1
        assert!(why(refused(&h, &spr, &bad)).contains("cell 0 lists species"));
        let (cap2, h2) = (
            Header {
                n_sp: n_sp + 1,
                ..cap
            },
            Header {
                n_sp: n_sp + 1,
                ..h
            },
        );
        let mut spr2 = spr.clone();
        spr2.extend_from_slice(&spr[..RES_PER_SPECIES]);
        let e = check_placement(&cap2, &h2, &spr2, &csr)
            .unwrap_err()
            .to_string();
        assert!(e.contains("in no cell's list"), "{e}");
        // More row, column and box resources than the slot's tallies hold.
        let more = Header {
            n_blank: n_blank - 1,
            ..h
        };
        assert!(why(refused(&more, &spr, &csr)).contains("does not fit its GPU slot"));
    }
}

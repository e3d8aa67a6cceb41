//! The CPU reference of RFSS: the specification the GPU kernel reproduces bit for bit.
//!
//! One generation (see [`generation`]):
//! 1. `load(r)`: for every resource, the sum of the proportions of the species covering it,
//!    added in ascending species order.
//! 2. `m(x) = ((load(r0) + load(r1)) + load(r2)) + load(r3)` over x's resources in the order
//!    cell, (numeral,row), (numeral,col), (numeral,box). This is 4× the paper's niche count
//!    `Σ_y p(y)·f(x,y)`; the constant factor cancels in the normalisation (the update is
//!    invariant under scaling), so it is left out.
//! 3. `w(x) = p(x) · rcp(m(x))` (0 for extinct species), `Z = lane_sum(w)`.
//! 4. `p'(x) = w(x) · rcp(Z)`, then the underflow policy for `0 < p' < 2^-k`.
//!
//! The O(species) form equals the paper's pairwise O(species²) form; the tests check it on
//! small puzzles against a direct pairwise implementation.

use super::arith::{lane_sum, rcp};
use super::{enhance, finish, Problem, Readoff, RfssOutcome, RfssParams, Underflow};
use crate::puzzle::{Grid, MAX_BOX};
use anyhow::Result;
use rayon::prelude::*;

/// One generation of proportionate selection on shared fitness, in place on `p`: the kernel's
/// stages [`loads`], [`shares`] and [`select`], with the normaliser between them. `load`
/// (n_res) and `w` (n_species) are scratch space.
pub fn generation(
    prob: &Problem,
    p: &mut [f32],
    load: &mut [f32],
    w: &mut [f32],
    params: &RfssParams,
) {
    loads(prob, p, load);
    shares(prob, p, load, w);
    let rz = rcp(lane_sum(w));
    select(p, w, rz, params);
}

/// Stage `loads`: per resource, the sum of the proportions of the species covering it, added
/// in ascending species order.
pub fn loads(prob: &Problem, p: &[f32], load: &mut [f32]) {
    for (r, l) in load.iter_mut().enumerate() {
        let mut acc = 0.0f32;
        for &x in prob.covering(r) {
            acc += p[x as usize];
        }
        *l = acc;
    }
}

/// Stage `shares`: per species w = p · rcp(m), m the sum of its four resources' loads in the
/// order cell, (numeral,row), (numeral,col), (numeral,box); 0 for an extinct species.
pub fn shares(prob: &Problem, p: &[f32], load: &[f32], w: &mut [f32]) {
    for (x, rs) in prob.res.iter().enumerate() {
        w[x] = if p[x] == 0.0 {
            0.0
        } else {
            let m = ((load[rs[0] as usize] + load[rs[1] as usize]) + load[rs[2] as usize])
                + load[rs[3] as usize];
            p[x] * rcp(m)
        };
    }
}

/// Stage `select`: proportionate selection p' = w · rz (rz = 1/Σw), then the underflow policy
/// for 0 < p' < 2^-k.
pub fn select(p: &mut [f32], w: &[f32], rz: f32, params: &RfssParams) {
    let thr = params.threshold();
    for (px, &wx) in p.iter_mut().zip(w.iter()) {
        let v = wx * rz;
        *px = if v == 0.0 || v >= thr {
            v
        } else {
            match params.underflow {
                Underflow::Extinct => 0.0,
                Underflow::Floor => thr,
            }
        };
    }
}

/// Stage `readoff`: per blank cell the species of highest proportion (ties: the lowest index)
/// into `argmax`. Returns (conflicts, changed): conflicts = Σ over non-cell resources of
/// max(0, chosen species covering it − 1); changed = some cell's choice differs from before.
/// (The kernel runs `select` inside this stage, cell by cell: each species lies in one cell.)
pub fn readoff(prob: &Problem, p: &[f32], argmax: &mut [u32]) -> (u32, bool) {
    let mut changed = false;
    for (i, a) in argmax.iter_mut().enumerate() {
        let list = prob.covering(i);
        let mut best = list[0];
        for &x in &list[1..] {
            if p[x as usize] > p[best as usize] {
                best = x;
            }
        }
        changed |= *a != best;
        *a = best;
    }
    (tally(prob, argmax), changed)
}

/// The read-off's conflicts as the kernel counts them: per non-cell resource a count of the
/// chosen species covering it, and a conflict for each species that finds the count above 0,
/// which adds up to chosen − 1 per resource in any order of the cells.
pub fn tally(prob: &Problem, argmax: &[u32]) -> u32 {
    // A resource is one numeral in one unit: a count stays at most the side, which a byte holds.
    const _: () = assert!(MAX_BOX * MAX_BOX <= u8::MAX as usize);
    let mut count = vec![0u8; prob.n_res - prob.n_blank()];
    let mut conflicts = 0u32;
    for &x in argmax {
        for &r in &prob.res[x as usize][1..] {
            let c = &mut count[r as usize - prob.n_blank()];
            conflicts += u32::from(*c != 0);
            *c += 1;
        }
    }
    conflicts
}

/// The evolving state of one instance on the CPU: proportions, scratch, read-off and its
/// bookkeeping.
#[derive(Clone, Debug)]
pub struct State {
    pub prob: Problem,
    pub p: Vec<f32>,
    load: Vec<f32>,
    w: Vec<f32>,
    pub argmax: Vec<u32>,
    pub st: Readoff,
}

impl State {
    /// Equal proportions, generation 0, the initial read-off evaluated (and the stop rule with it).
    pub fn new(prob: Problem, params: &RfssParams) -> State {
        let p = prob.initial_proportions();
        let mut e = State {
            load: vec![0.0; prob.n_res],
            w: vec![0.0; prob.n_species()],
            argmax: vec![u32::MAX; prob.n_blank()],
            st: Readoff::default(),
            p,
            prob,
        };
        let (c, changed) = readoff(&e.prob, &e.p, &mut e.argmax);
        e.st.update(c, changed, params);
        // Nothing left to evolve (forced placements filled every cell): done at generation 0.
        e.st.done |= e.prob.n_blank() == 0;
        e
    }

    /// Runs one generation and the read-off after it.
    pub fn step(&mut self, params: &RfssParams) {
        generation(&self.prob, &mut self.p, &mut self.load, &mut self.w, params);
        self.st.generation += 1;
        let (c, changed) = readoff(&self.prob, &self.p, &mut self.argmax);
        self.st.update(c, changed, params);
    }

    /// The enhancement wants to act now (it is switched on and the read-off has stalled).
    pub fn stalled(&self, params: &RfssParams) -> bool {
        enhance::stalled(&self.st, params)
    }
}

/// Runs one puzzle on the CPU to the stop rule (the enhancement included when switched on).
pub fn run_one(puzzle: &Grid, params: &RfssParams) -> Result<RfssOutcome> {
    params.validate()?;
    let (prob, mut search) = match enhance::prepare(puzzle, params) {
        Ok(x) => x,
        Err(reason) => return Ok(RfssOutcome::unsolvable(puzzle, reason)),
    };
    let mut sub = params.clone();
    let mut eng = State::new(prob, &sub);
    let mut restarts = 0u32;
    let mut offset = 0u32; // generations run before the current restart
    let mut updates = 0u64; // species-updates before the current restart
    while !eng.st.done {
        crate::interrupt::check()?;
        if eng.stalled(&sub) {
            let s = search
                .as_mut()
                .expect("stalls only with the enhancement on");
            offset += eng.st.generation;
            updates += eng.prob.n_species() as u64 * eng.st.generation as u64;
            match s.on_stall(&eng.prob, &eng.p, &eng.argmax) {
                Ok(prob) => {
                    restarts += 1;
                    sub.max_generations = params.max_generations - offset;
                    eng = State::new(prob, &sub);
                    continue;
                }
                Err(reason) => {
                    return Ok(RfssOutcome {
                        generations: offset,
                        restarts,
                        species_updates: updates,
                        ..RfssOutcome::unsolvable(puzzle, reason)
                    })
                }
            }
        }
        eng.step(&sub);
    }
    finish(
        puzzle,
        &eng.prob,
        &eng.st,
        &eng.argmax,
        restarts,
        offset + eng.st.generation,
        updates,
    )
}

/// Runs every puzzle on all cores (each instance is deterministic); outcomes in puzzle order.
/// `progress(1)` is called per finished puzzle.
pub fn run(
    puzzles: &[Grid],
    params: &RfssParams,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<RfssOutcome>> {
    params.validate()?;
    puzzles
        .par_iter()
        .map(|g| {
            crate::interrupt::check()?;
            let o = run_one(g, params);
            progress(1);
            o
        })
        .collect()
}

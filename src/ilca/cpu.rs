//! The CPU reference of ILCA: the specification the WGSL kernel (`shaders/ilca.wgsl`) must match
//! bit for bit. A time-step runs the kernel's stages under the kernel's names: [`State::choose`],
//! [`State::degrees`], [`State::learn`] and [`State::reset`]. Instances are independent, so a
//! batch spreads them over cores with rayon and the results do not depend on the thread count.

use super::{
    Batch, Compare, IlcaParams, Pull, ResetCheck, TieBreak, FLUSH_BELOW, SCALE_HIGH, SCALE_LOW,
};
use crate::puzzle::{Geometry, Grid};
use crate::report::InstanceResult;
use crate::rng;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// What a puzzle and the parameters fix for every run of it: clues, initial weights, factor
/// tables.
#[derive(Clone, Debug)]
pub struct Problem {
    pub geom: &'static Geometry,
    /// Per cell: its clue digit, or 0 for a free cell.
    pub clue: Vec<u8>,
    /// Initial weights, cell-major (`cells × n`): a free cell has 1 for every digit no clue peer
    /// holds (and, under `--prune logic`, that logic does not rule out) and 0 for the others; a
    /// clue cell has 1 for its digit.
    pub init: Vec<f32>,
    /// r(d) and p(d) for d = 0..=|N| (Eq. 8–9), see [`IlcaParams::factor_tables`].
    pub reward: Vec<f32>,
    pub penalty: Vec<f32>,
}

impl Problem {
    pub fn new(puzzle: &Grid, params: &IlcaParams) -> Problem {
        let geom = puzzle.geometry();
        let n = geom.n;
        let clue = puzzle.cells().to_vec();
        let mut init = vec![0f32; geom.cells * n];
        for c in 0..geom.cells {
            let row = &mut init[c * n..(c + 1) * n];
            if clue[c] != 0 {
                row[clue[c] as usize - 1] = 1.0;
            } else {
                row.fill(1.0);
                for &q in geom.peers_of(c) {
                    let v = clue[q as usize];
                    if v != 0 {
                        row[v as usize - 1] = 0.0;
                    }
                }
            }
        }
        if let Some(allowed) = params.prune.candidates(puzzle) {
            for (c, mask) in allowed.into_iter().enumerate() {
                for (d, w) in init[c * n..(c + 1) * n].iter_mut().enumerate() {
                    if mask >> d & 1 == 0 {
                        *w = 0.0;
                    }
                }
            }
        }
        let (reward, penalty) = params.factor_tables(geom.n_peers);
        Problem {
            geom,
            clue,
            init,
            reward,
            penalty,
        }
    }
}

/// The evolving state of one instance (laid out like the GPU buffers: cell-major weights).
#[derive(Clone, Debug)]
pub struct State {
    /// Weights, `cells × n`.
    pub w: Vec<f32>,
    /// Current state (chosen digit 1..=n) per cell; 0 before the first step.
    pub choice: Vec<u8>,
    /// Degree per cell at the last step.
    pub deg: Vec<u8>,
    unit_ok: Vec<bool>,
}

/// What one time-step did (for traces and tests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepInfo {
    /// Every cell has degree |N|: the grid is valid.
    pub solved: bool,
    /// Free cells whose state changed at this step's choice.
    pub changed: usize,
    /// Free cells with degree below |N|.
    pub conflicted: usize,
    pub rewarded: usize,
    pub penalised: usize,
    /// Free cells whose weights the selective reset restored.
    pub reset: usize,
    /// Free cells whose learning left no weight above 0, restored to their initial weights.
    pub emptied: usize,
}

impl State {
    pub fn new(prob: &Problem) -> State {
        State {
            w: prob.init.clone(),
            choice: prob.clue.clone(),
            deg: vec![0; prob.geom.cells],
            unit_ok: vec![false; 3 * prob.geom.n],
        }
    }

    /// Back to the initial state for another run of the same puzzle.
    pub fn reset_to(&mut self, prob: &Problem) {
        self.w.copy_from_slice(&prob.init);
        self.choice.copy_from_slice(&prob.clue);
    }

    /// The current states as a grid.
    pub fn grid(&self, b: usize) -> Grid {
        Grid::from_cells(b, self.choice.clone()).expect("states are digits of the grid")
    }

    /// Normalised probabilities of cell `c` (w / Σw), for display.
    pub fn probabilities(&self, c: usize, n: usize) -> Vec<f32> {
        let row = &self.w[c * n..(c + 1) * n];
        let s: f64 = row.iter().map(|&x| x as f64).sum();
        row.iter()
            .map(|&x| if s > 0.0 { (x as f64 / s) as f32 } else { 0.0 })
            .collect()
    }

    /// One time-step `t` (0-based; the paper's step t+1) of the instance with RNG `key`: the
    /// kernel's stages in its order. Learning and reset are skipped on the last allowed step,
    /// whose states are final anyway.
    pub fn step(&mut self, prob: &Problem, params: &IlcaParams, key: u32, t: u32) -> StepInfo {
        let mut info = StepInfo {
            changed: self.choose(prob, params, key, t),
            ..StepInfo::default()
        };
        let (unhappy, conflicted) = self.degrees(prob);
        info.conflicted = conflicted;
        if unhappy == 0 {
            info.solved = true;
            return info;
        }
        if t + 1 >= params.steps {
            return info;
        }
        (info.rewarded, info.penalised, info.emptied) = self.learn(prob, params);
        info.reset = self.reset(prob, params, t);
        info
    }

    /// Stage `choose`: every free cell takes its digit of largest weight. Returns how many
    /// states changed.
    pub fn choose(&mut self, prob: &Problem, params: &IlcaParams, key: u32, t: u32) -> usize {
        let n = prob.geom.n;
        let mut changed = 0;
        for c in 0..prob.geom.cells {
            if prob.clue[c] != 0 {
                continue;
            }
            let row = &self.w[c * n..(c + 1) * n];
            let k = choose_digit(row, self.choice[c], params.tie, || {
                rng::draw(key, t, c as u32)
            });
            if self.choice[c] != k {
                changed += 1;
                self.choice[c] = k;
            }
        }
        changed
    }

    /// Stage `degrees`: every cell's number of peers holding another digit. Returns (cells with
    /// a conflict, free cells with a conflict); no cell with a conflict means the grid is valid.
    pub fn degrees(&mut self, prob: &Problem) -> (usize, usize) {
        let g = prob.geom;
        let (mut unhappy, mut conflicted) = (0, 0);
        for c in 0..g.cells {
            let v = self.choice[c];
            let same = g
                .peers_of(c)
                .iter()
                .filter(|&&q| self.choice[q as usize] == v)
                .count();
            self.deg[c] = (g.n_peers - same) as u8;
            if same != 0 {
                unhappy += 1;
                if prob.clue[c] == 0 {
                    conflicted += 1;
                }
            }
        }
        (unhappy, conflicted)
    }

    /// Stage `learn` (Algorithm 1): every free cell's chosen digit is rewarded or penalised by
    /// its factor, then its weights are rescaled. Under resource sharing a cell with a conflict
    /// first scales its weight of each peer's digit by s, once per peer. A cell left with no
    /// weight above 0 gets its initial weights back. Returns (rewarded, penalised, emptied).
    pub fn learn(&mut self, prob: &Problem, params: &IlcaParams) -> (usize, usize, usize) {
        let (n, np) = (prob.geom.n, prob.geom.n_peers);
        let share = params.share_factor();
        let (mut rewarded, mut penalised, mut emptied) = (0, 0, 0);
        for c in 0..prob.geom.cells {
            if prob.clue[c] != 0 {
                continue;
            }
            let d = self.deg[c];
            let reward = d as usize == np
                || beats_neighbours(prob, &self.choice, &self.deg, c, params.compare);
            let factor = if reward {
                rewarded += 1;
                prob.reward[d as usize]
            } else {
                penalised += 1;
                prob.penalty[d as usize]
            };
            let k = self.choice[c] as usize - 1;
            let row = &mut self.w[c * n..(c + 1) * n];
            if let Some(s) = share.filter(|_| (d as usize) < np) {
                // A digit held by j peers is scaled j times by the same s: any peer order gives
                // the same bits. Each product is flushed at once, so the next multiply never
                // sees a subnormal (GPUs may flush them) and the rescale never revives one.
                for &q in prob.geom.peers_of(c) {
                    let x = &mut row[self.choice[q as usize] as usize - 1];
                    *x = flushed(*x * s);
                }
            }
            row[k] = flushed(row[k] * factor);
            if rescale(row) == 0.0 {
                // Every weight vanished (a penalty factor of 0, or sharing products flushed):
                // a probability vector needs some mass, so the cell starts again from its
                // initial weights, as a reset would give it.
                let init = &prob.init[c * n..(c + 1) * n];
                row.copy_from_slice(init);
                // A cell the clues leave no digit starts (and stays) at 0: nothing was lost.
                emptied += usize::from(init.iter().any(|&x| x > 0.0));
            }
        }
        (rewarded, penalised, emptied)
    }

    /// Stage `reset` (Algorithm 3, and the restart): after the learning of step `t`, the free
    /// cells [`State::reset_cells`] names get their initial weights back. Returns how many.
    pub fn reset(&mut self, prob: &Problem, params: &IlcaParams, t: u32) -> usize {
        let kind = reset_kind(params, t);
        if kind == ResetKind::None {
            return 0;
        }
        if kind == ResetKind::Selective {
            self.mark_resolved_units(prob, params);
        }
        let n = prob.geom.n;
        let mut count = 0;
        for c in 0..prob.geom.cells {
            if self.resets(prob, kind, c) {
                self.w[c * n..(c + 1) * n].copy_from_slice(&prob.init[c * n..(c + 1) * n]);
                count += 1;
            }
        }
        count
    }

    /// Does a reset of `kind` restore cell `c` (units marked when selective)?
    fn resets(&self, prob: &Problem, kind: ResetKind, c: usize) -> bool {
        prob.clue[c] == 0
            && match kind {
                ResetKind::None => false,
                ResetKind::Restart => true,
                ResetKind::Selective => !self.cell_units_ok(prob, c),
            }
    }

    fn mark_resolved_units(&mut self, prob: &Problem, params: &IlcaParams) {
        let g = prob.geom;
        for u in 0..3 * g.n {
            self.unit_ok[u] = unit_resolved(g.unit(u), &self.choice, g.n, params.reset_check);
        }
    }

    fn cell_units_ok(&self, prob: &Problem, c: usize) -> bool {
        let n = prob.geom.n;
        let (r, col, bx) = prob.geom.row_col_box(c);
        self.unit_ok[r] && self.unit_ok[n + col] && self.unit_ok[2 * n + bx]
    }

    /// After [`State::step`] returned an unsolved step `t` that was not the last: was free cell
    /// `c` rewarded (true) or penalised (false)? (For traces; the states and degrees the step
    /// used are still in place.)
    pub fn was_rewarded(&self, prob: &Problem, params: &IlcaParams, c: usize) -> bool {
        self.deg[c] as usize == prob.geom.n_peers
            || beats_neighbours(prob, &self.choice, &self.deg, c, params.compare)
    }

    /// Which free cells the reset after step `t` restores: all of them on a restart step, those
    /// in an unresolved unit on a selective reset step, none otherwise. Depends on the states
    /// only, so traces can ask after the step.
    pub fn reset_cells(&mut self, prob: &Problem, params: &IlcaParams, t: u32) -> Vec<bool> {
        let kind = reset_kind(params, t);
        if kind == ResetKind::Selective {
            self.mark_resolved_units(prob, params);
        }
        (0..prob.geom.cells)
            .map(|c| self.resets(prob, kind, c))
            .collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ResetKind {
    None,
    Restart,
    Selective,
}

/// What happens after the learning of step `t` (0-based): a full restart every `restart` steps,
/// else a selective reset every `sr` steps (both counted in 1-based steps).
fn reset_kind(params: &IlcaParams, t: u32) -> ResetKind {
    if params.restart != 0 && (t + 1).is_multiple_of(params.restart) {
        ResetKind::Restart
    } else if params.sr != 0 && (t + 1).is_multiple_of(params.sr) {
        ResetKind::Selective
    } else {
        ResetKind::None
    }
}

/// The digit (1-based) of largest weight; `draw` is called only when a random pick is needed.
/// The kernel's `choose_digit`.
fn choose_digit(row: &[f32], current: u8, tie: TieBreak, draw: impl FnOnce() -> u32) -> u8 {
    let mut best = row[0];
    let mut ties = 1u32;
    for &x in &row[1..] {
        if x > best {
            best = x;
            ties = 1;
        } else if x == best {
            ties += 1;
        }
    }
    let nth_tied = |mut i: u32| -> u8 {
        for (k, &x) in row.iter().enumerate() {
            if x == best {
                if i == 0 {
                    return k as u8 + 1;
                }
                i -= 1;
            }
        }
        unreachable!("the maximum occurs in the row")
    };
    match tie {
        TieBreak::First => nth_tied(0),
        TieBreak::Keep if current != 0 && row[current as usize - 1] == best => current,
        TieBreak::Random | TieBreak::Keep => {
            if ties == 1 {
                nth_tied(0)
            } else {
                nth_tied(draw() % ties)
            }
        }
    }
}

/// Algorithm 1's test for a conflicted cell: its degree is strictly higher than the degree of
/// every neighbour in the compared set (vacuously true for an empty set).
fn beats_neighbours(prob: &Problem, choice: &[u8], deg: &[u8], c: usize, compare: Compare) -> bool {
    let d = deg[c];
    prob.geom.peers_of(c).iter().all(|&q| {
        let q = q as usize;
        let compared = match compare {
            Compare::Sharing => choice[q] == choice[c],
            Compare::Free => prob.clue[q] == 0,
            Compare::All => true,
        };
        !compared || deg[q] < d
    })
}

/// `x`, or 0 when it is below 2^-100 (a product that may be subnormal).
fn flushed(x: f32) -> f32 {
    if x < FLUSH_BELOW {
        0.0
    } else {
        x
    }
}

/// Power-of-two rescale (exact) keeping the largest weight in [2^-32, 2^32], then flush of
/// weights below 2^-100 to 0 so no subnormal is ever stored. Returns the largest weight before
/// the rescale (0: every weight is 0).
fn rescale(row: &mut [f32]) -> f32 {
    let m = row.iter().fold(0f32, |a, &x| if x > a { x } else { a });
    if m > SCALE_HIGH {
        row.iter_mut().for_each(|x| *x *= SCALE_LOW);
    } else if m > 0.0 && m < SCALE_LOW {
        row.iter_mut().for_each(|x| *x *= SCALE_HIGH);
    }
    row.iter_mut().for_each(|x| *x = flushed(*x));
    m
}

/// Does a unit's states form a resolved unit under `check`?
fn unit_resolved(cells: &[u16], choice: &[u8], n: usize, check: ResetCheck) -> bool {
    match check {
        ResetCheck::Permutation => {
            let mut seen = 0u64;
            for &c in cells {
                let v = choice[c as usize];
                if v == 0 {
                    return false;
                }
                seen |= 1u64 << (v - 1);
            }
            seen.count_ones() as usize == n
        }
        ResetCheck::Sum => {
            let s: usize = cells.iter().map(|&c| choice[c as usize] as usize).sum();
            s == n * (n + 1) / 2
        }
    }
}

/// Runs one instance to the end: (solved step or step limit, final grid).
pub fn run_instance(
    prob: &Problem,
    params: &IlcaParams,
    state: &mut State,
    key: u32,
) -> (bool, u32) {
    for t in 0..params.steps {
        if state.step(prob, params, key, t).solved {
            return (true, t + 1);
        }
    }
    (false, params.steps)
}

/// [`run_instance`] for an instance of a portfolio whose first solution so far took
/// `first_solution` steps: it stops (unsolved, where it is) once it can no longer solve in as
/// few steps; one that solves lowers it. An instance that solves first, or ties, runs whole.
fn run_in_portfolio(
    prob: &Problem,
    params: &IlcaParams,
    state: &mut State,
    key: u32,
    first_solution: &AtomicU32,
) -> (bool, u32) {
    for t in 0..params.steps {
        if first_solution.load(Ordering::Relaxed) <= t {
            return (false, t);
        }
        if state.step(prob, params, key, t).solved {
            first_solution.fetch_min(t + 1, Ordering::Relaxed);
            return (true, t + 1);
        }
    }
    (false, params.steps)
}

/// Stage `pull` ([`Pull`]; `shaders/ilca_pull.wgsl`): the instances of one portfolio, after
/// a step where instance i had `conflicted[i]` conflicted free cells. Each instance but the best
/// (fewest conflicted cells, the lowest on ties) multiplies, in every free cell, its weight of
/// the best's digit there by `factor`, then rescales the row as learning does. Returns the best.
pub fn pull(prob: &Problem, states: &mut [State], conflicted: &[usize], factor: f32) -> usize {
    let n = prob.geom.n;
    let best = (0..states.len())
        .min_by_key(|&i| (conflicted[i], i))
        .expect("a portfolio has instances");
    let teacher = states[best].choice.clone();
    for (i, st) in states.iter_mut().enumerate() {
        if i == best {
            continue;
        }
        for c in (0..prob.geom.cells).filter(|&c| prob.clue[c] == 0) {
            let row = &mut st.w[c * n..(c + 1) * n];
            row[teacher[c] as usize - 1] *= factor;
            rescale(row);
        }
    }
    best
}

/// Runs the instances of one cooperating portfolio (`states[i]` with RNG `keys[i]`) in
/// lockstep to the end, pulling every `pull.every` steps: (solved, steps) per instance. The
/// step at which one solves ends them all; those that did not solve at it are unsolved there.
pub fn run_population(
    prob: &Problem,
    params: &IlcaParams,
    pull: &Pull,
    states: &mut [State],
    keys: &[u32],
) -> Vec<(bool, u32)> {
    for t in 0..params.steps {
        // The instances of a step are independent: on all cores when a batch has fewer
        // portfolios than cores (one puzzle, many instances), inline when the others fill them.
        let (solved, conflicted): (Vec<bool>, Vec<usize>) = (states.par_iter_mut())
            .zip(keys)
            .with_min_len(4)
            .map(|(st, &key)| {
                let info = st.step(prob, params, key, t);
                (info.solved, info.conflicted)
            })
            .unzip();
        if solved.contains(&true) {
            return solved.into_iter().map(|ok| (ok, t + 1)).collect();
        }
        if (t + 1) % pull.every == 0 && t + 1 < params.steps {
            self::pull(prob, states, &conflicted, pull.factor());
        }
    }
    vec![(false, params.steps); states.len()]
}

/// Runs every instance of `batch` on all cores; results in instance order, every "solved"
/// verified against the rules and the clues. `progress(1)` is called per finished instance.
pub fn run(batch: &Batch, progress: &(dyn Fn(usize) + Sync)) -> Vec<InstanceResult> {
    run_inner(batch, progress, false).0
}

/// [`run`], also returning every instance's final weights (cells × n, as [`State::w`]), for
/// the agreement tests of the GPU engine.
pub fn run_keeping_weights(
    batch: &Batch,
    progress: &(dyn Fn(usize) + Sync),
) -> (Vec<InstanceResult>, Vec<Vec<f32>>) {
    run_inner(batch, progress, true)
}

fn run_inner(
    batch: &Batch,
    progress: &(dyn Fn(usize) + Sync),
    keep_weights: bool,
) -> (Vec<InstanceResult>, Vec<Vec<f32>>) {
    if let Some(pull) = &batch.pull {
        return run_cooperating(batch, pull, progress, keep_weights);
    }
    // Per portfolio (see `Batch::portfolio`), the fewest steps any of its instances solved in.
    let n = batch.portfolio.max(1);
    let first_solution: Vec<AtomicU32> = (0..batch.instances.len().div_ceil(n))
        .map(|_| AtomicU32::new(u32::MAX))
        .collect();
    batch
        .instances
        .par_iter()
        .enumerate()
        .map_init(
            || None::<((usize, usize), Problem, State)>,
            |scratch, (k, inst)| {
                let (s, p) = (inst.setting, inst.puzzle);
                if crate::interrupt::requested() {
                    // Not run: the caller drops every result and returns `Interrupted`.
                    let grid = String::new();
                    let r = InstanceResult {
                        puzzle: p,
                        run: inst.run,
                        solved: false,
                        steps: 0,
                        grid,
                    };
                    return (r, Vec::new());
                }
                let params = &batch.settings[s];
                // Instances usually come in (setting, puzzle) runs: rebuild only when that changes.
                match scratch {
                    Some((sp, prob, st)) if *sp == (s, p) => st.reset_to(prob),
                    _ => {
                        let prob = Problem::new(&batch.puzzles[p], params);
                        let st = State::new(&prob);
                        *scratch = Some(((s, p), prob, st));
                    }
                }
                let (_, prob, state) = scratch.as_mut().expect("set above");
                let key = batch.key(inst);
                let (ok, steps) = match n {
                    1 => run_instance(prob, params, state, key),
                    _ => run_in_portfolio(prob, params, state, key, &first_solution[k / n]),
                };
                let grid = state.grid(prob.geom.b);
                let solved = ok && grid.is_solution_of(&batch.puzzles[p]);
                progress(1);
                let result = InstanceResult {
                    puzzle: p,
                    run: inst.run,
                    solved,
                    steps,
                    grid: grid.to_line(),
                };
                let weights = if keep_weights {
                    state.w.clone()
                } else {
                    Vec::new()
                };
                (result, weights)
            },
        )
        .unzip()
}

/// [`run_inner`] for a batch of cooperating portfolios ([`Batch::pull`], validated): one
/// portfolio per task, its instances in lockstep ([`run_population`]).
fn run_cooperating(
    batch: &Batch,
    pull: &Pull,
    progress: &(dyn Fn(usize) + Sync),
    keep_weights: bool,
) -> (Vec<InstanceResult>, Vec<Vec<f32>>) {
    let per_portfolio: Vec<Vec<(InstanceResult, Vec<f32>)>> = batch
        .instances
        .par_chunks(batch.portfolio)
        .map(|group| {
            let (s, p) = (group[0].setting, group[0].puzzle);
            let outcomes = if crate::interrupt::requested() {
                // Not run: the caller drops every result and returns `Interrupted`.
                None
            } else {
                let params = &batch.settings[s];
                let prob = Problem::new(&batch.puzzles[p], params);
                let mut states: Vec<State> = group.iter().map(|_| State::new(&prob)).collect();
                let keys: Vec<u32> = group.iter().map(|i| batch.key(i)).collect();
                let ends = run_population(&prob, params, pull, &mut states, &keys);
                Some((prob, states, ends))
            };
            let out = (group.iter().enumerate())
                .map(|(k, inst)| {
                    let Some((prob, states, ends)) = &outcomes else {
                        let r = InstanceResult {
                            puzzle: p,
                            run: inst.run,
                            solved: false,
                            steps: 0,
                            grid: String::new(),
                        };
                        return (r, Vec::new());
                    };
                    let grid = states[k].grid(prob.geom.b);
                    let result = InstanceResult {
                        puzzle: p,
                        run: inst.run,
                        solved: ends[k].0 && grid.is_solution_of(&batch.puzzles[p]),
                        steps: ends[k].1,
                        grid: grid.to_line(),
                    };
                    let weights = if keep_weights {
                        states[k].w.clone()
                    } else {
                        Vec::new()
                    };
                    (result, weights)
                })
                .collect();
            progress(group.len());
            out
        })
        .collect();
    per_portfolio.into_iter().flatten().unzip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ilca::Prune;
    use crate::puzzle::{parse_str, CLASSIC};

    fn grid(s: &str) -> Grid {
        parse_str(s, None).unwrap().remove(0).grid
    }

    #[test]
    fn logic_pruning_starts_without_the_digits_logic_rules_out() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/puzzles/unique/hard.txt"
        ))
        .unwrap();
        let mut fewer = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')).take(10) {
            let placed = crate::exact::place_by_logic(&grid(line)).unwrap();
            let solution = crate::exact::solve(&placed).unwrap();
            let with = |prune| {
                Problem::new(
                    &placed,
                    &IlcaParams {
                        prune,
                        ..Default::default()
                    },
                )
                .init
            };
            let (logic, singles) = (with(Prune::Logic), with(Prune::Singles));
            assert_eq!(with(Prune::Off), singles, "only logic changes the weights");
            let n = 9;
            for c in 0..81 {
                for d in 0..n {
                    let (l, s) = (logic[c * n + d], singles[c * n + d]);
                    assert!(l == s || l == 0.0, "cell {c} digit {}: {l} vs {s}", d + 1);
                }
                let k = solution.get(c) as usize - 1;
                assert_eq!(logic[c * n + k], 1.0, "cell {c} keeps its solution digit");
            }
            fewer += usize::from(
                logic.iter().filter(|&&w| w > 0.0).count()
                    < singles.iter().filter(|&&w| w > 0.0).count(),
            );
        }
        assert!(fewer > 0, "logic rules out more than the clues' peers");
    }

    #[test]
    fn argmax_tie_breaks() {
        let row = [0.5, 2.0, 1.0, 2.0];
        assert_eq!(choose_digit(&row, 0, TieBreak::First, || panic!()), 2);
        assert_eq!(choose_digit(&row, 4, TieBreak::Keep, || panic!()), 4);
        assert_eq!(choose_digit(&row, 3, TieBreak::Keep, || 1), 4);
        assert_eq!(choose_digit(&row, 0, TieBreak::Random, || 0), 2);
        assert_eq!(choose_digit(&row, 0, TieBreak::Random, || 7), 4);
        assert_eq!(
            choose_digit(&[1.0, 3.0, 2.0], 0, TieBreak::Random, || panic!()),
            2
        );
    }

    #[test]
    fn rescale_is_exact_and_flushes() {
        let mut row = [5e9f32, 1.0, 1e-31, 0.0];
        rescale(&mut row);
        assert_eq!(
            row,
            [5e9 / 4_294_967_296.0, 1.0 / 4_294_967_296.0, 0.0, 0.0]
        );
        let mut low = [1e-12f32, 3e-13];
        rescale(&mut low);
        assert_eq!(low, [1e-12 * 4_294_967_296.0, 3e-13 * 4_294_967_296.0]);
    }

    /// A 4x4 puzzle worked by hand: the missing cell r1c1 can only be 1.
    #[test]
    fn one_blank_4x4_is_solved_at_step_one() {
        let p = grid(&"1234341221434321".replacen('1', ".", 1));
        let params = IlcaParams::default();
        let prob = Problem::new(&p, &params);
        assert_eq!(prob.init[..4], [1.0, 0.0, 0.0, 0.0]);
        let mut st = State::new(&prob);
        let info = st.step(&prob, &params, 0, 0);
        assert!(info.solved);
        assert_eq!(st.choice[0], 1);
    }

    /// A 4x4 with two solutions whose four free cells r1c1, r1c2, r3c1, r3c2 (cells 0, 1, 8, 9)
    /// all have candidates {2, 3}; |N| = 7 for 4x4.
    const FOUR: &str = "..141423..414132";

    #[test]
    fn lockstep_penalties_by_hand() {
        let p = grid(FOUR);
        let params = IlcaParams {
            tie: TieBreak::First,
            ..Default::default()
        };
        let prob = Problem::new(&p, &params);
        for c in [0, 1, 8, 9] {
            assert_eq!(prob.init[c * 4..c * 4 + 4], [0.0, 1.0, 1.0, 0.0]);
        }
        let mut st = State::new(&prob);
        // Step 1: all four pick 2; each conflicts with its row and its column partner: degree 5.
        let info = st.step(&prob, &params, 0, 0);
        assert!(!info.solved);
        assert_eq!(
            [st.choice[0], st.choice[1], st.choice[8], st.choice[9]],
            [2; 4]
        );
        assert_eq!([st.deg[0], st.deg[1], st.deg[8], st.deg[9]], [5; 4]);
        assert_eq!(st.deg[2], 7); // a clue nobody copies
                                  // 5 does not beat the sharing neighbours' 5: all penalised by p(5) = 5/7.
        assert_eq!((info.rewarded, info.penalised, info.conflicted), (0, 4, 4));
        let p5 = (5.0f64 / 7.0) as f32;
        assert_eq!(st.w[1], p5);
        // Step 2: all switch to 3 (1 > 5/7), same conflicts, penalised again: a tie of 5/7 each.
        let info = st.step(&prob, &params, 0, 1);
        assert_eq!(info.changed, 4);
        assert_eq!(st.w[0..4], [0.0, p5, p5, 0.0]);
        // First tie-breaking keeps them in lock-step for ever.
        for t in 2..40 {
            assert!(!st.step(&prob, &params, 0, t).solved);
        }
        // Random tie-breaking separates them and solves it.
        let params = IlcaParams::default();
        let mut st = State::new(&prob);
        let (solved, _) = run_instance(&prob, &params, &mut st, rng::instance_key(1, 0, 0));
        assert!(solved);
        assert!(st.grid(2).is_solution_of(&p));
    }

    /// FOUR's free cells 0, 1, 8, 9 set to weights whose argmax (tie first) is 2, 2, 2, 3.
    fn states_2_2_2_3(prob: &Problem) -> State {
        let mut st = State::new(prob);
        st.w[0..4].copy_from_slice(&[0.0, 1.0, 0.5, 0.0]);
        st.w[4..8].copy_from_slice(&[0.0, 1.0, 0.5, 0.0]);
        st.w[32..36].copy_from_slice(&[0.0, 1.0, 0.5, 0.0]);
        st.w[36..40].copy_from_slice(&[0.0, 0.5, 1.0, 0.0]);
        st
    }

    #[test]
    fn rewards_by_hand() {
        let p = grid(FOUR);
        let params = IlcaParams {
            tie: TieBreak::First,
            ..Default::default()
        };
        let prob = Problem::new(&p, &params);
        // States 2, 2 / 2, 3: cell 0 conflicts with 1 (row) and 8 (column): degree 5;
        // cells 1 and 8 conflict only with 0: degree 6; cell 9 conflicts with nobody: degree 7.
        let mut st = states_2_2_2_3(&prob);
        let start = st.w.clone();
        let info = st.step(&prob, &params, 0, 0);
        assert_eq!([st.deg[0], st.deg[1], st.deg[8], st.deg[9]], [5, 6, 6, 7]);
        assert_eq!((info.rewarded, info.penalised), (3, 1));
        assert_eq!(st.w[1], (5.0f64 / 7.0) as f32); // penalised: p(5) = 5/7
        assert_eq!(st.w[5], (1.0 + 6.0f64 / 7.0) as f32); // 6 beats 5: r(6) = 1 + 6/7
        assert_eq!(st.w[33], (1.0 + 6.0f64 / 7.0) as f32);
        assert_eq!(st.w[38], 2.0); // degree |N|: r(7) = 2
                                   // Under the literal "all neighbours" reading, the clue neighbours' degree 7 blocks the
                                   // rewards of cells 1 and 8: only cell 9 (degree |N|) is rewarded.
        let all = IlcaParams {
            compare: Compare::All,
            ..params.clone()
        };
        let mut st2 = State::new(&prob);
        st2.w.copy_from_slice(&start);
        let info = st2.step(&prob, &all, 0, 0);
        assert_eq!((info.rewarded, info.penalised), (1, 3));
        assert_eq!(st2.w[5], (6.0f64 / 7.0) as f32);
    }

    /// Resource sharing with share 1 (s = 1/2) from the states of `rewards_by_hand`. Cell 0
    /// (state 2, degree 5) has peers holding 2 (cells 1, 8), 1 (cells 2, 4) and 4 (cells 3, 5,
    /// 12); cell 1 (state 2, degree 6) peers holding 2 (cell 0), 1 (three), 4 (two) and 3 (cell
    /// 9); cell 9 has no conflict and shares nothing.
    #[test]
    fn sharing_by_hand() {
        let p = grid(FOUR);
        let params = IlcaParams {
            tie: TieBreak::First,
            share: 1.0,
            ..Default::default()
        };
        let prob = Problem::new(&p, &params);
        let mut st = states_2_2_2_3(&prob);
        let info = st.step(&prob, &params, 0, 0);
        assert_eq!((info.rewarded, info.penalised), (3, 1));
        // Cell 0: digit 2 halved twice, then penalised by p(5) = 5/7; digit 3 untouched.
        assert_eq!(st.w[0..4], [0.0, 0.25 * (5.0f64 / 7.0) as f32, 0.5, 0.0]);
        // Cell 1: digit 2 halved once and rewarded by r(6); digit 3 halved once (cell 9).
        assert_eq!(
            st.w[4..8],
            [0.0, 0.5 * (1.0 + 6.0f64 / 7.0) as f32, 0.25, 0.0]
        );
        // Cell 9 (degree |N|): only its reward r(7) = 2.
        assert_eq!(st.w[36..40], [0.0, 0.5, 2.0, 0.0]);
        // With s not a power of two the order shows: sharing first, then the penalty.
        let mild = IlcaParams {
            share: 0.05,
            ..params.clone()
        };
        let prob_m = Problem::new(&p, &mild);
        let mut st = states_2_2_2_3(&prob_m);
        st.step(&prob_m, &mild, 0, 0);
        let (s, p5) = (mild.share_factor().unwrap(), (5.0f64 / 7.0) as f32);
        assert_eq!(st.w[1], 1.0 * s * s * p5);
        assert_ne!(
            st.w[1],
            1.0 * p5 * s * s,
            "the other order gives other bits here"
        );
        // Sharing can leave a row below 2^-32: the whole row is rescaled, as always.
        let strong = IlcaParams {
            share: 1000.0,
            ..params
        };
        let prob = Problem::new(&p, &strong);
        let mut st = State::new(&prob);
        let small = 2f32.powi(-20);
        let tiny = FLUSH_BELOW; // 2^-100
        st.w[0..4].copy_from_slice(&[0.0, small, 0.0, tiny]);
        st.w[4..8].copy_from_slice(&[0.0, 1.0, 0.0, 0.0]);
        st.step(&prob, &strong, 0, 0);
        let s = strong.share_factor().unwrap();
        // Cell 0: 2^-20·s·s·p(5) < 2^-32, so the row is scaled up by 2^32.
        assert_eq!(st.w[1], small * s * s * (5.0f64 / 7.0) as f32 * SCALE_HIGH);
        // Digit 4 (three peers hold it): 2^-100·s is flushed at once; multiplied on it would
        // reach a subnormal (2^-130, which GPUs may flush) that the scale-up makes 2^-98.
        assert_eq!(st.w[3], 0.0);
        // A row whose every weight is flushed starts again from its initial weights (before,
        // it stayed all 0 until a reset and the argmax picked among every digit, even those
        // the clues rule out).
        let mut st = State::new(&prob);
        st.w[0..4].copy_from_slice(&[0.0, small, 0.0, tiny]);
        st.w[4..8].copy_from_slice(&[0.0, tiny, 0.0, 0.0]);
        assert_eq!(st.step(&prob, &strong, 0, 0).emptied, 1);
        assert_eq!(st.w[4..8], prob.init[4..8]);
        assert_eq!(st.w[4..8], [0.0, 1.0, 1.0, 0.0]);
        // So does one whose last weight a penalty factor of 0 removes (floor 0, lp > 1).
        let zero = IlcaParams {
            lp: 20.0,
            penalty_floor: 0.0,
            ..params.clone()
        };
        let prob = Problem::new(&p, &zero);
        assert!(prob.penalty.contains(&0.0));
        let mut st = states_2_2_2_3(&prob);
        st.w[0..4].copy_from_slice(&[0.0, 1.0, 0.0, 0.0]);
        let info = st.step(&prob, &zero, 0, 0);
        assert!(info.emptied == 1 && !st.was_rewarded(&prob, &zero, 0));
        assert_eq!(st.w[0..4], [0.0, 1.0, 1.0, 0.0]);
    }

    #[test]
    fn selective_reset_restores_unresolved_units() {
        let p = grid(FOUR);
        let params = IlcaParams {
            tie: TieBreak::First,
            sr: 1,
            ..Default::default()
        };
        let prob = Problem::new(&p, &params);
        let mut st = State::new(&prob);
        // All pick 2: rows 1 and 3 and columns 1 and 2 are invalid → all four cells reset.
        let info = st.step(&prob, &params, 0, 0);
        assert_eq!(info.reset, 4);
        assert_eq!(st.w, prob.init);
        // Row 1 "2 2 1 4" sums to 9, not 10: the sum check resets too.
        let sum = IlcaParams {
            reset_check: ResetCheck::Sum,
            ..params
        };
        let mut st = State::new(&prob);
        assert_eq!(st.step(&prob, &sum, 0, 0).reset, 4);
        assert!(unit_resolved(
            &[0, 1, 2, 3],
            &[2, 3, 1, 4],
            4,
            ResetCheck::Permutation
        ));
        assert!(unit_resolved(
            &[0, 1, 2, 3],
            &[3, 3, 2, 2],
            4,
            ResetCheck::Sum
        ));
        assert!(!unit_resolved(
            &[0, 1, 2, 3],
            &[3, 3, 2, 2],
            4,
            ResetCheck::Permutation
        ));
    }

    /// States 2 3 / 2 2 on FOUR: r1c2 (cell 1, state 3) has a valid row, column and box, the
    /// three other free cells do not. A selective reset spares cell 1; a restart does not.
    #[test]
    fn restart_resets_every_free_cell_selective_reset_spares_resolved_ones() {
        let p = grid(FOUR);
        let start = |params: &IlcaParams| {
            let prob = Problem::new(&p, params);
            let mut st = State::new(&prob);
            st.w[0..4].copy_from_slice(&[0.0, 1.0, 0.5, 0.0]);
            st.w[4..8].copy_from_slice(&[0.0, 0.5, 1.0, 0.0]);
            st.w[32..36].copy_from_slice(&[0.0, 1.0, 0.5, 0.0]);
            st.w[36..40].copy_from_slice(&[0.0, 1.0, 0.5, 0.0]);
            (prob, st)
        };
        let sel = IlcaParams {
            tie: TieBreak::First,
            sr: 1,
            ..Default::default()
        };
        let (prob, mut st) = start(&sel);
        let info = st.step(&prob, &sel, 0, 0);
        assert_eq!(
            [st.choice[0], st.choice[1], st.choice[8], st.choice[9]],
            [2, 3, 2, 2]
        );
        assert_eq!(st.deg[1], 7);
        assert_eq!(info.reset, 3);
        assert_eq!(st.w[4..8], [0.0, 0.5, 2.0, 0.0]); // rewarded by r(7) = 2, kept
        assert_eq!(st.w[0..4], prob.init[0..4]);
        assert_eq!(
            st.reset_cells(&prob, &sel, 0)[..10],
            [true, false, false, false, false, false, false, false, true, true]
        );
        // A restart on the same step takes the place of the selective reset.
        let both = IlcaParams {
            restart: 1,
            ..sel.clone()
        };
        let (prob, mut st) = start(&both);
        assert_eq!(st.step(&prob, &both, 0, 0).reset, 4);
        assert_eq!(st.w, prob.init);
        // Periods count 1-based steps: restart 2 acts after the second step only.
        let two = IlcaParams {
            restart: 2,
            sr: 0,
            ..sel
        };
        let (prob, mut st) = start(&two);
        assert_eq!(st.step(&prob, &two, 0, 0).reset, 0);
        assert_eq!(st.step(&prob, &two, 0, 1).reset, 4);
        assert_eq!(st.w, prob.init);
    }

    #[test]
    fn classic_puzzle_is_solved_and_verified() {
        let p = grid(CLASSIC);
        let params = IlcaParams {
            lr: 0.05,
            compare: Compare::Free,
            ..Default::default()
        };
        let res = run(&Batch::runs(std::slice::from_ref(&p), &params, 10), &|_| {});
        assert_eq!(res.len(), 10);
        let solved: Vec<_> = res.iter().filter(|r| r.solved).collect();
        assert!(!solved.is_empty(), "{res:?}");
        for r in &solved {
            assert!(grid(&r.grid).is_solution_of(&p));
            assert!(r.steps <= 250);
        }
    }

    #[test]
    fn results_do_not_depend_on_thread_count() {
        let p = vec![grid(CLASSIC), grid(&CLASSIC.replacen('5', ".", 1))];
        let params = IlcaParams {
            sr: 20,
            lp: 3.5,
            lr: 0.2,
            steps: 60,
            ..Default::default()
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let batch = Batch::runs(&p, &params, 4);
        let a = one.install(|| run(&batch, &|_| {}));
        let b = run(&batch, &|_| {});
        assert_eq!(a, b);
    }
}

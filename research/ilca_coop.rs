//! Research probe (not the engine) for issue #36: does a population of ILCA instances of one
//! puzzle that share what they learn solve hard puzzles better than the same number of
//! independent instances? Runs the engine's CPU reference (`ilca::cpu::State::step`, the
//! specification of the kernel) in lockstep per population and adds a cooperation stage every
//! `every` steps. A population stops at its first solution; it reports per puzzle how many
//! populations solved and the median steps to the first solution.
//!
//! `cargo run --release --example ilca_coop -- [key=value…] FILE…`
//!
//! Keys: preset (default shared), prune (off|singles|logic; default off), steps (20000), pop
//! (instances per population, 64), pops (populations per puzzle, 4), seed (1), limit (puzzles
//! per file, all), names (comma list of `name=` fields to keep), restart, sr, lr, lp, share
//! (override the preset's), mode:
//! - `indep`: no cooperation; a population is a portfolio of independent runs (run `p·pop + i`,
//!   as `batch --runs` numbers them, so its instances are the engine's runs);
//! - `pull`: every `every` steps each instance multiplies, in every free cell, its weight of the
//!   digit the population's best instance (fewest conflicted cells, lowest index on ties) holds
//!   there by `1 + alpha`;
//! - `pullok`: `pull` in the cells where the best instance has no conflict only;
//! - `ring`: `pull`, but each instance's teacher is the best of its neighbours on a ring of the
//!   population (instances `i - radius … i + radius`, modulo `pop`; itself included, so the
//!   best of a neighbourhood is not pulled), the "local best" topology of particle swarms that
//!   keeps several teachers alive at once;
//! - `vote`: every `every` steps each instance multiplies its weight of each digit by
//!   `1 + alpha · k / pop`, k the instances holding that digit in that cell (consensus);
//! - `crowd`: the same with `1 / (1 + alpha · k / pop)` (fitness sharing across instances:
//!   crowded digits lose, diversity is kept).
//!
//! - `clone`: every `every` steps the worse half of the population (by conflicted cells) takes
//!   the weights and states of the better half, the i-th worst those of the i-th best (a
//!   selection step; their own random draws then make the copies diverge).
//!
//! The weights are rescaled by powers of two afterwards, as the engine's learning does, so no
//! weight overflows; nothing else of the engine changes.

use gpu_sudoku::ilca::cpu::{Problem, State};
use gpu_sudoku::ilca::presets::by_name;
use gpu_sudoku::ilca::{IlcaParams, Prune};
use gpu_sudoku::puzzle::{read_puzzles, Grid};
use gpu_sudoku::rng::instance_key;
use rayon::prelude::*;

#[derive(Clone, Debug)]
struct Probe {
    params: IlcaParams,
    pop: usize,
    pops: usize,
    mode: String,
    every: u32,
    alpha: f32,
    radius: usize,
    limit: usize,
    names: Vec<String>,
}

/// Steps to the population's first solution, if any within the step limit.
fn population(probe: &Probe, puzzle: &Grid, pi: u32, p: usize) -> Option<u32> {
    let params = &probe.params;
    let prob = Problem::new(
        &if params.prune == Prune::Off {
            puzzle.clone()
        } else {
            params.prune.on()(puzzle)
        },
        params,
    );
    let n = prob.geom.n;
    let keys: Vec<u32> = (0..probe.pop)
        .map(|i| instance_key(params.seed, pi, (p * probe.pop + i) as u32))
        .collect();
    let mut states: Vec<State> = (0..probe.pop).map(|_| State::new(&prob)).collect();
    let mut conflicted = vec![0usize; probe.pop];
    for t in 0..params.steps {
        for (i, st) in states.iter_mut().enumerate() {
            let info = st.step(&prob, params, keys[i], t);
            if info.solved {
                // Lockstep: every instance before it ran step t too; the first one that
                // solves at t ends the population.
                return Some(t + 1);
            }
            conflicted[i] = info.conflicted;
        }
        if probe.mode == "indep" || (t + 1) % probe.every != 0 {
            continue;
        }
        match probe.mode.as_str() {
            "pull" | "pullok" | "ring" => {
                // Each instance's teacher, from the counts of this step: the population's best
                // or (`ring`) the best of its ring neighbours; then the pulls.
                let pop = probe.pop;
                let best_of = |js: &mut dyn Iterator<Item = usize>| {
                    js.min_by_key(|&j| (conflicted[j], j)).unwrap_or(0)
                };
                let best = best_of(&mut (0..pop));
                let teachers: Vec<usize> = (0..pop)
                    .map(|i| match probe.mode.as_str() {
                        "ring" => best_of(
                            &mut (0..=2 * probe.radius)
                                .map(|k| (i + pop * (probe.radius + 1) + k - probe.radius) % pop),
                        ),
                        _ => best,
                    })
                    .collect();
                // `pullok`: only the cells where the teacher has no conflict.
                let np = prob.geom.n_peers as u8;
                let taught: Vec<Vec<bool>> = (states.iter())
                    .map(|t| {
                        (t.deg.iter())
                            .map(|&d| probe.mode != "pullok" || d == np)
                            .collect()
                    })
                    .collect();
                let choices: Vec<Vec<u8>> = states.iter().map(|s| s.choice.clone()).collect();
                for (i, st) in states.iter_mut().enumerate() {
                    let t = teachers[i];
                    if t == i {
                        continue;
                    }
                    for (c, &d) in choices[t].iter().enumerate() {
                        if prob.clue[c] == 0 && taught[t][c] {
                            st.w[c * n + d as usize - 1] *= 1.0 + probe.alpha;
                            rescale(&mut st.w[c * n..(c + 1) * n]);
                        }
                    }
                }
            }
            "vote" | "crowd" => {
                let mut counts = vec![0u32; prob.geom.cells * n];
                for st in &states {
                    for c in 0..prob.geom.cells {
                        counts[c * n + st.choice[c] as usize - 1] += 1;
                    }
                }
                let pop = probe.pop as f32;
                for st in states.iter_mut() {
                    for c in 0..prob.geom.cells {
                        if prob.clue[c] != 0 {
                            continue;
                        }
                        for d in 0..n {
                            let share = probe.alpha * counts[c * n + d] as f32 / pop;
                            let f = if probe.mode == "vote" {
                                1.0 + share
                            } else {
                                1.0 / (1.0 + share)
                            };
                            st.w[c * n + d] *= f;
                        }
                        rescale(&mut st.w[c * n..(c + 1) * n]);
                    }
                }
            }
            "clone" => {
                // Selection: the worse half takes the weights and states of the better half
                // (the i-th worst those of the i-th best); their own draws make them diverge.
                let mut order: Vec<usize> = (0..probe.pop).collect();
                order.sort_by_key(|&i| (conflicted[i], i));
                let half = probe.pop / 2;
                for j in 0..half {
                    let (good, bad) = (order[j], order[probe.pop - 1 - j]);
                    if conflicted[bad] > conflicted[good] {
                        let w = states[good].w.clone();
                        let ch = states[good].choice.clone();
                        states[bad].w.copy_from_slice(&w);
                        states[bad].choice.copy_from_slice(&ch);
                    }
                }
            }
            other => {
                panic!("mode {other}: expected indep, pull, pullok, ring, vote, crowd or clone")
            }
        }
    }
    None
}

/// Keeps a cell's largest weight in [2^-32, 2^32] by powers of two (exact), as the engine does.
fn rescale(row: &mut [f32]) {
    let m = row.iter().fold(0f32, |a, &x| a.max(x));
    if m > 4_294_967_296.0 {
        row.iter_mut().for_each(|x| *x /= 4_294_967_296.0);
    } else if m > 0.0 && m < 1.0 / 4_294_967_296.0 {
        row.iter_mut().for_each(|x| *x *= 4_294_967_296.0);
    }
}

fn main() {
    let mut probe = Probe {
        params: IlcaParams {
            steps: 20_000,
            prune: Prune::Off,
            ..by_name("shared").expect("preset").params()
        },
        pop: 64,
        pops: 4,
        mode: "indep".into(),
        every: 50,
        alpha: 0.5,
        radius: 2,
        limit: usize::MAX,
        names: Vec::new(),
    };
    let mut files = Vec::new();
    for a in std::env::args().skip(1) {
        let Some((k, v)) = a.split_once('=') else {
            files.push(a);
            continue;
        };
        match k {
            "preset" => {
                let prune = probe.params.prune;
                let steps = probe.params.steps;
                probe.params = by_name(v).expect("a preset name").params();
                (probe.params.prune, probe.params.steps) = (prune, steps);
            }
            "prune" => {
                probe.params.prune = match v {
                    "off" => Prune::Off,
                    "singles" => Prune::Singles,
                    "logic" => Prune::Logic,
                    _ => panic!("prune: off, singles or logic"),
                }
            }
            "steps" => probe.params.steps = v.parse().expect("steps"),
            "seed" => probe.params.seed = v.parse().expect("seed"),
            "share" => probe.params.share = v.parse().expect("share"),
            "restart" => probe.params.restart = v.parse().expect("restart"),
            "sr" => probe.params.sr = v.parse().expect("sr"),
            "lr" => probe.params.lr = v.parse().expect("lr"),
            "lp" => probe.params.lp = v.parse().expect("lp"),
            "pop" => probe.pop = v.parse().expect("pop"),
            "pops" => probe.pops = v.parse().expect("pops"),
            "mode" => probe.mode = v.to_string(),
            "every" => probe.every = v.parse().expect("every"),
            "alpha" => probe.alpha = v.parse().expect("alpha"),
            "radius" => probe.radius = v.parse().expect("radius"),
            "limit" => probe.limit = v.parse().expect("limit"),
            "names" => probe.names = v.split(',').map(String::from).collect(),
            _ => panic!("unknown key {k}"),
        }
    }
    println!(
        "mode {} every {} alpha {} radius {} | pop {} × {} populations | steps {} lr {} lp {} sr {} \
         restart {} share {} prune {:?} seed {}",
        probe.mode,
        probe.every,
        probe.alpha,
        probe.radius,
        probe.pop,
        probe.pops,
        probe.params.steps,
        probe.params.lr,
        probe.params.lp,
        probe.params.sr,
        probe.params.restart,
        probe.params.share,
        probe.params.prune,
        probe.params.seed
    );
    let t0 = std::time::Instant::now();
    let (mut all, mut solved) = (0, 0);
    for f in &files {
        let file = read_puzzles(f, None).expect("a puzzle file");
        let chosen: Vec<(usize, &gpu_sudoku::puzzle::Puzzle)> = file
            .puzzles
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                probe.names.is_empty() || probe.names.iter().any(|n| p.extra.contains(n.as_str()))
            })
            .take(probe.limit)
            .collect();
        let jobs: Vec<(usize, usize)> = (0..chosen.len())
            .flat_map(|k| (0..probe.pops).map(move |p| (k, p)))
            .collect();
        let outcomes: Vec<Option<u32>> = jobs
            .par_iter()
            .map(|&(k, p)| population(&probe, &chosen[k].1.grid, chosen[k].0 as u32, p))
            .collect();
        for (k, (_, puzzle)) in chosen.iter().enumerate() {
            let mut steps: Vec<u32> = outcomes[k * probe.pops..(k + 1) * probe.pops]
                .iter()
                .flatten()
                .copied()
                .collect();
            steps.sort_unstable();
            let median = steps
                .get(steps.len() / 2)
                .map_or("-".into(), |s| s.to_string());
            println!(
                "{:<24} {:>3}/{} populations solved, median first step {median}",
                puzzle.extra,
                steps.len(),
                probe.pops
            );
            all += probe.pops;
            solved += steps.len();
        }
    }
    println!(
        "total {solved}/{all} populations solved ({:.1}%), {:.1} s",
        100.0 * solved as f64 / all.max(1) as f64,
        t0.elapsed().as_secs_f64()
    );
}

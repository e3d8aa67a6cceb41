use super::*;
use crate::puzzle::parse_str;

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

fn grid(line: &str) -> Grid {
    parse_str(line, None).expect("valid")[0].grid.clone()
}

/// The classic puzzle with a few more cells of its solution filled in (very easy).
fn easier() -> Grid {
    let p = grid(CLASSIC);
    let s = crate::exact::solve(&p).expect("solvable");
    let mut g = p.clone();
    for c in (0..81).step_by(3) {
        g.set(c, s.get(c));
    }
    g
}

fn check(a: &Attempt, puzzle: &Grid) {
    // Clues are respected and "solved" is only ever claimed for a verified solution.
    for c in 0..puzzle.cells().len() {
        if puzzle.get(c) != 0 {
            assert_eq!(a.grid.get(c), puzzle.get(c), "clue at {c} changed");
        }
    }
    assert_eq!(a.solved, a.grid.verify_solution_of(puzzle).is_ok());
}

#[test]
fn exact_baselines_solve_the_classic() {
    let p = grid(CLASSIC);
    for name in ["backtrack", "mrv", "astar", "astar-small", "astar-big"] {
        let b = by_name(name, &[]).unwrap();
        let a = b.solve(&p, 1, &Budget::iterations(1_000_000));
        assert!(a.solved, "{name} failed");
        assert!(a.iterations >= 51, "{name}: {} iterations", a.iterations);
        check(&a, &p);
    }
}

#[test]
fn exact_baseline_solves_famous_hard_puzzles_and_stops_on_its_node_limit() {
    let exact = by_name("exact", &[]).unwrap();
    assert_eq!((exact.name(), exact.unit()), ("exact", "nodes"));
    for line in [CLASSIC, AI_ESCARGOT, PLATINUM_BLONDE] {
        let p = grid(line);
        let a = exact.solve(&p, 0, &Budget::iterations(1_000_000));
        check(&a, &p);
        assert!(a.solved, "{line}");
        assert!(a.iterations >= 1);
        // Deterministic: the seed is not used.
        assert_eq!(
            a,
            Attempt {
                elapsed: a.elapsed,
                ..exact.solve(&p, 7, &Budget::iterations(1_000_000))
            }
        );
    }
    // Platinum Blonde needs a search: one node (the root) is not enough.
    let p = grid(PLATINUM_BLONDE);
    let a = exact.solve(&p, 0, &Budget::iterations(1));
    check(&a, &p);
    assert!(!a.solved);
}

#[test]
fn weighted_astar_learns_and_solves() {
    let p = grid(CLASSIC);
    let w = AStar::weighted(std::slice::from_ref(&p), Heuristic::Basic).unwrap();
    assert!(w.weights().unwrap().iter().any(|&x| x > 0.0));
    let a = w.solve(&p, 0, &Budget::iterations(100_000));
    assert!(a.solved);
    assert!(AStar::weighted(&[], Heuristic::Basic).is_err());
}

#[test]
fn budget_stops_backtracking() {
    let p = grid(CLASSIC);
    let a = Backtracking.solve(&p, 0, &Budget::iterations(10));
    assert!(!a.solved);
    assert_eq!(a.iterations, 10);
    check(&a, &p);
}

#[test]
fn stochastic_baselines_solve_an_easy_puzzle_and_respect_clues() {
    let p = easier();
    let small_ga = Ga::new(GaParams {
        population: 100,
        ..GaParams::default()
    })
    .unwrap();
    let sa = SimulatedAnnealing::new(1.0, 0.995).unwrap();
    let algos: [&dyn Baseline; 3] = [&small_ga, &sa, &HillClimbing];
    for b in algos {
        let solved = (0..4)
            .map(|s| b.solve(&p, s, &Budget::iterations(20_000)))
            .inspect(|a| check(a, &p))
            .filter(|a| a.solved)
            .count();
        assert!(solved >= 1, "{} never solved the easy puzzle", b.name());
    }
}

#[test]
fn stochastic_baselines_never_claim_an_unsolved_grid() {
    // Tiny budgets on the classic: mostly unsolved; every result checked.
    let p = grid(CLASSIC);
    let ga = Ga::new(GaParams {
        population: 20,
        ..GaParams::default()
    })
    .unwrap();
    let sa = SimulatedAnnealing::new(1.0, 0.995).unwrap();
    let algos: [&dyn Baseline; 3] = [&ga, &sa, &HillClimbing];
    for b in algos {
        for s in 0..3 {
            let a = b.solve(&p, s, &Budget::iterations(5));
            check(&a, &p);
            assert!(!a.solved);
            assert!(a.grid.is_complete());
        }
    }
}

#[test]
fn every_ga_combination_runs_and_respects_clues() {
    let p = easier();
    for s in Selection::ALL {
        for c in Crossover::ALL {
            for m in Mutation::ALL {
                let name = format!("ga-{}-{}-{}", s.name(), c.name(), m.name());
                let ga = Ga::new(
                    GaParams {
                        population: 30,
                        ..GaParams::default()
                    }
                    .with_combination(&name[3..])
                    .unwrap(),
                )
                .unwrap();
                assert_eq!(ga.name(), name);
                let a = ga.solve(&p, 7, &Budget::iterations(3));
                check(&a, &p);
            }
        }
    }
}

#[test]
fn the_searches_ignore_the_seed_and_the_others_use_it() {
    // A puzzle that propagation alone does not solve, and a small budget.
    let p = grid(AI_ESCARGOT);
    let training = [p.clone()];
    for name in NAMES {
        let b = by_name(name, &training).unwrap();
        let runs: Vec<(bool, u64, String)> = (1..=4)
            .map(|seed| {
                let a = b.solve(&p, seed, &Budget::iterations(300));
                (a.solved, a.iterations, a.grid.to_line())
            })
            .collect();
        let same = runs.windows(2).all(|w| w[0] == w[1]);
        assert_eq!(same, ignores_seed(name), "{name}: {runs:?}");
    }
}

#[test]
fn deterministic_for_a_seed() {
    let p = grid(CLASSIC);
    for name in ["ga", "sa", "hc", "backtrack", "astar"] {
        let mut b = by_name(name, &[]).unwrap();
        if name == "ga" {
            b = Box::new(
                Ga::new(GaParams {
                    population: 50,
                    ..GaParams::default()
                })
                .unwrap(),
            );
        }
        let x = b.solve(&p, 42, &Budget::iterations(200));
        let y = b.solve(&p, 42, &Budget::iterations(200));
        assert_eq!(
            (x.solved, &x.grid, x.iterations),
            (y.solved, &y.grid, y.iterations)
        );
    }
    let sa = by_name("sa", &[]).unwrap();
    let x = sa.solve(&p, 1, &Budget::iterations(200));
    let y = sa.solve(&p, 2, &Budget::iterations(200));
    assert_ne!(x.grid, y.grid, "different seeds should give different runs");
}

#[test]
fn bad_parameters_are_errors() {
    let e = |r: Result<()>| r.unwrap_err().to_string();
    let ga = |p: GaParams| Ga::new(p).map(|_| ());
    assert!(e(ga(GaParams {
        population: 0,
        ..GaParams::default()
    }))
    .contains("population"));
    assert!(e(ga(GaParams {
        mutation_rate: 1.5,
        ..GaParams::default()
    }))
    .contains("mutation rate"));
    assert!(e(SimulatedAnnealing::new(1.0, 1.0).map(|_| ())).contains("cooling"));
    assert!(e(SimulatedAnnealing::new(1.0, 0.0).map(|_| ())).contains("cooling"));
    assert!(e(SimulatedAnnealing::new(-1.0, 0.9).map(|_| ())).contains("temperature"));
    let msg = e(by_name("dfs", &[]).map(|_| ()));
    assert!(
        msg.contains("dfs") && msg.contains("backtrack") && msg.contains("hc"),
        "{msg}"
    );
    assert!(e(by_name("ga-best-single-swap", &[]).map(|_| ())).contains("selection"));
    assert!(e(by_name("acs-q0-x", &[]).map(|_| ())).contains("q0"));
    assert!(e(by_name("acs-q0-2", &[]).map(|_| ())).contains("q0"));
    assert_eq!(by_name("acs-q0-0.1", &[]).unwrap().name(), "acs-q0-0.1");
    assert_eq!(by_name("acs-q0-0.9", &[]).unwrap().name(), "acs");
}

#[test]
fn batch_is_in_order_and_uses_distinct_seeds() {
    let p = easier();
    let r = run_batch(
        &HillClimbing,
        &[p.clone(), p.clone()],
        2,
        3,
        &Budget::iterations(50),
        &|| {},
    );
    assert_eq!(r.len(), 4);
    let again = run_batch(
        &HillClimbing,
        &[p.clone(), p],
        2,
        3,
        &Budget::iterations(50),
        &|| {},
    );
    let key = |v: &[Attempt]| -> Vec<(bool, Grid, u64)> {
        v.iter()
            .map(|a| (a.solved, a.grid.clone(), a.iterations))
            .collect()
    };
    assert_eq!(key(&r), key(&again));
    assert_ne!(
        r[0].grid, r[1].grid,
        "runs of one puzzle use different seeds"
    );
}

/// A valid complete grid of box size b (pattern solution) with a few cells blanked.
fn pattern(b: usize, blanks: &[usize]) -> Grid {
    let n = b * b;
    let cells = (0..n * n)
        .map(|c| {
            let (r, col) = (c / n, c % n);
            ((b * (r % b) + r / b + col) % n + 1) as u8
        })
        .collect();
    let mut g = Grid::from_cells(b, cells).unwrap();
    assert!(g.is_complete() && g.is_consistent());
    for &c in blanks {
        g.set(c, 0);
    }
    g
}

#[test]
fn all_sizes_from_4x4_to_64x64() {
    for b in [2, 3, 4, 8] {
        let n = b * b;
        // Two cells of one row blanked: solvable by every method.
        let p = pattern(b, &[0, n - 1]);
        let ga = Ga::new(GaParams {
            population: 10,
            ..GaParams::default()
        })
        .unwrap();
        let sa = SimulatedAnnealing::new(1.0, 0.995).unwrap();
        let astar = AStar::new(Heuristic::BigCrossed);
        let acs = Acs::new(AcsParams::default()).unwrap();
        let algos: [&dyn Baseline; 7] =
            [&Backtracking, &Mrv, &astar, &ga, &sa, &HillClimbing, &acs];
        for a in algos {
            let r = a.solve(&p, 3, &Budget::iterations(1000));
            check(&r, &p);
            assert!(r.solved, "{} on {n}x{n}", a.name());
        }
    }
}

const AI_ESCARGOT: &str =
    "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..41.....7..7...3..";
const PLATINUM_BLONDE: &str =
    ".......12........3..23..4....18....5.6..7.8.......9.....85.....9...4.5..47...6...";

#[test]
fn acs_solves_easy_and_famous_hard_puzzles() {
    let acs = by_name("acs", &[]).unwrap();
    assert_eq!((acs.name(), acs.unit()), ("acs", "iterations"));
    let easy = parse_str(include_str!("../../puzzles/easy.txt"), None).unwrap();
    for p in easy.iter().take(20) {
        let a = acs.solve(&p.grid, 1, &Budget::iterations(100));
        check(&a, &p.grid);
        assert!(a.solved, "easy line {}", p.line);
    }
    // AI Escargot needs the colony (46 cycles in the median over 100 seeds).
    let p = grid(AI_ESCARGOT);
    let mut cycles = Vec::new();
    for seed in 0..3 {
        let a = acs.solve(&p, seed, &Budget::iterations(5_000));
        check(&a, &p);
        assert!(a.solved, "seed {seed}");
        cycles.push(a.iterations);
    }
    assert!(cycles.iter().all(|&c| c >= 1), "{cycles:?}");
}

#[test]
fn acs_is_deterministic_for_a_seed_and_stops_on_its_budget() {
    let acs = by_name("acs", &[]).unwrap();
    let p = grid(PLATINUM_BLONDE);
    let runs: Vec<Attempt> = (0..4)
        .map(|s| acs.solve(&p, s, &Budget::iterations(5_000)))
        .collect();
    for (s, a) in runs.iter().enumerate() {
        let again = acs.solve(&p, s as u64, &Budget::iterations(5_000));
        assert_eq!(
            (a.solved, &a.grid, a.iterations),
            (again.solved, &again.grid, again.iterations)
        );
    }
    let mut cycles: Vec<u64> = runs.iter().map(|a| a.iterations).collect();
    cycles.dedup();
    assert!(cycles.len() > 1, "seeds should give different runs");
    // Three cycles are too few: unsolved, its best partial grid keeps the clues.
    let a = acs.solve(&grid(AI_ESCARGOT), 0, &Budget::iterations(3));
    check(&a, &grid(AI_ESCARGOT));
    assert!(!a.solved);
    assert_eq!(a.iterations, 3);
    assert!(a.grid.clue_count() > grid(AI_ESCARGOT).clue_count());
    assert!(a.grid.is_consistent());
}

use super::*;
use crate::generate::{complete, puzzle_rng};
use crate::puzzle::parse_str;
use rand::seq::SliceRandom;

fn grid(line: &str) -> Grid {
    parse_str(line, None).unwrap().remove(0).grid
}

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const CLASSIC_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

/// Well-known hard 9x9 puzzles: AI Escargot, Platinum Blonde, and the first of the "hardest 20"
/// list (hard for plain backtracking).
const HARD: [&str; 3] = [
    "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
    ".......12........3..23..4....18....5.6..7.8.......9.....85.....9...4.5..47...6...",
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9",
];

/// The `sudoku` crate (a peer, dev-dependency) as an independent referee for 9x9.
fn peer_solutions(p: &Grid, limit: usize) -> Vec<String> {
    let s = sudoku::Sudoku::from_str_line(&p.to_line()).unwrap();
    s.solutions_up_to(limit)
        .into_iter()
        .map(|s| s.to_str_line().to_string())
        .collect()
}

#[test]
fn solves_the_classic_puzzle() {
    let p = grid(CLASSIC);
    let s = solve(&p).unwrap();
    assert_eq!(s.to_line(), CLASSIC_SOLUTION);
    assert_eq!(count_solutions(&p, 10), 1);
    assert_eq!(classify(&p), Solutions::Unique(s));
}

#[test]
fn solves_famous_hard_puzzles_like_the_peer() {
    for line in HARD {
        let p = grid(line);
        let mut solver = Solver::default();
        let o = solver.count(&p, 2);
        assert_eq!(o.count, 1, "{line}");
        let s = o.first.unwrap();
        assert!(s.is_solution_of(&p));
        assert_eq!(peer_solutions(&p, 2), vec![s.to_line()], "{line}");
        if line != HARD[2] {
            assert!(solver.stats().guesses > 0, "{line}: {:?}", solver.stats());
        }
    }
}

#[test]
fn agrees_with_the_peer_on_random_puzzles() {
    // Paper-model style puzzles over the whole d range: unique, multiple and (rarely) many.
    for i in 0..200u64 {
        let mut rng = puzzle_rng(99, i);
        let full = complete::random_complete(3, &mut rng);
        let mut order: Vec<usize> = (0..81).collect();
        order.shuffle(&mut rng);
        let mut p = full.clone();
        for &c in &order[..(30 + i as usize % 35)] {
            p.set(c, 0);
        }
        let ours = count_solutions(&p, 3);
        let peer = sudoku::Sudoku::from_str_line(&p.to_line())
            .unwrap()
            .solutions_count_up_to(3);
        assert_eq!(ours, peer, "{}", p.to_line());
        assert!(solve(&p).unwrap().is_solution_of(&p));
    }
}

/// Blanks a "deadly rectangle" (a b / b a in two rows and two columns of one band, two boxes)
/// of a complete grid: exactly two solutions.
fn two_solution_puzzle(full: &Grid) -> Option<Grid> {
    let (b, n) = (full.box_size(), full.side());
    for r1 in 0..n {
        for r2 in r1 + 1..(r1 / b + 1) * b {
            for c1 in 0..n {
                for c2 in c1 + 1..n {
                    if c1 / b == c2 / b {
                        continue;
                    }
                    let v = |r: usize, c: usize| full.get(r * n + c);
                    if v(r1, c1) == v(r2, c2) && v(r1, c2) == v(r2, c1) {
                        let mut p = full.clone();
                        for (r, c) in [(r1, c1), (r1, c2), (r2, c1), (r2, c2)] {
                            p.set(r * n + c, 0);
                        }
                        return Some(p);
                    }
                }
            }
        }
    }
    None
}

#[test]
fn counts_two_solutions_and_none() {
    let mut found = 0;
    for seed in 0..20 {
        let full = complete::random_complete(3, &mut puzzle_rng(seed, 0));
        if let Some(p) = two_solution_puzzle(&full) {
            assert_eq!(count_solutions(&p, 10), 2, "{}", p.to_line());
            assert!(matches!(classify(&p), Solutions::Multiple(s) if s.is_solution_of(&p)));
            found += 1;
        }
    }
    assert!(found > 0, "no deadly rectangle in 20 grids");

    // A wrong but non-conflicting digit in a unique puzzle: consistent, no solution.
    let mut p = grid(CLASSIC);
    let sol = grid(CLASSIC_SOLUTION);
    let c = (0..81).find(|&c| p.get(c) == 0).unwrap();
    let wrong = (1..=9)
        .find(|&v| {
            v != sol.get(c) && {
                let mut q = p.clone();
                q.set(c, v);
                q.is_consistent()
            }
        })
        .unwrap();
    p.set(c, wrong);
    assert!(p.is_consistent());
    assert_eq!(count_solutions(&p, 2), 0);
    assert_eq!(solve(&p), None);
    assert_eq!(classify(&p), Solutions::None);

    // Conflicting clues: no solution either.
    let mut q = grid(CLASSIC);
    q.set(1, 5);
    assert_eq!(count_solutions(&q, 2), 0);
}

#[test]
fn empty_grids_have_many_solutions() {
    for b in 2..=5 {
        let e = Grid::empty(b);
        let o = Solver::default().count(&e, 3);
        assert_eq!(o.count, 3, "b={b}");
        assert!(o.first.unwrap().is_solution_of(&e));
    }
}

#[test]
fn solves_large_grids() {
    // 16x16 and 25x25 at the hardness peak of random-hole puzzles (about half blank), larger
    // sizes sparser; every answer is checked against the rules and the clues.
    for (b, blank) in [(4, 0.6), (5, 0.52), (6, 0.35), (7, 0.3), (8, 0.3)] {
        let mut rng = puzzle_rng(5, b as u64);
        let full = complete::random_complete(b, &mut rng);
        let cells = full.cells().len();
        let mut order: Vec<usize> = (0..cells).collect();
        order.shuffle(&mut rng);
        let mut p = full.clone();
        for &c in &order[..(cells as f64 * blank) as usize] {
            p.set(c, 0);
        }
        let mut solver = Solver::default();
        let o = solver.count(&p, 2);
        assert!(o.count >= 1 && !o.aborted, "b={b}: {o:?}");
        o.first.unwrap().verify_solution_of(&p).unwrap();
    }
}

#[test]
fn strong_propagation_and_lookahead_agree_with_the_default() {
    for i in 0..60u64 {
        let mut rng = puzzle_rng(11, i);
        let full = complete::random_complete(3, &mut rng);
        let mut order: Vec<usize> = (0..81).collect();
        order.shuffle(&mut rng);
        let mut p = full.clone();
        for &c in &order[..(40 + i as usize % 25)] {
            p.set(c, 0);
        }
        let reference = count_solutions(&p, 3);
        for branching in [Branching::Mrv, Branching::DomWdeg, Branching::Lookahead] {
            let mut s = Solver::new(Config {
                propagation: Propagation::Strong,
                branching,
                node_limit: None,
                restarts: Restarts::Off,
            });
            let o = s.count(&p, 3);
            assert_eq!(o.count, reference, "{branching:?} {}", p.to_line());
            if let Some(g) = o.first {
                assert!(g.is_solution_of(&p));
            }
        }
    }
}

#[test]
fn luby_sequence() {
    let l: Vec<u64> = (1..=15).map(luby).collect();
    assert_eq!(l, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
}

#[test]
fn restarts_keep_counts_exact() {
    // A tiny first budget forces the restart path; counts must not change.
    let tiny = Config {
        restarts: Restarts::Luby {
            first_budget: 1,
            base: 2,
            propagation: Propagation::Strong,
            branching: Branching::Lookahead,
        },
        ..Config::default()
    };
    for line in HARD {
        let p = grid(line);
        let mut s = Solver::new(tiny);
        let o = s.count(&p, 2);
        assert_eq!(o.count, 1, "{line}");
        assert!(!o.aborted);
        assert!(o.first.unwrap().is_solution_of(&p));
    }
    let empty = Grid::empty(3);
    let mut s = Solver::new(tiny);
    assert_eq!(s.count(&empty, 5).count, 5);
    assert_eq!(s.count(&grid(CLASSIC), 2).count, 1);
}

#[test]
fn exclusion_answers_uniqueness_of_a_removal() {
    let p = grid(CLASSIC);
    let sol = grid(CLASSIC_SOLUTION);
    let mut solver = Solver::default();
    // Every blank: forbidding its solution digit leaves no solution (the puzzle is unique).
    for c in (0..81).filter(|&c| p.get(c) == 0) {
        assert_eq!(
            solver.count_excluding(&p, 1, Some((c, sol.get(c)))).count,
            0
        );
    }
    // Removing a clue of a near-complete grid: still unique, so no other solution.
    let mut q = sol.clone();
    q.set(40, 0);
    assert_eq!(
        solver.count_excluding(&q, 1, Some((40, sol.get(40)))).count,
        0
    );
    assert_eq!(solver.count_excluding(&q, 1, None).count, 1);
}

#[test]
fn every_configuration_solves_and_counts_nodes() {
    let p = grid(CLASSIC);
    let mut nodes = Vec::new();
    for propagation in [
        Propagation::None,
        Propagation::NakedSingles,
        Propagation::Full,
    ] {
        for branching in [Branching::FirstBlank, Branching::Mrv] {
            let mut s = Solver::new(Config {
                propagation,
                branching,
                node_limit: None,
                restarts: Restarts::Off,
            });
            let o = s.count(&p, 2);
            assert_eq!(o.count, 1, "{propagation:?} {branching:?}");
            assert_eq!(o.first.unwrap().to_line(), CLASSIC_SOLUTION);
            assert!(s.stats().nodes >= 1);
            nodes.push(((propagation, branching), s.stats()));
        }
    }
    let plain = nodes[0].1;
    let full_mrv = nodes[5].1;
    assert!(
        plain.nodes > 10 * full_mrv.nodes,
        "backtracking {plain:?} vs propagation+MRV {full_mrv:?}"
    );
    assert_eq!(full_mrv.guesses, 0, "the classic puzzle needs no guess");
    assert_eq!(full_mrv.forced, 51);
    assert_eq!(plain.forced, 0);
}

#[test]
fn node_limit_aborts() {
    let p = grid(HARD[2]);
    let mut s = Solver::new(Config {
        propagation: Propagation::None,
        branching: Branching::FirstBlank,
        node_limit: Some(1000),
        restarts: Restarts::Off,
    });
    let o = s.count(&p, 1);
    assert!(o.aborted);
    assert_eq!(o.count, 0);
    assert_eq!(o.first, None);
}

#[test]
fn random_value_order_is_deterministic() {
    let e = Grid::empty(3);
    let a = Solver::default()
        .with_random_value_order(3)
        .solve(&e)
        .unwrap();
    let b = Solver::default()
        .with_random_value_order(3)
        .solve(&e)
        .unwrap();
    let c = Solver::default()
        .with_random_value_order(4)
        .solve(&e)
        .unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

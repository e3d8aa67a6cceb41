use super::search::Search;
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

/// Random 9x9 puzzle `i` of stream `seed`: a complete grid (`full`), a random cell order, and
/// the grid with the first `blanks` cells of that order blanked.
fn random_blanked(seed: u64, i: u64, blanks: usize) -> (Grid, Vec<usize>, Grid) {
    let mut rng = puzzle_rng(seed, i);
    let full = complete::random_complete(3, &mut rng);
    let mut order: Vec<usize> = (0..81).collect();
    order.shuffle(&mut rng);
    let mut p = full.clone();
    for &c in &order[..blanks] {
        p.set(c, 0);
    }
    (full, order, p)
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
        let (_, _, p) = random_blanked(99, i, 30 + i as usize % 35);
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
        let (_, _, p) = random_blanked(11, i, 40 + i as usize % 25);
        let reference = count_solutions(&p, 3);
        for branching in [Branching::Mrv, Branching::DomWdeg, Branching::Lookahead] {
            let mut s = Solver::new(Config {
                propagation: Propagation::Strong,
                branching,
                node_limit: None,
                time_limit: None,
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
                time_limit: None,
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
        time_limit: None,
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

/// The generic singles-only search on 9x9 with the given branching, bypassing the fast path.
fn generic(p: &Grid, branching: Branching, limit: usize) -> (usize, Vec<Vec<u8>>, Stats) {
    generic_with(p, Propagation::Full, branching, limit)
}

fn fast(p: &Grid, branching: Branching, limit: usize) -> (usize, Vec<Vec<u8>>, Stats) {
    let mut s = nine::Nine::new(branching, limit, limit, Default::default());
    s.run(p.cells(), None);
    (s.found, s.solutions, s.stats)
}

#[test]
fn nine_fast_path_visits_the_same_tree() {
    assert_same_trees(&tree_test_puzzles(21), generic, fast);
}

/// Pointing and claiming on a 3x3 intersection matrix (bit 3 * row + column), to a fixpoint:
/// a column (row) with one entry clears the rest of that entry's row (column). None when a
/// row or column is empty.
fn pointing_claiming(mut m: u16) -> Option<u16> {
    loop {
        let before = m;
        for k in 0..3 {
            let row = m >> (3 * k) & 7;
            let col = (0..3).fold(0, |a, r| a | (m >> (3 * r + k) & 1) << r);
            if row == 0 || col == 0 {
                return None;
            }
            if row.count_ones() == 1 {
                let c = row.trailing_zeros();
                m &= !(0o111 << c) | 1 << (3 * k + c);
            }
            if col.count_ones() == 1 {
                let r = col.trailing_zeros();
                m &= !(7 << (3 * r)) | 1 << (3 * r + k);
            }
        }
        if m == before {
            return Some(m);
        }
    }
}

#[test]
fn band_rule_is_pointing_and_claiming_to_a_fixpoint() {
    for m in 0..512u16 {
        let a = locked::ALLOWED[m as usize];
        assert_eq!(
            pointing_claiming(m),
            (a != 0).then_some(a),
            "matrix {m:09b}"
        );
    }
}

/// The generic search on 9x9 with the given settings, bypassing the fast paths.
fn generic_with(
    p: &Grid,
    propagation: Propagation,
    branching: Branching,
    limit: usize,
) -> (usize, Vec<Vec<u8>>, Stats) {
    let cfg = Config {
        propagation,
        branching,
        node_limit: None,
        time_limit: None,
        restarts: Restarts::Off,
    };
    let mut s = Search::new(p.geometry(), cfg, limit, limit, Default::default(), None);
    if s.load(p, None) && limit > 0 {
        s.dfs(0);
    }
    (s.found, s.solutions, s.stats)
}

fn fast_locked(p: &Grid, branching: Branching, limit: usize) -> (usize, Vec<Vec<u8>>, Stats) {
    let mut s = locked::Locked9::new(branching, limit, limit, Default::default());
    s.run(p.cells(), None);
    (s.found, s.solutions, s.stats)
}

/// Famous, classic, empty and 300 random 9x9 puzzles (unique, multiple, some with a wrong clue),
/// the random ones drawn from `seed`.
fn tree_test_puzzles(seed: u64) -> Vec<Grid> {
    let mut puzzles: Vec<Grid> = HARD.iter().map(|l| grid(l)).collect();
    puzzles.push(grid(CLASSIC));
    puzzles.push(Grid::empty(3));
    for i in 0..300u64 {
        let (full, order, mut p) = random_blanked(seed, i, 35 + i as usize % 40);
        if i % 7 == 0 {
            let c = order[0];
            if let Some(v) = (1..=9).find(|&v| {
                v != full.get(c) && {
                    let mut q = p.clone();
                    q.set(c, v);
                    q.is_consistent()
                }
            }) {
                p.set(c, v);
            }
        }
        puzzles.push(p);
    }
    puzzles
}

type Outcome = (usize, Vec<Vec<u8>>, Stats);

/// Both searches find the same solutions with the same nodes, guesses and dead ends, for both
/// branching rules and several solution limits.
fn assert_same_trees(
    puzzles: &[Grid],
    reference: impl Fn(&Grid, Branching, usize) -> Outcome,
    fast: impl Fn(&Grid, Branching, usize) -> Outcome,
) {
    for p in puzzles {
        for branching in [Branching::Mrv, Branching::MrvPlaces] {
            for limit in [1, 2, 5] {
                let (gf, gs, gst) = reference(p, branching, limit);
                let (ff, fs, fst) = fast(p, branching, limit);
                let what = format!("{branching:?} limit {limit} {}", p.to_line());
                assert_eq!(gf, ff, "{what}");
                assert_eq!(gs, fs, "{what}");
                assert_eq!(
                    (gst.nodes, gst.guesses, gst.dead_ends),
                    (fst.nodes, fst.guesses, fst.dead_ends),
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn locked_fast_path_visits_the_same_tree() {
    assert_same_trees(
        &tree_test_puzzles(22),
        |p, b, l| generic_with(p, Propagation::Locked, b, l),
        fast_locked,
    );
}

#[test]
fn auto_is_locked_on_9x9_and_full_elsewhere() {
    assert_eq!(Config::default().propagation, Propagation::Auto);
    assert_eq!(Propagation::Auto.resolve(3), Propagation::Locked);
    assert_eq!(Propagation::Auto.resolve(4), Propagation::Full);
    assert_eq!(Propagation::Strong.resolve(3), Propagation::Strong);
    let p = grid(HARD[0]);
    let stats = |propagation| {
        let mut s = Solver::new(Config {
            propagation,
            ..Config::default()
        });
        assert_eq!(s.count(&p, 2).count, 1);
        s.stats()
    };
    assert_eq!(stats(Propagation::Auto), stats(Propagation::Locked));
    assert_ne!(stats(Propagation::Auto), stats(Propagation::Full));
}

/// Every shipped 9x9 puzzle, and each with a consistent wrong clue added (mostly no solution):
/// the default solver (locked candidates) against the generic singles-only search and the
/// peer, for the count up to 2, the count up to 20 (many-solution puzzles of the paper sets)
/// and the solution.
#[test]
fn default_solver_agrees_on_every_shipped_9x9_puzzle() {
    let mut files = vec!["puzzles/classic.txt".to_string()];
    for t in ["easy", "medium", "hard", "evil"] {
        files.push(format!("puzzles/{t}.txt"));
        files.push(format!("puzzles/unique/{t}.txt"));
    }
    let (mut kinds, mut total) = ([0usize; 3], 0);
    for path in &files {
        let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
        let f = crate::puzzle::read_puzzles(&full, Some(9)).unwrap();
        for (k, p) in f.puzzles.iter().enumerate() {
            let mut variants = vec![p.grid.clone()];
            if let Some(s) = solve(&p.grid) {
                // A wrong clue that breaks no rule: the first blank, the first other value.
                let c = (0..81).find(|&c| p.grid.get(c) == 0).unwrap();
                let mut q = p.grid.clone();
                if let Some(v) = (1..=9).find(|&v| {
                    v != s.get(c) && {
                        q.set(c, v);
                        q.is_consistent()
                    }
                }) {
                    q.set(c, v);
                    variants.push(q);
                }
            }
            for g in &variants {
                let what = format!("{path}:{} {}", k + 1, g.to_line());
                let mut default = Solver::default();
                let o = default.count(g, 2);
                let (gf, gs, _) = generic_with(g, Propagation::Full, Branching::Mrv, 2);
                assert_eq!(o.count, gf, "{what}");
                assert_eq!(o.count, peer_solutions(g, 2).len(), "{what}");
                match o.count {
                    0 => assert_eq!(o.first, None, "{what}"),
                    1 => assert_eq!(o.first.as_ref().unwrap().cells(), &gs[0][..], "{what}"),
                    _ => {}
                }
                if let Some(s) = &o.first {
                    s.verify_solution_of(g).unwrap();
                }
                let many = default.count(g, 20).count;
                assert_eq!(
                    many,
                    generic_with(g, Propagation::Full, Branching::Mrv, 20).0,
                    "{what}"
                );
                kinds[o.count] += 1;
                total += 1;
            }
        }
    }
    // The files hold all three kinds, and puzzles with many solutions.
    assert!(kinds.iter().all(|&k| k > 50), "{kinds:?} of {total}");
}

/// The generic Locked search on 4x4 … 25x25: the same counts (up to 3) as singles-only search,
/// and solutions that check.
#[test]
fn locked_propagation_on_other_sizes() {
    let mut seen = [0usize; 4];
    for (b, blank, count) in [(2, 0.7, 40), (4, 0.55, 12), (5, 0.45, 2)] {
        for i in 0..count {
            let mut rng = puzzle_rng(31, 100 * b as u64 + i);
            let full = complete::random_complete(b, &mut rng);
            let cells = full.cells().len();
            let mut order: Vec<usize> = (0..cells).collect();
            order.shuffle(&mut rng);
            let mut p = full.clone();
            for &c in &order[..(cells as f64 * blank) as usize] {
                p.set(c, 0);
            }
            let run = |propagation| {
                let mut s = Solver::new(Config {
                    propagation,
                    branching: Branching::Mrv,
                    node_limit: None,
                    time_limit: None,
                    restarts: Restarts::Off,
                });
                let o = s.count(&p, 3);
                if let Some(g) = &o.first {
                    g.verify_solution_of(&p).unwrap();
                }
                o.count
            };
            let full_count = run(Propagation::Full);
            assert_eq!(
                run(Propagation::Locked),
                full_count,
                "b={b} {}",
                p.to_line()
            );
            seen[full_count] += 1;
        }
    }
    assert!(seen[1] > 0 && seen[3] > 0, "unique and multiple: {seen:?}");
}

#[test]
fn time_limit_aborts_at_the_next_look_at_the_clock() {
    // Plain backtracking needs more than 1,024 nodes here; the clock is read every 1,024.
    let p = grid(HARD[2]);
    let mut s = Solver::new(Config {
        propagation: Propagation::None,
        branching: Branching::FirstBlank,
        node_limit: None,
        time_limit: Some(std::time::Duration::ZERO),
        restarts: Restarts::Off,
    });
    let o = s.count(&p, 1);
    assert!(o.aborted && o.first.is_none(), "{o:?}");
    assert_eq!(s.stats().nodes, 1024);
    // Through the restart driver and on the 9x9 fast path too.
    let mut s = Solver::new(Config {
        time_limit: Some(std::time::Duration::ZERO),
        ..Config::default()
    });
    let o = s.count(&Grid::empty(6), 2);
    assert!(o.aborted, "{o:?}");
    assert_eq!(s.classify(&Grid::empty(6)), None);
    let mut s = Solver::new(Config {
        propagation: Propagation::None,
        branching: Branching::Mrv,
        time_limit: Some(std::time::Duration::ZERO),
        restarts: Restarts::Off,
        ..Config::default()
    });
    assert!(s.count(&p, 1).aborted);
}

#[test]
fn classify_with_limits_answers_or_says_it_gave_up() {
    let mut s = Solver::new(Config {
        node_limit: Some(10),
        ..Config::default()
    });
    assert_eq!(s.classify(&Grid::empty(5)), None);
    assert!(s.stats().nodes <= 11, "{:?}", s.stats());
    // Within the limit the answer is the unlimited one.
    let p = grid(CLASSIC);
    assert_eq!(s.classify(&p), Some(classify(&p)));
}

#[test]
fn node_counter_sees_the_nodes_searched() {
    let counter = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut s = Solver::new(Config {
        propagation: Propagation::None,
        branching: Branching::FirstBlank,
        node_limit: Some(5000),
        time_limit: None,
        restarts: Restarts::Off,
    })
    .with_node_counter(counter.clone());
    assert!(s.count(&grid(HARD[2]), 1).aborted);
    let seen = counter.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(seen, 4 * 1024, "counted in steps of 1,024 nodes");
}

#[test]
fn empty_64x64_is_filled_by_the_first_search() {
    // Its first search needs about 4,700 nodes: the first budget (two nodes per blank cell
    // here) must cover it, or the slow lookahead stages run (they took 38-53 s).
    let e = Grid::empty(8);
    let mut s = Solver::default();
    let o = s.count(&e, 2);
    assert_eq!(o.count, 2);
    assert_eq!(s.stats().restarts, 0, "{:?}", s.stats());
    o.first.unwrap().verify_solution_of(&e).unwrap();
}

#[test]
fn logic_places_what_singles_cannot_and_only_the_solution() {
    // puzzles/unique/hard.txt's first puzzle needs more than singles (rated hard).
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/puzzles/unique/hard.txt"
    ))
    .unwrap();
    let mut more = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')).take(10) {
        let p = crate::puzzle::parse_str(line.split_whitespace().next().unwrap(), None)
            .unwrap()
            .remove(0)
            .grid;
        let solution = solve(&p).unwrap();
        let singles = place_singles(&p).unwrap();
        let logic = place_by_logic(&p).unwrap();
        let filled = |g: &Grid| g.cells().iter().filter(|&&v| v != 0).count();
        // The masks keep every solution digit and are a single bit where logic places; ILCA
        // takes them from the placed puzzle, whose propagation may end elsewhere (the subset
        // rules see other open cells), so both are checked.
        let masks = logic_candidates(&p).unwrap();
        for (c, &m) in masks.iter().enumerate() {
            assert_ne!(m >> (solution.get(c) - 1) & 1, 0, "cell {c} lost its digit");
            assert_eq!(m.count_ones() == 1, logic.get(c) != 0, "cell {c}");
        }
        for (c, m) in logic_candidates(&logic).unwrap().into_iter().enumerate() {
            assert_ne!(
                m >> (solution.get(c) - 1) & 1,
                0,
                "placed: cell {c} lost its digit"
            );
        }
        for c in 0..p.geometry().cells {
            if logic.get(c) != 0 {
                assert_eq!(
                    logic.get(c),
                    solution.get(c),
                    "a placement off the solution"
                );
            }
            if singles.get(c) != 0 {
                assert_eq!(logic.get(c), singles.get(c), "logic keeps every single");
            }
        }
        more += usize::from(filled(&logic) > filled(&singles));
    }
    assert!(
        more > 0,
        "locked candidates and subsets place more than singles"
    );
}

#[test]
fn probes_remove_only_numerals_off_the_solution_and_score_the_rest() {
    // puzzles/unique/evil.txt: logic leaves every one open, probes settle most of them.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/puzzles/unique/evil.txt"
    ))
    .unwrap();
    let mut removed = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')).take(10) {
        let p = parse_str(line.split_whitespace().next().unwrap(), None)
            .unwrap()
            .remove(0)
            .grid;
        let solution = solve(&p).unwrap();
        let mut mask = logic_candidates(&p).unwrap();
        let before: u32 = mask.iter().map(|m| m.count_ones()).sum();
        match probe(p.geometry(), &mut mask).unwrap() {
            Probe::Removed => {
                let after: u32 = mask.iter().map(|m| m.count_ones()).sum();
                assert!(after < before);
                removed += 1;
            }
            Probe::Best(cell) => {
                let cell = cell.expect("an open evil puzzle has a two-candidate cell");
                assert_eq!(mask[cell].count_ones(), 2);
            }
        }
        for (c, &m) in mask.iter().enumerate() {
            assert_ne!(m >> (solution.get(c) - 1) & 1, 0, "cell {c} lost its digit");
        }
    }
    assert!(removed > 0, "no probe failed on 10 evil puzzles");
}

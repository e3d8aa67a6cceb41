use super::cpu::{generation, readoff, State};

/// Every puzzle on the CPU reference.
fn run_cpu(puzzles: &[Grid], params: &RfssParams) -> anyhow::Result<Vec<RfssOutcome>> {
    cpu::run(puzzles, params, &|_| {})
}
use super::*;
use crate::generate::pattern_puzzle as puzzle;
use crate::puzzle::{parse_str, CLASSIC};

/// Norvig's "hard1" (top95 #1): plain RFSS stalls on it.
pub(crate) const HARD: &str =
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

/// The first puzzle of `puzzles/unique/hard.txt` (the rater's hard tier: its hardest step is an
/// XY-wing, and pairs and locked candidates come before it).
const RATED_HARD: &str =
    "8.3...6..427.......9.78...3...6.7.5...9.....1.6..2...7..6.3.........2..9..8..1.4.";

pub(crate) fn grid(s: &str) -> Grid {
    parse_str(s, None).unwrap().remove(0).grid
}

fn params(max: u32, stable: u32) -> RfssParams {
    RfssParams {
        max_generations: max,
        stable_generations: stable,
        ..Default::default()
    }
}

// ---------- species and resources ----------

#[test]
fn species_and_resources_of_the_classic() {
    let p = Problem::build(&grid(CLASSIC)).unwrap();
    assert_eq!(p.n_blank(), 51);
    // 51 blanks: 51 cell resources and 51 of each other kind (each row lacks as many numerals
    // as it has blanks).
    assert_eq!(p.n_res, 4 * 51);
    assert_eq!(p.n_species(), 153);
    for (x, rs) in p.res.iter().enumerate() {
        assert_eq!(
            rs[0] as usize,
            p.blank
                .iter()
                .position(|&c| c == p.species[x].cell)
                .unwrap()
        );
        for &r in rs {
            assert!(p.covering(r as usize).contains(&(x as u32)));
        }
    }
    for r in 0..p.n_res {
        assert!(p.covering(r).windows(2).all(|w| w[0] < w[1]));
        assert!(!p.covering(r).is_empty());
    }
    // No species repeats a clue among its peers.
    let g = grid(CLASSIC);
    for s in &p.species {
        for &q in g.geometry().peers_of(s.cell as usize) {
            assert_ne!(g.get(q as usize), s.numeral);
        }
    }
}

#[test]
fn unsolvable_puzzles_are_reported_up_front() {
    // r1c9 sees 1..8 in its row and 9 in its column: no candidate.
    let mut s = String::from("12345678.");
    s.push_str("........9");
    s.push_str(&".".repeat(63));
    let o = run_cpu(&[grid(&s)], &params(100, 1)).unwrap().remove(0);
    match &o.status {
        Status::Unsolvable(r) => assert!(r.contains("r1c9 has no candidate"), "{r}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(o.generations, 0);
    assert!(!o.to_instance_result(0).solved);
    // Repeated clues.
    let mut dup = vec![0u8; 81];
    dup[0] = 1;
    dup[1] = 1;
    let dup = Grid::from_cells(3, dup).unwrap();
    let o = run_cpu(&[dup], &params(100, 1)).unwrap().remove(0);
    assert!(matches!(&o.status, Status::Unsolvable(r) if r.contains("clues repeat")));
    // Numeral 1 has no place in row 1: r1c9 holds 2 and each of columns 1..8 holds a 1 further
    // down (rows, columns and boxes all distinct).
    let mut cells = vec![0u8; 81];
    cells[8] = 2;
    for (r, c) in [
        (1, 0),
        (3, 1),
        (6, 2),
        (2, 3),
        (4, 4),
        (7, 5),
        (5, 6),
        (8, 7),
    ] {
        cells[r * 9 + c] = 1;
    }
    let g = Grid::from_cells(3, cells).unwrap();
    assert!(g.is_consistent());
    let o = run_cpu(&[g], &params(100, 1)).unwrap().remove(0);
    assert!(
        matches!(&o.status, Status::Unsolvable(r) if r.contains("numeral 1 has no place left in row 1")),
        "{:?}",
        o.status
    );
}

#[test]
fn bad_parameters_are_clear_errors() {
    let g = vec![grid(CLASSIC)];
    let e = run_cpu(&g, &params(0, 1)).unwrap_err().to_string();
    assert_eq!(e, "max_generations: must be at least 1 (got 0)");
    let e = run_cpu(&g, &params(10, 0)).unwrap_err().to_string();
    assert!(e.starts_with("stable_generations: "), "{e}");
    let mut p = params(10, 1);
    p.underflow_log2 = 121;
    assert!(run_cpu(&g, &p)
        .unwrap_err()
        .to_string()
        .contains("10..=120"));
    p.underflow_log2 = 100;
    p.stall_generations = 0;
    assert!(run_cpu(&g, &p)
        .unwrap_err()
        .to_string()
        .starts_with("stall_generations: "));
    assert_eq!(params(1, 1).threshold(), 2f32.powi(-100));
}

// ---------- the niche count: per-resource loads = pairwise formula ----------

/// The paper's pairwise overlap f(x,y) = |R(x) ∩ R(y)| / 4.
fn overlap(p: &Problem, x: usize, y: usize) -> f64 {
    let n = p.res[x].iter().filter(|r| p.res[y].contains(r)).count();
    n as f64 / 4.0
}

fn niche_pairwise(p: &Problem, prop: &[f64]) -> Vec<f64> {
    (0..p.n_species())
        .map(|x| (0..p.n_species()).map(|y| prop[y] * overlap(p, x, y)).sum())
        .collect()
}

fn niche_by_loads(p: &Problem, prop: &[f64]) -> Vec<f64> {
    let load: Vec<f64> = (0..p.n_res)
        .map(|r| p.covering(r).iter().map(|&x| prop[x as usize]).sum())
        .collect();
    p.res
        .iter()
        .map(|rs| 0.25 * rs.iter().map(|&r| load[r as usize]).sum::<f64>())
        .collect()
}

#[test]
fn niche_from_loads_equals_the_pairwise_formula() {
    for g in [grid(CLASSIC), puzzle(2, 3, 0.6), puzzle(3, 7, 0.55)] {
        let p = Problem::build(&g).unwrap();
        // Dyadic proportions with few bits: every sum is exact in f64, so equality is exact.
        let prop: Vec<f64> = (0..p.n_species())
            .map(|x| ((x * 7919) % 1000 + 1) as f64 / 1024.0)
            .collect();
        assert_eq!(niche_pairwise(&p, &prop), niche_by_loads(&p, &prop));
        // f(x,x) = 1 and the overlap is symmetric.
        for x in 0..p.n_species() {
            assert_eq!(overlap(&p, x, x), 1.0);
            assert_eq!(
                overlap(&p, x, (x + 5) % p.n_species()),
                overlap(&p, (x + 5) % p.n_species(), x)
            );
        }
    }
}

/// The whole update in f64 with the pairwise niche count: the paper's formulas read directly.
fn pairwise_generation(p: &Problem, prop: &[f64]) -> Vec<f64> {
    let m = niche_pairwise(p, prop);
    let fsh: Vec<f64> = m.iter().map(|v| 1.0 / v).collect();
    let z: f64 = prop.iter().zip(&fsh).map(|(a, b)| a * b).sum();
    prop.iter().zip(&fsh).map(|(a, b)| a * b / z).collect()
}

#[test]
fn f32_generations_follow_the_pairwise_f64_formula() {
    let p = Problem::build(&grid(CLASSIC)).unwrap();
    let par = params(1000, 1);
    let mut q32 = p.initial_proportions();
    let mut q64: Vec<f64> = vec![1.0 / p.n_species() as f64; p.n_species()];
    let (mut load, mut w) = (vec![0.0; p.n_res], vec![0.0; p.n_species()]);
    let mut worst = 0f64;
    for _ in 0..60 {
        generation(&p, &mut q32, &mut load, &mut w, &par);
        q64 = pairwise_generation(&p, &q64);
        for (a, b) in q32.iter().zip(&q64) {
            worst = worst.max((*a as f64 - b).abs() / b);
        }
    }
    // f32 rounding only (about 1e-7 per operation, a few hundred operations deep).
    assert!(worst < 2e-4, "relative deviation {worst:e}");
    let s: f32 = q32.iter().sum();
    assert!((s - 1.0).abs() < 1e-5);
}

// ---------- read-off and stop rule ----------

#[test]
fn classic_is_solved_and_the_stop_rule_counts_stable_generations() {
    let g = grid(CLASSIC);
    let o1 = run_cpu(std::slice::from_ref(&g), &params(5000, 1))
        .unwrap()
        .remove(0);
    assert!(o1.solved());
    let at = o1.solved_at.unwrap();
    assert_eq!(
        o1.generations, at,
        "stable 1 stops at the first valid read-off"
    );
    let o50 = run_cpu(std::slice::from_ref(&g), &params(5000, 50))
        .unwrap()
        .remove(0);
    assert_eq!(o50.solved_at, Some(at));
    assert_eq!(o50.generations, at + 49);
    assert_eq!(o50.grid, o1.grid);
    assert!(grid(&o1.grid).is_solution_of(&g));
    let r = o50.to_instance_result(3);
    assert_eq!((r.puzzle, r.run, r.solved, r.steps), (3, 0, true, at));
    // Too few generations: unsolved, steps = the limit.
    let short = run_cpu(&[g], &params(at - 1, 1)).unwrap().remove(0);
    assert_eq!(short.status, Status::Unsolved);
    assert_eq!(short.to_instance_result(0).steps, at - 1);
    assert!(short.conflicts > 0);
}

/// The conflicts by the definition: Σ over non-cell resources of max(0, chosen covering − 1).
fn conflicts_by_definition(p: &Problem, argmax: &[u32]) -> u32 {
    (p.n_blank()..p.n_res)
        .map(|r| {
            let chosen = p
                .covering(r)
                .iter()
                .filter(|&&x| argmax[p.res[x as usize][0] as usize] == x);
            (chosen.count() as u32).saturating_sub(1)
        })
        .sum()
}

#[test]
fn tallied_conflicts_equal_the_definition() {
    // Read-offs drawn at random, one species per blank cell, on 9x9 to 64x64 (a tally near
    // its byte's limit: an empty 64x64 lets every cell of a unit choose the same numeral).
    use rand::{RngExt, SeedableRng};
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(36);
    for (b, blank) in [(3, 0.6), (4, 0.5), (5, 0.55), (7, 0.4), (8, 1.0)] {
        let g = if blank == 1.0 {
            Grid::empty(b)
        } else {
            puzzle(b, 3, blank)
        };
        let p = Problem::build(&g).unwrap();
        for round in 0..20 {
            let argmax: Vec<u32> = (0..p.n_blank())
                .map(|i| {
                    let list = p.covering(i);
                    // Round 0 takes each cell's first species (numeral 1 everywhere on the
                    // empty grid: 64 per row, column and box).
                    list[if round == 0 {
                        0
                    } else {
                        rng.random_range(0..list.len())
                    }]
                })
                .collect();
            assert_eq!(
                cpu::tally(&p, &argmax),
                conflicts_by_definition(&p, &argmax),
                "{b} {round}"
            );
        }
    }
}

#[test]
fn valid_readoff_of_an_upper_group_matches_the_paper() {
    // Once solved, the n_blank species of highest proportion (the paper's upper group) are
    // exactly the read-off.
    let g = grid(CLASSIC);
    let par = params(5000, 200);
    let prob = Problem::build(&g).unwrap();
    let mut e = State::new(prob, &par);
    while !e.st.done {
        e.step(&par);
    }
    let mut idx: Vec<usize> = (0..e.p.len()).collect();
    idx.sort_by(|&a, &b| e.p[b].total_cmp(&e.p[a]).then(a.cmp(&b)));
    let mut upper: Vec<u32> = idx[..e.prob.n_blank()].iter().map(|&x| x as u32).collect();
    upper.sort_unstable();
    let mut chosen = e.argmax.clone();
    chosen.sort_unstable();
    assert_eq!(upper, chosen);
    assert_eq!(readoff(&e.prob, &e.p, &mut e.argmax.clone()).0, 0);
}

#[test]
fn plain_rfss_solves_most_easy_generated_puzzles() {
    // Pattern-based grids with 45% blanks often have several solutions; fitness sharing can then
    // settle on a mixture of them (a fractional cover). Measured: 5 of these 6 are solved.
    let ps: Vec<Grid> = (0..6).map(|s| puzzle(3, s, 0.45)).collect();
    let out = run_cpu(&ps, &params(20_000, 10)).unwrap();
    for (o, g) in out.iter().zip(&ps) {
        if o.solved() {
            assert!(grid(&o.grid).is_solution_of(g));
        } else {
            assert!(o.conflicts > 0 && o.generations == 20_000);
        }
    }
    assert_eq!(out.iter().filter(|o| o.solved()).count(), 5);
}

#[test]
fn hard_puzzle_stalls_plain_but_the_enhancement_solves_it() {
    let g = grid(HARD);
    let plain = run_cpu(std::slice::from_ref(&g), &params(4000, 10))
        .unwrap()
        .remove(0);
    assert_eq!(plain.status, Status::Unsolved);
    let mut p = params(60_000, 10);
    p.enhancement = Enhancement::Propagate;
    p.stall_generations = 300;
    let o = run_cpu(std::slice::from_ref(&g), &p).unwrap().remove(0);
    assert!(o.solved(), "{o:?}");
    assert!(o.restarts >= 1);
    assert!(grid(&o.grid).is_solution_of(&g));
}

#[test]
fn mrv_enhancement_decides_on_the_smallest_cell_by_rfss_order() {
    let g = grid(HARD);
    let mut p = params(60_000, 10);
    p.enhancement = Enhancement::Mrv;
    p.stall_generations = 100;
    let o = run_cpu(std::slice::from_ref(&g), &p).unwrap().remove(0);
    assert!(o.solved(), "{o:?}");
    assert!(o.restarts >= 1);
    assert!(grid(&o.grid).is_solution_of(&g));
    // The pick: fewest species first, then the larger share of the favourite.
    let (prob, _) = super::enhance::prepare(&g, &p).unwrap();
    let mut prop = prob.initial_proportions();
    let min = (0..prob.n_blank())
        .map(|i| prob.covering(i).len())
        .min()
        .unwrap();
    let small: Vec<usize> = (0..prob.n_blank())
        .filter(|&i| prob.covering(i).len() == min)
        .collect();
    // Equal proportions: every smallest cell ties, the first wins, its lowest species.
    let x = super::enhance::pick_mrv(&prob, &prop);
    assert_eq!(x, prob.covering(small[0])[0]);
    // Make the second smallest cell's last species dominant: it wins.
    if small.len() > 1 {
        let y = *prob.covering(small[1]).last().unwrap();
        prop[y as usize] *= 4.0;
        assert_eq!(super::enhance::pick_mrv(&prob, &prop), y);
    }
}

#[test]
fn logic_enhancement_builds_fewer_species_and_solves() {
    // A rated-hard puzzle (puzzles/unique/hard.txt, its first): singles leave candidates that
    // locked candidates and subsets remove.
    let g = grid(RATED_HARD);
    let with = |e| {
        let mut p = params(60_000, 10);
        p.enhancement = e;
        p.stall_generations = 50;
        p
    };
    let (mrv, _) = super::enhance::prepare(&g, &with(Enhancement::Mrv)).unwrap();
    let (logic, _) = super::enhance::prepare(&g, &with(Enhancement::Logic)).unwrap();
    assert!(
        logic.species.len() < mrv.species.len(),
        "{} species with logic, {} with singles",
        logic.species.len(),
        mrv.species.len()
    );
    // Every species logic keeps is one singles keep too, and the solution's are all kept.
    let solution = crate::exact::solve(&g).unwrap();
    for s in &logic.species {
        assert!(mrv.species.contains(s), "{s:?}");
    }
    for &cell in &logic.blank {
        let numeral = solution.get(cell as usize);
        assert!(logic.species.contains(&Species { cell, numeral }));
    }
    for g in [g, grid(HARD)] {
        let o = run_cpu(std::slice::from_ref(&g), &with(Enhancement::Logic))
            .unwrap()
            .remove(0);
        assert!(o.solved(), "{o:?}");
        assert!(grid(&o.grid).is_solution_of(&g));
    }
}

/// `puzzles/unique/evil.txt` #24: logic and probes leave cells open, so RFSS with
/// `--enhance lookahead` has decisions to take.
const EVIL_24: &str =
    ".2..6.9....4..756..7.1....3.3........96.34...1........2.......7.4..9.61....8...5.";

#[test]
fn lookahead_enhancement_removes_numerals_whose_probe_fails_and_solves() {
    let with = |e| {
        let mut p = params(60_000, 10);
        p.enhancement = e;
        p.stall_generations = 50;
        p
    };
    let mut fewer = false;
    for g in [grid(EVIL_24), puzzle(4, 7, 0.55)] {
        let (logic, _) = super::enhance::prepare(&g, &with(Enhancement::Logic)).unwrap();
        let (look, _) = super::enhance::prepare(&g, &with(Enhancement::Lookahead)).unwrap();
        // Probes only remove: every species kept is one logic keeps, the solution's among them.
        for s in &look.species {
            assert!(logic.species.contains(s), "{s:?}");
        }
        let solution = crate::exact::solve(&g).unwrap();
        for &cell in &look.blank {
            let numeral = solution.get(cell as usize);
            assert!(look.species.contains(&Species { cell, numeral }));
        }
        fewer |= look.species.len() < logic.species.len();
        let o = run_cpu(std::slice::from_ref(&g), &with(Enhancement::Lookahead))
            .unwrap()
            .remove(0);
        assert!(o.solved(), "{o:?}");
        assert!(o.restarts > 0, "solved without a decision: {o:?}");
        assert!(grid(&o.grid).is_solution_of(&g));
    }
    assert!(fewer, "no probe failed on any of the puzzles");
}

#[test]
fn lookahead_decides_on_the_probed_cell_not_the_mrv_one() {
    let mut p = params(60_000, 10);
    p.enhancement = Enhancement::Lookahead;
    p.stall_generations = 50;
    let mut differ = 0;
    for g in [grid(EVIL_24), puzzle(4, 7, 0.55), puzzle(4, 8, 0.55)] {
        let (prob, search) = super::enhance::prepare(&g, &p).unwrap();
        let mut search = search.unwrap();
        let Some(cell) = search.probed_cell() else {
            continue; // no two-candidate cell: decided as `mrv` does
        };
        // Equal proportions: `mrv` would take the lowest cell with the fewest species.
        let prop = prob.initial_proportions();
        let mrv = prob.species[super::enhance::pick_mrv(&prob, &prop) as usize].cell;
        differ += usize::from(mrv != cell);
        search.on_stall(&prob, &prop, &[]).unwrap();
        let (decided, numeral, commit) = search.last_decision().unwrap();
        assert_eq!(decided, cell);
        assert!(commit);
        let i = prob.blank.binary_search(&cell).unwrap();
        let first = prob.covering(i)[0];
        assert_eq!(
            numeral, prob.species[first as usize].numeral,
            "ties: the lowest species"
        );
    }
    // The probes choose another cell than `mrv` somewhere, so the test tells the rules apart.
    assert!(
        differ > 0,
        "the probed cell was the mrv cell on every puzzle"
    );
}

/// `puzzles/evil.txt` #97 (paper model, 10 clues): with lookahead and a stall of 3, two of its
/// nodes keep changing their read-off past the node cap (tests/agree_rfss.rs runs it on the GPU).
const CYCLING: &str =
    "......2..........8..............6........3.............1.....2.9........8....7...";

#[test]
fn lookahead_decides_on_a_node_whose_read_off_keeps_changing() {
    let mut p = params(5000, 5);
    p.enhancement = Enhancement::Lookahead;
    p.stall_generations = 3;
    let cap = super::enhance::node_cap(&p);
    assert_eq!(cap, 3 * super::enhance::NODE_PATIENCE);
    let changing = Readoff {
        generation: cap,
        conflicts: 4,
        unchanged: 0,
        ..Readoff::default()
    };
    assert!(super::enhance::stalled(&changing, &p));
    let early = Readoff {
        generation: cap - 1,
        ..changing
    };
    assert!(!super::enhance::stalled(&early, &p));
    let mut logic = p.clone();
    logic.enhancement = Enhancement::Logic;
    assert_eq!(super::enhance::node_cap(&logic), 0);
    assert!(!super::enhance::stalled(&changing, &logic));
    // The run of cpu::run_one, counting the decisions the cap forced.
    let g = grid(CYCLING);
    let (prob, mut search) = super::enhance::prepare(&g, &p).unwrap();
    let mut sub = p.clone();
    let mut eng = State::new(prob, &sub);
    let (mut offset, mut capped) = (0, 0);
    while !eng.st.done {
        if eng.stalled(&sub) {
            capped += (eng.st.unchanged < p.stall_generations) as u32;
            offset += eng.st.generation;
            let next = search
                .as_mut()
                .unwrap()
                .on_stall(&eng.prob, &eng.p, &eng.argmax);
            sub.max_generations = p.max_generations - offset;
            eng = State::new(next.unwrap(), &sub);
            continue;
        }
        eng.step(&sub);
    }
    assert!(capped > 0, "no node reached the cap");
    let o = run_cpu(std::slice::from_ref(&g), &p).unwrap().remove(0);
    assert!(o.solved(), "{o:?}");
    assert_eq!(o.generations, offset + eng.st.generation);
}

#[test]
fn enhancement_proves_a_puzzle_without_solution_unsolvable() {
    // Consistent clues, every cell has a candidate, yet no solution: two cells of row 1 can
    // only hold 9 (the other row-1 numerals are blocked by their columns).
    let mut cells = vec![0u8; 81];
    // Row 1: r1c1..r1c7 hold 1..7; r1c8 and r1c9 blank.
    for (c, v) in cells.iter_mut().take(7).enumerate() {
        *v = c as u8 + 1;
    }
    // 8 appears in columns 8 and 9 further down (different boxes).
    cells[4 * 9 + 7] = 8;
    cells[8 * 9 + 8] = 8;
    let g = Grid::from_cells(3, cells).unwrap();
    assert!(g.is_consistent());
    for e in [
        Enhancement::Propagate,
        Enhancement::Mrv,
        Enhancement::Logic,
        Enhancement::Lookahead,
    ] {
        let mut p = params(10_000, 5);
        p.enhancement = e;
        let o = run_cpu(std::slice::from_ref(&g), &p).unwrap().remove(0);
        assert!(matches!(o.status, Status::Unsolvable(_)), "{o:?}");
    }
}

// ---------- trace ----------

#[test]
fn trace_records_the_history_and_writes_csv() {
    let g = grid(CLASSIC);
    let t = trace(&g, &params(5000, 1), 25).unwrap();
    assert!(t.outcome.solved());
    let last = *t.generations.last().unwrap();
    assert_eq!(last, t.outcome.generations);
    assert_eq!(t.generations[..3], [0, 25, 50]);
    assert_eq!(t.proportions.len(), t.generations.len());
    assert_eq!(*t.conflicts.last().unwrap(), 0);
    let mut buf = Vec::new();
    write_trace_csv(&t, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let mut lines = text.lines();
    let head = lines.next().unwrap();
    assert!(head.starts_with("generation,conflicts,n1r1c3,"), "{head}");
    assert_eq!(head.split(',').count(), 2 + t.species.len());
    let first: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(first[0], "0");
    assert_eq!(first[2].parse::<f32>().unwrap(), 1.0 / 153.0);
    assert_eq!(text.lines().count(), 1 + t.generations.len());
    assert!(trace(&g, &params(10, 1), 0).is_err());
}

#[test]
fn loop_pass_bound_covers_the_count_measured_on_lavapipe() {
    // Measured on lavapipe (Mesa 22.3, 8-lane groups) for this instance: 40 loop passes per
    // generation for the busiest group (one uncapped dispatch keeps bit equality for 1,638
    // generations and loses it at 1,639: 1,639·40 = 65,560; with 39 passes it kept it to
    // generation 1,679, and 30,001 extra passes at the start moved that cut to 911). Before
    // selection and the read-off became one pass (2026-11-29): 67, cut at generation 979, and
    // at 531 after 30,001 extra passes at the start (978·67 < 65,535 ≤ 979·67,
    // (65,535 − 30,001)/67 = 530.4).
    let prob = Problem::build(&puzzle(4, 5, 0.5)).unwrap();
    let b = gpu::loop_passes_per_generation(&prob);
    assert!(b >= 40, "{b}");
    // Dispatches as long as the bound allows (before the cap of 1,000) stop short of the cut.
    let g = crate::gpu::rounds_within_loop_budget(b, 1);
    assert!(g * b < crate::gpu::LOOP_PASS_BUDGET && g < 1639, "{g}");
    // The largest puzzles still fit at least one generation into a dispatch: an empty 49x49 has
    // every placement as a species.
    let big = Problem::build(&Grid::empty(7)).unwrap();
    let b = gpu::loop_passes_per_generation(&big);
    assert!(gpu::max_gens_per_dispatch(b).unwrap() >= 1, "{b}");
    assert!(gpu::max_gens_per_dispatch(crate::gpu::LOOP_PASS_BUDGET).is_err());
}

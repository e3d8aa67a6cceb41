//! The GPU RFSS kernel against the CPU reference, bit for bit: outcomes, final proportions, and
//! proportions, shares and loads at every dispatch boundary, for plain RFSS, both underflow
//! policies and the enhancements, on 4x4, 9x9, 16x16, 25x25 and 64x64. Runs on whatever
//! adapter exists (lavapipe in CI); without one it says SKIPPED, and fails if
//! GPU_SUDOKU_REQUIRE_GPU=1.

mod common;
use common::{grid, pattern_puzzle as puzzle, CLASSIC, CYCLING, HARD};
use gpu_sudoku::puzzle::Grid;
use gpu_sudoku::rfss::cpu::{self, generation, State};
use gpu_sudoku::rfss::{gpu, Enhancement, Problem, RfssOutcome, RfssParams, Status, Underflow};

fn params(max: u32, stable: u32) -> RfssParams {
    RfssParams {
        max_generations: max,
        stable_generations: stable,
        ..Default::default()
    }
}

fn assert_gpu_matches_cpu(ps: &[Grid], par: &RfssParams) {
    assert_gpu_matches_cpu_split(ps, par, None);
}

/// `split`: generations per submission (None: adapted to the submission time, as in the CLI).
fn assert_gpu_matches_cpu_split(ps: &[Grid], par: &RfssParams, split: Option<u32>) {
    let Some(gpu) = common::gpu() else {
        return;
    };
    // Both homes of an instance's arrays: workgroup memory and the storage buffers.
    for workgroup_arrays in [true, false] {
        let opts = gpu::GpuOptions {
            gens_per_submit: split,
            workgroup_arrays,
            ..Default::default()
        };
        let g = gpu::run_keeping_proportions(gpu, ps, par, &opts, &|_| {}).unwrap();
        check_against_cpu(ps, par, &g);
    }
}

fn check_against_cpu(ps: &[Grid], par: &RfssParams, g: &[(RfssOutcome, Vec<f32>)]) {
    for (i, (pz, (go, gp))) in ps.iter().zip(g).enumerate() {
        let co = cpu::run_one(pz, par).unwrap();
        assert_eq!(&co, go, "puzzle {i}: outcome differs");
        // Final proportions, bit for bit: rerun the CPU engine on the final problem.
        if par.enhancement == Enhancement::Off && !matches!(co.status, Status::Unsolvable(_)) {
            let mut e = State::new(Problem::build(pz).unwrap(), par);
            while !e.st.done {
                e.step(par);
            }
            let a: Vec<u32> = e.p.iter().map(|v| v.to_bits()).collect();
            let b: Vec<u32> = gp.iter().map(|v| v.to_bits()).collect();
            assert_eq!(a, b, "puzzle {i}: proportions differ");
        }
    }
}

#[test]
fn gpu_equals_cpu_on_9x9_puzzles() {
    let mut ps = vec![grid(CLASSIC), grid(HARD)];
    ps.extend((0..3).map(|s| puzzle(3, 100 + s, 0.55)));
    assert_gpu_matches_cpu(&ps, &params(1500, 20));
}

#[test]
fn gpu_equals_cpu_on_a_16x16_and_a_4x4() {
    let ps = vec![puzzle(4, 5, 0.5), puzzle(2, 9, 0.7)];
    assert_gpu_matches_cpu(&ps, &params(900, 5));
}

/// A 25x25 in both homes of its arrays, and the largest tallies of the read-off: an empty
/// 64x64 has 12,288 row/column/box resources, 3,072 words of workgroup memory (its arrays
/// never fit there).
#[test]
fn gpu_equals_cpu_on_a_25x25_and_an_empty_64x64() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let par = params(40, 5);
    for g in [puzzle(5, 11, 0.5), Grid::empty(8)] {
        let o = cpu::run_one(&g, &par).unwrap();
        assert!(o.generations == 40, "{o:?}");
        let prob = Problem::build(&g).unwrap();
        let v = gpu::Variant::for_problems(gpu, &[prob], true).unwrap();
        assert_eq!(v.arrays.is_some(), g.side() == 25, "{v:?}");
        if g.side() == 64 {
            assert_eq!(v.tally_words, 3 * 64 * 64 / 4);
        }
        assert_gpu_matches_cpu(&[g], &par);
    }
}

#[test]
fn gpu_equals_cpu_with_floor_policy_and_low_threshold() {
    // A low threshold makes the policy act within a short run.
    let mut par = params(800, 5);
    par.underflow = Underflow::Floor;
    par.underflow_log2 = 12;
    assert_gpu_matches_cpu(&[grid(HARD), grid(CLASSIC)], &par);
    par.underflow = Underflow::Extinct;
    assert_gpu_matches_cpu(&[grid(HARD)], &par);
}

#[test]
fn gpu_equals_cpu_with_the_enhancement() {
    let mut par = params(3000, 5);
    par.enhancement = Enhancement::Propagate;
    par.stall_generations = 100;
    assert_gpu_matches_cpu(&[grid(HARD), grid(CLASSIC)], &par);
    par.enhancement = Enhancement::Mrv;
    assert_gpu_matches_cpu(&[grid(HARD), puzzle(4, 5, 0.5)], &par);
    par.enhancement = Enhancement::Logic;
    assert_gpu_matches_cpu(&[grid(HARD), puzzle(4, 5, 0.5)], &par);
    par.enhancement = Enhancement::Lookahead;
    assert_gpu_matches_cpu(&[grid(HARD), puzzle(4, 5, 0.5), puzzle(4, 7, 0.55)], &par);
    // A node whose read-off keeps changing is decided on at the node cap (20 × the stall).
    par.stall_generations = 3;
    assert_gpu_matches_cpu(&[grid(CYCLING), grid(HARD)], &par);
}

#[test]
fn gpu_reports_unsolvable_puzzles_and_empty_batches() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let run = |ps: &[Grid], par: &RfssParams| {
        gpu::run(gpu, ps, par, &gpu::GpuOptions::default(), &|_| {})
    };
    let mut dup = vec![0u8; 81];
    dup[0] = 1;
    dup[1] = 1;
    let dup = Grid::from_cells(3, dup).unwrap();
    let out = run(&[dup, grid(CLASSIC)], &params(2000, 1)).unwrap();
    assert!(matches!(out[0].status, Status::Unsolvable(_)));
    assert!(out[1].solved());
    assert!(run(&[], &params(10, 1)).unwrap().is_empty());
    assert!(run(&[grid(CLASSIC)], &params(0, 1)).is_err());
}

/// Formerly the open problem of docs/RFSS.md: on lavapipe a 16x16 run lost bit equality at
/// generation 979 of a long dispatch. Cause: llvmpipe's loop limiter (65,535 loop passes per
/// invocation and dispatch, shared by all loops; see `gpu_sudoku::gpu::LOOP_PASS_BUDGET`). Run
/// here on a 16x16 with 80% blank (1,884 species) with the adaptive split and with 1,000
/// generations asked per submission: one dispatch of 1,000 would cross the limit (the ignored
/// test below shows it); the loop budget splits it.
#[test]
fn gpu_equals_cpu_long_16x16() {
    let ps = [puzzle(4, 5, 0.8)];
    let o = cpu::run_one(&ps[0], &params(1700, 5)).unwrap();
    assert!(o.generations > 1000, "{o:?}");
    let par = params(1700, 5);
    assert_gpu_matches_cpu(&ps, &par);
    assert_gpu_matches_cpu_split(&ps, &par, Some(1000));
}

/// Runs a 16x16 with this fraction blank on the GPU in the given dispatch splits and compares
/// proportions, w and loads with the CPU reference bit for bit after each split.
fn compare_at_boundaries(blank: f64, splits: &[u32], capped: bool) -> Option<(u32, usize)> {
    let gpu = common::gpu()?;
    let par = params(100_000, 5);
    let prob = Problem::build(&puzzle(4, 5, blank)).unwrap();
    let tr = gpu::trace_dispatches(gpu, &prob, &par, splits, capped).unwrap();
    let mut p = prob.initial_proportions();
    let (mut load, mut w) = (vec![0.0f32; prob.n_res], vec![0.0f32; prob.n_species()]);
    let mut g = 0;
    for ((gp, gs), &k) in tr.iter().zip(splits) {
        for _ in 0..k {
            generation(&prob, &mut p, &mut load, &mut w, &par);
        }
        g += k;
        let cpu: Vec<u32> = p
            .iter()
            .chain(&w)
            .chain(&load)
            .map(|v| v.to_bits())
            .collect();
        let dev: Vec<u32> = gp.iter().chain(gs).map(|v| v.to_bits()).collect();
        let differ = cpu.iter().zip(&dev).filter(|(a, b)| a != b).count();
        if differ > 0 {
            return Some((g, differ));
        }
    }
    None
}

#[test]
fn gpu_generations_equal_cpu_at_every_dispatch_boundary() {
    // One split of 1,000 generations (run as budget-sized dispatches), then short ones.
    assert_eq!(compare_at_boundaries(0.8, &[1000, 1, 6, 293], true), None);
}

/// Shows the driver behaviour behind the former divergence: on llvmpipe one uncapped dispatch
/// of 1,639 generations of a 16x16 with half its cells blank differs from the CPU (1,638 do
/// not; 979 and 978 before selection and the read-off became one pass, 2026-11-29). Ignored:
/// it asserts a driver limit (`cargo test -- --ignored llvmpipe_loop_limiter`), and skips other
/// adapters.
#[test]
#[ignore]
fn llvmpipe_loop_limiter_truncates_uncapped_dispatches() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    if !gpu.info.name.contains("llvmpipe") {
        println!("SKIPPED: not llvmpipe ({})", gpu.info.name);
        return;
    }
    assert_eq!(compare_at_boundaries(0.5, &[1638], false), None);
    let (g, differ) = compare_at_boundaries(0.5, &[1639], false).expect("the limiter cuts");
    assert_eq!(g, 1639);
    assert!(differ > 0);
    // The instance of the two tests above: uncapped, one dispatch of 1,000 goes wrong.
    assert!(compare_at_boundaries(0.8, &[1000], false).is_some());
}

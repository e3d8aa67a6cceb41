//! The GPU ILCA kernel against the CPU reference: for every option, the same solved flag, step
//! count, final grid **and final weights** for every instance, bit for bit. Runs on whatever
//! adapter exists (lavapipe in CI); without one it says SKIPPED, and fails if
//! GPU_SUDOKU_REQUIRE_GPU=1.

mod common;
use common::{grid, pattern_puzzle, CLASSIC};
use gpu_sudoku::ilca::gpu::{self as gpu_ilca, GpuOptions};
use gpu_sudoku::ilca::{cpu, Batch, Compare, IlcaParams, Instance, ResetCheck, TieBreak};
use gpu_sudoku::puzzle::{parse_str, Grid};

fn nine_by_nine() -> Vec<Grid> {
    let mut v = vec![grid(CLASSIC)];
    for s in 0..4 {
        v.push(pattern_puzzle(3, s, 0.35 + 0.1 * s as f64));
    }
    v
}

/// The GPU's results and final weights equal the CPU's, instance for instance, bit for bit.
fn agree_on(batch: &Batch, opts: &GpuOptions) {
    let Some(gpu) = common::gpu() else { return };
    let (want, want_w) = cpu::run_keeping_weights(batch, &|_| {});
    let (got, got_w) = gpu_ilca::run_keeping_weights(gpu, batch, opts, &|_| {}).unwrap();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "instance {i}: GPU and CPU differ");
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        assert_eq!(
            bits(&got_w[i]),
            bits(&want_w[i]),
            "instance {i}: weights differ"
        );
    }
    // The test must exercise both outcomes to mean something.
    assert!(want.iter().any(|r| r.solved), "nothing solved");
}

fn agree(puzzles: &[Grid], runs: usize, params: &IlcaParams, opts: &GpuOptions) {
    agree_on(&Batch::runs(puzzles, params, runs), opts);
}

fn small_submissions() -> GpuOptions {
    GpuOptions {
        max_chunk: 7,                           // several chunks, a partial last one
        cell_steps_per_submission: 81 * 7 * 13, // 13 steps per submission
        ..Default::default()
    }
}

#[test]
fn base_algorithm_agrees() {
    let params = IlcaParams {
        steps: 60,
        ..Default::default()
    };
    agree(&nine_by_nine(), 3, &params, &small_submissions());
}

#[test]
fn learning_rates_and_reset_agree() {
    for (lr, lp, sr, check) in [
        (0.05, 1.0, 0, ResetCheck::Permutation),
        (0.175, 3.5, 0, ResetCheck::Permutation),
        (0.2, 3.0, 15, ResetCheck::Permutation),
        (1.0, 1.0, 10, ResetCheck::Sum),
    ] {
        for restart in [0, 17] {
            let params = IlcaParams {
                steps: 50,
                lr,
                lp,
                sr,
                reset_check: check,
                penalty_floor: 0.01,
                restart,
                ..Default::default()
            };
            agree(&nine_by_nine(), 2, &params, &Default::default());
        }
    }
}

#[test]
fn every_switch_agrees() {
    for compare in [Compare::Sharing, Compare::Free, Compare::All] {
        for tie in [TieBreak::Random, TieBreak::First, TieBreak::Keep] {
            let params = IlcaParams {
                steps: 40,
                lr: 0.1,
                lp: 2.0,
                sr: 12,
                compare,
                tie,
                seed: 7,
                ..Default::default()
            };
            agree(&nine_by_nine(), 2, &params, &small_submissions());
        }
    }
}

#[test]
fn other_sizes_agree() {
    let params = IlcaParams {
        steps: 30,
        lr: 0.1,
        lp: 2.0,
        sr: 10,
        ..Default::default()
    };
    let four: Vec<Grid> = (0..6).map(|s| pattern_puzzle(2, s, 0.6)).collect();
    agree(&four, 4, &params, &Default::default());
    let sixteen: Vec<Grid> = (0..2).map(|s| pattern_puzzle(4, s, 0.1)).collect();
    agree(&sixteen, 2, &params, &Default::default());
    let twentyfive = vec![pattern_puzzle(5, 3, 0.05)];
    agree(&twentyfive, 1, &params, &Default::default());
    // 36x36 and 49x49: an instance over 648 and 801 invocations (2 and 3 cells each; the last
    // invocations of a 49x49 have one cell fewer).
    let thirtysix = vec![pattern_puzzle(6, 1, 0.02)];
    agree(&thirtysix, 2, &params, &Default::default());
    let fortynine = vec![pattern_puzzle(7, 2, 0.01)];
    agree(&fortynine, 2, &params, &Default::default());
}

/// 64x64 fits no device's workgroup memory with a word per cell (62,216 bytes with its unit
/// counts; NVIDIA offers 49,152, lavapipe 32,768), so its states and degrees go a byte per cell:
/// it runs on lavapipe here and equals the CPU, weights included, over several dispatches (31
/// steps each).
#[test]
fn sixty_four_by_sixty_four_agrees() {
    let params = IlcaParams {
        steps: 50,
        lr: 0.1,
        lp: 2.0,
        sr: 10,
        ..Default::default()
    };
    let sixtyfour = vec![pattern_puzzle(8, 1, 0.003)];
    agree(&sixtyfour, 2, &params, &Default::default());
}

/// Settings that run every stage within 60 steps: selective resets every 7 steps, a full restart
/// at 25, and resource sharing when `share` is not 0.
fn every_stage(compare: Compare, share: f64) -> IlcaParams {
    IlcaParams {
        steps: 60,
        lr: 0.1,
        lp: 2.0,
        sr: 7,
        restart: 25,
        compare,
        share,
        ..Default::default()
    }
}

/// The byte layout on every size where words are the default: partial last words (odd boxes),
/// several instances' chunks, resets, restarts, resource sharing and every compare rule.
#[test]
fn byte_layout_agrees_at_every_size() {
    let bytes = GpuOptions {
        layout: gpu_ilca::KernelLayout {
            states: Some(gpu_ilca::StateLayout::Bytes),
            unit_counts: None,
        },
        ..small_submissions()
    };
    for (compare, share) in [
        (Compare::Sharing, 0.0),
        (Compare::Free, 0.05),
        (Compare::All, 0.0),
    ] {
        let params = every_stage(compare, share);
        agree(&nine_by_nine(), 2, &params, &bytes);
        let sixteen: Vec<Grid> = (0..2).map(|s| pattern_puzzle(4, s, 0.1)).collect();
        agree(&sixteen, 2, &params, &bytes);
        agree(&[pattern_puzzle(5, 3, 0.05)], 2, &params, &bytes);
    }
    let params = IlcaParams {
        steps: 30,
        sr: 10,
        ..Default::default()
    };
    agree(&[pattern_puzzle(7, 2, 0.01)], 1, &params, &bytes);
}

/// Unit counts (25x25 and up, and wherever an invocation owns several cells): the degrees
/// from the counts, and the reward test by parts, under every compare and tie rule, with
/// resets, restarts and resource sharing, over many dispatches (the counts are rebuilt at the
/// start of each), in words (25x25, 36x36) as in bytes (`byte_layout_agrees_at_every_size`).
#[test]
fn unit_counts_agree_under_every_rule() {
    let Some(gpu) = common::gpu() else { return };
    // The kernels these runs get keep unit counts, in words.
    for b in [5, 6] {
        let m = gpu_ilca::Kernel::cached(gpu, b, Default::default())
            .unwrap()
            .mapping();
        assert!(m.counts && !m.packed, "{b}: {m:?}");
    }
    let opts = small_submissions();
    for compare in [Compare::Sharing, Compare::Free, Compare::All] {
        for (tie, share) in [(TieBreak::Random, 0.0), (TieBreak::Keep, 0.05)] {
            let params = IlcaParams {
                tie,
                seed: 3,
                ..every_stage(compare, share)
            };
            agree(&[pattern_puzzle(5, 3, 0.05)], 2, &params, &opts);
        }
    }
    let params = IlcaParams {
        steps: 40,
        sr: 9,
        compare: Compare::All,
        ..Default::default()
    };
    agree(&[pattern_puzzle(6, 1, 0.02)], 2, &params, &opts);
}

/// Unit counts asked for where the kernel would not keep them (one cell per invocation: 9x9,
/// 16x16) and left out where it would (several cells per invocation: 25x25 in words, 49x49 in
/// bytes, the layout 64x64 takes on a 16 KiB device): the results are the same.
#[test]
fn unit_counts_on_or_off_agree() {
    use gpu_ilca::{KernelLayout, StateLayout, UnitCounts};
    let params = IlcaParams {
        steps: 60,
        lr: 0.1,
        lp: 2.0,
        sr: 7,
        share: 0.05,
        ..Default::default()
    };
    let on = GpuOptions {
        layout: KernelLayout {
            states: None,
            unit_counts: Some(UnitCounts::On),
        },
        ..small_submissions()
    };
    agree(&nine_by_nine(), 2, &params, &on);
    let sixteen: Vec<Grid> = (0..2).map(|s| pattern_puzzle(4, s, 0.1)).collect();
    agree(&sixteen, 2, &params, &on);
    for states in [None, Some(StateLayout::Bytes)] {
        let off = GpuOptions {
            layout: KernelLayout {
                states,
                unit_counts: Some(UnitCounts::Off),
            },
            ..small_submissions()
        };
        agree(&[pattern_puzzle(5, 3, 0.05)], 2, &params, &off);
    }
    let off_bytes = GpuOptions {
        layout: KernelLayout {
            states: Some(StateLayout::Bytes),
            unit_counts: Some(UnitCounts::Off),
        },
        ..Default::default()
    };
    let params = IlcaParams {
        steps: 30,
        sr: 10,
        ..Default::default()
    };
    agree(&[pattern_puzzle(7, 2, 0.01)], 1, &params, &off_bytes);
}

#[test]
fn words_where_they_fit_bytes_elsewhere() {
    use gpu_ilca::{workgroup_bytes, KernelLayout, Mapping, StateLayout, UnitCounts};
    let states = |s| KernelLayout {
        states: Some(s),
        unit_counts: None,
    };
    // NVIDIA's 48 KiB, lavapipe's 32 KiB and the 16 KiB every Vulkan device offers: the
    // smallest side in bytes, and the sides with unit counts.
    for (limit, packed_from, counted) in
        [(49_152, 8, 5..=8), (32_768, 7, 5..=8), (16_384, 6, 5..=7)]
    {
        for b in 2..=8 {
            let m = Mapping::choose(b, 1024, limit, Default::default());
            assert_eq!(m.packed, b >= packed_from, "{b} within {limit}");
            assert_eq!(m.counts, counted.contains(&b), "{b} within {limit}");
            assert!(workgroup_bytes(b, m) <= limit, "{b} within {limit}");
        }
    }
    let m = Mapping::choose(8, 1024, 49_152, Default::default());
    assert_eq!(
        (m.ipw, m.tpi, m.cpt, workgroup_bytes(8, m)),
        (1, 1024, 4, 25_352)
    );
    // Without the counts (one unused word left of them), 64x64 still fits 16 KiB.
    let m = Mapping::choose(8, 1024, 16_384, Default::default());
    assert_eq!(
        (m.packed, m.counts, workgroup_bytes(8, m)),
        (true, false, 13_068)
    );
    let m = Mapping::choose(7, 1024, 49_152, Default::default());
    assert!(!m.packed && m.counts && workgroup_bytes(7, m) == 36_612);
    let m = Mapping::choose(7, 1024, 49_152, states(StateLayout::Bytes));
    assert_eq!((m.tpi, m.cpt), (601, 4));
    let m = Mapping::choose(8, 256, 49_152, Default::default());
    assert_eq!((m.tpi, m.cpt), (256, 16));
    let m = Mapping::choose(8, 1024, 65_536, states(StateLayout::Words));
    assert!(!m.packed && m.counts && workgroup_bytes(8, m) == 62_216);
    let m = Mapping::choose(8, 1024, 49_152, states(StateLayout::Words));
    assert!(!m.packed && !m.counts && workgroup_bytes(8, m) == 49_932);
    // Asked for, the counts stay, fitting or not (the kernel then refuses what does not fit).
    let counts = |c| KernelLayout {
        states: None,
        unit_counts: Some(c),
    };
    let m = Mapping::choose(3, 1024, 49_152, counts(UnitCounts::On));
    assert!(m.counts && m.cpt == 1 && workgroup_bytes(3, m) == 3 * 4 * (3 * 81 + 2 + 27 + 61));
    let m = Mapping::choose(8, 1024, 16_384, counts(UnitCounts::On));
    assert!(m.packed && m.counts && workgroup_bytes(8, m) > 16_384);
    let m = Mapping::choose(5, 1024, 49_152, counts(UnitCounts::Off));
    assert!(!m.packed && !m.counts && m.cpt == 3);
}

#[test]
fn mapping_packs_small_grids_and_splits_big_ones() {
    let m = gpu_ilca::Mapping::for_cells(81);
    assert_eq!((m.ipw, m.tpi, m.cpt), (3, 81, 1));
    let m = gpu_ilca::Mapping::for_cells(625);
    assert_eq!((m.ipw, m.tpi, m.cpt), (1, 256, 3));
    // Larger grids spread over up to 1,024 invocations, evenly; 256 where the device allows no more.
    let m = gpu_ilca::Mapping::for_cells(2401);
    assert_eq!((m.ipw, m.tpi, m.cpt), (1, 801, 3));
    let m = gpu_ilca::Mapping::within(2401, 256);
    assert_eq!((m.ipw, m.tpi, m.cpt), (1, 256, 10));
    let m = gpu_ilca::Mapping::within(1296, 700);
    assert_eq!((m.ipw, m.tpi, m.cpt), (1, 648, 2));
}

#[test]
fn sweeps_with_settings_per_instance_agree() {
    let settings: Vec<IlcaParams> = [(1.0, 1.0, 0, 30), (0.05, 1.0, 0, 45), (0.2, 3.5, 10, 60)]
        .iter()
        .map(|&(lr, lp, sr, steps)| IlcaParams {
            lr,
            lp,
            sr,
            steps,
            compare: Compare::Free,
            ..Default::default()
        })
        .collect();
    let puzzles = nine_by_nine();
    let batch = Batch::all(&puzzles, &settings, 2);
    agree_on(&batch, &small_submissions());
    let want = batch.per_setting(cpu::run(&batch, &|_| {}));
    // Each setting alone gives the same as inside the sweep.
    for (s, p) in settings.iter().enumerate() {
        assert_eq!(cpu::run(&Batch::runs(&puzzles, p, 2), &|_| {}), want[s]);
    }
    // Unsolved runs stop at their own setting's limit.
    assert!(want[0].iter().any(|r| !r.solved && r.steps == 30));
    assert!(want[2].iter().any(|r| r.solved));
}

fn first_of(file: &str) -> Grid {
    let path = format!("{}/puzzles/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    parse_str(&text, None).unwrap().remove(0).grid
}

/// Long dispatches. With the default options a small batch asks for thousands of steps per
/// submission. Mesa's lavapipe stops every loop of an invocation after 65,535 loop passes in one
/// dispatch (docs/GPU.md, "Loop budget per dispatch"): measured there, an uncapped dispatch went
/// wrong after about 6,000 steps of a 9x9 and, with unit counts, 524 of a 25x25, 288 of a
/// 36x36, 112 of a 49x49 and 212 of a 25x25 with sharing, silently (the GPU grids came back
/// blank). The host caps the steps per dispatch (`ilca::gpu::max_steps_per_dispatch`), so
/// here a submission holds several dispatches. Every run goes past those counts to its step
/// limit unsolved, so every step counts in the final grid.
#[test]
fn long_dispatches_agree() {
    let Some(gpu) = common::gpu() else { return };
    // Resource sharing runs more loops per step, and its dispatches are capped lower.
    for (file, runs, steps, sr, share) in [
        ("evil.txt", 3, 12_000, 100, 0.0),
        ("25x25.txt", 1, 700, 0, 0.0),
        ("36x36.txt", 1, 400, 0, 0.0),
        ("49x49.txt", 1, 200, 0, 0.0),
        ("16x16.txt", 2, 2_000, 0, 0.05),
        ("25x25.txt", 1, 300, 0, 0.05),
    ] {
        let puzzles = [first_of(file)];
        let params = IlcaParams {
            steps,
            sr,
            share,
            ..Default::default()
        };
        let batch = Batch::runs(&puzzles, &params, runs);
        let want = cpu::run(&batch, &|_| {});
        // Every run must outlast what lavapipe ran correctly in one uncapped dispatch.
        assert!(
            want.iter().all(|r| !r.solved && r.steps == steps),
            "{want:?}"
        );
        // All steps in one submission, and submissions that end inside a dispatch's worth.
        let cells = puzzles[0].cells().len() as u64;
        let split = GpuOptions {
            cell_steps_per_submission: cells * runs as u64 * (steps as u64 / 4 + 3),
            ..Default::default()
        };
        for opts in [Default::default(), split] {
            let got = gpu_ilca::run(gpu, &batch, &opts, &|_| {});
            assert_eq!(got.unwrap(), want, "{file}, {opts:?}: GPU and CPU differ");
        }
    }
}

/// An instance's result depends on (seed, puzzle, run) only: any subset of a batch's instances,
/// in any order and any chunking, gives the same results for them on both backends.
#[test]
fn instances_in_any_order_and_subset_agree() {
    let puzzles = nine_by_nine();
    let params = IlcaParams {
        steps: 50,
        lr: 0.05,
        sr: 10,
        ..Default::default()
    };
    let full = Batch::runs(&puzzles, &params, 3);
    let want = cpu::run(&full, &|_| {});
    let mut picked: Vec<(Instance, usize)> = full
        .instances
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 1)
        .map(|(i, inst)| (*inst, i))
        .collect();
    picked.reverse();
    let part = Batch {
        puzzles: &puzzles,
        first_puzzle: 0,
        portfolio: 1,
        pull: None,
        settings: std::slice::from_ref(&params),
        instances: picked.iter().map(|(inst, _)| *inst).collect(),
    };
    let got = cpu::run(&part, &|_| {});
    for (r, (_, i)) in got.iter().zip(&picked) {
        assert_eq!(r, &want[*i]);
    }
    agree_on(&part, &small_submissions());
}

#[test]
fn pruned_runs_agree_and_keep_their_puzzle_indices() {
    use gpu_sudoku::backend::{Backend, Device};
    use gpu_sudoku::ilca::{run, Prune};
    if common::gpu().is_none() {
        return;
    }
    let (gpu, _) = Device::open(Backend::Gpu, None).unwrap();
    let puzzles = nine_by_nine();
    // One setting as given and one per pruning, interleaved in one batch.
    let settings = [Prune::Off, Prune::Singles, Prune::Logic].map(|prune| IlcaParams {
        steps: 60,
        lr: 0.1,
        lp: 2.0,
        prune,
        ..Default::default()
    });
    let batch = Batch::all(&puzzles, &settings, 3);
    let cpu = run::run(&Device::Cpu, &batch, &|_| {}).unwrap();
    let got = run::run(&gpu, &batch, &|_| {}).unwrap();
    assert_eq!(got, cpu, "GPU and CPU differ on pruned runs");
    for (r, i) in cpu.iter().zip(&batch.instances) {
        assert_eq!(
            (r.puzzle, r.run),
            (i.puzzle, i.run),
            "indices of the original puzzles"
        );
        if r.solved {
            assert!(grid(&r.grid).is_solution_of(&puzzles[i.puzzle]));
        }
    }
    // `trace` replays any pruned instance exactly (same pruned puzzle, same random key).
    for (r, i) in cpu
        .iter()
        .zip(&batch.instances)
        .filter(|(_, i)| i.setting > 0)
    {
        let end = gpu_sudoku::ilca::trace::record(
            &puzzles[i.puzzle],
            &settings[i.setting],
            i.puzzle,
            i.run,
            |_| Ok(()),
        )
        .unwrap();
        assert_eq!(end.solved_at.is_some(), r.solved, "{i:?}");
        assert_eq!(end.grid.to_line(), r.grid, "{i:?}");
    }
    // The classic puzzle falls to singles alone: solved at once when pruned.
    let classic = |s: usize| {
        cpu.iter()
            .zip(&batch.instances)
            .find(|(_, i)| i.setting == s && i.puzzle == 0)
            .unwrap()
            .0
    };
    assert!(
        classic(1).solved && classic(1).steps <= 1,
        "{:?}",
        classic(1)
    );
    assert!(classic(0).steps > 1, "{:?}", classic(0));
}

/// `--prune logic` starts from the candidates logic leaves (host-made initial weights): the GPU
/// takes one copy of a puzzle's data per pruning, so settings with and without it share a batch
/// and still agree, weights included.
#[test]
fn logic_candidates_agree_beside_settings_without_them() {
    use gpu_sudoku::ilca::Prune;
    let path = format!("{}/puzzles/unique/hard.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let puzzles: Vec<Grid> = parse_str(&text, None).unwrap()[..4]
        .iter()
        .map(|p| gpu_sudoku::exact::place_by_logic(&p.grid).unwrap())
        .collect();
    let settings = [Prune::Off, Prune::Logic].map(|prune| IlcaParams {
        steps: 400,
        lr: 0.05,
        lp: 20.0,
        sr: 40,
        restart: 160,
        penalty_floor: 1e-6,
        prune,
        ..Default::default()
    });
    let batch = Batch::all(&puzzles, &settings, 3);
    agree_on(&batch, &small_submissions());
    // The two settings start from different weights: some instance's final weights differ.
    let (_, weights) = cpu::run_keeping_weights(&batch, &|_| {});
    let per_setting = |s: usize| -> Vec<(usize, &Vec<f32>)> {
        (batch.instances.iter().zip(&weights))
            .filter(|(i, _)| i.setting == s)
            .map(|(i, w)| (i.puzzle * 10 + i.run, w))
            .collect()
    };
    assert_ne!(per_setting(0), per_setting(1));
}

/// Resource sharing (`share`, not in the paper) scales a conflicted cell's weights of its peers'
/// digits and rescales the whole row: settings with and without it, mild and extreme (s = 1/1001
/// drives rows below 2^-32 and weights below the flush), share a batch and agree, weights
/// included, on 9x9 (one cell per invocation, peers listed once) and 25x25 (three cells per
/// invocation, peers computed).
#[test]
fn resource_sharing_agrees() {
    let settings = [0.0, 0.05, 1000.0].map(|share| IlcaParams {
        steps: 120,
        lr: 0.05,
        lp: 20.0,
        sr: 30,
        restart: 50,
        penalty_floor: 1e-6,
        share,
        ..Default::default()
    });
    let puzzles = nine_by_nine();
    let batch = Batch::all(&puzzles, &settings, 3);
    agree_on(&batch, &small_submissions());
    let (results, weights) = cpu::run_keeping_weights(&batch, &|_| {});
    let of = |s: usize| -> Vec<_> {
        batch
            .instances
            .iter()
            .zip(results.iter().zip(&weights))
            .filter(|(i, _)| i.setting == s)
            .map(|(_, r)| r)
            .collect()
    };
    assert_ne!(of(0), of(1), "sharing changes the runs");
    assert_ne!(of(1), of(2));
    let twentyfive = vec![pattern_puzzle(5, 3, 0.05)];
    let params = IlcaParams {
        steps: 60,
        ..settings[1].clone()
    };
    agree(&twentyfive, 1, &params, &Default::default());
}

/// A cell whose learning leaves no weight above 0 (every product of a huge share flushed, or a
/// penalty factor of 0 under floor 0 with lp > 1) gets its initial weights back on both
/// engines alike; the runs checked here do empty cells.
#[test]
fn emptied_cells_restart_alike() {
    let puzzles = nine_by_nine();
    let emptying = [
        IlcaParams {
            steps: 150,
            lr: 0.05,
            lp: 20.0,
            penalty_floor: 1e-6,
            share: 1000.0,
            ..Default::default()
        },
        IlcaParams {
            steps: 150,
            lp: 20.0,
            penalty_floor: 0.0,
            sr: 40,
            ..Default::default()
        },
    ];
    for params in &emptying {
        let mut emptied = 0;
        for (p, puzzle) in puzzles.iter().enumerate() {
            gpu_sudoku::ilca::trace::record(puzzle, params, p, 0, |s| {
                emptied += s.info.emptied;
                Ok(())
            })
            .unwrap();
        }
        assert!(
            emptied > 0,
            "share {} floor {}: no cell emptied",
            params.share,
            params.penalty_floor
        );
    }
    agree_on(&Batch::all(&puzzles, &emptying, 2), &small_submissions());
}

/// The buffers of a chunk are lent by the device's pool and hold what the last batch left
/// there: a batch after another one (other puzzles, fewer and then more instances, several
/// chunks) still gives the CPU's results, and repeating a batch reuses the pool instead of
/// growing it.
#[test]
fn reused_buffers_start_clean() {
    if common::gpu().is_none() {
        return;
    }
    // A device of its own, so that no other test's batches come and go in its pool.
    let gpu = gpu_sudoku::gpu::Gpu::open(None).unwrap();
    let params = IlcaParams {
        steps: 40,
        lr: 0.05,
        sr: 10,
        ..Default::default()
    };
    let opts = small_submissions();
    let check = |puzzles: &[Grid], runs: usize| {
        let batch = Batch::runs(puzzles, &params, runs);
        let got = gpu_ilca::run(&gpu, &batch, &opts, &|_| {}).unwrap();
        assert_eq!(
            got,
            cpu::run(&batch, &|_| {}),
            "{runs} runs after another batch"
        );
        assert!(got.iter().any(|r| r.solved) && got.iter().any(|r| !r.solved));
    };
    let mut others = nine_by_nine();
    others.reverse();
    check(&nine_by_nine(), 4);
    let after_first = gpu.pooled_bytes();
    assert!(
        after_first > 0,
        "a batch gives its buffers back to the pool"
    );
    check(&others[..2], 2);
    check(&others, 5);
    check(&nine_by_nine(), 4);
    assert_eq!(
        gpu.pooled_bytes(),
        after_first,
        "the same chunks reuse the same buffers"
    );
    gpu.release_buffers();
    assert_eq!(gpu.pooled_bytes(), 0);
}

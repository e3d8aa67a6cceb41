//! Cooperating portfolios (`batch --portfolio N --pull ALPHA`, issue #36; not in the paper):
//! the pull stage by hand, the GPU equal to the CPU reference (records, and the final weights
//! of every instance of a portfolio that did not solve), lockstep, and the refusals.

mod common;
use common::pattern_puzzle;
use gpu_sudoku::ilca::cpu::{self, Problem, State};
use gpu_sudoku::ilca::gpu::{self as gpu_ilca, GpuOptions};
use gpu_sudoku::ilca::{Batch, IlcaParams, Instance, Prune, Pull};
use gpu_sudoku::job::batch::portfolio_record;
use gpu_sudoku::puzzle::{read_puzzles, Grid};

const FAMOUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles/famous.txt");

#[test]
fn the_pull_rewards_the_best_instances_digits_in_the_others() {
    // A 4x4 with two clues (cells 0 and 5); three instances, the second with the fewest
    // conflicted cells, the third tied with it but later.
    let puzzle = common::grid("1....2..........");
    let params = IlcaParams::default();
    let prob = Problem::new(&puzzle, &params);
    let mut states: Vec<State> = (0..3).map(|_| State::new(&prob)).collect();
    for (i, st) in states.iter_mut().enumerate() {
        for c in 0..16 {
            if prob.clue[c] == 0 {
                st.choice[c] = ((c + i) % 4 + 1) as u8;
            }
        }
    }
    // Cell 2 of instance 0 holds a weight about to leave [2^-32, 2^32] once pulled.
    let taught = states[1].choice[2] as usize - 1;
    states[0].w[2 * 4 + taught] = 2f32.powi(32);
    let before: Vec<Vec<f32>> = states.iter().map(|s| s.w.clone()).collect();
    let best = cpu::pull(&prob, &mut states, &[5, 2, 2], 1.5);
    assert_eq!(best, 1);
    assert_eq!(states[1].w, before[1], "the best is not pulled");
    for i in [0, 2] {
        for c in 0..16 {
            let row = |w: &[f32]| w[c * 4..c * 4 + 4].to_vec();
            let (was, now) = (row(&before[i]), row(&states[i].w));
            if prob.clue[c] != 0 {
                assert_eq!(now, was, "clue cell {c}");
                continue;
            }
            let k = states[1].choice[c] as usize - 1;
            let mut want = was.clone();
            want[k] *= 1.5;
            if want[k] > 2f32.powi(32) {
                want.iter_mut().for_each(|x| *x *= 2f32.powi(-32));
            }
            assert_eq!(now, want, "instance {i} cell {c}");
        }
    }
    assert_eq!(states[0].w[2 * 4 + taught], 1.5);
}

fn famous() -> Vec<Grid> {
    read_puzzles(FAMOUS, None)
        .unwrap()
        .puzzles
        .into_iter()
        .map(|p| p.grid)
        .collect()
}

fn shared(steps: u32) -> IlcaParams {
    IlcaParams {
        steps,
        prune: Prune::Off,
        ..gpu_sudoku::ilca::presets::by_name("shared")
            .unwrap()
            .params()
    }
}

/// `runs` cooperating portfolios of `n` instances of every puzzle (instance j of portfolio k
/// is run k·n + j, as `batch` numbers them).
fn portfolios<'a>(
    puzzles: &'a [Grid],
    params: &'a IlcaParams,
    runs: usize,
    n: usize,
    pull: Pull,
) -> Batch<'a> {
    Batch {
        puzzles,
        first_puzzle: 0,
        portfolio: n,
        pull: Some(pull),
        settings: std::slice::from_ref(params),
        instances: (0..puzzles.len())
            .flat_map(|puzzle| {
                (0..runs * n).map(move |run| Instance {
                    setting: 0,
                    puzzle,
                    run,
                })
            })
            .collect(),
    }
}

/// The GPU's records equal the CPU's portfolio by portfolio; where a portfolio did not solve,
/// every instance ran to the limit on both, so their final weights agree bit for bit too.
/// Returns (portfolios solved, portfolios not).
fn agree_on(batch: &Batch, opts: &GpuOptions) -> (usize, usize) {
    let (want, want_w) = cpu::run_keeping_weights(batch, &|_| {});
    let n = batch.portfolio;
    let limit = batch.settings[0].steps;
    let (mut solved, mut unsolved) = (0, 0);
    for group in want.chunks(n) {
        // Lockstep: the step one solves at ends them all.
        assert!(group.iter().all(|r| r.steps == group[0].steps), "{group:?}");
        if portfolio_record(group, limit).solved {
            solved += 1;
        } else {
            unsolved += 1;
        }
    }
    let Some(gpu) = common::gpu() else {
        return (solved, unsolved);
    };
    let (got, got_w) = gpu_ilca::run_keeping_weights(gpu, batch, opts, &|_| {}).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    for (k, (g, w)) in got.chunks(n).zip(want.chunks(n)).enumerate() {
        let record = portfolio_record(w, limit);
        assert_eq!(portfolio_record(g, limit), record, "portfolio {k}");
        if !record.solved {
            for j in 0..n {
                assert_eq!(g[j], w[j], "portfolio {k} instance {j}");
                let i = k * n + j;
                assert_eq!(
                    bits(&got_w[i]),
                    bits(&want_w[i]),
                    "portfolio {k} instance {j}"
                );
            }
        }
    }
    (solved, unsolved)
}

#[test]
fn cooperating_portfolios_agree_on_cpu_and_gpu() {
    let puzzles = famous();
    let params = shared(400);
    let pull = Pull {
        every: 30,
        alpha: 0.5,
    };
    // Small chunks and submissions: a chunk holds whole portfolios (7 → 4 instances), and
    // pulls fall inside submissions and between dispatches.
    let opts = GpuOptions {
        max_chunk: 7,
        cell_steps_per_submission: 81 * 4 * 45,
        ..Default::default()
    };
    let (solved, unsolved) = agree_on(&portfolios(&puzzles, &params, 1, 4, pull), &opts);
    assert!(
        solved > 0 && unsolved > 0,
        "{solved} solved, {unsolved} not"
    );
}

#[test]
fn cooperation_agrees_on_larger_grids() {
    let params = IlcaParams {
        steps: 40,
        lr: 0.1,
        lp: 2.0,
        sr: 10,
        share: 0.05,
        ..Default::default()
    };
    let pull = Pull {
        every: 7,
        alpha: 2.0,
    };
    // Blank enough that some portfolio runs to the limit, so its weights are compared.
    let sixteen: Vec<Grid> = (0..2).map(|s| pattern_puzzle(4, s, 0.5)).collect();
    let (_, unsolved) = agree_on(
        &portfolios(&sixteen, &params, 1, 3, pull),
        &Default::default(),
    );
    assert!(unsolved > 0);
    // 64x64: packed states, several dispatches between pulls.
    let params = IlcaParams {
        steps: 30,
        ..params
    };
    let sixtyfour = vec![pattern_puzzle(8, 1, 0.3)];
    let pull = Pull {
        every: 25,
        alpha: 0.5,
    };
    let (_, unsolved) = agree_on(
        &portfolios(&sixtyfour, &params, 1, 2, pull),
        &Default::default(),
    );
    assert!(unsolved > 0);
}

#[test]
fn the_pull_changes_the_run_and_independent_portfolios_are_its_limit() {
    // Without a pull a cooperating portfolio would be its independent instances: with one
    // that never falls inside the step limit the results are those, instance for instance.
    let puzzles = famous();
    let params = shared(120);
    let never = Pull {
        every: 120,
        alpha: 0.5,
    };
    let batch = portfolios(&puzzles[..4], &params, 1, 3, never);
    let alone = Batch {
        pull: None,
        portfolio: 1,
        ..batch.clone()
    };
    let (a, aw) = cpu::run_keeping_weights(&alone, &|_| {});
    let (c, cw) = cpu::run_keeping_weights(&batch, &|_| {});
    for (k, group) in c.chunks(3).enumerate() {
        assert_eq!(
            portfolio_record(group, 120),
            portfolio_record(&a[k * 3..k * 3 + 3], 120)
        );
        if !group[0].solved && group.iter().all(|r| !r.solved) {
            assert_eq!(cw[k * 3..k * 3 + 3], aw[k * 3..k * 3 + 3]);
        }
    }
    let often = Batch {
        pull: Some(Pull {
            every: 10,
            alpha: 0.5,
        }),
        ..batch.clone()
    };
    let (_, ow) = cpu::run_keeping_weights(&often, &|_| {});
    assert_ne!(ow, cw, "pulling every 10 steps changed nothing");
}

/// `batch FAMOUS` with the shared preset, no pruning, on the CPU, and `args`, its JSON to `json`.
fn famous_batch(args: &[&str], json: &std::path::Path) -> std::process::Output {
    let base = [
        "batch",
        FAMOUS,
        "--preset",
        "shared",
        "--prune",
        "off",
        "--backend",
        "cpu",
    ];
    let out = ["--json", json.to_str().unwrap()];
    common::run(&[&base[..], args, &out[..]].concat())
}

#[test]
fn batch_reports_a_cooperating_run_and_refuses_what_means_nothing() {
    let dir = common::temp_dir("cooperation-cli");
    let out = dir.join("r.json");
    let flags = [
        "--steps",
        "200",
        "--portfolio",
        "4",
        "--pull",
        "0.5",
        "--pull-every",
        "40",
    ];
    let o = famous_batch(&flags, &out);
    let table = common::ok(&o);
    assert!(table.contains("cooperating: every 40 steps"), "{table}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["params"]["portfolio"], 4);
    assert_eq!(
        v["params"]["pull"],
        serde_json::json!({"every": 40, "alpha": 0.5})
    );
    assert_eq!(v["files"][0]["instances"].as_array().unwrap().len(), 16);
    for (args, says) in [
        (&["--pull", "0.5"][..], "--portfolio"),
        (
            &["--portfolio", "1", "--pull", "0.5"][..],
            "--pull: cooperation",
        ),
        (&["--portfolio", "4", "--pull", "0"][..], "--pull: must be"),
        (
            &["--portfolio", "4", "--pull", "nan"][..],
            "--pull: must be",
        ),
        (
            &["--portfolio", "4", "--pull", "0.5", "--pull-every", "0"][..],
            "--pull-every: must be at least 1",
        ),
        (&["--portfolio", "4", "--pull-every", "9"][..], "--pull"),
        (
            &["--algo", "rfss", "--portfolio", "2", "--pull", "0.5"][..],
            "for ILCA",
        ),
    ] {
        let o = common::run(&[&["batch", FAMOUS][..], args].concat());
        // Usage errors (a flag without the one it needs) exit with 2, as clap's do.
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn compare_takes_cooperating_entries_that_give_batchs_records() {
    let dir = common::temp_dir("cooperation-compare");
    let (c, b) = (dir.join("c.json"), dir.join("b.json"));
    let o = common::run(&[
        "compare",
        FAMOUS,
        "--algos",
        "ilca-shared:4:pull",
        "--runs",
        "2",
        "--max-iterations",
        "300",
        "--prune",
        "off",
        "--json",
        c.to_str().unwrap(),
    ]);
    common::ok(&o);
    let flags = [
        "--steps",
        "300",
        "--portfolio",
        "4",
        "--runs",
        "2",
        "--pull",
        "0.5",
    ];
    let o = famous_batch(&flags, &b);
    common::ok(&o);
    let read = |p: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let (c, b) = (read(&c), read(&b));
    let attempts = c["attempts"].as_array().unwrap();
    let records = b["files"][0]["instances"].as_array().unwrap();
    assert_eq!(attempts.len(), 16 * 2);
    for (a, r) in attempts.iter().zip(records) {
        assert_eq!(
            (&a["puzzle"], &a["run"], &a["solved"], &a["iterations"]),
            (&r["puzzle"], &r["run"], &r["solved"], &r["steps"]),
        );
    }
    assert!(attempts.iter().any(|a| a["solved"] == true));
    for bad in ["ilca:pull", "ilca-shared:pull"] {
        let o = common::run(&["compare", FAMOUS, "--algos", bad]);
        let err = common::fails(&o);
        assert!(err.contains("cooperation is between"), "{bad}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

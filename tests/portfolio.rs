//! `batch --portfolio N`: each run is N instances of the puzzle, solved at the first step any
//! of them solved. The record is exactly what the same instances give as independent runs
//! (`--runs R×N`), reduced; the GPU gives the same records as the CPU.

mod common;
use common::strip_where_and_when;
use gpu_sudoku::ilca::{cpu, gpu as gpu_ilca, Batch, Instance, Prune};
use gpu_sudoku::job::batch::portfolio_record;
use gpu_sudoku::report::InstanceResult;
use std::process::Command;

const FAMOUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles/famous.txt");

/// The JSON report of `batch FAMOUS` with the shared preset, no pruning, 300 steps, and `args`.
fn famous_json(name: &str, args: &[&str]) -> serde_json::Value {
    let dir = common::temp_dir(&format!("portfolio-{name}"));
    let out = dir.join("r.json");
    let st = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
        .args(["batch", FAMOUS, "--preset", "shared", "--prune", "off"])
        .args(["--steps", "300", "--json", out.to_str().unwrap()])
        .args(args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let v = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    v
}

fn instances(v: &serde_json::Value) -> &Vec<serde_json::Value> {
    v["files"][0]["instances"].as_array().unwrap()
}

#[test]
fn a_portfolio_run_is_its_instances_first_solution() {
    let plain = famous_json("plain", &["--runs", "12", "--backend", "cpu"]);
    let pf = famous_json(
        "pf",
        &["--portfolio", "4", "--runs", "3", "--backend", "cpu"],
    );
    assert_eq!(pf["params"]["portfolio"], 4);
    assert!(plain["params"].get("portfolio").is_none());
    let by_run: std::collections::BTreeMap<(u64, u64), &serde_json::Value> = instances(&plain)
        .iter()
        .map(|i| {
            (
                (i["puzzle"].as_u64().unwrap(), i["run"].as_u64().unwrap()),
                i,
            )
        })
        .collect();
    let records = instances(&pf);
    assert_eq!(records.len(), 16 * 3);
    let (mut solved, mut unsolved) = (0, 0);
    for r in records {
        let (puzzle, run) = (r["puzzle"].as_u64().unwrap(), r["run"].as_u64().unwrap());
        let own: Vec<&serde_json::Value> = (0..4).map(|j| by_run[&(puzzle, run * 4 + j)]).collect();
        let first = own
            .iter()
            .filter(|i| i["solved"] == true)
            .min_by_key(|i| i["steps"].as_u64().unwrap());
        match first {
            Some(f) => {
                solved += 1;
                assert_eq!(r["solved"], true, "{r}");
                assert_eq!((&r["steps"], &r["grid"]), (&f["steps"], &f["grid"]), "{r}");
            }
            None => {
                unsolved += 1;
                assert_eq!(r["solved"], false, "{r}");
                assert_eq!((&r["steps"], &r["grid"]), (&300.into(), &own[0]["grid"]));
            }
        }
    }
    assert!(
        solved > 0 && unsolved > 0,
        "{solved} solved, {unsolved} not"
    );
    assert_eq!(pf["files"][0]["summary"]["solved"], solved);
}

#[test]
fn the_first_of_the_fewest_steps_is_the_portfolios_record() {
    let r = |run: usize, solved: bool, steps: u32, grid: &str| InstanceResult {
        puzzle: 7,
        run,
        solved,
        steps,
        grid: grid.into(),
    };
    let four = [
        r(8, false, 500, "a"),
        r(9, true, 40, "b"),
        r(10, true, 30, "c"),
        r(11, true, 30, "d"),
    ];
    assert_eq!(portfolio_record(&four, 500), r(8, true, 30, "c"));
    let none = [r(4, false, 500, "e"), r(5, false, 500, "f")];
    assert_eq!(portfolio_record(&none, 500), r(4, false, 500, "e"));
}

#[test]
fn a_portfolio_on_the_gpu_gives_the_cpus_records() {
    if common::gpu().is_none() {
        return;
    }
    let args = |backend| ["--portfolio", "3", "--runs", "2", "--backend", backend];
    let (mut cpu, mut gpu) = (
        famous_json("cpu", &args("cpu")),
        famous_json("gpu", &args("gpu")),
    );
    strip_where_and_when(&mut cpu);
    strip_where_and_when(&mut gpu);
    assert_eq!(cpu, gpu);
    assert!(cpu["overall"]["solved"].as_u64().unwrap() > 0);
}

#[test]
fn a_portfolio_is_refused_where_it_means_nothing() {
    for (args, says) in [
        (&["--algo", "rfss"][..], "--portfolio is for ILCA"),
        (&["--tie", "first"][..], "--tie first ignores the seed"),
    ] {
        let out = common::run(&[&["batch", FAMOUS, "--portfolio", "4"][..], args].concat());
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let out = common::run(&["batch", FAMOUS, "--portfolio", "0"]);
    assert!(!out.status.success());
}

#[test]
fn both_engines_stop_the_instances_that_can_no_longer_be_first() {
    // The famous 16, 2 portfolios of 4 each, 300 steps: each engine's records are those of the
    // instances run alone, and each stopped instances that on their own solve later.
    let grids: Vec<gpu_sudoku::puzzle::Grid> = gpu_sudoku::puzzle::read_puzzles(FAMOUS, None)
        .unwrap()
        .puzzles
        .into_iter()
        .map(|p| p.grid)
        .collect();
    let params = gpu_sudoku::ilca::IlcaParams {
        steps: 300,
        prune: Prune::Off,
        ..gpu_sudoku::ilca::presets::by_name("shared")
            .unwrap()
            .params()
    };
    let instances: Vec<Instance> = (0..grids.len())
        .flat_map(|puzzle| {
            (0..8).map(move |run| Instance {
                setting: 0,
                puzzle,
                run,
            })
        })
        .collect();
    let batch = |portfolio| Batch {
        puzzles: &grids,
        first_puzzle: 0,
        portfolio,
        pull: None,
        settings: std::slice::from_ref(&params),
        instances: instances.clone(),
    };
    let alone = cpu::run(&batch(1), &|_| {});
    let check = |engine: &str, got: Vec<InstanceResult>| {
        let mut stopped = 0;
        for (a, g) in alone.chunks(4).zip(got.chunks(4)) {
            assert_eq!(
                portfolio_record(a, 300),
                portfolio_record(g, 300),
                "{engine}"
            );
            stopped += (a.iter().zip(g))
                .filter(|(a, g)| a.solved && !g.solved)
                .count();
        }
        assert!(stopped > 0, "{engine} stopped no instance");
    };
    check("cpu", cpu::run(&batch(4), &|_| {}));
    if let Some(gpu) = common::gpu() {
        // The GPU stops instances between submissions: 20 steps each here.
        let opts = gpu_ilca::GpuOptions {
            cell_steps_per_submission: (instances.len() * 81 * 20) as u64,
            ..gpu_ilca::GpuOptions::default()
        };
        check(
            "gpu",
            gpu_ilca::run(gpu, &batch(4), &opts, &|_| {}).unwrap(),
        );
    }
}

#[test]
fn compare_takes_portfolio_entries_that_give_batchs_records() {
    let dir = common::temp_dir("portfolio-compare");
    let out = dir.join("c.json");
    let st = common::run(&[
        "compare",
        FAMOUS,
        "--algos",
        "ilca-shared:4,acs",
        "--runs",
        "2",
        "--max-iterations",
        "300",
        "--prune",
        "off",
        "--json",
        out.to_str().unwrap(),
    ]);
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let b = famous_json(
        "compare",
        &["--portfolio", "4", "--runs", "2", "--backend", "cpu"],
    );
    let attempts: Vec<&serde_json::Value> = (c["attempts"].as_array().unwrap().iter())
        .filter(|a| a["algo"] == "ilca-shared:4")
        .collect();
    assert_eq!(attempts.len(), 16 * 2);
    for (a, r) in attempts.iter().zip(instances(&b)) {
        assert_eq!(
            (&a["puzzle"], &a["run"], &a["solved"], &a["iterations"]),
            (&r["puzzle"], &r["run"], &r["solved"], &r["steps"]),
        );
    }
    assert!(attempts.iter().any(|a| a["solved"] == true));
    for bad in ["ilca:1", "ilca:x", "acs:4"] {
        let out = common::run(&["compare", FAMOUS, "--algos", bad]);
        assert!(!out.status.success(), "{bad}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `compare --backend gpu` runs the ILCA and RFSS entries on the GPU, one attempt at a time:
/// their outcomes are the CPU's, the report says where they ran, and shards run on the two
/// backends are not one run.
#[test]
fn compare_runs_its_ilca_and_rfss_entries_on_the_gpu_with_the_cpus_outcomes() {
    if common::gpu().is_none() {
        return;
    }
    let dir = common::temp_dir("portfolio-compare-gpu");
    let compare = |name: &str, args: &[&str]| {
        let (json, csv) = (
            dir.join(format!("{name}.json")),
            dir.join(format!("{name}.csv")),
        );
        let mut all = vec!["compare", FAMOUS, "--algos", "ilca-shared:4:pull,rfss,acs"];
        all.extend(["--runs", "2", "--max-iterations", "300", "--prune", "off"]);
        all.extend([
            "--json",
            json.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
        ]);
        all.extend(args);
        let table = common::ok(&common::run(&all));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (table, v, std::fs::read_to_string(&csv).unwrap())
    };
    let (cpu_table, cpu, cpu_csv) = compare("cpu", &[]);
    let (gpu_table, gpu, gpu_csv) = compare("gpu", &["--backend", "gpu"]);
    let outcome = |v: &serde_json::Value| -> Vec<String> {
        (v["attempts"].as_array().unwrap().iter())
            .map(|a| {
                let key = ["algo", "puzzle", "run", "solved", "iterations"];
                key.map(|k| a[k].to_string()).join(" ")
            })
            .collect()
    };
    assert_eq!(outcome(&cpu).len(), 3 * 16 * 2);
    assert_eq!(outcome(&cpu), outcome(&gpu));
    assert!(cpu["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| { a["algo"] == "ilca-shared:4:pull" && a["solved"] == true }));
    // Where they ran: absent on the CPU (reports as before); `gpu` and the adapter else.
    assert!(cpu["params"].get("backend").is_none() && cpu.get("adapter").is_none());
    assert_eq!(gpu["params"]["backend"], "gpu");
    let adapter = gpu["adapter"].as_str().unwrap();
    assert!(gpu_table.contains(&format!("ILCA and RFSS entries on GPU {adapter}")));
    assert!(!cpu_table.contains("entries on"));
    // The CSV's rows of those entries say `gpu`; the baseline's, run on the CPU, nothing.
    let column = |csv: &str| -> Vec<(String, String)> {
        let mut lines = csv.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let Some(at) = head.iter().position(|h| *h == "param_backend") else {
            return Vec::new();
        };
        lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].to_string(), f[at].to_string())
            })
            .collect()
    };
    assert!(column(&cpu_csv).is_empty());
    for (algo, backend) in column(&gpu_csv) {
        assert_eq!(backend == "gpu", algo != "acs", "{algo}: {backend}");
    }
    // Shards on the two backends: their times are of two machines, so not one run.
    let shard = |k: &str, backend: &str| {
        let name = format!("shard{}-{backend}", &k[..1]);
        compare(&name, &["--shard", k, "--backend", backend]);
        dir.join(format!("{name}.json"))
            .to_str()
            .unwrap()
            .to_string()
    };
    let (one, two) = (shard("1/2", "cpu"), shard("2/2", "gpu"));
    let refused = common::fails(&common::run(&["merge", &one, &two]));
    assert!(refused.contains("params"), "{refused}");
    // Nor does a journal begun on the CPU resume on the GPU.
    let report = dir.join("killed.json");
    let run = [
        "compare",
        FAMOUS,
        "--algos",
        "ilca-shared:4",
        "--runs",
        "50",
        "--max-iterations",
        "2000",
        "--chunk",
        "8",
        "--json",
        report.to_str().unwrap(),
    ];
    let mut child = common::bin().args(run).spawn().unwrap();
    let journal = dir.join("killed.json.partial.jsonl");
    common::kill_when_journal_has(&mut child, &journal, 2);
    let resumed = common::run(&[&run[..], &["--resume", "--backend", "gpu"]].concat());
    let refused = common::fails(&resumed);
    assert!(refused.contains("params.backend"), "{refused}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A compare entry given a GPU runs there (its buffers are in that device's pool afterwards),
/// with the outcomes it has on the CPU.
#[test]
fn a_compare_entry_given_a_gpu_runs_on_it() {
    use gpu_sudoku::backend::Device;
    use gpu_sudoku::job::compare::{algos, Options};
    if common::gpu().is_none() {
        return;
    }
    // A device of its own, so that its pool holds only this test's buffers.
    let gpu = gpu_sudoku::gpu::Gpu::open(None).unwrap();
    assert_eq!(gpu.pooled_bytes(), 0);
    let file = gpu_sudoku::puzzle::read_puzzles(FAMOUS, None).unwrap();
    let grids: Vec<_> = file
        .puzzles
        .iter()
        .take(3)
        .map(|p| p.grid.clone())
        .collect();
    let options = Options {
        max_iterations: Some(200),
        ..Options::default()
    };
    let entry = &algos::entries("ilca-shared:4:pull", &options).unwrap()[0];
    let budget = gpu_sudoku::baselines::Budget {
        max_iterations: None,
        max_time: None,
    };
    let attempts = |device: &Device| {
        let (_, tried) =
            algos::run_attempts(entry, device, &grids, 2, 0..6, 1, &budget, &|| {}).unwrap();
        tried
            .iter()
            .map(|t| (t.solved, t.iterations))
            .collect::<Vec<_>>()
    };
    let on_gpu = attempts(&Device::Gpu(Box::new(gpu.clone())));
    assert!(
        gpu.pooled_bytes() > 0,
        "the attempts did not run on the GPU"
    );
    assert_eq!(on_gpu, attempts(&Device::Cpu));
}

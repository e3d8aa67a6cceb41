//! `gpu-sudoku compare`: exit codes, the JSON report, and errors for bad algorithm names.

use std::process::Command;

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

fn dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("gpu-sudoku-compare-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn compare_writes_json_and_csv() {
    let d = dir();
    let puzzles = d.join("classic.txt");
    // A header and a blank line: the puzzle is on line 4, not puzzle index + 1.
    std::fs::write(&puzzles, format!("# the paper's Fig. 3\n#\n\n{CLASSIC}\n")).unwrap();
    let (json, csv) = (d.join("out.json"), d.join("out.csv"));
    let out = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
        .args(["compare", puzzles.to_str().unwrap()])
        .args([
            "--algos",
            "backtrack,mrv,astar,ga-fps-uniform-swap,sa,hc,ilca,rfss",
        ])
        .args([
            "--runs",
            "2",
            "--max-iterations",
            "300",
            "--time-limit",
            "2s",
        ])
        .args([
            "--json",
            json.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    let by = |name: &str| rows.iter().find(|r| r["algo"] == name).unwrap();
    // Exact search finds the solution within 300 iterations; plain backtracking needs more.
    assert_eq!(by("mrv")["solved_pct"], 100.0);
    assert_eq!(by("astar")["solved_pct"], 100.0);
    assert_eq!(by("backtrack")["solved_pct"], 0.0);
    assert_eq!(by("backtrack")["median_iterations"], 300.0);
    assert_eq!(by("ga-fps-uniform-swap")["unit"], "generations");
    assert!(rows.iter().all(|r| r["attempts"] == 2));
    // One CSV row (and one JSON record) per attempt: 8 algorithms × 1 puzzle × 2 runs.
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 1 + 16);
    assert_eq!(v["attempts"].as_array().unwrap().len(), 16);
    // The first eight columns as before, then the puzzle's file and line (the key to join
    // with batch's or rate's CSV) and every entry's parameters as in batch's CSV: `param_…`,
    // empty in the rows of an entry without that parameter.
    let head: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    assert_eq!(
        head[..10],
        [
            "algo",
            "file",
            "puzzle",
            "run",
            "solved",
            "iterations",
            "unit",
            "seconds",
            "path",
            "line"
        ]
    );
    let params = &head[10..];
    assert!(params.iter().all(|c| c.starts_with("param_")), "{head:?}");
    assert!(
        params.windows(2).all(|w| w[0] < w[1]),
        "sorted, once each: {head:?}"
    );
    for name in [
        "param_budget_ms",
        "param_steps",
        "param_lr",
        "param_max_generations",
        "param_seed",
    ] {
        assert!(params.contains(&name), "{name} in {head:?}");
    }
    let cell = |row: &str, column: &str| -> String {
        let i = head.iter().position(|c| *c == column).unwrap();
        row.split(',').nth(i).unwrap().to_string()
    };
    let path = puzzles.to_str().unwrap();
    let row_of = |algo: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{algo},")))
            .unwrap()
            .to_string()
    };
    for row in text.lines().skip(1) {
        assert_eq!(row.split(',').count(), head.len(), "{row}");
        assert_eq!(
            (cell(row, "path"), cell(row, "line")),
            (path.into(), "4".into()),
            "{row}"
        );
    }
    let (mrv, ilca, rfss) = (row_of("mrv"), row_of("ilca"), row_of("rfss"));
    // A baseline: the run's budget, iteration limit and seed; no ILCA or RFSS parameter.
    assert_eq!(cell(&mrv, "param_budget_ms"), "2000");
    assert_eq!(cell(&mrv, "param_max_iterations"), "300");
    assert_eq!(cell(&mrv, "param_seed"), "1");
    assert_eq!(cell(&mrv, "param_lr"), "");
    // ILCA and RFSS: their settings, as in the JSON's params.settings.
    assert_eq!(cell(&ilca, "param_steps"), "300");
    assert_eq!(cell(&ilca, "param_tie"), "random");
    assert_eq!(cell(&ilca, "param_budget_ms"), "");
    assert_eq!(cell(&ilca, "param_max_generations"), "");
    assert_eq!(cell(&rfss, "param_max_generations"), "300");
    assert_eq!(cell(&rfss, "param_seed"), "");
    // The JSON's attempts carry the same path and line.
    let a = &v["attempts"][0];
    assert_eq!(
        (a["path"].as_str(), a["line"].as_u64()),
        (Some(path), Some(4))
    );
    assert_eq!(v["tool"], "gpu-sudoku");
    assert!(v["command"].is_array() && v["schema"].is_number());
    assert_eq!(v["params"]["settings"]["ilca"]["steps"], 300);
    // The searches and RFSS ignore the seed: their second run repeats the first, so the
    // interval counts the one puzzle (Wilson 1 of 1: 20.7-100 %, not 34.2-100 % for 2 of 2)
    // and there is no TTS99 (a stochastic entry's: `src/cli/compare.rs`'s unit tests).
    for name in ["mrv", "astar", "rfss"] {
        assert!(by(name)["tts99"].is_null(), "{name}: {}", by(name));
        let lo = by(name)["solved_pct_95"][0].as_f64().unwrap();
        assert!((lo - 20.65).abs() < 0.01, "{name}: {lo}");
    }

    assert!(String::from_utf8_lossy(&out.stdout).contains("ilca"));
}

#[test]
fn unknown_algorithm_is_an_error() {
    let d = dir();
    let puzzles = d.join("classic2.txt");
    std::fs::write(&puzzles, format!("{CLASSIC}\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
        .args(["compare", puzzles.to_str().unwrap(), "--algos", "mrv,dfs"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("dfs")
            && err.contains("backtrack")
            && err.contains("acs")
            && err.contains("rfss"),
        "{err}"
    );
}

/// The ant colony system runs from `compare` like any baseline, reproducibly without a clock.
#[test]
fn compare_runs_acs() {
    let d = dir();
    let puzzles = d.join("acs.txt");
    let escargot =
        "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..41.....7..7...3..";
    std::fs::write(&puzzles, format!("{CLASSIC}\n{escargot}\n")).unwrap();
    let run = |json: &std::path::Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
            .args(["compare", puzzles.to_str().unwrap(), "--algos", "acs,mrv"])
            .args([
                "--runs",
                "3",
                "--time-limit",
                "0",
                "--max-iterations",
                "5000",
            ])
            .args(["--seed", "7", "--json", json.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
        v["rows"].as_array().unwrap().clone()
    };
    let rows = run(&d.join("acs1.json"));
    let acs = rows.iter().find(|r| r["algo"] == "acs").unwrap();
    assert_eq!(acs["unit"], "iterations");
    assert_eq!(acs["attempts"], 6);
    assert_eq!(acs["solved_pct"], 100.0);
    // The classic falls to propagation alone (0 cycles); AI Escargot needs the colony.
    assert!(acs["mean_iterations"].as_f64().unwrap() > 1.0);
    let again = run(&d.join("acs2.json"));
    let again = again.iter().find(|r| r["algo"] == "acs").unwrap();
    assert_eq!(acs["mean_iterations"], again["mean_iterations"]);
}

/// The JSON report of `compare puzzles/classic.txt ARGS --json -`, which must succeed.
fn classic_report(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
        .args(["compare", "puzzles/classic.txt"])
        .args(args)
        .args(["--json", "-"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn prune_reaches_every_ilca_entry() {
    let v = classic_report(&[
        "--algos",
        "ilca,ilca-improved",
        "--runs",
        "2",
        "--prune",
        "singles",
    ]);
    for algo in ["ilca", "ilca-improved"] {
        assert_eq!(v["params"]["settings"][algo]["prune"], "singles", "{algo}");
    }
    // The classic puzzle falls to singles: every pruned run is solved at its first step.
    for row in v["rows"].as_array().unwrap() {
        assert_eq!(row["solved"], 2, "{row}");
        assert_eq!(row["median_iterations"], 1.0, "{row}");
    }
}

#[test]
fn each_ilca_entry_keeps_its_presets_pruning_unless_prune_is_given() {
    let settings = |prune: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "--algos",
            "ilca,ilca-pruned",
            "--runs",
            "1",
            "--max-iterations",
            "800",
        ];
        args.extend_from_slice(prune);
        classic_report(&args)["params"]["settings"].clone()
    };
    let s = settings(&[]);
    assert_eq!(s["ilca"]["prune"], "off");
    assert_eq!(s["ilca-pruned"]["prune"], "singles");
    assert_eq!(s["ilca-pruned"]["penalty_floor"], 1e-6);
    let s = settings(&["--prune", "off"]);
    assert_eq!(s["ilca-pruned"]["prune"], "off", "an explicit --prune wins");
}

#[test]
fn an_entry_whose_preset_period_exceeds_the_budget_is_named() {
    let d = dir();
    let puzzles = d.join("period.txt");
    std::fs::write(&puzzles, format!("{CLASSIC}\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
        .args(["compare", puzzles.to_str().unwrap()])
        .args(["--algos", "mrv,ilca-pruned", "--max-iterations", "300"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("750")
            && err.contains("ilca-pruned")
            && err.contains("--max-iterations 750 or more"),
        "{err}"
    );
}

#[test]
fn stall_generations_reaches_the_enhanced_rfss_entries_only() {
    let v = classic_report(&[
        "--algos",
        "rfss,rfss-lookahead",
        "--stall-generations",
        "40",
        "--max-iterations",
        "3000",
        "--time-limit",
        "0",
    ]);
    let settings = &v["params"]["settings"];
    assert_eq!(settings["rfss-lookahead"]["stall_generations"], 40);
    assert_eq!(settings["rfss"]["enhancement"], "off");
    assert_eq!(
        settings["rfss"]["stall_generations"], 300,
        "plain RFSS has no stall"
    );
    let refused = |algos: &str, stall: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
            .args(["compare", "puzzles/classic.txt", "--algos", algos])
            .args(["--stall-generations", stall])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("XDG_RUNTIME_DIR", "/tmp")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = refused("rfss,mrv", "40");
    assert!(
        err.contains("--stall-generations applies to the enhanced RFSS entries only"),
        "{err}"
    );
    let err = refused("rfss-mrv", "0");
    assert!(
        err.contains("--stall-generations: must be at least 1"),
        "{err}"
    );
}

#[test]
fn every_rfss_enhancement_is_an_entry() {
    let v = classic_report(&[
        "--algos",
        "rfss-propagate,rfss-mrv,rfss-logic,rfss-lookahead",
        "--max-iterations",
        "3000",
        "--time-limit",
        "0",
    ]);
    for (i, e) in ["propagate", "mrv", "logic", "lookahead"]
        .iter()
        .enumerate()
    {
        let name = format!("rfss-{e}");
        assert_eq!(v["rows"][i]["algo"], name.as_str());
        assert_eq!(v["rows"][i]["solved"], 1, "{name}");
        assert_eq!(v["params"]["settings"][&name]["enhancement"], *e);
    }
}

/// With the default seed (1, batch's) compare's `ilca` entry runs exactly batch's instances.
#[test]
fn compare_with_its_default_seed_runs_batchs_ilca_instances() {
    let steps = |args: &[&str]| -> Vec<String> {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8(o.stdout).unwrap();
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let (solved, n) = (
            head.iter().position(|c| *c == "solved").unwrap(),
            head.iter()
                .position(|c| *c == "steps" || *c == "iterations")
                .unwrap(),
        );
        lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                format!("{} {}", f[solved], f[n])
            })
            .collect()
    };
    let batch = steps(&[
        "batch",
        "puzzles/easy.txt",
        "--runs",
        "2",
        "--backend",
        "cpu",
        "--csv",
        "-",
    ]);
    let compare = steps(&[
        "compare",
        "puzzles/easy.txt",
        "--algos",
        "ilca",
        "--runs",
        "2",
        "--csv",
        "-",
    ]);
    assert_eq!(batch.len(), 200);
    assert_eq!(batch, compare);
}

/// Two names of one setting are refused (they ran it twice, as two rows of one setting).
#[test]
fn two_names_of_one_setting_are_refused() {
    for (algos, both) in [
        ("ilca,ilca-alg1", "`ilca` and `ilca-alg1` are one setting"),
        (
            "ilca-improved,ilca",
            "`ilca-improved` and `ilca` are one setting",
        ),
        // They differ only in the step limit, which --max-iterations replaces.
        (
            "ilca-improved,ilca-improved10k",
            "`ilca-improved` and `ilca-improved10k` are one setting",
        ),
        // Baselines whose names spell their default parameters.
        ("acs,acs-q0-0.90", "`acs` and `acs-q0-0.90` are one setting"),
        (
            "ga-rank-single-swap,sa,ga",
            "`ga-rank-single-swap` and `ga` are one setting",
        ),
    ] {
        let mut args = vec!["compare", "puzzles/classic.txt", "--algos", algos];
        if algos == "ilca-improved,ilca" {
            args.extend_from_slice(&["--preset", "improved"]);
        }
        if algos.ends_with("10k") {
            args.extend_from_slice(&["--max-iterations", "600"]);
        }
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
            .args(&args)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains(both), "{algos}: {e}");
    }
}

/// `--share` (resource sharing, not in the paper) reaches every ILCA entry, as `--prune` does,
/// and its CSV rows record it; a value too small to act is refused with the flag's name.
#[test]
fn share_reaches_every_ilca_entry() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "compare",
            "puzzles/classic.txt",
            "--algos",
            "ilca-pruned,ilca-shared,mrv",
            "--runs",
            "1",
            "--max-iterations",
            "800",
            "--csv",
            "-",
        ];
        args.extend_from_slice(extra);
        std::process::Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
            .args(&args)
            .output()
            .unwrap()
    };
    let o = run(&["--share", "0.2"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let head: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = head.iter().position(|c| *c == "param_share").unwrap();
    let share_of = |algo: &str| -> String {
        let row = text.lines().find(|l| l.starts_with(algo)).unwrap();
        row.split(',').nth(col).unwrap().to_string()
    };
    assert_eq!(share_of("ilca-pruned,"), "0.2");
    assert_eq!(share_of("ilca-shared,"), "0.2");
    assert_eq!(share_of("mrv,"), "");
    let o = run(&["--share", "1e-9"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("--share: ") && e.contains("is too small to act"),
        "{e}"
    );
    // ILCA options with no entry to take them are refused, not dropped.
    for (algos, flags, says) in [
        (
            "mrv,backtrack",
            vec!["--share", "0.05"],
            "--share applies to the ILCA entries only",
        ),
        (
            "rfss",
            vec!["--prune", "logic"],
            "--prune applies to the ILCA entries only",
        ),
        (
            "ilca-shared,mrv",
            vec!["--preset", "pruned"],
            "--preset sets the `ilca` entry",
        ),
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
            .args(["compare", "puzzles/classic.txt", "--algos", algos])
            .args(&flags)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.code() == Some(1) && e.contains(says),
            "{algos} {flags:?}: {e}"
        );
    }
}

//! RFSS from the command line: `batch --algo rfss` (table, JSON and CSV of the same shape as
//! ILCA's; GPU equal to CPU), `trace --algo rfss` (Horn's Fig. 3 data), `rfss`, and the
//! refusals of options that belong to the other algorithm.

mod common;
use common::strip_where_and_when;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The classic puzzle, a 4x4, and a 4x4 whose cell r1c3 has no candidate (unsolvable up front).
const PUZZLES: &str = "\
# RFSS CLI test
53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79
";
const SMALL: &str = "1.3.3.12.1.343.1\n12....3...4.....\n";

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpu-sudoku-rfss-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
        .args(args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn failure(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "must fail with exit code 1");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn batch_json(d: &Path, backend: &str) -> serde_json::Value {
    let json = d.join(format!("{backend}.json"));
    let csv = d.join(format!("{backend}.csv"));
    let out = ok(&run(&[
        "batch",
        s(&d.join("p.txt")),
        s(&d.join("small.txt")),
        "--algo",
        "rfss",
        "--max-generations",
        "3000",
        "--backend",
        backend,
        "--json",
        s(&json),
        "--csv",
        s(&csv),
    ]));
    assert!(out.contains("1 run/puzzle (deterministic)"), "{out}");
    assert!(
        out.contains("mean gens") && out.contains("overall"),
        "{out}"
    );
    let csv = std::fs::read_to_string(csv).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3, "{csv}");
    assert!(csv.starts_with(
        "file,label,puzzle,line,run,solved,steps,grid,param_enhancement,param_max_generations,"
    ));
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

#[test]
fn batch_rfss_reports_like_ilca_and_says_runs_are_identical() {
    let d = dir("batch");
    std::fs::write(d.join("p.txt"), PUZZLES).unwrap();
    std::fs::write(d.join("small.txt"), SMALL).unwrap();
    let v = batch_json(&d, "cpu");
    assert_eq!(v["algorithm"], "rfss");
    assert_eq!(v["runs"], 1);
    assert!(v["seed"].is_null());
    assert!(v["note"].as_str().unwrap().contains("deterministic"));
    assert_eq!(v["params"]["max_generations"], 3000);
    // The classic puzzle: solved at generation 114 (docs/RFSS.md), verified grid.
    let classic = &v["files"][0]["instances"][0];
    assert_eq!(classic["solved"], true);
    assert_eq!(classic["steps"], 114);
    assert_eq!(classic["line"], 2);
    assert_eq!(classic["rfss"]["status"], "solved");
    assert_eq!(classic["rfss"]["conflicts"], 0);
    let small = &v["files"][1]["instances"];
    assert_eq!(small[0]["solved"], true);
    assert_eq!(small[1]["solved"], false);
    assert_eq!(small[1]["rfss"]["status"], "unsolvable");
    let reason = small[1]["rfss"]["reason"].as_str().unwrap();
    assert!(reason.contains("r1c3"), "{reason}");
    assert_eq!(v["overall"]["solved"], 2);
    assert_eq!(v["overall"]["instances"], 3);
    // A further run would repeat the first: no TTS99 (it assumes independent runs).
    for f in v["files"].as_array().unwrap() {
        assert!(f["summary"]["tts99"].is_null(), "{}", f["summary"]);
        assert!(f["summary"]["timing"]["tts99_s"].is_null());
        assert!(f["summary"]["tts99_puzzle_median"].is_null());
        assert!(f["summary"]["timing"]["tts99_puzzle_median_s"].is_null());
        assert!(f["puzzles"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["tts99"].is_null()));
    }
    assert!(v["overall"]["tts99"].is_null());
    assert!(v["overall"]["tts99_puzzle_median"].is_null());

    // --runs 3 runs each puzzle once and says why.
    let o = run(&[
        "batch",
        s(&d.join("small.txt")),
        "--algo",
        "rfss",
        "--runs",
        "3",
        "--backend",
        "cpu",
    ]);
    let out = ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("each puzzle runs once"));
    assert!(out.contains("small") && out.contains("  2  "), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn batch_rfss_gpu_json_equals_cpu_json() {
    if common::gpu().is_none() {
        return;
    }
    let d = dir("gpu");
    std::fs::write(d.join("p.txt"), PUZZLES).unwrap();
    std::fs::write(d.join("small.txt"), SMALL).unwrap();
    let (mut cpu, mut gpu) = (batch_json(&d, "cpu"), batch_json(&d, "gpu"));
    assert_eq!(gpu["backend"], "gpu");
    strip_where_and_when(&mut cpu);
    strip_where_and_when(&mut gpu);
    assert_eq!(cpu, gpu);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn options_of_the_other_algorithm_are_refused() {
    let d = dir("refuse");
    std::fs::write(d.join("small.txt"), SMALL).unwrap();
    let small = d.join("small.txt");
    let f = s(&small);
    let e = failure(&run(&[
        "batch", f, "--algo", "rfss", "--lr", "0.5", "--steps", "9",
    ]));
    assert!(e.contains("--steps, --lr apply only to --algo ilca"), "{e}");
    let e = failure(&run(&["batch", f, "--max-generations", "5"]));
    assert!(
        e.contains("--max-generations applies only to --algo rfss"),
        "{e}"
    );
    let e = failure(&run(&[
        "batch",
        f,
        "--algo",
        "rfss",
        "--max-generations",
        "0",
    ]));
    assert!(e.contains("--max-generations: must be at least 1"), "{e}");
    let e = failure(&run(&["trace", f, "--algo", "rfss", "--seed", "2"]));
    assert!(e.contains("--seed applies only to --algo ilca"), "{e}");
    let e = failure(&run(&["trace", f, "--every", "5"]));
    assert!(e.contains("--every applies only to --algo rfss"), "{e}");
    let e = failure(&run(&["trace", f, "--algo", "rfss", "--index", "1"]));
    assert!(e.contains("unsolvable up front"), "{e}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn trace_rfss_writes_the_species_proportion_history() {
    let d = dir("trace");
    std::fs::write(d.join("p.txt"), PUZZLES).unwrap();
    let csv = d.join("t.csv");
    let out = ok(&run(&[
        "trace",
        s(&d.join("p.txt")),
        "--algo",
        "rfss",
        "--every",
        "50",
        "--csv",
        s(&csv),
    ]));
    assert!(out.contains("153 species"), "{out}");
    assert!(out.contains("valid grid from generation 114"), "{out}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    // Header, generations 0, 50, 100, 150, 200 and the last one (213).
    assert_eq!(rows.len(), 7, "{}", rows.len());
    let head: Vec<&str> = rows[0].split(',').collect();
    assert_eq!(head.len(), 2 + 153);
    assert_eq!(&head[..3], ["generation", "conflicts", "n1r1c3"]);
    let first: Vec<&str> = rows[1].split(',').collect();
    assert_eq!(&first[..2], ["0", "83"]);
    // Equal initial proportions 1/153.
    let p: f32 = first[2].parse().unwrap();
    assert_eq!(p, 1.0 / 153.0);
    let last: Vec<&str> = rows[6].split(',').collect();
    assert_eq!(&last[..2], ["213", "0"]);
    // Proportions still sum to 1 (up to f32 rounding).
    let sum: f64 = last[2..].iter().map(|x| x.parse::<f64>().unwrap()).sum();
    assert!((sum - 1.0).abs() < 1e-4, "{sum}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn rfss_command_prints_one_row_per_puzzle() {
    let d = dir("cmd");
    std::fs::write(d.join("small.txt"), SMALL).unwrap();
    let out = ok(&run(&["rfss", s(&d.join("small.txt")), "--backend", "cpu"]));
    assert!(out.contains("solved 1/2"), "{out}");
    assert!(out.contains("unsolvable"), "{out}");
    assert!(out.contains("RFSS is deterministic: one run per puzzle."));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_stall_without_an_enhancement_is_refused() {
    let d = dir("stall");
    let f = d.join("p.txt");
    std::fs::write(&f, PUZZLES).unwrap();
    let f = f.to_str().unwrap();
    for args in [
        vec!["rfss", f, "--stall-generations", "50"],
        vec!["batch", f, "--algo", "rfss", "--stall-generations", "50"],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--stall-generations applies with --enhance only"),
            "{args:?}: {err}"
        );
    }
    let o = run(&[
        "rfss",
        f,
        "--enhance",
        "lookahead",
        "--stall-generations",
        "50",
    ]);
    assert!(ok(&o).contains("solved 1/1"), "{}", ok(&o));
}

/// `rfss`'s CSV has `batch --algo rfss`'s columns where they mean the same (file, label,
/// puzzle, line, `param_…`, extra), so the two stack in pandas; its table shows each puzzle's
/// line and name (a 0-based index alone did not say which row was AI Escargot).
#[test]
fn rfss_csv_and_table_name_the_puzzles_like_batch() {
    let common = [
        "puzzles/famous.txt",
        "--max-generations",
        "5",
        "--backend",
        "cpu",
        "--csv",
        "-",
    ];
    let csv_of = |args: &[&str]| {
        let out = run(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let rfss = csv_of(&[&["rfss"][..], &common].concat());
    let batch = csv_of(&[&["batch"][..], &common, &["--algo", "rfss"]].concat());
    let head = |t: &str| -> Vec<String> {
        t.lines()
            .next()
            .unwrap()
            .split(',')
            .map(String::from)
            .collect()
    };
    let (r, b) = (head(&rfss), head(&batch));
    for col in b.iter().filter(|c| {
        ["file", "label", "puzzle", "line", "extra"].contains(&c.as_str())
            || c.starts_with("param_")
    }) {
        assert!(r.contains(col), "rfss CSV lacks {col}: {r:?}");
    }
    let first = rfss.lines().nth(1).unwrap();
    assert!(
        first.starts_with("puzzles/famous.txt,famous,0,23,"),
        "{first}"
    );
    assert!(first.ends_with(",name=ai-escargot"), "{first}");
    let out = run(&[
        "rfss",
        "puzzles/famous.txt",
        "--max-generations",
        "5",
        "--backend",
        "cpu",
    ]);
    let table = String::from_utf8(out.stdout).unwrap();
    let row = table.lines().nth(1).unwrap();
    let fields: Vec<&str> = row.split_whitespace().collect();
    assert_eq!((fields[0], fields[1]), ("0", "23"), "{row}");
    assert!(row.ends_with("name=ai-escargot"), "{row}");
}

//! The `batch` and `trace` commands end to end: reports parse, every reported solution is valid,
//! bad parameters fail clearly, results do not depend on the thread count.

use gpu_sudoku::puzzle::{parse_str, Grid};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const CLASSIC_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"));
    c.env("XDG_RUNTIME_DIR", "/tmp");
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_ilca");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn grid(s: &str) -> Grid {
    parse_str(s, None).unwrap().remove(0).grid
}

/// The classic solution with the cells whose index is ≡ k (mod m) blanked.
fn blanked(m: usize, k: usize) -> String {
    CLASSIC_SOLUTION
        .chars()
        .enumerate()
        .map(|(i, c)| if i % m == k { '.' } else { c })
        .collect()
}

/// A 16x16 pattern grid with every 5th cell blank.
fn sixteen() -> String {
    (0..256)
        .map(|i| {
            let (r, c) = (i / 16, i % 16);
            if i % 5 == 0 {
                '.'
            } else {
                gpu_sudoku::puzzle::symbol_for(((r * 4 + r / 4 + c) % 16 + 1) as u8)
            }
        })
        .collect()
}

/// Writes the test files: a 9x9 file (comment, classic, two easy ones) and a 16x16 file.
fn files() -> (String, String) {
    let nine = tmp("nine.txt");
    // Tests run in parallel and share these files: write them whole (temporary file, rename),
    // so that no test reads one half written.
    let write = |path: &PathBuf, text: String| {
        let part = path.with_extension(format!("part{:?}", std::thread::current().id()));
        std::fs::write(&part, text).unwrap();
        std::fs::rename(&part, path).unwrap();
    };
    write(
        &nine,
        format!(
            "# test puzzles\n{CLASSIC}\n\n{} d=0.1\n{}\n",
            blanked(9, 4),
            blanked(5, 2)
        ),
    );
    let big = tmp("sixteen.txt");
    write(&big, format!("{}\n", sixteen()));
    (
        nine.to_string_lossy().into_owned(),
        big.to_string_lossy().into_owned(),
    )
}

fn strip_timing(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("timing");
            m.remove("provenance");
            m.remove("digest"); // of every byte, the times included
            m.values_mut().for_each(strip_timing);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_timing),
        _ => {}
    }
}

#[test]
fn batch_json_holds_every_instance_and_every_solution_is_valid() {
    let (nine, big) = files();
    let json = tmp("batch.json");
    let csv = tmp("batch.csv");
    let out = run(&[
        "batch",
        &nine,
        &big,
        "--runs",
        "3",
        "--lr",
        "0.01",
        "--sr",
        "50",
        "--steps",
        "600",
        "--restart",
        "500",
        "--backend",
        "cpu",
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("overall"), "{stdout}");
    assert!(
        stdout.contains("nine") && stdout.contains("sixteen"),
        "{stdout}"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["algorithm"], "ilca");
    assert_eq!(v["params"]["restart"], 500);
    assert_eq!(v["seed"], 1);
    assert!(v["version"].is_string());
    // The report names the build that made it: the commit `--version` names.
    let build = &v["build"];
    let commit = build["commit"].as_str().unwrap();
    assert_eq!(build["version"], v["version"]);
    assert!(build["rustc"].as_str().unwrap().starts_with("rustc "));
    assert!(build["wgpu"].is_string() && build["target"].is_string());
    let version = run(&["--version"]);
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(version.contains(&format!("commit {commit}")), "{version}");
    assert!(version.contains("\nrustc: rustc ") && version.contains("\nwgpu: "));
    if let Ok(git) = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
    {
        if git.status.success() {
            assert_eq!(commit, String::from_utf8_lossy(&git.stdout).trim());
        }
    }
    assert_eq!(v["backend"], "cpu");
    assert!(v["adapter"].is_null());
    let puzzles = [
        vec![grid(CLASSIC), grid(&blanked(9, 4)), grid(&blanked(5, 2))],
        vec![grid(&sixteen())],
    ];
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    let mut solved = 0;
    for (f, ps) in files.iter().zip(&puzzles) {
        let inst = f["instances"].as_array().unwrap();
        assert_eq!(inst.len(), ps.len() * 3);
        for i in inst {
            let p = &ps[i["puzzle"].as_u64().unwrap() as usize];
            let g = parse_str(i["grid"].as_str().unwrap(), Some(p.side()))
                .unwrap()
                .remove(0)
                .grid;
            if i["solved"].as_bool().unwrap() {
                solved += 1;
                g.verify_solution_of(p).unwrap();
                assert!(i["steps"].as_u64().unwrap() <= 600);
            } else {
                assert_eq!(i["steps"], 600);
                assert!(!g.is_solution_of(p));
            }
        }
    }
    // Lines are the puzzles' lines in the file (comment and blank line skipped).
    let lines: Vec<u64> = files[0]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [2, 2, 2, 4, 4, 4, 5, 5, 5]);
    assert_eq!(v["overall"]["solved"], solved);
    assert_eq!(v["overall"]["instances"], 12);
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv.lines().count(), 13);
    assert!(
        csv.starts_with(
            "file,label,puzzle,line,run,solved,steps,grid,param_compare,param_lp,param_lr,"
        ),
        "{csv}"
    );
}

#[test]
fn json_does_not_depend_on_the_thread_count() {
    let (nine, _) = files();
    let json = tmp("det.json");
    let go = |threads: Option<&str>| {
        let mut c = bin();
        c.args([
            "batch",
            &nine,
            "--runs",
            "4",
            "--lr",
            "0.175",
            "--lp",
            "3.5",
            "--sr",
            "20",
            "--steps",
            "120",
            "--backend",
            "cpu",
            "--json",
            json.to_str().unwrap(),
        ]);
        if let Some(t) = threads {
            c.env("RAYON_NUM_THREADS", t);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        strip_timing(&mut v);
        v
    };
    let one = go(Some("1"));
    assert_eq!(one, go(None));
    assert_eq!(one, go(Some("3")));
}

#[test]
fn bad_parameters_fail_with_clear_messages() {
    let (nine, _) = files();
    let cases: &[(&[&str], &str)] = &[
        (&["--lp", "-1"], "--lp: must be"),
        (&["--lr", "0"], "--lr: must be"),
        (
            &["--sr", "300"],
            "--sr: 300 is larger than the step limit 250",
        ),
        (
            &["--restart", "300"],
            "--restart: 300 is larger than the step limit 250",
        ),
        (&["--runs", "0"], "invalid value '0' for '--runs <RUNS>'"),
        (&["--steps", "0"], "--steps: must be between"),
        (
            &["--penalty-floor", "1"],
            "--penalty-floor: must be in [0, 1)",
        ),
        (
            &["--share", "-0.5"],
            "--share: must be a number in [0, 1000]",
        ),
        (
            &["--share", "NaN"],
            "--share: must be a number in [0, 1000]",
        ),
        // A value the preset set says so; one the user gave does not.
        (
            &["--preset", "pruned", "--steps", "500"],
            "--restart: 750 is larger than the step limit 500: the restart would never run (0 \
             turns it off) (--restart comes from --preset pruned; give --restart to change it)",
        ),
    ];
    for (extra, msg) in cases {
        let mut args = vec!["batch", nine.as_str()];
        args.extend_from_slice(extra);
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?} should fail");
        assert!(err.contains(msg), "{extra:?}: {err}");
    }
    let out = run(&[
        "batch",
        nine.as_str(),
        "--preset",
        "pruned",
        "--steps",
        "500",
        "--restart",
        "600",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--restart: 600 is larger") && !err.contains("comes from"),
        "{err}"
    );
    // A bad puzzle file: file, line and column.
    let bad = tmp("bad.txt");
    std::fs::write(&bad, format!("{CLASSIC}\n53..7..x.{}\n", &CLASSIC[9..])).unwrap();
    let out = run(&["batch", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("bad.txt:2:8"), "{err}");
    let out = run(&["trace", CLASSIC, "--lp", "-2"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--lp: must be"));
    let out = run(&["trace", "not a puzzle"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither a readable file nor a puzzle"));
}

/// The paper's Fig. 3 puzzle under the improved variant (docs/REPRODUCTION.md): every run solves it.
#[test]
fn fig3_puzzle_is_solved_by_the_improved_variant() {
    let file = tmp("fig3.txt");
    std::fs::write(&file, format!("{CLASSIC}\n")).unwrap();
    let json = tmp("fig3.json");
    let out = run(&[
        "batch",
        file.to_str().unwrap(),
        "--runs",
        "10",
        "--lr",
        "0.01",
        "--lp",
        "1",
        "--sr",
        "50",
        "--restart",
        "500",
        "--steps",
        "20000",
        "--backend",
        "cpu",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let p = grid(CLASSIC);
    for i in v["files"][0]["instances"].as_array().unwrap() {
        assert_eq!(i["solved"], true, "{i}");
        let g = grid(i["grid"].as_str().unwrap());
        g.verify_solution_of(&p).unwrap();
        assert_eq!(g, grid(CLASSIC_SOLUTION)); // the puzzle is unique
    }
}

#[test]
fn trace_shows_every_step_and_the_probabilities_behind_each_choice() {
    let csv = tmp("trace.csv");
    let out = run(&[
        "trace",
        CLASSIC,
        "--lr",
        "0.05",
        "--steps",
        "60",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("step 1: 51 changed"), "{stdout}");
    let last = stdout.lines().last().unwrap();
    let steps = if let Some(rest) = last.strip_prefix("solved at step ") {
        let s: usize = rest.split(' ').next().unwrap().parse().unwrap();
        let g = grid(last.rsplit(' ').next().unwrap());
        g.verify_solution_of(&grid(CLASSIC)).unwrap();
        s
    } else {
        assert!(last.starts_with("not solved within 60 steps"), "{last}");
        60
    };
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.len(), 10 + 9);
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), steps * 81);
    for r in &rows {
        let p: Vec<f64> = r[10..].iter().map(|x| x.parse().unwrap()).collect();
        let sum: f64 = p.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "{r:?}");
        // The state is a digit of largest probability (Definition 3).
        let state: usize = r[5].parse().unwrap();
        let max = p.iter().cloned().fold(0.0, f64::max);
        assert_eq!(p[state - 1], max, "{r:?}");
        if r[4] == "1" {
            assert_eq!(p[state - 1], 1.0);
            assert_eq!(r[8], "-");
        }
    }
    // Step 1 picks a digit in every free cell: 51 changes.
    assert_eq!(rows[..81].iter().filter(|r| r[6] == "1").count(), 51);
    // A file and an index select the same instance as `batch` does.
    let (nine, _) = files();
    let out = run(&["trace", &nine, "--index", "7"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--index 7 is out of range"));
    let a = run(&["trace", &nine, "--index", "0", "--no-grids"]);
    let b = run(&["trace", CLASSIC, "--no-grids"]);
    let body = |o: &Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&a), body(&b));
}

#[test]
fn tie_first_ignores_the_seed_so_each_puzzle_runs_once_without_tts() {
    let json = tmp("tie-first.json");
    let o = run(&[
        "batch",
        "puzzles/easy.txt",
        "--tie",
        "first",
        "--runs",
        "5",
        "--steps",
        "100",
        "--backend",
        "cpu",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--tie first ignores the seed"), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("1 run/puzzle (deterministic)"), "{out}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["runs"], 1);
    let s = &v["files"][0]["summary"];
    assert_eq!(s["instances"], 100);
    assert!(s["solved"].as_u64().unwrap() > 0, "{s}");
    assert!(
        s["tts99"].is_null() && v["overall"]["tts99"].is_null(),
        "{s}"
    );
    std::fs::remove_file(&json).ok();
}

#[test]
fn a_sweep_with_tie_first_runs_each_puzzle_once() {
    let csv = tmp("tie-first-sweep.csv");
    let o = run(&[
        "sweep",
        "puzzles/easy.txt",
        "--tie",
        "first",
        "--runs",
        "5",
        "--lr",
        "0.5:1:0.5",
        "--backend",
        "cpu",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--tie first ignores the seed"), "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let head: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let file_rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|r| r[col("group")] == "file")
        .collect();
    assert_eq!(file_rows.len(), 2, "{text}");
    for r in file_rows {
        assert_eq!((r[col("puzzles")], r[col("instances")]), ("100", "100"));
    }
    std::fs::remove_file(&csv).ok();
}

#[test]
fn reports_keep_each_puzzles_extra_fields() {
    // famous.txt names its puzzles (`name=ai-escargot`); pandas users group by those.
    let (json, csv) = (tmp("extras.json"), tmp("extras.csv"));
    let o = run(&[
        "batch",
        "puzzles/famous.txt",
        "--runs",
        "2",
        "--steps",
        "5",
        "--backend",
        "cpu",
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["files"][0]["puzzles"][0]["extra"], "name=ai-escargot");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().ends_with(",extra"));
    let first_two: Vec<&str> = lines.take(2).collect();
    assert!(
        first_two.iter().all(|l| l.ends_with(",name=ai-escargot")),
        "{first_two:?}"
    );
    std::fs::remove_file(&json).ok();
    std::fs::remove_file(&csv).ok();
}

/// The paper's rate stands beside the paper's own instances only: a 16x16 file generated with
/// the same tier word gets none, and the overall row gets the paper's overall rate only when the
/// files are its four tiers (the paper's 72.5% is over all four, not over hard and evil).
#[test]
fn the_paper_column_is_only_beside_the_papers_instances() {
    let table = |files: &[&str]| {
        let mut args = vec!["batch"];
        args.extend_from_slice(files);
        args.extend_from_slice(&["--runs", "1", "--backend", "cpu"]);
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let row = |out: &str, label: &str| -> String {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(label))
            .unwrap_or_else(|| panic!("no {label} row in {out}"))
            .to_string()
    };
    // puzzles/16x16.txt was made with `--tier medium --unique --size 16`.
    let out = table(&["puzzles/16x16.txt", "puzzles/hard.txt"]);
    assert!(row(&out, "16x16").contains(" – "), "{out}");
    assert!(!out.contains("96.7%") && !out.contains("medium"), "{out}");
    assert!(row(&out, "hard").contains("58%"), "{out}");
    assert!(!row(&out, "overall").contains("72.5%"), "{out}");
    let out = table(&["puzzles/hard.txt", "puzzles/evil.txt"]);
    assert!(!row(&out, "overall").contains("72.5%"), "{out}");
    let out = table(&[
        "puzzles/easy.txt",
        "puzzles/medium.txt",
        "puzzles/hard.txt",
        "puzzles/evil.txt",
    ]);
    assert!(row(&out, "overall").contains("72.5%"), "{out}");
}

/// `trace --csv -` keeps standard output a CSV: the human trace goes to standard error (its
/// grids came first on stdout, the CSV header at line 39), for ILCA and RFSS.
#[test]
fn trace_csv_to_stdout_is_only_the_csv() {
    for (args, head) in [
        (&["--steps", "5"][..], "step,cell,"),
        (
            &["--algo", "rfss", "--max-generations", "20", "--every", "10"][..],
            "generation,conflicts,",
        ),
    ] {
        let mut all = vec!["trace", "puzzles/classic.txt"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--csv", "-"]);
        let o = run(&all);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.starts_with(head), "{}", &out[..out.len().min(300)]);
        let columns = out.lines().next().unwrap().split(',').count();
        assert!(out.lines().all(|l| l.split(',').count() == columns));
        // The trace itself is on standard error.
        assert!(String::from_utf8_lossy(&o.stderr).contains("solved"));
    }
}

/// Resource sharing (not in the paper) is named in the report's setting line and in the JSON,
/// and changes the runs; the preset `shared` sets it.
#[test]
fn resource_sharing_is_reported_and_changes_the_runs() {
    // Hard puzzles and few steps: the runs that ILCA (not the pruning) decides differ.
    let evil = format!("{}/puzzles/unique/evil.txt", env!("CARGO_MANIFEST_DIR"));
    let go = |extra: &[&str]| -> (String, Value) {
        let json = tmp(&format!("share{}.json", extra.len()));
        let mut args = vec![
            "batch",
            evil.as_str(),
            "--steps",
            "300",
            "--runs",
            "1",
            "--backend",
            "cpu",
            "--json",
            json.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = run(&args);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{all}");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (all, v)
    };
    let (text, v) = go(&["--preset", "shared"]);
    assert!(text.contains("share 0.05 (not in the paper)"), "{text}");
    assert_eq!(v["params"]["share"], 0.05);
    assert_eq!(v["params"]["sr"], 20);
    let (text, off) = go(&["--preset", "shared", "--share", "0"]);
    assert!(!text.contains("share 0"), "{text}");
    assert_eq!(off["params"]["share"], 0.0);
    let steps = |v: &Value| v["files"][0]["instances"].to_string();
    assert_ne!(steps(&v), steps(&off), "sharing changes some run");
    // A share so large that a row's every product is flushed: the trace says which steps left
    // cells with no weight (they start again from their initial weights), and its CSV never
    // shows a cell whose probabilities are all 0.
    let csv = tmp("emptied.csv");
    let out = run(&[
        "trace",
        evil.as_str(),
        "--preset",
        "shared",
        "--share",
        "1000",
        "--restart",
        "0",
        "--steps",
        "300",
        "--no-grids",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("left with no weight: initial weights back)"),
        "{text}"
    );
    // The cells the pruning placed before step 1 are named, not left to appear from nowhere.
    assert!(
        text.contains("--prune logic placed 23 cells before step 1 (not in the paper)\n"),
        "{text}"
    );
    let written = std::fs::read_to_string(&csv).unwrap();
    let head: Vec<&str> = written.lines().next().unwrap().split(',').collect();
    let p1 = head.iter().position(|&h| h == "p1").unwrap();
    for line in written.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let mass: f64 = f[p1..p1 + 9]
            .iter()
            .map(|x| x.parse::<f64>().unwrap())
            .sum();
        assert!(mass > 0.5, "a cell with no weight: {line}");
    }
}

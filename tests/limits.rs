//! Counts that do not fit are refused, runs that would not fit in memory or on disk are
//! refused before they start, saying what they would cost, and long runs stream their records
//! to disk instead of holding them.

mod common;
use common::run;

fn refused(args: &[&str]) -> String {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} must be refused");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

#[test]
fn counts_that_do_not_fit_are_refused() {
    let huge = "18446744073709551615";
    for args in [
        vec!["batch", "puzzles/classic.txt", "--runs", huge],
        vec!["compare", "puzzles/classic.txt", "--runs", huge],
    ] {
        let e = refused(&args);
        assert!(e.contains("--runs"), "{args:?}: {e}");
    }
    // generate held every puzzle before writing: this grew without end.
    let e = refused(&[
        "generate", "--model", "paper", "--size", "4", "--d", "0.5", "--count", huge,
    ]);
    assert!(e.contains("use a smaller --count"), "{e}");
    let e = refused(&[
        "compare",
        "puzzles/classic.txt",
        "--algos",
        "ilca",
        "--max-iterations",
        "4294967296",
    ]);
    assert!(
        e.contains("too large for ILCA steps (at most 4294967295)"),
        "{e}"
    );
    let e = refused(&["trace", "puzzles/classic.txt", "--run", "4294967296"]);
    assert!(e.contains("--run: 4294967296 does not fit"), "{e}");
    let e = refused(&["trace", "puzzles/classic.txt", "--index", "4294967296"]);
    assert!(e.contains("out of range"), "{e}");
}

/// Commands that hold every instance at once (bench, reproduce) refuse a count whose
/// instances would not fit in memory, before any work and without an allocation abort.
#[test]
fn commands_holding_every_instance_refuse_what_would_not_fit() {
    for args in [
        vec!["bench", "puzzles/classic.txt", "--runs", "4294967296"],
        vec![
            "reproduce",
            "ilca",
            "--table",
            "2",
            "--backend",
            "cpu",
            "--runs",
            "1000000000",
        ],
        vec![
            "reproduce",
            "baselines",
            "--what",
            "ga",
            "--runs",
            "4294967295",
        ],
    ] {
        let e = refused(&args);
        assert!(e.contains("instances would need about"), "{args:?}: {e}");
        assert!(e.contains("use fewer --runs"), "{args:?}: {e}");
        assert!(!e.contains("memory allocation"), "{args:?}: {e}");
    }
}

#[test]
fn runs_that_would_not_fit_in_memory_or_on_disk_are_refused_at_once() {
    let t = std::time::Instant::now();
    let dir = std::env::temp_dir().join(format!("gpu-sudoku-limits-{}", std::process::id()));
    let report = dir.join("r.json");
    // 4e9 records of about 380 bytes: petabytes, more than any disk here.
    let e = refused(&[
        "batch",
        "puzzles/classic.txt",
        "--runs",
        "4000000000",
        "--backend",
        "cpu",
        "--json",
        report.to_str().unwrap(),
        "--csv",
        "-",
    ]);
    assert!(e.contains("4000000000 instances would take about"), "{e}");
    assert!(e.contains("of disk") && e.contains("free at"), "{e}");
    assert!(e.contains("use fewer --runs"), "{e}");
    assert!(!report.exists(), "nothing written");
    // Chunks are what a batch holds: one too large for memory is refused.
    let e = refused(&[
        "batch",
        "puzzles/classic.txt",
        "--runs",
        "1000000000",
        "--chunk",
        "4000000000",
        "--backend",
        "cpu",
    ]);
    assert!(e.contains("instances would need about"), "{e}");
    assert!(e.contains("use a smaller --chunk"), "{e}");
    let e = refused(&[
        "compare",
        "puzzles/classic.txt",
        "--runs",
        "4000000000",
        "--algos",
        "mrv",
    ]);
    assert!(e.contains("instances would need about"), "{e}");
    assert!(t.elapsed().as_secs() < 20, "refused before any work");
    std::fs::remove_dir_all(&dir).ok();
}

/// The peak resident memory (VmHWM) of a child process, polled until it exits.
#[cfg(target_os = "linux")]
fn peak_memory_kb(mut child: std::process::Child) -> (std::process::ExitStatus, u64) {
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            if let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status, peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Ten 4x4 puzzles (`generate --model paper --size 4 --d 0.5 --count 10`).
const PUZZLES_4X4: &str = ".34....14..3312.\n...112.3..1221..\n31.424.3.23.....\n\
         .1422..3....4.21\n12.4...1.14...13\n3..22...1324..3.\n\
         42..3.4.2..414..\n312.4..124.3....\n1..224..4..3..14\n.12.2.4..2343...\n";

/// A fresh folder for test `name` holding `p4.txt` (the puzzles above): (folder, file).
fn folder_with_puzzles(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("gpu-sudoku-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let puzzles = dir.join("p4.txt");
    std::fs::write(&puzzles, PUZZLES_4X4).unwrap();
    (dir, puzzles)
}

#[test]
fn wall_time_counts_each_chunk_once() {
    // Runs that take most of the process's time: the reported wall time must stay within it.
    let (dir, puzzles) = folder_with_puzzles("wall");
    let json = dir.join("r.json");
    let started = std::time::Instant::now();
    let out = common::run(&[
        "batch",
        puzzles.to_str().unwrap(),
        "--runs",
        "2000",
        "--steps",
        "300",
        "--chunk",
        "1024",
        "--backend",
        "cpu",
        "--json",
        json.to_str().unwrap(),
    ]);
    let elapsed = started.elapsed().as_secs_f64();
    common::ok(&out);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let wall = v["overall"]["timing"]["wall_s"].as_f64().unwrap();
    assert!(
        wall > 0.0 && wall < elapsed,
        "wall {wall} s, process {elapsed} s"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `args` with `--json r.json --csv r.csv` in `dir`, watching its memory: its peak
/// resident memory in kB, the CSV text, the JSON report, the seconds it took.
#[cfg(target_os = "linux")]
fn run_watched(dir: &std::path::Path, args: &[&str]) -> (u64, String, serde_json::Value, f64) {
    let (json, csv) = (dir.join("r.json"), dir.join("r.csv"));
    let started = std::time::Instant::now();
    let child = common::bin()
        .args(args)
        .arg("--json")
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (status, peak_kb) = peak_memory_kb(child);
    let elapsed = started.elapsed().as_secs_f64();
    assert!(status.success(), "{args:?}");
    assert!(
        !dir.join("r.json.partial.jsonl").exists(),
        "the journal is gone"
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let v = serde_json::from_reader(std::io::BufReader::new(std::fs::File::open(&json).unwrap()))
        .unwrap();
    (peak_kb, text, v, elapsed)
}

#[cfg(target_os = "linux")]
#[test]
fn long_runs_stream_their_records_instead_of_holding_them() {
    // 400,000 4x4 instances with both reports: held until the end, their records took about
    // 390 bytes each (about 150 MB); streamed through the journal, the process stays near its
    // base size whatever the count.
    let (dir, puzzles) = folder_with_puzzles("stream");
    let (peak_kb, text, v, elapsed) = run_watched(
        &dir,
        &[
            "batch",
            puzzles.to_str().unwrap(),
            "--runs",
            "40000",
            "--steps",
            "1",
            "--backend",
            "cpu",
        ],
    );
    assert!(
        peak_kb < 80_000,
        "the batch held {peak_kb} kB at its peak: records are held, not streamed"
    );
    // Every record is in both reports, in (puzzle, run) order.
    assert_eq!(text.lines().count(), 400_001);
    let last = text.lines().last().unwrap();
    assert!(last.contains(",9,10,39999,"), "{last}");
    let instances = v["files"][0]["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 400_000);
    assert_eq!(v["files"][0]["summary"]["instances"], 400_000);
    assert_eq!(instances[399_999]["run"], 39_999);
    // The run's wall time counts each chunk once (it is within the process's own time).
    let wall = v["files"][0]["summary"]["timing"]["wall_s"]
        .as_f64()
        .unwrap();
    assert!(
        wall > 0.0 && wall < elapsed,
        "wall {wall} s, process {elapsed} s"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(target_os = "linux")]
#[test]
fn long_compares_stream_their_attempts_instead_of_holding_them() {
    // 200,000 attempts of MRV on 4x4 puzzles with both reports: held until the end, their
    // records and the JSON text made of them peaked at 103 MB (debug build, 2026-11-25);
    // streamed through the journal, 32 bytes of outcome each are held for the table (23 MB).
    let (dir, puzzles) = folder_with_puzzles("compare-stream");
    let (peak_kb, text, v, _) = run_watched(
        &dir,
        &[
            "compare",
            puzzles.to_str().unwrap(),
            "--algos",
            "mrv",
            "--runs",
            "20000",
            "--time-limit",
            "0",
            "--max-iterations",
            "100",
        ],
    );
    assert!(
        peak_kb < 60_000,
        "compare held {peak_kb} kB at its peak: attempts are held, not streamed"
    );
    assert_eq!(text.lines().count(), 200_001);
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("mrv,p4,9,19999,true,"), "{last}");
    let attempts = v["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 200_000);
    assert_eq!(attempts[199_999]["run"], 19_999);
    assert_eq!(v["rows"][0]["attempts"], 200_000);
    assert_eq!(v["rows"][0]["solved"], 200_000);
    assert_eq!(v["rows"][0]["unit"], "nodes");
    std::fs::remove_dir_all(&dir).ok();
}

/// The disk estimate is an upper bound on the worst inputs: a Kaggle-style CSV under a long
/// path whose rows carry a solution column and long extra fields (the estimate allowed about
/// 241 bytes per instance where the JSON took 341, and the run failed at the end).
#[test]
fn the_disk_estimate_bounds_the_reports_of_wordy_inputs() {
    let d = common::temp_dir("limits-disk-bound");
    let dir = d
        .join("a-rather-long-folder-name-for-the-paths")
        .join("of-puzzles");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("kaggle-style-with-solutions.csv");
    let mut text = String::from("quizzes,solutions,source,rating,comment\n");
    for p in gpu_sudoku::puzzle::read_puzzles("puzzles/famous.txt", None)
        .unwrap()
        .puzzles
    {
        let solution = gpu_sudoku::exact::solve(&p.grid).unwrap();
        text += &format!(
            "{},{},generated \"by hand\" for the test,523,a free-text comment of some length\n",
            p.grid.to_line(),
            solution.to_line()
        );
    }
    std::fs::write(&file, text).unwrap();
    for runs in [1usize, 7] {
        disk_estimate_bounds(&d, file.to_str().unwrap(), runs);
    }
    std::fs::remove_dir_all(&d).ok();
}

/// Runs a 5-step CPU batch of `path` with `runs` runs and checks that the disk estimate bounds
/// the JSON and CSV written, within a factor of two.
fn disk_estimate_bounds(d: &std::path::Path, path: &str, runs: usize) {
    use gpu_sudoku::ilca::IlcaParams;
    use gpu_sudoku::job::batch::{Plan, Request};
    let (json, csv) = (d.join("r.json"), d.join("r.csv"));
    common::ok(&run(&[
        "batch",
        path,
        "--runs",
        &runs.to_string(),
        "--steps",
        "5",
        "--backend",
        "cpu",
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]));
    let input = gpu_sudoku::puzzle::read_puzzles(path, None).unwrap();
    let instances = (input.puzzles.len() * runs) as u64;
    let params = IlcaParams {
        steps: 5,
        ..IlcaParams::default()
    };
    let request = Request::ilca(vec![input], params, runs);
    let bound = Plan::new(&request).unwrap().record_bytes();
    let size = |p: &std::path::Path| std::fs::metadata(p).unwrap().len();
    // What the disk check counts: the records, and the files' fixed part.
    let fixed = gpu_sudoku::limits::REPORT_FIXED_BYTES;
    assert!(
        size(&json) <= bound.json * instances + fixed,
        "{path}, {runs}: {} > {}",
        size(&json),
        bound.json * instances + fixed
    );
    assert!(
        size(&csv) <= bound.csv * instances + fixed,
        "{path}, {runs}: {} > {}",
        size(&csv),
        bound.csv * instances + fixed
    );
    // A bound, not a guess far off: the records' part within a factor of two of what was
    // written.
    assert!(bound.json * instances < 2 * size(&json) && bound.csv * instances < 2 * size(&csv));
}

/// The same bound on the largest grids: 64x64 records are 4,096-character grids.
#[test]
fn the_disk_estimate_bounds_64x64_reports() {
    let d = common::temp_dir("limits-disk-64");
    let file = d.join("p64.txt");
    common::ok(&run(&[
        "generate",
        "--model",
        "paper",
        "--d",
        "0.5",
        "--size",
        "64",
        "--count",
        "2",
        "--seed",
        "1",
        "-o",
        file.to_str().unwrap(),
    ]));
    for runs in [1usize, 3] {
        disk_estimate_bounds(&d, file.to_str().unwrap(), runs);
    }
    std::fs::remove_dir_all(&d).ok();
}

#[cfg(target_os = "linux")]
#[test]
fn solve_rate_and_batch_stream_big_files_instead_of_holding_them() {
    // 60,000 puzzles with 400 bytes of extra fields each (24 MB): held whole, `rate` peaked at
    // 139 MB, `solve` at 46 MB and `batch` at 117 MB (release build, 2026-11-28); streamed in
    // chunks, all three stay near the process's base size whatever the file's length. Several
    // chunks, so that their seams are crossed: every answer, row and total must still be
    // there, in order.
    let (dir, _) = folder_with_puzzles("stream-inputs");
    let note = format!("note={}", "x".repeat(400));
    let mut text = String::new();
    for _ in 0..6000 {
        for p in PUZZLES_4X4.split_whitespace() {
            text.push_str(&format!("{p} {note}\n"));
        }
    }
    let big = dir.join("big.txt");
    std::fs::write(&big, &text).unwrap();
    let big = big.to_str().unwrap();
    let watched = |args: &[&str]| {
        let out = dir.join("out.txt");
        let child = common::bin()
            .args(args)
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let (status, peak_kb) = peak_memory_kb(child);
        assert!(status.success(), "{args:?}");
        assert!(
            peak_kb < 40_000,
            "{args:?} held {peak_kb} kB at its peak: the file is held, not streamed"
        );
        std::fs::read_to_string(&out).unwrap()
    };
    let answers = watched(&["solve", big, "--any"]);
    assert_eq!(answers.lines().count(), 60_000);
    let first: Vec<&str> = answers.lines().take(10).collect();
    for (k, line) in answers.lines().enumerate() {
        assert_eq!(line, first[k % 10], "answer {k}");
    }
    let (json, csv) = (dir.join("r.json"), dir.join("r.csv"));
    let table = watched(&[
        "rate",
        big,
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(table.lines().count(), 60_002, "heading, rows, totals");
    assert!(table.lines().last().unwrap().contains("60000 puzzles"));
    let v: serde_json::Value =
        serde_json::from_reader(std::io::BufReader::new(std::fs::File::open(&json).unwrap()))
            .unwrap();
    assert_eq!(v["inputs"][0]["puzzles"], 60_000);
    let rows = v["puzzles"].as_array().unwrap();
    assert_eq!(rows.len(), 60_000);
    assert_eq!(rows[59_999]["line"], 60_000);
    assert_eq!(rows[59_999]["extra"], note.as_str());
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv.lines().count(), 60_001);
    // The batch reads the file window by window and writes its per-puzzle rows and records
    // from the file read again: every row with its line and extra fields, in order.
    let (json, csv) = (dir.join("b.json"), dir.join("b.csv"));
    let table = watched(&[
        "batch",
        big,
        "--runs",
        "1",
        "--steps",
        "1",
        "--backend",
        "cpu",
        "--json",
        json.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(table
        .lines()
        .any(|l| l.starts_with("big ") && l.contains("60000")));
    let b: serde_json::Value =
        serde_json::from_reader(std::io::BufReader::new(std::fs::File::open(&json).unwrap()))
            .unwrap();
    // The input is named by the same content hash as `rate` names it.
    assert_eq!(v["inputs"][0]["hash"], b["inputs"][0]["hash"]);
    let (rows, records) = (
        b["files"][0]["puzzles"].as_array().unwrap(),
        b["files"][0]["instances"].as_array().unwrap(),
    );
    assert_eq!((rows.len(), records.len()), (60_000, 60_000));
    for k in [0, 16_383, 16_384, 32_768, 59_999] {
        assert_eq!(rows[k]["line"], k + 1);
        assert_eq!(records[k]["line"], k + 1);
        assert_eq!(rows[k]["extra"], note.as_str());
    }
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv.lines().count(), 60_001);
    assert!(csv.lines().last().unwrap().ends_with(&note));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn generate_gives_up_at_its_time_limit_and_writes_nothing() {
    // A rated 64x64 puzzle took longer than 400 s before the limit (#33); with it the run stops
    // at the limit, says which limit and where to read what each size takes, and writes nothing.
    let dir = common::temp_dir("generate-limit");
    let out = dir.join("big.txt");
    let started = std::time::Instant::now();
    let r = run(&[
        "generate",
        "--model",
        "rated",
        "--tier",
        "evil",
        "--size",
        "64",
        "--count",
        "2",
        "--time-limit",
        "300ms",
        "-o",
        out.to_str().unwrap(),
    ]);
    let took = started.elapsed().as_secs_f64();
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("--time-limit 300ms per puzzle") && err.contains("docs/PUZZLES.md"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
    assert!(took < 60.0, "the limit bounds the run: {took} s");
    // A limit that is not reached changes nothing: the same bytes as without one.
    let generate = |limit: &str| {
        let args = [
            "generate", "--model", "rated", "--tier", "hard", "--count", "3",
        ];
        run(&[&args[..], &["--time-limit", limit]].concat())
    };
    let (with, without) = (generate("1h"), generate("0"));
    common::ok(&with);
    common::ok(&without);
    assert_eq!(with.stdout, without.stdout);
    std::fs::remove_dir_all(&dir).ok();
}

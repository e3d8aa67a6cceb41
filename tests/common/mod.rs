//! Test data and helpers shared by the integration tests: the classic puzzle, deterministic
//! puzzles of any size, the GPU-or-skip rule, and running the binary.
#![allow(dead_code, unused_imports)] // each test binary uses its own part

use gpu_sudoku::gpu::Gpu;
use gpu_sudoku::puzzle::{parse_str, Grid};
use std::process::{Command, Output};

pub use gpu_sudoku::generate::pattern_puzzle;
pub use gpu_sudoku::puzzle::CLASSIC;

/// `puzzles/evil.txt` #97 (paper model, 10 clues): with `--enhance lookahead` and a stall of 3,
/// two of its nodes keep changing their read-off until the node cap decides on them.
pub const CYCLING: &str =
    "......2..........8..............6........3.............1.....2.9........8....7...";

/// Norvig's "hard1" (top95 #1): plain RFSS stalls on it.
pub const HARD: &str =
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

/// The grid of a one-line puzzle.
pub fn grid(line: &str) -> Grid {
    parse_str(line, None).unwrap().remove(0).grid
}

/// Environment variable that turns a missing adapter into a failure (CI sets it to 1).
pub const REQUIRE_GPU_ENV: &str = "GPU_SUDOKU_REQUIRE_GPU";

/// The GPU shared by a test binary, or `None` (with a loud SKIPPED) on a machine without an
/// adapter. Panics when [`REQUIRE_GPU_ENV`] is `1` and no adapter opens.
pub fn gpu() -> Option<&'static Gpu> {
    use std::sync::OnceLock;
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    let gpu = GPU.get_or_init(|| match Gpu::open(None) {
        Ok(g) => Some(g),
        Err(e) => {
            if std::env::var(REQUIRE_GPU_ENV).as_deref() == Ok("1") {
                panic!("{REQUIRE_GPU_ENV}=1 but no GPU adapter: {e:#}");
            }
            None
        }
    });
    if gpu.is_none() {
        eprintln!(
            "SKIPPED: no GPU adapter on this machine (install mesa-vulkan-drivers for lavapipe)"
        );
    }
    gpu.as_ref()
}

/// The `gpu-sudoku` binary, with a quiet Vulkan loader.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"));
    c.env("XDG_RUNTIME_DIR", "/tmp");
    c
}

/// Runs the binary with `args`.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

/// Stdout of a run that must succeed (the run's stderr in the panic message otherwise).
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Stderr of a run that must fail with exit code 1.
pub fn fails(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(1),
        "should fail: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Stderr of a run that must fail with exit code `code`.
pub fn fails_with(o: &Output, code: i32) -> String {
    assert_eq!(
        o.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A fresh empty folder for one test's files.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("gpu-sudoku-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Drops the fields of a batch JSON report that legitimately differ between backends (where,
/// when, how fast), so that a CPU report and a GPU report can be compared with `==`.
pub fn strip_where_and_when(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            // The digest covers every byte, these included.
            for k in [
                "backend",
                "adapter",
                "command",
                "timing",
                "provenance",
                "digest",
            ] {
                m.remove(k);
            }
            m.values_mut().for_each(strip_where_and_when);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_where_and_when),
        _ => {}
    }
}

/// Drops what legitimately differs between two runs of the same work (a sharded and a whole
/// run, a resumed and an uninterrupted one): times, command, provenance, backend, adapter,
/// the shard, and the digest (of every byte, these included).
pub fn strip_run_specific(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for k in [
                "timing",
                "command",
                "provenance",
                "backend",
                "adapter",
                "shard",
                "seconds",
                "median_ms",
                "mean_ms",
                "tts99_s",
                "tts99_puzzle_median_s",
                "digest",
            ] {
                m.remove(k);
            }
            m.values_mut().for_each(strip_run_specific);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_run_specific),
        _ => {}
    }
}

/// Runs `args` as shards 1/2 and 2/2 into `dir` (`{stem}1.json`, `{stem}1.csv`, …); the two
/// reports' paths.
pub fn two_shards(dir: &std::path::Path, stem: &str, args: &[&str]) -> Vec<String> {
    (1..=2)
        .map(|k| {
            let p = dir.join(format!("{stem}{k}.json"));
            let csv = dir.join(format!("{stem}{k}.csv"));
            ok(&bin()
                .args(args)
                .args(["--shard", &format!("{k}/2"), "--json", p.to_str().unwrap()])
                .args(["--csv", csv.to_str().unwrap()])
                .output()
                .unwrap());
            p.display().to_string()
        })
        .collect()
}

/// Kills `child` once the journal at `journal` holds `lines` lines (its header and
/// `lines - 1` finished chunks or blocks), or after 120 s; waits for it to end.
pub fn kill_when_journal_has(
    child: &mut std::process::Child,
    journal: &std::path::Path,
    lines: usize,
) {
    let t = std::time::Instant::now();
    loop {
        let n = std::fs::read_to_string(journal).map_or(0, |s| s.lines().count());
        if n >= lines || t.elapsed().as_secs() > 120 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

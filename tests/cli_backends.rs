//! `gpu-sudoku batch` on the GPU writes the same JSON as on the CPU, except for the fields that
//! say where and how fast it ran. Skips loudly without an adapter (fails with
//! GPU_SUDOKU_REQUIRE_GPU=1).

mod common;
use common::strip_where_and_when;
use std::process::Command;

const PUZZLES: &str = "\
# two 9x9 puzzles
53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79
.346789126.2195348198342567859761423426853791713924856961537284287419635345286179
";

fn batch_json(dir: &std::path::Path, backend: &str) -> serde_json::Value {
    let out = dir.join(format!("{backend}.json"));
    let st = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
        .args([
            "batch",
            dir.join("p.txt").to_str().unwrap(),
            "--runs",
            "4",
            "--steps",
            "60",
        ])
        .args([
            "--lr",
            "0.05",
            "--compare",
            "free",
            "--sr",
            "25",
            "--backend",
            backend,
        ])
        .args(["--json", out.to_str().unwrap()])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

#[test]
fn gpu_json_equals_cpu_json_but_for_backend_and_timing() {
    if common::gpu().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("gpu-sudoku-backends-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("p.txt"), PUZZLES).unwrap();
    let (mut cpu, mut gpu) = (batch_json(&dir, "cpu"), batch_json(&dir, "gpu"));
    assert_eq!(cpu["backend"], "cpu");
    assert_eq!(gpu["backend"], "gpu");
    assert!(gpu["adapter"].is_string());
    strip_where_and_when(&mut cpu);
    strip_where_and_when(&mut gpu);
    assert_eq!(cpu, gpu);
    let solved = cpu["overall"]["solved"].as_u64().unwrap_or(0);
    assert!(solved > 0, "the test should solve something: {cpu}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `bench` times the GPU after a warm-up run, reports the median of `--repeat` runs and the
/// warm-up with where their time went, and checks every instance against the CPU; `--no-loop-pass-cap` (a short run,
/// within llvmpipe's loop limit) changes no result.
#[test]
fn bench_repeats_splits_its_time_and_agrees() {
    if common::gpu().is_none() {
        return;
    }
    for extra in [&[][..], &["--no-loop-pass-cap"][..]] {
        let mut args = vec!["bench", "puzzles/evil.txt", "--runs", "1", "--steps", "20"];
        args.extend(["--repeat", "2"]);
        args.extend(extra);
        let out = common::ok(&common::run(&args));
        for want in [
            "gpu runs: first (warm-up, left out)",
            "2 timed: median",
            "gpu median run: prepare",
            "gpu first run: prepare",
            "compute and readback",
            "agreement: all 100 instances run on both engines are identical",
        ] {
            assert!(out.contains(want), "{want:?} missing from:\n{out}");
        }
        assert_eq!(
            out.contains("without the per-dispatch loop-pass cap"),
            !extra.is_empty(),
            "{out}"
        );
    }
    let e = common::fails_with(
        &common::run(&["bench", "puzzles/evil.txt", "--repeat", "0"]),
        2,
    );
    assert!(e.contains("--repeat"), "{e}");

    // The same figures as JSON (here on standard output, the table then on stderr) and CSV.
    let dir = std::env::temp_dir().join(format!("gpu-sudoku-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("b.csv");
    let o = common::run(&[
        "bench",
        "puzzles/evil.txt",
        "--runs",
        "1",
        "--steps",
        "20",
        "--repeat",
        "2",
        "--json",
        "-",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let j: serde_json::Value = serde_json::from_str(&common::ok(&o)).unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("agreement: all 100 instances"));
    assert_eq!(j["tool"], "gpu-sudoku");
    assert_eq!(
        (j["side"].as_u64(), j["puzzles"].as_u64()),
        (Some(9), Some(100))
    );
    assert_eq!(
        (j["compared"].as_u64(), j["mismatches"].as_u64()),
        (Some(100), Some(0))
    );
    assert_eq!(j["gpu"]["instances"], 100);
    assert_eq!(j["gpu"]["instance_steps"], j["cpu"]["instance_steps"]);
    assert_eq!(j["gpu_runs"]["timed"], 2);
    assert_eq!(j["gpu_runs"]["loop_pass_cap"], true);
    for split in ["median_split_ms", "first_split_ms"] {
        assert!(
            j["gpu_runs"][split]["compute_and_readback"]
                .as_f64()
                .unwrap()
                > 0.0,
            "{split}"
        );
    }
    // The unit counts are off for 9x9 by default.
    assert_eq!(j["gpu_runs"]["unit_counts"], false);
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows[0].starts_with("engine,side,instances,solved,instance_steps,seconds"));
    assert!(rows[1].starts_with("cpu,9,100,") && rows[2].starts_with("gpu,9,100,"));
    std::fs::remove_dir_all(&dir).ok();
}

/// The loop-pass cap is a GPU setting: `rfss` refuses to drop it on the CPU.
#[test]
fn rfss_refuses_no_loop_pass_cap_on_the_cpu() {
    let e = common::fails(&common::run(&[
        "rfss",
        "puzzles/classic.txt",
        "--backend",
        "cpu",
        "--no-loop-pass-cap",
    ]));
    assert!(e.contains("--no-loop-pass-cap is a GPU setting"), "{e}");
}

/// `--max-iterations` names the iteration cap on every command that has one; on `bench` it is
/// ILCA's `--steps` (it was missing there).
#[test]
fn bench_takes_max_iterations_as_every_command_does() {
    for cmd in ["batch", "bench"] {
        if cmd == "bench" && common::gpu().is_none() {
            continue;
        }
        let mut args = vec![
            cmd,
            "puzzles/classic.txt",
            "--runs",
            "1",
            "--max-iterations",
            "7",
        ];
        if cmd == "bench" {
            args.extend(["--repeat", "1"]);
        }
        args.extend(["--json", "-"]);
        let v: serde_json::Value = serde_json::from_str(&common::ok(&common::run(&args))).unwrap();
        assert_eq!(v["params"]["steps"], 7, "{cmd}");
        let o = common::run(&[
            cmd,
            "puzzles/classic.txt",
            "--max-iterations",
            "7",
            "--steps",
            "8",
        ]);
        assert_eq!(o.status.code(), Some(2), "{cmd}: both names at once");
    }
}

//! `gpu-sudoku reproduce ilca`: its JSON has, per tier, the paper's rate, the measured rate,
//! its interval and TTS99, and the numbers are those of the matching `batch` run.

mod common;
use common::{ok, run};
use serde_json::Value;

#[test]
fn reproduce_table_2_equals_the_matching_batch() {
    let out = run(&[
        "reproduce",
        "ilca",
        "--table",
        "2",
        "--runs",
        "2",
        "--backend",
        "cpu",
        "--json",
        "-",
    ]);
    let v: Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(v["tool"], "gpu-sudoku");
    assert_eq!(v["runs"], 2);
    let settings = v["settings"].as_array().unwrap();
    assert_eq!(settings.len(), 1, "one table, the default reading");
    let s = &settings[0];
    assert_eq!(s["table"], "Table 2");
    assert_eq!(s["preset"], "alg1");
    assert_eq!(s["reading"]["compare"], "sharing");
    let tiers = s["tiers"].as_array().unwrap();
    let names: Vec<&str> = tiers.iter().map(|t| t["tier"].as_str().unwrap()).collect();
    assert_eq!(names, ["easy", "medium", "hard", "evil"]);
    assert_eq!(tiers[0]["paper"], 99.9);
    assert_eq!(tiers[3]["paper"], 35.5);
    assert_eq!(s["overall"]["paper"], 72.5);
    for t in tiers {
        let m = &t["measured"];
        assert!(m["solved_pct"].is_number());
        assert!(m["solved_pct_95"].as_array().unwrap().len() == 2);
        assert!(m.get("tts99").is_some());
    }
    // The same setting through `batch` on the same files gives the same numbers.
    let batch = run(&[
        "batch",
        "puzzles/easy.txt",
        "puzzles/medium.txt",
        "puzzles/hard.txt",
        "puzzles/evil.txt",
        "--runs",
        "2",
        "--backend",
        "cpu",
        "--json",
        "-",
    ]);
    let b: Value = serde_json::from_str(&ok(&batch)).unwrap();
    for (t, f) in tiers.iter().zip(b["files"].as_array().unwrap()) {
        for k in [
            "solved",
            "instances",
            "solved_pct",
            "solved_pct_95",
            "tts99",
            "mean_steps",
        ] {
            assert_eq!(t["measured"][k], f["summary"][k], "{} {k}", t["tier"]);
        }
    }
    assert_eq!(s["overall"]["measured"]["solved"], b["overall"]["solved"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("Table 2 (preset alg1)"));
}

#[test]
fn readings_and_markdown() {
    let out = run(&[
        "reproduce",
        "ilca",
        "--table",
        "5",
        "--runs",
        "1",
        "--reading",
        "all",
        "--backend",
        "cpu",
        "--markdown",
        "-",
    ]);
    let md = ok(&out);
    assert!(md.contains("### Table 5 (`--preset table5`)"), "{md}");
    assert!(
        md.contains("| **paper** | – | – | 99% | 96% | 98.8% |"),
        "{md}"
    );
    // 9 compare × tie readings and 3 with the sum check (Table 5 resets).
    assert_eq!(
        md.lines()
            .filter(|l| l.starts_with("| sharing")
                || l.starts_with("| free")
                || l.starts_with("| all"))
            .count(),
        12
    );
    assert!(md.contains("| free, keep |") && md.contains("| all, random, sum check |"));
    let e = common::fails(&run(&[
        "reproduce",
        "ilca",
        "--reading",
        "sharing,sometimes",
    ]));
    assert!(e.contains("COMPARE,TIE[,CHECK]"), "{e}");
}

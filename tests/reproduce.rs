//! `gpu-sudoku reproduce ilca`: its JSON has, per tier, the paper's rate, the measured rate,
//! its interval and TTS99, and the numbers are those of the matching `batch` run.

mod common;
use common::{bin, fails, fails_with, ok, run, temp_dir};
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
    // Every file read, hashed, as batch and compare record them.
    let inputs = v["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 4);
    assert_eq!(inputs[3]["path"], "puzzles/evil.txt");
    assert_eq!(inputs[3]["puzzles"], 100);
    assert!(inputs[3]["hash"].as_str().is_some_and(|h| !h.is_empty()));
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
        "2",
        "--reading",
        "all",
        "--backend",
        "cpu",
        "--markdown",
        "-",
    ]);
    let md = ok(&out);
    // The readings with tie first ignore the seed: they ran once per puzzle and say so.
    assert!(md.contains("`--preset table5`), 2 runs per puzzle"), "{md}");
    assert!(
        md.contains("| sharing, first (1 run: deterministic) |"),
        "{md}"
    );
    assert!(md.contains("| sharing, random |"), "{md}");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("reading sharing, first: 1 run per puzzle")
            && text.contains("reading sharing, random: 2 runs per puzzle"),
        "{text}"
    );
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

/// The summary fields that must agree between a `reproduce` row and the matching run.
const SUMMARY_KEYS: [&str; 8] = [
    "puzzles",
    "instances",
    "solved",
    "solved_pct",
    "solved_pct_95",
    "mean_steps",
    "median_steps",
    "instance_steps",
];

#[test]
fn reproduce_rfss_horn_equals_the_matching_rfss_run() {
    let out = run(&[
        "reproduce",
        "rfss",
        "--what",
        "horn",
        "--max-generations",
        "60",
        "--backend",
        "cpu",
        "--json",
        "-",
    ]);
    let v: Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(v["tool"], "gpu-sudoku");
    assert!(v["tiers"].is_null(), "--what horn runs no tiers");
    let horn = &v["horn"];
    // Horn's figures, as the paper gives them.
    assert_eq!(horn["paper"]["species"], 1703);
    assert_eq!(horn["paper"]["clues"], 301);
    assert_eq!(horn["paper"]["generations"], 750_000);
    assert_eq!(horn["paper"]["upper_group"], 324);
    assert_eq!(horn["params"]["max_generations"], 60);
    assert_eq!(horn["params"]["enhancement"], "off");
    let files = horn["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["puzzles/25x25-logic.txt", "puzzles/25x25.txt"]);
    // The same puzzles through `rfss`: the same species, status, conflicts and generations.
    for f in files {
        let rfss = run(&[
            "rfss",
            f["path"].as_str().unwrap(),
            "--max-generations",
            "60",
            "--backend",
            "cpu",
            "--json",
            "-",
        ]);
        let r: Value = serde_json::from_str(&ok(&rfss)).unwrap();
        let ours = f["puzzles"].as_array().unwrap();
        let theirs = r["puzzles"].as_array().unwrap();
        assert_eq!(ours.len(), 5);
        assert_eq!(ours.len(), theirs.len());
        for (a, b) in ours.iter().zip(theirs) {
            assert_eq!(a["clues"], 301);
            assert_eq!(a["blanks"], 324);
            for k in [
                "puzzle",
                "line",
                "status",
                "species",
                "conflicts",
                "generations",
            ] {
                assert_eq!(a[k], b[k], "{} {k}", f["path"]);
            }
        }
        let solved = theirs.iter().filter(|p| p["status"] == "solved").count();
        assert_eq!(f["summary"]["solved"], solved);
        assert_eq!(f["summary"]["solved_pct_95"].as_array().unwrap().len(), 2);
    }
    assert_eq!(horn["overall"]["instances"], 10);
    let table = String::from_utf8_lossy(&out.stderr);
    assert!(
        table.contains("1703 species, solved in 750000 generations"),
        "{table}"
    );
    assert!(table.contains("overall: "), "{table}");
}

/// A puzzles folder with the first `n` puzzles of each 9x9 tier file, and of each under unique/.
fn small_tiers(name: &str, n: usize) -> std::path::PathBuf {
    let d = common::temp_dir(name);
    for sub in ["", "unique/"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
        for tier in ["easy", "medium", "hard", "evil"] {
            let text = std::fs::read_to_string(format!("puzzles/{sub}{tier}.txt")).unwrap();
            let lines: Vec<&str> = text
                .lines()
                .filter(|l| !l.starts_with('#'))
                .take(n)
                .collect();
            std::fs::write(d.join(format!("{sub}{tier}.txt")), lines.join("\n") + "\n").unwrap();
        }
    }
    d
}

#[test]
fn reproduce_rfss_tiers_equal_the_matching_batch() {
    let d = small_tiers("reproduce-rfss-tiers", 12);
    let dir = d.to_str().unwrap();
    let md = d.join("tiers.md");
    let out = run(&[
        "reproduce",
        "rfss",
        "--what",
        "tiers",
        "--max-generations",
        "300",
        "--puzzles",
        dir,
        "--backend",
        "cpu",
        "--json",
        "-",
        "--markdown",
        md.to_str().unwrap(),
    ]);
    let v: Value = serde_json::from_str(&ok(&out)).unwrap();
    assert!(
        v["horn"].is_null(),
        "--what tiers does not run Horn's puzzles"
    );
    let columns = v["tiers"]["columns"].as_array().unwrap();
    let heads: Vec<(&str, &str)> = columns
        .iter()
        .map(|c| {
            (
                c["puzzles"].as_str().unwrap(),
                c["params"]["enhancement"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        heads,
        [
            ("paper model", "off"),
            ("paper model", "propagate"),
            ("unique (rated)", "off"),
            ("unique (rated)", "propagate")
        ]
    );
    // Each column equals `batch --algo rfss` on the same files with the same setting.
    for (c, enhance) in columns.iter().zip(["off", "propagate", "off", "propagate"]) {
        let tiers = c["tiers"].as_array().unwrap();
        let names: Vec<&str> = tiers.iter().map(|t| t["tier"].as_str().unwrap()).collect();
        assert_eq!(names, ["easy", "medium", "hard", "evil"]);
        let paths: Vec<&str> = tiers.iter().map(|t| t["path"].as_str().unwrap()).collect();
        let mut args = vec!["batch"];
        args.extend(&paths);
        args.extend([
            "--algo",
            "rfss",
            "--max-generations",
            "300",
            "--enhance",
            enhance,
            "--backend",
            "cpu",
            "--json",
            "-",
        ]);
        let b: Value = serde_json::from_str(&ok(&run(&args))).unwrap();
        for (t, f) in tiers.iter().zip(b["files"].as_array().unwrap()) {
            for k in SUMMARY_KEYS {
                assert_eq!(t["measured"][k], f["summary"][k], "{} {k}", t["path"]);
            }
        }
        assert_eq!(c["overall"]["solved"], b["overall"]["solved"]);
    }
    assert!(
        columns[3]["overall"]["solved"].as_u64() > columns[2]["overall"]["solved"].as_u64(),
        "the enhancement solves more unique puzzles than plain RFSS"
    );
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("| tier | paper model, plain | paper model, `--enhance propagate` |"),
        "{md}"
    );
    assert!(md.lines().any(|l| l.starts_with("| overall | ")), "{md}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn reproduce_baselines_astar_equals_the_matching_compare() {
    // The first 25 of the 500 A* puzzles, and backtracking's 10.
    let d = common::temp_dir("reproduce-astar");
    let text = std::fs::read_to_string("docs/baselines/astar-d0673-500.txt").unwrap();
    let first: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(25)
        .collect();
    std::fs::write(d.join("astar-d0673-500.txt"), first.join("\n") + "\n").unwrap();
    std::fs::copy(
        "docs/baselines/astar-d0673-10.txt",
        d.join("astar-d0673-10.txt"),
    )
    .unwrap();
    let dir = d.to_str().unwrap();
    let file = d.join("astar.json");
    let args = [
        "reproduce",
        "baselines",
        "--what",
        "astar",
        "--puzzles",
        dir,
    ];
    let out = run(&[&args[..], &["--json", "-"]].concat());
    let mut v: Value = serde_json::from_str(&ok(&out)).unwrap();
    assert!(v["ga"].is_null());
    assert!(v.get("seed").is_none(), "A* draws nothing at random");
    let rows = v["astar"]["rows"].as_array().unwrap();
    let report: Vec<(&str, Value)> = rows
        .iter()
        .map(|r| (r["algo"].as_str().unwrap(), r["report"]["mean"].clone()))
        .collect();
    // The report's figures (INFO-H410 §IV-C1).
    assert_eq!(report[0], ("backtrack", Value::from(43_507.0)));
    assert_eq!(report[2], ("astar", Value::from(206.59)));
    assert_eq!(report[3], ("astar-small", Value::from(205.44)));
    assert_eq!(report[4], ("astar-big", Value::from(205.44)));
    assert_eq!(report[5], ("astar-weighted", Value::from(206.72)));
    assert_eq!(rows[2]["measured"]["puzzles"], 25);
    // The same methods through `compare`: every puzzle solved, the same mean and median.
    let compare = |path: &str, algos: &str| -> Value {
        let out = run(&[
            "compare",
            path,
            "--algos",
            algos,
            "--time-limit",
            "0",
            "--max-iterations",
            "100000000",
            "--json",
            "-",
        ]);
        serde_json::from_str(&ok(&out)).unwrap()
    };
    let ten = compare(&format!("{dir}/astar-d0673-10.txt"), "backtrack,astar");
    let many = compare(
        &format!("{dir}/astar-d0673-500.txt"),
        "astar,astar-small,astar-big,astar-weighted,mrv",
    );
    let theirs: Vec<&Value> = ten["rows"]
        .as_array()
        .unwrap()
        .iter()
        .chain(many["rows"].as_array().unwrap())
        .collect();
    assert_eq!(theirs.len(), rows.len());
    for (ours, t) in rows.iter().zip(theirs) {
        assert_eq!(ours["algo"], t["algo"]);
        assert_eq!(ours["unit"], t["unit"]);
        let m = &ours["measured"];
        assert_eq!(m["solved"], t["solved"], "{}", ours["algo"]);
        assert_eq!(m["solved"], m["puzzles"], "{}", ours["algo"]);
        assert_eq!(m["mean_steps"], t["mean_iterations"], "{}", ours["algo"]);
        assert_eq!(
            m["median_steps"], t["median_iterations"],
            "{}",
            ours["algo"]
        );
    }
    // The table goes to stderr with `--json -`, and the JSON on stdout is the file's.
    assert!(String::from_utf8_lossy(&out.stderr).contains("43507 (10 puzzles)"));
    ok(&run(
        &[&args[..], &["--json", file.to_str().unwrap()]].concat()
    ));
    let mut w: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    common::strip_where_and_when(&mut v);
    common::strip_where_and_when(&mut w);
    assert_eq!(v, w);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn reproduce_baselines_ga_equals_the_matching_compare() {
    let d = common::temp_dir("reproduce-ga");
    let file = d.join("ga.json");
    let out = run(&[
        "reproduce",
        "baselines",
        "--what",
        "ga",
        "--runs",
        "2",
        "--ga-generations",
        "40",
        "--markdown",
        "-",
        "--json",
        file.to_str().unwrap(),
    ]);
    let md = ok(&out);
    // The report's counts stand beside ours: easy, two_swap is 22 / 13 / 23 = 58 there.
    assert!(
        md.contains("| easy (38 clues) | fps | tournament | rank | total |"),
        "{md}"
    );
    assert!(md.contains(" | 22 | 13 | 23 | 58 |"), "{md}");
    assert!(md.contains(" | 78 | 40 | 110 | 228 |"), "{md}");
    assert!(md.contains(" | 20 | – | 15 | 35 |"), "{md}");
    let table = String::from_utf8_lossy(&out.stderr);
    assert!(
        table.contains("solved runs of 2 per combination (report: of 25)"),
        "{table}"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    std::fs::remove_dir_all(&d).ok();
    assert!(v["astar"].is_null());
    let ga = &v["ga"];
    assert_eq!(
        (ga["runs"].as_u64(), ga["seed"].as_u64()),
        (Some(2), Some(1))
    );
    let puzzles = ga["puzzles"].as_array().unwrap();
    assert_eq!(puzzles.len(), 3);
    let easy = &puzzles[0];
    let cells = easy["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 27);
    let cell = |algo: &str| cells.iter().find(|c| c["algo"] == algo).unwrap();
    assert_eq!(cell("ga-rank-single-swap")["report"], 25);
    assert!(puzzles[2]["cells"].as_array().unwrap()[9]["report"].is_null());
    // The same combinations through `compare` with the same seed: the same attempts.
    let algos = "ga-rank-single-swap,ga-fps-two-scramble,ga-tournament-uniform-inversion";
    let c: Value = serde_json::from_str(&ok(&run(&[
        "compare",
        "docs/baselines/ga-easy.txt",
        "--algos",
        algos,
        "--runs",
        "2",
        "--max-iterations",
        "40",
        "--time-limit",
        "0",
        "--seed",
        "1",
        "--json",
        "-",
    ])))
    .unwrap();
    let mut solved_somewhere = false;
    for row in c["rows"].as_array().unwrap() {
        let algo = row["algo"].as_str().unwrap();
        let m = &cell(algo)["measured"];
        assert_eq!(m["solved"], row["solved"], "{algo}");
        let iterations: u64 = c["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["algo"] == algo)
            .map(|a| a["iterations"].as_u64().unwrap())
            .sum();
        assert_eq!(m["instance_steps"], iterations, "{algo}");
        solved_somewhere |= row["solved"].as_u64() > Some(0);
    }
    assert!(
        solved_somewhere,
        "some run solves the easy puzzle within 40 generations"
    );
}

/// `reproduce` runs from any folder: it carries the shipped puzzle sets, reads the same puzzles
/// as the checkout's files (same content hashes, same results), and says which it used.
#[test]
fn reproduce_runs_from_an_empty_folder() {
    let elsewhere = temp_dir("reproduce-elsewhere");
    let table_2 = [
        "reproduce",
        "ilca",
        "--table",
        "2",
        "--runs",
        "1",
        "--backend",
        "cpu",
        "--json",
        "-",
    ];
    let o = run_in(&elsewhere, &table_2);
    let mut built_in: Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(built_in["puzzles"], "built in");
    let repo = format!("{}/puzzles", env!("CARGO_MANIFEST_DIR"));
    let o = run_in(&elsewhere, &[&table_2[..], &["--puzzles", &repo]].concat());
    let mut from_dir: Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(from_dir["puzzles"], repo.as_str());
    for (a, b) in built_in["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(from_dir["inputs"].as_array().unwrap())
    {
        assert_eq!(a["hash"], b["hash"]);
        assert_eq!(a["puzzles"], b["puzzles"]);
    }
    common::strip_where_and_when(&mut built_in);
    common::strip_where_and_when(&mut from_dir);
    for v in [&mut built_in, &mut from_dir] {
        for s in v["settings"].as_array_mut().unwrap() {
            for t in s["tiers"].as_array_mut().unwrap() {
                t.as_object_mut().unwrap().remove("wall_s");
                t.as_object_mut().unwrap().remove("tts99_s");
            }
        }
    }
    assert_eq!(built_in["settings"], from_dir["settings"]);
    // The other two read their built-in sets too (only the A* counts: the quick part).
    let o = run_in(
        &elsewhere,
        &["reproduce", "baselines", "--what", "astar", "--json", "-"],
    );
    let v: Value = serde_json::from_str(&ok(&o)).unwrap();
    let first = v["inputs"][0]["path"].as_str().unwrap();
    assert!(first.starts_with("docs/baselines/astar-d0673-"), "{first}");
    assert_eq!(v["puzzles"], "built in");
}

/// Errors of `reproduce` read like every other command's (`error: …`, never main's `Error:`),
/// also for a puzzle folder that is not there.
#[test]
fn reproduce_errors_read_like_the_other_commands() {
    let elsewhere = temp_dir("reproduce-errors");
    for cmd in ["ilca", "rfss", "baselines"] {
        let o = run_in(
            &elsewhere,
            &["reproduce", cmd, "--puzzles", "no-such-folder"],
        );
        let e = fails(&o);
        assert!(
            e.starts_with("error: ")
                && e.contains("no-such-folder/")
                && e.contains("without --puzzles"),
            "{cmd}: {e}"
        );
    }
    let e = fails_with(&run(&["reproduce", "ilca", "--runs", "0"]), 2);
    assert!(e.starts_with("error: ") && e.contains("--runs"), "{e}");
}

/// Runs the binary with `args` in the folder `dir`.
fn run_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    bin().current_dir(dir).args(args).output().unwrap()
}

//! Beyond one process: a batch, a sweep and a compare run as 3 shards in parallel processes and
//! merged give the unsharded report (but for timing and provenance); merge refuses what does
//! not belong together; a killed batch finishes with --resume to the identical report, a killed
//! compare to the same attempts and rows.

mod common;
use common::{bin, fails, ok, run, strip_run_specific as strip, temp_dir};
use gpu_sudoku::job::journal::signed_line;
use serde_json::Value;
use std::path::Path;

/// A report edited by a test, signed again (its digest recomputed), so that merge's deeper
/// checks see the edit; an edit that is not signed again is refused for its digest first.
fn signed(v: &Value) -> String {
    let mut v = v.clone();
    v.as_object_mut().unwrap().remove("digest");
    let mut out = Vec::new();
    gpu_sudoku::report::digest::write_signed(&mut out, |w| {
        serde_json::to_writer_pretty(w, &v).map_err(std::io::Error::other)
    })
    .unwrap();
    String::from_utf8(out).unwrap()
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Runs `args` whole and as 3 shards in parallel, merges, and compares.
fn sharded_equals_whole(name: &str, args: &[&str]) {
    let d = temp_dir(&format!("scale-{name}"));
    // A sweep's CSV (and the journal beside it) is each process's own.
    let csv = |stem: &str| -> Vec<String> {
        if args[0] == "sweep" {
            vec![
                "--csv".into(),
                d.join(format!("{stem}.csv")).display().to_string(),
            ]
        } else {
            Vec::new()
        }
    };
    let whole = d.join("whole.json");
    ok(&bin()
        .args(args)
        .args(["--json", whole.to_str().unwrap()])
        .args(csv("whole"))
        .output()
        .unwrap());
    let shards: Vec<_> = (0..3).map(|k| d.join(format!("s{k}.json"))).collect();
    let children: Vec<_> = shards
        .iter()
        .enumerate()
        .map(|(k, p)| {
            bin()
                .args(args)
                .args([
                    "--shard",
                    &format!("{}/3", k + 1),
                    "--json",
                    p.to_str().unwrap(),
                ])
                .args(csv(&format!("s{k}")))
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "{name}: a shard failed");
    }
    let merged = d.join("merged.json");
    let mut margs = vec!["merge"];
    // Any order.
    margs.extend(shards.iter().rev().map(|p| p.to_str().unwrap()));
    margs.extend(["--json", merged.to_str().unwrap()]);
    ok(&run(&margs));
    let (mut a, mut b) = (json(&whole), json(&merged));
    if args[0] == "sweep" {
        // A sweep's JSON rows carry their rate and its Wilson interval, as batch's and
        // compare's rows do (`solved_pct`, `solved_pct_95`).
        for r in a["rows"].as_array().unwrap() {
            let (solved, n) = (
                r["solved"].as_u64().unwrap(),
                r["instances"].as_u64().unwrap(),
            );
            let (lo, hi) =
                gpu_sudoku::report::stats::wilson95(solved as usize, n as usize).unwrap();
            assert_eq!(
                r["solved_pct_95"],
                serde_json::json!([100.0 * lo, 100.0 * hi]),
                "{r}"
            );
            assert_eq!(
                r["solved_pct"],
                serde_json::json!(100.0 * solved as f64 / n as f64)
            );
        }
    }
    // Shards on one backend report it as the whole run does (CPU shards: no adapter).
    if args.contains(&"--backend") {
        for k in ["backend", "adapter"] {
            assert_eq!(a.get(k), b.get(k), "{name}: {k}");
        }
    }
    let provenance = b["provenance"]["shards"].as_array().unwrap().len();
    assert_eq!(provenance, 3, "{name}: every shard's provenance is kept");
    strip(&mut a);
    strip(&mut b);
    assert_eq!(a, b, "{name}: merged shards differ from the whole run");
    // Each shard held a part: not everything, not nothing.
    for p in &shards {
        let s = json(p);
        assert!(
            s["shard"].as_str().unwrap().ends_with("/3"),
            "{}",
            s["shard"]
        );
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn batch_shards_merge_to_the_whole_run() {
    sharded_equals_whole(
        "batch",
        &[
            "batch",
            "puzzles/easy.txt",
            "puzzles/classic.txt",
            "--runs",
            "3",
            "--steps",
            "60",
            "--backend",
            "cpu",
        ],
    );
    sharded_equals_whole(
        "batch-rfss",
        &[
            "batch",
            "puzzles/classic.txt",
            "puzzles/easy.txt",
            "--algo",
            "rfss",
            "--max-generations",
            "400",
            "--backend",
            "cpu",
        ],
    );
}

#[test]
fn sweep_shards_merge_to_the_whole_run() {
    sharded_equals_whole(
        "sweep",
        &[
            "sweep",
            "puzzles/classic.txt",
            "puzzles/easy.txt",
            "--runs",
            "2",
            "--sr",
            "0:40:10",
            "--steps",
            "50",
            "--backend",
            "cpu",
        ],
    );
}

/// Damaged sweep shards are refused naming the shard and the row: a row given twice, counts
/// that do not add up, a settings count no shard could hold, a file cut short (the first two
/// were merged without a word; the third allocated by the count).
#[test]
fn damaged_sweep_shards_are_refused_by_shard_and_row() {
    let d = temp_dir("scale-sweep-damage");
    // Shard k of 2 of a sweep over sr with the step limits `steps`, named `{stem}{k}`.
    let shard = |stem: &str, sr: &str, steps: &str, k: usize| {
        let (json, csv) = (
            d.join(format!("{stem}{k}.json")),
            d.join(format!("{stem}{k}.csv")),
        );
        ok(&run(&[
            "sweep",
            "puzzles/classic.txt",
            "--runs",
            "1",
            "--sr",
            sr,
            "--steps",
            steps,
            "--backend",
            "cpu",
            "--shard",
            &format!("{}/2", k + 1),
            "--json",
            json.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
        ]));
        json
    };
    let (s0, s1) = (
        shard("s", "0:30:10", "40", 0),
        shard("s", "0:30:10", "40", 1),
    );
    ok(&run(&["merge", s0.to_str().unwrap(), s1.to_str().unwrap()]));
    let merged_with = |v: &Value| {
        let damaged = d.join("damaged.json");
        std::fs::write(&damaged, signed(v)).unwrap();
        fails(&run(&[
            "merge",
            damaged.to_str().unwrap(),
            s1.to_str().unwrap(),
        ]))
    };
    let mut v = json(&s0);
    let first = v["rows"][0].clone();
    v["rows"].as_array_mut().unwrap().push(first);
    let e = merged_with(&v);
    assert!(
        e.contains("damaged.json: setting 0 has two rows for"),
        "{e}"
    );
    // A step range gives one setting a row per step limit: those shards merge.
    let ranged: Vec<String> = (0..2)
        .map(|k| shard("r", "0:10:10", "10:40:10", k).display().to_string())
        .collect();
    ok(&run(&["merge", &ranged[0], &ranged[1]]));
    let mut v = json(&s0);
    v["rows"][0]["solved"] = 99.into();
    let e = merged_with(&v);
    assert!(
        e.contains("damaged.json: row 1 claims 99 solved of 1 instances"),
        "{e}"
    );
    let mut v = json(&s0);
    v["params"]["settings"] = (1u64 << 40).into();
    let mut w = json(&s1);
    w["params"]["settings"] = (1u64 << 40).into();
    let (a, b) = (d.join("a.json"), d.join("b.json"));
    std::fs::write(&a, signed(&v)).unwrap();
    std::fs::write(&b, signed(&w)).unwrap();
    let e = fails(&run(&["merge", a.to_str().unwrap(), b.to_str().unwrap()]));
    assert!(
        e.contains("settings missing from the shards: 4, 5,") && e.len() < 2_000,
        "{e}"
    );
    let text = std::fs::read_to_string(&s0).unwrap();
    let cut = d.join("cut.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let e = fails(&run(&[
        "merge",
        cut.to_str().unwrap(),
        s1.to_str().unwrap(),
    ]));
    assert!(
        e.contains("not a JSON report") && e.contains("a shard cut short?"),
        "{e}"
    );
    let at = e.split("cut.json:").nth(1).unwrap_or_default();
    assert!(
        at.starts_with(|c: char| c.is_ascii_digit()),
        "FILE:LINE:COL: {e}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn compare_shards_merge_to_the_whole_run() {
    sharded_equals_whole(
        "compare",
        &[
            "compare",
            "puzzles/classic.txt",
            "puzzles/easy.txt",
            "--algos",
            "mrv,sa,ilca,rfss",
            "--runs",
            "2",
            "--time-limit",
            "0",
            "--max-iterations",
            "300",
        ],
    );
}

/// Writes `text` gzip-compressed to `path`.
fn write_gz(path: &Path, text: &[u8]) {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(text).unwrap();
    std::fs::write(path, e.finish().unwrap()).unwrap();
}

/// A gzipped file's rows are labelled as compare labels them (`easy.txt.gz` → `easy`) in the
/// merged report too: merge once labelled them `easy.txt` and found none of the attempts,
/// printing a row of 0 attempts and NaN times.
#[test]
fn gzipped_compare_shards_merge_to_the_whole_run() {
    let d = temp_dir("scale-gz");
    let gz = d.join("easy.txt.gz");
    write_gz(&gz, &std::fs::read("puzzles/easy.txt").unwrap());
    let args = [
        "compare",
        "puzzles/classic.txt",
        gz.to_str().unwrap(),
        "--algos",
        "mrv,sa",
        "--runs",
        "2",
        "--max-iterations",
        "200",
        "--time-limit",
        "0",
    ];
    sharded_equals_whole("compare-gz", &args);
    // The reviewer's run: two shards of the gzipped file alone.
    let shards: Vec<String> = (0..2)
        .map(|k| {
            let p = d.join(format!("s{k}.json"));
            ok(&run(&[
                "compare",
                gz.to_str().unwrap(),
                "--algos",
                "mrv",
                "--runs",
                "2",
                "--shard",
                &format!("{}/2", k + 1),
                "--json",
                p.to_str().unwrap(),
            ]));
            p.to_str().unwrap().to_string()
        })
        .collect();
    let merged = d.join("merged.json");
    let table = ok(&run(&[
        "merge",
        &shards[0],
        &shards[1],
        "--json",
        merged.to_str().unwrap(),
    ]));
    assert!(
        !table.contains("NaN") && !table.contains("easy.txt"),
        "{table}"
    );
    let rows = json(&merged)["rows"].clone();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
    assert_eq!(rows[0]["file"], "easy", "{rows}");
    assert_eq!(rows[0]["attempts"], 200, "{rows}");
    // An attempt on no input of the run (an edited report) is refused, not left out of the rows.
    let mut v = json(Path::new(&shards[1]));
    v["attempts"][0]["path"] = "other/easy.txt.gz".into();
    let edited = d.join("edited.json");
    std::fs::write(&edited, signed(&v)).unwrap();
    let e = fails(&run(&["merge", &shards[0], edited.to_str().unwrap()]));
    assert!(
        e.contains("other/easy.txt.gz") && e.contains("not on any of the run's inputs"),
        "{e}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// Rows of compare and sweep are keyed by the file's label (its name without folder and
/// extension; merge groups compare's attempts by file): both refuse two files of one label up
/// front, naming both, where compare once ran them and its merge mixed or refused their
/// attempts. Batch keeps each file's records apart by position and path, so it runs them, and
/// its merge gives the whole run's report.
#[test]
fn files_that_share_a_label() {
    let d = temp_dir("scale-labels");
    for sub in ["a", "b"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    let (a, b, gz) = (
        d.join("a/easy.txt"),
        d.join("b/easy.txt"),
        d.join("b/easy.txt.gz"),
    );
    std::fs::copy("puzzles/easy.txt", &a).unwrap();
    std::fs::write(&b, format!("{}\n", common::CLASSIC)).unwrap();
    write_gz(&gz, format!("{}\n", common::CLASSIC).as_bytes());
    let (a, b, gz) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        gz.to_str().unwrap(),
    );
    for (x, y) in [(a, b), (a, gz)] {
        let e = fails(&run(&["compare", x, y, "--algos", "mrv"]));
        assert!(
            e.contains(&format!("`{x}` and `{y}` are both labelled `easy`"))
                && e.contains("rename"),
            "{e}"
        );
        let csv = d.join("sweep.csv");
        let e = fails(&run(&[
            "sweep",
            x,
            y,
            "--sr",
            "1:2:1",
            "--csv",
            csv.to_str().unwrap(),
        ]));
        assert!(
            e.contains(&format!("`{x}` and `{y}` are both labelled `easy`")),
            "{e}"
        );
        assert!(!csv.exists());
    }
    let e = fails(&run(&["compare", b, b, "--algos", "mrv"]));
    assert!(e.contains(&format!("`{b}` is given twice")), "{e}");
    // Its table tells the two apart by path (two rows `easy` could not be), and so does
    // merge's table of its shards.
    let batch = |extra: &[&str]| {
        let base = [
            "batch",
            a,
            b,
            "--runs",
            "1",
            "--steps",
            "5",
            "--backend",
            "cpu",
        ];
        ok(&run(&[&base[..], extra].concat()))
    };
    let names_both = |table: &str| {
        for p in [a, b] {
            assert!(table.lines().any(|l| l.starts_with(p)), "{p}: {table}");
        }
    };
    names_both(&batch(&[]));
    let shards: Vec<String> = (0..2)
        .map(|k| {
            let j = d.join(format!("lab{k}.json")).display().to_string();
            let table = batch(&["--shard", &format!("{}/2", k + 1), "--json", &j]);
            // Counted from 1, in the table and in the report.
            assert!(
                table.contains(&format!("shard {}/2: about 1/2 of the instances", k + 1)),
                "{table}"
            );
            assert_eq!(json(Path::new(&j))["shard"], format!("{}/2", k + 1));
            j
        })
        .collect();
    names_both(&ok(&run(&["merge", &shards[0], &shards[1]])));
    sharded_equals_whole(
        "batch-labels",
        &[
            "batch",
            a,
            b,
            "--runs",
            "3",
            "--steps",
            "60",
            "--backend",
            "cpu",
        ],
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn merge_refuses_what_does_not_belong_together() {
    let d = temp_dir("scale-refuse");
    let shard = |k: usize, n: usize, steps: &str, file: &str| {
        let p = d.join(format!("{file}-{steps}-{k}of{n}.json"));
        ok(&run(&[
            "batch",
            file,
            "--runs",
            "3",
            "--steps",
            steps,
            "--backend",
            "cpu",
            "--shard",
            &format!("{}/{n}", k + 1),
            "--json",
            p.to_str().unwrap(),
        ]));
        p.to_str().unwrap().to_string()
    };
    let (a0, a1, a2) = (
        shard(0, 3, "40", "puzzles/classic.txt"),
        shard(1, 3, "40", "puzzles/classic.txt"),
        shard(2, 3, "40", "puzzles/classic.txt"),
    );
    let e = fails(&run(&["merge", &a0, &a2]));
    assert!(e.contains("shards missing: 2/3"), "{e}");
    let e = fails(&run(&["merge", &a0, &a1, &a1, &a2]));
    assert!(e.contains("more than once: 2/3"), "{e}");
    let other = shard(1, 3, "41", "puzzles/classic.txt");
    let e = fails(&run(&["merge", &a0, &other, &a2]));
    assert!(e.contains("`params` differs"), "{e}");
    // The same file name with other puzzles: the content hash tells.
    let copy = d.join("classic.txt");
    std::fs::write(
        &copy,
        format!("{}\n", common::CLASSIC.replacen('5', ".", 1)),
    )
    .unwrap();
    let changed = shard(1, 3, "40", copy.to_str().unwrap());
    let e = fails(&run(&["merge", &a0, &changed, &a2]));
    assert!(e.contains("`inputs` differs"), "{e}");
    let mut v = json(Path::new(&a1));
    v["version"] = "0.0.0".into();
    let old = d.join("old.json");
    std::fs::write(&old, signed(&v)).unwrap();
    let e = fails(&run(&["merge", &a0, old.to_str().unwrap(), &a2]));
    assert!(e.contains("`version` differs"), "{e}");
    let whole = d.join("whole.json");
    ok(&run(&[
        "batch",
        "puzzles/classic.txt",
        "--runs",
        "1",
        "--backend",
        "cpu",
        "--json",
        whole.to_str().unwrap(),
    ]));
    let e = fails(&run(&["merge", whole.to_str().unwrap()]));
    assert!(e.contains("not a shard"), "{e}");
    // A damaged shard count: answered at once with a short list, no allocation by the count
    // (4294967296 parts aborted in the allocator; 100000000 ran for minutes printing them).
    for (shard, says) in [
        (
            Value::from("1/4294967296"),
            "shards missing: 2/4294967296, 3/",
        ),
        (Value::from("1/100000000"), "(99999999 in all)"),
        (Value::from("-1/3"), "is not K/N"),
        (Value::from("0/3"), "is not K/N"),
        (Value::from("1/0"), "is not K/N"),
        (Value::from(7), "is not K/N"),
        // The 0-based form of reports made before shards counted from 1 still reads.
        (
            serde_json::json!({"index": 0, "count": 4_294_967_296u64}),
            "shards missing: 2/4294967296, 3/",
        ),
        (serde_json::json!({"index": 3, "count": 3}), "is not K/N"),
    ] {
        let mut v = json(Path::new(&a0));
        v["shard"] = shard;
        let damaged = d.join("damaged.json");
        std::fs::write(&damaged, signed(&v)).unwrap();
        let e = fails(&run(&["merge", damaged.to_str().unwrap()]));
        assert!(e.contains(says) && e.len() < 2_000, "{e}");
    }
    std::fs::remove_dir_all(&d).ok();
}

/// Merge reads the inputs again and checks every solved grid against the rules and the clues:
/// an edited grid that repeats a digit, a valid grid of another puzzle, and an input changed
/// since the shards ran are refused (the first two were merged and counted as solved).
#[test]
fn merge_checks_solved_grids_against_the_clues_it_reads_again() {
    let d = temp_dir("scale-clues");
    let input = d.join("classic.txt");
    std::fs::copy("puzzles/classic.txt", &input).unwrap();
    let shards: Vec<String> = (0..2)
        .map(|k| {
            let p = d.join(format!("s{k}.json"));
            ok(&run(&[
                "batch",
                input.to_str().unwrap(),
                "--preset",
                "improved",
                "--runs",
                "4",
                "--backend",
                "cpu",
                "--shard",
                &format!("{}/2", k + 1),
                "--json",
                p.to_str().unwrap(),
            ]));
            p.to_str().unwrap().to_string()
        })
        .collect();
    ok(&run(&["merge", &shards[0], &shards[1]]));
    let edited = d.join("edited.json");
    let with_grid = |grid: &dyn Fn(&str) -> String| {
        let mut v = json(Path::new(&shards[0]));
        let inst = v["files"][0]["instances"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|i| i["solved"] == true)
            .expect("a solved instance");
        inst["grid"] = grid(inst["grid"].as_str().unwrap()).into();
        std::fs::write(&edited, signed(&v)).unwrap();
        fails(&run(&["merge", edited.to_str().unwrap(), &shards[1]]))
    };
    // A free cell (r1c3 is blank in the classic puzzle) set to its neighbour's digit.
    let e = with_grid(&|g| format!("{}{}{}", &g[..2], &g[1..2], &g[3..]));
    assert!(
        e.contains("reported solved but its grid does not solve the puzzle"),
        "{e}"
    );
    // A valid grid, but not of this puzzle.
    let other: String = (0..81)
        .map(|c| {
            let (r, k) = (c / 9, c % 9);
            char::from(b'1' + ((r * 3 + r / 3 + k) % 9) as u8)
        })
        .collect();
    let e = with_grid(&|_| other.clone());
    assert!(e.contains("changes clue"), "{e}");
    // The input changed after the shards ran.
    std::fs::write(
        &input,
        format!("{}\n", common::CLASSIC.replacen('5', ".", 1)),
    )
    .unwrap();
    let e = fails(&run(&["merge", &shards[0], &shards[1]]));
    assert!(e.contains("are not those the shards ran on"), "{e}");
    std::fs::remove_file(&input).unwrap();
    let e = fails(&run(&["merge", &shards[0], &shards[1]]));
    assert!(e.contains("cannot be read here"), "{e}");
    std::fs::remove_dir_all(&d).ok();
}

/// A shard count above the number of work items would leave shards with nothing to do (whose
/// empty results a batch printed against the paper's rates): every command refuses it, naming
/// the count.
#[test]
fn a_tier_a_shard_holds_nothing_of_is_not_set_beside_the_paper() {
    // Shards split by cost: one 25x25 puzzle before the easy tier leaves shard 0 of 20 with the
    // 25x25 puzzle alone, so its easy row is empty and has no paper comparison.
    let d = temp_dir("scale-empty-tier");
    let text = std::fs::read_to_string("puzzles/25x25.txt").unwrap();
    let one = text.lines().find(|l| !l.starts_with('#')).unwrap();
    let big = d.join("one25.txt");
    std::fs::write(&big, format!("{one}\n")).unwrap();
    let out = ok(&run(&[
        "batch",
        big.to_str().unwrap(),
        "puzzles/easy.txt",
        "--runs",
        "1",
        "--backend",
        "cpu",
        "--shard",
        "1/20",
    ]));
    let easy = out.lines().find(|l| l.starts_with("easy")).unwrap();
    assert!(easy.contains(" 0 ") && !easy.contains("99.9%"), "{out}");
    assert!(out.contains("measured − paper, points: –"), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn more_shards_than_work_items_are_refused() {
    // Shards count from 1; 0/N is refused by name.
    let e = common::fails_with(
        &run(&[
            "batch",
            "puzzles/easy.txt",
            "--backend",
            "cpu",
            "--shard",
            "0/2",
        ]),
        2,
    );
    assert!(
        e.contains("shards count from 1") && e.contains("1/2 … 2/2"),
        "{e}"
    );
    let e = fails(&run(&[
        "batch",
        "puzzles/easy.txt",
        "--runs",
        "1",
        "--backend",
        "cpu",
        "--shard",
        "1/99999999999",
    ]));
    assert!(
        e.contains("--shard 1/99999999999") && e.contains("only 100 instances"),
        "{e}"
    );
    let e = fails(&run(&[
        "sweep",
        "puzzles/classic.txt",
        "--sr",
        "10:30:10",
        "--backend",
        "cpu",
        "--shard",
        "4/4",
        "--csv",
        temp_dir("scale-shard-count")
            .join("s.csv")
            .to_str()
            .unwrap(),
    ]));
    assert!(e.contains("only 3 settings"), "{e}");
    let e = fails(&run(&[
        "compare",
        "puzzles/classic.txt",
        "--algos",
        "mrv,sa",
        "--runs",
        "2",
        "--shard",
        "5/5",
    ]));
    assert!(e.contains("only 4 attempts"), "{e}");
}

#[test]
fn a_killed_batch_resumes_to_the_identical_report() {
    let d = temp_dir("scale-resume");
    let args = [
        "batch",
        "puzzles/hard.txt",
        "--runs",
        "4",
        "--steps",
        "400",
        "--backend",
        "cpu",
        "--chunk",
        "25",
    ];
    let whole = d.join("whole.json");
    ok(&run(
        &[&args[..], &["--json", whole.to_str().unwrap()]].concat()
    ));
    let report = d.join("r.json");
    let journal = d.join("r.json.partial.jsonl");
    // The same command again with --resume.
    let resume = || run(&[&args[..], &["--json", report.to_str().unwrap(), "--resume"]].concat());
    let mut child = bin()
        .args(args)
        .args(["--json", report.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once two chunks are on disk (16 chunks in all).
    common::kill_when_journal_has(&mut child, &journal, 3);
    assert!(!report.exists(), "killed before the report");
    let done = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    assert!((2..16).contains(&done), "{done} chunks in the journal");
    // A damaged line with finished chunks after it is refused, by line and column (it was
    // taken for the interrupted last line: the chunks after it were dropped without a word).
    let kept = std::fs::read_to_string(&journal).unwrap();
    let mut lines: Vec<&str> = kept.lines().collect();
    let damaged = format!("{}#{}", &lines[1][..10], &lines[1][11..]);
    lines[1] = &damaged;
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let e = fails(&resume());
    assert!(
        e.contains("r.json.partial.jsonl:2:") && e.contains("a damaged journal line"),
        "{e}"
    );
    // Records that this run could not have written there are refused, naming the chunk (a
    // puzzle beyond the file and a negative time panicked; a missing or moved record, or steps
    // beyond the limit, were counted).
    type Edit = fn(&mut Value);
    let edits: [(Edit, &str); 5] = [
        (|c| c["results"][0]["puzzle"] = 5000.into(), "not puzzle"),
        (|c| c["wall_s"] = (-100.0).into(), "is not a duration"),
        (
            |c| c["results"] = Value::Array(Vec::new()),
            "0 records for 25 items",
        ),
        (
            |c| c["results"][0]["steps"] = 1_000_000_000.into(),
            "(limit 400)",
        ),
        (|c| c["results"][1]["run"] = 0.into(), "not puzzle 0 run 1"),
    ];
    for (edit, says) in edits {
        let mut lines: Vec<String> = kept.lines().map(String::from).collect();
        // Edited and signed again, as a careful editor would: the checks behind the checksum.
        let mut chunk: Value = serde_json::from_str(&lines[1][17..]).unwrap();
        edit(&mut chunk);
        lines[1] = signed_line(&lines[0], &chunk.to_string());
        std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
        let e = fails(&resume());
        assert!(
            e.contains("a damaged journal record (items ")
                && e.contains(says)
                && !e.contains("panicked"),
            "{says}: {e}"
        );
    }
    // A byte that is not UTF-8 inside a string of a finished line is damage too (it was
    // accepted, the whole batch run, and the report refused at the end).
    let mut bytes = Vec::new();
    for (i, line) in kept.lines().enumerate() {
        if i == 1 {
            bytes.extend_from_slice(b"{\"\xff\":0,");
            bytes.extend_from_slice(&line.as_bytes()[1..]);
        } else {
            bytes.extend_from_slice(line.as_bytes());
        }
        bytes.push(b'\n');
    }
    std::fs::write(&journal, bytes).unwrap();
    let e = fails(&resume());
    assert!(
        e.contains("r.json.partial.jsonl:2:") && e.contains("a damaged journal line"),
        "{e}"
    );
    // A journal begun by another build (here a header naming another commit, every line signed
    // again) is another run's: its records are that build's.
    let mut lines: Vec<String> = kept.lines().map(String::from).collect();
    let mut header: Value = serde_json::from_str(&lines[0]).unwrap();
    header["build"]["commit"] = "000000000000".into();
    lines[0] = header.to_string();
    let head = lines[0].clone();
    for line in lines.iter_mut().skip(1) {
        *line = signed_line(&head, &line[17..]);
    }
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let e = fails(&resume());
    assert!(
        e.contains("was written by another run (its `build.commit` is \"000000000000\""),
        "{e}"
    );
    std::fs::write(&journal, &kept).unwrap();
    // Another --chunk is refused, naming it.
    let mut other = args;
    other[args.len() - 1] = "30";
    let e = fails(&run(&[
        &other[..],
        &["--json", report.to_str().unwrap(), "--resume"],
    ]
    .concat()));
    assert!(
        e.contains("written by another run") && e.contains("`chunk` is 25, this run's is 30"),
        "{e}"
    );
    // Without --resume the journal is not thrown away.
    let e = fails(&run(
        &[&args[..], &["--json", report.to_str().unwrap()]].concat()
    ));
    assert!(e.contains("--resume"), "{e}");
    // A chunk's line given twice is one chunk (the count said two; the report is unchanged),
    // and lines ended by CR LF (an edit on another system) read as well (the places of the
    // chunks were off by a byte a line: refused only when the report was written).
    let twice = format!("{kept}{}\n", kept.lines().nth(1).unwrap());
    std::fs::write(&journal, twice.replace('\n', "\r\n")).unwrap();
    let out = resume();
    ok(&out);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains(&format!("resuming: {done} chunks already done")),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!journal.exists(), "the journal goes with the report");
    let (mut a, mut b) = (json(&whole), json(&report));
    strip(&mut a);
    strip(&mut b);
    assert_eq!(a, b);
    // A journal of another run is refused.
    std::fs::write(&journal, "{\"other\": 1}\n").unwrap();
    let e = fails(&resume());
    assert!(e.contains("written by another run"), "{e}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_killed_compare_resumes_to_the_same_report() {
    // Its attempts wait in the journal until the report is written; a resumed run reads the
    // first chunks back from the journal of the killed one.
    let d = temp_dir("scale-compare-resume");
    let args = [
        "compare",
        "puzzles/hard.txt",
        "--algos",
        "mrv,ilca",
        "--runs",
        "2",
        "--time-limit",
        "0",
        "--max-iterations",
        "400",
        "--chunk",
        "20",
    ];
    let whole = d.join("whole.json");
    ok(&run(
        &[&args[..], &["--json", whole.to_str().unwrap()]].concat()
    ));
    let (report, csv) = (d.join("r.json"), d.join("r.csv"));
    let journal = d.join("r.json.partial.jsonl");
    let mut child = bin()
        .args(args)
        .args(["--json", report.to_str().unwrap()])
        .args(["--csv", csv.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::kill_when_journal_has(&mut child, &journal, 13);
    assert!(!report.exists(), "killed before the report");
    let done = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    assert!((12..20).contains(&done), "{done} chunks in the journal");
    // The same journal as written before records held their path and line (a header without
    // the schema): refused, naming the schema, not read as cut lines and run again.
    let old = d.join("old.json");
    let text = std::fs::read_to_string(&journal).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let mut head: serde_json::Value = serde_json::from_str(head).unwrap();
    assert!(head["schema"].is_number(), "{head}");
    head.as_object_mut().unwrap().remove("schema");
    std::fs::write(d.join("old.json.partial.jsonl"), format!("{head}\n{rest}")).unwrap();
    let e = fails(&run(&[
        &args[..],
        &["--json", old.to_str().unwrap(), "--resume"],
    ]
    .concat()));
    assert!(
        e.contains("written by another run") && e.contains("`schema`"),
        "{e}"
    );
    // Records this run could not have written there are refused, naming the chunk (a missing
    // record, a negative time, a puzzle beyond the file or another algorithm's attempt were
    // counted: 15 attempts for 16, a mean of −74 ms).
    let kept = std::fs::read_to_string(&journal).unwrap();
    type Edit = fn(&mut serde_json::Value);
    let edits: [(Edit, &str); 4] = [
        (
            |c| c["records"][0]["seconds"] = (-5.0).into(),
            "is not a duration",
        ),
        (
            |c| {
                c["records"].as_array_mut().unwrap().pop();
            },
            "19 records for 20 attempts",
        ),
        (|c| c["records"][0]["puzzle"] = 999.into(), "puzzle 999"),
        (|c| c["records"][0]["algo"] = "sa".into(), "holds sa puzzle"),
    ];
    for (edit, says) in edits {
        let mut lines: Vec<String> = kept.lines().map(String::from).collect();
        let mut chunk: serde_json::Value = serde_json::from_str(&lines[1][17..]).unwrap();
        edit(&mut chunk);
        lines[1] = signed_line(&lines[0], &chunk.to_string());
        std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
        let e = fails(&run(&[
            &args[..],
            &["--json", report.to_str().unwrap()],
            &["--csv", csv.to_str().unwrap(), "--resume"],
        ]
        .concat()));
        assert!(
            e.contains("a damaged journal record (attempts ") && e.contains(says),
            "{says}: {e}"
        );
    }
    std::fs::write(&journal, &kept).unwrap();
    let out = run(&[
        &args[..],
        &["--json", report.to_str().unwrap()],
        &["--csv", csv.to_str().unwrap(), "--resume"],
    ]
    .concat());
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("chunks already done"));
    assert!(!journal.exists(), "the journal goes with the report");
    let (mut a, mut b) = (json(&whole), json(&report));
    assert_eq!(b["attempts"].as_array().unwrap().len(), 400);
    strip(&mut a);
    strip(&mut b);
    assert_eq!(a, b);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 401);
    std::fs::remove_dir_all(&d).ok();
}

/// `--adapter all` runs the chunks of a batch (and the blocks of a sweep) on every GPU adapter
/// at once (on a machine without a GPU: lavapipe, and llvmpipe over GL where it is installed),
/// with the CPU's results.
#[test]
fn every_adapter_at_once_gives_the_cpu_results() {
    if common::gpu().is_none() {
        return;
    }
    let d = temp_dir("scale-adapters");
    let (cpu, all) = (d.join("cpu.json"), d.join("all.json"));
    let args = [
        "batch",
        "puzzles/classic.txt",
        "puzzles/easy.txt",
        "--runs",
        "2",
        "--steps",
        "40",
        "--chunk",
        "30",
    ];
    ok(&run(&[
        &args[..],
        &["--backend", "cpu", "--json", cpu.to_str().unwrap()],
    ]
    .concat()));
    let out = run(&[
        &args[..],
        &[
            "--backend",
            "gpu",
            "--adapter",
            "all",
            "--json",
            all.to_str().unwrap(),
        ],
    ]
    .concat());
    ok(&out);
    let (mut a, mut b) = (json(&cpu), json(&all));
    strip(&mut a);
    strip(&mut b);
    assert_eq!(a, b);
    let adapters = json(&all)["adapter"].clone();
    let err = String::from_utf8_lossy(&out.stderr);
    if adapters.as_str().is_none_or(|a| a.contains("adapters")) {
        assert!(err.contains("instances ("), "each adapter's share: {err}");
    }
    let (csv_cpu, csv_all) = (d.join("cpu.csv"), d.join("all.csv"));
    let sweep = [
        "sweep",
        "puzzles/classic.txt",
        "--runs",
        "2",
        "--sr",
        "0:20:10",
        "--steps",
        "30",
        "--block",
        "1",
    ];
    ok(&run(&[
        &sweep[..],
        &["--backend", "cpu", "--csv", csv_cpu.to_str().unwrap()],
    ]
    .concat()));
    ok(&run(&[
        &sweep[..],
        &[
            "--backend",
            "gpu",
            "--adapter",
            "all",
            "--csv",
            csv_all.to_str().unwrap(),
        ],
    ]
    .concat()));
    assert_eq!(
        std::fs::read_to_string(&csv_cpu).unwrap(),
        std::fs::read_to_string(&csv_all).unwrap()
    );
    let e = fails(&run(&["rfss", "puzzles/classic.txt", "--adapter", "all"]));
    assert!(e.contains("runs on one adapter"), "{e}");
    // An adapter with the CPU backend, an empty entry or one adapter twice is refused.
    let one = [
        "batch",
        "puzzles/classic.txt",
        "--runs",
        "1",
        "--steps",
        "5",
    ];
    let e = fails(&run(
        &[&one[..], &["--backend", "cpu", "--adapter", "0"]].concat()
    ));
    assert!(e.contains("does not go with --backend cpu"), "{e}");
    let e = fails(&run(
        &[&one[..], &["--backend", "gpu", "--adapter", "0,"]].concat()
    ));
    assert!(e.contains("entry 2 is empty"), "{e}");
    if common::gpu().is_some() {
        // The same adapter by index twice, or by index and by name.
        // The first word of adapter 0's name names adapter 0 (the first adapter holding it).
        let adapters = gpu_sudoku::gpu::list_adapters();
        let word = adapters[0]
            .name
            .split([' ', ','])
            .next()
            .unwrap()
            .to_string();
        for list in ["0,0".to_string(), "0,00".to_string(), format!("0,{word}")] {
            let list = list.as_str();
            let e = fails(&run(
                &[&one[..], &["--backend", "gpu", "--adapter", list]].concat()
            ));
            assert!(e.contains("are the same adapter"), "{list}: {e}");
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

/// The Slurm scripts without Slurm: each shard task runs with its array index from the
/// environment, the merge job joins them, and `submit.sh` in dry-run mode shows the array and
/// the dependent merge it would submit.
#[test]
fn slurm_scripts_run_locally_in_dry_run_mode() {
    let d = temp_dir("scale-slurm");
    let out = d.join("run");
    let args = [
        "batch",
        "puzzles/classic.txt",
        "puzzles/easy.txt",
        "--runs",
        "2",
        "--steps",
        "40",
        "--backend",
        "cpu",
    ];
    for k in 1..=3 {
        let st = std::process::Command::new("bash")
            .arg("scripts/slurm/shard.sbatch")
            .args(args)
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .env("SHARDS", "3")
            .env("OUT", &out)
            .env("GPU_SUDOKU", env!("CARGO_BIN_EXE_gpu-sudoku"))
            .env("XDG_RUNTIME_DIR", "/tmp")
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
    }
    let st = std::process::Command::new("bash")
        .arg("scripts/slurm/merge.sbatch")
        .env("SHARDS", "3")
        .env("OUT", &out)
        .env("GPU_SUDOKU", env!("CARGO_BIN_EXE_gpu-sudoku"))
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let whole = d.join("whole.json");
    ok(&run(
        &[&args[..], &["--json", whole.to_str().unwrap()]].concat()
    ));
    let (mut a, mut b) = (json(&whole), json(&out.join("merged.json")));
    strip(&mut a);
    strip(&mut b);
    assert_eq!(a, b);
    assert!(out.join("merged.csv").exists());
    let st = std::process::Command::new("bash")
        .args([
            "scripts/slurm/submit.sh",
            "4",
            "runs/fig9",
            "sweep",
            "puzzles/unique/evil.txt",
            "--sr",
            "10:150:5",
        ])
        .env("DRY_RUN", "1")
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&st.stderr);
    assert!(st.status.success(), "{shown}");
    assert!(
        shown.contains("--array=1-4") && shown.contains("--dependency=afterok:12345"),
        "{shown}"
    );
    assert!(
        shown.contains("shard.sbatch sweep puzzles/unique/evil.txt --sr 10:150:5"),
        "{shown}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// merge prints the table batch prints for the same run: the paper's column and note included
/// when the shards ran a paper setting on a paper tier.
#[test]
fn merge_prints_the_paper_column_batch_prints() {
    let d = temp_dir("scale-merge-paper");
    let args = [
        "batch",
        "puzzles/hard.txt",
        "puzzles/evil.txt",
        "--runs",
        "1",
        "--backend",
        "cpu",
    ];
    let whole = ok(&run(&args));
    let shards: Vec<String> = (1..=2)
        .map(|k| {
            let p = d.join(format!("s{k}.json")).display().to_string();
            ok(&run(&[
                &args[..],
                &["--shard", &format!("{k}/2"), "--json", &p],
            ]
            .concat()));
            p
        })
        .collect();
    let merged = ok(&run(&["merge", &shards[0], &shards[1]]));
    // The same columns and the same note; only the wall-time columns differ.
    let header = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("file"))
            .unwrap()
            .to_string()
    };
    assert_eq!(header(&whole), header(&merged));
    assert!(header(&merged).contains("paper"), "{merged}");
    let note = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("paper:"))
            .map(str::to_string)
    };
    assert!(note(&merged).is_some(), "{merged}");
    assert_eq!(note(&whole), note(&merged));
    std::fs::remove_dir_all(&d).ok();
}

/// A shard changed after it was written (a step count one lower, an unsolved instance claimed
/// solved, a reformatting, the digest removed) is refused by name before any record of it is
/// used: every report carries a digest of its bytes, and merge checks it first.
#[test]
fn edited_shards_are_refused_by_their_digest() {
    let d = temp_dir("scale-digest");
    for (kind, args) in [
        (
            "batch",
            &["batch", "puzzles/evil.txt", "--runs", "2", "--steps", "30"][..],
        ),
        (
            "compare",
            &[
                "compare",
                "puzzles/hard.txt",
                "--algos",
                "ilca,mrv",
                "--runs",
                "1",
            ][..],
        ),
        (
            "sweep",
            &[
                "sweep",
                "puzzles/easy.txt",
                "--lr",
                "0.5:1:0.5",
                "--steps",
                "30",
            ][..],
        ),
    ] {
        let shards = common::two_shards(&d, kind, args);
        ok(&run(&["merge", &shards[0], &shards[1]]));
        let text = std::fs::read_to_string(&shards[1]).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["digest"].as_str().map(str::len), Some(16), "{kind}");
        // The first count in the report one lower; an instance's `solved` flipped; the whole
        // document on one line; the digest line gone.
        let b = text.as_bytes();
        let at = (2..b.len() - 1)
            .find(|&i| {
                &b[i - 2..i] == b": " && (b'1'..=b'9').contains(&b[i]) && b",\n".contains(&b[i + 1])
            })
            .unwrap();
        let mut lowered = b.to_vec();
        lowered[at] -= 1;
        let edits = [
            String::from_utf8(lowered).unwrap(),
            if text.contains("\"solved\": false") {
                text.replacen("\"solved\": false", "\"solved\": true", 1)
            } else if text.contains("\"solved\": true") {
                text.replacen("\"solved\": true", "\"solved\": false", 1)
            } else {
                // a sweep row's count of solved runs
                text.replacen("\"solved\": ", "\"solved\": 1", 1)
            },
            serde_json::to_string(&v).unwrap(),
            text.replace(
                &format!(",\n  \"digest\": \"{}\"", v["digest"].as_str().unwrap()),
                "",
            ),
        ];
        for (i, edited) in edits.iter().enumerate() {
            assert!(edited != &text, "{kind} edit {i} changed nothing");
            let p = d.join(format!("{kind}-edited.json"));
            std::fs::write(&p, edited).unwrap();
            let e = fails(&run(&["merge", &shards[0], p.to_str().unwrap()]));
            assert!(
                e.contains(&format!("{}: it", p.display())) && e.contains("digest"),
                "{kind} edit {i}: {e}"
            );
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

//! The command line as a user runs it: solve, rate and generate, good and bad input.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const CLASSIC_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scratch file under the target directory, unique per test.
fn scratch(name: &str, contents: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn solve_prints_the_solution() {
    let out = run(&["solve", "puzzles/classic.txt"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{CLASSIC_SOLUTION}\n"));
    assert!(text(&out.stderr).contains("1 unique"));

    let out = run(&["solve", "--pretty", "puzzles/classic.txt"]);
    let s = text(&out.stdout);
    assert!(s.starts_with("# line 5:\n+-------+"), "{s}");
    assert!(s.contains("| 5 3 4 | 6 7 8 | 9 1 2 |"), "{s}");
    // What `--pretty` prints is a puzzle file again (docs/PUZZLES.md says the reader takes it).
    let again = scratch("pretty.txt", s.as_bytes());
    let out = run(&["solve", again.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{CLASSIC_SOLUTION}\n"));
}

#[test]
fn solve_reports_no_and_multiple_solutions_by_line() {
    // The classic, an empty grid (many solutions), and the classic with a consistent but wrong
    // clue (r1c3 = 1; its solution has 4 there): no solution.
    let unsolvable = format!("{}1{}", &CLASSIC[..2], &CLASSIC[3..]);
    let file = scratch(
        "mixed.txt",
        format!("# mixed\n{CLASSIC}\n{}\n{unsolvable}\n", ".".repeat(81)).as_bytes(),
    );
    let out = run(&["solve", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines[0], CLASSIC_SOLUTION);
    assert_eq!(lines[1], "line 3: multiple solutions");
    assert_eq!(lines[2], "line 4: no solution");
    assert!(text(&out.stderr).contains("1 unique, 1 with several solutions, 1 without"));

    let out = run(&["solve", "--any", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "still one without a solution");
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines[1].len(), 81, "--any prints one solution");
    assert!(!lines[1].contains('.'));
}

#[test]
fn solve_reads_standard_input() {
    let mut child = bin()
        .args(["solve", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(CLASSIC.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(text(&out.stdout).trim(), CLASSIC_SOLUTION);
}

#[test]
fn bad_input_is_a_located_error() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "symbol.txt",
            format!("# c\n{}", CLASSIC.replacen('7', "x", 1)).into_bytes(),
            ":2:5: unknown symbol 'x'",
        ),
        (
            "short.txt",
            CLASSIC.as_bytes()[..80].to_vec(),
            ":1:1: a puzzle line needs",
        ),
        (
            "repeat.txt",
            format!("55{}", &CLASSIC[2..]).into_bytes(),
            ":1:2: clue 5 repeats in row 1",
        ),
        (
            "binary.txt",
            vec![0x53, 0x33, 0xff, 0x00, 0x12],
            ":1:3: not UTF-8",
        ),
        ("empty.txt", vec![], "no puzzle found"),
    ];
    for (name, contents, expected) in cases {
        let file = scratch(name, &contents);
        let path = file.to_str().unwrap();
        for cmd in ["solve", "rate"] {
            let out = run(&[cmd, path]);
            assert_eq!(out.status.code(), Some(1), "{cmd} {name}");
            let err = text(&out.stderr);
            assert!(err.starts_with("error: "), "{err}");
            assert!(err.contains(path), "{cmd} {name}: {err}");
            assert!(err.contains(expected), "{cmd} {name}: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let out = run(&["solve", "no/such/file.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no/such/file.txt: cannot read file"));
    let out = run(&["solve", "--size", "10", "puzzles/classic.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--size 10 is not supported"));
}

#[test]
fn rate_prints_a_table_and_json() {
    let out = run(&["rate", "puzzles/classic.txt"]);
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert!(s.lines().next().unwrap().contains("solutions"), "{s}");
    let row = s.lines().nth(1).unwrap();
    let fields: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(fields[..5], ["5", "30", "0.630", "1", "easy"], "{row}");

    let file = scratch(
        "rate.txt",
        format!("{CLASSIC}\n{}\n", ".".repeat(81)).as_bytes(),
    );
    let out = run(&["rate", file.to_str().unwrap(), "--json", "-"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool"], "gpu-sudoku");
    // The file read is `inputs`, a list of {path, puzzles, hash} as in batch, compare and
    // reproduce (not a lone `input` object).
    assert!(v.get("input").is_none(), "{v}");
    let inputs = v["inputs"].as_array().expect("inputs is a list");
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0]["path"], file.to_str().unwrap());
    assert_eq!(inputs[0]["puzzles"], 2);
    assert_eq!(inputs[0]["hash"].as_str().unwrap().len(), 16, "{v}");
    let v = &v["puzzles"];
    assert_eq!(v[0]["solutions"], 1);
    assert_eq!(v[0]["tier"], "easy");
    assert_eq!(v[0]["clues"], 30);
    assert!(v[0]["uses"]["hidden-single"].as_u64().unwrap() > 0);
    assert_eq!(v[1]["solutions"], 2);
    assert!(v[1]["tier"].is_null());
    // The CSV carries the join key of batch's and compare's rows (path, line) and the puzzle
    // line's extra fields (famous.txt's names were lost).
    let out = run(&["rate", "puzzles/famous.txt", "--csv", "-"]);
    let csv = text(&out.stdout);
    let mut lines = csv.lines();
    let head = lines.next().unwrap();
    assert!(
        head.starts_with("path,line,") && head.ends_with(",extra"),
        "{head}"
    );
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("puzzles/famous.txt,23,") && first.ends_with(",name=ai-escargot"),
        "{first}"
    );
}

#[test]
fn generate_writes_a_reproducible_file() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("gen.txt");
    let p = path.to_str().unwrap();
    let args = [
        "generate", "--model", "paper", "--tier", "evil", "--count", "4", "--size", "9", "--seed",
        "7", "-o", p,
    ];
    let out = run(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let first = std::fs::read_to_string(&path).unwrap();
    assert!(first.starts_with(&format!(
        "# gpu-sudoku generate --model paper --tier evil --count 4 --size 9 --seed 7 -o {p}\n"
    )));
    assert_eq!(first.lines().filter(|l| !l.starts_with('#')).count(), 4);
    assert!(first.lines().last().unwrap().contains(" d=0.7") || first.contains(" d=0.8"));
    assert!(run(&args).status.success());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        first,
        "same seed, same file"
    );

    // Standard output, and the round trip through solve and rate.
    let out = run(&[
        "generate", "--model", "rated", "--tier", "hard", "--count", "2", "--seed", "3",
    ]);
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert!(s.contains("tier=hard"));
    let file = scratch("gen-rated.txt", s.as_bytes());
    let solved = run(&["solve", file.to_str().unwrap()]);
    assert!(solved.status.success(), "rated puzzles are unique");
    let rated = run(&["rate", file.to_str().unwrap()]);
    assert_eq!(text(&rated.stdout).matches(" hard ").count(), 2);
}

#[test]
fn generate_rate_solve_16x16_and_25x25() {
    for (size, extra) in [
        ("16", vec!["--tier", "medium"]),
        ("25", vec!["--d", "0.5184"]),
    ] {
        let mut args = vec![
            "generate", "--model", "paper", "--unique", "--count", "1", "--size", size, "--seed",
            "1",
        ];
        args.extend(extra);
        let out = run(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let file = scratch(&format!("gen{size}.txt"), &out.stdout);
        let f = file.to_str().unwrap();
        let solved = run(&["solve", f]);
        assert!(solved.status.success(), "{}", text(&solved.stderr));
        let n: usize = size.parse().unwrap();
        assert_eq!(text(&solved.stdout).trim().len(), n * n);
        let rated = run(&["rate", f, "--json", "-"]);
        let v: serde_json::Value = serde_json::from_slice(&rated.stdout).unwrap();
        assert_eq!(v["puzzles"][0]["solutions"], 1);
    }
}

#[test]
fn generate_rejects_bad_parameters() {
    let cases: [(&[&str], &str); 8] = [
        (
            &["--model", "paper", "--tier", "easy", "--size", "10"],
            "--size 10 is not supported",
        ),
        (
            &["--model", "paper", "--tier", "easy", "--count", "0"],
            "--count must be at least 1",
        ),
        (&["--model", "paper"], "needs --tier"),
        (&["--model", "paper", "--d", "1.2"], "outside (0, 1)"),
        (&["--model", "rated"], "needs --tier"),
        (
            &["--model", "paper", "--tier", "easy", "--d", "0.8"],
            "outside the easy band",
        ),
        // These made complete (or empty) grids labelled with the d asked for.
        (
            &["--model", "paper", "--d", "0.0001"],
            "blanks round(d·81) = 0 of the 81 cells",
        ),
        (
            &["--model", "paper", "--size", "4", "--d", "0.9999"],
            "pick d between 0.0314 and 0.9687",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["generate"];
        all.extend_from_slice(args);
        let out = run(&all);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            text(&out.stderr).contains(expected),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let out = run(&["generate", "--model", "magic", "--tier", "easy"]);
    assert!(!out.status.success());
}

/// A search stopped by `--max-nodes` is reported per line with its own exit status (3), by
/// `solve` and `rate` (table and JSON); the other puzzles are answered as usual.
#[test]
fn solve_and_rate_give_up_at_the_search_limits() {
    // An empty 16x16 needs more than 5 nodes; the classic is solved by propagation at the root.
    let file = scratch("limits.txt", format!("{}\n", ".".repeat(256)).as_bytes());
    let out = run(&["solve", file.to_str().unwrap(), "--max-nodes", "5"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("line 1: gave up after 6 nodes ("),
        "{stdout}"
    );
    assert!(text(&out.stderr).contains("1 given up (search limits)"));
    let classic = scratch(
        "limits9.txt",
        format!("{}\n{CLASSIC}\n", ".".repeat(81)).as_bytes(),
    );
    let out = run(&["solve", classic.to_str().unwrap(), "--max-nodes", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert!(
        lines[0].starts_with("line 1: gave up after 2 nodes"),
        "{lines:?}"
    );
    assert_eq!(lines[1], CLASSIC_SOLUTION);

    let out = run(&["rate", classic.to_str().unwrap(), "--max-nodes", "1"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("line 1: gave up after 2 nodes"));
    assert!(text(&out.stdout).contains("1 given up (search limits)"));
    let out = run(&[
        "rate",
        classic.to_str().unwrap(),
        "--max-nodes",
        "1",
        "--json",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = &report["puzzles"];
    assert_eq!(rows[0]["solutions"], serde_json::Value::Null);
    assert_eq!(rows[0]["gave_up_after_nodes"], 2);
    assert_eq!(rows[1]["solutions"], 1);
    assert!(rows[1].get("gave_up_after_nodes").is_none());

    for bad in [
        "--time-limit=-1",
        "--time-limit=nan",
        "--time-limit=1e30",
        "--time-limit=2d",
    ] {
        let out = run(&["solve", "puzzles/classic.txt", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            text(&out.stderr).contains("--time-limit"),
            "{bad}: {}",
            text(&out.stderr)
        );
    }
}

/// Requests that cannot be met give up with a reason and a suggestion instead of looping.
#[test]
fn generate_gives_up_on_impossible_requests() {
    for (args, want) in [
        ("--model rated --tier medium --size 4", "Try --tier easy"),
        ("--model paper --unique --d 0.9 --size 4", "Try --d 0."),
        ("--model paper --unique --d 0.95 --size 9", "Try --d 0."),
    ] {
        let mut all = vec!["generate", "--count", "1"];
        all.extend(args.split(' '));
        let out = run(&all);
        assert_eq!(out.status.code(), Some(1), "{args}");
        let e = text(&out.stderr);
        assert!(
            e.contains("gave up after 1000 complete grids"),
            "{args}: {e}"
        );
        assert!(e.contains(want), "{args}: {e}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_negative_number_is_refused_as_the_flags_value() {
    // Not "unexpected argument '-1'": the flag is named, as for any other bad value.
    for (args, flag) in [
        (
            &["batch", "puzzles/easy.txt", "--sr", "-1"][..],
            "'--sr <SR>'",
        ),
        (
            &["batch", "puzzles/easy.txt", "--runs", "-3"][..],
            "'--runs <RUNS>'",
        ),
        (&["generate", "--count", "-1"][..], "'--count <COUNT>'"),
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert!(
            err.contains(flag) && !err.contains("unexpected"),
            "{args:?}: {err}"
        );
    }
    let o = run(&["batch", "puzzles/easy.txt", "--lr", "-inf"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("--lr"));
}

/// `cnf` writes the CNF with its variable map; a model made from the true solution through that
/// map decodes to the solution; faulty, unsatisfiable and unknown answers are told apart.
#[test]
fn cnf_writes_a_sat_problem_and_decodes_a_model() {
    let famous = "puzzles/famous.txt";
    let solution = text(&run(&["solve", famous]).stdout)
        .lines()
        .nth(3)
        .unwrap()
        .to_string();
    let cnf = scratch("famous3.cnf", b"");
    let out = run(&["cnf", famous, "--index", "3", "-o", cnf.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("232 variables, 1502 clauses"),
        "{}",
        text(&out.stdout)
    );
    let dimacs = std::fs::read_to_string(&cnf).unwrap();
    assert!(dimacs.lines().any(|l| l == "p cnf 232 1502"));
    assert_eq!(dimacs.lines().filter(|l| l.ends_with(" 0")).count(), 1502);
    // The model that sets each (cell, digit) variable as the solution does.
    let sol: Vec<char> = solution.chars().collect();
    let lits: Vec<String> = dimacs
        .lines()
        .filter_map(|l| l.strip_prefix("c map "))
        .map(|m| {
            let f: Vec<usize> = m.split(' ').map(|x| x.parse().unwrap()).collect();
            let holds = sol[(f[1] - 1) * 9 + f[2] - 1].to_digit(10).unwrap() as usize == f[3];
            format!("{}{}", if holds { "" } else { "-" }, f[0])
        })
        .collect();
    assert_eq!(lits.len(), 232);
    let decode = |answer: &str| {
        let model = scratch("famous3.model", answer.as_bytes());
        run(&[
            "cnf",
            famous,
            "--index",
            "3",
            "--decode",
            model.to_str().unwrap(),
        ])
    };
    let good = format!("c a solver\ns SATISFIABLE\nv {} 0\n", lits.join(" "));
    let out = decode(&good);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{solution}\n"));
    // MiniSat's result file and standard input.
    let mut child = bin()
        .args(["cnf", famous, "--index", "3", "--decode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let minisat = format!("SAT\n{} 0\n", lits.join(" "));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(minisat.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), format!("{solution}\n"));
    // Variable 1 flipped: its cell (in row 1) gets two digits or none.
    let other = if lits[0] == "1" { "-1" } else { "1" };
    let flipped = good.replacen(&format!("v {} ", lits[0]), &format!("v {other} "), 1);
    let out = decode(&flipped);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("famous3.model: the model gives r1c"), "{err}");
    let out = decode("s UNSATISFIABLE\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stdout).contains("famous.txt:"),
        "{}",
        text(&out.stdout)
    );
    assert!(text(&out.stdout).contains("no solution (the SAT solver answered UNSATISFIABLE)"));
    assert_eq!(decode("INDET\n").status.code(), Some(3));
    let out = decode("s SATISFIABLE\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("holds no model"),
        "{}",
        text(&out.stderr)
    );
    let out = decode("s SATISFIABLE\ns UNSATISFIABLE\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("famous3.model:2:1: a second answer"));
    // The CNF names the command that decodes its answer.
    assert!(dimacs.contains(
        "\nc read a solver's answer back as a verified grid: gpu-sudoku cnf puzzles/famous.txt --index 3 --decode MODEL\n"
    ));
    let out = decode("s SATISFIABLE\nv 1 two 0\n");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("famous3.model:2:5: \"two\" is not a literal"),
        "{err}"
    );
    // The CNF is never written over the puzzle file, and stdin feeds one of the two.
    let out = run(&["cnf", famous, "-o", famous]);
    assert_eq!(out.status.code(), Some(1));
    let out = run(&["cnf", "-", "--decode", "-"]);
    assert!(
        text(&out.stderr).contains("not both"),
        "{}",
        text(&out.stderr)
    );
    // A puzzle whose singles contradict has no CNF.
    let out = run(&["cnf", "123............4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("command line: no solution"),
        "{}",
        text(&out.stderr)
    );
}

/// Messages name the flag the user gave and show numbers short (compare's step limit was
/// called --steps, a time limit past the stated maximum was taken, --d 1e308 printed 309 digits).
#[test]
fn messages_name_the_flag_given_and_keep_numbers_short() {
    let fails = |args: &[&str]| {
        let o = run(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        String::from_utf8(o.stderr).unwrap()
    };
    let e = fails(&[
        "compare",
        "puzzles/classic.txt",
        "--algos",
        "ilca",
        "--max-iterations",
        "4294967295",
    ]);
    assert!(
        e.contains("--max-iterations") && !e.contains("--steps"),
        "{e}"
    );
    let o = run(&["solve", "puzzles/classic.txt", "--time-limit", "4294967296"]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(e.contains("`4294967296` is too long"), "{e}");
    // compare's budget takes units, and its old spelling still works with a note.
    let budget = |flag: &str, value: &str| {
        let o = run(&[
            "compare",
            "puzzles/classic.txt",
            "--algos",
            "sa",
            flag,
            value,
            "--max-iterations",
            "10",
            "--json",
            "-",
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (v["params"]["budget_ms"].clone(), text(&o.stderr))
    };
    assert_eq!(budget("--time-limit", "2s").0, 2000);
    let (ms, note) = budget("--budget-ms", "1500");
    assert_eq!(ms, 1500);
    assert!(
        note.contains("--budget-ms is the old spelling of --time-limit: give --time-limit 1500ms"),
        "{note}"
    );
    let e = fails(&[
        "generate", "--model", "paper", "--d", "1e308", "--count", "1",
    ]);
    assert!(e.contains("--d 1e308 is outside") && e.len() < 200, "{e}");
}

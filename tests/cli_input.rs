//! Puzzle files as users have them, through the commands: old Mac and Unicode line breaks, a
//! byte-order mark, endless input, and the public formats (Kaggle-style CSV, `.sdk` blocks,
//! integer grids, gzip).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output};

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const CLASSIC_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("XDG_RUNTIME_DIR", "/tmp")
        .args(args)
        .output()
        .expect("runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scratch file under the target directory, unique per test.
fn scratch(name: &str, contents: &[u8]) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-input");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_str().unwrap().to_string()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// `solve FILE` prints the classic's solution once per puzzle, exit 0.
fn solves_classic(file: &str, puzzles: usize) {
    let out = run(&["solve", file]);
    assert!(out.status.success(), "{file}: {}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!("{CLASSIC_SOLUTION}\n").repeat(puzzles),
        "{file}"
    );
}

#[test]
fn old_mac_and_unicode_line_breaks_separate_puzzles() {
    for (name, sep) in [
        ("cr", "\r"),
        ("nel", "\u{85}"),
        ("ls", "\u{2028}"),
        ("ps", "\u{2029}"),
    ] {
        let file = scratch(&format!("{name}.txt"), [CLASSIC; 3].join(sep).as_bytes());
        solves_classic(&file, 3);
    }
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let file = scratch("bom.txt", format!("\u{feff}{CLASSIC}\r\n").as_bytes());
    solves_classic(&file, 1);
}

#[cfg(unix)]
#[test]
fn endless_input_fails_at_once() {
    let out = run(&["solve", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "error: /dev/zero:1:1: contains a NUL byte (is this a binary file?)\n"
    );
    let out = run(&["rate", "/dev/urandom"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("error: /dev/urandom:"));
}

/// The classic in each public layout, plain and gzip-compressed.
fn public_files() -> Vec<String> {
    let zeros = CLASSIC.replace('.', "0");
    let sdk: String = zeros
        .as_bytes()
        .chunks(9)
        .map(|r| String::from_utf8(r.to_vec()).unwrap() + "\n")
        .collect();
    let layouts = [
        (
            "kaggle.csv",
            format!("quizzes,solutions\n{zeros},{CLASSIC_SOLUTION}\n"),
        ),
        ("blocks.sdk", format!("#A someone\n{sdk}\n{sdk}")),
        (
            "rows.txt",
            sdk.lines()
                .map(|r| r.chars().map(String::from).collect::<Vec<_>>().join(" ") + "\n")
                .collect(),
        ),
    ];
    let mut files = Vec::new();
    for (name, body) in layouts {
        files.push(scratch(name, body.as_bytes()));
        files.push(scratch(&format!("{name}.gz"), &gzip(body.as_bytes())));
    }
    files
}

#[test]
fn public_formats_feed_solve_rate_batch_and_compare() {
    for file in public_files() {
        let puzzles = if file.contains("blocks") { 2 } else { 1 };
        solves_classic(&file, puzzles);
        let out = run(&["rate", &file]);
        assert!(out.status.success(), "{file}: {}", text(&out.stderr));
        let rows = text(&out.stdout)
            .lines()
            .filter(|l| l.contains(" easy ") && !l.starts_with('#'))
            .count();
        assert_eq!(rows, puzzles, "{file}");
        let out = run(&[
            "batch",
            &file,
            "--runs",
            "1",
            "--steps",
            "20",
            "--backend",
            "cpu",
        ]);
        assert!(out.status.success(), "{file}: {}", text(&out.stderr));
        let out = run(&[
            "compare",
            &file,
            "--algos",
            "mrv",
            "--runs",
            "1",
            "--time-limit",
            "2s",
        ]);
        assert!(out.status.success(), "{file}: {}", text(&out.stderr));
    }
}

#[test]
fn a_wrong_solution_in_a_csv_is_placed() {
    let zeros = CLASSIC.replace('.', "0");
    let wrong = format!("{}{}", &CLASSIC_SOLUTION[..80], "8");
    let file = scratch(
        "wrong.csv",
        format!("puzzle,solution\n{zeros},{CLASSIC_SOLUTION}\n{zeros},{wrong}\n").as_bytes(),
    );
    let out = run(&["solve", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with(&format!(
            "error: {file}:3:163: the solution in column \"solution\" does not solve the puzzle: r9c9 changes clue 9 to 8"
        )),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn batch_checks_solved_grids_against_a_kaggle_solution_column() {
    let zeros = CLASSIC.replace('.', "0");
    let body = format!("id,quizzes,solutions\n7,{zeros},{CLASSIC_SOLUTION}\n");
    let file = scratch("kaggle.csv.gz", &gzip(body.as_bytes()));
    let json = scratch("kaggle-batch.json", b"");
    let out = run(&[
        "batch",
        &file,
        "--runs",
        "2",
        "--preset",
        "improved",
        "--backend",
        "cpu",
        "--json",
        &json,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(
            "kaggle: 2 solved grids checked against the file's solution column: every one is the file's solution"
        ),
        "{}",
        text(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let puzzle = &doc["files"][0]["puzzles"][0];
    assert_eq!(puzzle["file_solution"], CLASSIC_SOLUTION);
    assert_eq!(puzzle["solved_as_file"], 2);
    assert_eq!(puzzle["line"], 2);
    // solve compares its answers with the column too.
    let out = run(&["solve", &file]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr)
        .contains("1 answers compared with the file's solution column: 1 equal, 0 differ"));
}

#[test]
fn format_and_column_can_be_forced() {
    let zeros = CLASSIC.replace('.', "0");
    // Two puzzle-like columns: --column picks the second, by name or by number.
    let body = format!("a,b\n{zeros},{}\n", zeros.replacen('5', "0", 1));
    let file = scratch("two-columns.csv", body.as_bytes());
    for column in ["b", "B", "2"] {
        let out = run(&["rate", &file, "--column", column, "--json", "-"]);
        assert!(out.status.success(), "{column}: {}", text(&out.stderr));
        let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(rows["puzzles"][0]["clues"], 29, "{column}: {rows}");
    }
    let out = run(&["rate", &file, "--column", "c"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("\"c\""), "{}", text(&out.stderr));
    // A one-line file forced to be read as integer rows is refused with a place.
    let line = scratch("one-line.txt", format!("{CLASSIC}\n").as_bytes());
    let out = run(&["solve", &line, "--format", "integers"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with(&format!("error: {line}:1:")),
        "{}",
        text(&out.stderr)
    );
    let out = run(&["solve", &line, "--format", "line"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

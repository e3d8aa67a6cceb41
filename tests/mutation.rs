//! Mutation test of everything the tool reads back (#33): valid journals (`batch`, `compare`)
//! and shard reports (`batch`, `compare`, `sweep`) with random bytes flipped, lines dropped or
//! doubled, and fields edited (a step count, a `solved` flag, a grid cell, a puzzle index), then
//! resumed or merged. Every case must either give the uninterrupted run's exact results or
//! fail with an error that names the file, never exit 0 with other results, never panic.
//!
//! `GPU_SUDOKU_MUTATIONS=N` cases per kind (default 20 here; benches/RESULTS.md records a run
//! of 1,000 per kind: `GPU_SUDOKU_MUTATIONS=1000 cargo test --release --test mutation --
//! --nocapture`).

mod common;
use common::{bin, ok, run, strip_run_specific as strip, temp_dir};
use serde_json::Value;
use std::path::Path;

/// splitmix64: the cases are the same on every machine for one seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn cases() -> usize {
    std::env::var("GPU_SUDOKU_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

/// One mutation of `text`: what was done (for the tally) and the new bytes.
fn mutate(text: &[u8], rng: &mut Rng) -> (&'static str, Vec<u8>) {
    let mut b = text.to_vec();
    let lines: Vec<&[u8]> = text.split_inclusive(|&c| c == b'\n').collect();
    match rng.below(6) {
        0 => {
            let i = rng.below(b.len());
            b[i] ^= 1 << rng.below(8);
            ("bit flip", b)
        }
        1 => {
            for _ in 0..3 {
                let i = rng.below(b.len());
                b[i] = rng.below(256) as u8;
            }
            ("3 random bytes", b)
        }
        2 => {
            let i = rng.below(lines.len());
            let mut out = Vec::new();
            for (k, l) in lines.iter().enumerate() {
                if k != i {
                    out.extend_from_slice(l);
                }
            }
            ("line dropped", out)
        }
        3 => {
            let i = rng.below(lines.len());
            let mut out = Vec::new();
            for (k, l) in lines.iter().enumerate() {
                out.extend_from_slice(l);
                if k == i {
                    out.extend_from_slice(l);
                }
            }
            ("line doubled", out)
        }
        _ => {
            // A field's value edited in place: the digits after `"steps":`, `"puzzle":`,
            // `"iterations":` or `"solved":` (a count, or true/false), or a grid's cell.
            let keys: [&[u8]; 5] = [
                b"\"steps\":",
                b"\"puzzle\":",
                b"\"iterations\":",
                b"\"solved\":",
                b"\"grid\":",
            ];
            let key = keys[rng.below(keys.len())];
            let at: Vec<usize> = (0..b.len().saturating_sub(key.len()))
                .filter(|&i| &b[i..i + key.len()] == key)
                .collect();
            if at.is_empty() {
                let i = rng.below(b.len());
                b[i] ^= 1;
                return ("bit flip", b);
            }
            let mut i = at[rng.below(at.len())] + key.len();
            while b[i] == b' ' || b[i] == b'"' {
                i += 1;
            }
            if b[i..].starts_with(b"true") {
                b.splice(i..i + 4, b"false".iter().copied());
            } else if b[i..].starts_with(b"false") {
                b.splice(i..i + 5, b"true".iter().copied());
            } else {
                if key == b"\"grid\":" {
                    i += rng.below(81);
                }
                b[i] = if b[i] == b'1' { b'2' } else { b'1' };
            }
            ("field edited", b)
        }
    }
}

fn results(p: &Path) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    strip(&mut v);
    v
}

/// The tally of one kind: cases that gave the exact results, and located errors.
#[derive(Default, Debug)]
struct Tally {
    same: usize,
    refused: usize,
}

/// One case's outcome: exit 0 with `got` equal to `want`, or a non-panic failure whose message
/// names `file`.
fn judge(
    kind: &str,
    what: &str,
    o: &std::process::Output,
    file: &str,
    got: &dyn Fn() -> Value,
    want: &Value,
    t: &mut Tally,
) {
    let err = String::from_utf8_lossy(&o.stderr);
    match o.status.code() {
        Some(0) => {
            assert!(&got() == want, "{kind}, {what}: exit 0 with other results");
            t.same += 1;
        }
        Some(1 | 2) => {
            assert!(
                err.contains(file),
                "{kind}, {what}: the error does not name {file}: {err}"
            );
            t.refused += 1;
        }
        c => panic!("{kind}, {what}: exit {c:?}: {err}"),
    }
}

/// A journal of `args` with about `keep` of its chunks: the run killed once they are on disk.
fn journal_of(d: &Path, args: &[&str], keep: usize) -> (Vec<u8>, Value) {
    let whole = d.join("whole.json");
    ok(&run(&[args, &["--json", whole.to_str().unwrap()]].concat()));
    let report = d.join("r.json");
    let journal = d.join("r.json.partial.jsonl");
    let mut child = bin()
        .args(args)
        .args(["--json", report.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::kill_when_journal_has(&mut child, &journal, keep + 1);
    assert!(!report.exists(), "killed before the report");
    (std::fs::read(&journal).unwrap(), results(&whole))
}

fn journal_kind(kind: &str, args: &[&str], keep: usize, seed: u64) -> Tally {
    let d = temp_dir(&format!("mutation-{kind}"));
    let (journal, want) = journal_of(&d, args, keep);
    let (report, path) = (d.join("r.json"), d.join("r.json.partial.jsonl"));
    let mut rng = Rng(seed);
    let mut t = Tally::default();
    for _ in 0..cases() {
        let (what, bytes) = mutate(&journal, &mut rng);
        std::fs::remove_file(&report).ok();
        std::fs::write(&path, &bytes).unwrap();
        let o = bin()
            .args(args)
            .args(["--json", report.to_str().unwrap(), "--resume"])
            .output()
            .unwrap();
        judge(
            kind,
            what,
            &o,
            "r.json.partial.jsonl",
            &|| results(&report),
            &want,
            &mut t,
        );
        std::fs::remove_file(&path).ok();
    }
    std::fs::remove_dir_all(&d).ok();
    t
}

fn shard_kind(kind: &str, args: &[&str], seed: u64) -> Tally {
    let d = temp_dir(&format!("mutation-{kind}"));
    let shards = common::two_shards(&d, "s", args);
    let merged = d.join("merged.json");
    ok(&run(&[
        "merge",
        &shards[0],
        &shards[1],
        "--json",
        merged.to_str().unwrap(),
    ]));
    let want = results(&merged);
    let text = std::fs::read(&shards[1]).unwrap();
    let edited = d.join("edited.json");
    let mut rng = Rng(seed);
    let mut t = Tally::default();
    for _ in 0..cases() {
        let (what, bytes) = mutate(&text, &mut rng);
        std::fs::write(&edited, &bytes).unwrap();
        std::fs::remove_file(&merged).ok();
        let o = run(&[
            "merge",
            &shards[0],
            edited.to_str().unwrap(),
            "--json",
            merged.to_str().unwrap(),
        ]);
        judge(
            kind,
            what,
            &o,
            "edited.json",
            &|| results(&merged),
            &want,
            &mut t,
        );
    }
    std::fs::remove_dir_all(&d).ok();
    t
}

/// A batch whose journal holds many chunks: 100 puzzles in chunks of 5, one thread.
const BATCH_JOURNAL: [&str; 12] = [
    "batch",
    "puzzles/evil.txt",
    "--runs",
    "1",
    "--steps",
    "1500",
    "--backend",
    "cpu",
    "--chunk",
    "5",
    "--threads",
    "1",
];

#[test]
fn mutated_journals_resume_exactly_or_are_refused_by_name() {
    let batch = BATCH_JOURNAL;
    let t = journal_kind("batch journal", &batch, 14, 1);
    eprintln!("batch journal: {t:?}");
    let compare = [
        "compare",
        "puzzles/hard.txt",
        "--algos",
        "mrv,ilca",
        "--runs",
        "1",
        "--time-limit",
        "0",
        "--max-iterations",
        "1500",
        "--chunk",
        "10",
        "--threads",
        "1",
    ];
    let t = journal_kind("compare journal", &compare, 14, 2);
    eprintln!("compare journal: {t:?}");
}

#[test]
fn mutated_shards_merge_exactly_or_are_refused_by_name() {
    for (kind, args, seed) in [
        (
            "batch shard",
            &["batch", "puzzles/easy.txt", "--runs", "2", "--steps", "60"][..],
            3,
        ),
        (
            "compare shard",
            &[
                "compare",
                "puzzles/hard.txt",
                "--algos",
                "ilca,mrv",
                "--runs",
                "1",
            ][..],
            4,
        ),
        (
            "sweep shard",
            &[
                "sweep",
                "puzzles/easy.txt",
                "--lr",
                "0.5:1:0.5",
                "--steps",
                "30",
            ][..],
            5,
        ),
    ] {
        let t = shard_kind(kind, args, seed);
        eprintln!("{kind}: {t:?}");
    }
}

/// `text` with the first `"wall_s":NUMBER` set to `value`.
fn with_wall_s(text: &str, value: &str) -> String {
    let at = text.find("\"wall_s\":").unwrap() + "\"wall_s\":".len();
    let end = at + text[at..].find([',', '\n', '}']).unwrap();
    format!("{}{value}{}", &text[..at], &text[end..])
}

#[test]
fn times_too_long_for_a_duration_are_refused_not_a_panic() {
    // Found by the fuzz target resume_batch (fuzz/): a chunk whose time is finite but beyond
    // what a Duration holds (4.3e19 s) panicked in --resume, and in merge a shard's wall time.
    // Signed again, the edit passes the checksum and reaches the check of the time itself.
    let d = temp_dir("mutation-long-times");
    let args = BATCH_JOURNAL;
    let (journal, _) = journal_of(&d, &args, 3);
    let text = String::from_utf8(journal).unwrap();
    let (header, body) = text.split_once('\n').unwrap();
    let first = body.lines().next().unwrap();
    let edited = with_wall_s(&first[17..], "0.0042783e22");
    let signed = gpu_sudoku::job::journal::signed_line(header, &edited);
    let path = d.join("r.json.partial.jsonl");
    std::fs::write(&path, format!("{header}\n{signed}\n")).unwrap();
    let report = d.join("r.json");
    let o = bin()
        .args(args)
        .args(["--json", report.to_str().unwrap(), "--resume"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("r.json.partial.jsonl") && err.contains("is not a duration"),
        "{err}"
    );

    let shards = common::two_shards(
        &d,
        "s",
        &["batch", "puzzles/easy.txt", "--runs", "1", "--steps", "20"],
    );
    let shard = std::fs::read_to_string(&shards[1]).unwrap();
    let edited = d.join("edited.json");
    std::fs::write(
        &edited,
        signed_again(&shard, |body| with_wall_s(body, "1e20")),
    )
    .unwrap();
    let o = run(&["merge", &shards[0], edited.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("edited.json") && err.contains("is not a duration"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).ok();
}

/// Shard report `report` edited by `edit` (given its text before the digest) and signed again,
/// as a forger would: what only the checks behind the digest can refuse.
fn signed_again(report: &str, edit: impl Fn(&str) -> String) -> Vec<u8> {
    let body = &report[..report.rfind(",\n  \"digest\"").unwrap()];
    let mut out = Vec::new();
    gpu_sudoku::report::digest::write_signed(&mut out, |w| {
        w.write_all(edit(body).as_bytes())?;
        w.write_all(b"\n}")
    })
    .unwrap();
    out
}

#[test]
fn a_run_beyond_the_runs_is_refused_in_merge() {
    // Found by the fuzz target merge_batch (fuzz/): a signed shard whose instance (puzzle 1,
    // run 2) read (puzzle 1, run 4) in a run of 3 runs per puzzle merged with exit 0: no item
    // twice and the count right, while the real run 2 was gone. Compare's attempts the same.
    let d = temp_dir("mutation-run-range");
    for (args, from, to) in [
        (
            &["batch", "puzzles/easy.txt", "--runs", "2", "--steps", "20"][..],
            "\"run\": 1,",
            "\"run\": 5,",
        ),
        (
            &[
                "compare",
                "puzzles/hard.txt",
                "--algos",
                "mrv",
                "--runs",
                "1",
            ][..],
            "\"run\": 0,",
            "\"run\": 7,",
        ),
    ] {
        let shards = common::two_shards(&d, args[0], args);
        let shard = std::fs::read_to_string(&shards[1]).unwrap();
        assert!(shard.contains(from), "{shard}");
        let edited = d.join(format!("{}-edited.json", args[0]));
        let bytes = signed_again(&shard, |body| body.replacen(from, to, 1));
        std::fs::write(&edited, bytes).unwrap();
        let o = run(&["merge", &shards[0], edited.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("-edited.json") && (err.contains("run 5") || err.contains("run 7")),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_dir_all(&d).ok();
}

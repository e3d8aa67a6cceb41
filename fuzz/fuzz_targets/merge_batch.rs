//! Fuzz target: `merge` of two batch shard reports whose bytes are anything. The input is the
//! two reports joined by a line holding `@@` (the seed: the shards 1/2 and 2/2 of a small
//! run); each is signed again (its `digest` recomputed) before it is written, so the fuzzer
//! reaches the checks past the digest: the shards' agreement, their items, and the
//! verification of every solved grid against the input read again.
//!
//! What must hold: no panic; a merge that succeeds reports every item of the run once, in
//! order, and every instance it calls solved holds a grid that keeps the rules and the
//! puzzle's clues.
//!
//! `FUZZ_SEED_OUT=DIR` (with `-runs=0`) writes the seed to DIR/shards. The reports name their
//! input by path: the target writes it to `$TMPDIR/gpu-sudoku-fuzz-merge/p4.txt` (the seed's
//! path) before anything runs.
#![no_main]

use gpu_sudoku::backend::Backend;
use gpu_sudoku::ilca::IlcaParams;
use gpu_sudoku::job::{batch, devices, merge, Keep, Quiet};
use gpu_sudoku::puzzle::{read_puzzles, PuzzleFile};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Ten 4x4 puzzles (`generate --model paper --size 4 --d 0.5 --count 10`).
const PUZZLES: &str = ".34....14..3312.\n...112.3..1221..\n31.424.3.23.....\n.1422..3....4.21\n\
12.4...1.14...13\n3..22...1324..3.\n42..3.4.2..414..\n312.4..124.3....\n1..224..4..3..14\n\
.12.2.4..2343...\n";

/// What joins the two reports in an input.
const SEPARATOR: &str = "\n@@\n";

/// What precedes the digest in a report (see `gpu_sudoku::report::digest`).
const DIGEST_FIELD: &str = ",\n  \"digest\": \"";

struct Setup {
    dir: PathBuf,
    file: PuzzleFile,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        // A fixed folder: the seed's reports name their input by this path.
        let dir = std::env::temp_dir().join("gpu-sudoku-fuzz-merge");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p4.txt");
        std::fs::write(&path, PUZZLES).unwrap();
        let file = read_puzzles(path.to_str().unwrap(), None).unwrap();
        if let Ok(out) = std::env::var("FUZZ_SEED_OUT") {
            let (devices, _) = devices::open(Backend::Cpu, None).unwrap();
            let params = IlcaParams {
                steps: 40,
                ..IlcaParams::default()
            };
            let mut shards = Vec::new();
            for k in 1..=2 {
                let mut r = batch::Request::ilca(vec![file.clone()], params.clone(), 3);
                r.shard = Some(format!("{k}/2").parse().unwrap());
                r.chunk = 4;
                let plan = batch::Plan::new(&r).unwrap();
                let done = batch::run(&plan, &devices, &Keep::for_reports(&["-"], false), &Quiet)
                    .unwrap();
                let mut text = Vec::new();
                done.write_json(&mut text).unwrap();
                done.finish().unwrap();
                shards.push(String::from_utf8(text).unwrap());
            }
            std::fs::write(PathBuf::from(out).join("shards"), shards.join(SEPARATOR)).unwrap();
        }
        Setup { dir, file }
    })
}

/// `report` with its digest recomputed (the text before its digest field, signed again).
fn signed(report: &str) -> Vec<u8> {
    let body = match report.rfind(DIGEST_FIELD) {
        Some(at) => &report[..at],
        None => report.trim_end().strip_suffix('}').unwrap_or(report).trim_end(),
    };
    let mut out = Vec::new();
    gpu_sudoku::report::digest::write_signed(&mut out, |w| {
        w.write_all(body.as_bytes())?;
        w.write_all(b"\n}")
    })
    .unwrap();
    out
}

fuzz_target!(|data: &[u8]| {
    let s = setup();
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some((one, two)) = text.split_once(SEPARATOR) else {
        return;
    };
    let paths: Vec<String> = [one, two]
        .iter()
        .enumerate()
        .map(|(k, report)| {
            let p = s.dir.join(format!("shard{k}.json"));
            std::fs::write(&p, signed(report)).unwrap();
            p.to_str().unwrap().to_string()
        })
        .collect();
    let Ok(shards) = merge::Shards::read(&paths) else {
        return;
    };
    if shards.kind().ok() != Some(merge::Kind::Batch) {
        return;
    }
    if let Ok(merged) = merge::batch(&shards, Vec::new()) {
        for f in &merged.files {
            let runs = merged.runs;
            let mut next = 0;
            f.records
                .for_each(&mut |r| {
                    assert_eq!((r.puzzle, r.run), (next / runs, next % runs), "in order, once");
                    next += 1;
                    if r.solved {
                        let grid = gpu_sudoku::puzzle::parse_str(&r.grid, Some(4))
                            .unwrap()
                            .remove(0)
                            .grid;
                        assert!(
                            grid.is_solution_of(&s.file.puzzles[r.puzzle].grid),
                            "an unverified solve was merged: {r:?}"
                        );
                    }
                    Ok(())
                })
                .unwrap();
            assert_eq!(next, s.file.puzzles.len() * runs, "every item merged");
        }
    }
});

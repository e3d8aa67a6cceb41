//! Fuzz target: `batch --resume` on a journal whose chunk lines are any bytes. The input is the
//! journal's body (its lines after the header); each line is signed again with this run's
//! header before it is written, so the fuzzer reaches the checks past the checksum: the
//! record's layout, its items, its limits and the verification of every solved grid.
//!
//! What must hold: no panic; a resumed run that succeeds reports every item of the plan once,
//! in order, and every instance it calls solved holds a grid that keeps the rules and the
//! puzzle's clues.
//!
//! `FUZZ_SEED_OUT=DIR` (with `-runs=0`) writes the body of the uninterrupted run's journal to
//! DIR/journal, the seed of fuzz/seeds/resume_batch/.
#![no_main]

use gpu_sudoku::backend::{Backend, Device};
use gpu_sudoku::ilca::IlcaParams;
use gpu_sudoku::job::{batch, devices, journal, Keep, Quiet};
use gpu_sudoku::puzzle::{read_puzzles, Puzzle, PuzzleFile};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Ten 4x4 puzzles (`generate --model paper --size 4 --d 0.5 --count 10`).
const PUZZLES: &str = ".34....14..3312.\n...112.3..1221..\n31.424.3.23.....\n.1422..3....4.21\n\
12.4...1.14...13\n3..22...1324..3.\n42..3.4.2..414..\n312.4..124.3....\n1..224..4..3..14\n\
.12.2.4..2343...\n";

struct Setup {
    dir: PathBuf,
    file: PuzzleFile,
    device: Device,
    /// The journal's header line, as the run writes it.
    header: String,
}

fn request(file: &PuzzleFile) -> batch::Request {
    let params = IlcaParams {
        steps: 40,
        ..IlcaParams::default()
    };
    let mut r = batch::Request::ilca(vec![file.clone()], params, 3);
    r.chunk = 4; // 30 items: 8 chunks
    r
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("gpu-sudoku-fuzz-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p4.txt");
        std::fs::write(&path, PUZZLES).unwrap();
        let file = read_puzzles(path.to_str().unwrap(), None).unwrap();
        let (mut opened, _) = devices::open(Backend::Cpu, None).unwrap();
        let device = opened.remove(0);
        // The uninterrupted run: its journal, read before the report lets it go.
        let report = dir.join("reference.json");
        let r = request(&file);
        let plan = batch::Plan::new(&r).unwrap();
        let keep = Keep::for_reports(&[report.to_str().unwrap()], false);
        let done = batch::run(&plan, std::slice::from_ref(&device), &keep, &Quiet).unwrap();
        let text = std::fs::read_to_string(journal::path_for(&report)).unwrap();
        done.finish().unwrap();
        let (header, body) = text.split_once('\n').unwrap();
        if let Ok(out) = std::env::var("FUZZ_SEED_OUT") {
            let unsigned: String = body.lines().map(|l| format!("{}\n", &l[17..])).collect();
            std::fs::write(PathBuf::from(out).join("journal"), unsigned).unwrap();
        }
        Setup {
            dir,
            file,
            device,
            header: header.to_string(),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let s = setup();
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let mut text = format!("{}\n", s.header);
    for line in body.lines() {
        text.push_str(&journal::signed_line(&s.header, line));
        text.push('\n');
    }
    let report = s.dir.join("run.json");
    let journal_path = journal::path_for(&report);
    std::fs::write(&journal_path, text).unwrap();
    let r = request(&s.file);
    let plan = batch::Plan::new(&r).unwrap();
    let keep = Keep::for_reports(&[report.to_str().unwrap()], true);
    if let Ok(done) = batch::run(&plan, std::slice::from_ref(&s.device), &keep, &Quiet) {
        let puzzles: &[Puzzle] = &s.file.puzzles;
        let mut next = 0;
        done.each_record(&mut |_, r| {
            assert_eq!((r.puzzle, r.run), (next / 3, next % 3), "items in order, once");
            next += 1;
            if r.solved {
                let grid = gpu_sudoku::puzzle::parse_str(&r.grid, Some(4)).unwrap().remove(0).grid;
                assert!(
                    grid.is_solution_of(&puzzles[r.puzzle].grid),
                    "an unverified solve was reported: {r:?}"
                );
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(next, 30, "every item reported");
        assert_eq!(done.files[0].tally.instances, 30);
        done.finish().unwrap();
    }
    std::fs::remove_file(&journal_path).ok();
});

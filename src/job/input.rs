//! A batch's puzzle file: held whole, or (a regular file, which can be read again) checked
//! once and then read window by window as the batch runs, so that a file of a million
//! puzzles runs in memory that does not grow with it.

use crate::puzzle::{
    scan_puzzles, Content, Grid, LineNotes, Puzzle, PuzzleFile, PuzzleReader, ReadOptions, Scan,
};
use crate::report::batch::{InputInfo, Note, NotesSource, PuzzleNotes};
use anyhow::{bail, Result};
use std::ops::Range;

/// One input file of a batch.
#[derive(Clone, Debug)]
pub enum Input {
    /// Every puzzle in memory (standard input, or a library caller's puzzles).
    Held(PuzzleFile),
    /// A regular file checked whole ([`scan_puzzles`]) and read again as the run needs it.
    Streamed { scan: Scan, options: ReadOptions },
}

impl From<PuzzleFile> for Input {
    fn from(file: PuzzleFile) -> Input {
        Input::Held(file)
    }
}

impl Input {
    /// The regular file at `path`, checked whole now (any bad puzzle fails here) and read
    /// again, window by window, when the batch runs.
    pub fn streamed(path: &str, options: &ReadOptions) -> Result<Input> {
        Ok(Input::Streamed {
            scan: scan_puzzles(path, options)?,
            options: options.clone(),
        })
    }

    /// Path as given (`-` for standard input).
    pub fn path(&self) -> &str {
        match self {
            Input::Held(f) => &f.path,
            Input::Streamed { scan, .. } => &scan.path,
        }
    }

    /// Box size b of every puzzle.
    pub fn b(&self) -> usize {
        match self {
            Input::Held(f) => f.b,
            Input::Streamed { scan, .. } => scan.b,
        }
    }

    /// How many puzzles it holds.
    pub fn len(&self) -> usize {
        match self {
            Input::Held(f) => f.puzzles.len(),
            Input::Streamed { scan, .. } => scan.puzzles,
        }
    }

    /// Whether it holds no puzzle (a scanned file always holds one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `#` lines before the first puzzle.
    pub fn header(&self) -> &[String] {
        match self {
            Input::Held(f) => &f.header,
            Input::Streamed { scan, .. } => &scan.header,
        }
    }

    /// The row label ([`crate::puzzle::file_label`]).
    pub fn label(&self) -> String {
        crate::puzzle::file_label(self.path())
    }

    /// The input as reports name it: path, puzzle count, content hash.
    pub fn info(&self) -> InputInfo {
        match self {
            Input::Held(f) => InputInfo::of_file(f),
            Input::Streamed { scan, .. } => InputInfo {
                path: scan.path.clone(),
                puzzles: scan.puzzles,
                hash: scan.hash.clone(),
            },
        }
    }

    /// Bytes of the longest extra fields a puzzle has, and whether any puzzle may have a
    /// solution in the file (a streamed file: assumed, an upper bound for the disk check).
    pub fn longest_notes(&self) -> (usize, bool) {
        match self {
            Input::Held(f) => (
                f.puzzles.iter().map(|p| p.extra.len()).max().unwrap_or(0),
                f.puzzles.iter().any(|p| p.solution.is_some()),
            ),
            Input::Streamed { scan, .. } => (scan.longest_extra, true),
        }
    }

    /// Its puzzles in order, window by window ([`Cursor::window`]).
    pub fn cursor(&self) -> Result<Cursor<'_>> {
        Ok(match self {
            Input::Held(f) => Cursor::Held(&f.puzzles),
            Input::Streamed { scan, options } => {
                Cursor::Streamed(Box::new(Reread::open(scan, options)?))
            }
        })
    }

    /// The puzzles' notes for the reports: held, or read again when a report is written.
    pub fn notes(&self) -> PuzzleNotes {
        match self {
            Input::Held(f) => PuzzleNotes::held_of(&f.puzzles),
            Input::Streamed { scan, options } => {
                let (scan, options) = (scan.clone(), options.clone());
                PuzzleNotes::Reread(std::sync::Arc::new(move || {
                    let source = Reread::open(&scan, &options).map_err(std::io::Error::other)?;
                    Ok(Box::new(source) as Box<dyn NotesSource>)
                }))
            }
        }
    }
}

/// What a run needs of a window of a file's puzzles: puzzle `first + k` is `grids[k]`, its
/// solution in the file (one-line format) `solutions[k]`. Nothing else of the lines is kept.
pub struct Window {
    pub first: usize,
    pub grids: Vec<Grid>,
    pub solutions: Vec<Option<String>>,
}

impl Window {
    fn of<'p>(first: usize, puzzles: impl Iterator<Item = Result<&'p Puzzle>>) -> Result<Window> {
        let mut w = Window {
            first,
            grids: Vec::new(),
            solutions: Vec::new(),
        };
        for p in puzzles {
            let p = p?;
            w.grids.push(p.grid.clone());
            w.solutions.push(p.solution.as_ref().map(Grid::to_line));
        }
        Ok(w)
    }

    /// Puzzle `puzzle` of the file, if the window holds it.
    pub fn puzzle(&self, puzzle: usize) -> Option<&Grid> {
        self.grids.get(puzzle.checked_sub(self.first)?)
    }

    /// The solution the file gives of puzzle `puzzle`, if the window holds it and there is one.
    pub fn solution(&self, puzzle: usize) -> Option<&str> {
        let k = puzzle.checked_sub(self.first)?;
        self.solutions.get(k)?.as_deref()
    }
}

/// An input's puzzles read in windows of increasing puzzle numbers.
pub enum Cursor<'a> {
    Held(&'a [Puzzle]),
    Streamed(Box<Reread>),
}

impl Cursor<'_> {
    /// Puzzles `range` (each window starts at or after the start of the one before, and at
    /// most one puzzle before its end: a puzzle whose runs two windows share).
    pub fn window(&mut self, range: Range<usize>) -> Result<Window> {
        let first = range.start;
        match self {
            Cursor::Held(puzzles) => Window::of(first, puzzles[range].iter().map(Ok)),
            Cursor::Streamed(r) => {
                let mut w = Window::of(first, std::iter::empty())?;
                for i in range {
                    let p = r.at(i)?;
                    w.grids.push(p.grid.clone());
                    w.solutions.push(p.solution.as_ref().map(Grid::to_line));
                }
                Ok(w)
            }
        }
    }

    /// Done with the windows: a streamed file is read to its end and checked to be the file
    /// the run began with.
    pub fn finish(self) -> Result<()> {
        match self {
            Cursor::Held(_) => Ok(()),
            Cursor::Streamed(mut r) => r.read_rest(),
        }
    }
}

/// A scanned file read again from its start, each puzzle checked into the content hash and
/// the hash of its lines' notes, so that a file changed since the scan (its grids, or only the
/// lines, extra fields or solutions the reports repeat) is an error, not a different run.
pub struct Reread {
    reader: PuzzleReader<'static>,
    scan: Scan,
    content: Content,
    notes: LineNotes,
    /// The last puzzle read (the next window may start with it).
    last: Option<Puzzle>,
    /// Puzzles read so far.
    read: usize,
}

impl Reread {
    fn open(scan: &Scan, options: &ReadOptions) -> Result<Reread> {
        Ok(Reread {
            reader: PuzzleReader::open(&scan.path, options)?,
            scan: scan.clone(),
            content: Content::default(),
            notes: LineNotes::default(),
            last: None,
            read: 0,
        })
    }

    fn changed(&self) -> anyhow::Error {
        anyhow::anyhow!(
            "{}: the file changed while the batch ran (it held {} puzzles of content {} when \
             the batch began); run it again",
            self.scan.path,
            self.scan.puzzles,
            self.scan.hash
        )
    }

    /// The next puzzle of the file, counted into its content.
    fn next(&mut self) -> Result<Option<Puzzle>> {
        match self.reader.next() {
            None => Ok(None),
            Some(Err(e)) => Err(e.into()),
            Some(Ok(p)) => {
                if self.read == self.scan.puzzles || p.grid.box_size() != self.scan.b {
                    return Err(self.changed());
                }
                self.content.add(&p.grid);
                self.notes.add(&p);
                self.read += 1;
                Ok(Some(p))
            }
        }
    }

    /// Puzzle `puzzle` (the last read, or one after it).
    fn at(&mut self, puzzle: usize) -> Result<&Puzzle> {
        if puzzle + 1 < self.read || (puzzle + 1 == self.read && self.last.is_none()) {
            bail!(
                "internal error: puzzle {puzzle} asked for after puzzle {}",
                self.read
            );
        }
        while self.read <= puzzle {
            let Some(p) = self.next()? else {
                return Err(self.changed());
            };
            self.last = Some(p);
        }
        Ok(self.last.as_ref().expect("read above"))
    }

    /// Reads the rest and compares the whole file with the scan.
    fn read_rest(&mut self) -> Result<()> {
        while self.next()?.is_some() {}
        if self.read != self.scan.puzzles
            || self.content.hash() != self.scan.hash
            || self.notes.hash() != self.scan.notes_hash
        {
            return Err(self.changed());
        }
        Ok(())
    }
}

impl NotesSource for Reread {
    fn at(&mut self, puzzle: usize) -> std::io::Result<Note> {
        let p = Reread::at(self, puzzle).map_err(std::io::Error::other)?;
        Ok(Note {
            line: p.line,
            extra: p.extra.clone(),
            solution: p.solution.as_ref().map(Grid::to_line),
        })
    }

    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.read_rest().map_err(std::io::Error::other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Device;
    use crate::ilca::IlcaParams;
    use crate::job::batch::{self, Plan, Request};
    use crate::job::{Keep, Quiet};

    const CLASSIC: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    /// A folder of its own for test `name`.
    fn folder(name: &str) -> std::path::PathBuf {
        let d =
            std::env::temp_dir().join(format!("gpu-sudoku-input-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Two files: a CSV whose rows give solutions (some) and names, and the shipped easy tier
    /// (its lines carry `d=…` fields).
    fn two_files(dir: &std::path::Path) -> Vec<String> {
        let mut csv = String::from("puzzle,solution,name\n");
        for k in 0..13 {
            let solution = if k % 3 == 1 { "" } else { SOLUTION };
            csv.push_str(&format!("{CLASSIC},{solution},\"n{k}, classic\"\n"));
        }
        let a = dir.join("a.csv");
        std::fs::write(&a, csv).unwrap();
        let easy = concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles/easy.txt");
        let text = std::fs::read_to_string(easy).unwrap();
        let b = dir.join("easy.txt");
        let first: Vec<&str> = text.lines().take(3 + 11).collect();
        std::fs::write(&b, first.join("\n") + "\n").unwrap();
        [a, b].map(|p| p.to_str().unwrap().to_string()).to_vec()
    }

    /// A report's JSON and CSV without what differs from run to run (times, host, start).
    fn reports(request: &Request) -> (serde_json::Value, String) {
        let plan = Plan::new(request).unwrap();
        let keep = Keep {
            records: true,
            beside: None,
            resume: false,
        };
        let report = batch::run(&plan, &[Device::Cpu], &keep, &Quiet).unwrap();
        let (mut json, mut csv) = (Vec::new(), Vec::new());
        report.write_json(&mut json).unwrap();
        report.write_csv(&mut csv).unwrap();
        report.finish().unwrap();
        let mut v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        for f in v["files"].as_array_mut().unwrap() {
            f["summary"]["timing"] = serde_json::Value::Null;
        }
        for key in ["overall", "provenance", "created", "digest"] {
            v[key] = serde_json::Value::Null;
        }
        (v, String::from_utf8(csv).unwrap())
    }

    #[test]
    fn a_streamed_file_reports_what_the_held_file_reports() {
        // Windows of 2 chunks of 7 items, 3 runs a puzzle: windows and chunks split puzzles'
        // runs between them; a shard starts in the middle of a file.
        let dir = folder("same");
        let paths = two_files(&dir);
        let options = ReadOptions::default();
        let params = IlcaParams {
            steps: 200,
            ..crate::ilca::presets::by_name("shared").unwrap().params()
        };
        for shard in [None, Some(crate::shard::Shard { index: 1, count: 3 })] {
            let held: Vec<PuzzleFile> = (paths.iter())
                .map(|p| crate::puzzle::read_puzzles_with(p, &options).unwrap())
                .collect();
            let mut request = Request::ilca(held, params.clone(), 3);
            request.chunk = 7;
            request.shard = shard;
            let (held_json, held_csv) = reports(&request);
            request.files = (paths.iter())
                .map(|p| Input::streamed(p, &options).unwrap())
                .collect();
            assert!(matches!(request.files[0], Input::Streamed { .. }));
            let (json, csv) = reports(&request);
            assert_eq!(csv, held_csv, "{shard:?}");
            assert_eq!(json, held_json, "{shard:?}");
            // What the per-puzzle rows repeat of the lines is there.
            let rows = json["files"][0]["puzzles"].as_array().unwrap();
            assert!(!rows.is_empty());
            assert!(rows.iter().any(|r| r["file_solution"] == SOLUTION));
            assert!(rows
                .iter()
                .all(|r| r["extra"].as_str().unwrap().contains("classic")));
            let solved: u64 = rows.iter().map(|r| r["solved"].as_u64().unwrap()).sum();
            assert!(solved > 0, "the classic puzzle is solved within 200 steps");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_file_changed_after_its_check_is_an_error_not_another_run() {
        // Changes the run's puzzles would not show, and changes only the reports would: two
        // puzzles swapped, a puzzle's extra fields rewritten (same grids), a comment line
        // inserted (same grids, lines moved). Each is refused, and the journal goes with the
        // run: its chunks may be of other puzzles, so no --resume may take them.
        let change = |text: &str, how: usize| -> String {
            let mut lines: Vec<String> = text.lines().map(String::from).collect();
            let first = lines.iter().position(|l| !l.starts_with('#')).unwrap();
            match how {
                0 => lines.swap(first, first + 1),
                1 => lines[first + 2] = format!("{} name=changed", lines[first + 2]),
                _ => lines.insert(first + 3, "# a comment".into()),
            }
            lines.join("\n") + "\n"
        };
        for how in 0..3 {
            let dir = folder(&format!("changed-{how}"));
            let paths = two_files(&dir);
            let input = Input::streamed(&paths[1], &ReadOptions::default()).unwrap();
            let text = std::fs::read_to_string(&paths[1]).unwrap();
            let mut request = Request::ilca(Vec::new(), IlcaParams::default(), 1);
            request.files = vec![input];
            let plan = Plan::new(&request).unwrap();
            std::fs::write(&paths[1], change(&text, how)).unwrap();
            let report = dir.join("r.json");
            let keep = Keep {
                records: true,
                beside: Some(report.clone()),
                resume: false,
            };
            let e = batch::run(&plan, &[Device::Cpu], &keep, &Quiet)
                .err()
                .expect("refused");
            let e = format!("{e:#}");
            assert!(
                e.contains("the file changed while the batch ran"),
                "{how}: {e}"
            );
            assert!(e.contains("journal is removed"), "{how}: {e}");
            assert!(!dir.join("r.json.partial.jsonl").exists(), "{how}");
            std::fs::remove_dir_all(&dir).ok();
        }
    }
}

//! Batch reports: per-file summaries (the paper's Table 2 layout, with the rate's 95% interval
//! and the time-to-solution), the JSON document that makes a run reproducible, and the
//! per-instance CSV with the parameters on every row.

use super::stats::{median_of_steps, tts99_of_counts, wilson95, Tts};
use super::InstanceResult;
// The schema pieces moved to `schema`; kept reachable here for code that still names them so.
pub use super::schema::{provenance_here, Header, InputInfo, SCHEMA};
use crate::shard::Shard;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// The results of one puzzle file: running totals for the tables, and the per-instance records
/// for the JSON and CSV reports (held, or read back from disk when written).
#[derive(Clone, Debug)]
pub struct FileResults {
    /// Path as given on the command line.
    pub path: String,
    /// Row label (file stem, e.g. "evil").
    pub label: String,
    /// Side length n of the file's grids.
    pub side: usize,
    /// Totals of the instances (summary, per-puzzle rows, the file-solution check).
    pub tally: Tally,
    /// One record per instance, in (puzzle, run) order.
    pub records: Records,
    /// Wall time of the file's batch.
    pub wall: Duration,
    /// Per puzzle (by index): the algorithm's own record of the puzzle's run, written under the
    /// algorithm's name beside each of its instances in the JSON (RFSS: generations run,
    /// conflicts left, species, restarts, why a puzzle is unsolvable); empty when there is none.
    pub details: BTreeMap<usize, serde_json::Value>,
    /// The algorithm ignores the seed (RFSS): a further run of a puzzle would repeat the first,
    /// so its summaries give no TTS99, which assumes independent runs.
    pub ignores_seed: bool,
    /// What the reports repeat of each puzzle's line: where it is, its extra fields and its
    /// solution.
    pub notes: PuzzleNotes,
}

/// Per puzzle, what the reports repeat of its line in the input: the line's number, the fields
/// after the grid (`d=…`, `name=…`, a CSV's other columns), verbatim, and the solution the file
/// gives (a CSV solution column), one-line format.
#[derive(Clone)]
pub enum PuzzleNotes {
    /// By puzzle index: every puzzle's 1-based line; extras and solutions of the puzzles that
    /// have some.
    Held {
        lines: Vec<usize>,
        extras: BTreeMap<usize, String>,
        solutions: BTreeMap<usize, String>,
    },
    /// Read again from the input file when a report is written, in puzzle order (a file too
    /// big to hold): the function opens it.
    Reread(std::sync::Arc<dyn Fn() -> std::io::Result<Box<dyn NotesSource>> + Send + Sync>),
}

impl std::fmt::Debug for PuzzleNotes {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            PuzzleNotes::Held {
                lines,
                extras,
                solutions,
            } => f
                .debug_struct("Held")
                .field("lines", lines)
                .field("extras", extras)
                .field("solutions", solutions)
                .finish(),
            PuzzleNotes::Reread(_) => f.write_str("Reread"),
        }
    }
}

/// A puzzle's notes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Note {
    /// 1-based line in the file.
    pub line: usize,
    /// The fields after the grid ("" when none).
    pub extra: String,
    /// The solution the file gives, one-line format.
    pub solution: Option<String>,
}

/// An input read again for its notes, one puzzle at a time in increasing order.
pub trait NotesSource {
    /// Puzzle `puzzle`'s notes; puzzles are asked for in increasing order.
    fn at(&mut self, puzzle: usize) -> std::io::Result<Note>;
    /// Reads the rest of the input: an error if it is not the input the run read.
    fn finish(self: Box<Self>) -> std::io::Result<()>;
}

impl PuzzleNotes {
    /// The notes of `puzzles` (a whole file), held.
    pub fn held_of(puzzles: &[crate::puzzle::Puzzle]) -> PuzzleNotes {
        PuzzleNotes::Held {
            lines: puzzles.iter().map(|p| p.line).collect(),
            extras: (puzzles.iter().enumerate())
                .filter(|(_, p)| !p.extra.is_empty())
                .map(|(i, p)| (i, p.extra.clone()))
                .collect(),
            solutions: FileResults::solutions_in(puzzles),
        }
    }

    /// The notes of the puzzles, to be asked for in increasing order.
    pub fn open(&self) -> std::io::Result<NotesCursor<'_>> {
        let from = match self {
            PuzzleNotes::Held {
                lines,
                extras,
                solutions,
            } => From::Held {
                lines,
                extras,
                solutions,
            },
            PuzzleNotes::Reread(open) => From::Reread(open()?),
        };
        Ok(NotesCursor { from, last: None })
    }
}

/// Reads [`PuzzleNotes`] in puzzle order, keeping the last puzzle's (records come a puzzle's
/// runs at a time).
pub struct NotesCursor<'a> {
    from: From<'a>,
    last: Option<(usize, Note)>,
}

enum From<'a> {
    Held {
        lines: &'a [usize],
        extras: &'a BTreeMap<usize, String>,
        solutions: &'a BTreeMap<usize, String>,
    },
    Reread(Box<dyn NotesSource>),
}

impl NotesCursor<'_> {
    /// Puzzle `puzzle`'s notes (at or after the last asked for).
    pub fn at(&mut self, puzzle: usize) -> std::io::Result<&Note> {
        if self.last.as_ref().is_none_or(|(p, _)| *p != puzzle) {
            let note = match &mut self.from {
                From::Held {
                    lines,
                    extras,
                    solutions,
                } => Note {
                    line: *lines.get(puzzle).ok_or_else(|| {
                        std::io::Error::other(format!("internal error: no line of puzzle {puzzle}"))
                    })?,
                    extra: extras.get(&puzzle).cloned().unwrap_or_default(),
                    solution: solutions.get(&puzzle).cloned(),
                },
                From::Reread(source) => source.at(puzzle)?,
            };
            self.last = Some((puzzle, note));
        }
        Ok(&self.last.as_ref().expect("set above").1)
    }

    /// Done: a re-read input is read to its end and checked to be the one the run read.
    pub fn finish(self) -> std::io::Result<()> {
        match self.from {
            From::Held { .. } => Ok(()),
            From::Reread(source) => source.finish(),
        }
    }
}

/// Running totals of instances, enough for every summary without holding the instances: per
/// puzzle whose runs are still coming, its runs, how many solved at each step count, and how
/// many of the solved grids are the file's solution. A puzzle whose runs are all counted
/// ([`Tally::with_runs`]) closes into totals and its TTS99 (kept only for the median, and only
/// when puzzles run twice or more), so memory grows at most 8 bytes a puzzle, not with the
/// runs. The per-puzzle rows of the reports are made from the records.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Runs per puzzle when known: a puzzle that has them all closes.
    runs: Option<usize>,
    /// Puzzles whose runs are still coming (every puzzle, when `runs` is unknown).
    open: BTreeMap<usize, PuzzleTally>,
    closed: Closed,
    /// Solved instances by step count, over every puzzle.
    steps: BTreeMap<u32, usize>,
    /// Instances counted.
    pub instances: usize,
    /// Steps run, summed (an unsolved instance counts the step limit).
    pub instance_steps: u64,
}

/// The totals of a tally's closed puzzles.
#[derive(Clone, Debug, Default)]
struct Closed {
    puzzles: usize,
    /// Puzzles with a solved run.
    solved: usize,
    /// Solved runs of puzzles the file gives a solution of, and of those, runs that found it.
    checked: usize,
    as_file: usize,
    /// Each closed puzzle's TTS99 in steps (infinite: none solved), for the median.
    tts: Vec<f64>,
    /// A puzzle of fewer than two runs closed: no median of TTS99 (see [`super::stats::median_tts99`]).
    single_run: bool,
}

/// One puzzle's runs: how many, solved ones by step count, how many found the file's solution.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PuzzleTally {
    pub runs: usize,
    /// Solved runs by the step count they solved at.
    pub solved: BTreeMap<u32, usize>,
    /// Solved runs whose grid is the solution the file gives (0 when it gives none).
    pub as_file: usize,
    /// The file gives this puzzle's solution.
    pub has_file_solution: bool,
}

impl PuzzleTally {
    /// Counts one run; `file_solution` is the puzzle's solution in the file, if given.
    pub fn add(&mut self, r: &InstanceResult, file_solution: Option<&str>) {
        self.runs += 1;
        self.has_file_solution |= file_solution.is_some();
        if r.solved {
            *self.solved.entry(r.steps).or_insert(0) += 1;
            self.as_file += usize::from(file_solution == Some(r.grid.as_str()));
        }
    }

    /// Solved runs.
    pub fn solved_runs(&self) -> usize {
        self.solved.values().sum()
    }

    /// The puzzle's TTS99 over its runs (`None` when none solved).
    pub fn tts99(&self) -> Option<Tts> {
        tts99_of_counts(&self.solved, self.runs)
    }
}

impl Tally {
    /// An empty tally of puzzles that run `runs` times each: each puzzle closes once its runs
    /// are in (a tally without it keeps every puzzle open).
    pub fn with_runs(runs: usize) -> Tally {
        Tally {
            runs: Some(runs),
            ..Tally::default()
        }
    }

    /// The totals of `results`, solved grids compared with `file_solutions` (by puzzle).
    pub fn of<'a>(
        results: impl IntoIterator<Item = &'a InstanceResult>,
        file_solutions: &BTreeMap<usize, String>,
    ) -> Tally {
        let mut t = Tally::default();
        for r in results {
            t.add(r, file_solutions.get(&r.puzzle).map(String::as_str));
        }
        t
    }

    /// Counts one instance; `file_solution` is its puzzle's solution in the file, if given.
    pub fn add(&mut self, r: &InstanceResult, file_solution: Option<&str>) {
        self.instances += 1;
        self.instance_steps += r.steps as u64;
        if r.solved {
            *self.steps.entry(r.steps).or_insert(0) += 1;
        }
        let p = self.open.entry(r.puzzle).or_default();
        p.add(r, file_solution);
        if self.runs == Some(p.runs) {
            let p = self.open.remove(&r.puzzle).expect("counted above");
            let c = &mut self.closed;
            c.puzzles += 1;
            c.solved += usize::from(!p.solved.is_empty());
            if p.has_file_solution {
                c.checked += p.solved_runs();
                c.as_file += p.as_file;
            }
            c.single_run |= p.runs < 2;
            if !c.single_run {
                c.tts.push(p.tts99().map_or(f64::INFINITY, |t| t.steps));
            }
        }
    }

    /// Puzzles with a run counted.
    pub fn puzzles_counted(&self) -> usize {
        self.closed.puzzles + self.open.len()
    }

    /// Solved instances by step count, over every puzzle.
    pub fn solved_steps(&self) -> &BTreeMap<u32, usize> {
        &self.steps
    }

    /// The median over puzzles of each puzzle's TTS99 in steps (infinite for a puzzle no run
    /// solved); `None` for no puzzles, an infinite median or a puzzle of one run
    /// ([`super::stats::median_tts99`]).
    pub fn tts99_puzzle_median(&self) -> Option<f64> {
        Tally::median_over(&[self])
    }

    /// [`Tally::tts99_puzzle_median`] over the puzzles of several tallies.
    fn median_over(tallies: &[&Tally]) -> Option<f64> {
        if tallies.iter().any(|t| t.closed.single_run) {
            return None;
        }
        let mut steps: Vec<f64> = Vec::new();
        for t in tallies {
            steps.extend(&t.closed.tts);
            for p in t.open.values() {
                if p.runs < 2 {
                    return None;
                }
                steps.push(p.tts99().map_or(f64::INFINITY, |t| t.steps));
            }
        }
        median_of_steps(steps)
    }

    /// Puzzles with at least one solved instance.
    fn puzzles_solved(&self) -> usize {
        self.closed.solved + self.open.values().filter(|p| !p.solved.is_empty()).count()
    }

    /// Solved instances of puzzles the file gives a solution of, and how many found it.
    fn against_file(&self) -> (usize, usize) {
        let (mut checked, mut same) = (self.closed.checked, self.closed.as_file);
        for p in self.open.values().filter(|p| p.has_file_solution) {
            checked += p.solved_runs();
            same += p.as_file;
        }
        (checked, same)
    }
}

/// A file's per-instance records: in memory, or a function that hands them over in order
/// (reading them back from disk), so that a report of millions of instances is written
/// without holding them.
#[derive(Clone)]
pub enum Records {
    Held(Vec<InstanceResult>),
    Stored(std::sync::Arc<RecordReader>),
}

/// Hands every record, in order, to the visitor; stops at the first error.
pub type RecordReader = dyn Fn(&mut dyn FnMut(InstanceResult) -> std::io::Result<()>) -> std::io::Result<()>
    + Send
    + Sync;

impl std::fmt::Debug for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Records::Held(r) => write!(f, "Records::Held({} records)", r.len()),
            Records::Stored(_) => f.write_str("Records::Stored"),
        }
    }
}

impl Records {
    /// Hands every record, in order, to `visit`.
    pub fn for_each(
        &self,
        visit: &mut dyn FnMut(InstanceResult) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        match self {
            Records::Held(rs) => rs.iter().try_for_each(|r| visit(r.clone())),
            Records::Stored(read) => read(visit),
        }
    }
}

/// Aggregate numbers of one file (or of all files).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Summary {
    pub puzzles: usize,
    pub instances: usize,
    pub solved: usize,
    /// Percentage of instances solved.
    pub solved_pct: f64,
    /// Puzzles solved by at least one of their runs.
    pub puzzles_solved: usize,
    /// Mean and median steps of the solved instances (None when none was solved).
    pub mean_steps: Option<f64>,
    pub median_steps: Option<f64>,
    /// Steps run, summed over instances (an unsolved instance counts the step limit).
    pub instance_steps: u64,
    /// Wilson 95% interval of `solved_pct`, in percent.
    pub solved_pct_95: Option<[f64; 2]>,
    /// Time to solution at 99% confidence in steps (docs: `report::stats`), over the pooled
    /// runs; `None` when nothing was solved.
    pub tts99: Option<Tts>,
    /// The median over the puzzles of each puzzle's own TTS99 in steps (from its runs alone; a
    /// puzzle that no run solved counts as infinite), the per-instance figure the literature
    /// compares solvers by; `None` when half of the puzzles or more were never solved. Unlike
    /// the pooled [`Summary::tts99`], easy puzzles cannot hide the hard ones.
    pub tts99_puzzle_median: Option<f64>,
    /// Wall time and throughput: not reproducible, kept apart so that a run's JSON minus its
    /// `timing` and `provenance` objects is the same whatever the thread count or machine.
    pub timing: Timing,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Timing {
    pub wall_s: f64,
    pub instance_steps_per_s: f64,
    /// TTS99 in seconds at this throughput (`tts99.steps / instance_steps_per_s`).
    pub tts99_s: Option<f64>,
    /// [`Summary::tts99_puzzle_median`] in seconds at this throughput.
    pub tts99_puzzle_median_s: Option<f64>,
}

impl Summary {
    /// Summary of instances of `puzzles` puzzles that took `wall`.
    pub fn of<'a>(
        puzzles: usize,
        results: impl IntoIterator<Item = &'a InstanceResult>,
        wall: Duration,
    ) -> Summary {
        Summary::of_tally(puzzles, &Tally::of(results, &BTreeMap::new()), wall)
    }

    /// Summary of the instances `tally` counts, of `puzzles` puzzles, that took `wall`.
    pub fn of_tally(puzzles: usize, tally: &Tally, wall: Duration) -> Summary {
        Summary::of_tallies(puzzles, &[tally], wall)
    }

    /// Summary of the instances `tallies` count together (each tally's puzzles its own), of
    /// `puzzles` puzzles, that took `wall`.
    fn of_tallies(puzzles: usize, tallies: &[&Tally], wall: Duration) -> Summary {
        let pooled;
        let steps = match tallies {
            [one] => one.solved_steps(),
            _ => {
                let mut all = BTreeMap::new();
                for (&s, &k) in tallies.iter().flat_map(|t| t.solved_steps()) {
                    *all.entry(s).or_insert(0) += k;
                }
                pooled = all;
                &pooled
            }
        };
        let solved: usize = steps.values().sum();
        // Exact in integers, then one rounding (the same value as summing the f64s in order
        // while the total stays below 2^53).
        let sum: u128 = steps.iter().map(|(&s, &k)| s as u128 * k as u128).sum();
        let mean = (solved > 0).then(|| sum as f64 / solved as f64);
        // The k-th smallest solved step count (0-based).
        let nth = |k: usize| -> f64 {
            let mut seen = 0;
            for (&s, &c) in steps {
                seen += c;
                if seen > k {
                    return s as f64;
                }
            }
            unreachable!("k < solved")
        };
        let median = (solved > 0).then(|| {
            if solved % 2 == 1 {
                nth(solved / 2)
            } else {
                (nth(solved / 2 - 1) + nth(solved / 2)) / 2.0
            }
        });
        let instances = tallies.iter().map(|t| t.instances).sum();
        let instance_steps = tallies.iter().map(|t| t.instance_steps).sum();
        let wall_s = wall.as_secs_f64();
        let rate = if wall_s > 0.0 {
            instance_steps as f64 / wall_s
        } else {
            0.0
        };
        let tts = tts99_of_counts(steps, instances);
        let per_puzzle = Tally::median_over(tallies);
        Summary {
            puzzles,
            instances,
            solved,
            solved_pct: if instances == 0 {
                0.0
            } else {
                100.0 * solved as f64 / instances as f64
            },
            puzzles_solved: tallies.iter().map(|t| t.puzzles_solved()).sum(),
            mean_steps: mean,
            median_steps: median,
            instance_steps,
            solved_pct_95: wilson95(solved, instances).map(|(lo, hi)| [100.0 * lo, 100.0 * hi]),
            tts99: tts,
            tts99_puzzle_median: per_puzzle,
            timing: Timing {
                wall_s,
                instance_steps_per_s: rate,
                tts99_s: tts.filter(|_| rate > 0.0).map(|t| t.steps / rate),
                tts99_puzzle_median_s: per_puzzle.filter(|_| rate > 0.0).map(|t| t / rate),
            },
        }
    }

    /// Summary over all files: instances pooled, wall times added; no pooled TTS99 over several
    /// files (the median of the puzzles' own TTS99 is over every file's puzzles).
    pub fn overall(files: &[FileResults]) -> Summary {
        let puzzles = files.iter().map(FileResults::puzzles_run).sum();
        // Puzzle indices repeat across files: each file's tally keeps its puzzles apart.
        let tallies: Vec<&Tally> = files.iter().map(|f| &f.tally).collect();
        let wall = files.iter().map(|f| f.wall).sum();
        let s = Summary::of_tallies(puzzles, &tallies, wall);
        // TTS99 restarts one problem; pooled over several files (tiers), a tier that is never
        // solved would hide behind the others (an overall 69 steps beside evil at 0%).
        if files.iter().any(|f| f.ignores_seed) {
            s.without_tts()
        } else if files.len() > 1 {
            Summary {
                tts99: None,
                timing: Timing {
                    tts99_s: None,
                    ..s.timing
                },
                ..s
            }
        } else {
            s
        }
    }

    /// The summary with no TTS99, for an algorithm that ignores the seed (see
    /// [`FileResults::ignores_seed`]).
    pub fn without_tts(mut self) -> Summary {
        self.tts99 = None;
        self.timing.tts99_s = None;
        self.tts99_puzzle_median = None;
        self.timing.tts99_puzzle_median_s = None;
        self
    }
}

impl FileResults {
    /// The results `results` (in (puzzle, run) order) of the file at `path`, held in memory.
    #[allow(clippy::too_many_arguments)]
    pub fn held(
        path: String,
        label: String,
        side: usize,
        lines: Vec<usize>,
        results: Vec<InstanceResult>,
        wall: Duration,
        details: BTreeMap<usize, serde_json::Value>,
        file_solutions: BTreeMap<usize, String>,
    ) -> FileResults {
        FileResults {
            tally: Tally::of(&results, &file_solutions),
            records: Records::Held(results),
            path,
            label,
            side,
            wall,
            details,
            ignores_seed: false,
            notes: PuzzleNotes::Held {
                lines,
                extras: BTreeMap::new(),
                solutions: file_solutions,
            },
        }
    }

    pub fn summary(&self) -> Summary {
        let s = Summary::of_tally(self.puzzles_run(), &self.tally, self.wall);
        if self.ignores_seed {
            s.without_tts()
        } else {
            s
        }
    }

    /// The solutions a puzzle file gives, by puzzle index (see [`PuzzleNotes`]).
    pub fn solutions_in(puzzles: &[crate::puzzle::Puzzle]) -> BTreeMap<usize, String> {
        puzzles
            .iter()
            .enumerate()
            .filter_map(|(i, p)| Some((i, p.solution.as_ref()?.to_line())))
            .collect()
    }

    /// Solved instances whose puzzle has a solution in the file: how many, and how many of
    /// their grids differ from it (each was verified against the rules and the clues, so a
    /// difference means the puzzle has more than one solution).
    pub fn against_file_solutions(&self) -> (usize, usize) {
        let (checked, same) = self.tally.against_file();
        (checked, checked - same)
    }

    /// How many of the file's puzzles have results (all of them, but in a shard).
    pub fn puzzles_run(&self) -> usize {
        self.tally.puzzles_counted()
    }
}

fn fmt_opt(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.1}"))
}

/// Compact rate: 1.23M, 45.6k.
fn fmt_rate(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2}G", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// The results table, printed a row at a time as files finish: one row per file, then an
/// overall row when there are several files.
pub struct Table {
    width: usize,
    unit: String,
    paper: bool,
}

impl Table {
    /// A table for rows labelled `labels` (and "overall"), step columns counting `unit` ("steps"
    /// for ILCA, "gens" for RFSS), with a column of the paper's rates when `paper`.
    pub fn new(labels: &[String], unit: &str, paper: bool) -> Table {
        let width = labels.iter().map(String::len).chain([7]).max().unwrap_or(7);
        Table {
            width,
            unit: unit.into(),
            paper,
        }
    }

    /// The header line.
    pub fn header(&self) -> String {
        let (w, u) = (self.width, &self.unit);
        format!(
            "{:<w$}  {:>7}  {:>9}  {:>7}  {:>8}  {:>13}{}  {:>10}  {:>12}  {:>12}  {:>13}  {:>9}  {:>12}\n",
            "file",
            "puzzles",
            "instances",
            "solved",
            "solved %",
            "95% interval",
            if self.paper { "     paper" } else { "" },
            format!("mean {u}"),
            format!("median {u}"),
            format!("TTS99 {u}"),
            "TTS99/puzzle",
            "wall s",
            format!("inst-{u}/s")
        )
    }

    /// One row; `paper` is the paper's rate for this row, when the table shows them.
    pub fn row(&self, label: &str, s: &Summary, paper: Option<f64>) -> String {
        let w = self.width;
        let interval = s
            .solved_pct_95
            .map_or("-".into(), |[lo, hi]| format!("{lo:.1}–{hi:.1}%"));
        let paper = if self.paper {
            format!("  {:>8}", paper.map_or("–".into(), |p| format!("{p}%")))
        } else {
            String::new()
        };
        format!(
            "{:<w$}  {:>7}  {:>9}  {:>7}  {:>7.1}%  {:>13}{}  {:>10}  {:>12}  {:>12}  {:>13}  {:>9.3}  {:>12}\n",
            label,
            s.puzzles,
            s.instances,
            s.solved,
            s.solved_pct,
            interval,
            paper,
            fmt_opt(s.mean_steps),
            fmt_opt(s.median_steps),
            s.tts99.map_or("-".into(), |t| format!("{:.0}", t.steps)),
            s.tts99_puzzle_median
                .map_or("-".into(), |t| format!("{t:.0}")),
            s.timing.wall_s,
            fmt_rate(s.timing.instance_steps_per_s)
        )
    }
}

/// The table's row label of each file given as (path, label): its label, or its path where
/// two files share the label (`a/easy.txt`, `b/easy.txt`: two rows `easy` could not be told
/// apart).
pub fn row_labels<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    let files: Vec<(&str, &str)> = files.into_iter().collect();
    files
        .iter()
        .map(|&(path, label)| {
            if files.iter().filter(|f| f.1 == label).count() > 1 {
                path.to_string()
            } else {
                label.to_string()
            }
        })
        .collect()
}

/// One instance in the JSON report.
#[derive(Serialize, schemars::JsonSchema)]
struct InstanceJson<'a> {
    puzzle: usize,
    line: usize,
    run: usize,
    solved: bool,
    steps: u32,
    grid: &'a str,
    /// `{algorithm: detail}` when the file has details.
    #[serde(flatten)]
    detail: BTreeMap<&'a str, &'a serde_json::Value>,
}

/// One puzzle's runs in the JSON report.
#[derive(Serialize, schemars::JsonSchema)]
struct PuzzleJson {
    puzzle: usize,
    line: usize,
    runs: usize,
    solved: usize,
    tts99: Option<Tts>,
    /// The solution the puzzle file gives, when it gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    file_solution: Option<String>,
    /// Solved runs whose grid is the file's solution (when the file gives one).
    #[serde(skip_serializing_if = "Option::is_none")]
    solved_as_file: Option<usize>,
    /// The fields after the grid on the puzzle's line (`d=0.61`, `name=ai-escargot`), verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<String>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct FileJson<'a> {
    path: &'a str,
    label: &'a str,
    side: usize,
    summary: Summary,
    puzzles: PuzzlesJson<'a>,
    instances: InstancesJson<'a>,
}

/// A file's instances in the JSON report, serialised as they are read (see [`Records`]).
struct InstancesJson<'a> {
    file: &'a FileResults,
    algorithm: &'a str,
}

/// Its schema: a list of [`InstanceJson`].
impl schemars::JsonSchema for InstancesJson<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Instances".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        g.subschema_for::<Vec<InstanceJson<'static>>>()
    }
}

impl Serialize for InstancesJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let f = self.file;
        let mut notes = f.notes.open().map_err(S::Error::custom)?;
        let mut seq = s.serialize_seq(Some(f.tally.instances))?;
        let mut failed = None;
        let read = f.records.for_each(&mut |r| {
            let record = InstanceJson {
                puzzle: r.puzzle,
                line: notes.at(r.puzzle)?.line,
                run: r.run,
                solved: r.solved,
                steps: r.steps,
                grid: &r.grid,
                detail: f
                    .details
                    .get(&r.puzzle)
                    .map(|d| (self.algorithm, d))
                    .into_iter()
                    .collect(),
            };
            seq.serialize_element(&record).map_err(|e| {
                failed = Some(e);
                std::io::Error::other("the report could not be written")
            })
        });
        if let Some(e) = failed {
            return Err(e);
        }
        read.map_err(S::Error::custom)?;
        notes.finish().map_err(S::Error::custom)?;
        seq.end()
    }
}

/// A file's per-puzzle rows in the JSON report (its runs, how many solved, its TTS99, its
/// notes), made from its records as they are read (they come in (puzzle, run) order): a file
/// of a million puzzles is never held as rows.
struct PuzzlesJson<'a> {
    file: &'a FileResults,
}

/// Its schema: a list of [`PuzzleJson`], written in place (as a `Vec` field would be).
impl schemars::JsonSchema for PuzzlesJson<'_> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Puzzles".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        g.subschema_for::<Vec<PuzzleJson>>()
    }
}

impl Serialize for PuzzlesJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let f = self.file;
        let row = |puzzle: usize, note: Note, p: &PuzzleTally| PuzzleJson {
            puzzle,
            line: note.line,
            runs: p.runs,
            solved: p.solved_runs(),
            // One run's "TTS99" would be its step count (as for the median over puzzles).
            tts99: p.tts99().filter(|_| !f.ignores_seed && p.runs >= 2),
            solved_as_file: note.solution.as_ref().map(|_| p.as_file),
            file_solution: note.solution,
            extra: Some(note.extra).filter(|e| !e.is_empty()),
        };
        let mut notes = f.notes.open().map_err(S::Error::custom)?;
        let mut seq = s.serialize_seq(Some(f.tally.puzzles_counted()))?;
        let mut failed = None;
        // The puzzle the records are at: its number, notes and runs so far.
        let mut at: Option<(usize, Note, PuzzleTally)> = None;
        let read = f.records.for_each(&mut |r| {
            if at.as_ref().is_none_or(|(p, ..)| *p != r.puzzle) {
                if let Some((puzzle, note, p)) = at.take() {
                    seq.serialize_element(&row(puzzle, note, &p)).map_err(|e| {
                        failed = Some(e);
                        std::io::Error::other("the report could not be written")
                    })?;
                }
                at = Some((
                    r.puzzle,
                    notes.at(r.puzzle)?.clone(),
                    PuzzleTally::default(),
                ));
            }
            let (_, note, p) = at.as_mut().expect("set above");
            p.add(&r, note.solution.as_deref());
            Ok(())
        });
        if let Some(e) = failed {
            return Err(e);
        }
        read.map_err(S::Error::custom)?;
        if let Some((puzzle, note, p)) = at {
            seq.serialize_element(&row(puzzle, note, &p))?;
        }
        notes.finish().map_err(S::Error::custom)?;
        seq.end()
    }
}

/// Everything needed to reproduce and audit an ILCA batch.
#[derive(Serialize, schemars::JsonSchema)]
struct BatchJson<'a> {
    #[serde(flatten)]
    header: Header,
    algorithm: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    preset: Option<&'a str>,
    backend: &'a str,
    adapter: Option<&'a str>,
    seed: Option<u64>,
    runs: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    params: serde_json::Value,
    /// What ran: every input file with its puzzle count and content hash.
    inputs: &'a [InputInfo],
    /// The part of the run this report holds, when sharded.
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<Shard>,
    /// Where and when it ran (host, start time; for a merge, every shard's).
    provenance: &'a serde_json::Value,
    files: Vec<FileJson<'a>>,
    overall: Summary,
}

/// Context of a batch for the JSON report.
pub struct BatchInfo<'a> {
    /// "ilca" or "rfss".
    pub algorithm: &'a str,
    /// The preset the parameters came from, if any.
    pub preset: Option<&'a str>,
    /// The command line (argv), so the run can be repeated.
    pub command: &'a [String],
    /// "cpu" or "gpu".
    pub backend: &'a str,
    /// The GPU adapter, None on the CPU.
    pub adapter: Option<&'a str>,
    pub runs: usize,
    /// The random seed (None for a deterministic algorithm).
    pub seed: Option<u64>,
    /// A remark on how to read the runs (e.g. RFSS is deterministic).
    pub note: Option<&'a str>,
    /// The algorithm's parameters as they were used.
    pub params: serde_json::Value,
    /// Every input file, hashed.
    pub inputs: Vec<InputInfo>,
    /// The shard this report holds, if the run was split.
    pub shard: Option<Shard>,
    /// Host and start time (or, for a merge, each shard's); not part of the results.
    pub provenance: serde_json::Value,
}

/// The JSON Schema of the batch report (`gpu-sudoku schema batch`).
pub fn json_schema() -> serde_json::Value {
    super::schema::json_schema_of::<BatchJson<'static>>("gpu-sudoku batch report", true)
}

/// Writes the JSON report of a batch (pretty-printed) to `w`, reading each file's records as
/// it goes.
pub fn write_batch_json(
    info: &BatchInfo,
    files: &[FileResults],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let doc = BatchJson {
        header: Header::new(info.command.to_vec()),
        algorithm: info.algorithm,
        preset: info.preset,
        backend: info.backend,
        adapter: info.adapter,
        seed: info.seed,
        runs: info.runs,
        note: info.note,
        params: info.params.clone(),
        inputs: &info.inputs,
        shard: info.shard,
        provenance: &info.provenance,
        files: files
            .iter()
            .map(|f| FileJson {
                path: &f.path,
                label: &f.label,
                side: f.side,
                summary: f.summary(),
                puzzles: PuzzlesJson { file: f },
                instances: InstancesJson {
                    file: f,
                    algorithm: info.algorithm,
                },
            })
            .collect(),
        overall: Summary::overall(files),
    };
    super::digest::write_signed(w, |w| {
        serde_json::to_writer_pretty(w, &doc).map_err(std::io::Error::other)
    })
}

/// Writes one CSV row per instance to `w`: file, label, puzzle (0-based), line, run, solved,
/// steps, grid, then one column per parameter (the JSON's `params`, keys in alphabetical
/// order), so that rows of different runs can be concatenated and grouped by setting, and last
/// the puzzle's extra fields (`d=0.61`, `name=ai-escargot`; empty when it has none).
pub fn write_instances_csv(
    info: &BatchInfo,
    files: &[FileResults],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let params: Vec<(String, String)> = match &info.params {
        serde_json::Value::Object(m) => m
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), v)
            })
            .collect(),
        _ => Vec::new(),
    };
    // Parameter columns carry a `param_` prefix: the budget `steps` would otherwise share a
    // name with the instance's `steps` (pandas reads such a pair as `steps` and `steps.1`).
    let mut head: Vec<String> = [
        "file", "label", "puzzle", "line", "run", "solved", "steps", "grid",
    ]
    .map(String::from)
    .to_vec();
    head.extend(params.iter().map(|(k, _)| format!("param_{k}")));
    // Last, so that the fixed columns and the parameters keep their places.
    head.push("extra".to_string());
    let mut csv = crate::csv_io::Writer::new(w);
    csv.row(&head)?;
    for f in files {
        let mut notes = f.notes.open()?;
        f.records.for_each(&mut |r| {
            let note = notes.at(r.puzzle)?;
            let mut row = vec![
                f.path.clone(),
                f.label.clone(),
                r.puzzle.to_string(),
                note.line.to_string(),
                r.run.to_string(),
                r.solved.to_string(),
                r.steps.to_string(),
                r.grid.clone(),
            ];
            row.extend(params.iter().map(|(_, v)| v.clone()));
            row.push(note.extra.clone());
            csv.row(&row)
        })?;
        notes.finish()?;
    }
    csv.finish().map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of `files` without a paper column, as `batch_table` lays it out.
    fn table(files: &[FileResults], unit: &str) -> String {
        let labels = row_labels(files.iter().map(|f| (f.path.as_str(), f.label.as_str())));
        let t = Table::new(&labels, unit, false);
        let mut out = t.header();
        for (f, label) in files.iter().zip(&labels) {
            out += &t.row(label, &f.summary(), None);
        }
        if files.len() > 1 {
            out += &t.row("overall", &Summary::overall(files), None);
        }
        out
    }

    fn inst(puzzle: usize, run: usize, solved: bool, steps: u32) -> InstanceResult {
        InstanceResult {
            puzzle,
            run,
            solved,
            steps,
            grid: "1234341221434321".into(),
        }
    }

    #[test]
    fn solved_grids_are_compared_with_the_files_solutions() {
        let results = vec![
            inst(0, 0, true, 3),
            inst(0, 1, false, 9),
            inst(1, 0, true, 4),
        ];
        let f = file("x", results.clone(), 1);
        assert_eq!(
            f.against_file_solutions(),
            (0, 0),
            "no solution in the file"
        );
        let solutions = BTreeMap::from([
            (0, "1234341221434321".to_string()),
            (1, "1243341221344321".to_string()),
        ]);
        let f = file_with("x", results, 1, solutions);
        // Puzzle 0's solved run matches; puzzle 1's solved run holds another grid.
        assert_eq!(f.against_file_solutions(), (2, 1));
        let info = two_runs(serde_json::json!({}));
        let v: serde_json::Value = serde_json::from_str(&batch_json(&info, &[f])).unwrap();
        let puzzles = &v["files"][0]["puzzles"];
        assert_eq!(puzzles[0]["solved_as_file"], 1);
        assert_eq!(puzzles[1]["solved_as_file"], 0);
        assert_eq!(puzzles[1]["file_solution"], "1243341221344321");
    }

    fn file(label: &str, results: Vec<InstanceResult>, ms: u64) -> FileResults {
        file_with(label, results, ms, BTreeMap::new())
    }

    fn file_with(
        label: &str,
        results: Vec<InstanceResult>,
        ms: u64,
        file_solutions: BTreeMap<usize, String>,
    ) -> FileResults {
        FileResults::held(
            format!("dir/{label}.txt"),
            label.into(),
            4,
            vec![3, 5],
            results,
            Duration::from_millis(ms),
            BTreeMap::new(),
            file_solutions,
        )
    }

    /// A plain ILCA batch of two runs per puzzle with parameters `params`.
    fn two_runs(params: serde_json::Value) -> BatchInfo<'static> {
        BatchInfo {
            algorithm: "ilca",
            preset: None,
            command: &[],
            backend: "cpu",
            adapter: None,
            runs: 2,
            seed: None,
            note: None,
            params,
            inputs: Vec::new(),
            shard: None,
            provenance: serde_json::json!({}),
        }
    }

    fn batch_json(info: &BatchInfo, files: &[FileResults]) -> String {
        let mut out = Vec::new();
        write_batch_json(info, files, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn instances_csv(info: &BatchInfo, files: &[FileResults]) -> String {
        let mut out = Vec::new();
        write_instances_csv(info, files, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn summary_counts_means_medians_by_hand() {
        let f = file(
            "a",
            vec![
                inst(0, 0, true, 4),
                inst(0, 1, false, 250),
                inst(1, 0, true, 10),
                inst(1, 1, true, 7),
            ],
            500,
        );
        let s = f.summary();
        assert_eq!((s.puzzles, s.instances, s.solved), (2, 4, 3));
        assert_eq!(s.solved_pct, 75.0);
        assert_eq!(s.puzzles_solved, 2);
        assert_eq!(s.mean_steps, Some(7.0));
        assert_eq!(s.median_steps, Some(7.0));
        assert_eq!(s.instance_steps, 271);
        assert_eq!(s.timing.instance_steps_per_s, 542.0);
        let g = file("b", vec![inst(0, 0, true, 4), inst(1, 0, true, 9)], 500);
        assert_eq!(g.summary().median_steps, Some(6.5));
        let all = Summary::overall(&[f.clone(), g.clone()]);
        assert_eq!((all.puzzles, all.instances, all.solved), (4, 6, 5));
        assert_eq!(all.puzzles_solved, 4);
        assert_eq!(all.timing.wall_s, 1.0);
        let none = file("c", vec![inst(0, 0, false, 9)], 1);
        assert_eq!(none.summary().mean_steps, None);
        let t = table(&[f.clone(), g, none], "steps");
        assert!(t.lines().count() == 5, "{t}");
        assert!(t.contains("overall"));
        // 3 of 4 solved: Wilson interval 30.1–95.4%.
        assert!(t.contains("30.1–95.4%"), "{t}");
        // No TTS99 over several files (it would pool their puzzles as one problem); over one
        // file, the file's own.
        assert!(all.tts99.is_none() && all.timing.tts99_s.is_none());
        assert!(f.summary().tts99.is_some());
        assert_eq!(
            Summary::overall(std::slice::from_ref(&f)).tts99,
            f.summary().tts99
        );
    }

    /// TTS99 per puzzle, then the median over puzzles: a puzzle that no run solved counts as
    /// infinite, and easy puzzles do not hide it as they do in the pooled TTS99.
    #[test]
    fn tts99_per_puzzle_median_by_hand() {
        let runs = |p: usize, steps: &[Option<u32>]| -> Vec<InstanceResult> {
            steps
                .iter()
                .enumerate()
                .map(|(r, s)| inst(p, r, s.is_some(), s.unwrap_or(100)))
                .collect()
        };
        // Puzzle 0: both runs at step 1 (TTS99 1); puzzle 1: one of two at step 5 (TTS99
        // 5·ln 0.01/ln 0.5 = 33.2); puzzle 2: never solved.
        let mut results = runs(0, &[Some(1), Some(1)]);
        results.extend(runs(1, &[Some(5), None]));
        results.extend(runs(2, &[None, None]));
        let f = file("a", results.clone(), 1000);
        let s = f.summary();
        let want = 5.0 * 0.01f64.ln() / 0.5f64.ln();
        assert!(
            (s.tts99_puzzle_median.unwrap() - want).abs() < 1e-9,
            "{s:?}"
        );
        // Pooled, the step-1 runs of puzzle 0 set the figure: p(1) = 1/3, 1·ln 0.01/ln(2/3).
        assert!(s.tts99.unwrap().steps < 12.0);
        let rate = s.timing.instance_steps_per_s;
        assert_eq!(s.timing.tts99_puzzle_median_s, Some(want / rate));
        // A fourth puzzle never solved: half of them unsolved, no median.
        results.extend(runs(3, &[None, None]));
        assert_eq!(file("b", results, 1000).summary().tts99_puzzle_median, None);
        // Over several files, the median over all their puzzles (no pooled TTS99).
        // One run of a puzzle gives only its step count, not a TTS99: no median.
        assert_eq!(
            file("d", runs(0, &[Some(2)]), 1000)
                .summary()
                .tts99_puzzle_median,
            None
        );
        let g = file("c", runs(0, &[Some(2), Some(2)]), 1000);
        let all = Summary::overall(&[f.clone(), g]);
        assert_eq!(all.tts99, None);
        assert_eq!(all.tts99_puzzle_median, Some((2.0 + want) / 2.0));
        let t = table(&[f], "steps");
        assert!(t.contains("TTS99/puzzle") && t.contains(" 33 "), "{t}");
    }

    #[test]
    fn stored_records_write_the_same_reports_as_held_ones() {
        let results = vec![
            inst(0, 0, true, 4),
            inst(0, 1, false, 250),
            inst(1, 0, true, 9),
        ];
        let held = file("a", results.clone(), 10);
        let mut stored = held.clone();
        stored.records = Records::Stored(std::sync::Arc::new(move |visit| {
            results.iter().try_for_each(|r| visit(r.clone()))
        }));
        let info = two_runs(serde_json::json!({"steps": 250}));
        let (h, s) = (std::slice::from_ref(&held), std::slice::from_ref(&stored));
        assert_eq!(batch_json(&info, h), batch_json(&info, s));
        assert_eq!(instances_csv(&info, h), instances_csv(&info, s));
        // A record that cannot be read fails the report instead of shortening it.
        stored.records = Records::Stored(std::sync::Arc::new(|_| {
            Err(std::io::Error::other("journal gone"))
        }));
        let mut out = Vec::new();
        let e = write_batch_json(&info, std::slice::from_ref(&stored), &mut out).unwrap_err();
        assert!(e.to_string().contains("journal gone"), "{e}");
        assert!(write_instances_csv(&info, &[stored], &mut Vec::new()).is_err());
    }

    #[test]
    fn json_and_csv_hold_every_instance() {
        let f = file("a", vec![inst(0, 0, true, 4), inst(1, 0, false, 250)], 10);
        let params = crate::ilca::IlcaParams::default();
        let cmd = vec!["gpu-sudoku".to_string(), "batch".into()];
        let info = BatchInfo {
            algorithm: "ilca",
            preset: Some("alg1"),
            command: &cmd,
            backend: "cpu",
            adapter: None,
            runs: 1,
            seed: Some(params.seed),
            note: None,
            params: serde_json::to_value(&params).unwrap(),
            inputs: vec![InputInfo::new("dir/a.txt", ["1234341221434321"])],
            shard: None,
            provenance: serde_json::json!({}),
        };
        let v: serde_json::Value =
            serde_json::from_str(&batch_json(&info, std::slice::from_ref(&f))).unwrap();
        assert_eq!(v["seed"], 1);
        assert!(v.get("note").is_none());
        assert!(v["files"][0]["instances"][0].get("rfss").is_none());
        assert_eq!(v["adapter"], serde_json::Value::Null);
        assert_eq!(v["params"]["steps"], 250);
        assert_eq!(v["files"][0]["instances"][1]["line"], 5);
        assert_eq!(v["files"][0]["summary"]["solved"], 1);
        assert_eq!(v["schema"], SCHEMA);
        assert_eq!(v["preset"], "alg1");
        assert_eq!(v["files"][0]["puzzles"][0]["solved"], 1);
        // One run per puzzle: no TTS99 per puzzle (it would be the run's step count).
        for p in 0..2 {
            assert_eq!(
                v["files"][0]["puzzles"][p]["tts99"],
                serde_json::Value::Null
            );
        }
        // Two runs, solved at steps 4 and 6: p(6) = 1, so TTS99 = 6 (at 4: 4·ln 0.01/ln 0.5).
        let two = file("b", vec![inst(0, 0, true, 4), inst(0, 1, true, 6)], 10);
        let w: serde_json::Value =
            serde_json::from_str(&batch_json(&two_runs(serde_json::json!({})), &[two])).unwrap();
        assert_eq!(w["files"][0]["puzzles"][0]["tts99"]["steps"], 6.0);
        let csv = instances_csv(&info, &[f]);
        assert_eq!(csv.lines().count(), 3);
        assert!(csv.starts_with(
            "file,label,puzzle,line,run,solved,steps,grid,param_compare,param_lp,param_lr,"
        ));
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let mut unique = header.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(
            unique.len(),
            header.len(),
            "every column name once: {header:?}"
        );
        assert!(
            csv.contains("dir/a.txt,a,1,5,0,false,250,1234341221434321,sharing,1.0,1.0,"),
            "{csv}"
        );
    }
}

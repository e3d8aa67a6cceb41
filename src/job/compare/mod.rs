//! The compare job: the classic baselines (on the CPU), ILCA and RFSS (on the CPU or a GPU,
//! [`Request::device`]) side by side on the same puzzles, every entry of `--algos` on every
//! puzzle of every file, `runs` attempts each, in chunks kept in a journal (resumable); per
//! entry and file a [`Row`] of solved %, its 95% interval, TTS99, time per attempt and
//! iterations, and every attempt for the reports.
//!
//! ```no_run
//! use gpu_sudoku::job::{self, compare::{self, Options, Plan, Request}};
//! # fn main() -> anyhow::Result<()> {
//! let file = gpu_sudoku::puzzle::read_puzzles("puzzles/easy.txt", None)?;
//! let options = Options::default();
//! let entries = compare::algos::entries("mrv,sa,ilca", &options)?;
//! let request = Request::new(vec![file], entries, &options);
//! let plan = Plan::new(&request)?;
//! let report = compare::run(&plan, &job::Keep::default(), &job::Quiet)?;
//! print!("{}", compare::table(&report.rows));
//! # Ok(()) }
//! ```
//!
//! - [`algos`]: the entries `--algos` names, and how one attempt of each runs;
//! - [`stats`]: the rows made from the attempts, and their text table.

pub mod algos;
pub mod stats;

pub use algos::{Entry, Options};
pub use stats::{row, table, AttemptOutcome, Row};

use super::journal::{check_items, check_seconds, Journal, Span};
use super::{Events, Keep};
use crate::backend::Device;
use crate::baselines::Budget;
use crate::puzzle::{Grid, PuzzleFile};
use crate::report::batch::{provenance_here, InputInfo, SCHEMA};
use crate::shard::{self, Shard};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;
use std::time::Duration;

/// Attempts per chunk when none is given: the unit of the journal (a killed run loses at most
/// one chunk).
pub const DEFAULT_CHUNK: usize = 1024;

/// The algorithms compared when none are named: the searches, the metaheuristics, ILCA and
/// RFSS.
pub const DEFAULT_ALGOS: &str = "backtrack,mrv,astar,ga,sa,hc,ilca,rfss";

/// Attempts per puzzle when none is given.
pub const DEFAULT_RUNS: usize = 1;

/// Seed of the stochastic entries when none is given (`batch`'s, `trace`'s and `sweep`'s: the
/// `ilca` entry runs exactly `batch`'s instances).
pub const DEFAULT_SEED: u64 = 1;

/// Wall-clock budget per attempt of a baseline when none is given, in milliseconds.
pub const DEFAULT_BUDGET_MS: u64 = 2000;

/// The CSV's first columns (`param_…` columns follow, one per parameter of any entry).
pub const CSV_HEAD: &str = "algo,file,puzzle,run,solved,iterations,unit,seconds,path,line";

/// A comparison to run: the files (read and checked), the entries (their parameters folded
/// in, see [`algos::entries`]), where the ILCA and RFSS entries run, attempts per puzzle, the
/// seed and limits of the baselines, which shard of the work, the chunk size, and the command
/// line that asked for it.
#[derive(Clone, Debug)]
pub struct Request {
    pub files: Vec<PuzzleFile>,
    pub entries: Vec<Entry>,
    /// Where the ILCA and RFSS entries run (the baselines always run on the CPU): the CPU (one
    /// attempt per core at a time), or a GPU (one attempt at a time, each a batch of its
    /// instances, the kernels compiled before the first is timed).
    pub device: Device,
    pub runs: usize,
    pub seed: u64,
    pub budget_ms: u64,
    pub max_iterations: Option<u64>,
    pub shard: Option<Shard>,
    pub chunk: usize,
    pub command: Vec<String>,
}

impl Request {
    /// `entries` on every puzzle of `files` with the seed and limits of `options` (those the
    /// entries were made with), [`DEFAULT_RUNS`] attempts each, the whole run in chunks of
    /// [`DEFAULT_CHUNK`].
    pub fn new(files: Vec<PuzzleFile>, entries: Vec<Entry>, options: &Options) -> Request {
        Request {
            files,
            entries,
            device: Device::Cpu,
            runs: DEFAULT_RUNS,
            seed: options.seed,
            budget_ms: options.budget_ms,
            max_iterations: options.max_iterations,
            shard: None,
            chunk: DEFAULT_CHUNK,
            command: Vec::new(),
        }
    }

    /// The line above the table when the ILCA and RFSS entries run on a GPU, naming it (their
    /// times are its times).
    pub fn device_line(&self) -> Option<String> {
        (self.device.gpu())
            .map(|_| format!("ILCA and RFSS entries on {}\n", self.device.describe()))
    }

    /// The limits of a baseline's attempt.
    pub fn budget(&self) -> Budget {
        Budget {
            max_iterations: self.max_iterations,
            max_time: (self.budget_ms > 0).then(|| Duration::from_millis(self.budget_ms)),
        }
    }

    /// The parameters of the run (what every shard of it must share).
    pub fn params(&self) -> Result<Params> {
        let settings = self
            .entries
            .iter()
            .filter_map(|e| Some(e.params_json()?.map(|v| (e.name().to_string(), v))))
            .collect::<Result<_, _>>()?;
        Ok(Params {
            algos: self.entries.iter().map(|x| x.name().to_string()).collect(),
            seed: self.seed,
            runs: self.runs,
            budget_ms: self.budget_ms,
            max_iterations: self.max_iterations,
            settings,
            backend: self.device.gpu().map(|_| self.device.name().to_string()),
        })
    }
}

/// A request laid out: its groups of attempts (file × entry, in that order) and the attempts
/// of each this shard runs.
pub struct Plan<'a> {
    pub request: &'a Request,
    /// Per group (group g: file g / entries, entry g % entries), the attempts of this shard
    /// (attempt i is puzzle i / runs, run i % runs).
    pub ranges: Vec<Range<usize>>,
    /// Attempts of this shard.
    pub items: u64,
    /// Attempts of the whole run (every shard).
    pub attempts: u64,
    pub params: Params,
    /// Bytes of the longest file label and path and entry name (what a record adds).
    label_bytes: usize,
}

impl<'a> Plan<'a> {
    /// Refuses a run without limits, no entries, no runs, and one whose outcomes or chunk of
    /// records in flight would not fit in memory, or with more shards than attempts.
    pub fn new(request: &'a Request) -> Result<Plan<'a>> {
        let (files, entries, runs) = (&request.files, &request.entries, request.runs);
        if request.chunk == 0 {
            bail!("--chunk must be at least 1");
        }
        if runs == 0 {
            bail!("--runs must be at least 1");
        }
        if entries.is_empty() {
            bail!("--algos is empty; give a comma-separated list such as backtrack,mrv,ilca");
        }
        algos::check_limits(request.budget_ms, request.max_iterations)?;
        let attempts = files.iter().map(|f| f.puzzles.len()).sum::<usize>() * runs * entries.len();
        // The outcome of every attempt is held until its row is made (a resumed run holds all it
        // reads back), and the row sorts copies of its times; the records wait on disk, in the
        // journal, until the reports are written.
        crate::limits::check_memory(
            attempts as u64,
            2 * std::mem::size_of::<AttemptOutcome>() as u64,
            "the outcomes behind the table's rows",
            crate::limits::available_memory(),
            "use fewer --runs, algorithms or puzzles",
        )?;
        // A chunk's records are held whole while it runs and is written (its records, its
        // journal line and the reading back: about 400 bytes per attempt with 9x9 labels,
        // measured before records held their path and line; 40 more for those).
        let label_bytes = files
            .iter()
            .map(|f| f.label().len() + f.path.len())
            .max()
            .unwrap_or(0)
            + entries.iter().map(|x| x.name().len()).max().unwrap_or(0);
        let largest_group = files.iter().map(|f| f.puzzles.len()).max().unwrap_or(0) * runs;
        crate::limits::check_memory(
            (request.chunk as u64).min(largest_group as u64),
            440 + 2 * label_bytes as u64,
            "a chunk of records in flight",
            crate::limits::available_memory(),
            "use a smaller --chunk",
        )?;
        let params = request.params()?;
        // Per file, per entry, its puzzle × run attempts (cost: cells × budget).
        let budget_iters = request.max_iterations.unwrap_or(1);
        let mut groups = Vec::new();
        for f in files {
            for _ in entries {
                let cells = (f.b as u64).pow(4);
                groups.push((f.puzzles.len() * runs, cells.saturating_mul(budget_iters)));
            }
        }
        let what = "attempts (puzzles × runs × algorithms)";
        let ranges = shard::ranges(&groups, request.shard, what)?;
        Ok(Plan {
            items: ranges.iter().map(|r| r.len() as u64).sum(),
            attempts: attempts as u64,
            request,
            ranges,
            params,
            label_bytes,
        })
    }

    /// What a record weighs on disk (journal, JSON, CSV with its entry's parameter columns).
    pub fn record_bytes(&self) -> crate::limits::RecordBytes {
        let chunk = u32::try_from(self.request.chunk).unwrap_or(u32::MAX);
        let mut bytes = crate::limits::RecordBytes::per_attempt(self.label_bytes, chunk);
        bytes.csv += self
            .params
            .csv_columns()
            .1
            .values()
            .map(|cells| {
                cells
                    .iter()
                    .map(|c| 1 + crate::csv_io::field_len(c))
                    .sum::<usize>()
            })
            .max()
            .unwrap_or(0) as u64;
        bytes
    }

    /// The journal's header: names the run exactly, so only its own journal resumes it. The
    /// schema tells a journal of older records (no `path`, `line`) from this run's.
    fn header(&self) -> serde_json::Value {
        let r = self.request;
        serde_json::json!({
            "tool": "gpu-sudoku",
            "version": env!("CARGO_PKG_VERSION"),
            // A journal resumes only with the build that began it (its records are that build's).
            "build": crate::build_info::BUILD,
            "schema": SCHEMA,
            "params": self.params,
            "inputs": r.files.iter().map(InputInfo::of_file).collect::<Vec<_>>(),
            "shard": r.shard,
            "chunk": r.chunk,
        })
    }
}

/// One attempt, as the CSV and the JSON record it.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AttemptRecord {
    pub algo: String,
    /// The file's label (its name without folder and extension), as in the rows.
    pub file: String,
    /// The file as given (its `inputs` entry's `path`), with `line` the key that joins an
    /// attempt to the puzzle's other records (`batch`'s CSV names the same pair `file`, `line`).
    pub path: String,
    pub puzzle: usize,
    /// The puzzle's line in its file (1-based; a grid's first line for block layouts).
    pub line: usize,
    pub run: usize,
    pub solved: bool,
    pub iterations: u64,
    pub unit: String,
    pub seconds: f64,
}

/// The attempts of a report, visited in order: held (`merge`) or read back from the journal
/// (a finished run, [`Journaled`]).
pub trait Attempts: Serialize {
    fn each(
        &self,
        visit: &mut dyn FnMut(&AttemptRecord) -> std::io::Result<()>,
    ) -> std::io::Result<()>;
}

impl Attempts for Vec<AttemptRecord> {
    fn each(
        &self,
        visit: &mut dyn FnMut(&AttemptRecord) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.iter().try_for_each(visit)
    }
}

/// The attempts of a compare run as its journal holds them: the chunks at `spans`, in report
/// order, read back one at a time while the reports are written. The journal goes with
/// [`Report::finish`].
pub struct Journaled {
    journal: Option<Journal>,
    spans: Vec<Span>,
}

impl Attempts for Journaled {
    fn each(
        &self,
        visit: &mut dyn FnMut(&AttemptRecord) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let Some(journal) = &self.journal else {
            return Ok(()); // no report asked for: nothing was kept
        };
        journal.reader().read(&self.spans, |c: ChunkDone| {
            c.records.iter().try_for_each(&mut *visit)
        })
    }
}

/// Its schema: the list of attempts it reads back.
impl schemars::JsonSchema for Journaled {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Attempts".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        g.subschema_for::<Vec<AttemptRecord>>()
    }
}

impl Serialize for Journaled {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut seq = s.serialize_seq(None)?;
        let mut failed = None;
        let read = self.each(&mut |r| {
            seq.serialize_element(r).map_err(|e| {
                let io = std::io::Error::other(e.to_string());
                failed = Some(e);
                io
            })
        });
        if let Some(e) = failed {
            return Err(e);
        }
        read.map_err(S::Error::custom)?;
        seq.end()
    }
}

/// The report of a compare run, as its JSON holds it: the attempts read back from the journal
/// ([`Journaled`], what [`run`] returns) or held (`merge` reads a shard's report back so).
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report<A = Vec<AttemptRecord>> {
    pub tool: String,
    pub version: String,
    /// [`crate::build_info::BuildInfo`] of the build that made it (null in older reports).
    #[serde(default)]
    #[schemars(with = "crate::build_info::BuildInfo")]
    pub build: serde_json::Value,
    pub schema: u32,
    pub command: Vec<String>,
    pub params: Params,
    /// Every input file, hashed.
    pub inputs: Vec<InputInfo>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub shard: Option<Shard>,
    /// The GPU adapter the ILCA and RFSS entries ran on (`params.backend`), as `batch`
    /// reports name theirs; absent when they ran on the CPU.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub adapter: Option<String>,
    pub provenance: serde_json::Value,
    pub rows: Vec<Row>,
    pub attempts: A,
}

impl<A: Attempts> Report<A> {
    /// The JSON report, reading the attempts as it goes; its digest last.
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        crate::report::digest::write_signed(w, |w| {
            serde_json::to_writer_pretty(w, self).map_err(std::io::Error::other)
        })
    }

    /// The CSV: one row per attempt, [`CSV_HEAD`] then every entry parameter as `param_NAME`
    /// (empty in the rows of an entry without it), reading the attempts as it goes.
    pub fn write_csv(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        // The first eight columns as they always were, then the puzzle's file and line (to
        // join with other reports of the same puzzles) and each entry's parameters.
        let (names, values) = self.params.csv_columns();
        let mut head: Vec<String> = CSV_HEAD.split(',').map(String::from).collect();
        head.extend(names.iter().map(|name| format!("param_{name}")));
        let mut csv = crate::csv_io::Writer::new(w);
        csv.row(&head)?;
        // An entry missing from `params` (a report edited by hand): its columns empty.
        let blank = vec![String::new(); names.len()];
        self.attempts.each(&mut |r| {
            let mut row = vec![
                r.algo.clone(),
                r.file.clone(),
                r.puzzle.to_string(),
                r.run.to_string(),
                r.solved.to_string(),
                r.iterations.to_string(),
                r.unit.to_string(),
                r.seconds.to_string(),
                r.path.clone(),
                r.line.to_string(),
            ];
            row.extend(values.get(&r.algo).unwrap_or(&blank).iter().cloned());
            csv.row(&row)
        })?;
        csv.finish().map(drop)
    }
}

/// The JSON Schema of the compare report (`gpu-sudoku schema compare`).
pub fn json_schema() -> serde_json::Value {
    crate::report::schema::json_schema_of::<Report<Journaled>>("gpu-sudoku compare report", true)
}

impl Report<Journaled> {
    /// The reports are written: the journal goes.
    pub fn finish(mut self) -> Result<()> {
        match self.attempts.journal.take() {
            Some(j) => j.finish(),
            None => Ok(()),
        }
    }
}

/// The parameters of a compare run, as its reports and journal write them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Params {
    pub algos: Vec<String>,
    pub seed: u64,
    pub runs: usize,
    pub budget_ms: u64,
    pub max_iterations: Option<u64>,
    /// The parameters of each ILCA and RFSS entry of `algos`, by name.
    pub settings: BTreeMap<String, serde_json::Value>,
    /// Where the ILCA and RFSS entries ran when not on the CPU: `gpu` (the report's `adapter`
    /// names it). Their outcomes are the CPU's, bit for bit; their times are the GPU's. The
    /// baselines always run on the CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
}

impl Params {
    /// The parameters entry `algo` ran with, by name: an ILCA or RFSS entry's `settings`; for
    /// a baseline the run's `budget_ms`, `max_iterations` and `seed` (its limits and seed).
    pub fn of_entry(&self, algo: &str) -> serde_json::Map<String, serde_json::Value> {
        match self.settings.get(algo) {
            Some(serde_json::Value::Object(m)) => {
                let mut m = m.clone();
                if let Some(backend) = &self.backend {
                    m.insert("backend".into(), backend.clone().into());
                }
                m
            }
            Some(_) => serde_json::Map::new(),
            None => serde_json::json!({
                "budget_ms": self.budget_ms,
                "max_iterations": self.max_iterations,
                "seed": self.seed,
            })
            .as_object()
            .cloned()
            .unwrap_or_default(),
        }
    }

    /// The CSV's parameter columns: every parameter of any entry, by name in alphabetical
    /// order (written `param_NAME`, as in `batch`'s CSV), and per entry its values in those
    /// columns (empty where the entry has no such parameter, or it is unset).
    pub fn csv_columns(&self) -> (Vec<String>, BTreeMap<String, Vec<String>>) {
        let entries: Vec<(&String, serde_json::Map<String, serde_json::Value>)> = self
            .algos
            .iter()
            .map(|algo| (algo, self.of_entry(algo)))
            .collect();
        let names: BTreeSet<&String> = entries.iter().flat_map(|(_, m)| m.keys()).collect();
        let values = entries
            .iter()
            .map(|(algo, m)| {
                let cells: Vec<String> = names
                    .iter()
                    .map(|name| match m.get(name.as_str()) {
                        None | Some(serde_json::Value::Null) => String::new(),
                        Some(serde_json::Value::String(s)) => s.clone(),
                        Some(other) => other.to_string(),
                    })
                    .collect();
                (algo.to_string(), cells)
            })
            .collect();
        (names.into_iter().cloned().collect(), values)
    }
}

/// One finished chunk of a (file, entry) group's attempts, as the journal holds it.
#[derive(Serialize, Deserialize)]
struct ChunkDone {
    group: usize,
    start: usize,
    end: usize,
    records: Vec<AttemptRecord>,
}

/// Whether a chunk read back from a journal is what this run would have made there: one record
/// per attempt in order ([`check_items`]) of the group's file and entry, a non-negative time.
/// (Hand-edited or damaged records were counted: a missing one, a negative time, a puzzle
/// beyond the file.)
fn check_resumed(
    c: &ChunkDone,
    files: &[PuzzleFile],
    entries: &[Entry],
    runs: usize,
) -> std::result::Result<(), String> {
    let (fi, ai) = (
        c.group / entries.len().max(1),
        c.group % entries.len().max(1),
    );
    let (Some(file), Some(entry)) = (files.get(fi), entries.get(ai)) else {
        return Err(format!("group {} does not exist", c.group));
    };
    let held: Vec<(usize, usize)> = c.records.iter().map(|r| (r.puzzle, r.run)).collect();
    let items = c.start..c.end;
    check_items(items.clone(), runs, file.puzzles.len(), &held, "attempt")?;
    for (i, r) in items.zip(&c.records) {
        if r.algo != entry.name() {
            return Err(format!(
                "attempt {i} holds {} puzzle {} run {}, not {}",
                r.algo,
                r.puzzle,
                r.run,
                entry.name()
            ));
        }
        check_seconds(r.seconds).map_err(|why| format!("attempt {i}: {why}"))?;
    }
    Ok(())
}

/// What a run keeps of a finished chunk: where its records lie in the journal (none when no
/// report is asked for), their outcomes and their unit.
struct Kept {
    end: usize,
    span: Option<Span>,
    outcomes: Vec<AttemptOutcome>,
    unit: String,
}

impl Kept {
    fn of(c: &ChunkDone, span: Option<Span>) -> Kept {
        Kept {
            end: c.end,
            span,
            outcomes: c.records.iter().map(AttemptOutcome::from).collect(),
            unit: c.records.first().map_or(String::new(), |r| r.unit.clone()),
        }
    }
}

/// Runs the plan on the CPU, keeping records as `keep` says; a resumed run takes the chunks
/// its journal holds. The rows are made as each group finishes; the attempts wait in the
/// journal until the reports are written ([`Report::write_json`], [`Report::write_csv`], then
/// [`Report::finish`]).
pub fn run(plan: &Plan, keep: &Keep, events: &dyn Events) -> Result<Report<Journaled>> {
    let started = std::time::SystemTime::now();
    let req = plan.request;
    // Chunks a resumed journal holds, by (group, first attempt): where they lie, their outcomes.
    let mut done: HashMap<(usize, usize), Kept> = HashMap::new();
    let journal = keep.open::<ChunkDone>(&plan.header(), events, |span, c| {
        check_resumed(&c, &req.files, &req.entries, req.runs)
            .map_err(|why| anyhow::anyhow!("{why}"))
            .with_context(|| {
                format!(
                    "--resume: a damaged journal record (attempts {}..{} of group {}); \
                     delete the journal to run the whole comparison again",
                    c.start, c.end, c.group
                )
            })?;
        Ok(done
            .insert((c.group, c.start), Kept::of(&c, Some(span)))
            .is_none())
    })?;
    events.total(plan.items);
    let mut running = Running {
        plan,
        budget: req.budget(),
        done,
        journal,
        spans: Vec::new(),
        events,
    };
    let mut rows = Vec::new();
    for (fi, file) in req.files.iter().enumerate() {
        events.label(&file.label());
        let on_file = OnFile {
            label: file.label(),
            path: &file.path,
            lines: file.puzzles.iter().map(|p| p.line).collect(),
            grids: file.puzzles.iter().map(|p| p.grid.clone()).collect(),
        };
        for (ai, entry) in req.entries.iter().enumerate() {
            let group = fi * req.entries.len() + ai;
            let (outcomes, unit) = running.group(group, entry, &on_file)?;
            if !outcomes.is_empty() {
                rows.push(row(
                    &on_file.label,
                    entry.name(),
                    &unit,
                    req.runs,
                    &outcomes,
                ));
            }
        }
    }
    Ok(Report {
        tool: "gpu-sudoku".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        build: serde_json::json!(crate::build_info::BUILD),
        schema: SCHEMA,
        command: req.command.clone(),
        params: plan.params.clone(),
        inputs: req.files.iter().map(InputInfo::of_file).collect(),
        shard: req.shard,
        adapter: req.device.adapter(),
        provenance: provenance_here(started),
        rows,
        attempts: Journaled {
            journal: running.journal,
            spans: running.spans,
        },
    })
}

/// The file a group of attempts is on: its label, its path as given, each puzzle's line and
/// grid.
struct OnFile<'a> {
    label: String,
    path: &'a str,
    lines: Vec<usize>,
    grids: Vec<Grid>,
}

/// A run under way: the chunks a resumed journal still holds, the journal, and where each
/// chunk kept for the reports lies in it (in report order).
struct Running<'a> {
    plan: &'a Plan<'a>,
    budget: Budget,
    done: HashMap<(usize, usize), Kept>,
    journal: Option<Journal>,
    spans: Vec<Span>,
    events: &'a dyn Events,
}

impl Running<'_> {
    /// Group `group` (`entry` on `file`), chunk by chunk: those the journal holds are kept, the
    /// rest run and go to the journal. Its outcomes in (puzzle, run) order, and their unit.
    fn group(
        &mut self,
        group: usize,
        entry: &Entry,
        file: &OnFile,
    ) -> Result<(Vec<AttemptOutcome>, String)> {
        let range = self.plan.ranges[group].clone();
        let chunk = self.plan.request.chunk;
        let mut outcomes = Vec::with_capacity(range.len());
        let mut unit = String::new();
        let mut start = range.start;
        while start < range.end {
            let end = (start + chunk).min(range.end);
            let kept = match self.done.remove(&(group, start)) {
                Some(k) if k.end == end => {
                    self.events.advance((end - start) as u64);
                    k
                }
                _ => {
                    let c = self.chunk(group, entry, file, start..end)?;
                    let span = self.journal.as_mut().map(|j| j.append(&c)).transpose()?;
                    Kept::of(&c, span)
                }
            };
            outcomes.extend(kept.outcomes);
            self.spans.extend(kept.span);
            if unit.is_empty() {
                unit = kept.unit;
            }
            start = end;
        }
        Ok((outcomes, unit))
    }

    /// Runs attempts `items` of `entry` on `file`, each timed alone.
    fn chunk(
        &self,
        group: usize,
        entry: &Entry,
        file: &OnFile,
        items: Range<usize>,
    ) -> Result<ChunkDone> {
        let req = self.plan.request;
        let runs = req.runs;
        let events = self.events;
        let tick = move || events.advance(1);
        let (unit, tried) = algos::run_attempts(
            entry,
            &req.device,
            &file.grids,
            runs,
            items.clone(),
            req.seed,
            &self.budget,
            &tick,
        )?;
        // Attempts cut short by a stop request are not outcomes: nothing of them is kept.
        crate::interrupt::check()?;
        let records = items
            .clone()
            .zip(tried)
            .map(|(i, t)| AttemptRecord {
                algo: entry.name().into(),
                file: file.label.clone(),
                path: file.path.into(),
                puzzle: i / runs,
                line: file.lines[i / runs],
                run: i % runs,
                solved: t.solved,
                iterations: t.iterations,
                unit: unit.clone(),
                seconds: t.elapsed.as_secs_f64(),
            })
            .collect();
        Ok(ChunkDone {
            group,
            start: items.start,
            end: items.end,
            records,
        })
    }
}

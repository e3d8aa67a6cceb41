//! The batch job: ILCA (several runs of each puzzle) or RFSS (deterministic: once) on every
//! puzzle of one or more files, in chunks over every device, resumable through its journal;
//! per file the totals and the records the reports are written from.
//!
//! A whole example: `examples/sharded_batch.rs` (the crate's front page).

use super::devices::{run_chunks, Usage};
use super::input::{Input, Window};
use super::journal::{check_items, check_seconds, ChunkReader, Journal, Span};
use super::{Events, Keep};
use crate::backend::Device;
use crate::ilca::{self, Batch, IlcaParams, Instance, Pull};
use crate::puzzle::{Grid, PuzzleFile};
use crate::report::batch::{BatchInfo, FileResults, InputInfo, Records, Tally};
use crate::report::InstanceResult;
use crate::rfss::{self, RfssParams};
use crate::shard::{self, Shard};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::ops::Range;
use std::time::{Duration, Instant};

/// Runs per puzzle when none is given (the paper's 10).
pub const DEFAULT_RUNS: usize = 10;

/// Instances per chunk when none is given: the unit of the journal (a killed run loses at most
/// one chunk) and of the work handed to a device.
pub const DEFAULT_CHUNK: usize = 16_384;

/// Why RFSS runs each puzzle once: the JSON `note`, and the command line's remark.
pub const RFSS_NOTE: &str =
    "RFSS is deterministic (no random draws): every run would be identical, so each puzzle runs once";

/// The algorithm a batch runs, with its parameters.
#[derive(Clone, Debug)]
pub enum Algorithm {
    Ilca {
        params: IlcaParams,
        /// Runs per puzzle (independent random streams; with a portfolio, portfolios).
        runs: usize,
        /// Instances a run is made of (1: a run is one instance). A run of a portfolio of N
        /// is N instances of the puzzle that stop at the first solution ([`portfolio_record`]):
        /// it counts as one run, solved at the step its first instance solved.
        portfolio: usize,
        /// Cooperation between a portfolio's instances ([`Pull`]; not in the paper).
        pull: Option<Pull>,
        /// The preset the parameters are, if they are one (reported beside them).
        preset: Option<&'static str>,
    },
    Rfss(RfssParams),
}

impl Algorithm {
    /// "ilca" or "rfss", as the reports name it.
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Ilca { .. } => "ilca",
            Algorithm::Rfss(_) => "rfss",
        }
    }

    /// Runs per puzzle (RFSS: 1).
    pub fn runs(&self) -> usize {
        match self {
            Algorithm::Ilca { runs, .. } => *runs,
            Algorithm::Rfss(_) => 1,
        }
    }

    /// Instances a run is made of (see [`Algorithm::Ilca`]'s `portfolio`; RFSS: 1).
    pub fn portfolio(&self) -> usize {
        match self {
            Algorithm::Ilca { portfolio, .. } => *portfolio,
            Algorithm::Rfss(_) => 1,
        }
    }

    /// Whether a further run of a puzzle would repeat the first (no TTS99 then).
    pub fn ignores_seed(&self) -> bool {
        match self {
            Algorithm::Ilca { params, .. } => params.ignores_seed(),
            Algorithm::Rfss(_) => true,
        }
    }

    /// The step (generation) limit of an instance.
    fn limit(&self) -> u32 {
        match self {
            Algorithm::Ilca { params, .. } => params.steps,
            Algorithm::Rfss(p) => p.max_generations,
        }
    }

    /// The parameters as the reports and the journal write them.
    pub fn params_json(&self) -> serde_json::Value {
        match self {
            Algorithm::Ilca {
                params,
                portfolio,
                pull,
                ..
            } => serde_json::to_value(params).map(|mut v| {
                // Only where there is one: a run without stays as it always was.
                if *portfolio > 1 {
                    v["portfolio"] = (*portfolio).into();
                }
                if let Some(p) = pull {
                    v["pull"] = serde_json::to_value(p).expect("a pull serialises");
                }
                v
            }),
            Algorithm::Rfss(params) => serde_json::to_value(params),
        }
        .expect("parameters serialise")
    }
}

/// A batch to run: the files (read and checked, or checked and streamed), the algorithm, which
/// shard of the work, the chunk size, and the command line that asked for it (for the reports).
#[derive(Clone, Debug)]
pub struct Request {
    pub files: Vec<Input>,
    pub algorithm: Algorithm,
    pub shard: Option<Shard>,
    pub chunk: usize,
    pub command: Vec<String>,
}

impl Request {
    /// ILCA with `params`, `runs` runs of each puzzle (one for a setting that ignores the
    /// seed, whose further runs would repeat the first), the whole run in chunks of the default
    /// size.
    pub fn ilca(files: Vec<PuzzleFile>, params: IlcaParams, runs: usize) -> Request {
        let runs = params.runs_per_puzzle(runs);
        Request {
            files: files.into_iter().map(Input::from).collect(),
            algorithm: Algorithm::Ilca {
                preset: crate::ilca::presets::Preset::paper_setting_of(&params).map(|p| p.name),
                params,
                runs,
                portfolio: 1,
                pull: None,
            },
            shard: None,
            chunk: DEFAULT_CHUNK,
            command: Vec::new(),
        }
    }

    /// RFSS with `params` on every puzzle once.
    pub fn rfss(files: Vec<PuzzleFile>, params: RfssParams) -> Request {
        Request {
            files: files.into_iter().map(Input::from).collect(),
            algorithm: Algorithm::Rfss(params),
            shard: None,
            chunk: DEFAULT_CHUNK,
            command: Vec::new(),
        }
    }
}

/// A request laid out: each file's items (puzzle × run) this process runs.
pub struct Plan<'a> {
    pub request: &'a Request,
    /// Per file, the items of this shard (item i is puzzle i / runs, run i % runs).
    pub ranges: Vec<Range<usize>>,
    /// Items over all files.
    pub items: u64,
    /// Cells of the largest grid (what a record weighs).
    pub cells: usize,
}

impl<'a> Plan<'a> {
    /// Refuses an empty file and a shard count above the items.
    pub fn new(request: &'a Request) -> Result<Plan<'a>> {
        if request.chunk == 0 {
            bail!("--chunk must be at least 1");
        }
        for f in &request.files {
            if f.is_empty() {
                bail!("{}: no puzzles in the file", f.path());
            }
        }
        let alg = &request.algorithm;
        let Some(instances) = alg.runs().checked_mul(alg.portfolio()) else {
            bail!(
                "{} runs of {} instances do not fit",
                alg.runs(),
                alg.portfolio()
            );
        };
        if u32::try_from(instances).is_err() {
            bail!("{instances} instances per puzzle do not fit 32 bits");
        }
        if alg.portfolio() == 0 {
            bail!("a portfolio holds at least 1 instance");
        }
        if let Algorithm::Ilca {
            pull: Some(pull),
            portfolio,
            ..
        } = alg
        {
            pull.validate()?;
            crate::param::check(
                (2..=ilca::MAX_COOPERATING).contains(portfolio),
                "pull",
                || {
                    format!(
                        "cooperation is between the instances of a portfolio: give portfolios \
                         of 2 to {} instances, got {portfolio}",
                        ilca::MAX_COOPERATING
                    )
                },
            )?;
        }
        // Expected cost of one item: cells × steps (RFSS: × species per cell).
        let cost_each = |f: &Input| -> u64 {
            let b = f.b() as u64;
            match alg {
                Algorithm::Ilca {
                    params, portfolio, ..
                } => b.pow(4) * params.steps as u64 * *portfolio as u64,
                Algorithm::Rfss(p) => b.pow(4) * b.pow(2) * p.max_generations as u64,
            }
        };
        let mut groups: Vec<(usize, u64)> = Vec::new();
        for f in &request.files {
            let Some(items) = f.len().checked_mul(alg.runs()) else {
                bail!(
                    "{}: {} puzzles × {} runs do not fit",
                    f.path(),
                    f.len(),
                    alg.runs()
                );
            };
            groups.push((items, cost_each(f)));
        }
        let what = if alg.runs() == 1 {
            "instances (puzzles)"
        } else {
            "instances (puzzles × runs)"
        };
        let ranges = shard::ranges(&groups, request.shard, what)?;
        Ok(Plan {
            items: ranges.iter().map(|r| r.len() as u64).sum(),
            cells: request
                .files
                .iter()
                .map(|f| f.b().pow(4))
                .max()
                .unwrap_or(81),
            ranges,
            request,
        })
    }

    /// What a record weighs on disk (journal, JSON, CSV).
    pub fn record_bytes(&self) -> crate::limits::RecordBytes {
        use crate::csv_io::field_len;
        let detailed = matches!(self.request.algorithm, Algorithm::Rfss(_));
        // The longest of what the inputs add to a CSV row and to a puzzle's JSON entry.
        let (mut names, mut extra, mut entry) = (0, 0, 0);
        for f in &self.request.files {
            names = names.max(field_len(f.path()) + field_len(&f.label()));
            let (longest, solutions) = f.longest_notes();
            // At worst every byte is quoted twice over in a CSV field, and escaped as \uXXXX in
            // JSON (a control character).
            extra = extra.max(2 * longest + 2);
            let solution = if solutions { f.b().pow(4) + 2 } else { 0 };
            entry = entry.max(6 * longest + 2 + solution);
        }
        crate::limits::RecordBytes::per_instance(self.cells, detailed).with_inputs(
            names as u64,
            extra as u64,
            entry as u64,
            self.request.algorithm.runs() as u64,
        )
    }

    /// Refuses a run whose chunks in flight (one per device, and one being written) would not
    /// fit in memory.
    pub fn check_memory(&self, devices: usize) -> Result<()> {
        use crate::limits;
        let in_flight = (self.request.chunk as u64)
            .min(self.items)
            .saturating_mul(self.request.algorithm.portfolio() as u64)
            .saturating_mul(devices as u64 + 1);
        limits::check_memory(
            in_flight,
            limits::held_bytes_per_instance(self.cells),
            "the chunks in flight; finished records wait on disk",
            limits::available_memory(),
            "use a smaller --chunk",
        )
    }

    /// The journal's header: names the run exactly, so only its own journal resumes it.
    fn header(&self) -> serde_json::Value {
        let r = self.request;
        serde_json::json!({
            "tool": "gpu-sudoku",
            "version": env!("CARGO_PKG_VERSION"),
            // A journal resumes only with the build that began it (its records are that build's).
            "build": crate::build_info::BUILD,
            "algorithm": r.algorithm.name(),
            "params": r.algorithm.params_json(),
            "runs": r.algorithm.runs(),
            "inputs": r.files.iter().map(Input::info).collect::<Vec<_>>(),
            "shard": r.shard,
            "chunk": r.chunk,
        })
    }
}

/// A finished batch: per file its totals and records, what each device did, and the journal
/// its records wait in until the reports are written ([`Report::finish`]).
pub struct Report {
    pub algorithm: Algorithm,
    pub files: Vec<FileResults>,
    pub inputs: Vec<InputInfo>,
    pub shard: Option<Shard>,
    pub command: Vec<String>,
    /// "cpu" or "gpu" (the first device's).
    pub backend: &'static str,
    /// The adapter (or adapters) it ran on; `None` on the CPU.
    pub adapter: Option<String>,
    pub usage: Vec<Usage>,
    pub provenance: serde_json::Value,
    journal: Option<Journal>,
}

impl Report {
    /// The report's header fields, as the JSON and CSV writers take them.
    pub fn info(&self) -> BatchInfo<'_> {
        let (preset, seed, note) = match &self.algorithm {
            Algorithm::Ilca { params, preset, .. } => (*preset, Some(params.seed), None),
            Algorithm::Rfss(_) => (None, None, Some(RFSS_NOTE)),
        };
        BatchInfo {
            algorithm: self.algorithm.name(),
            preset,
            command: &self.command,
            backend: self.backend,
            adapter: self.adapter.as_deref(),
            runs: self.algorithm.runs(),
            seed,
            note,
            params: self.algorithm.params_json(),
            inputs: self.inputs.clone(),
            shard: self.shard,
            provenance: self.provenance.clone(),
        }
    }

    /// The JSON report.
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        crate::report::batch::write_batch_json(&self.info(), &self.files, w)
    }

    /// The CSV of instances.
    pub fn write_csv(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        crate::report::batch::write_instances_csv(&self.info(), &self.files, w)
    }

    /// Every record, file by file in (puzzle, run) order, with its file's index and its
    /// puzzle's line in the file.
    pub fn each_record(
        &self,
        visit: &mut dyn FnMut(usize, usize, InstanceResult) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        for (fi, f) in self.files.iter().enumerate() {
            let mut notes = f.notes.open()?;
            f.records
                .for_each(&mut |r| visit(fi, notes.at(r.puzzle)?.line, r))?;
            notes.finish()?;
        }
        Ok(())
    }

    /// The reports are written: the journal goes.
    pub fn finish(mut self) -> Result<()> {
        self.files.clear(); // they read the journal
        match self.journal.take() {
            Some(j) => j.finish(),
            None => Ok(()),
        }
    }
}

/// One finished chunk of a file's items, as the journal holds it.
#[derive(serde::Serialize, serde::Deserialize)]
struct ChunkDone {
    file: usize,
    start: usize,
    end: usize,
    wall_s: f64,
    results: Vec<InstanceResult>,
    details: BTreeMap<usize, serde_json::Value>,
}

/// Chunks a window of a file holds, per device: enough to keep every device busy, few enough
/// that the window's puzzles (all a streamed file holds in memory) stay small.
const WINDOW_CHUNKS_PER_DEVICE: usize = 2;

/// What a file has so far: totals of its finished chunks, the algorithm's details, where the
/// journal holds each chunk's records (by first item), their wall time.
#[derive(Default)]
struct Kept {
    tally: Tally,
    details: BTreeMap<usize, serde_json::Value>,
    spans: Vec<(usize, Span)>,
    wall: Duration,
}

/// Counts a finished chunk into `kept`, every solved grid verified against its puzzle.
fn take(kept: &mut Kept, span: Span, c: ChunkDone, window: &Window) -> Result<()> {
    verify(&c.results, window)?;
    for r in &c.results {
        kept.tally.add(r, window.solution(r.puzzle));
    }
    kept.details.extend(c.details);
    kept.spans.push((c.start, span));
    Ok(())
}

/// Runs the plan on `devices` (chunks on all of them at once), keeping records as `keep` says;
/// a resumed run takes the chunks its journal holds. Each file is read window by window (a
/// streamed file is never held whole), and every solved grid is verified against the rules and
/// the clues of the puzzle read there, computed or read back.
pub fn run(plan: &Plan, devices: &[Device], keep: &Keep, events: &dyn Events) -> Result<Report> {
    let started = std::time::SystemTime::now();
    let req = plan.request;
    let (inputs, ranges, chunk) = (&req.files, &plan.ranges, req.chunk);
    let runs = req.algorithm.runs();
    // The chunks the journal holds, per file by first item: where, and the time each took.
    let mut resumed: Vec<BTreeMap<usize, (Span, f64)>> =
        inputs.iter().map(|_| BTreeMap::new()).collect();
    let damaged = |fi: usize, items: &Range<usize>| {
        format!(
            "--resume: a damaged journal record (items {}..{} of {}); delete the journal to run \
             the whole batch again",
            items.start,
            items.end,
            inputs[fi].path()
        )
    };
    let journal = keep.open(&plan.header(), events, |span, c: ChunkDone| {
        // Only chunks of this run's layout count (the header makes any other impossible).
        let fi = c.file;
        let fits = fi < ranges.len()
            && c.start >= ranges[fi].start
            && (c.start - ranges[fi].start).is_multiple_of(chunk)
            && c.end == (c.start + chunk).min(ranges[fi].end)
            && !resumed[fi].contains_key(&c.start);
        if fits {
            check_resumed(&c, &req.algorithm, &inputs[fi])
                .map_err(|why| anyhow::anyhow!("{why}"))
                .with_context(|| damaged(fi, &(c.start..c.end)))?;
            resumed[fi].insert(c.start, (span, c.wall_s));
        }
        Ok(fits)
    })?;
    let mut journal = journal;
    events.total(plan.items);
    let mut usage = vec![Usage::default(); devices.len()];
    let mut files = Vec::new();
    let per_window = WINDOW_CHUNKS_PER_DEVICE * devices.len().max(1);
    for (fi, f) in inputs.iter().enumerate() {
        events.label(&f.label());
        let progress = |k: usize| events.advance(k as u64);
        let mut kept = Kept {
            tally: Tally::with_runs(runs),
            ..Kept::default()
        };
        let chunks: Vec<Range<usize>> = ranges[fi]
            .clone()
            .step_by(chunk)
            .map(|start| start..(start + chunk).min(ranges[fi].end))
            .collect();
        let mut cursor = f.cursor()?;
        for part in chunks.chunks(per_window) {
            // The puzzles of the window's items (item i is puzzle i / runs).
            let first = part[0].start / runs;
            let end = (part[part.len() - 1].end - 1) / runs + 1;
            let window = match cursor.window(first..end) {
                Ok(w) => w,
                Err(e) => return Err(input_failed(e, journal)),
            };
            let mut pending = Vec::new();
            for items in part {
                let Some(&(span, wall_s)) = resumed[fi].get(&items.start) else {
                    pending.push(items.clone());
                    continue;
                };
                // A chunk of the interrupted run counts the time it took then.
                kept.wall = kept.wall.saturating_add(Duration::from_secs_f64(wall_s));
                let reader = journal.as_ref().map(Journal::reader);
                let mut back = None;
                if let Some(reader) = reader {
                    reader.read(&[span], |c: ChunkDone| {
                        back = Some(c);
                        Ok(())
                    })?;
                }
                let c = back.context("internal error: a resumed chunk not in the journal")?;
                take(&mut kept, span, c, &window).with_context(|| damaged(fi, items))?;
                progress(items.len());
            }
            let t0 = Instant::now();
            run_chunks(
                devices,
                pending.len(),
                &mut usage,
                |device, k| {
                    let c = run_chunk(
                        device,
                        &req.algorithm,
                        &window.grids,
                        first,
                        fi,
                        pending[k].clone(),
                        &progress,
                    )
                    .with_context(|| format!("running {}", f.path()))?;
                    let items = c.end - c.start;
                    Ok((c, items))
                },
                |_, c| {
                    let span = match journal.as_mut() {
                        Some(j) => j.append(&c)?,
                        None => Span { offset: 0, len: 0 }, // no report reads them back
                    };
                    take(&mut kept, span, c, &window)
                },
            )?;
            if !pending.is_empty() {
                kept.wall += t0.elapsed();
            }
        }
        if let Err(e) = cursor.finish() {
            return Err(input_failed(e, journal));
        }
        let file = file_results(f, kept, journal.as_ref(), &req.algorithm);
        events.batch_file(fi, &file);
        files.push(file);
    }
    Ok(Report {
        algorithm: req.algorithm.clone(),
        files,
        inputs: inputs.iter().map(Input::info).collect(),
        shard: req.shard,
        command: req.command.clone(),
        backend: devices[0].name(),
        adapter: super::devices::adapter_label(devices),
        usage,
        provenance: crate::report::batch::provenance_here(started),
        journal,
    })
}

/// The error of an input that could not be read again as it was checked (changed, or gone):
/// the journal goes with it, since the chunks it holds may have run on other puzzles, and a
/// `--resume` must not take them.
fn input_failed(e: anyhow::Error, journal: Option<Journal>) -> anyhow::Error {
    match journal.map(Journal::finish) {
        Some(Ok(())) => anyhow::anyhow!(
            "{e:#}; the batch's journal is removed (its chunks may be of other puzzles)"
        ),
        Some(Err(j)) => anyhow::anyhow!("{e:#}; and its journal could not be removed: {j:#}"),
        None => e,
    }
}

/// A file's results from what was kept of it: totals, and its records read back from the
/// journal chunk by chunk when a report asks for them.
fn file_results(
    f: &Input,
    mut k: Kept,
    journal: Option<&Journal>,
    algorithm: &Algorithm,
) -> FileResults {
    k.spans.sort_by_key(|&(start, _)| start);
    let records = match journal {
        Some(j) => {
            let (reader, spans) = (j.reader(), k.spans.iter().map(|s| s.1).collect::<Vec<_>>());
            Records::Stored(std::sync::Arc::new(move |visit| {
                read_records(&reader, &spans, visit)
            }))
        }
        None => Records::Held(Vec::new()), // no report asks for them
    };
    FileResults {
        path: f.path().to_string(),
        label: f.label(),
        side: f.b() * f.b(),
        tally: k.tally,
        records,
        wall: k.wall,
        details: k.details,
        ignores_seed: algorithm.ignores_seed(),
        notes: f.notes(),
    }
}

/// Hands the records of the chunks at `spans` (in order) to `visit`.
fn read_records(
    reader: &ChunkReader,
    spans: &[Span],
    visit: &mut dyn FnMut(InstanceResult) -> std::io::Result<()>,
) -> std::io::Result<()> {
    reader.read(spans, |c: ChunkDone| {
        c.results.into_iter().try_for_each(&mut *visit)
    })
}

/// Whether a chunk read back from a journal is what this run would have made there: one record
/// per item in order ([`check_items`]), within the limits, a grid of the file's size, its time
/// a duration. (A hand-edited or damaged record panicked or was counted.) Solved grids are
/// verified when the chunk is kept.
fn check_resumed(
    c: &ChunkDone,
    algorithm: &Algorithm,
    file: &Input,
) -> std::result::Result<(), String> {
    let (runs, limit) = (algorithm.runs(), algorithm.limit());
    check_seconds(c.wall_s)?;
    let held: Vec<(usize, usize)> = c.results.iter().map(|r| (r.puzzle, r.run)).collect();
    check_items(c.start..c.end, runs, file.len(), &held, "item")?;
    let cells = file.b().pow(4);
    for r in &c.results {
        let grid = r.grid.chars().count();
        if r.steps > limit || grid != cells {
            return Err(format!(
                "puzzle {} run {}: {} steps (limit {limit}) and a grid of {grid} cells",
                r.puzzle, r.run, r.steps
            ));
        }
    }
    Ok(())
}

/// Runs items `items` of file `file` (item i is puzzle i / runs, run i % runs) on the puzzles
/// of a window, `grids`, whose first is puzzle `first`.
fn run_chunk(
    device: &Device,
    algorithm: &Algorithm,
    grids: &[Grid],
    first: usize,
    file: usize,
    items: Range<usize>,
    progress: crate::backend::Progress,
) -> Result<ChunkDone> {
    let t0 = Instant::now();
    let (results, details) = match algorithm {
        Algorithm::Ilca {
            params,
            runs,
            portfolio,
            pull,
            ..
        } => {
            // Item i is run i % runs of puzzle i / runs; its instances are that run's
            // `portfolio` instances, numbered on from run × portfolio.
            let n = *portfolio;
            let batch = Batch {
                puzzles: grids,
                first_puzzle: first,
                portfolio: n,
                pull: *pull,
                settings: std::slice::from_ref(params),
                instances: items
                    .clone()
                    .flat_map(|i| {
                        (0..n).map(move |j| Instance {
                            setting: 0,
                            puzzle: i / runs - first,
                            run: i % runs * n + j,
                        })
                    })
                    .collect(),
            };
            // Progress in runs: a portfolio's instances count together.
            let done = std::sync::atomic::AtomicUsize::new(0);
            let instances_done = |k: usize| {
                use std::sync::atomic::Ordering;
                let before = done.fetch_add(k, Ordering::Relaxed);
                progress((before + k) / n - before / n);
            };
            let instances = ilca::run::run(device, &batch, &instances_done)?;
            let results = (instances.chunks(n))
                .map(|of_run| {
                    let mut r = portfolio_record(of_run, params.steps);
                    r.puzzle += first; // the file's numbering
                    r.run /= n;
                    r
                })
                .collect();
            (results, BTreeMap::new())
        }
        Algorithm::Rfss(params) => {
            // One run per puzzle: items are puzzles.
            let own = items.start - first..items.end - first;
            let outcomes = rfss::run::run(device, &grids[own], params, progress)?;
            rfss::run::records(&outcomes, items.start)?
        }
    };
    Ok(ChunkDone {
        file,
        start: items.start,
        end: items.end,
        wall_s: t0.elapsed().as_secs_f64(),
        results,
        details,
    })
}

/// The record of a run made of a portfolio of instances (in instance order): solved at the
/// first step any of them solved, with the grid of the first of those (the lowest instance);
/// unsolved at the step limit `limit`, with the first instance's grid, when none solved. The
/// record carries the first instance's `run`. The same on every device, whether it ran every
/// instance to its end (the GPU) or stopped those that could no longer be first (the CPU).
pub fn portfolio_record(instances: &[InstanceResult], limit: u32) -> InstanceResult {
    let first = instances
        .iter()
        .filter(|r| r.solved)
        .min_by_key(|r| r.steps) // the first of the fewest steps
        .unwrap_or(&instances[0]);
    InstanceResult {
        steps: if first.solved { first.steps } else { limit },
        run: instances[0].run,
        ..first.clone()
    }
}

/// Every engine verifies; check once more here, so nothing unverified is ever reported.
fn verify(results: &[InstanceResult], window: &Window) -> Result<()> {
    for r in results.iter().filter(|r| r.solved) {
        let Some(puzzle) = window.puzzle(r.puzzle) else {
            bail!(
                "puzzle {} run {} is not a puzzle of the file",
                r.puzzle,
                r.run
            );
        };
        let g = crate::puzzle::parse_str(&r.grid, Some(puzzle.side()))?
            .remove(0)
            .grid;
        if let Err(why) = g.verify_solution_of(puzzle) {
            bail!(
                "internal error: engine reported puzzle {} run {} solved but {why}",
                r.puzzle,
                r.run
            );
        }
    }
    Ok(())
}

//! `gpu-sudoku batch`: runs ILCA (several runs each) or RFSS (deterministic: once) on every
//! puzzle of one or more files and reports a table, a row per file as each finishes (the ILCA
//! paper's Table 2 layout, with the rate's 95% interval and the time-to-solution), plus optional
//! JSON and CSV of the same shape for both algorithms. When the setting is one of the paper's and
//! the file a shipped paper tier, the paper's rate stands beside the measured one.

use super::args::InputArgs;
use super::args::{print_table, run_on_devices, DeviceArgs, ReportArgs};
use super::ilca_args::{describe, IlcaArgs};
use super::journal::{ChunkReader, Journal, Span};
use super::rfss_args::RfssArgs;
use anyhow::{bail, Context, Result};
use gpu_sudoku::choice::Choice;
use gpu_sudoku::generate::{paper_tier_of, Tier};
use gpu_sudoku::ilca::presets::{PaperRates, Preset};
use gpu_sudoku::ilca::{self, Batch, IlcaParams, Instance};
use gpu_sudoku::puzzle::{Grid, PuzzleFile};
use gpu_sudoku::report::batch::{
    write_batch_json, write_instances_csv, BatchInfo, FileResults, Records, Summary, Table, Tally,
};
use gpu_sudoku::report::schema::{provenance_here, InputInfo};
use gpu_sudoku::report::InstanceResult;
use gpu_sudoku::rfss::{self, RfssParams};
use gpu_sudoku::shard::{self, Shard};
use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle files (one table row each; `-` reads standard input).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Algorithm: ilca (learning cellular automata) or rfss (resource-defined fitness sharing).
    #[arg(long, value_enum, default_value_t = Algo::Ilca)]
    pub algo: Algo,
    /// Runs per puzzle (independent random streams) [default: 10]. RFSS is deterministic: it
    /// runs each puzzle once.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: Option<u32>,
    #[command(flatten)]
    pub ilca: IlcaArgs,
    #[command(flatten)]
    pub rfss: RfssArgs,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub reports: ReportArgs,
    #[command(flatten)]
    pub input: InputArgs,
    /// Run only shard K of N (0 ≤ K < N): a contiguous part of the (file, puzzle, run) items
    /// of about 1/N of the cost; `gpu-sudoku merge` joins the N reports into the unsharded one.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Finish the run a killed `batch` with the same options left in the journal beside
    /// --json (or --csv): its finished chunks are kept, the rest is run.
    #[arg(long)]
    pub resume: bool,
    /// Instances per chunk: the unit of the journal (a killed run loses at most one chunk).
    #[arg(long, default_value_t = 16_384, value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk: u32,
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

/// What a file has so far: totals of its finished chunks, the algorithm's details, where the
/// journal holds each chunk's records (by first item), which chunks are done, their wall time.
#[derive(Default)]
struct Kept {
    tally: Tally,
    details: BTreeMap<usize, serde_json::Value>,
    spans: Vec<(usize, Span)>,
    done: BTreeSet<usize>,
    wall: Duration,
}

/// Refuses, before any work, a run whose records would not fit on disk where they go.
fn check_disk(a: &Args, cells: usize, items: u64, detailed: bool) -> Result<()> {
    a.reports.check_disk(
        items,
        gpu_sudoku::limits::RecordBytes::per_instance(cells, detailed),
        "use fewer --runs or puzzles, or split the run with --shard K/N",
    )
}

/// Refuses a run whose chunks in flight (one per device, and one being written) would not fit
/// in memory.
fn check_memory(a: &Args, cells: usize, items: u64, devices: usize) -> Result<()> {
    use gpu_sudoku::limits;
    let in_flight = (a.chunk as u64)
        .min(items)
        .saturating_mul(devices as u64 + 1);
    limits::check_memory(
        in_flight,
        limits::held_bytes_per_instance(cells),
        "the chunks in flight; finished records wait on disk",
        limits::available_memory(),
        "use a smaller --chunk",
    )
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

/// The algorithms `batch` and `trace` run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Algo {
    Ilca,
    Rfss,
}

/// The chosen algorithm with its parameters.
enum Run {
    Ilca {
        params: IlcaParams,
        runs: usize,
        preset: Option<&'static str>,
    },
    Rfss(RfssParams),
}

/// Text of the JSON `note` and the table header for RFSS.
const RFSS_NOTE: &str =
    "RFSS is deterministic (no random draws): every run would be identical, so each puzzle runs once";

/// Runs per puzzle when `--runs` is not given (the paper's 10).
const DEFAULT_RUNS: u32 = 10;

/// Refuses the options of the other algorithm instead of ignoring them.
pub fn refuse(given: Vec<&str>, only_for: &str, not_for: &str) -> Result<()> {
    if !given.is_empty() {
        bail!(
            "{} {} only to --algo {only_for}, not to --algo {not_for}",
            given.join(", "),
            if given.len() == 1 { "applies" } else { "apply" }
        );
    }
    Ok(())
}

pub fn run(a: Args) -> Result<ExitCode> {
    let started = std::time::SystemTime::now();
    let run = match a.algo {
        Algo::Ilca => {
            a.rfss.refuse_for("ilca")?;
            let params = a.ilca.params()?;
            let runs =
                super::ilca_args::runs_per_puzzle(&params, a.runs.unwrap_or(DEFAULT_RUNS) as usize);
            Run::Ilca {
                preset: a.ilca.preset_name(&params),
                params,
                runs,
            }
        }
        Algo::Rfss => {
            refuse(a.ilca.given(), "ilca", "rfss")?;
            let params = a.rfss.params()?;
            if a.runs.is_some_and(|r| r > 1) {
                errln!("note: {RFSS_NOTE}");
            }
            Run::Rfss(params)
        }
    };
    // Outputs and inputs are checked before any work: a bad file fails before anything runs.
    let input_paths: Vec<&str> = a.files.iter().map(String::as_str).collect();
    super::args::refuse_stdin_twice(&input_paths)?;
    a.reports.check(&input_paths)?;
    let mut inputs = Vec::new();
    for path in &a.files {
        let f = a.input.read(path)?;
        if f.puzzles.is_empty() {
            bail!("{path}: no puzzles in the file");
        }
        inputs.push(f);
    }
    // The items of each file (puzzle × run) this process runs: all, or its shard's.
    let cost_each = |f: &PuzzleFile| -> u64 {
        let cells = (f.b as u64).pow(4);
        match &run {
            Run::Ilca { params, .. } => cells * params.steps as u64,
            Run::Rfss(params) => cells * (f.b as u64).pow(2) * params.max_generations as u64,
        }
    };
    let runs_per_puzzle = match &run {
        Run::Ilca { runs, .. } => *runs,
        Run::Rfss(_) => 1,
    };
    let groups: Vec<(usize, u64)> = inputs
        .iter()
        .map(|f| (f.puzzles.len() * runs_per_puzzle, cost_each(f)))
        .collect();
    let what = if runs_per_puzzle == 1 {
        "instances (puzzles)"
    } else {
        "instances (puzzles × runs)"
    };
    let ranges = shard::ranges(&groups, a.shard, what)?;
    let chunk = a.chunk as usize;
    let items: u64 = ranges.iter().map(|r| r.len() as u64).sum();
    // Grid cells of the largest puzzles, for what a record weighs.
    let cells = inputs.iter().map(|f| f.b.pow(4)).max().unwrap_or(81);
    check_disk(&a, cells, items, matches!(run, Run::Rfss(_)))?;
    let devices = a.device.open_many()?;
    let device = &devices[0];
    check_memory(&a, cells, items, devices.len())?;

    let mut usage = vec![(0usize, Duration::ZERO); devices.len()];
    let say = |text: &str| print_table(&a.reports, text);
    let adapter = match devices.len() {
        1 => device
            .adapter()
            .map(|a| format!(" ({a})"))
            .unwrap_or_default(),
        n => format!(" ({n} adapters)"),
    };
    let (runs, unit, paper) = match &run {
        Run::Ilca {
            params,
            runs,
            preset,
        } => {
            let how_many = match (*runs, params.ignores_seed()) {
                (1, true) => "1 run/puzzle (deterministic)".to_string(),
                (1, false) => "1 run/puzzle".to_string(),
                (n, _) => format!("{n} runs/puzzle"),
            };
            say(&format!(
                "ILCA on {}{adapter}: {how_many}, {}\n",
                device.name(),
                describe(params, *preset)
            ));
            (
                *runs,
                "steps",
                Preset::paper_setting_of(params).and_then(|p| p.paper),
            )
        }
        Run::Rfss(params) => {
            say(&format!(
                "RFSS on {}{adapter}: 1 run/puzzle (deterministic), max-generations {}, \
                 stable-generations {}, underflow {} below 2^-{}, enhance {}{}\n",
                device.name(),
                params.max_generations,
                params.stable_generations,
                params.underflow,
                params.underflow_log2,
                params.enhancement,
                if params.enhancement == rfss::Enhancement::Off {
                    String::new()
                } else {
                    format!(" (stall-generations {})", params.stall_generations)
                }
            ));
            (1, "gens", None)
        }
    };
    // The paper's rate per file: only for a paper setting on a shipped paper tier.
    let tiers: Vec<Option<&'static str>> = inputs
        .iter()
        .map(|f| paper_tier_of(&f.header).map(|t| t.name()))
        .collect();
    let paper = paper.filter(|_| tiers.iter().any(Option::is_some));
    // A row is labelled by its file's label, or by its path where two files share the label
    // (`a/easy.txt`, `b/easy.txt`: two rows called `easy` could not be told apart).
    let labels: Vec<String> = inputs.iter().map(PuzzleFile::label).collect();
    let row_labels = gpu_sudoku::report::batch::row_labels(
        inputs
            .iter()
            .zip(&labels)
            .map(|(f, l)| (f.path.as_str(), l.as_str())),
    );
    let table = Table::new(&row_labels, unit, paper.is_some());
    let input_infos: Vec<InputInfo> = inputs.iter().map(InputInfo::of_file).collect();
    let (algorithm, params_json) = match &run {
        Run::Ilca { params, .. } => ("ilca", serde_json::to_value(params)?),
        Run::Rfss(params) => ("rfss", serde_json::to_value(params)?),
    };
    // The journal's header names the run exactly.
    let header = serde_json::json!({
        "tool": "gpu-sudoku",
        "version": env!("CARGO_PKG_VERSION"),
        "algorithm": algorithm,
        "params": params_json,
        "runs": runs,
        "inputs": input_infos,
        "shard": a.shard,
        "chunk": chunk,
    });
    // Per file: the running totals, the algorithm's details, the chunks already run (with
    // where the journal holds their records) and their wall time.
    let file_solutions: Vec<BTreeMap<usize, String>> = inputs
        .iter()
        .map(|f| FileResults::solutions_in(&f.puzzles))
        .collect();
    let mut kept: Vec<Kept> = inputs.iter().map(|_| Kept::default()).collect();
    let keep = |span: Span, c: ChunkDone, kept: &mut [Kept]| -> Result<()> {
        verify(&c.results, &inputs[c.file].puzzles)?;
        let k = &mut kept[c.file];
        for r in &c.results {
            k.tally.add(r, file_solutions[c.file].get(&r.puzzle));
        }
        k.details.extend(c.details);
        k.spans.push((c.start, span));
        k.done.insert(c.start);
        Ok(())
    };
    let mut journal =
        super::journal::for_reports::<ChunkDone>(&a.reports, &header, a.resume, |span, c| {
            // Only chunks of this run's layout count (the header makes any other impossible).
            let fi = c.file;
            let fits = fi < ranges.len()
                && c.start >= ranges[fi].start
                && (c.start - ranges[fi].start).is_multiple_of(chunk)
                && c.end == (c.start + chunk).min(ranges[fi].end)
                && !kept[fi].done.contains(&c.start);
            if fits {
                let damaged = format!(
                    "--resume: a damaged journal record (items {}..{} of {}); delete the journal \
                     to run the whole batch again",
                    c.start, c.end, inputs[fi].path
                );
                check_resumed(&c, &run, &inputs[fi])
                    .map_err(|why| anyhow::anyhow!("{why}"))
                    .context(damaged.clone())?;
                // A chunk of the interrupted run counts the time it took then.
                kept[fi].wall += Duration::from_secs_f64(c.wall_s);
                keep(span, c, &mut kept).context(damaged)?;
            }
            Ok(fits)
        })?;
    let records_wanted = a.reports.json.is_some() || a.reports.csv.is_some();
    if journal.is_none() && records_wanted {
        journal = Some(Journal::scratch(&header)?);
    }
    let bar = super::progress::bar(items as usize, "");
    let mut files = Vec::new();
    for (fi, (f, tier)) in inputs.iter().zip(&tiers).enumerate() {
        bar.set_message(f.label());
        let progress = |k: usize| bar.inc(k as u64);
        let grids: Vec<Grid> = f.puzzles.iter().map(|p| p.grid.clone()).collect();
        // The file's chunks: those the journal holds are kept, the rest run on the devices.
        let mut pending = Vec::new();
        let mut start = ranges[fi].start;
        while start < ranges[fi].end {
            let end = (start + chunk).min(ranges[fi].end);
            if kept[fi].done.contains(&start) {
                progress(end - start);
            } else {
                pending.push(start..end);
            }
            start = end;
        }
        let t0 = Instant::now();
        run_on_devices(
            &devices,
            pending.len(),
            &mut usage,
            |device, k| {
                let c = run_chunk(device, &run, &grids, fi, pending[k].clone(), &progress)
                    .with_context(|| format!("running {}", f.path))?;
                let items = c.end - c.start;
                Ok((c, items))
            },
            |_, c| {
                let span = match journal.as_mut() {
                    Some(j) => j.append(&c)?,
                    None => Span { offset: 0, len: 0 }, // no report reads them back
                };
                keep(span, c, &mut kept)
            },
        )?;
        let k = &mut kept[fi];
        if !pending.is_empty() {
            k.wall += t0.elapsed();
        }
        k.spans.sort_by_key(|&(start, _)| start);
        let records = match journal.as_ref() {
            Some(j) => {
                let (reader, spans) = (
                    j.reader(),
                    k.spans.iter().map(|s| s.1).collect::<Vec<Span>>(),
                );
                Records::Stored(std::sync::Arc::new(move |visit| {
                    read_records(&reader, &spans, visit)
                }))
            }
            None => Records::Held(Vec::new()), // no report asks for them
        };
        let file = FileResults {
            path: f.path.clone(),
            label: f.label(),
            side: f.b * f.b,
            lines: f.puzzles.iter().map(|p| p.line).collect(),
            tally: std::mem::take(&mut k.tally),
            records,
            wall: k.wall,
            details: std::mem::take(&mut k.details),
            file_solutions: file_solutions[fi].clone(),
            ignores_seed: match &run {
                Run::Ilca { params, .. } => params.ignores_seed(),
                Run::Rfss(_) => true,
            },
            extras: f
                .puzzles
                .iter()
                .enumerate()
                .filter(|(_, p)| !p.extra.is_empty())
                .map(|(i, p)| (i, p.extra.clone()))
                .collect(),
        };
        if files.is_empty() {
            bar.suspend(|| say(&table.header()));
        }
        // A file this shard holds no instance of measured nothing to set beside the paper.
        let rate = paper
            .zip(*tier)
            .and_then(|(p, t)| p.tier(t))
            .filter(|_| file.tally.instances > 0);
        bar.suspend(|| say(&table.row(&row_labels[fi], &file.summary(), rate)));
        if let (checked @ 1.., differing) = file.against_file_solutions() {
            let how = match differing {
                0 => "every one is the file's solution".to_string(),
                k => format!(
                    "{k} differ from it (each holds the rules and the clues, so those puzzles have \
                     more than one solution)"
                ),
            };
            bar.suspend(|| {
                errln!(
                    "{}: {checked} solved grids checked against the file's solution column: {how}",
                    row_labels[fi]
                )
            });
        }
        files.push(file);
    }
    bar.finish_and_clear();
    super::args::report_usage(&devices, &usage);
    if files.len() > 1 {
        // The paper's overall rate is over its four tiers: only files of those tiers, all four.
        let all_four = Tier::ALL.iter().all(|t| tiers.contains(&Some(t.name())));
        let rate = paper
            .filter(|_| tiers.iter().all(Option::is_some) && all_four)
            .filter(|_| files.iter().all(|f| f.tally.instances > 0))
            .map(|p| p.overall);
        say(&table.row("overall", &Summary::overall(&files), rate));
    }
    if let Some(p) = paper {
        say(&paper_note(&p, &files, &tiers));
    }
    let command: Vec<String> = std::env::args().collect();
    let adapter_name = match devices.len() {
        1 => device.adapter(),
        n => Some(format!(
            "{n} adapters: {}",
            devices
                .iter()
                .filter_map(|d| d.adapter())
                .collect::<Vec<_>>()
                .join("; ")
        )),
    };
    let info = match &run {
        Run::Ilca {
            params,
            runs,
            preset,
        } => BatchInfo {
            algorithm: "ilca",
            preset: *preset,
            command: &command,
            backend: device.name(),
            adapter: adapter_name.as_deref(),
            runs: *runs,
            seed: Some(params.seed),
            note: None,
            params: params_json.clone(),
            inputs: input_infos.clone(),
            shard: a.shard,
            provenance: provenance_here(started),
        },
        Run::Rfss(_) => BatchInfo {
            algorithm: "rfss",
            preset: None,
            command: &command,
            backend: device.name(),
            adapter: adapter_name.as_deref(),
            runs: 1,
            seed: None,
            note: Some(RFSS_NOTE),
            params: params_json.clone(),
            inputs: input_infos.clone(),
            shard: a.shard,
            provenance: provenance_here(started),
        },
    };
    a.reports.write_streamed(
        |w| write_batch_json(&info, &files, w),
        |w| write_instances_csv(&info, &files, w),
    )?;
    if let Some(j) = journal {
        j.finish()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether a chunk read back from a journal is what this run would have made there: one record
/// per item in order ([`super::journal::check_items`]), within the limits, a grid of the file's
/// size, its time a duration. (A hand-edited or damaged record panicked or was counted.)
/// Solved grids are verified when the chunk is kept.
fn check_resumed(c: &ChunkDone, run: &Run, file: &PuzzleFile) -> std::result::Result<(), String> {
    let (runs, limit) = match run {
        Run::Ilca { params, runs, .. } => (*runs, params.steps),
        Run::Rfss(p) => (1, p.max_generations),
    };
    super::journal::check_seconds(c.wall_s)?;
    let held: Vec<(usize, usize)> = c.results.iter().map(|r| (r.puzzle, r.run)).collect();
    super::journal::check_items(c.start..c.end, runs, file.puzzles.len(), &held, "item")?;
    let cells = file.b.pow(4);
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

/// Runs items `items` of file `file` (item i is puzzle i / runs, run i % runs).
fn run_chunk(
    device: &gpu_sudoku::backend::Device,
    run: &Run,
    grids: &[Grid],
    file: usize,
    items: std::ops::Range<usize>,
    progress: gpu_sudoku::backend::Progress,
) -> Result<ChunkDone> {
    let t0 = Instant::now();
    let (results, details) = match run {
        Run::Ilca { params, runs, .. } => {
            let batch = Batch {
                puzzles: grids,
                settings: std::slice::from_ref(params),
                instances: items
                    .clone()
                    .map(|i| Instance {
                        setting: 0,
                        puzzle: i / runs,
                        run: i % runs,
                    })
                    .collect(),
            };
            (ilca::run::run(device, &batch, progress)?, BTreeMap::new())
        }
        Run::Rfss(params) => {
            let outcomes = rfss::run::run(device, &grids[items.clone()], params, progress)?;
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

/// Every engine verifies; check once more here, so nothing unverified is ever reported.
fn verify(results: &[InstanceResult], puzzles: &[gpu_sudoku::puzzle::Puzzle]) -> Result<()> {
    for r in results.iter().filter(|r| r.solved) {
        let puzzle = &puzzles[r.puzzle].grid;
        let g = gpu_sudoku::puzzle::parse_str(&r.grid, Some(puzzle.side()))?
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

/// What a first run needs to read the paper column: which table it is, how far this reading
/// is from it, and where to go next.
fn paper_note(p: &PaperRates, files: &[FileResults], tiers: &[Option<&str>]) -> String {
    let gaps: Vec<String> = files
        .iter()
        .zip(tiers)
        .filter(|(f, _)| f.tally.instances > 0)
        .filter_map(|(f, t)| {
            let paper = p.tier((*t)?)?;
            Some(format!(
                "{} {:+.1}",
                t.unwrap(),
                f.summary().solved_pct - paper
            ))
        })
        .collect();
    format!(
        "paper: {} of Chatzinikolaou et al. 2024 (measured − paper, points: {}). No reading of the \
         paper reproduces its rates (docs/REPRODUCTION.md); `gpu-sudoku reproduce ilca` sets every \
         table beside its measurement, and `--preset improved` (not the paper) solves Evil.\n",
        p.table,
        if gaps.is_empty() {
            "–".into()
        } else {
            gaps.join(", ")
        }
    )
}

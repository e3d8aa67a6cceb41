//! The sweep job: one or two ILCA parameters over ranges on one or more puzzle files, the
//! settings run in blocks (a block of settings per engine call) on every device at once, their
//! rows written to the sweep CSV as blocks finish, resumable through the journal beside it.
//!
//! ```no_run
//! use gpu_sudoku::job::{self, sweep::{Plan, Request}};
//! use gpu_sudoku::sweep::{Param, SweepSpec, Values};
//! # fn main() -> anyhow::Result<()> {
//! let file = gpu_sudoku::puzzle::read_puzzles("puzzles/hard.txt", None)?;
//! let mut spec = SweepSpec::default();
//! spec.values.insert(Param::Sr, Values::Range(vec![10.0, 20.0, 30.0]));
//! let request = Request::new(vec![file], spec, Default::default());
//! let plan = Plan::new(&request, request.settings()?)?;
//! let (devices, _) = job::devices::open(gpu_sudoku::backend::Backend::Auto, None)?;
//! // Without a CSV (`Keep::default()`) the rows are only returned.
//! let report = job::sweep::run(&plan, &devices, &job::Keep::default(), &job::Quiet)?;
//! for (label, best) in report.best() {
//!     println!("{label}: {:.1}% at sr = {}", best.solved_pct(), best.point.sr);
//! }
//! # Ok(()) }
//! ```

use super::devices::{run_chunks, Usage};
use super::journal::{self, Journal};
use super::{Events, Keep};
use crate::backend::Device;
use crate::ilca::IlcaParams;
use crate::puzzle::PuzzleFile;
use crate::report::batch::{provenance_here, InputInfo};
use crate::shard::{self, Shard};
use crate::sweep::{self, Group, Input, Param, Role, Row, Sweep, SweepSpec};
use anyhow::{bail, ensure, Context, Result};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs per puzzle and setting when none is given.
pub const DEFAULT_RUNS: usize = 10;

/// Width of the difficulty bins of the `d` rows when none is given.
pub const DEFAULT_D_BIN: f64 = 0.05;

/// A sweep to run: the files (read), what is swept over which values, the parameters it holds
/// fixed, runs per puzzle, which shard of the settings, settings per engine call, and the
/// command line that asked for it (for the JSON report).
#[derive(Clone, Debug)]
pub struct Request {
    pub files: Vec<PuzzleFile>,
    pub spec: SweepSpec,
    /// Every parameter the spec does not give (its lr, lp, sr, steps are their defaults).
    pub base: IlcaParams,
    /// Runs per puzzle and setting, as asked (a setting that ignores the seed runs once: see
    /// [`Request::runs_per_puzzle`]); the journal keeps this number.
    pub runs: usize,
    /// Width of the difficulty bins of the `d` rows, in [0.01, 1].
    pub d_bin: f64,
    pub shard: Option<Shard>,
    /// Settings per engine call; 0: enough for a few hundred thousand instances on the GPU,
    /// tens of thousands on the CPU ([`Plan::block`]).
    pub chunk: usize,
    pub command: Vec<String>,
}

impl Request {
    /// A whole sweep of `spec` over `files` with `base`'s other parameters, the default runs
    /// and d bins, blocks of the automatic size.
    pub fn new(files: Vec<PuzzleFile>, spec: SweepSpec, base: IlcaParams) -> Request {
        Request {
            files,
            spec,
            base,
            runs: DEFAULT_RUNS,
            d_bin: DEFAULT_D_BIN,
            shard: None,
            chunk: 0,
            command: Vec::new(),
        }
    }

    /// The runs each puzzle gets per setting: as asked, or one when the parameters ignore the
    /// seed (every further run would repeat the first).
    pub fn runs_per_puzzle(&self) -> usize {
        self.base.runs_per_puzzle(self.runs)
    }

    /// The settings the spec gives on the base parameters (see [`sweep::Plan::new`]).
    pub fn settings(&self) -> Result<sweep::Plan> {
        sweep::Plan::new(&self.spec, &self.base)
    }
}

/// A request laid out: its settings, its inputs, and which settings this shard runs.
pub struct Plan<'a> {
    pub request: &'a Request,
    pub settings: sweep::Plan,
    /// The files as the sweep reads them: label, grids, difficulty d of each puzzle.
    pub inputs: Vec<Input>,
    /// Per setting (`settings.runs`), whether this shard runs it.
    pub mine: Vec<bool>,
    /// Runs per puzzle ([`Request::runs_per_puzzle`]).
    pub runs: usize,
    /// Puzzles without a `d=` field, whose d is their fraction of blank cells.
    pub d_fallbacks: usize,
}

impl<'a> Plan<'a> {
    /// Lays out `request` with its `settings` (from [`Request::settings`], which a caller
    /// that needs them before reading the files computes first). Refuses runs below 1, a d bin
    /// width out of range, a file without puzzles or with a label that cannot name CSV rows,
    /// and a shard count above the settings.
    pub fn new(request: &'a Request, settings: sweep::Plan) -> Result<Plan<'a>> {
        ensure!(request.runs >= 1, "--runs must be at least 1");
        sweep::check_d_bin(request.d_bin)?;
        let mut inputs = Vec::new();
        let mut d_fallbacks = 0;
        for f in &request.files {
            sweep::check_file(f)?;
            d_fallbacks += f.puzzles.iter().filter(|p| sweep::difficulty(p).1).count();
            inputs.push(Input::new(f.label(), &f.puzzles));
        }
        let runs = request.runs_per_puzzle();
        // Each setting costs instances × steps.
        let per_setting = inputs.iter().map(|i| i.puzzles.len()).sum::<usize>() * runs;
        let groups: Vec<(usize, u64)> = settings
            .runs
            .iter()
            .map(|r| {
                (
                    1,
                    (per_setting as u64).saturating_mul(r.params.steps as u64),
                )
            })
            .collect();
        let mine = shard::ranges(&groups, request.shard, "settings")?
            .into_iter()
            .map(|r| !r.is_empty())
            .collect();
        Ok(Plan {
            request,
            settings,
            inputs,
            mine,
            runs,
            d_fallbacks,
        })
    }

    /// Instances one setting runs (every puzzle of every file, each run).
    pub fn instances_per_setting(&self) -> usize {
        self.inputs.iter().map(|i| i.puzzles.len()).sum::<usize>() * self.runs
    }

    /// The settings this shard runs.
    pub fn settings_mine(&self) -> usize {
        self.mine.iter().filter(|&&m| m).count()
    }

    /// Settings per engine call on `device`: the request's, or enough for about 2^19 instances
    /// on a GPU, 2^15 on the CPU.
    pub fn block(&self, device: &Device) -> usize {
        if self.request.chunk > 0 {
            return self.request.chunk;
        }
        let target = match device {
            Device::Gpu(_) => 1 << 19,
            Device::Cpu => 1 << 15,
        };
        (target / self.instances_per_setting().max(1)).max(1)
    }

    /// The first line of the journal: everything the rows depend on (every ILCA parameter, the
    /// ranges, the baseline, runs, the d bins, the inputs and their content, the shard; not the
    /// backend or the block size), so a resume continues only the same sweep.
    fn header(&self) -> Result<serde_json::Value> {
        let (r, plan) = (self.request, &self.settings);
        let mut params = serde_json::to_value(&r.base)?;
        let obj = params
            .as_object_mut()
            .context("ILCA parameters serialise as an object")?;
        // The swept parameters' values, the others' one value (or how they follow the ratio).
        for p in Param::ALL {
            let v = match plan.axes.iter().find(|(q, _)| *q == p) {
                Some((_, values)) => serde_json::json!(values),
                None => {
                    let first = plan.points.first().map_or(f64::NAN, |pt| pt.get(p));
                    if plan.points.iter().all(|pt| pt.get(p) == first) {
                        serde_json::json!(first)
                    } else {
                        serde_json::json!("follows the ratio")
                    }
                }
            };
            obj.insert(p.name().into(), v);
        }
        let baseline = r.spec.baseline.as_ref().map(|b| {
            b.iter()
                .map(|(p, v)| (p.name().to_string(), serde_json::json!(v)))
                .collect::<serde_json::Map<_, _>>()
        });
        obj.insert("baseline".into(), serde_json::json!(baseline));
        obj.insert("runs".into(), r.runs.into());
        obj.insert("d_bin".into(), r.d_bin.into());
        Ok(serde_json::json!({
            "tool": "gpu-sudoku",
            "version": env!("CARGO_PKG_VERSION"),
            // A journal resumes only with the build that began it (its records are that build's).
            "build": crate::build_info::BUILD,
            "kind": "sweep",
            "params": params,
            "inputs": r.files.iter().map(InputInfo::of_file).collect::<Vec<_>>(),
            "shard": r.shard,
        }))
    }
}

/// Refuses, before any work, a resume with no journal to continue: `--resume` with no CSV, or
/// a CSV without the journal of an interrupted sweep beside it.
pub fn check_resume(keep: &Keep) -> Result<()> {
    if !keep.resume {
        return Ok(());
    }
    let Some(csv) = keep.beside.as_deref() else {
        bail!("--resume continues the journal kept beside --csv FILE: give the same one");
    };
    let journal_path = journal::path_for(csv);
    if !journal_path.exists() && csv.exists() {
        bail!(
            "--resume: {} is not the CSV of an interrupted sweep (no journal {} beside it: the \
             sweep finished, or another run wrote the file); drop --resume to run the sweep \
             again and replace it, or write to another --csv",
            csv.display(),
            journal_path.display()
        );
    }
    Ok(())
}

/// One finished block of settings as the sweep's journal holds it: each setting's index in the
/// plan and its rows.
#[derive(serde::Serialize, serde::Deserialize)]
struct BlockDone {
    settings: Vec<(usize, Vec<Row>)>,
}

/// The rows so far, each with its setting's index, and the settings done.
#[derive(Default)]
struct Kept {
    rows: Vec<Row>,
    setting: Vec<usize>,
    done: HashSet<usize>,
}

impl Kept {
    fn add_setting(&mut self, i: usize, rows: Vec<Row>) {
        self.done.insert(i);
        self.setting.extend(std::iter::repeat_n(i, rows.len()));
        self.rows.extend(rows);
    }
}

/// Where a sweep writes as it goes: the CSV (its rows so far, then each block's) and the
/// journal beside it.
struct Written {
    csv: PathBuf,
    file: std::fs::File,
    journal: Journal,
}

impl Written {
    /// Opens the journal beside `csv` (a resume takes the settings it holds into `kept`: only
    /// these count as done, whatever the CSV still holds), and writes the CSV anew with their
    /// rows. Rows of settings not in the journal (a block cut before its journal line) are
    /// dropped there and run again.
    fn open(plan: &Plan, csv: &Path, resume: bool, kept: &mut Kept) -> Result<Written> {
        let header = plan.header()?;
        let (journal, _) =
            Journal::open::<BlockDone>(&journal::path_for(csv), &header, resume, |_, b| {
                // The header makes any other impossible; a setting twice keeps its first rows.
                let settings = &plan.settings;
                for (i, rows) in b.settings {
                    let fits = i < settings.runs.len()
                        && plan.mine[i]
                        && !kept.done.contains(&i)
                        && rows.iter().all(|r| settings.setting_of(r) == Some(i));
                    if fits {
                        kept.add_setting(i, rows);
                    }
                }
                Ok(true) // a sweep counts its settings itself
            })?;
        let text = sweep::csv_text(&kept.rows);
        let cannot = || format!("--csv {}", csv.display());
        // Written whole under a temporary name and renamed: a reader never sees half a CSV.
        let name = csv
            .file_name()
            .map_or("sweep.csv".into(), |n| n.to_string_lossy());
        let tmp = csv.with_file_name(format!(".{name}.gpu-sudoku-{}.tmp", std::process::id()));
        let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, csv));
        if written.is_err() {
            std::fs::remove_file(&tmp).ok();
        }
        written.with_context(cannot)?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(csv)
            .with_context(|| format!("cannot write {}", csv.display()))?;
        Ok(Written {
            csv: csv.to_path_buf(),
            file,
            journal,
        })
    }

    /// A finished block: its rows go to the CSV first, then the block to the journal, so a
    /// block cut between the two runs again on a resume, its rows replaced.
    fn block(&mut self, block: &BlockDone) -> Result<()> {
        for r in block.settings.iter().flat_map(|(_, rows)| rows) {
            writeln!(self.file, "{}", r.csv_line())?;
        }
        self.file
            .flush()
            .with_context(|| format!("cannot write {}", self.csv.display()))?;
        self.journal.append(block)?;
        Ok(())
    }
}

/// Runs the plan on `devices` (blocks of settings on all of them at once). With a CSV
/// (`keep.beside`) the rows go to it as blocks finish, in the plan's order, with the journal
/// beside it that makes the sweep resumable (`keep.resume` continues it); without, the rows are
/// only returned.
pub fn run(plan: &Plan, devices: &[Device], keep: &Keep, events: &dyn Events) -> Result<Report> {
    let started = std::time::SystemTime::now();
    ensure!(!devices.is_empty(), "no device to run the sweep on");
    check_resume(keep)?;
    let mut kept = Kept::default();
    let mut written = match keep.beside.as_deref() {
        Some(csv) => {
            let resuming = keep.resume && journal::path_for(csv).exists();
            let w = Written::open(plan, csv, keep.resume, &mut kept)?;
            if resuming {
                events.note(&format!(
                    "resuming {}: {} of {} settings already done",
                    csv.display(),
                    kept.done.len(),
                    plan.settings_mine()
                ));
            }
            Some(w)
        }
        None => None,
    };
    let todo: Vec<usize> = (0..plan.settings.runs.len())
        .filter(|&i| plan.mine[i] && !kept.done.contains(&i))
        .collect();
    let block = plan.block(&devices[0]);
    let per_setting = plan.instances_per_setting();
    events.note(&format!(
        "sweep of {}: {} settings ({} to run) x {} instances, {} settings per engine call",
        plan.settings.swept(),
        plan.settings.runs.len(),
        todo.len(),
        per_setting,
        block
    ));
    events.total((todo.len() * per_setting) as u64);
    events.label("sweep");
    let blocks: Vec<&[usize]> = todo.chunks(block).collect();
    let usage = run_blocks(plan, devices, &blocks, events, |b| {
        if let Some(w) = &mut written {
            w.block(&b)?;
        }
        for (i, rows) in b.settings {
            kept.add_setting(i, rows);
        }
        Ok(())
    })?;
    Ok(Report::new(plan, kept, usage, written, started))
}

/// Runs the blocks on every device at once and hands each finished one to `done`, in block
/// order. Returns what each device did.
fn run_blocks(
    plan: &Plan,
    devices: &[Device],
    blocks: &[&[usize]],
    events: &dyn Events,
    mut done: impl FnMut(BlockDone) -> Result<()>,
) -> Result<Vec<Usage>> {
    let sw = Sweep {
        plan: &plan.settings,
        inputs: &plan.inputs,
        runs: plan.runs,
        d_bin: plan.request.d_bin,
    };
    let per_setting = plan.instances_per_setting();
    let mut waiting = BTreeMap::new();
    let mut next = 0;
    let mut usage = vec![Usage::default(); devices.len()];
    run_chunks(
        devices,
        blocks.len(),
        &mut usage,
        |device, k| {
            let settings: Vec<_> = blocks[k]
                .iter()
                .map(|&i| plan.settings.runs[i].clone())
                .collect();
            let rows = sw.run_block(device, &settings, &|n| events.advance(n as u64))?;
            Ok((rows, blocks[k].len() * per_setting))
        },
        |k, rows: Vec<Vec<Row>>| {
            waiting.insert(k, rows);
            while let Some(rows) = waiting.remove(&next) {
                let settings = blocks[next].iter().copied().zip(rows).collect();
                done(BlockDone { settings })?;
                next += 1;
            }
            Ok(())
        },
    )?;
    Ok(usage)
}

/// The sweep's JSON report (see [`Report::json`]).
#[derive(serde::Serialize, schemars::JsonSchema)]
struct SweepJson<'a> {
    #[serde(flatten)]
    header: crate::report::schema::Header,
    /// Always `sweep`: what `merge` tells the report kinds apart by.
    kind: &'static str,
    params: SweepParams<'a>,
    /// Every input file, hashed.
    inputs: &'a [InputInfo],
    /// The part of the sweep this report holds, when sharded.
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<Shard>,
    /// Host and start time; not part of the results.
    provenance: &'a serde_json::Value,
    /// One row per setting and group of puzzles, in setting order.
    rows: Vec<RowJson<'a>>,
}

/// What a sweep varied and held.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct SweepParams<'a> {
    /// The swept parameters, `+`-joined (`ratio+sr`).
    swept: &'a str,
    /// The setting every point starts from.
    base: &'a IlcaParams,
    /// Each swept parameter with its values.
    axes: &'a [(Param, Vec<f64>)],
    /// Settings of the whole sweep (all shards).
    settings: usize,
    /// Runs per puzzle and setting.
    runs: usize,
    /// Width of the d bins of the `d` rows.
    d_bin: f64,
}

/// A row of the JSON report: the CSV row's fields, its setting and its solved rate.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct RowJson<'a> {
    /// The setting's index in the plan (its place over all shards).
    setting: usize,
    #[serde(flatten)]
    row: &'a Row,
    /// Percentage of the instances solved (null for none).
    solved_pct: Option<f64>,
    /// Wilson 95% interval of `solved_pct`, in percent.
    solved_pct_95: Option<[f64; 2]>,
}

/// The JSON Schema of the sweep report (`gpu-sudoku schema sweep`).
pub fn json_schema() -> serde_json::Value {
    crate::report::schema::json_schema_of::<SweepJson<'static>>("gpu-sudoku sweep report", true)
}

/// A finished sweep: its rows (in the CSV's order), what the JSON report says of it, what each
/// device did, and the journal that stays until the reports are written ([`Report::finish`]).
pub struct Report {
    /// Every row of this shard's settings: those a resumed journal held, then each block's.
    pub rows: Vec<Row>,
    /// Each row's setting (its index in the plan's settings).
    pub setting: Vec<usize>,
    /// The swept parameters, `+`-joined (`ratio+sr`).
    pub swept: String,
    /// The swept parameters with their values.
    pub axes: Vec<(Param, Vec<f64>)>,
    /// Settings of the whole sweep (all shards).
    pub settings: usize,
    pub base: IlcaParams,
    /// Runs per puzzle and setting.
    pub runs: usize,
    pub d_bin: f64,
    pub inputs: Vec<InputInfo>,
    pub shard: Option<Shard>,
    pub command: Vec<String>,
    pub provenance: serde_json::Value,
    pub usage: Vec<Usage>,
    /// The CSV the rows were written to, if any.
    pub csv: Option<PathBuf>,
    journal: Option<Journal>,
}

impl Report {
    fn new(
        plan: &Plan,
        kept: Kept,
        usage: Vec<Usage>,
        written: Option<Written>,
        started: std::time::SystemTime,
    ) -> Report {
        let r = plan.request;
        let (csv, journal) = written.map(|w| (w.csv, w.journal)).unzip();
        Report {
            rows: kept.rows,
            setting: kept.setting,
            swept: plan.settings.swept(),
            axes: plan.settings.axes.clone(),
            settings: plan.settings.runs.len(),
            base: r.base.clone(),
            runs: plan.runs,
            d_bin: r.d_bin,
            inputs: r.files.iter().map(InputInfo::of_file).collect(),
            shard: r.shard,
            command: r.command.clone(),
            provenance: provenance_here(started),
            usage,
            csv,
            journal,
        }
    }

    /// The JSON report: the rows with each one's setting index (in setting order), the inputs'
    /// hashes and the provenance; what `gpu-sudoku merge` joins for sharded sweeps. Its fields
    /// are [`SweepJson`]'s, in alphabetical order as a JSON value keeps them.
    pub fn json(&self) -> serde_json::Value {
        let mut tagged: Vec<(usize, &Row)> = self.setting.iter().copied().zip(&self.rows).collect();
        tagged.sort_by_key(|(s, _)| *s);
        let doc = SweepJson {
            header: crate::report::schema::Header::new(self.command.clone()),
            kind: "sweep",
            params: SweepParams {
                swept: &self.swept,
                base: &self.base,
                axes: &self.axes,
                settings: self.settings,
                runs: self.runs,
                d_bin: self.d_bin,
            },
            inputs: &self.inputs,
            shard: self.shard,
            provenance: &self.provenance,
            rows: tagged
                .into_iter()
                .map(|(setting, row)| RowJson {
                    setting,
                    row,
                    // As in batch's and compare's rows: null for no instances.
                    solved_pct: Some(row.solved_pct()).filter(|p| p.is_finite()),
                    solved_pct_95: row.solved_pct_95(),
                })
                .collect(),
        };
        serde_json::to_value(doc).expect("a sweep report serialises")
    }

    /// The JSON report, pretty-printed, its digest last, with a final newline.
    pub fn write_json(&self, w: &mut dyn Write) -> std::io::Result<()> {
        crate::report::digest::write_signed(w, |w| {
            serde_json::to_writer_pretty(w, &self.json()).map_err(std::io::Error::other)
        })
    }

    /// The best sweep setting of each file (and of `all`), in the rows' order: the row with
    /// the highest rate, the first of equals.
    pub fn best(&self) -> Vec<(&str, &Row)> {
        let swept = |r: &&Row| r.group != Group::D && r.role == Role::Sweep;
        let mut best: Vec<(&str, &Row)> = Vec::new();
        for r in self.rows.iter().filter(swept) {
            match best.iter_mut().find(|(l, _)| *l == r.label) {
                Some((_, b)) if b.solved_pct() >= r.solved_pct() => {}
                Some((_, b)) => *b = r,
                None => best.push((&r.label, r)),
            }
        }
        best
    }

    /// The reports are written: the journal goes.
    pub fn finish(mut self) -> Result<()> {
        match self.journal.take() {
            Some(j) => j.finish(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::Values;

    fn request() -> Request {
        let file = crate::puzzle::read_puzzles("puzzles/classic.txt", None).unwrap();
        let mut spec = SweepSpec::default();
        spec.values
            .insert(Param::Sr, Values::Range(vec![0.0, 10.0, 20.0]));
        spec.values.insert(Param::Steps, Values::One(30.0));
        let mut r = Request::new(vec![file], spec, IlcaParams::default());
        r.runs = 2;
        r.chunk = 2;
        r
    }

    #[test]
    fn a_sweep_without_a_csv_returns_its_rows() {
        let r = request();
        let plan = Plan::new(&r, r.settings().unwrap()).unwrap();
        assert_eq!((plan.settings_mine(), plan.block(&Device::Cpu)), (3, 2));
        let report = run(
            &plan,
            &[Device::Cpu],
            &Keep::default(),
            &super::super::Quiet,
        )
        .unwrap();
        // Per setting: the file's row and its d bins; settings in order.
        assert_eq!(report.rows.len(), report.setting.len());
        assert!(report.setting.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(report.setting.last(), Some(&2));
        let json = report.json();
        assert_eq!(json["params"]["swept"], "sr");
        assert_eq!(json["rows"].as_array().unwrap().len(), report.rows.len());
        let best = report.best();
        assert_eq!(best.len(), 1);
        assert_eq!(best[0].0, "classic");
        report.finish().unwrap();
    }

    #[test]
    fn a_resume_needs_a_csv_and_its_journal() {
        let keep = Keep {
            resume: true,
            ..Keep::default()
        };
        assert!(check_resume(&keep)
            .unwrap_err()
            .to_string()
            .contains("--csv"));
    }
}

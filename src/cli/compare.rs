//! `gpu-sudoku compare FILE... --algos …`: the classic baselines, ILCA and RFSS (CPU) side by
//! side on the same puzzles: per algorithm × file the solved %, its 95% interval, the
//! time-to-solution, the time per attempt and the iterations; `--json`/`--csv` hold every
//! attempt.
//!
//! Algorithm names: the baselines' (`backtrack`, `mrv`, `exact`, `astar…`, `ga…`, `sa`, `hc`, `acs…`),
//! `ilca` (the `--preset` and ILCA options, Algorithm 1 by default), `ilca-PRESET` (a preset by
//! name, e.g. `ilca-table6`, `ilca-improved`), `rfss` (plain), `rfss-propagate`, `rfss-mrv`,
//! `rfss-logic`, `rfss-lookahead` (the labelled enhancements).

use super::args::InputArgs;
use super::args::{choice, print_table, ReportArgs};
use super::ilca_args::preset_parser;
use anyhow::{bail, Context, Result};
use gpu_sudoku::backend::Device;
use gpu_sudoku::baselines::{self, Budget};
use gpu_sudoku::choice::Choice;
use gpu_sudoku::ilca::presets::{self, Preset};
use gpu_sudoku::ilca::{self, Batch, IlcaParams, Instance, Prune};
use gpu_sudoku::job::journal::{ChunkReader, Journal, Span};
use gpu_sudoku::puzzle::Grid;
use gpu_sudoku::report::batch::csv_field;
use gpu_sudoku::report::schema::{provenance_here, InputInfo, SCHEMA};
use gpu_sudoku::report::stats::{median_tts99, tts99, wilson95, Tts};
use gpu_sudoku::rfss::{self, Enhancement, RfssParams};
use gpu_sudoku::shard::{self, Shard};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle files, in any format `batch` reads (one puzzle per line, integer rows, blocks,
    /// CSV, gzip); `-` reads standard input. The file name without directory and extension
    /// (and `.gz`) labels its rows, so the names must differ.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Comma-separated algorithms: backtrack, mrv, exact (the project's exact solver), astar,
    /// astar-small, astar-big, astar-weighted, ga, ga-SELECTION-CROSSOVER-MUTATION, sa, hc, acs
    /// (ant colony system, Lloyd & Amos), acs-q0-Q (another greedy probability), ilca,
    /// ilca-PRESET (e.g. ilca-table6), rfss, rfss-propagate, rfss-mrv, rfss-logic,
    /// rfss-lookahead.
    #[arg(long, default_value = "backtrack,mrv,astar,ga,sa,hc,ilca,rfss")]
    pub algos: String,
    /// Attempts per puzzle (stochastic algorithms get a different seed per attempt; RFSS and
    /// the searches repeat their one run, timed again: no TTS99, and their intervals count a
    /// puzzle once where its runs agree).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Wall-clock budget per attempt in milliseconds for the baselines (ILCA and RFSS stop on
    /// their step limits only; MRV on its node limit only). 0 = no time limit.
    #[arg(long, default_value_t = 2000)]
    pub budget_ms: u64,
    /// Iteration limit per attempt (nodes, trials, generations or steps); it replaces the step
    /// limit of every ILCA setting and the generation limit of RFSS (100000) when given.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_iterations: Option<u64>,
    /// Seed of every stochastic algorithm. Its default 0 is not `batch`'s, `trace`'s or
    /// `sweep`'s (1): with `--seed 1` the `ilca` entries run exactly `batch`'s instances.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub input: InputArgs,
    /// The ILCA setting of the `ilca` entry (the paper's Algorithm 1 by default); other
    /// presets run side by side as `ilca-PRESET` entries of --algos.
    #[arg(long, value_parser = preset_parser(), value_name = "NAME")]
    pub preset: Option<&'static Preset>,
    /// NOT IN THE PAPER: `singles` places every naked and hidden single before each ILCA entry
    /// (`ilca`, `ilca-PRESET`) starts, `logic` also what locked candidates and naked and hidden
    /// subsets fix; `off` for none [default: each entry's preset's, off but for `pruned`
    /// (singles), `pruned-logic` and `shared` (logic)].
    #[arg(long, value_parser = choice::<Prune>())]
    pub prune: Option<Prune>,
    /// NOT IN THE PAPER: resource sharing for every ILCA entry (`ilca`, `ilca-PRESET`), as
    /// `batch --share`: 0 (off) or a number up to 1000 [default: each entry's preset's, 0 but for
    /// `shared` (0.05)].
    #[arg(long, allow_hyphen_values = true)]
    pub share: Option<f64>,
    /// The enhanced RFSS entries (`rfss-propagate`, `rfss-mrv`, `rfss-logic`,
    /// `rfss-lookahead`): generations an invalid read-off must stay unchanged before a decision,
    /// as `batch --stall-generations` [default: 300].
    #[arg(long, value_name = "N")]
    pub stall_generations: Option<u32>,
    #[command(flatten)]
    pub reports: ReportArgs,
    /// Run only shard K of N (0 ≤ K < N) of the (file, algorithm, puzzle, run) attempts;
    /// `gpu-sudoku merge` joins the N reports.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Finish the run a killed `compare` with the same options left in the journal beside
    /// --json (or --csv).
    #[arg(long)]
    pub resume: bool,
    /// Attempts per chunk: the unit of the journal (a killed run loses at most one chunk).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk: u32,
}

/// One algorithm on one file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub file: String,
    pub algo: String,
    /// What an iteration is (nodes, trials, generations, steps).
    pub unit: String,
    pub puzzles: usize,
    pub runs: usize,
    pub attempts: usize,
    pub solved: usize,
    pub solved_pct: f64,
    /// Wilson 95% interval of `solved_pct`, in percent.
    pub solved_pct_95: Option<[f64; 2]>,
    /// Time to solution at 99% confidence, in iterations (docs: report::stats).
    pub tts99: Option<Tts>,
    /// TTS99 in seconds: TTS99 iterations at the mean time per iteration of the attempts.
    pub tts99_s: Option<f64>,
    /// The median over the file's puzzles of each puzzle's own TTS99, in iterations (a puzzle
    /// no attempt solved counts as infinite; docs: report::stats), and in seconds as `tts99_s`.
    pub tts99_puzzle_median: Option<f64>,
    pub tts99_puzzle_median_s: Option<f64>,
    pub median_ms: f64,
    pub mean_ms: f64,
    pub median_iterations: f64,
    pub mean_iterations: f64,
}

/// One attempt, as the CSV and the JSON record it.
#[derive(Clone, Debug, Serialize, Deserialize)]
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

/// What a row needs of one attempt. A compare run holds these (32 bytes each; making a row
/// about as much again) until its rows are made, not the records: those wait in the journal
/// until the reports are written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttemptOutcome {
    pub puzzle: usize,
    pub solved: bool,
    pub iterations: u64,
    pub seconds: f64,
}

impl From<&AttemptRecord> for AttemptOutcome {
    fn from(r: &AttemptRecord) -> AttemptOutcome {
        AttemptOutcome {
            puzzle: r.puzzle,
            solved: r.solved,
            iterations: r.iterations,
            seconds: r.seconds,
        }
    }
}

/// The attempts of a report, visited in order: held (`merge`) or read back from the journal
/// (`compare`).
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
/// order, read back one at a time while the reports are written.
struct Journaled {
    reader: Option<ChunkReader>,
    spans: Vec<Span>,
}

impl Attempts for Journaled {
    fn each(
        &self,
        visit: &mut dyn FnMut(&AttemptRecord) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let Some(reader) = &self.reader else {
            return Ok(()); // no report asked for: nothing was kept
        };
        reader.read(&self.spans, |c: ChunkDone| {
            c.records.iter().try_for_each(&mut *visit)
        })
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

/// The JSON report (`merge` reads it back with the attempts held).
#[derive(Serialize, Deserialize)]
pub struct Report<A = Vec<AttemptRecord>> {
    pub tool: String,
    pub version: String,
    pub schema: u32,
    pub command: Vec<String>,
    pub params: Params,
    /// Every input file, hashed.
    pub inputs: Vec<InputInfo>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub shard: Option<Shard>,
    pub provenance: serde_json::Value,
    pub rows: Vec<Row>,
    pub attempts: A,
}

/// One finished chunk of a (file, algorithm) group's attempts, as the journal holds it.
#[derive(Serialize, Deserialize)]
struct ChunkDone {
    group: usize,
    start: usize,
    end: usize,
    records: Vec<AttemptRecord>,
}

/// Whether a chunk read back from a journal is what this run would have made there: one record
/// per attempt in order ([`gpu_sudoku::job::journal::check_items`]) of the group's file and algorithm, a
/// non-negative time. (Hand-edited or damaged records were counted: a missing one, a negative
/// time, a puzzle beyond the file.)
fn check_resumed(
    c: &ChunkDone,
    files: &[gpu_sudoku::puzzle::PuzzleFile],
    algos: &[Algo],
    runs: usize,
) -> std::result::Result<(), String> {
    let (fi, ai) = (c.group / algos.len().max(1), c.group % algos.len().max(1));
    let (Some(file), Some(algo)) = (files.get(fi), algos.get(ai)) else {
        return Err(format!("group {} does not exist", c.group));
    };
    let held: Vec<(usize, usize)> = c.records.iter().map(|r| (r.puzzle, r.run)).collect();
    let items = c.start..c.end;
    gpu_sudoku::job::journal::check_items(
        items.clone(),
        runs,
        file.puzzles.len(),
        &held,
        "attempt",
    )?;
    for (i, r) in items.zip(&c.records) {
        if r.algo != algo.name() {
            return Err(format!(
                "attempt {i} holds {} puzzle {} run {}, not {}",
                r.algo,
                r.puzzle,
                r.run,
                algo.name()
            ));
        }
        gpu_sudoku::job::journal::check_seconds(r.seconds)
            .map_err(|why| format!("attempt {i}: {why}"))?;
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub algos: Vec<String>,
    pub seed: u64,
    pub runs: usize,
    pub budget_ms: u64,
    pub max_iterations: Option<u64>,
    /// The parameters of each ILCA and RFSS entry of `algos`, by name.
    pub settings: std::collections::BTreeMap<String, serde_json::Value>,
}

impl Params {
    /// The parameters entry `algo` ran with, by name: an ILCA or RFSS entry's `settings`; for
    /// a baseline the run's `budget_ms`, `max_iterations` and `seed` (its limits and seed).
    pub fn of_entry(&self, algo: &str) -> serde_json::Map<String, serde_json::Value> {
        match self.settings.get(algo) {
            Some(serde_json::Value::Object(m)) => m.clone(),
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
    /// columns, each already `,`-prefixed and CSV-quoted (empty where the entry has no such
    /// parameter, or it is unset).
    pub fn csv_columns(&self) -> (Vec<String>, std::collections::BTreeMap<String, String>) {
        let entries: Vec<(&String, serde_json::Map<String, serde_json::Value>)> = self
            .algos
            .iter()
            .map(|algo| (algo, self.of_entry(algo)))
            .collect();
        let names: std::collections::BTreeSet<&String> =
            entries.iter().flat_map(|(_, m)| m.keys()).collect();
        let values = entries
            .iter()
            .map(|(algo, m)| {
                let cells: String = names
                    .iter()
                    .map(|name| {
                        let v = match m.get(name.as_str()) {
                            None | Some(serde_json::Value::Null) => String::new(),
                            Some(serde_json::Value::String(s)) => s.clone(),
                            Some(other) => other.to_string(),
                        };
                        format!(",{}", csv_field(&v))
                    })
                    .collect();
                (algo.to_string(), cells)
            })
            .collect();
        (names.into_iter().cloned().collect(), values)
    }
}

/// (solved, iterations, wall time) of one attempt.
type Outcome = (bool, u64, Duration);

enum Algo {
    Baseline(String),
    Ilca(String, IlcaParams),
    Rfss(String, RfssParams),
}

impl Algo {
    fn name(&self) -> &str {
        match self {
            Algo::Baseline(n) | Algo::Ilca(n, _) | Algo::Rfss(n, _) => n,
        }
    }
}

fn parse_algos(
    s: &str,
    ilca: &IlcaParams,
    (prune, share): (Option<Prune>, Option<f64>),
    rfss: &RfssParams,
) -> Result<Vec<Algo>> {
    let mut out = Vec::new();
    for name in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        let algo = if name == "ilca" {
            Algo::Ilca(name.into(), ilca.clone())
        } else if let Some(p) = name.strip_prefix("ilca-") {
            let Some(preset) = presets::by_name(p) else {
                bail!(
                    "--algos: no ILCA preset `{p}`; presets: {}",
                    presets::PRESETS
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            };
            let params = preset.params();
            let params = IlcaParams {
                seed: ilca.seed,
                prune: prune.unwrap_or(params.prune),
                share: share.unwrap_or(params.share),
                ..params
            };
            Algo::Ilca(name.into(), params)
        } else if name == "rfss" {
            Algo::Rfss(name.into(), rfss.clone())
        } else if let Some(e) = name.strip_prefix("rfss-") {
            let Some(enhancement) = Enhancement::from_name(e).filter(|e| *e != Enhancement::Off)
            else {
                bail!(
                    "--algos: `{name}`: RFSS variants are rfss-propagate, rfss-mrv, rfss-logic \
                     and rfss-lookahead"
                );
            };
            Algo::Rfss(
                name.into(),
                RfssParams {
                    enhancement,
                    ..rfss.clone()
                },
            )
        } else {
            // Validates the name (and GA combination) now, before any work.
            if name != "astar-weighted" {
                if let Err(e) = baselines::by_name(name, &[]) {
                    bail!(
                        "--algos: {e}; and ilca, ilca-PRESET, rfss, rfss-propagate, rfss-mrv, \
                         rfss-logic, rfss-lookahead"
                    );
                }
            }
            Algo::Baseline(name.into())
        };
        if out.iter().any(|a: &Algo| a.name() == algo.name()) {
            bail!("--algos names `{name}` twice");
        }
        out.push(algo);
    }
    if out.is_empty() {
        bail!("--algos is empty; give a comma-separated list such as backtrack,mrv,ilca");
    }
    Ok(out)
}

/// Two names of one setting (`ilca` and `ilca-alg1`, two presets that differ only in the
/// step limit `--max-iterations` replaces, or `acs` and `acs-q0-0.9`) would run it twice as two
/// rows: refused.
fn refuse_one_setting_twice(algos: &[Algo]) -> Result<()> {
    let setting = |a: &Algo| match a {
        Algo::Baseline(name) => baselines::setting_of(name)
            .ok()
            .map(|s| serde_json::json!({ "baseline": s })),
        Algo::Ilca(_, p) => serde_json::to_value(p).ok(),
        Algo::Rfss(_, p) => serde_json::to_value(p)
            .ok()
            .map(|v| serde_json::json!({ "rfss": v })),
    };
    for (i, later) in algos.iter().enumerate() {
        let Some(v) = setting(later) else { continue };
        if let Some(same) = algos[..i].iter().find(|a| setting(a).as_ref() == Some(&v)) {
            bail!(
                "--algos: `{}` and `{}` are one setting here; name it once",
                same.name(),
                later.name()
            );
        }
    }
    Ok(())
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// Does the `compare` entry `algo` ignore the seed (RFSS and the searches), so that every run
/// of a puzzle repeats its first, timed again?
pub fn ignores_seed(algo: &str) -> bool {
    algo == "rfss" || algo.starts_with("rfss-") || baselines::ignores_seed(algo)
}

/// The row of one algorithm on one file, from its attempts' records (in (puzzle, run) order).
/// An entry that [`ignores_seed`] repeats its run of a puzzle, so its runs are not independent
/// tries: it gets no TTS99, and its 95% interval counts a puzzle once where all its runs agree
/// on solved or not (a wall-clock budget can stop them at different points; a puzzle whose
/// runs disagree counts each).
pub fn row(file: &str, algo: &str, unit: &str, runs: usize, attempts: &[AttemptOutcome]) -> Row {
    let r = attempts;
    let solved = r.iter().filter(|x| x.solved).count();
    let repeats = ignores_seed(algo);
    let (trials, successes) = if repeats {
        let (mut trials, mut successes) = (0, 0);
        for puzzle in r.chunk_by(|x, y| x.puzzle == y.puzzle) {
            if puzzle.iter().all(|x| x.solved == puzzle[0].solved) {
                trials += 1;
                successes += usize::from(puzzle[0].solved);
            } else {
                trials += puzzle.len();
                successes += puzzle.iter().filter(|x| x.solved).count();
            }
        }
        (trials, successes)
    } else {
        (r.len(), solved)
    };
    let mut ms: Vec<f64> = r.iter().map(|x| x.seconds * 1e3).collect();
    let mut it: Vec<f64> = r.iter().map(|x| x.iterations as f64).collect();
    let n = r.len().max(1) as f64;
    let solved_at: Vec<u32> = r
        .iter()
        .filter(|x| x.solved)
        .map(|x| x.iterations.min(u32::MAX as u64) as u32)
        .collect();
    let tts = tts99(&solved_at, r.len()).filter(|_| !repeats);
    // Each puzzle's runs, wherever they sit among the attempts.
    let mut by_puzzle: BTreeMap<usize, (usize, Vec<u32>)> = BTreeMap::new();
    for x in r {
        let e = by_puzzle.entry(x.puzzle).or_default();
        e.0 += 1;
        if x.solved {
            e.1.push(x.iterations.min(u32::MAX as u64) as u32);
        }
    }
    let per_puzzle = median_tts99(
        by_puzzle
            .values()
            .map(|(runs, at)| (*runs, tts99(at, *runs))),
    )
    .filter(|_| !repeats);
    let iterations: f64 = it.iter().sum();
    let seconds: f64 = ms.iter().sum::<f64>() / 1e3;
    let mut puzzles: Vec<usize> = r.iter().map(|x| x.puzzle).collect();
    puzzles.sort_unstable();
    puzzles.dedup();
    Row {
        file: file.to_string(),
        algo: algo.to_string(),
        unit: unit.to_string(),
        puzzles: puzzles.len(),
        runs,
        attempts: r.len(),
        solved,
        solved_pct: 100.0 * solved as f64 / n,
        solved_pct_95: wilson95(successes, trials).map(|(lo, hi)| [100.0 * lo, 100.0 * hi]),
        tts99: tts,
        tts99_s: tts
            .filter(|_| iterations > 0.0)
            .map(|t| t.steps * seconds / iterations),
        tts99_puzzle_median: per_puzzle,
        tts99_puzzle_median_s: per_puzzle
            .filter(|_| iterations > 0.0)
            .map(|t| t * seconds / iterations),
        mean_ms: ms.iter().sum::<f64>() / n,
        median_ms: median(&mut ms),
        mean_iterations: iterations / n,
        median_iterations: median(&mut it),
    }
}

pub fn run(a: Args) -> Result<ExitCode> {
    let started = std::time::SystemTime::now();
    if a.budget_ms == 0 && a.max_iterations.is_none() {
        bail!("give a time budget (--budget-ms) or --max-iterations: local search may never end");
    }
    let runs = a.runs as usize;
    let budget = Budget {
        max_iterations: a.max_iterations,
        max_time: (a.budget_ms > 0).then(|| Duration::from_millis(a.budget_ms)),
    };
    let limit = |what: &str| -> Result<Option<u32>> {
        a.max_iterations
            .map(|m| {
                u32::try_from(m).map_err(|_| {
                    anyhow::anyhow!(
                        "--max-iterations {m} is too large for {what} (at most {})",
                        u32::MAX
                    )
                })
            })
            .transpose()
    };
    let ilca_steps = limit("ILCA steps")?;
    let ilca = a.preset.map_or_else(IlcaParams::default, Preset::params);
    let ilca = IlcaParams {
        seed: a.seed,
        prune: a.prune.unwrap_or(ilca.prune),
        share: a.share.unwrap_or(ilca.share),
        ..ilca
    };
    let rfss_params = RfssParams {
        max_generations: limit("RFSS generations")?
            .unwrap_or(RfssParams::default().max_generations),
        ..RfssParams::default()
    };
    let mut algos = parse_algos(&a.algos, &ilca, (a.prune, a.share), &rfss_params)?;
    if a.stall_generations.is_some()
        && !algos
            .iter()
            .any(|x| matches!(x, Algo::Rfss(_, p) if p.enhancement != Enhancement::Off))
    {
        bail!(
            "--stall-generations applies to the enhanced RFSS entries only (rfss-propagate, \
             rfss-mrv, rfss-logic, rfss-lookahead), and --algos has none: add one or leave the \
             option out"
        );
    }
    // ILCA options with no ILCA entry to take them would be dropped without a word.
    let has_ilca = algos.iter().any(|x| matches!(x, Algo::Ilca(..)));
    for (flag, given) in [
        ("--share", a.share.is_some()),
        ("--prune", a.prune.is_some()),
    ] {
        if given && !has_ilca {
            bail!(
                "{flag} applies to the ILCA entries only (ilca, ilca-PRESET), and --algos has \
                 none: add one or leave the option out"
            );
        }
    }
    if a.preset.is_some() && !algos.iter().any(|x| x.name() == "ilca") {
        bail!(
            "--preset sets the `ilca` entry, and --algos has none (a preset of its own runs as \
             the entry ilca-PRESET): add `ilca` to --algos or leave the option out"
        );
    }
    for algo in &mut algos {
        match algo {
            Algo::Ilca(name, p) => {
                p.steps = ilca_steps.unwrap_or(p.steps);
                // compare has no --sr or --restart: name the entry and the budget that fits.
                for (what, v) in [("selective reset", p.sr), ("restart", p.restart)] {
                    if v > p.steps {
                        bail!(
                            "--algos {name}: its {what} period, {v} steps, is longer than \
                             --max-iterations {}; give --max-iterations {v} or more, or leave the \
                             entry out",
                            p.steps
                        );
                    }
                }
                p.validate()?;
            }
            Algo::Rfss(_, p) => {
                // Only the enhanced entries take decisions, so only they take the stall.
                if p.enhancement != Enhancement::Off {
                    p.stall_generations = a.stall_generations.unwrap_or(p.stall_generations);
                }
                p.validate()?
            }
            Algo::Baseline(_) => {}
        }
    }
    refuse_one_setting_twice(&algos)?;
    let input_paths: Vec<&str> = a.files.iter().map(String::as_str).collect();
    super::args::refuse_stdin_twice(&input_paths)?;
    super::args::refuse_duplicate_labels(&input_paths)?;
    a.reports.check(&input_paths)?;
    let files = a
        .files
        .iter()
        .map(|f| a.input.read(f).map_err(anyhow::Error::from))
        .collect::<Result<Vec<_>>>()?;
    let total: usize = files.iter().map(|f| f.puzzles.len()).sum::<usize>() * runs * algos.len();
    // The outcome of every attempt is held until its row is made (a resumed run holds all it
    // reads back), and the row sorts copies of its times; the records wait on disk, in the
    // journal, until the reports are written.
    gpu_sudoku::limits::check_memory(
        total as u64,
        2 * std::mem::size_of::<AttemptOutcome>() as u64,
        "the outcomes behind the table's rows",
        gpu_sudoku::limits::available_memory(),
        "use fewer --runs, algorithms or puzzles",
    )?;
    // A chunk's records are held whole while it runs and is written (its records, its journal
    // line and the reading back: about 400 bytes per attempt with 9x9 labels, measured before
    // records held their path and line; 40 more for those).
    let label_bytes = files
        .iter()
        .map(|f| f.label().len() + f.path.len())
        .max()
        .unwrap_or(0)
        + algos.iter().map(|x| x.name().len()).max().unwrap_or(0);
    let largest_group = files.iter().map(|f| f.puzzles.len()).max().unwrap_or(0) * runs;
    gpu_sudoku::limits::check_memory(
        (a.chunk as u64).min(largest_group as u64),
        440 + 2 * label_bytes as u64,
        "a chunk of records in flight",
        gpu_sudoku::limits::available_memory(),
        "use a smaller --chunk",
    )?;
    let params = params_of(&a, &algos, runs)?;
    let mut record_bytes = gpu_sudoku::limits::RecordBytes::per_attempt(label_bytes, a.chunk);
    // A CSV row also holds its entry's parameter columns.
    record_bytes.csv += params
        .csv_columns()
        .1
        .values()
        .map(String::len)
        .max()
        .unwrap_or(0) as u64;
    a.reports.check_disk(
        total as u64,
        record_bytes,
        "use fewer --runs, algorithms or puzzles, or split the run with --shard K/N",
    )?;
    // Work items: per file, per algorithm, its puzzle × run attempts (cost: cells × budget).
    let budget_iters = a.max_iterations.unwrap_or(1);
    let mut groups = Vec::new();
    for f in &files {
        for _ in &algos {
            let cells = (f.b as u64).pow(4);
            groups.push((f.puzzles.len() * runs, cells.saturating_mul(budget_iters)));
        }
    }
    let ranges = shard::ranges(&groups, a.shard, "attempts (puzzles × runs × algorithms)")?;
    let input_infos: Vec<InputInfo> = files.iter().map(InputInfo::of_file).collect();
    let chunk = a.chunk as usize;
    // The schema tells a journal of older records (no `path`, `line`) from this run's.
    let header = serde_json::json!({
        "tool": "gpu-sudoku",
        "version": env!("CARGO_PKG_VERSION"),
        "schema": SCHEMA,
        "params": params,
        "inputs": input_infos,
        "shard": a.shard,
        "chunk": chunk,
    });
    // Chunks a resumed journal holds, by (group, first attempt): where they lie, their outcomes.
    let mut done: std::collections::HashMap<(usize, usize), Kept> = Default::default();
    let keep = gpu_sudoku::job::Keep::for_reports(&a.reports.paths(), a.resume);
    let mut journal =
        keep.open::<ChunkDone>(&header, &super::progress::bar_events(), |span, c| {
            check_resumed(&c, &files, &algos, runs)
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
    let pb = super::progress::bar(ranges.iter().map(|r| r.len()).sum(), "compare");
    let tick = || pb.inc(1);
    let mut rows = Vec::new();
    let mut spans = Vec::new();
    for (fi, file) in files.iter().enumerate() {
        let grids: Vec<Grid> = file.puzzles.iter().map(|p| p.grid.clone()).collect();
        let label = file.label();
        let lines: Vec<usize> = file.puzzles.iter().map(|p| p.line).collect();
        let on_file = OnFile {
            label: &label,
            path: &file.path,
            lines: &lines,
        };
        for (ai, algo) in algos.iter().enumerate() {
            let group = fi * algos.len() + ai;
            let mut outcomes = Vec::with_capacity(ranges[group].len());
            let mut unit = String::new();
            let mut start = ranges[group].start;
            while start < ranges[group].end {
                let end = (start + chunk).min(ranges[group].end);
                let kept = match done.remove(&(group, start)) {
                    Some(k) if k.end == end => {
                        pb.inc((end - start) as u64);
                        k
                    }
                    _ => {
                        let c = ChunkDone {
                            group,
                            start,
                            end,
                            records: run_attempts(
                                algo,
                                &grids,
                                &on_file,
                                runs,
                                start..end,
                                a.seed,
                                &budget,
                                &tick,
                            )?,
                        };
                        let span = journal.as_mut().map(|j| j.append(&c)).transpose()?;
                        Kept::of(&c, span)
                    }
                };
                outcomes.extend(kept.outcomes);
                spans.extend(kept.span);
                if unit.is_empty() {
                    unit = kept.unit;
                }
                start = end;
            }
            if !outcomes.is_empty() {
                rows.push(row(&label, algo.name(), &unit, runs, &outcomes));
            }
        }
    }
    pb.finish_and_clear();
    print_table(&a.reports, &table(&rows));
    let report = Report {
        tool: "gpu-sudoku".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        schema: SCHEMA,
        command: std::env::args().collect(),
        params,
        inputs: input_infos,
        shard: a.shard,
        provenance: provenance_here(started),
        rows,
        attempts: Journaled {
            reader: journal.as_ref().map(Journal::reader),
            spans,
        },
    };
    write_reports(&a.reports, &report)?;
    if let Some(j) = journal {
        j.finish()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The CSV's first columns (`param_…` columns follow, one per parameter of any entry).
pub const CSV_HEAD: &str = "algo,file,puzzle,run,solved,iterations,unit,seconds,path,line";

/// Writes the JSON and CSV reports asked for, reading the attempts as they go out: the CSV has
/// one row per attempt, [`CSV_HEAD`] then every entry parameter as `param_NAME` (empty in the
/// rows of an entry without it).
pub fn write_reports<A: Attempts>(reports: &ReportArgs, report: &Report<A>) -> Result<()> {
    reports.write_streamed(
        |w| {
            serde_json::to_writer_pretty(&mut *w, report).map_err(std::io::Error::other)?;
            w.write_all(b"\n")
        },
        |w| {
            // The first eight columns as they always were, then the puzzle's file and line (to
            // join with other reports of the same puzzles) and each entry's parameters.
            let (names, values) = report.params.csv_columns();
            let mut head = String::from(CSV_HEAD);
            for name in &names {
                head.push_str(",param_");
                head.push_str(name);
            }
            writeln!(w, "{head}")?;
            // An entry missing from `params` (a report edited by hand): its columns empty.
            let blank = ",".repeat(names.len());
            report.attempts.each(&mut |r| {
                writeln!(
                    w,
                    "{},{},{},{},{},{},{},{},{},{}{}",
                    csv_field(&r.algo),
                    csv_field(&r.file),
                    r.puzzle,
                    r.run,
                    r.solved,
                    r.iterations,
                    r.unit,
                    r.seconds,
                    csv_field(&r.path),
                    r.line,
                    values.get(&r.algo).unwrap_or(&blank)
                )
            })
        },
    )
}

/// The parameters of a compare run (what every shard of it must share).
fn params_of(a: &Args, algos: &[Algo], runs: usize) -> Result<Params> {
    let settings = algos
        .iter()
        .filter_map(|algo| {
            let v = match algo {
                Algo::Baseline(_) => return None,
                Algo::Ilca(_, p) => serde_json::to_value(p),
                Algo::Rfss(_, p) => serde_json::to_value(p),
            };
            Some(v.map(|v| (algo.name().to_string(), v)))
        })
        .collect::<Result<_, _>>()?;
    Ok(Params {
        algos: algos.iter().map(|x| x.name().to_string()).collect(),
        seed: a.seed,
        runs,
        budget_ms: a.budget_ms,
        max_iterations: a.max_iterations,
        settings,
    })
}

/// The file a group of attempts is on: its label, its path as given and each puzzle's line.
struct OnFile<'a> {
    label: &'a str,
    path: &'a str,
    lines: &'a [usize],
}

/// Attempts `items` of `algo` on `grids` (item i: puzzle i / runs, run i % runs), each timed
/// alone.
#[allow(clippy::too_many_arguments)]
fn run_attempts(
    algo: &Algo,
    grids: &[Grid],
    file: &OnFile,
    runs: usize,
    items: std::ops::Range<usize>,
    seed: u64,
    budget: &Budget,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<AttemptRecord>> {
    let (unit, outcomes): (String, Vec<Outcome>) = match algo {
        Algo::Baseline(name) => {
            let b = baselines::by_name(name, grids)?;
            let r =
                baselines::run_attempts(b.as_ref(), grids, runs, items.clone(), seed, budget, tick)
                    .into_iter()
                    .map(|x| (x.solved, x.iterations, x.elapsed))
                    .collect();
            (b.unit().to_string(), r)
        }
        // Each attempt runs alone through the CPU runner, so that it is timed alone.
        Algo::Ilca(_, params) => {
            let r = items
                .clone()
                .into_par_iter()
                .map(|i| {
                    let t = Instant::now();
                    let batch = Batch {
                        puzzles: grids,
                        settings: std::slice::from_ref(params),
                        instances: vec![Instance {
                            setting: 0,
                            puzzle: i / runs,
                            run: i % runs,
                        }],
                    };
                    let res = ilca::run::run(&Device::Cpu, &batch, &|_| {})?.remove(0);
                    tick();
                    Ok((res.solved, res.steps as u64, t.elapsed()))
                })
                .collect::<Result<Vec<_>>>()?;
            ("steps".into(), r)
        }
        // RFSS is deterministic: every run of a puzzle is the same run, timed again.
        Algo::Rfss(_, params) => {
            let r = items
                .clone()
                .into_par_iter()
                .map(|i| {
                    let p = i / runs;
                    let t = Instant::now();
                    let o = rfss::run::run(
                        &Device::Cpu,
                        std::slice::from_ref(&grids[p]),
                        params,
                        &|_| {},
                    )?
                    .remove(0);
                    let res = o.to_instance_result(p);
                    tick();
                    Ok((res.solved, res.steps as u64, t.elapsed()))
                })
                .collect::<Result<Vec<_>>>()?;
            ("generations".into(), r)
        }
    };
    Ok(items
        .zip(outcomes)
        .map(|(i, o)| AttemptRecord {
            algo: algo.name().into(),
            file: file.label.into(),
            path: file.path.into(),
            puzzle: i / runs,
            line: file.lines[i / runs],
            run: i % runs,
            solved: o.0,
            iterations: o.1,
            unit: unit.clone(),
            seconds: o.2.as_secs_f64(),
        })
        .collect())
}

pub fn table(rows: &[Row]) -> String {
    let mut t = format!(
        "{:<24} {:<22} {:>8} {:>8} {:>13} {:>11} {:>13} {:>11} {:>11} {:>11} {:<11}\n",
        "file",
        "algorithm",
        "attempts",
        "solved%",
        "95% interval",
        "TTS99 iter",
        "TTS99/puzzle",
        "median ms",
        "mean ms",
        "median iter",
        "unit"
    );
    for r in rows {
        t += &format!(
            "{:<24} {:<22} {:>8} {:>8.1} {:>13} {:>11} {:>13} {:>11.3} {:>11.3} {:>11} {:<11}\n",
            r.file,
            r.algo,
            r.attempts,
            r.solved_pct,
            r.solved_pct_95
                .map_or("-".into(), |[lo, hi]| format!("{lo:.1}–{hi:.1}%")),
            r.tts99.map_or("-".into(), |t| format!("{:.0}", t.steps)),
            r.tts99_puzzle_median
                .map_or("-".into(), |t| format!("{t:.0}")),
            r.median_ms,
            r.mean_ms,
            r.median_iterations,
            r.unit
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcomes(o: &[(usize, bool, u64)]) -> Vec<AttemptOutcome> {
        o.iter()
            .map(|&(puzzle, solved, iterations)| AttemptOutcome {
                puzzle,
                solved,
                iterations,
                seconds: 0.001,
            })
            .collect()
    }

    #[test]
    fn entries_that_ignore_the_seed_count_puzzles_and_have_no_tts() {
        // Two puzzles × 3 runs; the first solved at 10 every time, the second never.
        let o = [
            (0, true, 10),
            (0, true, 10),
            (0, true, 10),
            (1, false, 50),
            (1, false, 50),
            (1, false, 50),
        ];
        let random = row("f", "sa", "steps", 3, &outcomes(&o));
        let search = row("f", "mrv", "nodes", 3, &outcomes(&o));
        for r in [&random, &search] {
            assert_eq!((r.attempts, r.solved, r.solved_pct), (6, 3, 50.0));
        }
        // sa: 3 of 6 independent runs; p(10) = 1/2 → 10·ln 0.01/ln 0.5 = 66.4 steps.
        let [lo, hi] = random.solved_pct_95.unwrap();
        let (l, h) = wilson95(3, 6).unwrap();
        assert_eq!((lo, hi), (100.0 * l, 100.0 * h));
        assert!((random.tts99.unwrap().steps - 66.44).abs() < 0.01);
        // Per puzzle: 10 (all three at 10) and infinite, so no median of two; with a third
        // puzzle solved in one of its three runs at 20 (20·ln 0.01/ln(2/3) = 227.1), the median
        // is that puzzle's.
        assert_eq!(random.tts99_puzzle_median, None);
        let mut three = o.to_vec();
        three.extend([(2, true, 20), (2, false, 50), (2, false, 50)]);
        let r3 = row("f", "sa", "steps", 3, &outcomes(&three));
        let want = 20.0 * 0.01f64.ln() / (2.0f64 / 3.0).ln();
        assert!((r3.tts99_puzzle_median.unwrap() - want).abs() < 1e-9);
        let per_iteration = 0.009 / r3.mean_iterations / 9.0;
        assert!((r3.tts99_puzzle_median_s.unwrap() - want * per_iteration).abs() < 1e-12);
        assert!(table(std::slice::from_ref(&r3)).contains(" 227 "));
        // Attempts of a puzzle need not sit together; one run per puzzle gives no median.
        let mut shuffled = outcomes(&three);
        shuffled.rotate_left(4);
        let again = row("f", "sa", "steps", 3, &shuffled).tts99_puzzle_median;
        assert_eq!(again, r3.tts99_puzzle_median);
        let single = row(
            "f",
            "sa",
            "steps",
            1,
            &outcomes(&[(0, true, 5), (1, true, 9)]),
        );
        assert_eq!(single.tts99_puzzle_median, None);
        // mrv: 1 of 2 puzzles, no TTS99.
        let (l, h) = wilson95(1, 2).unwrap();
        assert_eq!(search.solved_pct_95.unwrap(), [100.0 * l, 100.0 * h]);
        assert!(search.tts99.is_none() && search.tts99_s.is_none());
        assert!(search.tts99_puzzle_median.is_none());
        // A time budget stopped the search's runs at different points: a puzzle whose runs
        // disagree counts each (puzzle 0: 1 of 2), one whose runs agree counts once (puzzle 1:
        // unsolved twice, with other node counts); still no TTS99.
        let timed = [(0, true, 10), (0, false, 7), (1, false, 50), (1, false, 40)];
        let t = row("f", "astar", "nodes", 2, &outcomes(&timed));
        let (l, h) = wilson95(1, 3).unwrap();
        assert_eq!(t.solved_pct_95.unwrap(), [100.0 * l, 100.0 * h]);
        assert!(t.tts99.is_none());
        assert!(ignores_seed("rfss-mrv") && ignores_seed("exact") && !ignores_seed("ilca-pruned"));
        assert!(!ignores_seed("acs") && !ignores_seed("ga"));
    }
}

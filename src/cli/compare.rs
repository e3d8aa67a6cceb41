//! `gpu-sudoku compare FILE... --algos …`: the classic baselines, ILCA and RFSS (on the CPU, or
//! with `--backend gpu` on a GPU) side by side on the same puzzles: per algorithm × file the
//! solved %, its 95% interval, the time-to-solution, the time per attempt and the iterations;
//! `--json`/`--csv` hold every attempt. Flags → [`compare::Request`] → [`compare::run`] → the
//! table and the reports.
//!
//! Algorithm names: the baselines' (`backtrack`, `mrv`, `exact`, `astar…`, `ga…`, `sa`, `hc`, `acs…`),
//! `ilca` (the `--preset` and ILCA options, Algorithm 1 by default), `ilca-PRESET` (a preset by
//! name, e.g. `ilca-table6`, `ilca-improved`), `rfss` (plain), `rfss-propagate`, `rfss-mrv`,
//! `rfss-logic`, `rfss-lookahead` (the labelled enhancements); the registry is
//! `gpu_sudoku::job::compare::algos`.

use super::args::{choice, DeviceArgs, InputArgs, JobArgs, ReportArgs, TimeLimit};
use super::args::{print_table, refuse_duplicate_labels, refuse_stdin_twice};
use super::ilca_args::preset_parser;
use super::progress::bar_events;
use anyhow::Result;
use gpu_sudoku::backend::Backend;
use gpu_sudoku::ilca::presets::Preset;
use gpu_sudoku::ilca::Prune;
use gpu_sudoku::job::compare::{self, Options, Plan, Request};
use gpu_sudoku::job::Keep;
use gpu_sudoku::puzzle::PuzzleFile;
use std::process::ExitCode;

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
    /// ilca-PRESET (e.g. ilca-table6), ilca:N or ilca-PRESET:N (each attempt a portfolio of N
    /// instances, as `batch --portfolio N`), ilca:N:pull or ilca-PRESET:N:pull (cooperating, as
    /// `batch --pull 0.5 --pull-every 50`), rfss, rfss-propagate, rfss-mrv, rfss-logic,
    /// rfss-lookahead.
    #[arg(long, default_value = compare::DEFAULT_ALGOS)]
    pub algos: String,
    /// Attempts per puzzle (stochastic algorithms get a different seed per attempt; RFSS and
    /// the searches repeat their one run, timed again: no TTS99, and their intervals count a
    /// puzzle once where its runs agree).
    #[arg(long, default_value_t = compare::DEFAULT_RUNS as u32, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Wall-clock budget per attempt for the baselines: 500ms, 20s, 2m (a bare number is
    /// seconds; 0: no time limit). ILCA and RFSS stop on their step limits only; MRV on its node
    /// limit only.
    #[arg(long, default_value_t = TimeLimit::millis(compare::DEFAULT_BUDGET_MS), value_name = "DURATION")]
    pub time_limit: TimeLimit,
    /// The old spelling of --time-limit, in milliseconds (warns).
    #[arg(long, hide = true, conflicts_with = "time_limit", value_name = "MS")]
    pub budget_ms: Option<u64>,
    /// Iteration limit per attempt (nodes, trials, generations or steps); it replaces the step
    /// limit of every ILCA setting and the generation limit of RFSS (100000) when given.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_iterations: Option<u64>,
    /// Seed of every stochastic algorithm.
    #[arg(long, default_value_t = compare::DEFAULT_SEED)]
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
    /// Where the ILCA and RFSS entries run: cpu (one attempt per core at a time), gpu (one
    /// attempt at a time on the GPU, each a batch of its instances, after an untimed warm-up
    /// that compiles the kernels) or auto (a hardware GPU when one opens). Their outcomes are
    /// the same on both; the baselines always run on the CPU.
    #[arg(long, value_parser = choice::<Backend>(), default_value_t = Backend::Cpu)]
    pub backend: Backend,
    /// GPU adapter: index or part of the name from `gpu-sudoku adapters`.
    #[arg(long)]
    pub adapter: Option<String>,
    #[command(flatten)]
    pub reports: ReportArgs,
    #[command(flatten)]
    pub job: JobArgs,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let options = Options {
        seed: a.seed,
        budget_ms: budget_ms(&a),
        max_iterations: a.max_iterations,
        preset: a.preset,
        prune: a.prune,
        share: a.share,
        stall_generations: a.stall_generations,
    };
    let entries = compare::algos::entries(&a.algos, &options)?;
    let device = DeviceArgs {
        backend: a.backend,
        adapter: a.adapter.clone(),
    }
    .open()?;
    let request = Request {
        device,
        runs: a.runs as usize,
        shard: a.job.shard,
        chunk: a.job.chunk(compare::DEFAULT_CHUNK),
        command: std::env::args().collect(),
        ..Request::new(read_files(&a)?, entries, &options)
    };
    let plan = Plan::new(&request)?;
    a.reports.check_disk(
        plan.attempts,
        plan.record_bytes(),
        "use fewer --runs, algorithms or puzzles, or split the run with --shard K/N",
    )?;
    let events = bar_events();
    let keep = Keep::for_reports(&a.reports.paths(), a.job.resume);
    let report = compare::run(&plan, &keep, &events)?;
    events.finish();
    let shard = request.shard.map(|s| s.describe("attempts") + "\n");
    let on_gpu = request.device_line().unwrap_or_default();
    print_table(
        &a.reports,
        &(shard.unwrap_or_default() + &on_gpu + &compare::table(&report.rows)),
    );
    a.reports
        .write_streamed(|w| report.write_json(w), |w| report.write_csv(w))?;
    report.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// The puzzle files, read after their outputs are checked against them: standard input at most
/// once, and labels that tell the files' rows apart.
fn read_files(a: &Args) -> Result<Vec<PuzzleFile>> {
    let paths: Vec<&str> = a.files.iter().map(String::as_str).collect();
    refuse_stdin_twice(&paths)?;
    refuse_duplicate_labels(&paths)?;
    a.input.read_all(&a.files, &a.reports)
}

/// The budget in milliseconds, from --time-limit or the old --budget-ms (which says so).
fn budget_ms(a: &Args) -> u64 {
    match a.budget_ms {
        Some(ms) => {
            errln!(
                "note: --budget-ms is the old spelling of --time-limit: give --time-limit {}",
                TimeLimit::millis(ms)
            );
            ms
        }
        None => a.time_limit.as_millis(),
    }
}

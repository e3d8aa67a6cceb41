//! `gpu-sudoku batch`: flags → [`job::batch::Request`] → [`job::batch::run`] → a table row per
//! file as each finishes (the ILCA paper's Table 2 layout, with the rate's 95% interval and the
//! time-to-solution), and the JSON and CSV reports. When the setting is one of the paper's and
//! the file a shipped paper tier, the paper's rate stands beside the measured one.

use super::args::{print_table, DeviceArgs, InputArgs, JobArgs, ReportArgs};
use super::ilca_args::IlcaArgs;
use super::progress::BarEvents;
use super::rfss_args::RfssArgs;
use anyhow::Result;
use gpu_sudoku::ilca::Pull;
use gpu_sudoku::job::batch::{Algorithm, Plan, Request, DEFAULT_CHUNK, DEFAULT_RUNS, RFSS_NOTE};
use gpu_sudoku::job::batch_table::{heading, paper_note, solution_column_note, Rows};
use gpu_sudoku::job::{self, Events, Keep};
use gpu_sudoku::report::batch::FileResults;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle files (one table row each; `-` reads standard input).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Algorithm: ilca (learning cellular automata) or rfss (resource-defined fitness sharing).
    #[arg(long, value_enum, default_value_t = Algo::Ilca)]
    pub algo: Algo,
    /// Runs per puzzle (independent random streams) [default: 10; 1 with --portfolio]. RFSS is
    /// deterministic: it runs each puzzle once.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: Option<u32>,
    /// ILCA: make each run a portfolio of N instances of the puzzle, solved at the step its
    /// first instance solved (steps count steps of the portfolio, not of its N instances). Not
    /// in the paper (docs/BEYOND.md).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    pub portfolio: Option<u32>,
    /// ILCA: cooperating portfolios (not in the paper; docs/BEYOND.md). Every --pull-every
    /// steps each instance multiplies, in every free cell, its weight of the digit its
    /// portfolio's best instance (fewest conflicted cells) holds there by 1 + ALPHA. 0.5 worked
    /// best in the first measurements.
    #[arg(long, value_name = "ALPHA", requires = "portfolio")]
    pub pull: Option<f64>,
    /// Steps between two pulls (with --pull).
    #[arg(long, value_name = "STEPS", requires = "pull", default_value_t = Pull::default().every)]
    pub pull_every: u32,
    #[command(flatten)]
    pub max_iterations: MaxIterations,
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
    #[command(flatten)]
    pub job: JobArgs,
}

use super::args::{refuse, Algo, MaxIterations};

pub fn run(mut a: Args) -> Result<ExitCode> {
    a.max_iterations.apply(a.algo, &mut a.ilca, &mut a.rfss);
    let algorithm = algorithm(&a)?;
    let portfolio = algorithm.portfolio();
    // Outputs and inputs are checked before any work: a bad file fails before anything runs.
    let files = a.input.inputs(&a.files, &a.reports)?;
    let request = Request {
        files,
        algorithm,
        shard: a.job.shard,
        // A chunk counts runs: with a portfolio, as many instances as the default's.
        chunk: a.job.chunk((DEFAULT_CHUNK / portfolio).max(1)),
        command: std::env::args().collect(),
    };
    let plan = Plan::new(&request)?;
    a.reports.check_disk(
        plan.items,
        plan.record_bytes(),
        "use fewer --runs or puzzles, or split the run with --shard K/N",
    )?;
    let devices = a.device.open_many()?;
    plan.check_memory(devices.len())?;
    let say = |text: &str| print_table(&a.reports, text);
    let rows = Rows::new(&request);
    let events = BarEvents::new(|fi, file: &FileResults| {
        if fi == 0 {
            say(&rows.table.header());
        }
        say(&rows.row(fi, file));
        if let Some(line) = solution_column_note(&rows.labels[fi], file) {
            errln!("{line}");
        }
    });
    let keep = Keep::for_reports(&a.reports.paths(), a.job.resume);
    let head = heading(&request, &devices);
    let headed = Headed {
        events: &events,
        heading: &|| say(&head),
    };
    let report = job::batch::run(&plan, &devices, &keep, &headed)?;
    events.finish();
    super::args::report_usage(&devices, &report.usage);
    if report.files.len() > 1 {
        say(&rows.overall(&report.files));
    }
    if let Some(p) = rows.paper {
        say(&paper_note(&p, &report.files, &rows.tiers));
    }
    a.reports
        .write_streamed(|w| report.write_json(w), |w| report.write_csv(w))?;
    report.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// The job's events, with the line that says what runs where printed once the job has
/// opened (or refused) its journal: a refused resume prints nothing on standard output.
struct Headed<'a, E> {
    events: &'a E,
    heading: &'a (dyn Fn() + Sync),
}

impl<E: Events> Events for Headed<'_, E> {
    fn total(&self, items: u64) {
        (self.heading)();
        self.events.total(items);
    }
    fn label(&self, label: &str) {
        self.events.label(label);
    }
    fn advance(&self, items: u64) {
        self.events.advance(items);
    }
    fn note(&self, line: &str) {
        self.events.note(line);
    }
    fn batch_file(&self, index: usize, file: &FileResults) {
        self.events.batch_file(index, file);
    }
}

/// The algorithm and its parameters the flags give, the other algorithm's flags refused.
fn algorithm(a: &Args) -> Result<Algorithm> {
    Ok(match a.algo {
        Algo::Ilca => {
            a.rfss.refuse_for("ilca")?;
            let params = a.ilca.params()?;
            let portfolio = a.portfolio.map_or(1, |n| n as usize);
            if portfolio > 1 && params.ignores_seed() {
                anyhow::bail!(
                    "--portfolio {portfolio}: --tie first ignores the seed, so every instance of \
                     a portfolio would be the same run"
                );
            }
            let default_runs = if a.portfolio.is_some() {
                1
            } else {
                DEFAULT_RUNS
            };
            let runs = super::ilca_args::runs_per_puzzle(
                &params,
                a.runs.map_or(default_runs, |r| r as usize),
            );
            Algorithm::Ilca {
                preset: a.ilca.preset_name(&params),
                params,
                runs,
                portfolio,
                pull: a.pull.map(|alpha| Pull {
                    every: a.pull_every,
                    alpha,
                }),
            }
        }
        Algo::Rfss => {
            refuse(a.ilca.given(), "ilca", "rfss")?;
            // --pull needs --portfolio (clap checks), so this refuses both.
            if a.portfolio.is_some() {
                anyhow::bail!("--portfolio is for ILCA: RFSS is deterministic, one run a puzzle");
            }
            let params = a.rfss.params()?;
            if a.runs.is_some_and(|r| r > 1) {
                errln!("note: {RFSS_NOTE}");
            }
            Algorithm::Rfss(params)
        }
    })
}

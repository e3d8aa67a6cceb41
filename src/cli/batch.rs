//! `gpu-sudoku batch`: flags → [`job::batch::Request`] → [`job::batch::run`] → a table row per
//! file as each finishes (the ILCA paper's Table 2 layout, with the rate's 95% interval and the
//! time-to-solution), and the JSON and CSV reports. When the setting is one of the paper's and
//! the file a shipped paper tier, the paper's rate stands beside the measured one.

use super::args::{print_table, DeviceArgs, InputArgs, JobArgs, ReportArgs};
use super::ilca_args::{describe, IlcaArgs};
use super::progress::BarEvents;
use super::rfss_args::RfssArgs;
use anyhow::Result;
use gpu_sudoku::backend::Device;
use gpu_sudoku::choice::Choice;
use gpu_sudoku::generate::{paper_tier_of, Tier};
use gpu_sudoku::ilca::presets::{PaperRates, Preset};
use gpu_sudoku::job::batch::{Algorithm, Plan, Request, DEFAULT_CHUNK, DEFAULT_RUNS, RFSS_NOTE};
use gpu_sudoku::job::{self, Keep};
use gpu_sudoku::puzzle::PuzzleFile;
use gpu_sudoku::report::batch::{row_labels, FileResults, Summary, Table};
use std::process::ExitCode;

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
    #[command(flatten)]
    pub job: JobArgs,
}

use super::args::{refuse, Algo};

pub fn run(a: Args) -> Result<ExitCode> {
    let algorithm = algorithm(&a)?;
    // Outputs and inputs are checked before any work: a bad file fails before anything runs.
    let files = a.input.read_all(&a.files, &a.reports)?;
    let request = Request {
        files,
        algorithm,
        shard: a.job.shard,
        chunk: a.job.chunk(DEFAULT_CHUNK),
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
    say(&heading(&request.algorithm, &devices));
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
    let report = job::batch::run(&plan, &devices, &keep, &events)?;
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

/// The algorithm and its parameters the flags give, the other algorithm's flags refused.
fn algorithm(a: &Args) -> Result<Algorithm> {
    Ok(match a.algo {
        Algo::Ilca => {
            a.rfss.refuse_for("ilca")?;
            let params = a.ilca.params()?;
            let runs = super::ilca_args::runs_per_puzzle(
                &params,
                a.runs.map_or(DEFAULT_RUNS, |r| r as usize),
            );
            Algorithm::Ilca {
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
            Algorithm::Rfss(params)
        }
    })
}

/// The line that says what runs where, before the table.
fn heading(algorithm: &Algorithm, devices: &[Device]) -> String {
    let device = &devices[0];
    let adapter = match devices.len() {
        1 => device
            .adapter()
            .map(|a| format!(" ({a})"))
            .unwrap_or_default(),
        n => format!(" ({n} adapters)"),
    };
    match algorithm {
        Algorithm::Ilca {
            params,
            runs,
            preset,
        } => {
            let how_many = match (*runs, params.ignores_seed()) {
                (1, true) => "1 run/puzzle (deterministic)".to_string(),
                (1, false) => "1 run/puzzle".to_string(),
                (n, _) => format!("{n} runs/puzzle"),
            };
            format!(
                "ILCA on {}{adapter}: {how_many}, {}\n",
                device.name(),
                describe(params, *preset)
            )
        }
        Algorithm::Rfss(params) => format!(
            "RFSS on {}{adapter}: 1 run/puzzle (deterministic), max-generations {}, \
             stable-generations {}, underflow {} below 2^-{}, enhance {}{}\n",
            device.name(),
            params.max_generations,
            params.stable_generations,
            params.underflow,
            params.underflow_log2,
            params.enhancement,
            if params.enhancement == gpu_sudoku::rfss::Enhancement::Off {
                String::new()
            } else {
                format!(" (stall-generations {})", params.stall_generations)
            }
        ),
    }
}

/// The table's layout: a row label per file, and the paper's rates where they apply.
struct Rows {
    table: Table,
    labels: Vec<String>,
    /// The paper tier of each file, if it is one.
    tiers: Vec<Option<&'static str>>,
    /// The paper's rates: only for a paper setting on a shipped paper tier.
    paper: Option<PaperRates>,
}

impl Rows {
    fn new(request: &Request) -> Rows {
        let files = &request.files;
        let tiers: Vec<Option<&'static str>> = files
            .iter()
            .map(|f| paper_tier_of(&f.header).map(|t| t.name()))
            .collect();
        let paper = match &request.algorithm {
            Algorithm::Ilca { params, .. } => {
                Preset::paper_setting_of(params).and_then(|p| p.paper)
            }
            Algorithm::Rfss(_) => None,
        }
        .filter(|_| tiers.iter().any(Option::is_some));
        // A row is labelled by its file's label, or by its path where two files share the
        // label (`a/easy.txt`, `b/easy.txt`: two rows called `easy` could not be told apart).
        let names: Vec<String> = files.iter().map(PuzzleFile::label).collect();
        let labels = row_labels(
            files
                .iter()
                .zip(&names)
                .map(|(f, l)| (f.path.as_str(), l.as_str())),
        );
        let unit = match request.algorithm {
            Algorithm::Ilca { .. } => "steps",
            Algorithm::Rfss(_) => "gens",
        };
        Rows {
            table: Table::new(&labels, unit, paper.is_some()),
            labels,
            tiers,
            paper,
        }
    }

    /// File `fi`'s row; a file this shard holds no instance of measured nothing to set beside
    /// the paper.
    fn row(&self, fi: usize, file: &FileResults) -> String {
        let rate = self
            .paper
            .zip(self.tiers[fi])
            .and_then(|(p, t)| p.tier(t))
            .filter(|_| file.tally.instances > 0);
        self.table.row(&self.labels[fi], &file.summary(), rate)
    }

    /// The overall row; the paper's overall rate is over its four tiers: only files of those
    /// tiers, all four.
    fn overall(&self, files: &[FileResults]) -> String {
        let tiers = &self.tiers;
        let all_four = Tier::ALL.iter().all(|t| tiers.contains(&Some(t.name())));
        let rate = self
            .paper
            .filter(|_| tiers.iter().all(Option::is_some) && all_four)
            .filter(|_| files.iter().all(|f| f.tally.instances > 0))
            .map(|p| p.overall);
        self.table.row("overall", &Summary::overall(files), rate)
    }
}

/// What the solved grids of a file with a solution column showed, if it has one.
fn solution_column_note(label: &str, file: &FileResults) -> Option<String> {
    let (checked @ 1.., differing) = file.against_file_solutions() else {
        return None;
    };
    let how = match differing {
        0 => "every one is the file's solution".to_string(),
        k => format!(
            "{k} differ from it (each holds the rules and the clues, so those puzzles have more \
             than one solution)"
        ),
    };
    Some(format!(
        "{label}: {checked} solved grids checked against the file's solution column: {how}"
    ))
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

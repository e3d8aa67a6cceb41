//! `gpu-sudoku sweep`: flags → [`job::sweep::Request`] → [`job::sweep::run`] → the best setting
//! per file, the JSON report and the paper's figures. The job writes the CSV block by block (an
//! interrupted sweep leaves a valid CSV, and `--resume` continues it from the journal beside it,
//! which names the run).

use super::args::{
    choice, sweep_figure_outputs, write_sweep_figures, DeviceArgs, InputArgs, JobArgs,
};
use super::ilca_args::IlcaFixedArgs;
use super::output::{self, Output};
use super::progress::bar_events;
use anyhow::{bail, ensure, Result};
use gpu_sudoku::job::sweep::{Plan, Report, Request};
use gpu_sudoku::job::{self, Keep};
use gpu_sudoku::puzzle::PuzzleFile;
use gpu_sudoku::sweep::figures::{self, FigureFormats};
use gpu_sudoku::sweep::{self, parse_baseline, parse_values, Param, SweepSpec, Values};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle files, e.g. one per tier (puzzles/easy.txt …); the file name without directory
    /// and extension (and `.gz`) labels its rows, so the names must differ. Files of different
    /// sizes run in separate engine calls.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Runs per puzzle and setting.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub input: InputArgs,
    /// lp/lr: a value or a range A:B:STEP. lp stays fixed (--lp, or the preset's) and
    /// lr = lp/ratio; with --lr given instead, lr stays fixed and lp = lr·ratio.
    #[arg(long, allow_hyphen_values = true, value_parser = |t: &str| parse_values(Param::Ratio, t))]
    pub ratio: Option<Values>,
    /// Reward learning rate lr: a value or a range A:B:STEP [default: the preset's; Algorithm
    /// 1: 1].
    #[arg(long, allow_hyphen_values = true, value_parser = |t: &str| parse_values(Param::Lr, t))]
    pub lr: Option<Values>,
    /// Penalty learning rate lp: a value or a range A:B:STEP [default: the preset's; Algorithm
    /// 1: 1].
    #[arg(long, allow_hyphen_values = true, value_parser = |t: &str| parse_values(Param::Lp, t))]
    pub lp: Option<Values>,
    /// Selective reset period sr in steps (0 = off): a value or a range A:B:STEP [default: the
    /// preset's; Algorithm 1: 0].
    #[arg(long, allow_hyphen_values = true, value_parser = |t: &str| parse_values(Param::Sr, t))]
    pub sr: Option<Values>,
    /// Maximum time-steps: a value or a range A:B:STEP [default: the preset's; Algorithm 1:
    /// 250]. A range costs one run at its largest limit: a run's dynamics do not depend on the
    /// limit.
    #[arg(long, allow_hyphen_values = true, value_parser = |t: &str| parse_values(Param::Steps, t))]
    #[arg(visible_alias = "max-iterations")]
    pub steps: Option<Values>,
    /// Also run a reference setting, drawn dotted in the figures: KEY=VALUE pairs over lr, lp,
    /// ratio, sr (e.g. `lr=1,lp=1,sr=0`, the paper's initial algorithm); unset keys keep the
    /// sweep's fixed values.
    #[arg(long)]
    pub baseline: Option<String>,
    #[command(flatten)]
    pub fixed: IlcaFixedArgs,
    /// The CSV to write (replaced, unless --resume) [default: sweep.csv; none when `--json -`
    /// takes standard output and no --csv is given]. While the sweep runs, the journal
    /// `CSV.partial.jsonl` beside it holds the finished settings (removed at the end).
    #[arg(long)]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    pub job: JobArgs,
    /// The old name of --chunk (0 = automatic).
    #[arg(long, hide = true, conflicts_with = "chunk", value_name = "N")]
    pub block: Option<usize>,
    /// Also write the rows as JSON (with each row's setting index, the inputs' hashes and the
    /// provenance), the report `gpu-sudoku merge` joins for sharded sweeps (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Write the figures into this folder (created if missing).
    #[arg(long, alias = "plot-dir", value_name = "DIR")]
    pub figures: Option<PathBuf>,
    /// Figure format (`--format` is the puzzle files' layout here).
    #[arg(long, value_parser = choice::<FigureFormats>(), default_value_t = FigureFormats::Png)]
    pub figure_format: FigureFormats,
    /// Leave the Wilson 95% intervals out of the figures (drawn by default).
    #[arg(long)]
    pub no_intervals: bool,
    /// Width of the difficulty bins of the `d` rows (and of the rate-vs-d figure), in
    /// [0.01, 1].
    #[arg(long, default_value_t = job::sweep::DEFAULT_D_BIN)]
    pub d_bin: f64,
}

impl Args {
    fn spec(&self) -> Result<SweepSpec> {
        let given = [
            (Param::Ratio, &self.ratio),
            (Param::Lr, &self.lr),
            (Param::Lp, &self.lp),
            (Param::Sr, &self.sr),
            (Param::Steps, &self.steps),
        ];
        Ok(SweepSpec {
            values: given
                .into_iter()
                .filter_map(|(p, v)| Some((p, v.clone()?)))
                .collect(),
            baseline: self.baseline.as_deref().map(parse_baseline).transpose()?,
        })
    }

    /// The CSV the sweep grows as blocks finish, with its journal beside it: a file. None when
    /// the JSON report takes standard output and no --csv is given.
    fn csv(&self) -> Result<Option<PathBuf>> {
        let Some(csv) = &self.csv else {
            let json_to_stdout = self.json.as_deref() == Some("-");
            return Ok((!json_to_stdout).then(|| PathBuf::from("sweep.csv")));
        };
        ensure!(
            csv.as_os_str() != "-",
            "--csv -: a sweep writes its CSV as it goes, with a journal beside it, so it needs a \
             file name (then `cat` it)"
        );
        Ok(Some(csv.clone()))
    }

    /// Writes `text` on standard output, unless the JSON report takes it.
    fn say(&self, text: &str) {
        if self.json.as_deref() == Some("-") {
            output::stderr(text);
        } else {
            output::stdout(text);
        }
    }
}

pub fn run(a: Args) -> Result<ExitCode> {
    let base = a.fixed.base();
    // Says when the setting ignores the seed (each puzzle then runs once); the journal keeps
    // the --runs asked for, so that a resume of the same command matches.
    super::ilca_args::runs_per_puzzle(&base, a.runs as usize);
    sweep::check_d_bin(a.d_bin)?;
    let csv = a.csv()?;
    let spec = a.spec()?;
    let settings = sweep::Plan::new(&spec, &base)?;
    // Outputs and inputs are checked before any work.
    check_outputs(&a, csv.as_deref(), &settings)?;
    let request = Request {
        files: read_files(&a)?,
        spec,
        base,
        runs: a.runs as usize,
        d_bin: a.d_bin,
        shard: a.job.shard,
        chunk: a.job.chunk(a.block.unwrap_or(0)),
        command: std::env::args().collect(),
    };
    let plan = Plan::new(&request, settings)?;
    if plan.d_fallbacks > 0 {
        let (many, have, their) = match plan.d_fallbacks {
            1 => ("1 puzzle".to_string(), "has", "its"),
            n => (format!("{n} puzzles"), "have", "their"),
        };
        errln!(
            "note: {many} {have} no `d=` field; {their} difficulty d is {their} fraction of blank cells"
        );
    }
    let keep = Keep {
        records: true,
        beside: csv,
        resume: a.job.resume,
    };
    job::sweep::check_resume(&keep)?;
    let devices = a.device.open_many()?;
    for d in &devices {
        errln!("backend: {}", d.describe());
    }
    let events = bar_events();
    let report = job::sweep::run(&plan, &devices, &keep, &events)?;
    events.finish();
    super::args::report_usage(&devices, &report.usage);
    if let Some(csv) = &report.csv {
        errln!("wrote {} rows to {}", report.rows.len(), csv.display());
    }
    if let Some(path) = &a.json {
        Output::new("--json", path).write_with(|w| report.write_json(w))?;
    }
    if let Some(s) = request.shard {
        a.say(&s.describe("settings' instances"));
    }
    for line in best_lines(&report) {
        a.say(&line);
    }
    if let Some(dir) = &a.figures {
        write_figures(&a, &report, dir)?;
    }
    // Everything is written: the journal is no longer needed.
    report.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// Checks the CSV, the JSON and every figure the sweep can draw before any work.
fn check_outputs(a: &Args, csv: Option<&Path>, settings: &sweep::Plan) -> Result<()> {
    let inputs: Vec<&str> = a.files.iter().map(String::as_str).collect();
    let mut outputs: Vec<Output> = csv
        .map(|c| Output::new("--csv", &c.to_string_lossy()))
        .into_iter()
        .collect();
    outputs.extend(a.json.as_deref().map(|p| Output::new("--json", p)));
    if let Some(dir) = &a.figures {
        let swept: Vec<Param> = settings.axes.iter().map(|(p, _)| *p).collect();
        outputs.extend(sweep_figure_outputs(
            dir,
            &swept,
            &a.figure_format.formats(),
        ));
    }
    output::check(&inputs, &outputs)
}

/// Reads the puzzle files (standard input at most once, labels that tell the files apart),
/// refusing a file the sweep cannot take as soon as it is read.
fn read_files(a: &Args) -> Result<Vec<PuzzleFile>> {
    let paths: Vec<&str> = a.files.iter().map(String::as_str).collect();
    super::args::refuse_stdin_twice(&paths)?;
    super::args::refuse_duplicate_labels(&paths)?;
    let mut files = Vec::new();
    for f in &a.files {
        let file = a.input.read(f)?;
        sweep::check_file(&file)?;
        files.push(file);
    }
    Ok(files)
}

/// The best setting per file and overall, a line each.
fn best_lines(report: &Report) -> Vec<String> {
    report
        .best()
        .into_iter()
        .map(|(l, b)| {
            if b.solved_pct() == 0.0 {
                return format!("best {l:<10}   none: no setting solved a puzzle\n");
            }
            let at: Vec<String> = report
                .axes
                .iter()
                .map(|(p, _)| {
                    format!(
                        "{} = {}",
                        p.symbol(),
                        gpu_sudoku::plot::fmt_num(b.point.get(*p))
                    )
                })
                .collect();
            format!(
                "best {:<10} {:>6.2}% at {}\n",
                l,
                b.solved_pct(),
                at.join(", ")
            )
        })
        .collect()
}

/// Draws the figures of the rows into `dir` (checked before the work) and names each file.
fn write_figures(a: &Args, report: &Report, dir: &Path) -> Result<()> {
    if report.rows.is_empty() {
        bail!("no rows to plot");
    }
    let opts = figures::Options {
        intervals: !a.no_intervals,
    };
    let formats = a.figure_format.formats();
    write_sweep_figures(&report.rows, dir, &formats, opts, &|text| a.say(text))
}

//! `gpu-sudoku sweep`: one or two ILCA parameters over ranges on one or more puzzle files, all
//! settings batched into as few engine calls as fit; a CSV written block by block (an
//! interrupted sweep leaves a valid CSV, and `--resume` continues it) and the paper's figures.

use anyhow::{bail, ensure, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::DeviceArgs;
use super::ilca_args::IlcaFixedArgs;
use super::plot::FormatArg;
use gpu_sudoku::backend::Device;
use gpu_sudoku::ilca::IlcaParams;
use gpu_sudoku::puzzle::read_puzzles;
use gpu_sudoku::sweep::{self, figures, parse_spec, Group, Input, Param, Plan, Sweep, SweepSpec};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle files, e.g. one per tier (puzzles/easy.txt …); the file name without directory
    /// and extension labels its rows. Files of different sizes run in separate engine calls.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Runs per puzzle and setting.
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Force the puzzle size (side length, e.g. 9).
    #[arg(long)]
    pub size: Option<usize>,
    /// lp/lr: a value or a range A:B:STEP. lp stays fixed (--lp, default 1) and lr = lp/ratio;
    /// with --lr given instead, lr stays fixed and lp = lr·ratio.
    #[arg(long, allow_hyphen_values = true)]
    pub ratio: Option<String>,
    /// Reward learning rate lr: a value (default 1) or a range A:B:STEP.
    #[arg(long, allow_hyphen_values = true)]
    pub lr: Option<String>,
    /// Penalty learning rate lp: a value (default 1) or a range A:B:STEP.
    #[arg(long, allow_hyphen_values = true)]
    pub lp: Option<String>,
    /// Selective reset period sr in steps (0 = off): a value (default 0) or a range A:B:STEP.
    #[arg(long, allow_hyphen_values = true)]
    pub sr: Option<String>,
    /// Maximum time-steps: a value (default 250) or a range A:B:STEP. A range costs one run
    /// at its largest limit: a run's dynamics do not depend on the limit.
    #[arg(long, allow_hyphen_values = true)]
    pub steps: Option<String>,
    /// Also run a reference setting, drawn dotted in the figures: KEY=VALUE pairs over lr, lp,
    /// ratio, sr (e.g. `lr=1,lp=1,sr=0`, the paper's initial algorithm); unset keys keep the
    /// sweep's fixed values.
    #[arg(long)]
    pub baseline: Option<String>,
    #[command(flatten)]
    pub fixed: IlcaFixedArgs,
    /// The CSV to write (replaced, unless --resume).
    #[arg(long, default_value = "sweep.csv")]
    pub csv: PathBuf,
    /// Continue an interrupted sweep: keep the CSV's rows, run only the settings it lacks.
    #[arg(long)]
    pub resume: bool,
    /// Write the figures into this folder (created if missing).
    #[arg(long)]
    pub plot_dir: Option<PathBuf>,
    /// Figure format.
    #[arg(long, value_enum, default_value_t = FormatArg::Png)]
    pub format: FormatArg,
    /// Width of the difficulty bins of the `d` rows (and of the rate-vs-d figure).
    #[arg(long, default_value_t = 0.05)]
    pub d_bin: f64,
    /// Settings per engine call (0 = enough for a few hundred thousand instances on the GPU,
    /// tens of thousands on the CPU). The CSV grows by one call's rows at a time.
    #[arg(long, default_value_t = 0)]
    pub block: usize,
}

impl Args {
    fn spec(&self) -> Result<SweepSpec> {
        let p = |param: Param, s: &Option<String>| {
            s.as_deref().map(|t| parse_spec(param, t)).transpose()
        };
        Ok(SweepSpec {
            ratio: p(Param::Ratio, &self.ratio)?,
            lr: p(Param::Lr, &self.lr)?,
            lp: p(Param::Lp, &self.lp)?,
            sr: p(Param::Sr, &self.sr)?,
            steps: p(Param::Steps, &self.steps)?,
            baseline: self
                .baseline
                .as_deref()
                .map(sweep::parse_baseline)
                .transpose()?,
        })
    }

    fn base(&self) -> IlcaParams {
        self.fixed.apply(IlcaParams::default())
    }
}

/// Reads the puzzle files as sweep inputs; notes once when d falls back to the blank fraction.
pub fn read_inputs(files: &[String], size: Option<usize>) -> Result<Vec<Input>> {
    let mut inputs: Vec<Input> = Vec::new();
    let mut fallback = 0;
    for f in files {
        let file = read_puzzles(f, size)?;
        ensure!(!file.puzzles.is_empty(), "{f}: no puzzles in the file");
        let label = file.label();
        ensure!(
            !label.contains([',', '"']) && !label.is_empty(),
            "{f}: the file name `{label}` labels CSV rows and must not contain a comma or quote"
        );
        ensure!(
            !inputs.iter().any(|i| i.label == label),
            "{f}: another file is also labelled `{label}` (file names without extension must differ)"
        );
        fallback += file
            .puzzles
            .iter()
            .filter(|p| sweep::difficulty(p).1)
            .count();
        inputs.push(Input::new(label, &file.puzzles));
    }
    if fallback > 0 {
        eprintln!(
            "note: {fallback} puzzles have no `d=` field; their difficulty d is their fraction of blank cells"
        );
    }
    Ok(inputs)
}

pub fn run(a: Args) -> Result<ExitCode> {
    ensure!(a.runs >= 1, "--runs must be at least 1");
    ensure!(
        a.d_bin.is_finite() && a.d_bin > 0.0 && a.d_bin <= 1.0,
        "--d-bin must be in (0, 1], got {}",
        a.d_bin
    );
    let plan = Plan::new(&a.spec()?, &a.base())?;
    let inputs = read_inputs(&a.files, a.size)?;

    let device = a.device.open()?;
    eprintln!("backend: {}", device.describe());

    let sw = Sweep {
        plan: &plan,
        inputs: &inputs,
        runs: a.runs,
        d_bin: a.d_bin,
    };
    let mut rows = Vec::new();
    let mut skip = HashSet::new();
    let resuming = a.resume && a.csv.exists();
    if resuming {
        let text = std::fs::read_to_string(&a.csv)
            .with_context(|| format!("cannot read {}", a.csv.display()))?;
        // A line cut by the interruption (no newline at the end) is dropped.
        let complete = match text.rfind('\n') {
            Some(i) => &text[..=i],
            None => "",
        };
        rows = sweep::parse_csv(&a.csv.display().to_string(), complete)?;
        skip = sweep::completed(&sw, &rows)?;
        if complete.len() != text.len() {
            std::fs::write(&a.csv, complete)
                .with_context(|| format!("cannot rewrite {}", a.csv.display()))?;
        }
        eprintln!(
            "resuming {}: {} of {} settings already done",
            a.csv.display(),
            skip.len(),
            plan.runs.len()
        );
    }
    let mut out = if resuming {
        std::fs::OpenOptions::new().append(true).open(&a.csv)
    } else {
        std::fs::File::create(&a.csv)
    }
    .with_context(|| format!("cannot write {}", a.csv.display()))?;
    if !resuming {
        writeln!(out, "{}", sweep::CSV_HEADER)?;
        out.flush()?;
    }

    let todo: Vec<usize> = (0..plan.runs.len()).filter(|i| !skip.contains(i)).collect();
    let per_setting = sw.instances_per_setting();
    let block = if a.block > 0 {
        a.block
    } else {
        let target = match device {
            Device::Gpu(_) => 1 << 19,
            Device::Cpu => 1 << 15,
        };
        (target / per_setting.max(1)).max(1)
    };
    eprintln!(
        "sweep of {}: {} settings ({} to run) x {} instances, {} per engine call",
        plan.swept(),
        plan.runs.len(),
        todo.len(),
        per_setting,
        block
    );
    let pb = ProgressBar::new((todo.len() * per_setting) as u64);
    pb.set_style(
        ProgressStyle::with_template(
            "sweep {bar:40} {pos}/{len} instances [{elapsed_precise}, eta {eta_precise}]",
        )
        .expect("valid template"),
    );
    for chunk in todo.chunks(block) {
        let settings: Vec<_> = chunk.iter().map(|&i| plan.runs[i].clone()).collect();
        let new = sw.run_block(&device, &settings, &|k| pb.inc(k as u64))?;
        for r in &new {
            writeln!(out, "{}", r.csv_line())?;
        }
        out.flush()
            .with_context(|| format!("cannot write {}", a.csv.display()))?;
        rows.extend(new);
    }
    pb.finish_and_clear();
    eprintln!("wrote {} rows to {}", rows.len(), a.csv.display());

    // The best setting per file and overall.
    let mut labels: Vec<String> = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.group != Group::D && r.role == sweep::Role::Sweep)
    {
        if !labels.contains(&r.label) {
            labels.push(r.label.clone());
        }
    }
    for l in labels {
        let best = rows
            .iter()
            .filter(|r| r.label == l && r.group != Group::D && r.role == sweep::Role::Sweep)
            .fold(None::<&sweep::Row>, |best, r| match best {
                Some(b) if b.solved_pct() >= r.solved_pct() => Some(b),
                _ => Some(r),
            });
        if let Some(b) = best {
            let at: Vec<String> = plan
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
            println!(
                "best {:<10} {:>6.2}% at {}",
                l,
                b.solved_pct(),
                at.join(", ")
            );
        }
    }

    if let Some(dir) = &a.plot_dir {
        if rows.is_empty() {
            bail!("no rows to plot");
        }
        for p in figures::write_all(&rows, dir, &a.format.formats())? {
            println!("wrote {}", p.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

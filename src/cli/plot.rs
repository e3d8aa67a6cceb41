//! Figures from files: `plot-sweep` (a sweep CSV), `plot-trace` (an ILCA trace CSV: the paper's
//! Fig. 3 and 4) and `plot-lines` (any wide CSV of series, e.g. RFSS species proportions over
//! generations: Horn's Fig. 3).

use anyhow::{bail, ensure, Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

use super::ilca_args::IlcaArgs;
use gpu_sudoku::ilca::IlcaParams;
use gpu_sudoku::plot::{
    save, Curve, Dash, Format, HLine, IlcaTrace, LinePlot, ProbabilityPanel, Rgb, TraceGrids,
    BLACK_RGB, GRAY_RGB, PALETTE,
};
use gpu_sudoku::puzzle::read_puzzles;
use gpu_sudoku::sweep::{figures, parse_csv};

/// Figure format(s) on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Png,
    Svg,
    /// PNG and SVG.
    Both,
}

impl FormatArg {
    pub fn formats(self) -> Vec<Format> {
        match self {
            FormatArg::Png => vec![Format::Png],
            FormatArg::Svg => vec![Format::Svg],
            FormatArg::Both => vec![Format::Png, Format::Svg],
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// A CSV written by `gpu-sudoku sweep` (a partial one from an interrupted sweep works too).
    pub csv: PathBuf,
    /// Folder for the figures (created if missing).
    #[arg(long, default_value = "figs", alias = "plot-dir", value_name = "DIR")]
    pub figures: PathBuf,
    #[arg(long, value_enum, default_value_t = FormatArg::Png)]
    pub format: FormatArg,
}

pub fn run_sweep(a: SweepArgs) -> Result<ExitCode> {
    let name = a.csv.display().to_string();
    let text = std::fs::read_to_string(&a.csv).with_context(|| format!("cannot read {name}"))?;
    let rows = parse_csv(&name, &text)?;
    ensure!(!rows.is_empty(), "{name}: no rows to plot");
    for p in figures::write_all(&rows, &a.figures, &a.format.formats())? {
        outln!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct TraceArgs {
    /// Trace CSV: columns step, cell, state, p1..pn (optional clue), one row per step per cell;
    /// step 0 is the initial state (see docs/FIGURES.md). Or give --puzzle to record a run.
    #[arg(required_unless_present = "puzzle", conflicts_with = "puzzle")]
    pub trace: Option<PathBuf>,
    /// Record the run here instead: a puzzle file (with --index, --run and the ILCA options).
    #[arg(long)]
    pub puzzle: Option<String>,
    /// The puzzle's index in the file (0-based; also its index in the random draws).
    #[arg(long)]
    pub index: Option<usize>,
    /// The run number (its random draws are those of run R in a batch of the file).
    #[arg(long)]
    pub run: Option<usize>,
    /// Try runs R, R+1, … up to N runs and draw the first one that solves the puzzle.
    #[arg(long)]
    pub find_solved: Option<usize>,
    /// Also write the recorded trace as CSV to this file.
    #[arg(long)]
    pub write_trace: Option<PathBuf>,
    #[command(flatten)]
    pub ilca: IlcaArgs,
    /// Folder for `trace-grids.*` (Fig. 3) and `trace-probabilities.*` (Fig. 4).
    #[arg(long, default_value = "figs", alias = "out-dir", value_name = "DIR")]
    pub figures: PathBuf,
    #[arg(long, value_enum, default_value_t = FormatArg::Png)]
    pub format: FormatArg,
    /// Most grid panels in the step-by-step picture.
    #[arg(long, default_value_t = 20)]
    pub max_frames: usize,
    /// Title prefix (e.g. the puzzle and parameters).
    #[arg(long, default_value = "ILCA run")]
    pub title: String,
}

/// Records the run that `--puzzle` asks for.
fn record(a: &TraceArgs, file: &str) -> Result<IlcaTrace> {
    let params = a.ilca.params()?;
    let (index, run) = (a.index.unwrap_or(0), a.run.unwrap_or(0));
    let pf = read_puzzles(file, None)?;
    let puzzle = &pf
        .puzzles
        .get(index)
        .with_context(|| {
            format!(
                "{file}: --index {index} but the file has {} puzzles",
                pf.puzzles.len()
            )
        })?
        .grid;
    let tries = a.find_solved.unwrap_or(1);
    ensure!(tries >= 1, "--find-solved must be at least 1");
    let mut last = None;
    for r in run..run + tries {
        let t = IlcaTrace::record(puzzle, &params, index, r)?;
        let solved = t.solved(puzzle);
        errln!(
            "run {r}: {} after {} steps",
            if solved { "solved" } else { "not solved" },
            t.steps.last().copied().unwrap_or(0)
        );
        if solved || a.find_solved.is_none() {
            return Ok(t);
        }
        last = Some(t);
    }
    bail!(
        "none of runs {}..{} solves puzzle {} of {file} within {} steps (last: {} steps); {}",
        run,
        run + tries - 1,
        index,
        params.steps,
        last.map_or(0, |t| t.steps.len().saturating_sub(1)),
        find_solved_hint(&params, tries)
    )
}

/// What to change when `--find-solved` finds no solving run. Under fast rewards (lp/lr below
/// the paper's 20) most runs freeze within a few dozen steps, so more runs rarely help; slower
/// rewards do (docs/REPRODUCTION.md §4: 2% of the classic puzzle's runs solve under
/// Algorithm 1, about half with `--lr 0.05 --compare free`).
fn find_solved_hint(params: &IlcaParams, tries: usize) -> String {
    let more_runs = format!("`--find-solved {}`", tries.saturating_mul(10));
    if params.lp < 20.0 * params.lr {
        format!(
            "try slower rewards (`--lr 0.05 --compare free`: lp/lr = 20, which solves about \
             half the runs of the paper's Fig. 3 puzzle), the improved variant \
             (`--preset improved`) or more runs ({more_runs})"
        )
    } else {
        format!("try more runs ({more_runs}), more steps (`--steps`) or the improved variant (`--preset improved`)")
    }
}

pub fn run_trace(a: TraceArgs) -> Result<ExitCode> {
    ensure!(a.max_frames >= 2, "--max-frames must be at least 2");
    let trace = match (&a.trace, &a.puzzle) {
        (Some(t), _) => {
            ensure!(
                a.index.is_none() && a.run.is_none() && a.find_solved.is_none() && a.write_trace.is_none(),
                "--index, --run, --find-solved and --write-trace go with --puzzle, not with a trace CSV"
            );
            IlcaTrace::read_csv(&t.display().to_string())?
        }
        (None, Some(p)) => {
            let t = record(&a, p)?;
            if let Some(out) = &a.write_trace {
                let f = std::fs::File::create(out)
                    .with_context(|| format!("cannot write {}", out.display()))?;
                t.write_csv(std::io::BufWriter::new(f))?;
                outln!("wrote {}", out.display());
            }
            t
        }
        (None, None) => bail!("give a trace CSV or --puzzle FILE"),
    };
    std::fs::create_dir_all(&a.figures)
        .with_context(|| format!("cannot create {}", a.figures.display()))?;
    let last = *trace.steps.last().expect("a trace has frames");
    for f in a.format.formats() {
        let mut grids = TraceGrids::new(
            &trace,
            format!("{}: states by step (to step {last})", a.title),
        );
        grids.max_frames = a.max_frames;
        let p = a.figures.join(format!("trace-grids.{}", f.ext()));
        save(&grids, &p)?;
        outln!("wrote {}", p.display());
        let probs = ProbabilityPanel {
            trace: &trace,
            title: format!("{}: probability of each digit per cell", a.title),
        };
        let p = a.figures.join(format!("trace-probabilities.{}", f.ext()));
        save(&probs, &p)?;
        outln!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct LinesArgs {
    /// A wide CSV: a header, then one row per x value; one column is x, every other numeric
    /// column a series (e.g. an RFSS trace: generation,conflicts,<one column per species>).
    pub csv: PathBuf,
    /// Output file; .png or .svg.
    #[arg(short, long, alias = "out", value_name = "FILE")]
    pub output: PathBuf,
    /// The x column (default: the first).
    #[arg(long)]
    pub x: Option<String>,
    /// Columns that are not series (repeatable), e.g. --exclude conflicts.
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Logarithmic y axis (non-positive values are left out).
    #[arg(long)]
    pub log_y: bool,
    /// A dotted line at the series' mean first value (Horn's initial proportion 1/species).
    #[arg(long)]
    pub initial_line: bool,
    /// Colour the K series with the largest last value (Horn's upper group: as many species as
    /// unknown cells) apart from the rest.
    #[arg(long)]
    pub top: Option<usize>,
    #[arg(long, default_value = "Series over time")]
    pub title: String,
    /// x axis title (default: the x column's name).
    #[arg(long)]
    pub x_label: Option<String>,
    #[arg(long, default_value = "value")]
    pub y_label: String,
}

/// A wide CSV: column names and rows of numbers (empty fields = missing).
fn read_wide(path: &str) -> Result<(Vec<String>, Vec<Vec<f64>>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        bail!("{path}: empty file (expected a header line of column names)");
    };
    let cols: Vec<String> = header.split(',').map(|s| s.trim().to_string()).collect();
    let mut rows = Vec::new();
    for (ln, line) in lines {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        ensure!(
            f.len() == cols.len(),
            "{path}:{}: {} fields, the header has {}",
            ln + 1,
            f.len(),
            cols.len()
        );
        let mut row = Vec::with_capacity(f.len());
        for (i, s) in f.iter().enumerate() {
            row.push(if s.is_empty() {
                f64::NAN
            } else {
                s.parse().map_err(|_| {
                    anyhow::anyhow!(
                        "{path}:{}: column {} ({}): `{s}` is not a number",
                        ln + 1,
                        i + 1,
                        cols[i]
                    )
                })?
            });
        }
        rows.push(row);
    }
    ensure!(!rows.is_empty(), "{path}: no data rows after the header");
    Ok((cols, rows))
}

pub fn run_lines(a: LinesArgs) -> Result<ExitCode> {
    Format::of_path(&a.output)?;
    let path = a.csv.display().to_string();
    let (cols, rows) = read_wide(&path)?;
    let xi = match &a.x {
        Some(x) => cols
            .iter()
            .position(|c| c == x)
            .with_context(|| format!("{path}: no column `{x}` (columns: {})", cols.join(", ")))?,
        None => 0,
    };
    for e in &a.exclude {
        ensure!(cols.contains(e), "{path}: --exclude {e}: no such column");
    }
    let series: Vec<usize> = (0..cols.len())
        .filter(|&i| i != xi && !a.exclude.contains(&cols[i]))
        .collect();
    ensure!(!series.is_empty(), "{path}: no series columns left to plot");
    let mut plot = LinePlot::new(
        a.title.clone(),
        a.x_label.clone().unwrap_or_else(|| cols[xi].clone()),
        a.y_label.clone(),
    );
    plot.log_y = a.log_y;
    let pts = |i: usize| -> Vec<(f64, f64)> { rows.iter().map(|r| (r[xi], r[i])).collect() };
    let last = |i: usize| {
        rows.iter()
            .rev()
            .map(|r| r[i])
            .find(|v| v.is_finite())
            .unwrap_or(f64::NAN)
    };
    let mut top = vec![false; cols.len()];
    if let Some(k) = a.top {
        ensure!(
            k >= 1 && k < series.len(),
            "--top {k}: must be between 1 and the number of series minus one ({})",
            series.len() - 1
        );
        let mut order = series.clone();
        order.sort_by(|&p, &q| last(q).total_cmp(&last(p)));
        for &i in &order[..k] {
            top[i] = true;
        }
    }
    let many = series.len() > PALETTE.len();
    let (mut seen_top, mut seen_rest) = (false, false);
    for (j, &i) in series.iter().enumerate() {
        let (label, colour) = if a.top.is_some() {
            let first = if top[i] {
                !std::mem::replace(&mut seen_top, true)
            } else {
                !std::mem::replace(&mut seen_rest, true)
            };
            let l = if top[i] {
                format!("top {} at the end", a.top.unwrap_or(0))
            } else {
                "the others".to_string()
            };
            (
                first.then_some(l),
                if top[i] { PALETTE[3] } else { GRAY_RGB },
            )
        } else if many {
            (None, Rgb(60, 60, 60))
        } else {
            (Some(cols[i].clone()), PALETTE[j % PALETTE.len()])
        };
        plot.curves.push(Curve {
            label,
            points: pts(i),
            colour,
            dash: Dash::Solid,
            width: if many { 1 } else { 2 },
            markers: false,
        });
    }
    if many && a.top.is_none() {
        plot.subtitle = format!("{} series", series.len());
    }
    if a.initial_line {
        let firsts: Vec<f64> = series
            .iter()
            .map(|&i| rows[0][i])
            .filter(|v| v.is_finite())
            .collect();
        ensure!(
            !firsts.is_empty(),
            "--initial-line: the first row has no values"
        );
        let y = firsts.iter().sum::<f64>() / firsts.len() as f64;
        plot.hlines.push(HLine {
            y,
            label: Some(format!("initial mean {}", gpu_sudoku::plot::fmt_num(y))),
            colour: BLACK_RGB,
            dash: Dash::Dotted,
        });
    }
    if let Some(dir) = a.output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    save(&plot, &a.output)?;
    outln!("wrote {}", a.output.display());
    Ok(ExitCode::SUCCESS)
}

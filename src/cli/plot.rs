//! Figures from files: `plot-sweep` (a sweep CSV), `plot-trace` (an ILCA trace CSV: the paper's
//! Fig. 3 and 4) and `plot-lines` (any wide CSV of series, e.g. RFSS species proportions over
//! generations: Horn's Fig. 3).

use anyhow::{bail, ensure, Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{choice, sweep_figure_outputs, write_sweep_figures};
use super::ilca_args::IlcaArgs;
use super::output::{self, Output};
use gpu_sudoku::ilca::IlcaParams;
use gpu_sudoku::plot::{
    cell_history, draw_lines, render, Format, IlcaTrace, LinesSpec, ProbabilityPanel, TraceGrids,
    Wide,
};
use gpu_sudoku::puzzle::read_puzzles;
use gpu_sudoku::sweep::figures::FigureFormats;
use gpu_sudoku::sweep::{figures, parse_csv};

#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// A CSV written by `gpu-sudoku sweep` (a partial one from an interrupted sweep works too).
    pub csv: PathBuf,
    /// Folder for the figures (created if missing).
    #[arg(long, default_value = "figs", alias = "plot-dir", value_name = "DIR")]
    pub figures: PathBuf,
    /// Figure format, as on `sweep`. (`--format`, the puzzle files' layout on other commands,
    /// is still taken here for it.)
    #[arg(long, alias = "format", value_parser = choice::<FigureFormats>(), default_value_t = FigureFormats::Png)]
    pub figure_format: FigureFormats,
    /// Leave out the Wilson 95% intervals (drawn by default: bands around the rate curves,
    /// bars on the rate-vs-d average, the best cell's interval in band-map captions).
    #[arg(long)]
    pub no_intervals: bool,
}

pub fn run_sweep(a: SweepArgs) -> Result<ExitCode> {
    let name = a.csv.display().to_string();
    let text = gpu_sudoku::limits::read_text(
        &name,
        gpu_sudoku::limits::MAX_FIGURE_INPUT_BYTES,
        "a sweep CSV",
    )?;
    let rows = parse_csv(&name, &text)?;
    ensure!(!rows.is_empty(), "{name}: no rows to plot");
    let formats = a.figure_format.formats();
    let outputs = sweep_figure_outputs(&a.figures, &figures::axes(&rows)?, &formats);
    output::check(&[&name], &outputs)?;
    let opts = figures::Options {
        intervals: !a.no_intervals,
    };
    write_sweep_figures(&rows, &a.figures, &formats, opts, &output::stdout)?;
    Ok(ExitCode::SUCCESS)
}

/// A cell as `ROW,COLUMN`, both 1-based (the paper's C4,7 is `4,7`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellArg {
    pub row: usize,
    pub col: usize,
}

fn parse_cell(t: &str) -> Result<CellArg, String> {
    let bad = || format!("`{t}`: give a cell as ROW,COLUMN, both from 1 (e.g. 4,7)");
    let (r, c) = t.split_once(',').ok_or_else(bad)?;
    let num = |s: &str| s.trim().parse::<usize>().ok().filter(|&v| v >= 1);
    match (num(r), num(c)) {
        (Some(row), Some(col)) => Ok(CellArg { row, col }),
        _ => Err(bad()),
    }
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
    /// Folder for `trace-grids.*` (Fig. 3), `trace-probabilities.*` (Fig. 4 for every cell)
    /// and `trace-cell-R-C.*` (--cell).
    #[arg(long, default_value = "figs", alias = "out-dir", value_name = "DIR")]
    pub figures: PathBuf,
    /// Figure format, as on `sweep`. (`--format`, the puzzle files' layout on other commands,
    /// is still taken here for it.)
    #[arg(long, alias = "format", value_parser = choice::<FigureFormats>(), default_value_t = FigureFormats::Png)]
    pub figure_format: FigureFormats,
    /// Most grid panels in the step-by-step picture.
    #[arg(long, default_value_t = 20)]
    pub max_frames: usize,
    /// Also draw one cell as the paper's Fig. 4 does (its cell C4,7 is `--cell 4,7`): each
    /// candidate digit's probability over the steps, the chosen digit marked. Repeatable.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_cell)]
    pub cell: Vec<CellArg>,
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
                "{file}: --index {index} but the file has {}",
                gpu_sudoku::report::count(pf.puzzles.len() as u64, "puzzle", "puzzles")
            )
        })?
        .grid;
    // Before the run: a cell off the grid would only be refused after it.
    check_cells(&a.cell, puzzle.side())?;
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

/// Refuses a `--cell` outside an n×n puzzle.
fn check_cells(cells: &[CellArg], n: usize) -> Result<()> {
    for c in cells {
        ensure!(
            c.row <= n && c.col <= n,
            "--cell {},{}: the puzzle is {n}x{n} (rows and columns 1..{n})",
            c.row,
            c.col
        );
    }
    Ok(())
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
    let formats = a.figure_format.formats();
    let figure = |stem: &str, f: Format| {
        let path = a.figures.join(format!("{stem}.{}", f.ext()));
        Output::new("--figures", &path.to_string_lossy())
    };
    let cell_stem = |c: &CellArg| format!("trace-cell-{}-{}", c.row, c.col);
    let mut outputs = Vec::new();
    for &f in &formats {
        outputs.push(figure("trace-grids", f));
        outputs.push(figure("trace-probabilities", f));
        outputs.extend(a.cell.iter().map(|c| figure(&cell_stem(c), f)));
    }
    let trace_out = a
        .write_trace
        .as_ref()
        .map(|p| Output::new("--write-trace", &p.to_string_lossy()));
    outputs.extend(trace_out.clone());
    let input = a
        .trace
        .as_ref()
        .map(|t| t.display().to_string())
        .or(a.puzzle.clone())
        .unwrap_or_default();
    output::check(&[&input], &outputs)?;
    let trace = match (&a.trace, &a.puzzle) {
        (Some(t), _) => {
            ensure!(
                a.index.is_none() && a.run.is_none() && a.find_solved.is_none() && a.write_trace.is_none(),
                "--index, --run, --find-solved and --write-trace go with --puzzle, not with a trace CSV"
            );
            IlcaTrace::read_csv(&t.display().to_string())?
        }
        (None, Some(p)) => record(&a, p)?,
        (None, None) => bail!("give a trace CSV or --puzzle FILE"),
    };
    check_cells(&a.cell, trace.n())?;
    if let Some(out) = &trace_out {
        let mut csv = Vec::new();
        trace.write_csv(&mut csv)?;
        out.write(&csv)?;
        outln!("wrote {}", a.write_trace.as_ref().expect("given").display());
    }
    let last = *trace.steps.last().expect("a trace has frames");
    let write = |out: Output, bytes: Vec<u8>| -> Result<()> {
        out.write(&bytes)?;
        if let output::Target::File(p) = &out.target {
            outln!("wrote {}", p.display());
        }
        Ok(())
    };
    for &f in &formats {
        let mut grids = TraceGrids::new(
            &trace,
            format!("{}: states by step, to step {last}", a.title),
        );
        grids.max_frames = a.max_frames;
        write(figure("trace-grids", f), render(&grids, f)?)?;
        let probs = ProbabilityPanel {
            trace: &trace,
            title: format!("{}: probability of each digit per cell", a.title),
        };
        write(figure("trace-probabilities", f), render(&probs, f)?)?;
        for c in &a.cell {
            let plot = cell_history(&trace, c.row, c.col, &a.title)?;
            write(figure(&cell_stem(c), f), render(&plot, f)?)?;
        }
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
    /// Logarithmic y axis, labelled in powers of ten over the whole range of the data
    /// (values of 0 or below cannot be drawn on it; the subtitle counts the series that reach 0).
    #[arg(long)]
    pub log_y: bool,
    /// A dashed line at the series' mean first value (Horn's initial proportion 1/species),
    /// drawn over the curves.
    #[arg(long)]
    pub initial_line: bool,
    /// Colour the K series with the largest last value (Horn's upper group: as many species as
    /// unknown cells) apart from the rest, drawn over them, and add a second panel: the largest
    /// values close up on a linear scale, where the gap between the groups (or its absence)
    /// shows; the subtitle gives both groups' values at the end.
    #[arg(long)]
    pub top: Option<usize>,
    /// Title; `{series}` is replaced by the number of series plotted (e.g. "RFSS, 25x25,
    /// {series} species").
    #[arg(long, default_value = "{series} series")]
    pub title: String,
    /// x axis title (default: the x column's name).
    #[arg(long)]
    pub x_label: Option<String>,
    #[arg(long, default_value = "value")]
    pub y_label: String,
}

pub fn run_lines(a: LinesArgs) -> Result<ExitCode> {
    let format = Format::of_path(&a.output)?;
    let path = a.csv.display().to_string();
    let out = Output::new("--output", &a.output.to_string_lossy());
    output::check(&[&path], std::slice::from_ref(&out))?;
    let wide = Wide::read(&path)?;
    let spec = LinesSpec {
        x: a.x,
        exclude: a.exclude,
        log_y: a.log_y,
        initial_line: a.initial_line,
        top: a.top,
        title: a.title,
        x_label: a.x_label,
        y_label: a.y_label,
    };
    out.write(&draw_lines(&wide, &spec, format)?)?;
    outln!("wrote {}", a.output.display());
    Ok(ExitCode::SUCCESS)
}

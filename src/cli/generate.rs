//! `gpu-sudoku generate`: puzzles from the paper model (blank fraction d) or the rated model
//! (unique, human-style tier), deterministic for `--seed`. The output starts with a header
//! comment holding the exact command that reproduces it.

use super::args::choice;
use anyhow::{anyhow, Result};
use gpu_sudoku::choice::Choice;
use gpu_sudoku::generate::{generate_within, Model, Spec, Tier, TimeLimitReached};
use gpu_sudoku::puzzle::Geometry;
use gpu_sudoku::report::count;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// paper: blank a fraction d of a random complete grid (the ILCA paper's tiers, not always
    /// unique); rated: unique puzzles of a human-style tier.
    #[arg(long, value_parser = choice::<Model>())]
    pub model: Model,
    /// Tier: the d band for the paper model (easy (0.1,0.4), medium [0.4,0.55), hard [0.55,0.7),
    /// evil [0.7,0.9)); the rater's tier for the rated model.
    #[arg(long, value_parser = choice::<Tier>())]
    pub tier: Option<Tier>,
    /// Paper model: this blank fraction for every puzzle (0 < d < 1, at most 4 decimals).
    /// Rated model: stop digging at this blank fraction (a fixed clue count, like a magazine
    /// puzzle); the tier is then the hardest tier allowed.
    #[arg(long)]
    pub d: Option<f64>,
    /// Paper model: keep every puzzle's solution unique (cells whose removal would allow a
    /// second solution stay clues; the blank fraction is unchanged).
    #[arg(long)]
    pub unique: bool,
    /// Number of puzzles.
    #[arg(long, default_value_t = 10)]
    pub count: usize,
    /// Side length: 4, 9, 16, 25, 36, 49 or 64.
    #[arg(long, default_value_t = 9)]
    pub size: usize,
    /// Random seed; the same command and seed give the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write to this file instead of standard output.
    #[arg(short, long)]
    pub output: Option<String>,
    /// Give up (and write nothing) when one puzzle takes longer than this: 500ms, 20s, 2m, 1h
    /// (a bare number is seconds; 0: no limit). The limit never changes a puzzle that is made.
    /// docs/PUZZLES.md says what each size and tier takes.
    #[arg(long, default_value = "60s", value_name = "DURATION")]
    pub time_limit: super::args::TimeLimit,
}

/// A run stopped by the time limit, said as what to expect and what to change.
fn past_time_limit(a: &Args, e: anyhow::Error) -> anyhow::Error {
    if e.downcast_ref::<TimeLimitReached>().is_none() {
        return e;
    }
    e.context(format!(
        "nothing written: {} at {n}x{n} takes longer than --time-limit {} per puzzle \
         (docs/PUZZLES.md lists what each size and tier takes; --time-limit 0 waits as long as \
         it takes)",
        what_is_made(a),
        a.time_limit,
        n = a.size
    ))
}

/// What the options ask for, in a few words ("a rated evil puzzle").
fn what_is_made(a: &Args) -> String {
    let tier = a.tier.map(|t| format!(" {t}")).unwrap_or_default();
    match a.model {
        Model::Paper if a.unique => format!("a unique paper-model{tier} puzzle"),
        Model::Paper => format!("a paper-model{tier} puzzle"),
        Model::Rated => format!("a rated{tier} puzzle"),
    }
}

/// The command line that reproduces a run, with every parameter spelled out.
pub fn command_line(a: &Args) -> String {
    let mut s = format!("gpu-sudoku generate --model {}", a.model.name());
    if let Some(t) = a.tier {
        s.push_str(&format!(" --tier {t}"));
    }
    if let Some(d) = a.d {
        s.push_str(&format!(" --d {d}"));
    }
    if a.unique {
        s.push_str(" --unique");
    }
    s.push_str(&format!(
        " --count {} --size {} --seed {}",
        a.count, a.size, a.seed
    ));
    if let Some(o) = &a.output {
        s.push_str(&format!(" -o {o}"));
    }
    s
}

pub fn run(a: Args) -> Result<ExitCode> {
    // The output is checked (and its folder made) before any puzzle is generated.
    let output = a
        .output
        .as_deref()
        .map(|p| super::output::Output::new("--output", p));
    if let Some(o) = &output {
        super::output::check(&[], std::slice::from_ref(o))?;
    }
    let b = Geometry::box_for_side(a.size).ok_or_else(|| {
        anyhow!(
            "--size {} is not supported: use 4, 9, 16, 25, 36, 49 or 64",
            a.size
        )
    })?;
    let spec = Spec {
        model: a.model,
        tier: a.tier,
        d: a.d,
        unique: a.unique,
        b,
        count: a.count,
        seed: a.seed,
    };
    spec.validate()?;
    // Every puzzle is held, then written as text: refuse a count that would not fit.
    let cells = (a.size * a.size) as u64;
    gpu_sudoku::limits::check_memory(
        a.count as u64,
        3 * cells + 96,
        "the puzzles and their text",
        gpu_sudoku::limits::available_memory(),
        "use a smaller --count (several runs with other --seed values make more)",
    )?;
    let started = std::time::Instant::now();
    let pb = super::progress::bar(a.count, "generating");
    // A big puzzle takes minutes: the bar's clock moves on while it is made.
    pb.enable_steady_tick(std::time::Duration::from_millis(500));
    let puzzles = generate_within(&spec, a.time_limit.0, &|| pb.inc(1));
    pb.finish_and_clear();
    let puzzles = puzzles.map_err(|e| past_time_limit(&a, e))?;
    let what = match a.model {
        Model::Paper if a.unique => "paper model, unique variant: a random complete grid with a fraction d of its cells blanked in random order, skipping cells whose removal would allow a second solution; d per puzzle",
        Model::Paper => "paper model: a random complete grid with a fraction d of its cells blanked at random (not always unique); d per puzzle",
        Model::Rated if a.d.is_some() => "rated model with a fixed blank fraction: unique puzzles dug from a random complete grid until a fraction d of the cells is blank, each removal keeping the human-style rating at or under the tier (docs/PUZZLES.md)",
        Model::Rated => "rated model: unique puzzles dug from a random complete grid until the human-style rater gives the tier (docs/PUZZLES.md)",
    };
    let mut text = format!(
        "# {}\n# {what}\n# gpu-sudoku {}, seed {}, {} of {}x{}\n",
        command_line(&a),
        env!("CARGO_PKG_VERSION"),
        a.seed,
        count(a.count as u64, "puzzle", "puzzles"),
        a.size,
        a.size
    );
    for p in &puzzles {
        text.push_str(&p.grid.to_line());
        text.push(' ');
        text.push_str(&p.extra);
        text.push('\n');
    }
    match (&output, &a.output) {
        (Some(o), Some(path)) if path != "-" => {
            o.write(text.as_bytes())?;
            errln!(
                "wrote {} to {path} ({:.2} s)",
                count(puzzles.len() as u64, "puzzle", "puzzles"),
                started.elapsed().as_secs_f64()
            );
        }
        _ => super::output::stdout(&text),
    }
    Ok(ExitCode::SUCCESS)
}

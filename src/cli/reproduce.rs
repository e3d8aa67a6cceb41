//! `gpu-sudoku reproduce ilca`: the ILCA paper's tables in one command (docs/REPRODUCTION.md is
//! its `--markdown` output).

use super::args::DeviceArgs;
use super::output::Output;
use anyhow::{bail, Context, Result};
use gpu_sudoku::choice::Choice;
use gpu_sudoku::ilca::presets::Preset;
use gpu_sudoku::ilca::{Compare, ResetCheck, TieBreak};
use gpu_sudoku::puzzle::{read_puzzles, Grid};
use gpu_sudoku::report::batch::SCHEMA;
use gpu_sudoku::reproduce::{self, Reading};
use serde::Serialize;
use std::process::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// The ILCA paper (Chatzinikolaou et al. 2024): Tables 2–6 on the shipped tiers, paper vs
    /// measured with a 95% interval and the time-to-solution.
    Ilca(IlcaArgs),
}

#[derive(clap::Args, Debug)]
pub struct IlcaArgs {
    /// Which of the paper's tables: 2, 3, 4, 5, 6 or all.
    #[arg(long, default_value = "all", value_parser = ["2", "3", "4", "5", "6", "all"])]
    pub table: String,
    /// The reading of what the paper leaves open: `default` (compare sharing, random ties,
    /// permutation check), `all` (every compare × tie rule, and the sum check where the table
    /// resets), or one given as COMPARE,TIE[,CHECK] (e.g. `free,first`).
    #[arg(long, default_value = "default")]
    pub reading: String,
    /// Runs per puzzle (the paper: 10).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Seed of the random draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Folder holding the tiers easy.txt, medium.txt, hard.txt and evil.txt.
    #[arg(long, default_value = "puzzles", value_name = "DIR")]
    pub puzzles: String,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Write every number (paper, measured, interval, TTS99, timing) as JSON (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Write the tables as markdown, as in docs/REPRODUCTION.md (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<String>,
}

pub fn run(c: Command) -> Result<ExitCode> {
    match c {
        Command::Ilca(a) => ilca(a),
    }
}

/// A reading written COMPARE,TIE[,CHECK].
fn parse_reading(text: &str) -> Result<Reading> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let bad = || {
        format!(
            "--reading {text}: write default, all or COMPARE,TIE[,CHECK] with COMPARE one of {}, \
             TIE one of {}, CHECK one of {}",
            names::<Compare>(),
            names::<TieBreak>(),
            names::<ResetCheck>()
        )
    };
    if !(2..=3).contains(&parts.len()) {
        bail!(bad());
    }
    Ok(Reading {
        compare: Compare::from_name(parts[0]).with_context(bad)?,
        tie: TieBreak::from_name(parts[1]).with_context(bad)?,
        reset_check: match parts.get(2) {
            Some(c) => ResetCheck::from_name(c).with_context(bad)?,
            None => ResetCheck::Permutation,
        },
    })
}

fn names<T: Choice>() -> String {
    T::ALL
        .iter()
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join("/")
}

#[derive(Serialize)]
struct Report<'a> {
    tool: &'static str,
    version: &'static str,
    schema: u32,
    command: Vec<String>,
    backend: &'static str,
    adapter: Option<String>,
    puzzles: &'a str,
    seed: u64,
    #[serde(flatten)]
    reproduction: &'a reproduce::IlcaReproduction,
}

fn ilca(a: IlcaArgs) -> Result<ExitCode> {
    let presets: Vec<&'static Preset> = reproduce::ilca::paper_presets()
        .into_iter()
        .filter(|p| {
            a.table == "all"
                || p.paper
                    .is_some_and(|r| r.table == format!("Table {}", a.table))
        })
        .collect();
    let one = match a.reading.as_str() {
        "default" => Some(Reading::default()),
        "all" => None,
        text => Some(parse_reading(text)?),
    };
    // One reading for every table, or every reading (the sum check only where a table resets).
    let readings = |p: &Preset| one.map_or_else(|| Reading::all(p.sr > 0), |r| vec![r]);
    let tier_files: Vec<String> = ["easy", "medium", "hard", "evil"]
        .iter()
        .map(|t| format!("{}/{t}.txt", a.puzzles.trim_end_matches('/')))
        .collect();
    let outputs: Vec<Output> = [("--json", &a.json), ("--markdown", &a.markdown)]
        .into_iter()
        .filter_map(|(flag, p)| p.as_deref().map(|p| Output::new(flag, p)))
        .collect();
    let inputs: Vec<&str> = tier_files.iter().map(String::as_str).collect();
    super::output::check(&inputs, &outputs)?;
    let mut tiers: Vec<(String, Vec<Grid>)> = Vec::new();
    for (path, name) in tier_files.iter().zip(["easy", "medium", "hard", "evil"]) {
        let f = read_puzzles(path, None)?;
        tiers.push((name.into(), f.puzzles.into_iter().map(|p| p.grid).collect()));
    }
    let device = a.device.open()?;
    let runs = a.runs as usize;
    let settings: usize = presets.iter().map(|p| readings(p).len()).sum();
    let per_setting: usize = tiers.iter().map(|t| t.1.len()).sum::<usize>() * runs;
    let bar = super::progress::bar(settings * per_setting, "reproduce ilca");
    let result =
        reproduce::reproduce_ilca(&device, &tiers, &presets, &readings, runs, a.seed, &|k| {
            bar.inc(k as u64)
        })?;
    bar.finish_and_clear();
    let to_stdout = outputs
        .iter()
        .any(|o| o.target == super::output::Target::Stdout);
    let table = result.text();
    if to_stdout {
        super::output::stderr(&table);
    } else {
        super::output::stdout(&table);
    }
    for o in &outputs {
        let text = if o.flag == "--json" {
            let report = Report {
                tool: "gpu-sudoku",
                version: env!("CARGO_PKG_VERSION"),
                schema: SCHEMA,
                command: std::env::args().collect(),
                backend: device.name(),
                adapter: device.adapter(),
                puzzles: &a.puzzles,
                seed: a.seed,
                reproduction: &result,
            };
            serde_json::to_string_pretty(&report)? + "\n"
        } else {
            result.markdown()
        };
        o.write(text.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

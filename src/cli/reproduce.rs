//! `gpu-sudoku reproduce`: a paper's results in one command, paper beside measured.
//! `reproduce ilca` makes docs/REPRODUCTION.md's tables, `reproduce rfss` docs/RFSS.md's and
//! `reproduce baselines` docs/BASELINES.md's (their `--markdown` output).

use super::args::DeviceArgs;
use super::output::{Output, Target};
use anyhow::{bail, Context, Result};
use gpu_sudoku::choice::Choice;
use gpu_sudoku::ilca::presets::Preset;
use gpu_sudoku::ilca::{Compare, ResetCheck, TieBreak};
use gpu_sudoku::puzzle::{read_puzzles, read_puzzles_from, Grid, PuzzleFile, ReadOptions};
use gpu_sudoku::report::schema::{Header, InputInfo};
use gpu_sudoku::reproduce::baselines::{INFO_H410, PYUZZLE_GA, PYUZZLE_GENERATIONS, PYUZZLE_RUNS};
use gpu_sudoku::reproduce::rfss::HORN_2017;
use gpu_sudoku::reproduce::{self, BaselinesReproduction, Reading, Report, RfssReproduction};
use serde::Serialize;
use std::process::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// The ILCA paper (Chatzinikolaou et al. 2024): Tables 2–6 on the shipped tiers, paper vs
    /// measured with a 95% interval and the time-to-solution.
    Ilca(IlcaArgs),
    /// RFSS (Horn, GECCO'17 Companion): Horn's 25x25 run (301 clues, 750,000 generations)
    /// beside plain RFSS on the shipped 25x25 puzzles with 301 clues, and the rates on the 9x9
    /// tiers, plain and with `--enhance propagate`.
    Rfss(RfssArgs),
    /// The classic baselines: the A* trial counts of the INFO-H410 report and the GA operator
    /// table of the Pyuzzle report, report beside measured (CPU).
    Baselines(BaselinesArgs),
}

/// The reports every `reproduce` command can write.
#[derive(clap::Args, Debug)]
pub struct Outputs {
    /// Write every number (paper, measured, interval, timing) as JSON (`-`: stdout, the table
    /// then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Write the tables as markdown, as in the docs (`-`: stdout, the table then goes to
    /// stderr).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<String>,
}

impl Outputs {
    /// The outputs asked for, checked against the inputs before any work.
    fn check(&self, inputs: &[String]) -> Result<Vec<Output>> {
        let outputs: Vec<Output> = [("--json", &self.json), ("--markdown", &self.markdown)]
            .into_iter()
            .filter_map(|(flag, p)| p.as_deref().map(|p| Output::new(flag, p)))
            .collect();
        let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        super::output::check(&inputs, &outputs)?;
        Ok(outputs)
    }
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
    /// Read the tiers easy.txt, medium.txt, hard.txt and evil.txt from this folder instead of
    /// the built-in copies of the repository's puzzles/.
    #[arg(long, value_name = "DIR")]
    pub puzzles: Option<String>,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub outputs: Outputs,
}

#[derive(clap::Args, Debug)]
pub struct RfssArgs {
    /// What to run: `horn` (Horn's 25x25 run), `tiers` (the 9x9 tier rates) or `all`.
    #[arg(long, default_value = "all", value_parser = ["horn", "tiers", "all"])]
    pub what: String,
    /// Generation limit of every run [default: Horn's 750000 for `horn`, 100000 for `tiers`].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_generations: Option<u32>,
    /// Read 25x25-logic.txt and 25x25.txt (horn), the tiers easy.txt, medium.txt, hard.txt,
    /// evil.txt and the same four under unique/ (tiers) from this folder instead of the
    /// built-in copies of the repository's puzzles/.
    #[arg(long, value_name = "DIR")]
    pub puzzles: Option<String>,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub outputs: Outputs,
}

#[derive(clap::Args, Debug)]
pub struct BaselinesArgs {
    /// What to run: `astar` (the A* trial counts), `ga` (the GA operator table) or `all`.
    #[arg(long, default_value = "all", value_parser = ["astar", "ga", "all"])]
    pub what: String,
    /// GA runs per combination and puzzle (the report: 25). A* and backtracking are
    /// deterministic: they run each puzzle once.
    #[arg(long, default_value_t = PYUZZLE_RUNS as u32, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// GA generation limit per run (the report: 250).
    #[arg(long, value_name = "N", default_value_t = PYUZZLE_GENERATIONS, value_parser = clap::value_parser!(u64).range(1..))]
    pub ga_generations: u64,
    /// Seed of the GA runs (run r of puzzle p gets a seed mixed from it, as in `compare`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Read the inputs astar-d0673-500.txt, astar-d0673-10.txt and ga-{easy,medium,hard}.txt
    /// from this folder instead of the built-in copies of the repository's docs/baselines/.
    #[arg(long, value_name = "DIR")]
    pub puzzles: Option<String>,
    #[command(flatten)]
    pub outputs: Outputs,
}

pub fn run(c: Command) -> Result<ExitCode> {
    match c {
        Command::Ilca(a) => ilca(a),
        Command::Rfss(a) => rfss(a),
        Command::Baselines(a) => baselines(a),
    }
}

/// Builds the report of a reproduction and writes it as the outputs ask.
struct Written<'a, T: Serialize>(Report<'a, T>);

impl<'a, T: Serialize> Written<'a, T> {
    fn new(
        backend: &'static str,
        adapter: Option<String>,
        puzzles: &'a str,
        inputs: Vec<InputInfo>,
        seed: Option<u64>,
        reproduction: &'a T,
    ) -> Self {
        Written(Report {
            header: Header::new(std::env::args().collect()),
            backend,
            adapter,
            puzzles,
            inputs,
            seed,
            reproduction,
        })
    }

    /// Prints `table` (on stderr when a report goes to stdout) and writes the outputs.
    fn finish(
        &self,
        outputs: &[Output],
        table: &str,
        markdown: &dyn Fn() -> String,
    ) -> Result<ExitCode> {
        if outputs.iter().any(|o| o.target == Target::Stdout) {
            super::output::stderr(table);
        } else {
            super::output::stdout(table);
        }
        for o in outputs {
            let text = if o.flag == "--json" {
                serde_json::to_string_pretty(&self.0)? + "\n"
            } else {
                markdown()
            };
            o.write(text.as_bytes())?;
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// Where `reproduce` reads its puzzle sets: the built-in copies of the repository's files
/// (`reproduce::shipped`, so that it runs from any folder), or a folder given with --puzzles.
struct Sets<'a> {
    given: Option<&'a str>,
    /// The repository folder of the built-in copies (`puzzles`, `docs/baselines`).
    home: &'static str,
}

impl Sets<'_> {
    /// What the report says the inputs came from.
    fn label(&self) -> &str {
        self.given.unwrap_or(BUILT_IN)
    }

    /// `DIR/SUB/NAME.txt` for each name (SUB may be empty).
    fn paths(&self, sub: &str, names: &[&str]) -> Vec<String> {
        let dir = self.given.unwrap_or(self.home).trim_end_matches('/');
        let dir = if sub.is_empty() {
            dir.to_string()
        } else {
            format!("{dir}/{sub}")
        };
        names.iter().map(|n| format!("{dir}/{n}.txt")).collect()
    }

    /// Reads every file of `paths` (from [`Sets::paths`]).
    fn read_all(&self, paths: &[String]) -> Result<Vec<PuzzleFile>> {
        paths
            .iter()
            .map(|p| match self.given {
                None => {
                    let text = gpu_sudoku::reproduce::shipped::get(p)
                        .ok_or_else(|| anyhow::anyhow!("{p} is not built in"))?;
                    Ok(read_puzzles_from(
                        p,
                        text.as_bytes(),
                        &ReadOptions::default(),
                    )?)
                }
                Some(_) => read_puzzles(p, None).map_err(|e| {
                    if std::path::Path::new(p).exists() {
                        anyhow::Error::from(e)
                    } else {
                        anyhow::anyhow!(
                            "{e}; without --puzzles, `reproduce` reads the sets built into it"
                        )
                    }
                }),
            })
            .collect()
    }
}

/// The report's `puzzles` for the built-in sets.
const BUILT_IN: &str = "built in";

const TIERS: [&str; 4] = ["easy", "medium", "hard", "evil"];

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

/// The readings to run for each preset.
type Readings = Box<dyn Fn(&Preset) -> Vec<Reading>>;

fn ilca(a: IlcaArgs) -> Result<ExitCode> {
    let presets: Vec<&'static Preset> = reproduce::ilca::paper_presets()
        .into_iter()
        .filter(|p| {
            a.table == "all"
                || p.paper
                    .is_some_and(|r| r.table == format!("Table {}", a.table))
        })
        .collect();
    let readings: Readings = match a.reading.as_str() {
        "default" => Box::new(|_| vec![Reading::default()]),
        "all" => Box::new(|p| Reading::all(p.sr > 0)),
        one => {
            let r = parse_reading(one)?;
            Box::new(move |_| vec![r])
        }
    };
    let sets = Sets {
        given: a.puzzles.as_deref(),
        home: "puzzles",
    };
    let tier_files = sets.paths("", &TIERS);
    let outputs = a.outputs.check(&tier_files)?;
    let files = sets.read_all(&tier_files)?;
    let inputs: Vec<InputInfo> = files.iter().map(InputInfo::of_file).collect();
    let tiers: Vec<(String, Vec<Grid>)> = files
        .into_iter()
        .zip(TIERS)
        .map(|(f, name)| (name.into(), f.puzzles.into_iter().map(|p| p.grid).collect()))
        .collect();
    let runs = a.runs as usize;
    // One setting's results are held at a time: every tier's instances and their results.
    let puzzles: usize = tiers.iter().map(|t| t.1.len()).sum();
    gpu_sudoku::limits::check_memory(
        (puzzles as u64).saturating_mul(runs as u64),
        gpu_sudoku::limits::held_bytes_per_instance(81) + 8 * 81,
        "one setting's instances and their results",
        gpu_sudoku::limits::available_memory(),
        "use fewer --runs",
    )?;
    let device = a.device.open()?;
    // Per setting, every tier's puzzles × runs (one run for a reading that ignores the seed).
    let instances: usize = presets
        .iter()
        .flat_map(|p| readings(p).into_iter().map(|r| r.apply(p.params())))
        .map(|params| puzzles * params.runs_per_puzzle(runs))
        .sum();
    let bar = super::progress::bar(instances, "reproduce ilca");
    let result =
        reproduce::reproduce_ilca(&device, &tiers, &presets, &readings, runs, a.seed, &|k| {
            bar.inc(k as u64)
        })?;
    bar.finish_and_clear();
    Written::new(
        device.name(),
        device.adapter(),
        sets.label(),
        inputs,
        Some(a.seed),
        &result,
    )
    .finish(&outputs, &result.text(), &|| result.markdown())
}

fn rfss(a: RfssArgs) -> Result<ExitCode> {
    let horn = a.what != "tiers";
    let tiers = a.what != "horn";
    let sets = Sets {
        given: a.puzzles.as_deref(),
        home: "puzzles",
    };
    let horn_files = if horn {
        sets.paths("", &["25x25-logic", "25x25"])
    } else {
        Vec::new()
    };
    let tier_sets: Vec<(&str, Vec<String>)> = if tiers {
        vec![
            ("paper model", sets.paths("", &TIERS)),
            ("unique (rated)", sets.paths("unique", &TIERS)),
        ]
    } else {
        Vec::new()
    };
    let inputs: Vec<String> = horn_files
        .iter()
        .chain(tier_sets.iter().flat_map(|s| &s.1))
        .cloned()
        .collect();
    let outputs = a.outputs.check(&inputs)?;
    let horn_files = sets.read_all(&horn_files)?;
    let tier_sets: Vec<(String, Vec<PuzzleFile>)> = tier_sets
        .iter()
        .map(|(name, paths)| Ok((name.to_string(), sets.read_all(paths)?)))
        .collect::<Result<_>>()?;
    let inputs: Vec<InputInfo> = horn_files
        .iter()
        .chain(tier_sets.iter().flat_map(|s| &s.1))
        .map(InputInfo::of_file)
        .collect();
    let device = a.device.open()?;
    let count = |files: &[PuzzleFile]| files.iter().map(|f| f.puzzles.len()).sum::<usize>();
    // Each tier file runs twice: plain and enhanced.
    let total = count(&horn_files) + 2 * tier_sets.iter().map(|s| count(&s.1)).sum::<usize>();
    let bar = super::progress::bar(total, "reproduce rfss");
    let progress = |k: usize| bar.inc(k as u64);
    let result = RfssReproduction {
        horn: horn
            .then(|| {
                let limit = a.max_generations.unwrap_or(HORN_2017.generations);
                reproduce::reproduce_horn(&device, &horn_files, limit, &progress)
            })
            .transpose()?,
        tiers: tiers
            .then(|| {
                let limit = a
                    .max_generations
                    .unwrap_or(gpu_sudoku::rfss::RfssParams::default().max_generations);
                reproduce::reproduce_tiers(&device, &tier_sets, limit, &progress)
            })
            .transpose()?,
    };
    bar.finish_and_clear();
    Written::new(
        device.name(),
        device.adapter(),
        sets.label(),
        inputs,
        None,
        &result,
    )
    .finish(&outputs, &result.text(), &|| result.markdown())
}

fn baselines(a: BaselinesArgs) -> Result<ExitCode> {
    let astar = a.what != "ga";
    let ga = a.what != "astar";
    let mut names: Vec<&str> = Vec::new();
    let wanted = INFO_H410
        .iter()
        .filter(|_| astar)
        .map(|s| s.file)
        .chain(PYUZZLE_GA.iter().filter(|_| ga).map(|r| r.file));
    for name in wanted {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let sets = Sets {
        given: a.puzzles.as_deref(),
        home: "docs/baselines",
    };
    let paths = sets.paths("", &names);
    let outputs = a.outputs.check(&paths)?;
    let files = sets.read_all(&paths)?;
    let runs = a.runs as usize;
    // The GA's attempts of one file and combination are held at a time.
    if ga {
        let largest = files.iter().map(|f| f.puzzles.len()).max().unwrap_or(0);
        gpu_sudoku::limits::check_memory(
            (largest as u64).saturating_mul(runs as u64),
            gpu_sudoku::limits::held_bytes_per_instance(81),
            "one file's GA attempts and their results",
            gpu_sudoku::limits::available_memory(),
            "use fewer --runs",
        )?;
    }
    let puzzles_of = |stem: &str| {
        files
            .iter()
            .find(|f| f.label() == stem)
            .map_or(0, |f| f.puzzles.len())
    };
    let mut total = 0;
    if astar {
        total += INFO_H410.iter().map(|s| puzzles_of(s.file)).sum::<usize>();
    }
    if ga {
        total += PYUZZLE_GA.iter().map(|r| puzzles_of(r.file)).sum::<usize>() * 27 * runs;
    }
    let bar = super::progress::bar(total, "reproduce baselines");
    let tick = || bar.inc(1);
    let result = BaselinesReproduction {
        astar: astar
            .then(|| reproduce::reproduce_astar(&files, &tick))
            .transpose()?,
        ga: ga
            .then(|| reproduce::reproduce_ga(&files, runs, a.ga_generations, a.seed, &tick))
            .transpose()?,
    };
    bar.finish_and_clear();
    let inputs = files.iter().map(InputInfo::of_file).collect();
    Written::new(
        "cpu",
        None,
        sets.label(),
        inputs,
        ga.then_some(a.seed),
        &result,
    )
    .finish(&outputs, &result.text(), &|| result.markdown())
}

//! `gpu-sudoku compare FILE... --algos …`: the classic baselines, ILCA and RFSS (CPU) side by
//! side on the same puzzles: solved %, wall time per puzzle and iterations per algorithm × file.

use super::args::{print_table, ReportArgs};
use anyhow::{bail, Context, Result};
use gpu_sudoku::backend::Device;
use gpu_sudoku::baselines::{self, Budget};
use gpu_sudoku::ilca::{self, Batch, IlcaParams, Instance};
use gpu_sudoku::puzzle::{read_puzzles, Grid};
use gpu_sudoku::rfss::{self, RfssParams};
use rayon::prelude::*;
use serde::Serialize;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle files (one puzzle per line, or n lines of integers).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Comma-separated algorithms: backtrack, mrv, astar, astar-small, astar-big,
    /// astar-weighted, ga, ga-SELECTION-CROSSOVER-MUTATION, sa, hc, ilca, rfss.
    #[arg(long, default_value = "backtrack,mrv,astar,ga,sa,hc,ilca,rfss")]
    pub algos: String,
    /// Attempts per puzzle (stochastic algorithms get a different seed per attempt).
    #[arg(long, default_value_t = 1)]
    pub runs: usize,
    /// Wall-clock budget per attempt in milliseconds for the baselines (ILCA and RFSS stop on
    /// their step limits only; MRV on its node limit only). 0 = no time limit.
    #[arg(long, default_value_t = 2000)]
    pub budget_ms: u64,
    /// Iteration limit per attempt (nodes, trials, generations or steps). ILCA defaults to 250
    /// steps and RFSS to 100000 generations when it is not given.
    #[arg(long)]
    pub max_iterations: Option<u64>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Force the grid side instead of detecting it.
    #[arg(long)]
    pub size: Option<usize>,
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// One algorithm on one file.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub file: String,
    pub algo: String,
    /// What an iteration is (nodes, trials, generations, steps).
    pub unit: String,
    pub puzzles: usize,
    pub runs: usize,
    pub attempts: usize,
    pub solved: usize,
    pub solved_pct: f64,
    pub median_ms: f64,
    pub mean_ms: f64,
    pub median_iterations: f64,
    pub mean_iterations: f64,
}

#[derive(Serialize)]
struct Report<'a> {
    seed: u64,
    runs: usize,
    budget_ms: u64,
    max_iterations: Option<u64>,
    rows: &'a [Row],
}

/// (solved, iterations, wall time) of one attempt.
type Outcome = (bool, u64, Duration);

enum Algo {
    Baseline(String),
    Ilca,
    Rfss,
}

fn parse_algos(s: &str) -> Result<Vec<Algo>> {
    let mut out = Vec::new();
    for name in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        out.push(match name {
            "ilca" => Algo::Ilca,
            "rfss" => Algo::Rfss,
            other => {
                // Validates the name (and GA combination) now, before any work.
                if other != "astar-weighted" {
                    if let Err(e) = baselines::by_name(other, &[]) {
                        bail!("--algos: {e}, ilca, rfss");
                    }
                }
                Algo::Baseline(other.to_string())
            }
        });
    }
    if out.is_empty() {
        bail!("--algos is empty; give a comma-separated list such as backtrack,mrv,ilca");
    }
    Ok(out)
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

fn row(file: &str, algo: &str, unit: &str, puzzles: usize, runs: usize, r: &[Outcome]) -> Row {
    let solved = r.iter().filter(|x| x.0).count();
    let mut ms: Vec<f64> = r.iter().map(|x| x.2.as_secs_f64() * 1e3).collect();
    let mut it: Vec<f64> = r.iter().map(|x| x.1 as f64).collect();
    let n = r.len().max(1) as f64;
    Row {
        file: file.to_string(),
        algo: algo.to_string(),
        unit: unit.to_string(),
        puzzles,
        runs,
        attempts: r.len(),
        solved,
        solved_pct: 100.0 * solved as f64 / n,
        mean_ms: ms.iter().sum::<f64>() / n,
        median_ms: median(&mut ms),
        mean_iterations: it.iter().sum::<f64>() / n,
        median_iterations: median(&mut it),
    }
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.runs == 0 {
        bail!("--runs must be at least 1");
    }
    if a.max_iterations == Some(0) {
        bail!("--max-iterations must be at least 1 (or left out)");
    }
    if a.budget_ms == 0 && a.max_iterations.is_none() {
        bail!("give a time budget (--budget-ms) or --max-iterations: local search may never end");
    }
    let algos = parse_algos(&a.algos)?;
    let budget = Budget {
        max_iterations: a.max_iterations,
        max_time: (a.budget_ms > 0).then(|| Duration::from_millis(a.budget_ms)),
    };
    let ilca = IlcaParams {
        steps: a
            .max_iterations
            .map_or(Ok(250), u32::try_from)
            .context("--max-iterations is too large for ILCA steps")?,
        seed: a.seed,
        ..IlcaParams::default()
    };
    let rfss_params = RfssParams {
        max_generations: a
            .max_iterations
            .map_or(Ok(RfssParams::default().max_generations), u32::try_from)
            .context("--max-iterations is too large for RFSS generations")?,
        ..RfssParams::default()
    };
    if algos.iter().any(|x| matches!(x, Algo::Ilca)) {
        ilca.validate()?;
    }
    if algos.iter().any(|x| matches!(x, Algo::Rfss)) {
        rfss_params.validate()?;
    }
    let input_paths: Vec<&str> = a.files.iter().map(String::as_str).collect();
    a.reports.check(&input_paths)?;
    let files = a
        .files
        .iter()
        .map(|f| read_puzzles(f, a.size).map_err(anyhow::Error::from))
        .collect::<Result<Vec<_>>>()?;
    let total: usize = files.iter().map(|f| f.puzzles.len()).sum::<usize>() * a.runs * algos.len();
    let pb = super::progress::bar(total, "compare");
    let tick = || pb.inc(1);
    let mut rows = Vec::new();
    for file in &files {
        let grids: Vec<Grid> = file.puzzles.iter().map(|p| p.grid.clone()).collect();
        let label = file.label();
        let attempts = grids.len() * a.runs;
        for algo in &algos {
            let (name, unit, r): (String, String, Vec<Outcome>) = match algo {
                Algo::Baseline(name) => {
                    let b = baselines::by_name(name, &grids)?;
                    let r =
                        baselines::run_batch(b.as_ref(), &grids, a.runs, a.seed, &budget, &tick)
                            .into_iter()
                            .map(|x| (x.solved, x.iterations, x.elapsed))
                            .collect();
                    (b.name().to_string(), b.unit().to_string(), r)
                }
                // Each attempt runs alone through the CPU runner, so that it is timed alone.
                Algo::Ilca => {
                    let r = (0..attempts)
                        .into_par_iter()
                        .map(|i| {
                            let t = Instant::now();
                            let batch = Batch {
                                puzzles: &grids,
                                settings: std::slice::from_ref(&ilca),
                                instances: vec![Instance {
                                    setting: 0,
                                    puzzle: i / a.runs,
                                    run: i % a.runs,
                                }],
                            };
                            let res = ilca::run::run(&Device::Cpu, &batch, &|_| {})?.remove(0);
                            tick();
                            Ok((res.solved, res.steps as u64, t.elapsed()))
                        })
                        .collect::<Result<Vec<_>>>()?;
                    ("ilca".into(), "steps".into(), r)
                }
                Algo::Rfss => {
                    let r = (0..attempts)
                        .into_par_iter()
                        .map(|i| {
                            let p = i / a.runs;
                            let t = Instant::now();
                            let o = rfss::run::run(
                                &Device::Cpu,
                                std::slice::from_ref(&grids[p]),
                                &rfss_params,
                                &|_| {},
                            )?
                            .remove(0);
                            let res = o.to_instance_result(p);
                            tick();
                            Ok((res.solved, res.steps as u64, t.elapsed()))
                        })
                        .collect::<Result<Vec<_>>>()?;
                    ("rfss".into(), "generations".into(), r)
                }
            };
            rows.push(row(&label, &name, &unit, grids.len(), a.runs, &r));
        }
    }
    pb.finish_and_clear();
    print_table(&a.reports, &table(&rows));
    let report = Report {
        seed: a.seed,
        runs: a.runs,
        budget_ms: a.budget_ms,
        max_iterations: a.max_iterations,
        rows: &rows,
    };
    a.reports.write(
        || Ok(serde_json::to_string_pretty(&report)? + "\n"),
        || {
            let mut s = String::from("file,algo,unit,puzzles,runs,attempts,solved,solved_pct,median_ms,mean_ms,median_iterations,mean_iterations\n");
            for r in &rows {
                s += &format!(
                    "{},{},{},{},{},{},{},{:.2},{:.4},{:.4},{},{:.2}\n",
                    r.file,
                    r.algo,
                    r.unit,
                    r.puzzles,
                    r.runs,
                    r.attempts,
                    r.solved,
                    r.solved_pct,
                    r.median_ms,
                    r.mean_ms,
                    r.median_iterations,
                    r.mean_iterations
                );
            }
            s
        },
    )?;
    Ok(ExitCode::SUCCESS)
}

fn table(rows: &[Row]) -> String {
    let mut t = format!(
        "{:<28} {:<28} {:>9} {:>8} {:>11} {:>11} {:>12} {:<11}\n",
        "file", "algorithm", "attempts", "solved%", "median ms", "mean ms", "median iter", "unit"
    );
    for r in rows {
        t += &format!(
            "{:<28} {:<28} {:>9} {:>8.1} {:>11.3} {:>11.3} {:>12} {:<11}\n",
            r.file,
            r.algo,
            r.attempts,
            r.solved_pct,
            r.median_ms,
            r.mean_ms,
            r.median_iterations,
            r.unit
        );
    }
    t
}

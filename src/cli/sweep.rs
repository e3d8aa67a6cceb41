//! `gpu-sudoku sweep`: one or two ILCA parameters over ranges on one or more puzzle files, all
//! settings batched into as few engine calls as fit; a CSV written block by block (an
//! interrupted sweep leaves a valid CSV, and `--resume` continues it from the journal beside
//! it, which names the run) and the paper's figures.

use super::args::InputArgs;
use anyhow::{bail, ensure, Context, Result};
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::DeviceArgs;
use super::ilca_args::IlcaFixedArgs;
use super::journal::Journal;
use super::plot::FormatArg;
use gpu_sudoku::backend::Device;
use gpu_sudoku::ilca::IlcaParams;
use gpu_sudoku::report::schema::{provenance_here, InputInfo};
use gpu_sudoku::shard::{self, Shard};
use gpu_sudoku::sweep::{self, figures, Group, Input, Param, Plan, Sweep, SweepSpec, Values};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Puzzle files, e.g. one per tier (puzzles/easy.txt …); the file name without directory
    /// and extension (and `.gz`) labels its rows, so the names must differ. Files of different
    /// sizes run in separate engine calls.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Runs per puzzle and setting.
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
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
    pub steps: Option<Values>,
    /// Also run a reference setting, drawn dotted in the figures: KEY=VALUE pairs over lr, lp,
    /// ratio, sr (e.g. `lr=1,lp=1,sr=0`, the paper's initial algorithm); unset keys keep the
    /// sweep's fixed values.
    #[arg(long)]
    pub baseline: Option<String>,
    #[command(flatten)]
    pub fixed: IlcaFixedArgs,
    /// The CSV to write (replaced, unless --resume). While the sweep runs, the journal
    /// `CSV.partial.jsonl` beside it holds the finished settings (removed at the end).
    #[arg(long, default_value = "sweep.csv")]
    pub csv: PathBuf,
    /// Finish an interrupted sweep run with the same options: keep the settings its journal
    /// (beside --csv) holds, run the rest. Another sweep's journal is refused.
    #[arg(long)]
    pub resume: bool,
    /// Also write the rows as JSON (with each row's setting index, the inputs' hashes and the
    /// provenance), the report `gpu-sudoku merge` joins for sharded sweeps (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Run only shard K of N (0 ≤ K < N) of the settings; `gpu-sudoku merge` joins the N
    /// `--json` reports.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Write the figures into this folder (created if missing).
    #[arg(long, alias = "plot-dir", value_name = "DIR")]
    pub figures: Option<PathBuf>,
    /// Figure format (`--format` is the puzzle files' layout here).
    #[arg(long, value_enum, default_value_t = FormatArg::Png)]
    pub figure_format: FormatArg,
    /// Leave the Wilson 95% intervals out of the figures (drawn by default).
    #[arg(long)]
    pub no_intervals: bool,
    /// Width of the difficulty bins of the `d` rows (and of the rate-vs-d figure), in
    /// [0.01, 1].
    #[arg(long, default_value_t = 0.05)]
    pub d_bin: f64,
    /// Settings per engine call (0 = enough for a few hundred thousand instances on the GPU,
    /// tens of thousands on the CPU). The CSV grows by one call's rows at a time.
    #[arg(long, default_value_t = 0)]
    pub block: usize,
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

    fn base(&self) -> IlcaParams {
        self.fixed.base()
    }
}

/// Reads the puzzle files as sweep inputs; notes once when d falls back to the blank fraction.
pub fn read_inputs(files: &[String], input: &InputArgs) -> Result<Vec<Input>> {
    let paths: Vec<&str> = files.iter().map(String::as_str).collect();
    super::args::refuse_stdin_twice(&paths)?;
    super::args::refuse_duplicate_labels(&paths)?;
    let mut inputs: Vec<Input> = Vec::new();
    let mut fallback = 0;
    for f in files {
        let file = input.read(f)?;
        ensure!(!file.puzzles.is_empty(), "{f}: no puzzles in the file");
        let label = file.label();
        ensure!(
            !label.contains([',', '"']) && !label.is_empty(),
            "{f}: the file name `{label}` labels CSV rows and must not contain a comma or quote"
        );
        fallback += file
            .puzzles
            .iter()
            .filter(|p| sweep::difficulty(p).1)
            .count();
        inputs.push(Input::new(label, &file.puzzles));
    }
    if fallback > 0 {
        errln!(
            "note: {fallback} puzzles have no `d=` field; their difficulty d is their fraction of blank cells"
        );
    }
    Ok(inputs)
}

pub fn run(a: Args) -> Result<ExitCode> {
    let started = std::time::SystemTime::now();
    ensure!(a.runs >= 1, "--runs must be at least 1");
    // The runs per puzzle this sweep makes (its journal keeps the --runs asked for, so that a
    // resume of the same command matches).
    let runs = super::ilca_args::runs_per_puzzle(&a.base(), a.runs);
    gpu_sudoku::sweep::check_d_bin(a.d_bin)?;
    // The CSV grows as blocks finish and a journal sits beside it: it must be a file.
    ensure!(
        a.csv.as_os_str() != "-",
        "--csv -: a sweep writes its CSV as it goes, with a journal beside it, so it needs a file \
         name (then `cat` it)"
    );
    let spec = a.spec()?;
    let plan = Plan::new(&spec, &a.base())?;
    let input_paths: Vec<&str> = a.files.iter().map(String::as_str).collect();
    let mut outputs = vec![super::output::Output::new(
        "--csv",
        &a.csv.to_string_lossy(),
    )];
    outputs.extend(
        a.json
            .as_deref()
            .map(|p| super::output::Output::new("--json", p)),
    );
    let formats = a.figure_format.formats();
    if let Some(dir) = &a.figures {
        let swept: Vec<Param> = plan.axes.iter().map(|(p, _)| *p).collect();
        outputs.extend(super::plot::sweep_figure_outputs(dir, &swept, &formats));
    }
    super::output::check(&input_paths, &outputs)?;
    let inputs = read_inputs(&a.files, &a.input)?;

    // This process's settings: all, or its shard's (each setting costs instances × steps).
    let per_setting = inputs.iter().map(|i| i.puzzles.len()).sum::<usize>() * runs;
    let groups: Vec<(usize, u64)> = plan
        .runs
        .iter()
        .map(|r| {
            (
                1,
                (per_setting as u64).saturating_mul(r.params.steps as u64),
            )
        })
        .collect();
    let mine: Vec<bool> = shard::ranges(&groups, a.shard, "settings")?
        .into_iter()
        .map(|r| !r.is_empty())
        .collect();
    // The journal beside the CSV names the run exactly; `--resume` continues only that run.
    let header = journal_header(&a, &spec, &plan, &inputs)?;
    let journal_path = super::journal::path_for(&a.csv);
    let resuming = a.resume && journal_path.exists();
    if a.resume && !resuming && a.csv.exists() {
        bail!(
            "--resume: {} is not the CSV of an interrupted sweep (no journal {} beside it: the \
             sweep finished, or another run wrote the file); drop --resume to run the sweep \
             again and replace it, or write to another --csv",
            a.csv.display(),
            journal_path.display()
        );
    }

    let devices = a.device.open_many()?;
    let device = &devices[0];
    for d in &devices {
        errln!("backend: {}", d.describe());
    }

    let sw = Sweep {
        plan: &plan,
        inputs: &inputs,
        runs,
        d_bin: a.d_bin,
    };
    // The settings the journal holds (the interrupted run's, in the order they were written)
    // and their rows: only these count as done, whatever the CSV still holds.
    let mut rows = Vec::new();
    let mut skip = HashSet::new();
    let (mut journal, _) = Journal::open::<BlockDone>(&journal_path, &header, a.resume, |_, b| {
        for (i, set_rows) in b.settings {
            // The header makes any other impossible; a setting twice keeps its first rows.
            let fits = i < plan.runs.len()
                && mine[i]
                && !skip.contains(&i)
                && set_rows.iter().all(|r| plan.setting_of(r) == Some(i));
            if fits {
                skip.insert(i);
                rows.extend(set_rows);
            }
        }
        Ok(true) // sweep counts its settings itself
    })?;
    // The CSV: the journal's rows (the settings done before an interruption), then each block's
    // rows as they come. Rows of settings not in the journal (a block cut before its journal
    // line) are dropped here and run again.
    let mut text = String::from(sweep::CSV_HEADER) + "\n";
    for r in &rows {
        text += &(r.csv_line() + "\n");
    }
    super::output::Output::new("--csv", &a.csv.to_string_lossy()).write(text.as_bytes())?;
    if resuming {
        errln!(
            "resuming {}: {} of {} settings already done",
            a.csv.display(),
            skip.len(),
            mine.iter().filter(|&&m| m).count()
        );
    }
    let mut out = std::fs::OpenOptions::new()
        .append(true)
        .open(&a.csv)
        .with_context(|| format!("cannot write {}", a.csv.display()))?;

    let todo: Vec<usize> = (0..plan.runs.len())
        .filter(|&i| mine[i] && !skip.contains(&i))
        .collect();
    let block = if a.block > 0 {
        a.block
    } else {
        let target = match device {
            Device::Gpu(_) => 1 << 19,
            Device::Cpu => 1 << 15,
        };
        (target / per_setting.max(1)).max(1)
    };
    errln!(
        "sweep of {}: {} settings ({} to run) x {} instances, {} settings per engine call",
        plan.swept(),
        plan.runs.len(),
        todo.len(),
        per_setting,
        block
    );
    let pb = super::progress::bar(todo.len() * per_setting, "sweep");
    // Blocks run on every device at once; their rows go to the CSV in block order.
    let blocks: Vec<&[usize]> = todo.chunks(block).collect();
    let mut waiting = std::collections::BTreeMap::new();
    let mut next_to_write = 0;
    let mut usage = vec![(0, std::time::Duration::ZERO); devices.len()];
    super::args::run_on_devices(
        &devices,
        blocks.len(),
        &mut usage,
        |device, k| {
            let settings: Vec<_> = blocks[k].iter().map(|&i| plan.runs[i].clone()).collect();
            let rows = sw.run_block(device, &settings, &|n| pb.inc(n as u64))?;
            Ok((rows, blocks[k].len() * per_setting))
        },
        |k, new: Vec<Vec<sweep::Row>>| {
            waiting.insert(k, new);
            while let Some(new) = waiting.remove(&next_to_write) {
                // The rows go to the CSV first, then the block to the journal: a block cut
                // between the two runs again on --resume, its rows replaced.
                for r in new.iter().flatten() {
                    writeln!(out, "{}", r.csv_line())?;
                }
                out.flush()
                    .with_context(|| format!("cannot write {}", a.csv.display()))?;
                let block = BlockDone {
                    settings: blocks[next_to_write].iter().copied().zip(new).collect(),
                };
                journal.append(&block)?;
                rows.extend(block.settings.into_iter().flat_map(|(_, r)| r));
                next_to_write += 1;
            }
            Ok(())
        },
    )?;
    super::args::report_usage(&devices, &usage);
    pb.finish_and_clear();
    errln!("wrote {} rows to {}", rows.len(), a.csv.display());
    if let Some(path) = &a.json {
        let mut tagged: Vec<(usize, &sweep::Row)> = rows
            .iter()
            .map(|r| (plan.setting_of(r).expect("a row of this plan"), r))
            .collect();
        tagged.sort_by_key(|(s, _)| *s);
        let report = serde_json::json!({
            "tool": "gpu-sudoku",
            "version": env!("CARGO_PKG_VERSION"),
            "schema": gpu_sudoku::report::batch::SCHEMA,
            "command": std::env::args().collect::<Vec<_>>(),
            "kind": "sweep",
            "params": {
                "swept": plan.swept(),
                "base": a.base(),
                "axes": plan.axes,
                "settings": plan.runs.len(),
                "runs": runs,
                "d_bin": a.d_bin,
            },
            "inputs": inputs.iter().zip(&a.files)
                .map(|(i, path)| InputInfo::of_grids(path, &i.puzzles))
                .collect::<Vec<_>>(),
            "shard": a.shard,
            "provenance": provenance_here(started),
            "rows": tagged.iter().map(|(s, r)| {
                let mut v = serde_json::to_value(r).expect("a row serialises");
                v["setting"] = (*s).into();
                // As in batch's and compare's rows (NaN, for no instances, is null).
                v["solved_pct"] = r.solved_pct().into();
                v["solved_pct_95"] = serde_json::json!(r.solved_pct_95());
                v
            }).collect::<Vec<_>>(),
        });
        super::output::Output::new("--json", path)
            .write((serde_json::to_string_pretty(&report)? + "\n").as_bytes())?;
    }

    // Standard output, unless the JSON report takes it.
    let say = |text: &str| {
        if a.json.as_deref() == Some("-") {
            super::output::stderr(text);
        } else {
            super::output::stdout(text);
        }
    };
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
        if best.is_some_and(|b| b.solved_pct() == 0.0) {
            say(&format!(
                "best {l:<10}   none: no setting solved a puzzle\n"
            ));
        } else if let Some(b) = best {
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
            say(&format!(
                "best {:<10} {:>6.2}% at {}\n",
                l,
                b.solved_pct(),
                at.join(", ")
            ));
        }
    }

    if let Some(dir) = &a.figures {
        if rows.is_empty() {
            bail!("no rows to plot");
        }
        let opts = figures::Options {
            intervals: !a.no_intervals,
        };
        super::plot::write_sweep_figures(&rows, dir, &formats, opts, &say)?;
    }
    // Everything is written: the journal is no longer needed.
    journal.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// One finished block of settings as the sweep's journal holds it: each setting's index in the
/// plan and its rows.
#[derive(serde::Serialize, serde::Deserialize)]
struct BlockDone {
    settings: Vec<(usize, Vec<sweep::Row>)>,
}

/// The first line of a sweep's journal: everything its rows depend on (every ILCA parameter,
/// the ranges, the baseline, runs, the d bins, the inputs and their content, the shard; not the
/// backend or the block size), so `--resume` continues only the same sweep.
fn journal_header(
    a: &Args,
    spec: &SweepSpec,
    plan: &Plan,
    inputs: &[Input],
) -> Result<serde_json::Value> {
    let mut params = serde_json::to_value(a.base())?;
    let obj = params
        .as_object_mut()
        .context("ILCA parameters serialise as an object")?;
    // The swept parameters' values, the others' one value (or how they follow the ratio).
    for p in Param::ALL {
        let v = match plan.axes.iter().find(|(q, _)| *q == p) {
            Some((_, values)) => serde_json::json!(values),
            None => {
                let first = plan.points.first().map_or(f64::NAN, |pt| pt.get(p));
                if plan.points.iter().all(|pt| pt.get(p) == first) {
                    serde_json::json!(first)
                } else {
                    serde_json::json!("follows the ratio")
                }
            }
        };
        obj.insert(p.name().into(), v);
    }
    let baseline = spec.baseline.as_ref().map(|b| {
        b.iter()
            .map(|(p, v)| (p.name().to_string(), serde_json::json!(v)))
            .collect::<serde_json::Map<_, _>>()
    });
    obj.insert("baseline".into(), serde_json::json!(baseline));
    obj.insert("runs".into(), a.runs.into());
    obj.insert("d_bin".into(), a.d_bin.into());
    Ok(serde_json::json!({
        "tool": "gpu-sudoku",
        "version": env!("CARGO_PKG_VERSION"),
        "kind": "sweep",
        "params": params,
        "inputs": inputs.iter().zip(&a.files)
            .map(|(i, path)| InputInfo::of_grids(path, &i.puzzles))
            .collect::<Vec<_>>(),
        "shard": a.shard,
    }))
}

fn decimals(s: &str) -> Option<usize> {
    if s.contains(['e', 'E']) {
        return None;
    }
    Some(s.split_once('.').map_or(0, |(_, f)| f.len()))
}

/// Most values one range may have.
pub const MAX_RANGE_VALUES: usize = 10_000;

/// Parses `--<param> TEXT`: a number, or `A:B:STEP` (A ≤ B, STEP > 0; B is included when it is
/// on the grid). Values are rounded to the decimals written, so `0.1:0.5:0.1` gives 0.3, not
/// 0.30000000000000004. `sr` and `steps` take whole numbers.
pub fn parse_values(param: Param, text: &str) -> Result<Values> {
    let flag = format!("--{}", param.name());
    let t = text.trim();
    let num = |s: &str, what: &str| -> Result<f64> {
        let v: f64 = s.trim().parse().map_err(|_| {
            anyhow::anyhow!(
                "{flag} {t}: the {what} `{s}` is not a number (write a value like 3.5 or a range A:B:STEP like 10:150:5)"
            )
        })?;
        ensure!(
            v.is_finite(),
            "{flag} {t}: the {what} must be a finite number"
        );
        Ok(v)
    };
    // Every value, single or of a range, within what the engine takes.
    let whole = |v: f64| -> Result<()> {
        param.check(v).map_err(|why| {
            anyhow::anyhow!(
                "{flag} {t}: {} is out of range: {why}",
                // Whole numbers in full (1001000 shortened to 1e6 would look in range).
                if v.fract() == 0.0 && v.abs() < 1e15 {
                    format!("{v}")
                } else {
                    gpu_sudoku::plot::fmt_num(v)
                }
            )
        })
    };
    if !t.contains(':') {
        let v = num(t, "value")?;
        whole(v)?;
        return Ok(Values::One(v));
    }
    let parts: Vec<&str> = t.split(':').collect();
    ensure!(
        parts.len() == 3,
        "{flag} {t}: a range is A:B:STEP (start, end, step), e.g. 10:150:5; got {} fields",
        parts.len()
    );
    let (a, b, step) = (
        num(parts[0], "start A")?,
        num(parts[1], "end B")?,
        num(parts[2], "step")?,
    );
    ensure!(
        step > 0.0,
        "{flag} {t}: the step must be positive (got {})",
        parts[2].trim()
    );
    ensure!(
        b >= a,
        "{flag} {t}: the end {} is below the start {} (write A:B:STEP with A ≤ B)",
        parts[1].trim(),
        parts[0].trim()
    );
    // The start in range first; the end need not be on the grid, so only the values it gives
    // are checked (below), after their count.
    whole(a)?;
    let count = ((b - a) / step + 1e-9).floor() + 1.0;
    ensure!(
        count <= MAX_RANGE_VALUES as f64,
        "{flag} {t}: {} values; at most {MAX_RANGE_VALUES} per range (use a larger step)",
        gpu_sudoku::plot::fmt_num(count)
    );
    let dec = match (decimals(parts[0].trim()), decimals(parts[2].trim())) {
        (Some(x), Some(y)) => Some(x.max(y)),
        _ => None,
    };
    let mut values = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let mut v = a + i as f64 * step;
        if let Some(d) = dec {
            v = format!("{v:.d$}")
                .parse()
                .expect("a formatted number parses");
        }
        whole(v)?;
        values.push(v);
    }
    Ok(Values::Range(values))
}

/// Parses `--baseline lr=1,lp=1,sr=0`.
pub fn parse_baseline(text: &str) -> Result<Vec<(Param, f64)>> {
    let mut v = Vec::new();
    for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((k, val)) = part.split_once('=') else {
            bail!("--baseline {text}: `{part}` is not KEY=VALUE (e.g. --baseline lr=1,lp=1,sr=0)");
        };
        let p = Param::from_name(k.trim())
            .filter(|p| *p != Param::Steps)
            .with_context(|| {
                format!(
                    "--baseline {text}: unknown key `{}` (use lr, lp, ratio, sr)",
                    k.trim()
                )
            })?;
        let Values::One(x) = parse_values(p, val)? else {
            bail!(
                "--baseline {text}: {} takes one value, not a range",
                p.name()
            );
        };
        ensure!(
            !v.iter().any(|(q, _)| *q == p),
            "--baseline {text}: {} is given twice",
            p.name()
        );
        v.push((p, x));
    }
    ensure!(
        !v.is_empty(),
        "--baseline needs KEY=VALUE pairs, e.g. lr=1,lp=1,sr=0"
    );
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(p: Param, t: &str) -> String {
        parse_values(p, t).unwrap_err().to_string()
    }

    #[test]
    fn values_and_ranges_parse() {
        assert_eq!(parse_values(Param::Lp, "3.5").unwrap(), Values::One(3.5));
        assert_eq!(
            parse_values(Param::Sr, "10:30:10").unwrap(),
            Values::Range(vec![10.0, 20.0, 30.0])
        );
        // The end is included only when it is on the grid.
        assert_eq!(
            parse_values(Param::Steps, "50:120:50").unwrap(),
            Values::Range(vec![50.0, 100.0])
        );
        // Rounded to the decimals written.
        assert_eq!(
            parse_values(Param::Lr, "0.1:0.5:0.1").unwrap(),
            Values::Range(vec![0.1, 0.2, 0.3, 0.4, 0.5])
        );
        assert_eq!(
            parse_values(Param::Ratio, " 1:3:1 ").unwrap(),
            Values::Range(vec![1.0, 2.0, 3.0])
        );
        assert_eq!(
            parse_values(Param::Sr, "5:5:1").unwrap(),
            Values::Range(vec![5.0])
        );
    }

    #[test]
    fn bad_ranges_say_what_is_wrong() {
        let e = err(Param::Sr, "10:5:1");
        assert!(
            e.contains("--sr 10:5:1") && e.contains("end 5 is below the start 10"),
            "{e}"
        );
        let e = err(Param::Sr, "10:50:0");
        assert!(e.contains("step must be positive"), "{e}");
        let e = err(Param::Lr, "0.1:1:-0.1");
        assert!(e.contains("step must be positive"), "{e}");
        let e = err(Param::Lr, "1:2");
        assert!(e.contains("A:B:STEP") && e.contains("2 fields"), "{e}");
        let e = err(Param::Lp, "a:2:1");
        assert!(e.contains("start A `a` is not a number"), "{e}");
        let e = err(Param::Lp, "abc");
        assert!(e.contains("`abc` is not a number"), "{e}");
        let e = err(Param::Sr, "2.5");
        assert!(e.contains("whole number"), "{e}");
        let e = err(Param::Steps, "10:20:2.5");
        assert!(e.contains("whole number"), "{e}");
        let e = err(Param::Lr, "0.00001:1:0.00001");
        assert!(e.contains("at most"), "{e}");
        // Every value within the engine's bounds, single or in a range (a range's 0 steps ran
        // and gave rows; a single out-of-range value said only "nothing to sweep").
        for (p, text, says) in [
            (Param::Steps, "0:100:50", "0 is out of range"),
            (Param::Steps, "4294967296", "4294967296 is out of range"),
            (
                Param::Lr,
                "-1",
                "-1 is out of range: lr must be in (0, 1000]",
            ),
            (Param::Ratio, "0", "out of range"),
            (Param::Lr, "0.1:1e300:1", "1e300 values; at most"),
            (Param::Sr, "0:3000000:1000", "1001000 is out of range"),
        ] {
            let e = err(p, text);
            assert!(e.contains(says) && e.len() < 200, "{text}: {e}");
        }
        let e = err(Param::Lr, "inf");
        assert!(e.contains("finite"), "{e}");
    }

    #[test]
    fn baselines_parse() {
        let b = parse_baseline("lr=1, lp=1,sr=0").unwrap();
        assert_eq!(
            b,
            vec![(Param::Lr, 1.0), (Param::Lp, 1.0), (Param::Sr, 0.0)]
        );
        assert!(parse_baseline("lr")
            .unwrap_err()
            .to_string()
            .contains("KEY=VALUE"));
        assert!(parse_baseline("steps=3")
            .unwrap_err()
            .to_string()
            .contains("unknown key"));
        assert!(parse_baseline("sr=1:5:1")
            .unwrap_err()
            .to_string()
            .contains("one value"));
        assert!(parse_baseline("sr=1,sr=2")
            .unwrap_err()
            .to_string()
            .contains("twice"));
    }
}

//! `gpu-sudoku merge SHARD.json…`: joins the reports of the N shards of one run (`--shard K/N`
//! of `batch` or `compare`) into the report the unsharded run writes: every per-instance record
//! in order, the summaries, intervals and TTS recomputed from them, and the provenance of every
//! shard. Shards of different versions, parameters, seeds or inputs are refused, as are
//! duplicates and missing shards (named).

use super::args::{print_table, ReportArgs};
use anyhow::{bail, ensure, Context, Result};
use gpu_sudoku::job::merge;
use gpu_sudoku::puzzle::file_label;
use gpu_sudoku::report::batch::table;
use gpu_sudoku::shard;
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shards' JSON reports (`--json` of each `--shard K/N` run), in any order.
    #[arg(required = true, value_name = "SHARD.json")]
    pub shards: Vec<String>,
    #[command(flatten)]
    pub reports: ReportArgs,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let names: Vec<&str> = a.shards.iter().map(String::as_str).collect();
    a.reports.check(&names)?;
    let shards = merge::Shards::read(&a.shards)?;
    match shards.kind()? {
        merge::Kind::Batch => {
            let merged = merge::batch(&shards, std::env::args().collect())?;
            print_table(&a.reports, &table(&merged.files, merged.unit()));
            a.reports
                .write_streamed(|w| merged.write_json(w), |w| merged.write_csv(w))?;
            Ok(ExitCode::SUCCESS)
        }
        merge::Kind::Compare => merge_compare(&a, shards.docs().to_vec(), shards.provenance()),
        merge::Kind::Sweep => merge_sweep(&a, shards.docs().to_vec(), shards.provenance()),
    }
}

fn merge_compare(a: &Args, docs: Vec<Value>, provenance: Value) -> Result<ExitCode> {
    use gpu_sudoku::job::compare::{self, AttemptRecord};
    let reports: Vec<compare::Report> = docs
        .into_iter()
        .zip(&a.shards)
        .map(|(d, p)| {
            serde_json::from_value(d).with_context(|| format!("{p}: not a compare report"))
        })
        .collect::<Result<_>>()?;
    let first = &reports[0];
    // Canonical order: file (as given), algorithm (as given), puzzle, run. An attempt's file is
    // its input's path (unique, as compare refuses a file given twice); its rows are labelled
    // as compare labels them (gpu_sudoku::puzzle::file_label).
    let paths: Vec<&str> = first.inputs.iter().map(|i| i.path.as_str()).collect();
    if let Some((k, p)) = paths
        .iter()
        .enumerate()
        .find(|&(k, p)| paths[..k].contains(p))
    {
        bail!(
            "{}: the run's inputs name `{p}` twice (input {k}); compare now refuses that: \
             rerun the shards with each file given once",
            a.shards[0]
        );
    }
    let labels: Vec<String> = paths.iter().map(|p| file_label(p)).collect();
    let algos = &first.params.algos;
    for (r, shard) in reports.iter().zip(&a.shards) {
        for x in &r.attempts {
            let Some(f) = paths.iter().position(|p| *p == x.path) else {
                bail!(
                    "{shard}: an attempt on `{}` is not on any of the run's inputs ({}); is the \
                     report edited or damaged? Rerun that shard",
                    x.path,
                    paths.join(", ")
                );
            };
            ensure!(
                labels[f] == x.file,
                "{shard}: an attempt on `{}` is labelled `{}` where this version of gpu-sudoku \
                 labels that file `{}`; merge shards with the version that ran them",
                x.path,
                x.file,
                labels[f]
            );
            ensure!(
                algos.contains(&x.algo),
                "{shard}: an attempt of `{}` is not of the run's --algos ({}); is the report \
                 edited or damaged? Rerun that shard",
                x.algo,
                algos.join(",")
            );
        }
    }
    let mut attempts: Vec<_> = reports
        .iter()
        .flat_map(|r| r.attempts.iter().cloned())
        .collect();
    let key = |r: &AttemptRecord| {
        (
            paths
                .iter()
                .position(|p| *p == r.path)
                .unwrap_or(usize::MAX),
            algos
                .iter()
                .position(|x| *x == r.algo)
                .unwrap_or(usize::MAX),
            r.puzzle,
            r.run,
        )
    };
    attempts.sort_by_key(key);
    if let Some(w) = attempts.windows(2).find(|w| key(&w[0]) == key(&w[1])) {
        bail!(
            "{} on {} puzzle {} run {} is in two shards",
            w[0].algo,
            w[0].path,
            w[0].puzzle,
            w[0].run
        );
    }
    let expected: usize =
        first.inputs.iter().map(|i| i.puzzles).sum::<usize>() * first.params.runs * algos.len();
    ensure!(
        attempts.len() == expected,
        "the shards hold {} of the run's {expected} attempts",
        attempts.len()
    );
    let mut rows = Vec::new();
    for (path, label) in paths.iter().zip(&labels) {
        for algo in algos {
            let group: Vec<_> = attempts
                .iter()
                .filter(|r| r.path == *path && &r.algo == algo)
                .collect();
            let unit = group.first().map_or("", |r| r.unit.as_str());
            let outcomes: Vec<_> = group.iter().map(|&r| r.into()).collect();
            rows.push(compare::row(
                label,
                algo,
                unit,
                first.params.runs,
                &outcomes,
            ));
        }
    }
    let merged = compare::Report {
        tool: first.tool.clone(),
        version: first.version.clone(),
        schema: first.schema,
        command: std::env::args().collect(),
        params: first.params.clone(),
        inputs: first.inputs.clone(),
        shard: None,
        provenance,
        rows,
        attempts,
    };
    print_table(&a.reports, &compare::table(&merged.rows));
    a.reports
        .write_streamed(|w| merged.write_json(w), |w| merged.write_csv(w))?;
    Ok(ExitCode::SUCCESS)
}

/// Sweeps are sharded by setting: the merged report holds every setting's rows, in plan order;
/// `--csv` writes them as the sweep CSV.
fn merge_sweep(a: &Args, docs: Vec<Value>, provenance: Value) -> Result<ExitCode> {
    let settings = docs[0]["params"]["settings"]
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .with_context(|| format!("{}: its sweep has no count of settings", a.shards[0]))?;
    // Checked row by row, naming the shard: a setting in one shard only, one row per group and
    // label of a setting, counts that add up. (Nothing is allocated by the claimed count.)
    let mut rows: Vec<(usize, Value, gpu_sudoku::sweep::Row)> = Vec::new();
    let mut owner: BTreeMap<usize, usize> = BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    for (si, d) in docs.iter().enumerate() {
        let p = &a.shards[si];
        for (k, r) in d["rows"].as_array().into_iter().flatten().enumerate() {
            let s = r["setting"].as_u64().unwrap_or(u64::MAX);
            ensure!(
                s < settings as u64,
                "{p}: row {} is of setting {}, of {settings}",
                k + 1,
                r["setting"]
            );
            let s = s as usize;
            let row: gpu_sudoku::sweep::Row = serde_json::from_value(r.clone())
                .with_context(|| format!("{p}: row {} is not a sweep row", k + 1))?;
            ensure!(
                row.solved <= row.instances,
                "{p}: row {} claims {} solved of {} instances",
                k + 1,
                row.solved,
                row.instances
            );
            // One setting answers every step limit of a range: a row is its setting, role,
            // step limit, group and label.
            ensure!(
                seen.insert((s, row.role, row.point.steps, row.group, row.label.clone())),
                "{p}: setting {s} has two rows for {} at {} steps",
                row.label,
                row.point.steps
            );
            match owner.get(&s) {
                Some(&o) if o != si => {
                    bail!("setting {s} is in two shards ({} and {p})", a.shards[o])
                }
                _ => {
                    owner.insert(s, si);
                }
            }
            rows.push((s, r.clone(), row));
        }
    }
    if owner.len() < settings {
        let missing = (0..settings)
            .filter(|s| !owner.contains_key(s))
            .map(|s| s.to_string());
        bail!(
            "settings missing from the shards: {} (an unfinished shard? finish it with --resume)",
            shard::listed(missing, settings - owner.len())
        );
    }
    rows.sort_by_key(|(s, _, _)| *s);
    let mut merged = docs[0].clone();
    merged["command"] = serde_json::json!(std::env::args().collect::<Vec<_>>());
    merged.as_object_mut().expect("an object").remove("shard");
    merged["provenance"] = provenance;
    merged["rows"] = Value::Array(rows.iter().map(|(_, r, _)| r.clone()).collect());
    let csv_rows: Vec<gpu_sudoku::sweep::Row> = rows.into_iter().map(|(_, _, r)| r).collect();
    print_table(
        &a.reports,
        &format!("merged {} settings, {} rows\n", settings, csv_rows.len()),
    );
    a.reports.write(
        || Ok(serde_json::to_string_pretty(&merged)? + "\n"),
        || {
            let mut s = format!("{}\n", gpu_sudoku::sweep::CSV_HEADER);
            for r in &csv_rows {
                s += &r.csv_line();
                s.push('\n');
            }
            s
        },
    )?;
    Ok(ExitCode::SUCCESS)
}

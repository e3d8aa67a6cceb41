//! `gpu-sudoku merge SHARD.json…`: joins the reports of the N shards of one run (`--shard K/N`
//! of `batch` or `compare`) into the report the unsharded run writes: every per-instance record
//! in order, the summaries, intervals and TTS recomputed from them, and the provenance of every
//! shard. Shards of different versions, parameters, seeds or inputs are refused, as are
//! duplicates and missing shards (named).

use super::args::{print_table, ReportArgs};
use anyhow::{bail, ensure, Context, Result};
use gpu_sudoku::puzzle::file_label;
use gpu_sudoku::report::batch::{
    provenance_here, table, write_batch_json, write_instances_csv, BatchInfo, FileResults,
    InputInfo,
};
use gpu_sudoku::report::InstanceResult;
use gpu_sudoku::shard;
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shards' JSON reports (`--json` of each `--shard K/N` run), in any order.
    #[arg(required = true, value_name = "SHARD.json")]
    pub shards: Vec<String>,
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// The fields that must be equal in every shard of one run.
const SAME: [&str; 10] = [
    "tool",
    "version",
    "schema",
    "kind",
    "algorithm",
    "preset",
    "runs",
    "seed",
    "params",
    "inputs",
];

pub fn run(a: Args) -> Result<ExitCode> {
    let names: Vec<&str> = a.shards.iter().map(String::as_str).collect();
    a.reports.check(&names)?;
    let docs: Vec<Value> = a
        .shards
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).with_context(|| format!("cannot read {p}"))?;
            serde_json::from_str(&text).map_err(|e| {
                anyhow::anyhow!(
                    "{p}:{}:{}: not a JSON report ({e}; a shard cut short?)",
                    e.line(),
                    e.column()
                )
            })
        })
        .collect::<Result<_>>()?;
    for (p, d) in a.shards.iter().zip(&docs) {
        ensure!(d["tool"] == "gpu-sudoku", "{p}: not a gpu-sudoku report");
        ensure!(
            d["shard"].is_object(),
            "{p}: not a shard (it was not run with --shard K/N)"
        );
    }
    let first = &docs[0];
    for (p, d) in a.shards.iter().zip(&docs).skip(1) {
        for k in SAME {
            if d[k] != first[k] {
                bail!(
                    "{p} and {} are not shards of one run: their `{k}` differs",
                    a.shards[0]
                );
            }
        }
    }
    // A shard's place as written by `--shard K/N`: whole numbers, K < N.
    let place = |p: &str, d: &Value| -> Result<(usize, usize)> {
        let number = |k: &str| {
            d["shard"][k]
                .as_u64()
                .and_then(|v| usize::try_from(v).ok())
                .with_context(|| {
                    format!(
                        "{p}: its shard {k} {} is not a whole number (a damaged report?)",
                        d["shard"][k]
                    )
                })
        };
        let (index, count) = (number("index")?, number("count")?);
        ensure!(
            count >= 1 && index < count,
            "{p}: shard {index} of {count} does not exist (a damaged report?)"
        );
        Ok((index, count))
    };
    let (_, count) = place(&a.shards[0], first)?;
    let indices: Vec<usize> = docs
        .iter()
        .zip(&a.shards)
        .map(|(d, p)| {
            let (index, n) = place(p, d)?;
            ensure!(
                n == count,
                "{p} is a shard of {n} parts, {} of {count}",
                a.shards[0]
            );
            Ok(index)
        })
        .collect::<Result<_>>()?;
    shard::check_complete(&indices, count)?;
    if first["files"].is_array() {
        merge_batch(&a, &docs)
    } else if first["attempts"].is_array() {
        merge_compare(&a, docs)
    } else if first["kind"] == "sweep" {
        merge_sweep(&a, docs)
    } else {
        bail!("{}: this report kind cannot be merged", a.shards[0])
    }
}

/// Where and how each shard ran, for the merged report's provenance.
fn shard_provenance(docs: &[Value]) -> Value {
    let mut shards: Vec<Value> = docs
        .iter()
        .map(|d| {
            serde_json::json!({
                "shard": d["shard"],
                "command": d["command"],
                "backend": d["backend"],
                "adapter": d["adapter"],
                "provenance": d["provenance"],
                "wall_s": d["overall"]["timing"]["wall_s"],
            })
        })
        .collect();
    shards.sort_by_key(|s| s["shard"]["index"].as_u64());
    let mut provenance = provenance_here(std::time::SystemTime::now());
    provenance["shards"] = Value::Array(shards);
    provenance
}

fn merge_compare(a: &Args, docs: Vec<Value>) -> Result<ExitCode> {
    use gpu_sudoku::job::compare::{self, AttemptRecord};
    let provenance = shard_provenance(&docs);
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

fn field<'a>(v: &'a Value, k: &str) -> Result<&'a Value> {
    v.get(k).with_context(|| format!("the report has no `{k}`"))
}

fn merge_batch(a: &Args, docs: &[Value]) -> Result<ExitCode> {
    let first = &docs[0];
    let algorithm = first["algorithm"].as_str().unwrap_or("ilca").to_string();
    let runs = first["runs"].as_u64().unwrap_or(1) as usize;
    let inputs: Vec<InputInfo> = serde_json::from_value(field(first, "inputs")?.clone())?;
    let mut files = Vec::new();
    for (fi, input) in inputs.iter().enumerate() {
        let mut results: Vec<(InstanceResult, usize)> = Vec::new();
        let mut details = BTreeMap::new();
        let mut file_solutions = BTreeMap::new();
        let mut wall = Duration::ZERO;
        for d in docs {
            let f = &d["files"][fi];
            for p in f["puzzles"].as_array().into_iter().flatten() {
                if let (Some(k), Some(s)) = (p["puzzle"].as_u64(), p["file_solution"].as_str()) {
                    file_solutions.insert(k as usize, s.to_string());
                }
            }
            wall +=
                Duration::from_secs_f64(f["summary"]["timing"]["wall_s"].as_f64().unwrap_or(0.0));
            for i in f["instances"].as_array().into_iter().flatten() {
                let r: InstanceResult = serde_json::from_value(i.clone())
                    .with_context(|| format!("{}: a bad instance record", input.path))?;
                if let Some(detail) = i.get(&algorithm) {
                    details.insert(r.puzzle, detail.clone());
                }
                let line = i["line"].as_u64().unwrap_or(0) as usize;
                results.push((r, line));
            }
        }
        results.sort_by_key(|(r, _)| (r.puzzle, r.run));
        let expected = input.puzzles * runs;
        let dup = results
            .windows(2)
            .find(|w| (w[0].0.puzzle, w[0].0.run) == (w[1].0.puzzle, w[1].0.run));
        if let Some(w) = dup {
            bail!(
                "{}: puzzle {} run {} is in two shards",
                input.path,
                w[0].0.puzzle,
                w[0].0.run
            );
        }
        ensure!(
            results.len() == expected,
            "{}: the shards hold {} of its {expected} instances",
            input.path,
            results.len()
        );
        let mut lines = vec![0; input.puzzles];
        for (r, line) in &results {
            lines[r.puzzle] = *line;
        }
        let f = &first["files"][fi];
        // Each shard reports the extra fields of the puzzles it ran.
        let extras = docs
            .iter()
            .filter_map(|d| d["files"][fi]["puzzles"].as_array())
            .flatten()
            .filter_map(|p| Some((p["puzzle"].as_u64()? as usize, p["extra"].as_str()?.into())))
            .collect();
        files.push(FileResults {
            // RFSS, or ILCA with --tie first (IlcaParams::ignores_seed).
            ignores_seed: algorithm == "rfss" || first["params"]["tie"] == "first",
            extras,
            ..FileResults::held(
                f["path"].as_str().unwrap_or(&input.path).to_string(),
                f["label"].as_str().unwrap_or_default().to_string(),
                f["side"].as_u64().unwrap_or(0) as usize,
                lines,
                results.into_iter().map(|(r, _)| r).collect(),
                wall,
                details,
                file_solutions,
            )
        });
    }
    let same_or = |k: &str, mixed: &str| -> String {
        let v = &first[k];
        if docs.iter().all(|d| &d[k] == v) {
            v.as_str().unwrap_or(mixed).to_string()
        } else {
            mixed.to_string()
        }
    };
    let backend = same_or("backend", "mixed");
    // No adapter (CPU shards) in every shard stays none; only different ones are mixed.
    let adapter = if docs.iter().all(|d| d["adapter"] == first["adapter"]) {
        first["adapter"].as_str().map(str::to_string)
    } else {
        Some("mixed".to_string())
    };
    let provenance = shard_provenance(docs);
    let command: Vec<String> = std::env::args().collect();
    let info = BatchInfo {
        algorithm: &algorithm,
        preset: first["preset"].as_str(),
        command: &command,
        backend: &backend,
        adapter: adapter.as_deref(),
        runs,
        seed: first["seed"].as_u64(),
        note: first["note"].as_str(),
        params: first["params"].clone(),
        inputs,
        shard: None,
        provenance,
    };
    let unit = if algorithm == "rfss" { "gens" } else { "steps" };
    print_table(&a.reports, &table(&files, unit));
    a.reports.write_streamed(
        |w| write_batch_json(&info, &files, w),
        |w| write_instances_csv(&info, &files, w),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Sweeps are sharded by setting: the merged report holds every setting's rows, in plan order;
/// `--csv` writes them as the sweep CSV.
fn merge_sweep(a: &Args, docs: Vec<Value>) -> Result<ExitCode> {
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
    merged["provenance"] = shard_provenance(&docs);
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

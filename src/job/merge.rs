//! Joining the reports of the N shards of one run (`--shard K/N` of `batch`, `compare` or
//! `sweep`) into the report the unsharded run writes: every record in order, the summaries,
//! intervals and TTS recomputed from them, and the provenance of every shard. Shards of
//! different versions, parameters, seeds or inputs are refused, as are duplicates and missing
//! shards (named). Every report is read into its typed form; a solved record whose grid breaks
//! the rules is refused.

use crate::report::batch::{
    provenance_here, write_batch_json, write_instances_csv, BatchInfo, FileResults, InputInfo,
    PuzzleNotes,
};
use crate::report::InstanceResult;
use crate::shard::{self, Shard};
use anyhow::{bail, ensure, Context, Result};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

/// The fields that must be equal in every shard of one run.
const SAME: [&str; 11] = [
    "tool",
    "version",
    "build",
    "schema",
    "kind",
    "algorithm",
    "preset",
    "runs",
    "seed",
    "params",
    "inputs",
];

/// The shards of one run, read and checked: one of each index, all of one run.
pub struct Shards {
    /// The reports' paths, as given.
    pub paths: Vec<String>,
    docs: Vec<Value>,
}

/// What kind of run the shards are of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Batch,
    Compare,
    Sweep,
}

/// Reads one shard report (at most [`crate::limits::MAX_REPORT_BYTES`]) as JSON, and checks
/// its digest (the report is what its writer wrote, byte for byte) before anything in it is
/// used.
fn read_doc(path: &str) -> Result<Value> {
    let text = crate::limits::read_text(path, crate::limits::MAX_REPORT_BYTES, "a shard report")?;
    let doc = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{path}:{}:{}: not a JSON report ({e}; a shard cut short?)",
            e.line(),
            e.column()
        )
    })?;
    crate::report::digest::check(&text).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    Ok(doc)
}

impl Shards {
    /// Reads the reports at `paths` and checks they are the shards of one run, every one once.
    pub fn read(paths: &[String]) -> Result<Shards> {
        let docs: Vec<Value> = paths.iter().map(|p| read_doc(p)).collect::<Result<_>>()?;
        for (p, d) in paths.iter().zip(&docs) {
            ensure!(d["tool"] == "gpu-sudoku", "{p}: not a gpu-sudoku report");
            ensure!(
                !d["shard"].is_null(),
                "{p}: not a shard (it was not run with --shard K/N)"
            );
        }
        let first = &docs[0];
        for (p, d) in paths.iter().zip(&docs).skip(1) {
            for k in SAME {
                if d[k] != first[k] {
                    bail!(
                        "{p} and {} are not shards of one run: their `{k}` differs",
                        paths[0]
                    );
                }
            }
        }
        let (_, count) = place(&paths[0], first)?;
        let indices: Vec<usize> = docs
            .iter()
            .zip(paths)
            .map(|(d, p)| {
                let (index, n) = place(p, d)?;
                ensure!(
                    n == count,
                    "{p} is a shard of {n} parts, {} of {count}",
                    paths[0]
                );
                Ok(index)
            })
            .collect::<Result<_>>()?;
        shard::check_complete(&indices, count)?;
        Ok(Shards {
            paths: paths.to_vec(),
            docs,
        })
    }

    /// The kind of run they are of.
    pub fn kind(&self) -> Result<Kind> {
        let first = &self.docs[0];
        if first["files"].is_array() {
            Ok(Kind::Batch)
        } else if first["attempts"].is_array() {
            Ok(Kind::Compare)
        } else if first["kind"] == "sweep" {
            Ok(Kind::Sweep)
        } else {
            bail!("{}: this report kind cannot be merged", self.paths[0])
        }
    }

    /// Each shard's report in its typed form `T`, named by its path where it is not one.
    fn typed<T: serde::de::DeserializeOwned>(&self, what: &str) -> Result<Vec<T>> {
        self.docs
            .iter()
            .zip(&self.paths)
            .map(|(d, p)| {
                T::deserialize(d).map_err(|e| anyhow::anyhow!("{p}: not a {what} report: {e}"))
            })
            .collect()
    }

    /// The shard reports as JSON values (for the kinds whose merge keeps fields it does not
    /// know).
    pub fn docs(&self) -> &[Value] {
        &self.docs
    }

    /// Where and how each shard ran, for the merged report's provenance.
    pub fn provenance(&self) -> Value {
        let mut shards: Vec<Value> = self
            .docs
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
        shards.sort_by_key(|s| Shard::deserialize(&s["shard"]).map(|s| s.index).ok());
        let mut provenance = provenance_here(std::time::SystemTime::now());
        provenance["shards"] = Value::Array(shards);
        provenance
    }
}

/// A shard's place as written by `--shard K/N`: (index from 0, count).
fn place(p: &str, d: &Value) -> Result<(usize, usize)> {
    let s = Shard::deserialize(&d["shard"]).with_context(|| {
        format!(
            "{p}: its shard {} is not K/N (a damaged report?)",
            d["shard"]
        )
    })?;
    Ok((s.index, s.count))
}

/// A batch report as `merge` reads it back.
#[derive(Deserialize)]
struct BatchDoc {
    algorithm: String,
    preset: Option<String>,
    backend: String,
    adapter: Option<String>,
    runs: usize,
    seed: Option<u64>,
    note: Option<String>,
    params: Value,
    inputs: Vec<InputInfo>,
    files: Vec<FileDoc>,
}

#[derive(Deserialize)]
struct FileDoc {
    path: String,
    label: String,
    side: usize,
    summary: SummaryDoc,
    puzzles: Vec<PuzzleDoc>,
    instances: Vec<InstanceDoc>,
}

#[derive(Deserialize)]
struct SummaryDoc {
    timing: TimingDoc,
}

#[derive(Deserialize)]
struct TimingDoc {
    wall_s: f64,
}

#[derive(Deserialize)]
struct PuzzleDoc {
    puzzle: usize,
    file_solution: Option<String>,
    extra: Option<String>,
}

#[derive(Deserialize)]
struct InstanceDoc {
    #[serde(flatten)]
    result: InstanceResult,
    line: usize,
    /// The algorithm's own record of the instance (RFSS: under `rfss`), among the other fields.
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

/// The merged report of a sharded batch.
pub struct MergedBatch {
    pub algorithm: String,
    pub preset: Option<String>,
    pub backend: String,
    pub adapter: Option<String>,
    pub runs: usize,
    pub seed: Option<u64>,
    pub note: Option<String>,
    pub params: Value,
    pub inputs: Vec<InputInfo>,
    pub provenance: Value,
    pub command: Vec<String>,
    pub files: Vec<FileResults>,
    /// The ILCA paper's tier of each input, as its header names it (`generate --model paper`),
    /// for the table's paper column.
    pub paper_tiers: Vec<Option<&'static str>>,
}

impl MergedBatch {
    /// The report's header fields, as the JSON and CSV writers take them.
    pub fn info(&self) -> BatchInfo<'_> {
        BatchInfo {
            algorithm: &self.algorithm,
            preset: self.preset.as_deref(),
            command: &self.command,
            backend: &self.backend,
            adapter: self.adapter.as_deref(),
            runs: self.runs,
            seed: self.seed,
            note: self.note.as_deref(),
            params: self.params.clone(),
            inputs: self.inputs.clone(),
            shard: None,
            provenance: self.provenance.clone(),
        }
    }

    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        write_batch_json(&self.info(), &self.files, w)
    }

    pub fn write_csv(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        write_instances_csv(&self.info(), &self.files, w)
    }

    /// What an iteration is called in its table.
    pub fn unit(&self) -> &'static str {
        if self.algorithm == "rfss" {
            "gens"
        } else {
            "steps"
        }
    }
}

/// Joins the shards of a batch; `command` is the merge's own command line.
pub fn batch(shards: &Shards, command: Vec<String>) -> Result<MergedBatch> {
    let docs: Vec<BatchDoc> = shards.typed("batch")?;
    let first = &docs[0];
    let mut files = Vec::new();
    let mut paper_tiers = Vec::new();
    for (fi, input) in first.inputs.iter().enumerate() {
        let (file, tier) = merge_file(first, fi, input, &docs, &shards.paths)?;
        files.push(file);
        paper_tiers.push(tier);
    }
    let same_or = |value: fn(&BatchDoc) -> Option<&str>, mixed: &str| -> Option<String> {
        let v = value(first);
        if docs.iter().all(|d| value(d) == v) {
            v.map(str::to_string)
        } else {
            Some(mixed.to_string())
        }
    };
    Ok(MergedBatch {
        backend: same_or(|d| Some(&d.backend), "mixed").unwrap_or_default(),
        // No adapter (CPU shards) in every shard stays none; only different ones are mixed.
        adapter: same_or(|d| d.adapter.as_deref(), "mixed"),
        algorithm: first.algorithm.clone(),
        preset: first.preset.clone(),
        runs: first.runs,
        seed: first.seed,
        note: first.note.clone(),
        params: first.params.clone(),
        inputs: first.inputs.clone(),
        provenance: shards.provenance(),
        command,
        files,
        paper_tiers,
    })
}

/// The puzzles of the input the shards ran on, read again from its path: the same grids (by
/// the reports' content hash) and the paper tier its header names, or an error that says the
/// solved grids cannot be checked.
fn input_puzzles(input: &InputInfo) -> Result<(Vec<crate::puzzle::Grid>, Option<&'static str>)> {
    let why = |what: String| {
        anyhow::anyhow!(
            "{}: {what}; merge reads the input again to check every solved grid against its \
             clues: merge where the shards' inputs are, unchanged",
            input.path
        )
    };
    if input.path == "-" {
        return Err(why(
            "the shards read standard input, which cannot be read again".into(),
        ));
    }
    let file = crate::puzzle::read_puzzles(&input.path, None)
        .map_err(|e| why(format!("cannot be read here ({e})")))?;
    let here = InputInfo::of_file(&file);
    if here.hash != input.hash {
        return Err(why(format!(
            "its puzzles here are not those the shards ran on (content hash {}, the reports' {})",
            here.hash, input.hash
        )));
    }
    let tier = crate::generate::paper_tier_of(&file.header).map(crate::choice::Choice::name);
    Ok((file.puzzles.into_iter().map(|p| p.grid).collect(), tier))
}

/// File `fi`'s instances from every shard, checked: each (puzzle, run) once, all of them, a
/// puzzle of the file, a solved grid that keeps the rules and the puzzle's clues.
fn merge_file(
    first: &BatchDoc,
    fi: usize,
    input: &InputInfo,
    docs: &[BatchDoc],
    paths: &[String],
) -> Result<(FileResults, Option<&'static str>)> {
    let mut results: Vec<(InstanceResult, usize)> = Vec::new();
    let mut details = BTreeMap::new();
    let mut file_solutions = BTreeMap::new();
    let mut extras = BTreeMap::new();
    let mut wall = Duration::ZERO;
    let (puzzles, tier) = input_puzzles(input)?;
    for (d, p) in docs.iter().zip(paths) {
        let Some(f) = d.files.get(fi) else {
            bail!("{p}: it has no file {fi} ({})", input.path);
        };
        for pz in &f.puzzles {
            if let Some(s) = &pz.file_solution {
                file_solutions.insert(pz.puzzle, s.clone());
            }
            // Each shard reports the extra fields of the puzzles it ran.
            if let Some(e) = &pz.extra {
                extras.insert(pz.puzzle, e.clone());
            }
        }
        crate::job::journal::check_seconds(f.summary.timing.wall_s)
            .map_err(|why| anyhow::anyhow!("{p}: {}: {why}", input.path))?;
        wall = wall.saturating_add(Duration::from_secs_f64(f.summary.timing.wall_s));
        for i in &f.instances {
            let r = &i.result;
            let Some(puzzle) = puzzles.get(r.puzzle).filter(|_| r.puzzle < input.puzzles) else {
                bail!(
                    "{p}: {}: an instance of puzzle {}, of a file of {} puzzles",
                    input.path,
                    r.puzzle,
                    puzzles.len()
                );
            };
            // With no instance twice and the count right, in range means every one is there.
            ensure!(
                r.run < first.runs,
                "{p}: {}: puzzle {} run {}, in a run of {} runs per puzzle",
                input.path,
                r.puzzle,
                r.run,
                first.runs
            );
            if r.solved {
                check_solved(r, puzzle).with_context(|| format!("{p}: {}", input.path))?;
            }
            if let Some(detail) = i.rest.get(&first.algorithm) {
                details.insert(r.puzzle, detail.clone());
            }
            results.push((r.clone(), i.line));
        }
    }
    results.sort_by_key(|(r, _)| (r.puzzle, r.run));
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
    let expected = input.puzzles * first.runs;
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
    let f = &first.files[fi];
    let mut file = FileResults {
        // RFSS, or ILCA with --tie first (IlcaParams::ignores_seed).
        ignores_seed: first.algorithm == "rfss" || first.params["tie"] == "first",
        ..FileResults::held(
            f.path.clone(),
            f.label.clone(),
            f.side,
            lines,
            results.into_iter().map(|(r, _)| r).collect(),
            wall,
            details,
            file_solutions,
        )
    };
    if let PuzzleNotes::Held { extras: e, .. } = &mut file.notes {
        *e = extras;
    }
    Ok((file, tier))
}

/// A record read back as solved holds a solution of its puzzle: a complete grid of its size
/// that keeps the rules and every clue.
fn check_solved(r: &InstanceResult, puzzle: &crate::puzzle::Grid) -> Result<()> {
    let side = puzzle.side();
    let fault = match crate::puzzle::Grid::from_line(puzzle.box_size(), &r.grid) {
        None => Some(format!("its grid is not one {side}x{side} grid")),
        Some(g) => g
            .verify_solution_of(puzzle)
            .err()
            .map(|why| format!("its grid does not solve the puzzle ({why})")),
    };
    match fault {
        Some(why) => bail!(
            "puzzle {} run {} is reported solved but {why}; is the report edited or damaged? \
             Rerun that shard",
            r.puzzle,
            r.run
        ),
        None => Ok(()),
    }
}

/// Joins the shards of a compare run; `command` is the merge's own command line.
pub fn compare(shards: &Shards, command: Vec<String>) -> Result<crate::job::compare::Report> {
    use crate::job::compare::{self, AttemptRecord};
    let reports: Vec<compare::Report> = shards
        .docs
        .iter()
        .zip(&shards.paths)
        .map(|(d, p)| {
            compare::Report::deserialize(d).with_context(|| format!("{p}: not a compare report"))
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
            shards.paths[0]
        );
    }
    let labels: Vec<String> = paths.iter().map(|p| crate::puzzle::file_label(p)).collect();
    let algos = &first.params.algos;
    for (r, shard) in reports.iter().zip(&shards.paths) {
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
            // With no attempt twice and the count right, in range means every attempt is there.
            ensure!(
                x.puzzle < first.inputs[f].puzzles && x.run < first.params.runs,
                "{shard}: an attempt on `{}` of puzzle {} run {}, in a run of {} puzzles × {} \
                 runs; is the report edited or damaged? Rerun that shard",
                x.path,
                x.puzzle,
                x.run,
                first.inputs[f].puzzles,
                first.params.runs
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
        build: first.build.clone(),
        schema: first.schema,
        command,
        params: first.params.clone(),
        inputs: first.inputs.clone(),
        shard: None,
        // The shards' adapter where they all name one (each shard's is in the provenance).
        adapter: (reports.iter().map(|r| r.adapter.clone()))
            .reduce(|a, b| if a == b { a } else { None })
            .flatten(),
        provenance: shards.provenance(),
        rows,
        attempts,
    };
    Ok(merged)
}

/// Sweeps are sharded by setting: the merged report holds every setting's rows, in plan order;
/// `--csv` writes them as the sweep CSV.
pub fn sweep(shards: &Shards, command: Vec<String>) -> Result<MergedSweep> {
    let docs = &shards.docs;
    let settings = docs[0]["params"]["settings"]
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .with_context(|| format!("{}: its sweep has no count of settings", shards.paths[0]))?;
    // Checked row by row, naming the shard: a setting in one shard only, one row per group and
    // label of a setting, counts that add up. (Nothing is allocated by the claimed count.)
    let mut rows: Vec<(usize, Value, crate::sweep::Row)> = Vec::new();
    let mut owner: BTreeMap<usize, usize> = BTreeMap::new();
    let mut seen = std::collections::HashSet::new();
    for (si, d) in docs.iter().enumerate() {
        let p = &shards.paths[si];
        for (k, r) in d["rows"].as_array().into_iter().flatten().enumerate() {
            let s = r["setting"].as_u64().unwrap_or(u64::MAX);
            ensure!(
                s < settings as u64,
                "{p}: row {} is of setting {}, of {settings}",
                k + 1,
                r["setting"]
            );
            let s = s as usize;
            let row: crate::sweep::Row = serde_json::from_value(r.clone())
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
                    bail!("setting {s} is in two shards ({} and {p})", shards.paths[o])
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
    merged["command"] = serde_json::json!(command);
    merged.as_object_mut().expect("an object").remove("shard");
    merged["provenance"] = shards.provenance();
    merged["rows"] = Value::Array(rows.iter().map(|(_, r, _)| r.clone()).collect());
    Ok(MergedSweep {
        settings,
        json: merged,
        rows: rows.into_iter().map(|(_, _, r)| r).collect(),
    })
}

/// The merged report of a sharded sweep: its JSON (the shards' fields, every row in plan
/// order) and its rows as the sweep CSV writes them.
pub struct MergedSweep {
    pub settings: usize,
    pub json: Value,
    pub rows: Vec<crate::sweep::Row>,
}

impl MergedSweep {
    /// The sweep CSV of the merged rows.
    pub fn csv(&self) -> String {
        crate::sweep::csv_text(&self.rows)
    }
}

//! RFSS on every puzzle of one file (what `gpu-sudoku rfss` runs): the outcomes, the wall time
//! and the rates, and the JSON and CSV reports of them.

use super::{RfssOutcome, RfssParams};
use crate::backend::Device;
use crate::puzzle::{Grid, PuzzleFile};
use crate::report::batch::Header;
use anyhow::Result;
use serde::Serialize;
use std::time::Instant;

/// Every puzzle of a file run once (RFSS is deterministic), timed.
pub struct FileRun<'a> {
    pub file: &'a PuzzleFile,
    pub params: &'a RfssParams,
    /// Per puzzle, in file order.
    pub outcomes: Vec<RfssOutcome>,
    /// Wall time of the whole run, seconds.
    pub wall_s: f64,
}

impl<'a> FileRun<'a> {
    /// Runs every puzzle of `file` on `device`, calling `progress` with the puzzles finished.
    pub fn run(
        device: &Device,
        file: &'a PuzzleFile,
        params: &'a RfssParams,
        opts: &super::gpu::GpuOptions,
        progress: crate::backend::Progress,
    ) -> Result<FileRun<'a>> {
        let grids: Vec<Grid> = file.puzzles.iter().map(|p| p.grid.clone()).collect();
        let t0 = Instant::now();
        let outcomes = super::run::run_with(device, &grids, params, opts, progress)?;
        Ok(FileRun {
            file,
            params,
            outcomes,
            wall_s: t0.elapsed().as_secs_f64(),
        })
    }

    /// Generations over all puzzles.
    pub fn generations(&self) -> u64 {
        self.outcomes.iter().map(|o| o.generations as u64).sum()
    }

    /// Species updates over all puzzles.
    pub fn species_updates(&self) -> f64 {
        self.outcomes.iter().map(|o| o.species_updates as f64).sum()
    }

    /// Puzzles solved.
    pub fn solved(&self) -> usize {
        self.outcomes.iter().filter(|o| o.solved()).count()
    }

    /// The JSON report (run on `device`, made by `command`): provenance and parameters like
    /// `batch`, then every puzzle's outcome.
    pub fn json(&self, command: Vec<String>, device: &Device) -> serde_json::Result<String> {
        let secs = self.wall_s;
        let report = Report {
            header: Header::new(command),
            algorithm: "rfss",
            backend: device.name(),
            adapter: device.adapter(),
            path: &self.file.path,
            params: self.params,
            puzzles: self
                .outcomes
                .iter()
                .zip(&self.file.puzzles)
                .enumerate()
                .map(|(i, (o, p))| PuzzleJson {
                    puzzle: i,
                    line: p.line,
                    outcome: o,
                })
                .collect(),
            timing: Timing {
                wall_s: secs,
                generations_per_s: self.generations() as f64 / secs,
                species_updates_per_s: self.species_updates() / secs,
            },
        };
        Ok(serde_json::to_string_pretty(&report)? + "\n")
    }

    /// The CSV report, a row per puzzle: the columns of `batch --algo rfss`'s CSV where they
    /// mean the same (file, label, puzzle, line, the `param_…` columns, extra), so the two
    /// join and stack.
    pub fn csv(&self) -> std::io::Result<String> {
        let (file, params) = (self.file, self.params);
        let header = [
            "file",
            "label",
            "puzzle",
            "line",
            "status",
            "solved_at",
            "generations",
            "species",
            "conflicts",
            "restarts",
            "species_updates",
            "grid",
            "param_enhancement",
            "param_max_generations",
            "param_stable_generations",
            "param_stall_generations",
            "param_underflow",
            "param_underflow_log2",
            "extra",
        ];
        let rows = self
            .outcomes
            .iter()
            .zip(&file.puzzles)
            .enumerate()
            .map(|(i, (o, p))| {
                [
                    file.path.clone(),
                    file.label(),
                    i.to_string(),
                    p.line.to_string(),
                    o.status.name().to_string(),
                    o.solved_at.map(|g| g.to_string()).unwrap_or_default(),
                    o.generations.to_string(),
                    o.species.to_string(),
                    o.conflicts.to_string(),
                    o.restarts.to_string(),
                    o.species_updates.to_string(),
                    o.grid.to_string(),
                    params.enhancement.to_string(),
                    params.max_generations.to_string(),
                    params.stable_generations.to_string(),
                    params.stall_generations.to_string(),
                    params.underflow.to_string(),
                    params.underflow_log2.to_string(),
                    p.extra.clone(),
                ]
            });
        crate::csv_io::to_string(header, rows)
    }
}

/// The JSON Schema of the `rfss` report (`gpu-sudoku schema rfss`).
pub fn json_schema() -> serde_json::Value {
    crate::report::schema::json_schema_of::<Report<'static>>("gpu-sudoku rfss report", false)
}

/// One puzzle's record in the JSON report.
#[derive(Serialize, schemars::JsonSchema)]
struct PuzzleJson<'a> {
    puzzle: usize,
    line: usize,
    #[serde(flatten)]
    outcome: &'a RfssOutcome,
}

/// The JSON report.
#[derive(Serialize, schemars::JsonSchema)]
struct Report<'a> {
    #[serde(flatten)]
    header: Header,
    algorithm: &'static str,
    backend: &'static str,
    adapter: Option<String>,
    path: &'a str,
    params: &'a RfssParams,
    puzzles: Vec<PuzzleJson<'a>>,
    timing: Timing,
}

#[derive(Serialize, schemars::JsonSchema)]
struct Timing {
    wall_s: f64,
    generations_per_s: f64,
    species_updates_per_s: f64,
}

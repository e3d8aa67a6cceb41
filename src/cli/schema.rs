//! `gpu-sudoku schema KIND`: the JSON Schema (draft 2020-12) of a report kind, derived from the
//! types its writer serialises, so it cannot drift from what the tool writes. docs/schema/
//! holds them all; tests validate real reports against them.

use super::output::Output;
use anyhow::Result;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The report kind (`merge` writes batch, compare and sweep reports).
    #[arg(value_enum)]
    pub kind: Kind,
    /// Write the schema here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<String>,
}

/// The JSON reports the tool writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// `batch --json` (and `merge` of batch shards).
    Batch,
    /// `compare --json` (and `merge` of compare shards).
    Compare,
    /// `sweep --json` (and `merge` of sweep shards).
    Sweep,
    /// `rate --json`.
    Rate,
    /// `rfss --json`.
    Rfss,
    /// `reproduce ilca|rfss|baselines --json`.
    Reproduce,
}

impl Kind {
    /// The kind's schema.
    pub fn schema(self) -> serde_json::Value {
        match self {
            Kind::Batch => gpu_sudoku::report::batch::json_schema(),
            Kind::Compare => gpu_sudoku::job::compare::json_schema(),
            Kind::Sweep => gpu_sudoku::job::sweep::json_schema(),
            Kind::Rate => gpu_sudoku::generate::report::json_schema(),
            Kind::Rfss => gpu_sudoku::rfss::report::json_schema(),
            Kind::Reproduce => gpu_sudoku::reproduce::report::json_schema(),
        }
    }
}

/// Prints (or writes) the schema of one report kind, pretty-printed.
pub fn run(a: Args) -> Result<ExitCode> {
    let text = serde_json::to_string_pretty(&a.kind.schema())? + "\n";
    let out = Output::new("--output", a.output.as_deref().unwrap_or("-"));
    super::output::check(&[], std::slice::from_ref(&out))?;
    out.write(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

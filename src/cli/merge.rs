//! `gpu-sudoku merge SHARD.json…`: joins the reports of the N shards of one run (`--shard K/N`
//! of `batch` or `compare`) into the report the unsharded run writes: every per-instance record
//! in order, the summaries, intervals and TTS recomputed from them, and the provenance of every
//! shard. Shards of different versions, parameters, seeds or inputs are refused, as are
//! duplicates and missing shards (named).

use super::args::{print_table, ReportArgs};
use anyhow::Result;
use gpu_sudoku::job::batch_table;
use gpu_sudoku::job::merge;
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
            print_table(&a.reports, &batch_table::merged_text(&merged));
            a.reports
                .write_streamed(|w| merged.write_json(w), |w| merged.write_csv(w))?;
            Ok(ExitCode::SUCCESS)
        }
        merge::Kind::Compare => {
            let merged = merge::compare(&shards, std::env::args().collect())?;
            print_table(&a.reports, &gpu_sudoku::job::compare::table(&merged.rows));
            a.reports
                .write_streamed(|w| merged.write_json(w), |w| merged.write_csv(w))?;
            Ok(ExitCode::SUCCESS)
        }
        merge::Kind::Sweep => {
            let merged = merge::sweep(&shards, std::env::args().collect())?;
            let note = format!(
                "merged {} settings, {} rows\n",
                merged.settings,
                merged.rows.len()
            );
            print_table(&a.reports, &note);
            a.reports.write(
                || Ok(serde_json::to_string_pretty(&merged.json)? + "\n"),
                || Ok(merged.csv()),
            )?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

//! Carrying out runs: what `batch`, `compare` and `sweep` do between reading their inputs and
//! writing their reports, as library calls that take a typed request and return a typed
//! report, so a notebook, an optimiser or another program runs the same resumable, sharded,
//! multi-device jobs as the command line.
//!
//! - [`devices`]: opening the devices a job runs on, and the scheduler that runs its chunks on
//!   every one of them at once;
//! - [`journal`]: the JSON Lines journal that makes a job resumable and holds its records until
//!   the report is written;
//! - [`batch`], [`compare`], [`sweep`]: the three jobs; [`merge`] joins their shards' reports;
//! - [`input`]: a batch's puzzle file, held or read window by window.
//!
//! Nothing here draws on a terminal: a job says how far it is and what a person should know
//! through [`Events`].

pub mod batch;
pub mod batch_table;
pub mod compare;
pub mod devices;
pub mod input;
pub mod journal;
pub mod merge;
pub mod sweep;

/// What a running job tells its caller. Every method has a default that does nothing
/// ([`Quiet`]); the command line draws a progress bar and prints notes on standard error.
/// Called from the job's own thread (progress also from worker threads).
pub trait Events: Sync {
    /// The job's size in instances (or attempts, or settings), before any runs.
    fn total(&self, _items: u64) {}
    /// What is running now (a file's label).
    fn label(&self, _label: &str) {}
    /// `items` more have finished.
    fn advance(&self, _items: u64) {}
    /// A line for a person (the command line prints it on standard error).
    fn note(&self, _line: &str) {}
    /// `batch`: file `index` has finished, with its results so far.
    fn batch_file(&self, _index: usize, _file: &crate::report::batch::FileResults) {}
}

/// Events nobody listens to.
pub struct Quiet;

impl Events for Quiet {}

/// Where a job keeps its per-instance records until its reports are written.
#[derive(Clone, Debug, Default)]
pub struct Keep {
    /// Keep the records (a report will be written with them); without, only totals are kept.
    pub records: bool,
    /// The journal goes beside this report file (`REPORT.partial.jsonl`), which makes the job
    /// resumable; without one the records wait in a scratch file that vanishes with the job.
    pub beside: Option<std::path::PathBuf>,
    /// Finish the job a killed run with the same request left in the journal.
    pub resume: bool,
}

impl Keep {
    /// The keeping that reports at `reports` ask for (`-`: standard output), resumed or not.
    pub fn for_reports(reports: &[&str], resume: bool) -> Keep {
        Keep {
            records: !reports.is_empty(),
            beside: reports
                .iter()
                .find(|p| **p != "-")
                .map(std::path::PathBuf::from),
            resume,
        }
    }

    /// Opens the journal this keeping asks for (see [`journal::beside`]), telling
    /// `events` how many chunks a resumed one held; a scratch journal when records are kept
    /// but no report is a file.
    pub fn open<C: serde::de::DeserializeOwned>(
        &self,
        header: &serde_json::Value,
        events: &dyn Events,
        keep: impl FnMut(journal::Span, C) -> anyhow::Result<bool>,
    ) -> anyhow::Result<Option<journal::Journal>> {
        let (j, done) = journal::beside(self.beside.as_deref(), header, self.resume, keep)?;
        if self.resume {
            events.note(&format!("resuming: {done} chunks already done"));
        }
        match j {
            Some(j) => Ok(Some(j)),
            None if self.records => Ok(Some(journal::Journal::scratch(header)?)),
            None => Ok(None),
        }
    }
}

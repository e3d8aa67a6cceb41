//! The journal of a long run: JSON Lines beside its report (`REPORT.partial.jsonl`), a header
//! line saying which run it is, then one line per finished chunk of work. A killed run loses at
//! most the chunk it was in; `--resume` reads the journal back, skips the chunks it holds, and
//! finishes to the same report. The journal goes when the report is written.

use anyhow::{bail, Context, Result};
use serde::{de::DeserializeOwned, Serialize};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

pub struct Journal {
    path: PathBuf,
    file: std::fs::File,
}

/// The journal of a run whose reports `reports` asks for: beside the first of them that is a
/// file (none when every report goes to standard output, which `--resume` refuses), opened for
/// the run `header` names, with the chunks it already holds when resuming.
pub fn for_reports<C: DeserializeOwned>(
    reports: &super::args::ReportArgs,
    header: &serde_json::Value,
    resume: bool,
) -> Result<(Option<Journal>, Vec<C>)> {
    let path = [&reports.json, &reports.csv]
        .into_iter()
        .flatten()
        .find(|p| p.as_str() != "-")
        .map(|p| path_for(Path::new(p)));
    match path {
        Some(p) => {
            let (j, done) = Journal::open(&p, header, resume)?;
            if resume {
                errln!("resuming: {} chunks already done", done.len());
            }
            Ok((Some(j), done))
        }
        None if resume => bail!(
            "--resume continues the journal kept beside --json FILE or --csv FILE: give the same one"
        ),
        None => Ok((None, Vec::new())),
    }
}

/// The journal beside report `report`.
pub fn path_for(report: &Path) -> PathBuf {
    let name = report
        .file_name()
        .map_or("report".into(), |n| n.to_string_lossy().into_owned());
    report.with_file_name(format!("{name}.partial.jsonl"))
}

impl Journal {
    /// Opens the journal at `path` for the run `header` describes. Without `resume` an
    /// existing journal is refused (it holds the work of an interrupted run); with it, its
    /// chunks come back (a last line cut by the interruption is dropped) when its header is
    /// this run's.
    pub fn open<C: DeserializeOwned>(
        path: &Path,
        header: &serde_json::Value,
        resume: bool,
    ) -> Result<(Journal, Vec<C>)> {
        let mut done = Vec::new();
        if path.exists() {
            if !resume {
                bail!(
                    "{} holds the finished work of an interrupted run: add --resume to finish \
                     it, or delete it to start over",
                    path.display()
                );
            }
            let f = std::fs::File::open(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let mut complete_bytes = 0u64;
            let mut lines = std::io::BufReader::new(f).lines();
            let first = lines.next().transpose()?.unwrap_or_default();
            let theirs: serde_json::Value = serde_json::from_str(&first).unwrap_or_default();
            if &theirs != header {
                bail!(
                    "--resume: {} was written by another run (other parameters, inputs, shard or \
                     version); delete it or run the same command as before",
                    path.display()
                );
            }
            complete_bytes += first.len() as u64 + 1;
            for line in lines {
                let line = line?;
                match serde_json::from_str::<C>(&line) {
                    Ok(c) => {
                        done.push(c);
                        complete_bytes += line.len() as u64 + 1;
                    }
                    Err(_) => break, // a line cut by the interruption
                }
            }
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            file.set_len(complete_bytes)?;
            let mut j = Journal {
                path: path.to_path_buf(),
                file,
            };
            use std::io::Seek;
            j.file.seek(std::io::SeekFrom::End(0))?;
            return Ok((j, done));
        }
        let mut file = std::fs::File::create(path)
            .with_context(|| format!("cannot create the journal {}", path.display()))?;
        writeln!(file, "{}", serde_json::to_string(header)?)?;
        file.sync_data()?;
        Ok((
            Journal {
                path: path.to_path_buf(),
                file,
            },
            done,
        ))
    }

    /// Records one finished chunk (on disk before this returns).
    pub fn append<C: Serialize>(&mut self, chunk: &C) -> Result<()> {
        writeln!(self.file, "{}", serde_json::to_string(chunk)?)
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("cannot write the journal {}", self.path.display()))
    }

    /// The report is written: the journal is no longer needed.
    pub fn finish(self) -> Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path)
            .with_context(|| format!("cannot remove {}", self.path.display()))
    }
}

//! The journal of a long run: JSON Lines beside its report (`REPORT.partial.jsonl`), a header
//! line saying which run it is, then one line per finished chunk of work. A killed run loses at
//! most the chunk it was in; `--resume` reads the journal back, skips the chunks it holds, and
//! finishes to the same report. The journal goes when the report is written.
//!
//! The journal is also where a run's per-instance records wait for the report: each chunk's
//! place in the file ([`Span`]) is kept, and the report reads the chunks back in order, so a
//! run of any length holds one chunk at a time. A run whose reports all go to standard output
//! keeps the same file in the temporary folder, its name removed as soon as it is open (on
//! Unix), so nothing is left behind however the run ends ([`Journal::scratch`]).

use anyhow::{bail, Context, Result};
use serde::{de::DeserializeOwned, Serialize};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

pub struct Journal {
    path: PathBuf,
    /// Shared with the readers of its chunks (the name of a scratch journal is gone).
    file: std::sync::Arc<std::fs::File>,
    /// Bytes written so far (where the next chunk starts).
    end: u64,
    /// A scratch file (not a resume point) still named: removed when dropped.
    scratch: bool,
    /// A scratch file whose name is already removed.
    unlinked: bool,
}

/// Where one chunk's line lies in a journal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub offset: u64,
    pub len: u64,
}

/// Whether the records of a chunk read back from a journal stand for its items `items`, one
/// each, in order (item i is puzzle i / runs, run i % runs, of a file of `puzzles` puzzles):
/// what `batch` and `compare` check before they keep a resumed chunk. `held` gives each
/// record's (puzzle, run); `what` names an item ("item", "attempt").
pub fn check_items(
    items: std::ops::Range<usize>,
    runs: usize,
    puzzles: usize,
    held: &[(usize, usize)],
    what: &str,
) -> std::result::Result<(), String> {
    if held.len() != items.len() {
        return Err(format!(
            "{} records for {} {what}s",
            held.len(),
            items.len()
        ));
    }
    for (i, &(puzzle, run)) in items.zip(held) {
        let want = (i / runs, i % runs);
        if (puzzle, run) != want || want.0 >= puzzles {
            return Err(format!(
                "{what} {i} holds puzzle {puzzle} run {run}, not puzzle {} run {}",
                want.0, want.1
            ));
        }
    }
    Ok(())
}

/// A time read back from a journal: a duration (finite, not negative).
pub fn check_seconds(seconds: f64) -> std::result::Result<(), String> {
    if seconds.is_finite() && seconds >= 0.0 {
        Ok(())
    } else {
        Err(format!("its time {seconds} s is not a duration"))
    }
}

/// The journal beside report file `report` (none without one, which `resume` refuses), opened
/// for the run `header` names; when resuming, each chunk it already holds goes to `keep`, which
/// says whether it kept it. Returns the journal and how many chunks it held.
pub fn beside<C: DeserializeOwned>(
    report: Option<&Path>,
    header: &serde_json::Value,
    resume: bool,
    keep: impl FnMut(Span, C) -> Result<bool>,
) -> Result<(Option<Journal>, usize)> {
    match report {
        Some(r) => {
            let (j, done) = Journal::open(&path_for(r), header, resume, keep)?;
            Ok((Some(j), done))
        }
        None if resume => bail!(
            "--resume continues the journal kept beside --json FILE or --csv FILE: give the same one"
        ),
        None => Ok((None, 0)),
    }
}

/// Where two journal headers first differ: the field's path (`params.seed`, `inputs[1].hash`,
/// `chunk`) and its value in each, written short; `None` when they are equal.
pub fn first_difference(
    theirs: &serde_json::Value,
    ours: &serde_json::Value,
    at: &str,
) -> Option<(String, String, String)> {
    use serde_json::Value;
    if theirs == ours {
        return None;
    }
    let join = |key: &str| {
        if at.is_empty() {
            key.to_string()
        } else {
            format!("{at}.{key}")
        }
    };
    match (theirs, ours) {
        (Value::Object(t), Value::Object(o)) => {
            let keys = o.keys().chain(t.keys().filter(|k| !o.contains_key(*k)));
            for k in keys {
                match (t.get(k), o.get(k)) {
                    (Some(x), Some(y)) => {
                        if let Some(d) = first_difference(x, y, &join(k)) {
                            return Some(d);
                        }
                    }
                    (x, y) => return Some((join(k), short(x), short(y))),
                }
            }
            None
        }
        // Lists of objects (inputs) are compared entry by entry; lists of values (a swept
        // range) are shown whole.
        (Value::Array(t), Value::Array(o))
            if t.len() == o.len() && o.iter().any(|v| v.is_object() || v.is_array()) =>
        {
            t.iter()
                .zip(o)
                .enumerate()
                .find_map(|(i, (x, y))| first_difference(x, y, &format!("{at}[{i}]")))
        }
        _ => Some((at.to_string(), short(Some(theirs)), short(Some(ours)))),
    }
}

/// A JSON value in at most about 60 characters (`absent` for none).
fn short(v: Option<&serde_json::Value>) -> String {
    let Some(v) = v else {
        return "absent".into();
    };
    let s = v.to_string();
    if s.chars().count() <= 60 {
        s
    } else {
        s.chars().take(57).collect::<String>() + "…"
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
    /// chunks go to `keep` one at a time (a last line cut by the interruption is dropped) when
    /// its header is this run's. Returns the journal and how many chunks it held.
    pub fn open<C: DeserializeOwned>(
        path: &Path,
        header: &serde_json::Value,
        resume: bool,
        mut keep: impl FnMut(Span, C) -> Result<bool>,
    ) -> Result<(Journal, usize)> {
        let mut done = 0;
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
            let mut lines = RawLines::new(f);
            let first_line = lines.next()?.unwrap_or_default();
            let first = first_line.text.clone();
            let theirs: serde_json::Value = serde_json::from_str(&first).unwrap_or_default();
            if &theirs != header {
                let what = match first_difference(&theirs, header, "") {
                    Some((field, there, here)) if theirs.is_object() => {
                        format!("its `{field}` is {there}, this run's is {here}")
                    }
                    _ => "its first line is not a journal header".into(),
                };
                bail!(
                    "--resume: {} was written by another run ({what}); run the same command as \
                     before, write to another report file, or delete the journal to start over",
                    path.display()
                );
            }
            complete_bytes += first_line.bytes_with_newline();
            let mut number = 1;
            while let Some(line) = lines.next()? {
                number += 1;
                // Parsed from its bytes, as the report reads it back (a byte that is not UTF-8
                // makes a damaged line here, not a failure when the report is written).
                match serde_json::from_slice::<C>(&line.raw) {
                    Ok(c) => {
                        let span = Span {
                            offset: complete_bytes,
                            len: line.raw.len() as u64,
                        };
                        // Counted only where kept (a line given twice is one chunk).
                        if keep(span, c)? {
                            done += 1;
                        }
                        complete_bytes += line.bytes_with_newline();
                    }
                    Err(e) => {
                        // Only the last line can be cut by an interruption (lines are appended
                        // one after the other); a bad line with finished work after it is
                        // damage, and dropping what follows would lose that work.
                        let cut = |l: &str| {
                            l.trim_matches(|c: char| c.is_whitespace() || c == '\0')
                                .is_empty()
                        };
                        let mut more = false;
                        while let Some(rest) = lines.next()? {
                            if !cut(&rest.text) {
                                more = true;
                                break;
                            }
                        }
                        if more {
                            // serde's own position counts from this line: the column is said.
                            let what = e.to_string();
                            let what = what.split(" at line ").next().unwrap_or_default();
                            bail!(
                                "{}:{number}:{}: a damaged journal line with finished work after \
                                 it ({}); mend or delete the journal (deleting starts the run \
                                 over)",
                                path.display(),
                                e.column(),
                                what
                            );
                        }
                        break; // the line the interruption cut
                    }
                }
            }
            let file = std::fs::OpenOptions::new()
                .read(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            if file.metadata()?.len() < complete_bytes {
                // The interruption cut the last chunk's line just before its newline: end it
                // (extending the file would put a NUL there, which the next resume stops at).
                (&file).write_all(b"\n")?;
            } else {
                file.set_len(complete_bytes)?;
            }
            let j = Journal {
                path: path.to_path_buf(),
                file: std::sync::Arc::new(file),
                end: complete_bytes,
                scratch: false,
                unlinked: false,
            };
            return Ok((j, done));
        }
        let j = Journal::create(path, header, false)
            .with_context(|| format!("cannot create the journal {}", path.display()))?;
        Ok((j, done))
    }

    /// A journal in the temporary folder that only holds records until the report is written
    /// (every report goes to standard output): a new file, unlinked at once where the system
    /// allows (Unix), removed on drop elsewhere.
    pub fn scratch(header: &serde_json::Value) -> Result<Journal> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = std::env::temp_dir().join(format!(
            "gpu-sudoku-{}-{nanos}-records.jsonl",
            std::process::id()
        ));
        let mut j = Journal::create(&path, header, true).with_context(|| {
            format!(
                "cannot create {} to hold the records until the report is written (set TMPDIR \
                 to a folder with room)",
                path.display()
            )
        })?;
        if cfg!(unix) && std::fs::remove_file(&path).is_ok() {
            j.scratch = false; // nothing left to remove
            j.unlinked = true;
        }
        Ok(j)
    }

    /// A new journal at `path` (refused when a file is there) holding the header line.
    fn create(path: &Path, header: &serde_json::Value, scratch: bool) -> Result<Journal> {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .open(path)?;
        let line = serde_json::to_string(header)? + "\n";
        file.write_all(line.as_bytes())?;
        file.sync_data()?;
        Ok(Journal {
            path: path.to_path_buf(),
            file: std::sync::Arc::new(file),
            end: line.len() as u64,
            scratch,
            unlinked: false,
        })
    }

    /// Records one finished chunk (on disk before this returns); where it lies. The line goes
    /// out in one write to the end of the file (opened to append), so an interruption cuts at
    /// most this line, and reading chunks back in between moves nothing.
    pub fn append<C: Serialize>(&mut self, chunk: &C) -> Result<Span> {
        let line = serde_json::to_string(chunk)? + "\n";
        (&*self.file)
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("cannot write the journal {}", self.path.display()))?;
        let span = Span {
            offset: self.end,
            len: line.len() as u64 - 1,
        };
        self.end += line.len() as u64;
        Ok(span)
    }

    /// A reader of this journal's chunks by [`Span`] (for reports written after the run),
    /// through the journal's own open file.
    pub fn reader(&self) -> ChunkReader {
        ChunkReader {
            file: self.file.clone(),
            path: self.path.clone(),
            unlinked: self.unlinked,
        }
    }

    /// The report is written: the journal is no longer needed.
    pub fn finish(self) -> Result<()> {
        if self.scratch || self.unlinked {
            return Ok(()); // removed on drop, or already
        }
        let path = self.path.clone();
        drop(self);
        std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        if self.scratch {
            std::fs::remove_file(&self.path).ok();
        }
    }
}

/// Reads chunks back from a journal by their [`Span`]s.
#[derive(Clone, Debug)]
pub struct ChunkReader {
    file: std::sync::Arc<std::fs::File>,
    path: PathBuf,
    unlinked: bool,
}

impl ChunkReader {
    /// The chunks at `spans`, in that order, each handed to `visit` (one held at a time).
    pub fn read<C: DeserializeOwned>(
        &self,
        spans: &[Span],
        mut visit: impl FnMut(C) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        use std::io::{Read, Seek};
        let mut f = &*self.file;
        let mut line = Vec::new();
        for s in spans {
            f.seek(std::io::SeekFrom::Start(s.offset))?;
            line.resize(s.len as usize, 0);
            f.read_exact(&mut line)?;
            let chunk = serde_json::from_slice(&line).map_err(|e| {
                let what = if self.unlinked {
                    "the scratch journal".to_string()
                } else {
                    self.path.display().to_string()
                };
                std::io::Error::other(format!("{what} changed under the run: {e}"))
            })?;
            visit(chunk)?;
        }
        Ok(())
    }
}

/// A journal's lines with their exact byte counts (so that a chunk's place is right whatever
/// ends its lines: `\n`, or `\r\n` after an edit on another system), their bytes (parsed as
/// the report reads them back) and their text lossily decoded (for messages).
struct RawLines {
    reader: std::io::BufReader<std::fs::File>,
    buf: Vec<u8>,
}

#[derive(Default)]
struct RawLine {
    /// The line's bytes without its ending.
    raw: Vec<u8>,
    /// The same as text, lossily decoded (for messages and blank-line checks).
    text: String,
    /// Bytes it takes in the file, its ending included.
    bytes: u64,
    /// It ends with a newline (the last line of a cut file may not).
    ended: bool,
}

impl RawLine {
    /// Its bytes counting a newline even where the file lacks it (the resumed journal adds it).
    fn bytes_with_newline(&self) -> u64 {
        self.bytes + u64::from(!self.ended)
    }
}

impl RawLines {
    fn new(f: std::fs::File) -> RawLines {
        RawLines {
            reader: std::io::BufReader::new(f),
            buf: Vec::new(),
        }
    }

    fn next(&mut self) -> std::io::Result<Option<RawLine>> {
        self.buf.clear();
        let n = self.reader.read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        let ended = self.buf.ends_with(b"\n");
        let mut end = self.buf.len() - usize::from(ended);
        if ended && self.buf[..end].ends_with(b"\r") {
            end -= 1;
        }
        Ok(Some(RawLine {
            raw: self.buf[..end].to_vec(),
            text: String::from_utf8_lossy(&self.buf[..end]).into_owned(),
            bytes: n as u64,
            ended,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_line_cut_before_its_newline_is_kept_and_ended() {
        let dir = std::env::temp_dir().join(format!("gpu-sudoku-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.json.partial.jsonl");
        let header = json!({"run": 1});
        for (tail, kept) in [("{\"n\":2}", 2), ("{\"n\":2", 1), ("", 1)] {
            std::fs::write(&path, format!("{header}\n{{\"n\":1}}\n{tail}")).unwrap();
            let mut seen = Vec::new();
            let (mut j, done) = Journal::open(&path, &header, true, |_, c: serde_json::Value| {
                seen.push(c["n"].as_u64().unwrap());
                Ok(true)
            })
            .unwrap();
            assert_eq!(done, kept, "{tail:?}");
            j.append(&json!({"n": 3})).unwrap();
            drop(j);
            // Every chunk kept and the new one are lines of their own, no NUL between them.
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(!text.contains('\0'), "{text:?}");
            let mut again = Vec::new();
            let (_, done) = Journal::open(&path, &header, true, |_, c: serde_json::Value| {
                again.push(c["n"].as_u64().unwrap());
                Ok(true)
            })
            .unwrap();
            seen.push(3);
            assert_eq!((done, &again), (kept + 1, &seen), "{tail:?}");
            std::fs::remove_file(&path).unwrap();
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_first_differing_field_is_named() {
        let ours = json!({"params": {"seed": 1, "sr": [10, 20]}, "inputs": [{"hash": "a"}, {"hash": "b"}], "chunk": 16384});
        assert_eq!(first_difference(&ours, &ours, ""), None);
        let mut t = ours.clone();
        t["chunk"] = json!(1000);
        assert_eq!(
            first_difference(&t, &ours, ""),
            Some(("chunk".into(), "1000".into(), "16384".into()))
        );
        let mut t = ours.clone();
        t["params"]["sr"] = json!([10, 20, 30]);
        assert_eq!(
            first_difference(&t, &ours, ""),
            Some(("params.sr".into(), "[10,20,30]".into(), "[10,20]".into()))
        );
        let mut t = ours.clone();
        t["inputs"][1]["hash"] = json!("c");
        assert_eq!(first_difference(&t, &ours, "").unwrap().0, "inputs[1].hash");
        let mut t = ours.clone();
        t["params"].as_object_mut().unwrap().remove("seed");
        assert_eq!(
            first_difference(&t, &ours, ""),
            Some(("params.seed".into(), "absent".into(), "1".into()))
        );
    }
}

//! The journal of a long run: JSON Lines beside its report (`REPORT.partial.jsonl`), a header
//! line saying which run it is, then one line per finished chunk of work. A killed run loses at
//! most the chunk it was in; `--resume` reads the journal back, skips the chunks it holds, and
//! finishes to the same report. The journal goes when the report is written.
//!
//! Each chunk line starts with a checksum (16 hex digits and a space) of the header line and
//! its own bytes: a byte changed since it was written, or a line taken from another run's
//! journal, is a damaged line, found where it is (`FILE:LINE`), never a result.
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
    /// The header line's bytes, which every chunk line's checksum covers.
    header: std::sync::Arc<Vec<u8>>,
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

/// A time read back from a journal or report: a duration (finite, not negative, at most
/// [`MAX_RECORDED_SECONDS`]).
pub fn check_seconds(seconds: f64) -> std::result::Result<(), String> {
    if seconds.is_finite() && (0.0..=MAX_RECORDED_SECONDS).contains(&seconds) {
        Ok(())
    } else {
        Err(format!(
            "its time {seconds} s is not a duration of at most {MAX_RECORDED_SECONDS} s"
        ))
    }
}

/// The longest time a record read back may claim (about 31 years): more is damage, and the sum
/// of any number of such times still fits a `Duration` (a larger one did not, and panicked).
pub const MAX_RECORDED_SECONDS: f64 = 1e9;

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
            let kind = std::fs::metadata(path)
                .with_context(|| format!("cannot read {}", path.display()))?
                .file_type();
            if !kind.is_file() {
                bail!(
                    "{}: the journal's name is taken by a {}: remove it or write the report \
                     elsewhere",
                    path.display(),
                    if kind.is_dir() {
                        "folder"
                    } else {
                        "file that is not a regular file"
                    }
                );
            }
            let file = std::fs::OpenOptions::new()
                .read(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            lock(&file, path)?;
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
            let header_line = serde_json::to_vec(header)?;
            let mut lines = RawLines::new(f, path);
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
                // Checked and parsed from its bytes, as the report reads it back (a byte that is
                // not UTF-8 makes a damaged line here, not a failure when the report is written).
                match decode::<C>(&header_line, &line.raw) {
                    Ok(c) => {
                        let span = Span {
                            offset: complete_bytes,
                            len: line.raw.len() as u64,
                        };
                        // Counted only where kept (a line given twice is one chunk).
                        // A record refused for what it holds is located like a damaged one.
                        if keep(span, c).with_context(|| format!("{}:{number}", path.display()))? {
                            done += 1;
                        }
                        complete_bytes += line.bytes_with_newline();
                    }
                    Err(what) => {
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
                            bail!(
                                "{}:{number}: a damaged journal line with finished work after \
                                 it ({what}); delete the journal to run the whole job again",
                                path.display(),
                            );
                        }
                        break; // the line the interruption cut
                    }
                }
            }
            if file.metadata()?.len() < complete_bytes {
                // The interruption cut the last chunk's line just before its newline: end it
                // (extending the file would put a NUL there, which the next resume stops at).
                (&file).write_all(b"\n")?;
            } else {
                file.set_len(complete_bytes)?;
            }
            let j = Journal {
                path: path.to_path_buf(),
                header: std::sync::Arc::new(header_line),
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
        if !scratch {
            lock(&file, path)?;
        }
        let header_line = serde_json::to_vec(header)?;
        let line = [&header_line[..], b"\n"].concat();
        file.write_all(&line)?;
        file.sync_data()?;
        Ok(Journal {
            path: path.to_path_buf(),
            header: std::sync::Arc::new(header_line),
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
        let json = serde_json::to_string(chunk)?;
        let line = format!("{} {json}\n", checksum(&self.header, json.as_bytes()));
        debug_assert_eq!(
            line.trim_end(),
            signed_line(std::str::from_utf8(&self.header).unwrap_or(""), &json)
        );
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
            header: self.header.clone(),
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
    header: std::sync::Arc<Vec<u8>>,
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
            let chunk = decode(&self.header, &line).map_err(|e| {
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

/// The checksum a chunk line starts with: of the journal's header line and the chunk's JSON.
fn checksum(header: &[u8], json: &[u8]) -> String {
    crate::shard::content_hash([header, json])
}

/// A chunk line as a journal whose header line is `header_line` holds it: its checksum, a
/// space, the chunk's JSON (for tools and tests that write journal lines themselves).
pub fn signed_line(header_line: &str, chunk_json: &str) -> String {
    format!(
        "{} {chunk_json}",
        checksum(header_line.as_bytes(), chunk_json.as_bytes())
    )
}

/// The chunk a journal line holds, its checksum checked first; why not, for a message.
fn decode<C: DeserializeOwned>(header: &[u8], line: &[u8]) -> std::result::Result<C, String> {
    let (sum, json) = match line.split_at_checked(17) {
        Some((s, j)) if s[16] == b' ' => (&s[..16], j),
        _ => return Err("it does not start with its checksum".into()),
    };
    if sum != checksum(header, json).as_bytes() {
        return Err(
            "its checksum does not match its bytes: it changed after it was written, \
                    or comes from another run's journal"
                .into(),
        );
    }
    serde_json::from_slice(json).map_err(|e| {
        let e = e.to_string();
        e.split(" at line ").next().unwrap_or_default().to_string()
    })
}

/// Holds `file`, the journal at `path`, for this run alone (an advisory lock, released when the
/// run ends however it ends): a second run on the same journal is refused, naming the process
/// that holds it where the system says (Linux).
#[cfg(unix)]
fn lock(file: &std::fs::File, path: &Path) -> Result<()> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this function borrows; it changes no memory.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
        return Err(err).with_context(|| format!("cannot lock the journal {}", path.display()));
    }
    let who = lock_holder(file).map_or("another process".to_string(), |pid| {
        format!("another process (PID {pid})")
    });
    bail!(
        "{}: {who} is running this job with this journal now; wait for it to end or stop it \
         (two runs on one journal would both fail)",
        path.display()
    )
}

#[cfg(not(unix))]
fn lock(_: &std::fs::File, _: &Path) -> Result<()> {
    Ok(())
}

/// The process holding an flock on `file`, from /proc/locks (Linux; `None` elsewhere).
#[cfg(unix)]
fn lock_holder(file: &std::fs::File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let inode = file.metadata().ok()?.ino();
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    // `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF` (waiters have `->` after the id).
    locks.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let held = f.get(1) == Some(&"FLOCK");
        let ino = f.get(5)?.rsplit(':').next()?.parse::<u64>().ok()?;
        (held && ino == inode).then(|| f.get(4)?.parse().ok())?
    })
}

/// The longest journal line read back: a chunk's records, which also fit a shard report.
const MAX_LINE_BYTES: u64 = crate::limits::MAX_REPORT_BYTES;

/// A journal's lines with their exact byte counts (so that a chunk's place is right whatever
/// ends its lines: `\n`, or `\r\n` after an edit on another system), their bytes (parsed as
/// the report reads them back) and their text lossily decoded (for messages).
struct RawLines {
    reader: std::io::BufReader<std::fs::File>,
    buf: Vec<u8>,
    path: PathBuf,
    number: usize,
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
    fn new(f: std::fs::File, path: &Path) -> RawLines {
        RawLines {
            reader: std::io::BufReader::new(f),
            buf: Vec::new(),
            path: path.to_path_buf(),
            number: 0,
        }
    }

    fn next(&mut self) -> Result<Option<RawLine>> {
        use std::io::Read;
        self.buf.clear();
        self.number += 1;
        let n = (&mut self.reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut self.buf)
            .with_context(|| format!("cannot read {}", self.path.display()))?;
        if n == 0 {
            return Ok(None);
        }
        if n as u64 > MAX_LINE_BYTES {
            bail!(
                "{}:{}: a line longer than {} GiB, more than any chunk a run writes: not a \
                 journal of this tool",
                self.path.display(),
                self.number,
                MAX_LINE_BYTES >> 30
            );
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
        let h = serde_json::to_vec(&header).unwrap();
        let line = |json: &str| format!("{} {json}", checksum(&h, json.as_bytes()));
        let full = line("{\"n\":2}");
        let cut = &full[..full.len() - 1];
        for (tail, kept) in [(full.as_str(), 2), (cut, 1), ("", 1)] {
            std::fs::write(&path, format!("{header}\n{}\n{tail}", line("{\"n\":1}"))).unwrap();
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
    fn any_changed_byte_of_a_finished_line_is_found() {
        let dir = std::env::temp_dir().join(format!("gpu-sudoku-sums-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.json.partial.jsonl");
        let header = json!({"run": 1});
        let keep = |_: Span, _: serde_json::Value| Ok(true);
        let (mut j, _) = Journal::open(&path, &header, false, keep).unwrap();
        for n in 1..=3 {
            j.append(&json!({"n": n, "steps": 58})).unwrap();
        }
        drop(j);
        let good = std::fs::read(&path).unwrap();
        let starts: Vec<usize> = std::iter::once(0)
            .chain(
                good.iter()
                    .enumerate()
                    .filter(|(_, &b)| b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        // Every byte of chunk lines 2 and 3 (not their newlines), changed in turn.
        for at in starts[1]..starts[3] - 1 {
            let mut bad = good.clone();
            bad[at] = if bad[at] == b'7' { b'8' } else { b'7' };
            std::fs::write(&path, &bad).unwrap();
            let e = Journal::open(&path, &header, true, keep).err().unwrap();
            let line = if at < starts[2] { 2 } else { 3 };
            assert!(
                format!("{e:#}").contains(&format!("r.json.partial.jsonl:{line}: a damaged")),
                "byte {at}: {e:#}"
            );
        }
        // The last line is the one an interruption cuts: changed, it is run again.
        let mut bad = good.clone();
        bad[starts[3] + 20] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let (_, done) = Journal::open(&path, &header, true, keep).unwrap();
        assert_eq!(done, 2);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_journal_in_use_a_folder_and_a_device_are_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("gpu-sudoku-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.json.partial.jsonl");
        let header = json!({"run": 1});
        let keep = |_: Span, _: serde_json::Value| Ok(true);
        let (held, _) = Journal::open(&path, &header, false, keep).unwrap();
        // A second run on it, resumed or not, while the first holds it.
        for resume in [true, false] {
            let e = Journal::open(&path, &header, resume, keep).err().unwrap();
            let e = format!("{e:#}");
            assert!(
                e.contains("is running this job with this journal now"),
                "{e}"
            );
            if cfg!(target_os = "linux") {
                assert!(e.contains(&format!("(PID {})", std::process::id())), "{e}");
            }
        }
        drop(held);
        let (j, done) = Journal::open(&path, &header, true, keep).unwrap();
        assert_eq!(done, 0);
        drop(j);
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        let e = format!(
            "{:#}",
            Journal::open(&path, &header, true, keep).err().unwrap()
        );
        assert!(
            e.contains("r.json.partial.jsonl: the journal's name is taken by a folder"),
            "{e}"
        );
        std::fs::remove_dir(&path).unwrap();
        #[cfg(unix)]
        if Path::new("/dev/zero").exists() {
            std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
            let e = format!(
                "{:#}",
                Journal::open(&path, &header, true, keep).err().unwrap()
            );
            assert!(e.contains("a file that is not a regular file"), "{e}");
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

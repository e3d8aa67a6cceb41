//! Runs that say what they cost: before a batch starts, the memory it holds (the chunks of
//! results in flight; finished records wait on disk) and the disk its records take (the
//! journal and the reports) are estimated from the counts, and a run that would not fit the
//! machine's available memory or the output folder's free space is refused, with the estimate
//! and what to change.

use anyhow::{bail, Context, Result};

/// Bytes of memory the system can still give (`MemAvailable` of /proc/meminfo); `None` where
/// that is unknown.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Bytes the file system holding `path` (a file or folder; a missing file is looked up in its
/// folder) can still give to this user; `None` where that is unknown.
#[cfg(unix)]
pub fn available_disk(path: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let dir = std::ffi::CString::new(folder_of(path).as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `dir` is a NUL-terminated path and `st` is space for one statvfs, which the call
    // fills when it returns 0.
    let st = unsafe {
        if libc::statvfs(dir.as_ptr(), st.as_mut_ptr()) != 0 {
            return None;
        }
        st.assume_init()
    };
    (st.f_bavail as u64).checked_mul(st.f_frsize as u64)
}

#[cfg(not(unix))]
pub fn available_disk(_: &std::path::Path) -> Option<u64> {
    None
}

/// The folder a file at `path` goes into (`path` itself when it is a folder).
fn folder_of(path: &std::path::Path) -> &std::path::Path {
    match path.parent() {
        _ if path.is_dir() => path,
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    }
}

/// Which file system holds `path` (as [`available_disk`] looks it up), so that outputs on one
/// file system can be added up; `None` where that is unknown.
#[cfg(unix)]
pub fn file_system_of(path: &std::path::Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(folder_of(path)).ok().map(|m| m.dev())
}

#[cfg(not(unix))]
pub fn file_system_of(_: &std::path::Path) -> Option<u64> {
    None
}

/// Memory a batch holds per instance of a chunk in flight, with `cells` cells per grid: the
/// instance and its result record with its final grid.
pub fn held_bytes_per_instance(cells: usize) -> u64 {
    24 + 64 + cells as u64
}

/// Disk a batch's records take per instance, with `cells` cells per grid, in each place they
/// go: its line in the journal, its record in the JSON and CSV reports. `detailed`: the
/// algorithm adds its own record of each instance (RFSS: status, generations, species and the
/// grid again), measured at about 120 bytes plus the grid in the journal and 490 plus the grid
/// in the indented JSON. What the inputs add (paths, extra fields, solution columns) comes on
/// top: [`RecordBytes::with_inputs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordBytes {
    pub journal: u64,
    pub json: u64,
    pub csv: u64,
}

impl RecordBytes {
    pub fn per_instance(cells: usize, detailed: bool) -> RecordBytes {
        let cells = cells as u64;
        let (journal_detail, json_detail) = if detailed {
            (140 + cells, 490 + cells)
        } else {
            (0, 0)
        };
        // Measured at about 55, 156 and 72 bytes besides the grid and the inputs' fields with
        // short numbers; the rest is room for 7-digit puzzle, line, run and step counts.
        RecordBytes {
            journal: 80 + cells + journal_detail,
            json: 190 + cells + json_detail,
            csv: 100 + cells,
        }
    }
}

impl RecordBytes {
    /// A `rate` row in each place, for a puzzle whose extra fields take `extra` bytes, in a
    /// file whose path takes `path` bytes. Measured at about 110 (journal), 330 (JSON) and 75
    /// (CSV) bytes for a 9x9 row using two techniques, besides its extra fields; the rest is
    /// room for every technique's count and for extra fields that escape to six bytes a byte.
    pub fn rated_puzzle(extra: usize, path: usize) -> RecordBytes {
        let (extra, path) = (extra as u64, path as u64);
        RecordBytes {
            journal: 600 + 6 * extra,
            json: 900 + 6 * extra,
            csv: 450 + 2 * extra + 2 * path,
        }
    }
}

/// The JSON of one puzzle's entry in a batch report besides its extra fields and its file's
/// solution (keys, indentation, counts, its TTS99 object), bounded from above.
pub const PUZZLE_JSON_BYTES: u64 = 360;

impl RecordBytes {
    /// These per-instance bytes with what the inputs add, as upper bounds: each CSV row
    /// repeats its file's path and label and its puzzle's extra fields (`row_names`: the
    /// longest path plus label, `row_extra`: the longest extra fields, both as CSV writes
    /// them), and the JSON holds an entry per puzzle (`puzzle_json`: the longest, beyond
    /// [`PUZZLE_JSON_BYTES`]) shared by its `runs` instances.
    pub fn with_inputs(self, row_names: u64, row_extra: u64, puzzle_json: u64, runs: u64) -> Self {
        RecordBytes {
            journal: self.journal,
            json: self.json + (PUZZLE_JSON_BYTES + puzzle_json).div_ceil(runs.max(1)),
            csv: self.csv + row_names + row_extra,
        }
    }
}

impl RecordBytes {
    /// A compare attempt's record in each place, with `labels` bytes of file label, file path
    /// and algorithm name, written in chunks of `chunk` attempts (measured at about 136, 220
    /// and 44 bytes besides the labels, up to 194 in the journal with chunks of one attempt;
    /// the numbers leave room for long counts and times). The CSV's parameter columns come on
    /// top (their width depends on the entries).
    pub fn per_attempt(labels: usize, chunk: u32) -> RecordBytes {
        let labels = labels as u64;
        RecordBytes {
            journal: 175 + labels + 64 / chunk.max(1) as u64,
            json: 260 + labels,
            csv: 70 + labels,
        }
    }
}

/// Refuses records of `instances` instances of `bytes_each` when that exceeds `available`
/// (the free space where they go, when known), saying what they would need and what helps.
pub fn check_disk(
    instances: u64,
    bytes_each: u64,
    available: Option<(u64, &std::path::Path)>,
    what_helps: &str,
) -> Result<()> {
    let need = instances
        .checked_mul(bytes_each)
        .and_then(|n| n.checked_add(REPORT_FIXED_BYTES));
    let Some(need) = need else {
        bail!("the records of {instances} instances cannot be written (the size overflows); {what_helps}");
    };
    if let Some((have, place)) = available {
        if need > have {
            bail!(
                "the records of {instances} instances would take about {} of disk (about \
                 {bytes_each} bytes each: journal and report files), more than the {} free at \
                 {}; {what_helps}",
                fmt_bytes(need),
                fmt_bytes(have),
                place.display()
            );
        }
    }
    Ok(())
}

/// What the files of one place hold besides their records, bounded from above: a report's
/// header (command, build, parameters, inputs), its per-file and overall summaries, a
/// journal's header line. About 2.6 kB for one 64x64 file (2026-11-27), where two records
/// weigh 8.4 kB: without it a run of a few large instances was under-estimated.
pub const REPORT_FIXED_BYTES: u64 = 64 * 1024;

/// A readable size: 1.5 GB, 320 MB, 12 kB.
pub fn fmt_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1e12 {
        format!("{:.1} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else {
        format!("{:.0} kB", b / 1e3)
    }
}

/// Refuses `instances` instances of `bytes_each` when that exceeds `available` (the machine's
/// available memory, when known), saying what they would need and what helps.
pub fn check_memory(
    instances: u64,
    bytes_each: u64,
    held: &str,
    available: Option<u64>,
    what_helps: &str,
) -> Result<()> {
    let Some(need) = instances.checked_mul(bytes_each) else {
        bail!("{instances} instances cannot be held in memory (the count overflows); {what_helps}");
    };
    if let Some(have) = available {
        if need > have {
            bail!(
                "{instances} instances would need about {} of memory (about {bytes_each} bytes \
                 each: {held}), more than the {} available; {what_helps}",
                fmt_bytes(need),
                fmt_bytes(have)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_and_refusals() {
        assert_eq!(held_bytes_per_instance(81), 24 + 64 + 81);
        let r = RecordBytes::per_instance(81, false);
        assert_eq!((r.journal, r.json, r.csv), (161, 271, 181));
        assert_eq!(RecordBytes::per_instance(81, true).json, 271 + 571);
        // The inputs' share: per row its names and extras; per puzzle its entry, over its runs.
        let w = r.with_inputs(30, 50, 140, 10);
        assert_eq!((w.journal, w.json, w.csv), (161, 271 + 50, 181 + 80));
        // A compare attempt: chunks of one attempt carry their wrapper each.
        assert_eq!(RecordBytes::per_attempt(10, 1).journal, 175 + 10 + 64);
        assert_eq!(RecordBytes::per_attempt(10, 1024).journal, 185);
        let here = std::path::Path::new(".");
        check_disk(1_000, 500, Some((1_000_000, here)), "x").unwrap();
        let e = check_disk(
            1_000_000,
            500,
            Some((1_000_000, here)),
            "write fewer reports",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("500 MB of disk") && e.contains("1 MB free at .") && e.contains("fewer"),
            "{e}"
        );
        assert!(check_disk(u64::MAX, 2, None, "x").is_err());
        // The folder of a file that does not exist yet.
        for file in ["./no-such-file.json", "no-such-file.json"] {
            let file = std::path::Path::new(file);
            assert!(available_disk(file).is_some_and(|b| b > 0));
            assert_eq!(
                file_system_of(file),
                file_system_of(std::path::Path::new("."))
            );
        }
        check_memory(1_000, 500, "x", Some(1_000_000), "use fewer --runs").unwrap();
        let e = check_memory(
            1_000_000_000,
            500,
            "x",
            Some(20_000_000_000),
            "use fewer --runs",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("500.0 GB") && e.contains("20.0 GB available") && e.contains("fewer --runs"),
            "{e}"
        );
        assert!(check_memory(u64::MAX, 2, "x", None, "x").is_err());
        check_memory(u64::MAX / 4, 2, "x", None, "unknown memory: no refusal").unwrap();
        assert_eq!(fmt_bytes(1_528_000_000_000), "1.5 TB");
        assert_eq!(fmt_bytes(1_500_000_000), "1.5 GB");
    }
}

/// The text of file `path`, read up to `cap` bytes: refused past it (a regular file by its
/// size before any read), at the first NUL byte (not text: `/dev/zero` fails at once, in
/// constant memory), and where it is not UTF-8, each with the path and `what` it should be
/// (`a sweep CSV`).
pub fn read_text(path: &str, cap: u64, what: &str) -> Result<String> {
    use std::io::Read;
    let too_large = || {
        anyhow::anyhow!(
            "{path}: larger than {}: not {what} (read up to that size)",
            fmt_cap(cap)
        )
    };
    let f = std::fs::File::open(path).with_context(|| format!("cannot read {path}"))?;
    if f.metadata().is_ok_and(|m| m.is_file() && m.len() > cap) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    let mut reader = f.take(cap + 1);
    let mut block = vec![0u8; 1 << 16];
    loop {
        let n = match reader.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot read {path}")),
        };
        if let Some(k) = block[..n].iter().position(|&b| b == 0) {
            bail!("{path}: byte {} is NUL: not {what}", bytes.len() + k + 1);
        }
        bytes.extend_from_slice(&block[..n]);
        if bytes.len() as u64 > cap {
            return Err(too_large());
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        let ok = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = ok.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = ok.rsplit(|&b| b == b'\n').next().map_or(0, |l| l.len()) + 1;
        anyhow::anyhow!("{path}:{line}:{column}: not UTF-8 text, so not {what}")
    })
}

/// A byte cap as messages say it: `64 MiB`, `4 GiB`.
fn fmt_cap(cap: u64) -> String {
    if cap >= 1 << 30 && cap.is_multiple_of(1 << 30) {
        format!("{} GiB", cap >> 30)
    } else if cap >= 1 << 20 {
        format!("{} MiB", cap >> 20)
    } else {
        format!("{cap} bytes")
    }
}

/// The most read of a report (a shard `merge` joins) or of one journal line (a chunk's
/// records, which end up in such a report).
pub const MAX_REPORT_BYTES: u64 = 4 << 30;

/// The most a figure command reads of a CSV (a sweep's, a trace's, any lines file).
pub const MAX_FIGURE_INPUT_BYTES: u64 = 1 << 30;

#[cfg(test)]
mod read_text_tests {
    use super::*;

    #[test]
    fn caps_nul_bytes_and_bad_utf8_are_located_errors() {
        let dir = std::env::temp_dir().join(format!("gpu-sudoku-read-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.csv");
        let s = p.to_str().unwrap();
        std::fs::write(&p, "x,y\n1,2\n").unwrap();
        assert_eq!(read_text(s, 100, "a CSV").unwrap(), "x,y\n1,2\n");
        let e = read_text(s, 4, "a CSV").unwrap_err().to_string();
        assert!(
            e.ends_with("larger than 4 bytes: not a CSV (read up to that size)"),
            "{e}"
        );
        std::fs::write(&p, b"x,y\n1,\x002\n").unwrap();
        let e = read_text(s, 100, "a CSV").unwrap_err().to_string();
        assert!(e.contains("byte 7 is NUL"), "{e}");
        std::fs::write(&p, b"x,y\n1,\xff\n").unwrap();
        let e = read_text(s, 100, "a CSV").unwrap_err().to_string();
        assert!(e.ends_with(":2:3: not UTF-8 text, so not a CSV"), "{e}");
        if std::path::Path::new("/dev/zero").exists() {
            let e = read_text("/dev/zero", 1 << 30, "a CSV")
                .unwrap_err()
                .to_string();
            assert!(e.contains("byte 1 is NUL"), "{e}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

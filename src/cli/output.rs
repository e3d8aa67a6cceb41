//! Everything the command line writes. Standard output and error never panic: a closed pipe
//! (`| head`, `| true`) or a full device is remembered, later output is dropped, the work goes
//! on and the requested files are still written; the process then exits as Unix tools do
//! (141 for a closed pipe, 1 for another error, such as a standard output closed from the start:
//! `>&-`). Output files are checked (and their folder created) before any work starts, and
//! written atomically: a temporary file in the same folder, then a rename, so a crash never
//! leaves a half file that looks complete; the next write of the same output removes the
//! temporary files killed runs left. A symbolic link is written through: its target changes,
//! the link stays.

use anyhow::{bail, Context, Result};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The first error each standard stream met, if any.
static STDOUT_ERROR: Mutex<Option<ErrorKind>> = Mutex::new(None);
static STDERR_ERROR: Mutex<Option<ErrorKind>> = Mutex::new(None);

/// Standard output was closed when the process started (`>&-`): Rust's standard library
/// would drop every write to it without an error, so the first write is one here.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says that standard output was closed at the start (`main` finds out).
pub fn stdout_was_closed() {
    STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn guarded_write(stream: &mut dyn Write, failed: &Mutex<Option<ErrorKind>>, bytes: &[u8]) {
    let mut f = failed.lock().unwrap_or_else(|e| e.into_inner());
    if f.is_some() {
        return;
    }
    let is_stdout = std::ptr::eq(failed, &STDOUT_ERROR);
    if is_stdout && STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) && !bytes.is_empty() {
        *f = Some(ErrorKind::NotConnected);
        return;
    }
    if let Err(e) = stream.write_all(bytes).and_then(|()| stream.flush()) {
        *f = Some(e.kind());
    }
}

/// Writes `text` to standard output (see the module docs for failures).
pub fn stdout(text: &str) {
    guarded_write(
        &mut std::io::stdout().lock(),
        &STDOUT_ERROR,
        text.as_bytes(),
    );
}

/// Standard output as a writer that never fails (see the module docs); buffer it for many
/// small writes.
struct GuardedStdout;

impl Write for GuardedStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        guarded_write(&mut std::io::stdout().lock(), &STDOUT_ERROR, buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes `text` to standard error (see the module docs for failures).
pub fn stderr(text: &str) {
    guarded_write(
        &mut std::io::stderr().lock(),
        &STDERR_ERROR,
        text.as_bytes(),
    );
}

/// Whether standard output has refused a write (closed or broken): what follows is lost, so
/// long work that only prints can stop.
pub fn stdout_failed() -> bool {
    STDOUT_ERROR
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .is_some()
}

/// The exit code the standard streams call for at the end: `None` when both took everything.
pub fn stream_exit_code() -> Option<u8> {
    let out = *STDOUT_ERROR.lock().unwrap_or_else(|e| e.into_inner());
    let err = *STDERR_ERROR.lock().unwrap_or_else(|e| e.into_inner());
    match (out, err) {
        (None, None) => None,
        (Some(ErrorKind::BrokenPipe), _) | (None, Some(ErrorKind::BrokenPipe)) => Some(141),
        (Some(ErrorKind::NotConnected), _) => {
            stderr("error: standard output is closed: what this command prints is lost\n");
            Some(1)
        }
        (Some(kind), _) => {
            stderr(&format!("error: cannot write to standard output: {kind}\n"));
            Some(1)
        }
        (None, Some(_)) => Some(1),
    }
}

/// Where one output goes: a file, or standard output for `-`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Stdout,
    File(PathBuf),
}

/// One output a command was asked for: the flag that named it and where it goes.
#[derive(Clone, Debug)]
pub struct Output {
    pub flag: &'static str,
    pub target: Target,
}

impl Output {
    pub fn new(flag: &'static str, path: &str) -> Output {
        Output {
            flag,
            target: if path == "-" {
                Target::Stdout
            } else {
                Target::File(PathBuf::from(path))
            },
        }
    }

    /// Writes `contents` (atomically for a regular file; see the module docs).
    pub fn write(&self, contents: &[u8]) -> Result<()> {
        self.write_with(|w| w.write_all(contents))
    }

    /// Writes what `fill` writes, as it writes it (atomically for a regular file): reports
    /// too large to build in memory.
    pub fn write_with(
        &self,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<()> {
        match &self.target {
            Target::Stdout => {
                let mut w = std::io::BufWriter::with_capacity(1 << 16, GuardedStdout);
                fill(&mut w)?;
                Ok(w.flush()?)
            }
            Target::File(path) => write_file_with(path, fill)
                .with_context(|| format!("{} {}", self.flag, path.display())),
        }
    }
}

/// The file a write to `path` changes: `path` itself, or the end of the chain of symbolic
/// links it starts (followed as far as they go, at most 40 deep, as the kernel does), so that
/// the rename replaces the target and leaves the link in place.
fn write_target(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(&p) {
                Ok(to) => p = p.parent().map_or(to.clone(), |dir| dir.join(&to)),
                Err(_) => break,
            },
            _ => break,
        }
    }
    p
}

/// Removes the temporary files that killed runs (whose process is gone) left beside `path`:
/// `.NAME.gpu-sudoku-PID.tmp`.
fn remove_stale_temporaries(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!(".{}.gpu-sudoku-", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let pid = file
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| pid != std::process::id() && !process_alive(pid)) {
            std::fs::remove_file(e.path()).ok();
        }
    }
}

/// Whether process `pid` exists (signal 0 reaches it, or it exists but is not ours).
#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn process_alive(_: u32) -> bool {
    true
}

/// The same file, whether named the same way or not (both exist).
fn same_file(a: &Path, b: &Path) -> bool {
    match (resolved(a), resolved(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Where `path` points, also for a file not written yet (`x`, `./x` and `sub/../x` are one
/// output): its deepest existing ancestor made canonical (links resolved), then the rest of the
/// path with `.` and `..` folded as text (a folder that does not exist yet is no link).
fn resolved(path: &Path) -> Option<PathBuf> {
    let absolute = std::env::current_dir().ok()?.join(write_target(path));
    let parts: Vec<std::path::Component> = absolute.components().collect();
    // The longest prefix that exists, canonical; then the rest folded.
    let (mut out, from) = (1..=parts.len()).rev().find_map(|k| {
        let prefix: PathBuf = parts[..k].iter().collect();
        prefix.canonicalize().ok().map(|p| (p, k))
    })?;
    for part in &parts[from..] {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// A path next to `path`, in the same folder, for writing before the rename.
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or("output".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.gpu-sudoku-{}.tmp", std::process::id()))
}

/// Checks, before any work, every output a command was asked for: no two on one path (and at
/// most one on standard output), none onto an input file, every folder existing or created,
/// every file writable (a regular file: a temporary file can be made beside it; a device: it
/// takes a byte now). Fails with the flag and the reason.
pub fn check(inputs: &[&str], outputs: &[Output]) -> Result<()> {
    for (i, o) in outputs.iter().enumerate() {
        for earlier in &outputs[..i] {
            let clash = match (&o.target, &earlier.target) {
                (Target::Stdout, Target::Stdout) => true,
                (Target::File(a), Target::File(b)) => a == b || same_file(a, b),
                _ => false,
            };
            if clash {
                bail!(
                    "{} and {} name the same output ({}): give each its own",
                    earlier.flag,
                    o.flag,
                    describe(&o.target)
                );
            }
        }
        let Target::File(path) = &o.target else {
            continue;
        };
        for input in inputs.iter().filter(|&&p| p != "-") {
            if same_file(path, Path::new(input)) || path == Path::new(input) {
                bail!(
                    "{} {} would overwrite the input file {input}: write the output elsewhere",
                    o.flag,
                    path.display()
                );
            }
        }
        check_writable(path).with_context(|| format!("{} {}", o.flag, path.display()))?;
    }
    Ok(())
}

fn describe(t: &Target) -> String {
    match t {
        Target::Stdout => "standard output".into(),
        Target::File(p) => p.display().to_string(),
    }
}

/// The folder is made if missing; the file (or a temporary file beside it) can be written.
fn check_writable(path: &Path) -> Result<()> {
    if path.as_os_str().is_empty() {
        bail!("the path is empty: name a file (or `-` for standard output where it is allowed)");
    }
    if path.is_dir() {
        bail!("is a folder, not a file");
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder {}", dir.display()))?;
    }
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            // A device or pipe: written in place, so probe it (a terminal is left alone).
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .context("cannot open it for writing")?;
            use std::io::IsTerminal;
            if is_char_device(&m) && !f.is_terminal() {
                f.write_all(b"\n").context("cannot write to it")?;
            }
            Ok(())
        }
        _ => {
            let tmp = temporary_beside(path);
            std::fs::File::create(&tmp).context("cannot create a file in its folder")?;
            std::fs::remove_file(&tmp).ok();
            if path.exists() {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .context("cannot open it for writing")?;
            }
            Ok(())
        }
    }
}

/// A character device (/dev/null, /dev/full, a terminal).
#[cfg(unix)]
fn is_char_device(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    m.file_type().is_char_device()
}

#[cfg(not(unix))]
fn is_char_device(_: &std::fs::Metadata) -> bool {
    false
}

/// Writes what `fill` writes to `path`: a regular (or new) file through a temporary file beside
/// it and a rename; anything else (a device, a pipe) in place.
pub fn write_file_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let path = &write_target(path);
    remove_stale_temporaries(path);
    let regular = std::fs::metadata(path).map_or(true, |m| m.is_file());
    if !regular {
        let mut f = std::io::BufWriter::new(std::fs::OpenOptions::new().write(true).open(path)?);
        fill(&mut f)?;
        return Ok(f.flush()?);
    }
    let tmp = temporary_beside(path);
    let result = (|| -> std::io::Result<()> {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        fill(&mut f)?;
        let f = f.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        std::fs::remove_file(&tmp).ok();
    }
    Ok(result?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("gpu-sudoku-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn outputs_are_checked_before_work() {
        let d = dir("check");
        let input = d.join("in.txt");
        std::fs::write(&input, "x").unwrap();
        let s = |p: &Path| p.to_str().unwrap().to_string();
        let out = |flag, p: &Path| Output::new(flag, &s(p));
        let e = check(&[&s(&input)], &[out("--json", &input)]).unwrap_err();
        assert!(
            format!("{e:#}").contains("would overwrite the input file"),
            "{e:#}"
        );
        let same = d.join("a.json");
        let e = check(&[], &[out("--json", &same), out("--csv", &same)]).unwrap_err();
        assert!(
            format!("{e:#}").contains("--json and --csv name the same output"),
            "{e:#}"
        );
        let e = check(
            &[],
            &[Output::new("--json", "-"), Output::new("--csv", "-")],
        )
        .unwrap_err();
        assert!(format!("{e:#}").contains("standard output"), "{e:#}");
        let e = check(&[], &[out("--json", &d)]).unwrap_err();
        assert!(format!("{e:#}").contains("is a folder"), "{e:#}");
        // A missing folder is created, the file itself not yet.
        let deep = d.join("new/sub/r.json");
        check(&[], &[out("--json", &deep)]).unwrap();
        assert!(deep.parent().unwrap().is_dir() && !deep.exists());
        if Path::new("/dev/full").exists() {
            let e = check(&[], &[Output::new("--json", "/dev/full")]).unwrap_err();
            assert!(format!("{e:#}").contains("cannot write"), "{e:#}");
        }
        check(&[], &[Output::new("--json", "/dev/null")]).unwrap();
        std::fs::remove_dir_all(&d).ok();
    }

    #[cfg(unix)]
    #[test]
    fn links_are_written_through_and_stale_temporaries_go() {
        let d = dir("links");
        let target = d.join("a.json");
        let link = d.join("link.json");
        std::os::unix::fs::symlink("a.json", &link).unwrap();
        // The same output under two names, the link's target not written yet.
        let s = |p: &Path| p.to_str().unwrap().to_string();
        let e = check(
            &[],
            &[
                Output::new("--json", &s(&target)),
                Output::new("--csv", &s(&link)),
            ],
        )
        .unwrap_err();
        assert!(format!("{e:#}").contains("name the same output"), "{e:#}");
        write_file_with(&link, |w| w.write_all(b"through")).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"through");
        // A killed run's temporary (no such process) goes; a live one's stays.
        let dead = d.join(".a.json.gpu-sudoku-4000000000.tmp");
        // Process 1 always runs (another process's write in progress).
        let live = d.join(".a.json.gpu-sudoku-1.tmp");
        std::fs::write(&dead, "half").unwrap();
        std::fs::write(&live, "mine").unwrap();
        write_file_with(&target, |w| w.write_all(b"again")).unwrap();
        assert!(!dead.exists() && live.exists());
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn files_are_replaced_whole() {
        let d = dir("atomic");
        let p = d.join("r.csv");
        std::fs::write(&p, "old contents that are longer").unwrap();
        write_file_with(&p, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind");
        std::fs::remove_dir_all(&d).ok();
    }
}

//! Documentation that cannot rot: every command in README.md and docs/**/*.md runs here, or is
//! marked as illustrative (the conventions for writers are in CONTRIBUTING.md).
//!
//! - **Commands** are fenced blocks tagged `sh`, `bash`, `shell` or `console` (of a `console`
//!   block, or any block with `$ ` prompts, only the `$ ` lines), untagged fenced blocks with a
//!   line starting with `gpu-sudoku`, and table rows below the header holding an inline code span
//!   that starts with `gpu-sudoku ` (such spans of one row run in order). An untagged fenced
//!   block without a command must say what it is (```` ```text ````).
//! - **Markers**, an HTML comment on the nearest non-blank line before a block or table:
//!   `<!-- doc-test: illustrative: WHY -->` (not run; WHY is required) and
//!   `<!-- doc-test: exit N -->` (the block must stop with exit status N; its stderr may say
//!   `error:`). A marker followed by no command block or table fails the test.
//! - **How they run**: each doc file is one bash script (`set -eE -o pipefail`, commands in
//!   document order, so a variable set in one block serves the next) run in a fresh folder under
//!   the target directory holding a copy of [`SHIPPED`], with the freshly built binary first on
//!   PATH as `gpu-sudoku` and a stand-in `sbatch` that runs a Slurm job at once. Nothing is
//!   written into the repository.
//! - **Shortened runs**: [`SHORTEN`] replaces, per file, a text by another on every command line
//!   holding it (fewer runs, steps or settings; setup lines turned into no-ops), each with its
//!   reason. An entry that matches nothing fails the test, so the table cannot rot either.
//! - **Failure**: a command that exits non-zero (unless its block expects it) or whose stderr
//!   says `error:` fails the test with `file:line`, the command and its stderr.
//!
//! `GPU_SUDOKU_DOCS_ONLY=docs/FIGURES.md` runs the commands of one file only.

mod common;

use common::{bin, fails, ok};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The shipped inputs documented commands read; each file's run folder holds a copy.
const SHIPPED: &[&str] = &["puzzles", "scripts", "docs/baselines", "docs/data"];

/// Most time one doc file's commands may take (they take seconds) before they are killed.
const FILE_TIMEOUT: Duration = Duration::from_secs(300);

/// (file, text, replacement, why): shortened variants of long documented runs.
type Shorten = (&'static str, &'static str, &'static str, &'static str);

const SETUP: &str = "setup: the freshly built binary is already first on PATH";
const FEWER: &str = "fewer runs, steps or generations: the command, not the experiment";
const COARSER: &str = "a coarser grid of settings: the command, not the experiment";
const NO_GPU: &str = "the test runs without a GPU (GPU paths: tests/agree_*.rs, tests/scale.rs)";
const FEWER_ON_CPU: &str = "fewer runs, steps or settings, on the CPU: the test runs without a GPU";

#[rustfmt::skip]
const SHORTEN: &[Shorten] = &[
    ("README.md", "sudo apt-get install", ": sudo apt-get install", "installs system packages"),
    ("README.md", "cargo install --path . --locked", ": cargo install --path . --locked", SETUP),
    ("README.md", "cargo test ", ": cargo test ", "the test suite itself"),
    ("README.md", "--runs 10 ", "--runs 1 ", FEWER),
    ("README.md", "reproduce ilca ", "reproduce ilca --table 2 --runs 1 ", FEWER),
    ("README.md", "reproduce rfss ", "reproduce rfss --max-generations 20 ", FEWER),
    ("README.md", "reproduce baselines ", "reproduce baselines --what ga --runs 1 --ga-generations 5 ",
        "fewer runs and generations; the A* part runs in docs/BASELINES.md"),
    ("README.md", "--lr 0.05 --lp 1 ", "--lr 0.05 --lp 1 --runs 1 ", FEWER),
    ("README.md", "--preset improved ", "--preset improved --runs 1 --steps 500 ", FEWER),
    ("README.md", "evil.txt --json evil.json", "evil.txt --runs 1 --json evil.json", FEWER),
    ("README.md", "--runs 5 --time-limit 2s", "--runs 1 --time-limit 50ms --max-iterations 500", FEWER),
    ("README.md", "--max-generations 50000", "--max-generations 200", FEWER),
    ("README.md", "--stall-generations 300 ", "--stall-generations 300 --max-generations 200 ", FEWER),
    ("README.md", "--max-generations 1000000", "--max-generations 300", FEWER),
    ("README.md", "--stall-generations 50 --max-generations 200000", "--stall-generations 50 --max-generations 200", FEWER),
    ("README.md", "--every 10000 --max-generations 750000", "--every 100 --max-generations 500", FEWER),
    ("README.md", "--sr 10:150:5 ", "--sr 10:150:140 ", COARSER),
    ("docs/BASELINES.md", "--what ga ", "--what ga --runs 1 --ga-generations 5 ", FEWER),
    ("docs/BASELINES.md", "--count 500 ", "--count 20 ", "20 of the 500 A* puzzles"),
    ("docs/BASELINES.md", "--runs 5 --time-limit 2s", "--runs 1 --time-limit 50ms --max-iterations 500", FEWER),
    ("docs/BASELINES.md", "docs/baselines/run-acs.sh gpu-sudoku",
        "COUNT=1 RUNS=1 PARTS=\"famous 9\" docs/baselines/run-acs.sh gpu-sudoku",
        "the script's quick parts once each: its 25x25 parts wait up to 60 s per attempt"),
    ("docs/BASELINES.md", "--size 25 --count 20 ", "--size 25 --count 1 ", FEWER),
    ("docs/BASELINES.md", "--time-limit 60s", "--time-limit 500ms", FEWER),
    ("docs/FIGURES.md", "P=\"puzzles/easy.txt puzzles/medium.txt puzzles/hard.txt puzzles/evil.txt\"",
        "P=\"puzzles/easy.txt puzzles/hard.txt\"", "two tiers of four"),
    ("docs/FIGURES.md", "sweep $P ", "sweep $P --runs 1 ", FEWER),
    ("docs/FIGURES.md", "--ratio 1:30:1 ", "--ratio 1:30:29 ", COARSER),
    ("docs/FIGURES.md", "--lp 0.5:6:0.5 ", "--lp 0.5:6:5.5 ", COARSER),
    ("docs/FIGURES.md", "--sr 10:150:5 ", "--sr 10:150:140 ", COARSER),
    ("docs/FIGURES.md", "--sr 10:150:10 ", "--sr 10:150:140 ", COARSER),
    ("docs/FIGURES.md", "--every 10000 --max-generations 750000", "--every 100 --max-generations 500", FEWER),
    ("docs/figures/README.md", "T=\"puzzles/easy.txt puzzles/medium.txt puzzles/hard.txt puzzles/evil.txt\"",
        "T=\"puzzles/easy.txt puzzles/hard.txt\"", "two tiers of four"),
    ("docs/figures/README.md", "--runs 10 --backend gpu", "--runs 1 --backend cpu", FEWER_ON_CPU),
    ("docs/figures/README.md", "--ratio 1:30:1 ", "--ratio 1:30:29 ", COARSER),
    ("docs/figures/README.md", "--lp 0.5:6:0.5 ", "--lp 0.5:6:5.5 ", COARSER),
    ("docs/figures/README.md", "--sr 10:150:5 ", "--sr 10:150:140 ", COARSER),
    ("docs/figures/README.md", "--sr 10:150:10 ", "--sr 10:150:140 ", COARSER),
    ("docs/figures/README.md", "--every 10000 --max-generations 750000", "--every 100 --max-generations 500", FEWER),
    ("docs/REPRODUCTION.md", "cargo install --path . --locked", ": cargo install --path . --locked", SETUP),
    ("docs/REPRODUCTION.md", "cargo run --release --example", ": cargo run --release --example",
        "a research program: cargo would build it in release inside the test"),
    ("docs/REPRODUCTION.md", "reproduce ilca ", "reproduce ilca --table 2 --runs 1 ", FEWER),
    ("docs/REPRODUCTION.md", "--reading all ", "--reading free,keep ", "one reading of the ten"),
    ("docs/REPRODUCTION.md", "--preset improved ", "--preset improved --runs 1 --steps 500 ", FEWER),
    ("docs/REPRODUCTION.md", "--preset improved10k ", "--preset improved10k --runs 1 --steps 500 ", FEWER),
    ("docs/REPRODUCTION.md", "puzzles/unique/{easy,medium,hard,evil}.txt --preset hard-penalty ",
        "puzzles/unique/evil.txt --preset hard-penalty --runs 1 --steps 500 ", FEWER),
    ("docs/SCALE.md", "--runs 100 --preset improved ", "--runs 1 --preset improved --steps 500 ", FEWER),
    ("docs/SCALE.md", "puzzles/unique/*.txt --preset hard-penalty ",
        "puzzles/unique/evil.txt --preset hard-penalty --runs 1 --steps 500 ", FEWER),
    ("docs/SCALE.md", "puzzles/*.txt --runs 1000 --backend gpu --adapter all",
        "puzzles/classic.txt --runs 2 --backend cpu", NO_GPU),
    ("docs/SCALE.md", "submit.sh 16 ", "submit.sh 2 ", "two shards of sixteen"),
    ("docs/SCALE.md", "--runs 10 --ratio 1:30:1 --sr 10:150:5 --steps 20000 --restart 500 --backend gpu",
        "--runs 1 --ratio 1:30:29 --sr 10:150:140 --steps 200 --restart 100 --backend cpu", FEWER_ON_CPU),
];

/// What a marker says about the block or table after it.
#[derive(Clone, Debug, PartialEq)]
enum Marker {
    Illustrative,
    Exit(i32),
}

/// Commands of one fenced block or one table row, with their line numbers in the doc file.
#[derive(Debug)]
struct Unit {
    line: usize,
    table: bool,
    marker: Option<Marker>,
    commands: Vec<(usize, String)>,
}

/// The marker a line holds: `None` for no marker, `Some(Err)` for a malformed one.
fn marker(line: &str) -> Option<Result<Marker, String>> {
    let rest = line.trim().strip_prefix("<!-- doc-test:")?;
    let Some(body) = rest.strip_suffix("-->").map(str::trim) else {
        return Some(Err(
            "a doc-test marker must end on its line with `-->`".into()
        ));
    };
    Some(if let Some(why) = body.strip_prefix("illustrative:") {
        if why.trim().is_empty() {
            Err("`illustrative:` needs the reason why the commands are not run".into())
        } else {
            Ok(Marker::Illustrative)
        }
    } else if let Some(n) = body.strip_prefix("exit ") {
        match n.trim().parse::<i32>() {
            Ok(n) if (1..=255).contains(&n) => Ok(Marker::Exit(n)),
            _ => Err(format!("`exit {n}`: the status must be 1..=255")),
        }
    } else {
        Err(format!(
            "unknown marker `{body}`: `illustrative: WHY` or `exit N`"
        ))
    })
}

/// The inline code spans of a markdown line, `\|` (a pipe inside a table) unescaped.
fn code_spans(line: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        let ticks = rest[open..].bytes().take_while(|&b| b == b'`').count();
        let fence = &rest[open..open + ticks];
        let body = &rest[open + ticks..];
        let Some(close) = body.find(fence) else { break };
        spans.push(body[..close].trim().replace("\\|", "|"));
        rest = &body[close + ticks..];
    }
    spans
}

/// The command units of one markdown file, or what is wrong with its blocks and markers.
fn parse(file: &str, text: &str) -> (Vec<Unit>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let (mut units, mut problems) = (Vec::new(), Vec::new());
    let mut pending: Option<(usize, Marker)> = None;
    let mut i = 0;
    while i < lines.len() {
        let (n, t) = (i + 1, lines[i].trim_start());
        if let Some(m) = marker(t) {
            match m {
                Ok(m) => {
                    if let Some((at, _)) = pending.replace((n, m)) {
                        problems.push(format!("{file}:{at}: marker followed by another marker"));
                    }
                }
                Err(e) => problems.push(format!("{file}:{n}: {e}")),
            }
            i += 1;
        } else if t.starts_with("```") {
            let ticks = t.bytes().take_while(|&b| b == b'`').count();
            let info = t[ticks..].trim();
            let close = (i + 1..lines.len()).find(|&j| {
                let c = lines[j].trim();
                c.len() >= ticks && c.bytes().all(|b| b == b'`')
            });
            let Some(close) = close else {
                problems.push(format!("{file}:{n}: fenced block never closed"));
                break;
            };
            let body: Vec<(usize, &str)> = (i + 1..close).map(|j| (j + 1, lines[j])).collect();
            let lang = info.split_whitespace().next().unwrap_or("");
            let starts_command = |l: &str| {
                let l = l.trim_start();
                l.starts_with("gpu-sudoku") || l.starts_with("$ gpu-sudoku")
            };
            let has_command = body.iter().any(|(_, l)| starts_command(l));
            let shell = matches!(lang, "sh" | "bash" | "shell" | "console");
            let marked = pending.take();
            if shell || (lang.is_empty() && has_command) {
                let console = lang == "console" || body.iter().any(|(_, l)| l.starts_with("$ "));
                let commands = body
                    .iter()
                    .filter_map(|&(j, l)| match console {
                        true => l.strip_prefix("$ ").map(|c| (j, c.to_string())),
                        false => Some((j, l.to_string())),
                    })
                    .collect();
                units.push(Unit {
                    line: n,
                    table: false,
                    marker: marked.map(|(_, m)| m),
                    commands,
                });
            } else if lang.is_empty() {
                problems.push(format!(
                    "{file}:{n}: a fenced block without a language: tag it ```sh (a command, \
                     run by tests/docs.rs) or ```text"
                ));
            } else if let Some((at, _)) = marked {
                problems.push(format!(
                    "{file}:{at}: marker before a ```{lang} block, which holds no command"
                ));
            }
            i = close + 1;
        } else if t.starts_with('|') {
            let end = (i..lines.len())
                .find(|&j| !lines[j].trim_start().starts_with('|'))
                .unwrap_or(lines.len());
            let marked = pending.take();
            let mut any = false;
            // The header row names the columns; the second row is the delimiter row.
            for (j, row) in lines.iter().enumerate().take(end).skip(i + 2) {
                let commands: Vec<(usize, String)> = code_spans(row)
                    .into_iter()
                    .filter(|s| s.starts_with("gpu-sudoku "))
                    .map(|s| (j + 1, s))
                    .collect();
                if !commands.is_empty() {
                    any = true;
                    units.push(Unit {
                        line: j + 1,
                        table: true,
                        marker: marked.as_ref().map(|(_, m)| m.clone()),
                        commands,
                    });
                }
            }
            if let (Some((at, _)), false) = (&marked, any) {
                problems.push(format!(
                    "{file}:{at}: marker before a table without commands"
                ));
            }
            i = end;
        } else {
            if !t.is_empty() {
                if let Some((at, _)) = pending.take() {
                    problems.push(format!(
                        "{file}:{at}: marker not followed by a command block or table"
                    ));
                }
            }
            i += 1;
        }
    }
    if let Some((at, _)) = pending {
        problems.push(format!("{file}:{at}: marker at the end of the file"));
    }
    (units, problems)
}

/// README.md and every markdown file under docs/, as paths relative to the repository root.
fn doc_files() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let root = Path::new(ROOT);
    let mut found = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut found);
    let mut files: Vec<String> = found
        .iter()
        .map(|p| {
            p.strip_prefix(root)
                .unwrap()
                .to_str()
                .unwrap()
                .replace('\\', "/")
        })
        .collect();
    files.sort();
    files
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// Stand-in for Slurm's `sbatch`: runs the job script at once (each task of `--array` in turn)
/// with the `--export` variables, its output on stderr, and prints a job id as `--parsable` does.
const FAKE_SBATCH: &str = r#"#!/usr/bin/env bash
set -euo pipefail
array=""
while [ $# -gt 0 ]; do
  case $1 in
    --array=*) array=${1#--array=} ;;
    --export=*) IFS=, read -ra vars <<< "${1#--export=}"
      for v in "${vars[@]}"; do case $v in *=*) export "${v?}" ;; esac; done ;;
    --*) ;;
    *) break ;;
  esac
  shift
done
script=$1; shift
if [ -n "$array" ]; then
  for ((k = ${array%-*}; k <= ${array#*-}; k++)); do SLURM_ARRAY_TASK_ID=$k bash "$script" "$@" >&2; done
else
  bash "$script" "$@" >&2
fi
echo 1
"#;

/// Markers the script writes on stderr (record separator) and the start of its trace lines
/// (group separator, then the script line, then another group separator).
const MARK: char = '\u{1e}';
const TRACE: char = '\u{1d}';

const PROLOGUE: &str = r#"set -eE -o pipefail
__doc_unit() { printf '\036unit %s %s\n' "$1" "$EPOCHREALTIME" >&2; }
__doc_expect() { if [ "$2" != "$3" ]; then printf '\036expected %s %s\n' "$2" "$3" >&2; exit 1; fi; }
trap '__doc_status=$?; printf "\036failed %s %s\n" "$LINENO" "$__doc_status" >&2' ERR
PS4=$'\035${LINENO}\035 '
set -x
"#;

/// One doc file's commands as a bash script, with the doc line of every script line.
struct Script {
    lines: Vec<String>,
    doc_line: Vec<Option<usize>>,
}

impl Script {
    fn push(&mut self, text: String, doc_line: Option<usize>) {
        self.lines.push(text);
        self.doc_line.push(doc_line);
    }

    /// The whole command (continuation lines joined) around 1-based script line `n`, with the
    /// doc line where it starts.
    fn command_at(&self, n: usize) -> Option<(usize, String)> {
        let i = n.checked_sub(1).filter(|&i| i < self.lines.len())?;
        self.doc_line[i]?;
        let continued = |k: usize| self.lines[k].trim_end().ends_with('\\');
        let first = (0..i)
            .rev()
            .take_while(|&k| continued(k))
            .last()
            .unwrap_or(i);
        let last = (i..self.lines.len()).find(|&k| !continued(k)).unwrap_or(i);
        let text = self.lines[first..=last]
            .iter()
            .map(|l| l.trim().trim_end_matches('\\').trim())
            .collect::<Vec<_>>()
            .join(" ");
        Some((self.doc_line[first]?, text))
    }
}

/// Applies the shortened variants of `file` to a command line, counting each entry's uses.
fn shorten(file: &str, line: &str, used: &mut [usize]) -> String {
    let mut line = line.to_string();
    for (k, (f, from, to, _)) in SHORTEN.iter().enumerate() {
        if *f == file && line.contains(from) {
            line = line.replace(from, to);
            used[k] += 1;
        }
    }
    line
}

fn script(file: &str, units: &[&Unit], used: &mut [usize]) -> Script {
    let mut s = Script {
        lines: Vec::new(),
        doc_line: Vec::new(),
    };
    for l in PROLOGUE.lines() {
        s.push(l.to_string(), None);
    }
    for (k, u) in units.iter().enumerate() {
        s.push(format!("__doc_unit {k}"), None);
        let expect = match u.marker {
            Some(Marker::Exit(n)) => Some(n),
            _ => None,
        };
        if expect.is_some() {
            for l in ["set +e", "(", "set -e"] {
                s.push(l.to_string(), None);
            }
        }
        for (line, text) in &u.commands {
            s.push(shorten(file, text, used), Some(*line));
        }
        if let Some(n) = expect {
            let check = format!("__doc_expect {k} {n} \"$__doc_rc\"");
            for l in [")", "__doc_rc=$?", "set -e", &check] {
                s.push(l.to_string(), None);
            }
        }
    }
    // The end of the last unit, for its time.
    s.push(format!("__doc_unit {}", units.len()), None);
    s
}

/// Runs `script` in `dir` with a time limit: exit status (None when killed), stdout, stderr.
fn run_script(dir: &Path, path_dirs: &[&Path], text: &str) -> (Option<i32>, String, String) {
    use std::os::unix::process::CommandExt;
    let file = dir.join(".doc-test.sh");
    std::fs::write(&file, text).unwrap();
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let dirs = path_dirs.iter().map(|d| d.to_path_buf());
    let path = std::env::join_paths(dirs.chain(std::env::split_paths(&inherited))).unwrap();
    let mut child = Command::new("bash")
        .args(["--noprofile", "--norc"])
        .arg(&file)
        .current_dir(dir)
        .env("PATH", path)
        .env(
            "XDG_RUNTIME_DIR",
            std::env::var_os("XDG_RUNTIME_DIR").unwrap_or("/tmp".into()),
        )
        .env_remove("BASH_ENV")
        .env_remove("LC_ALL")
        .env("LC_NUMERIC", "C") // `$EPOCHREALTIME` with a decimal point
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("bash runs");
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            r.read_to_end(&mut v).unwrap();
            String::from_utf8_lossy(&v).into_owned()
        })
    };
    let out = read(Box::new(child.stdout.take().unwrap()));
    let err = read(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if start.elapsed() > FILE_TIMEOUT {
            // The whole process group: bash and the commands it started.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, out.join().unwrap(), err.join().unwrap())
}

/// What one doc file's run shows: its failures, and the seconds each unit took.
fn judge(
    file: &str,
    s: &Script,
    units: &[&Unit],
    status: Option<i32>,
    stderr: &str,
) -> (Vec<String>, Vec<f64>) {
    let mut unit: Option<usize> = None;
    // The command running (doc line, text) and what it printed on stderr so far.
    let mut command: Option<(usize, String)> = None;
    let mut output: Vec<&str> = Vec::new();
    let mut errors = Vec::new();
    let mut starts: Vec<f64> = Vec::new();
    let (mut failed, mut expected) = (None, None);
    for line in stderr.lines() {
        if let Some(m) = line.strip_prefix(MARK) {
            let w: Vec<&str> = m.split_whitespace().collect();
            match w.as_slice() {
                ["unit", k, t] => {
                    // The last marker (k = units.len()) ends the last unit.
                    unit = k.parse().ok().filter(|&k| k < units.len()).or(unit);
                    starts.push(t.parse().unwrap_or(0.0));
                    (command, output) = (None, Vec::new());
                }
                ["failed", n, code] => failed = Some((n.parse().unwrap_or(0), code.to_string())),
                ["expected", want, got] => expected = Some((want.to_string(), got.to_string())),
                _ => {}
            }
        } else if let Some(t) = line.strip_prefix(TRACE) {
            let n = t
                .trim_start_matches(TRACE)
                .split(TRACE)
                .next()
                .unwrap_or("");
            let traced = n.parse().ok().and_then(|n| s.command_at(n));
            if traced.is_some() && traced != command {
                (command, output) = (traced, Vec::new());
            }
        } else {
            output.push(line);
            let expects_failure =
                unit.is_some_and(|u| matches!(units[u].marker, Some(Marker::Exit(_))));
            if line.contains("error:") && !expects_failure {
                errors.push((command.clone(), line));
            }
        }
    }
    let unit_line = unit.map_or(0, |u| units[u].line);
    let tail = output[output.len().saturating_sub(15)..].join("\n    ");
    let mut problems = Vec::new();
    let mut stopped = None;
    match status {
        Some(0) => {}
        None => problems.push(format!(
            "{file}:{unit_line}: killed after {} s (the commands of one file take seconds):\n    {tail}",
            FILE_TIMEOUT.as_secs()
        )),
        Some(_) if expected.is_some() => {
            let (want, got) = expected.unwrap();
            problems.push(format!(
                "{file}:{unit_line}: the block should stop with exit status {want}, it gave {got}:\n    {tail}"
            ));
        }
        Some(code) => {
            let at = failed.as_ref().and_then(|(n, _)| s.command_at(*n)).or(command);
            let (line, cmd) = at.clone().unwrap_or((unit_line, String::new()));
            let code = failed.map_or(code.to_string(), |(_, c)| c);
            problems.push(format!(
                "{file}:{line}: `{}` exited with status {code}:\n    {tail}",
                without_comment(&cmd)
            ));
            stopped = at;
        }
    }
    for (at, error) in errors {
        if at.is_some() && at == stopped {
            continue; // already shown with its exit status
        }
        let (line, cmd) = at.unwrap_or((unit_line, String::new()));
        let cmd = without_comment(&cmd);
        problems.push(format!(
            "{file}:{line}: `{cmd}` printed an error:\n    {error}"
        ));
    }
    let times = starts.windows(2).map(|w| w[1] - w[0]).collect();
    (problems, times)
}

/// A shell command without its trailing `# comment` (a `#` outside quotes after a blank).
fn without_comment(cmd: &str) -> &str {
    let mut quote = None;
    let mut after_blank = true;
    for (i, c) in cmd.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if after_blank => return cmd[..i].trim_end(),
            _ => {}
        }
        after_blank = c.is_whitespace();
    }
    cmd.trim_end()
}

#[test]
fn every_documented_command_runs_or_is_marked_illustrative() {
    let only = std::env::var("GPU_SUDOKU_DOCS_ONLY").ok();
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs-test");
    let _ = std::fs::remove_dir_all(&work);
    let fake_bin = work.join("bin");
    std::fs::create_dir_all(&fake_bin).unwrap();
    let sbatch = fake_bin.join("sbatch");
    std::fs::write(&sbatch, FAKE_SBATCH).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_gpu-sudoku"));
    let bin_dir = binary.parent().unwrap();

    let mut problems = Vec::new();
    let mut used = vec![0; SHORTEN.len()];
    let mut summary = Vec::new();
    let files = doc_files();
    for file in &files {
        let text = std::fs::read_to_string(Path::new(ROOT).join(file)).unwrap();
        let (units, mut found) = parse(file, &text);
        problems.append(&mut found);
        if only.as_ref().is_some_and(|o| o != file) {
            continue;
        }
        let runnable: Vec<&Unit> = units
            .iter()
            .filter(|u| u.marker != Some(Marker::Illustrative))
            .collect();
        let count = |table: bool, run: bool| {
            units
                .iter()
                .filter(|u| u.table == table && (u.marker != Some(Marker::Illustrative)) == run)
                .count()
        };
        let mut line = format!(
            "{file}: blocks {} run, {} illustrative; table rows {} run, {} illustrative",
            count(false, true),
            count(false, false),
            count(true, true),
            count(true, false)
        );
        if !runnable.is_empty() {
            let dir = work.join(file.replace('/', "_"));
            for s in SHIPPED {
                copy_dir(&Path::new(ROOT).join(s), &dir.join(s));
            }
            let s = script(file, &runnable, &mut used);
            let started = Instant::now();
            let (status, stdout, stderr) =
                run_script(&dir, &[&fake_bin, bin_dir], &(s.lines.join("\n") + "\n"));
            std::fs::write(dir.join(".doc-test.out"), stdout).unwrap();
            std::fs::write(dir.join(".doc-test.err"), &stderr).unwrap();
            let (mut found, times) = judge(file, &s, &runnable, status, &stderr);
            problems.append(&mut found);
            line += &format!("; {:.1} s:", started.elapsed().as_secs_f64());
            for (u, t) in runnable.iter().zip(times) {
                line += &format!(" {}:{:.1}", u.line, t);
            }
        }
        summary.push(line);
    }
    for (k, (file, from, _, _)) in SHORTEN.iter().enumerate() {
        let ran = only.as_ref().is_none_or(|o| o == file);
        if ran && used[k] == 0 {
            problems.push(format!(
                "tests/docs.rs: the shortened variant of `{from}` matches no command of {file} any more: update SHORTEN"
            ));
        }
        if !files.iter().any(|f| f == file) {
            problems.push(format!(
                "tests/docs.rs: SHORTEN names {file}, which is not a doc file"
            ));
        }
    }
    eprintln!("{}", summary.join("\n"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn markers_and_blocks_are_read_as_documented() {
    let doc = "\
<!-- doc-test: illustrative: a synopsis -->
```sh
gpu-sudoku batch FILE...
```

```
gpu-sudoku solve puzzles/classic.txt
```

<!-- doc-test: exit 2 -->
```console
$ gpu-sudoku solve two.txt
line 2: multiple solutions
```

```rust
let x = 1;
```

| command | what |
|---|---|
| `gpu-sudoku rate x.txt` then `gpu-sudoku solve x.txt` | `--json` |
| no command here | `gpu-sudoku` |
";
    let (units, problems) = parse("t.md", doc);
    assert!(problems.is_empty(), "{problems:?}");
    let got: Vec<(usize, bool, Option<Marker>, Vec<&str>)> = units
        .iter()
        .map(|u| {
            let c = u.commands.iter().map(|(_, c)| c.as_str()).collect();
            (u.line, u.table, u.marker.clone(), c)
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                2,
                false,
                Some(Marker::Illustrative),
                vec!["gpu-sudoku batch FILE..."]
            ),
            (6, false, None, vec!["gpu-sudoku solve puzzles/classic.txt"]),
            (
                11,
                false,
                Some(Marker::Exit(2)),
                vec!["gpu-sudoku solve two.txt"]
            ),
            (
                22,
                true,
                None,
                vec!["gpu-sudoku rate x.txt", "gpu-sudoku solve x.txt"]
            ),
        ]
    );

    // What the test refuses: an untagged block that is not a command, a marker without a
    // reason, one that marks nothing, an unknown one.
    for (bad, says) in [
        ("```\nsome output\n```\n", "without a language"),
        (
            "<!-- doc-test: illustrative: -->\n```sh\nls\n```\n",
            "needs the reason",
        ),
        (
            "<!-- doc-test: illustrative: why -->\nprose\n",
            "not followed by",
        ),
        (
            "<!-- doc-test: exit 2 -->\n```text\nx\n```\n",
            "holds no command",
        ),
        (
            "<!-- doc-test: skip -->\n```sh\nls\n```\n",
            "unknown marker",
        ),
        ("<!-- doc-test: exit 0 -->\n```sh\nls\n```\n", "1..=255"),
    ] {
        let (_, problems) = parse("t.md", bad);
        assert!(
            problems.iter().any(|p| p.contains(says)),
            "{bad:?}: {problems:?}"
        );
    }
}

#[test]
fn a_failing_command_is_named_with_its_line() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs-test-judge");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bin_dir = PathBuf::from(env!("CARGO_BIN_EXE_gpu-sudoku"));
    let bin_dir = bin_dir.parent().unwrap();
    let run = |doc: &str| {
        let (units, problems) = parse("t.md", doc);
        assert!(problems.is_empty(), "{problems:?}");
        let units: Vec<&Unit> = units.iter().collect();
        let s = script("t.md", &units, &mut vec![0; SHORTEN.len()]);
        let (status, _, stderr) = run_script(&dir, &[bin_dir], &(s.lines.join("\n") + "\n"));
        judge("t.md", &s, &units, status, &stderr).0
    };
    // A variable set in one block serves the next; the failing command is named by the doc
    // line where it starts, without its comment, with what it printed.
    let p = run("```sh\nX=missing.txt\n```\n\ntext\n\n```sh\ngpu-sudoku --version\ngpu-sudoku solve \\\n  $X   # no such file\n```\n");
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("t.md:9: `gpu-sudoku solve $X` exited with status 1:")
            && p[0].contains("error: missing.txt: cannot read file"),
        "{p:?}"
    );
    // An expected status passes, and a wrong one is named.
    let two = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n.................................................................................\n";
    std::fs::write(dir.join("two.txt"), two).unwrap();
    assert!(run("<!-- doc-test: exit 2 -->\n```sh\ngpu-sudoku solve two.txt\n```\n").is_empty());
    let p = run("<!-- doc-test: exit 3 -->\n```sh\ngpu-sudoku solve two.txt\n```\n");
    assert!(
        p.len() == 1 && p[0].contains("should stop with exit status 3, it gave 2"),
        "{p:?}"
    );
    // A command that succeeds but says `error:` on stderr fails too.
    let p = run("```sh\necho 'error: something' >&2\n```\n");
    assert!(
        p.len() == 1 && p[0].starts_with("t.md:2: `echo 'error: something' >&2` printed an error"),
        "{p:?}"
    );
}

/// `plot-trace --find-solved` that finds no solving run says what helps, and the suggestion
/// does help (docs/FIGURES.md, Fig. 3 and 4).
#[test]
fn a_failed_find_solved_suggests_what_helps() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs-test-find-solved");
    let plot = |extra: &[&str]| {
        let mut c = bin();
        c.current_dir(ROOT)
            .args(["plot-trace", "--puzzle", "puzzles/classic.txt", "--figures"])
            .arg(&dir)
            .args(extra);
        c.output().unwrap()
    };
    // Algorithm 1's rates: 2% of the classic puzzle's runs solve; none of the first 5.
    let e = fails(&plot(&["--find-solved", "5"]));
    assert!(e.contains("none of runs 0..4 solves puzzle 0"), "{e}");
    assert!(
        e.contains("`--lr 0.05 --compare free`") && e.contains("`--find-solved 50`"),
        "{e}"
    );
    ok(&plot(&[
        "--find-solved",
        "5",
        "--lr",
        "0.05",
        "--compare",
        "free",
    ]));
    assert!(dir.join("trace-grids.png").is_file());
    // Already slow rewards: more runs or steps are what is left to try.
    let e = fails(&plot(&[
        "--find-solved",
        "2",
        "--lr",
        "0.05",
        "--steps",
        "3",
    ]));
    assert!(
        !e.contains("slower rewards") && e.contains("more steps (`--steps`)"),
        "{e}"
    );
}

//! What several subcommands share: argument groups declared once (device), parsers for the
//! library's named options, and the mapping from the library's parameter names to flags.

use super::output::Output;
use gpu_sudoku::backend::{Backend, Device};
use gpu_sudoku::choice::Choice;
use gpu_sudoku::job;
use gpu_sudoku::param::ParamError;
use gpu_sudoku::puzzle::{
    parse_str, read_puzzles_with, scan_puzzles, Format, Grid, ParseError, PuzzleFile, PuzzleReader,
    ReadOptions, Scan,
};
use gpu_sudoku::shard::Shard;

/// A clap parser for a [`Choice`]: its names as the possible values, each with its help line.
pub fn choice<T: Choice + Clone>() -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        T::ALL
            .iter()
            .map(|c| PossibleValue::new(c.name()).help(c.help())),
    )
    .map(|name| T::from_name(&name).expect("clap accepted one of the possible values"))
}

/// Where to run, for every command that runs an engine.
#[derive(clap::Args, Debug, Clone)]
pub struct DeviceArgs {
    /// Where to run: auto (a hardware GPU when one opens, else the CPU), cpu or gpu.
    #[arg(long, value_parser = choice::<Backend>(), default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// GPU adapter: index or part of the name from `gpu-sudoku adapters`; `batch` and `sweep`
    /// also take `all` or a list (`0,2`) and run their chunks on every one at once.
    #[arg(long)]
    pub adapter: Option<String>,
}

impl DeviceArgs {
    /// Opens the device; when `auto` falls back to the CPU, says why on stderr (one line).
    pub fn open(&self) -> anyhow::Result<Device> {
        let (device, note) = job::devices::open_one(self.backend, self.adapter.as_deref())?;
        if let Some(why) = note {
            errln!("{}", fallback_note(&why));
        }
        Ok(device)
    }

    /// The devices: the one [`DeviceArgs::open`] gives, or with `--adapter all` or a list
    /// (`0,2`) every GPU adapter named.
    pub fn open_many(&self) -> anyhow::Result<Vec<Device>> {
        let (devices, note) = job::devices::open(self.backend, self.adapter.as_deref())?;
        if let Some(why) = note {
            errln!("{}", fallback_note(&why));
        }
        Ok(devices)
    }
}

/// The one sentence every command prints when `--backend auto` runs on the CPU.
pub fn fallback_note(why: &str) -> String {
    format!("note: running on the CPU: {why}")
}

/// The flag that sets the library parameter `param` (its field name).
pub fn flag(param: &str) -> String {
    match param {
        "enhancement" => "--enhance".into(),
        "side" => "--size".into(),
        p => format!("--{}", p.replace('_', "-")),
    }
}

/// An error as the command line shows it: its causes joined by ": ", parameter errors written
/// with their flag (`--sr: 300 is larger than …`).
pub fn explain(e: &anyhow::Error) -> String {
    e.chain()
        .map(|cause| match cause.downcast_ref::<ParamError>() {
            Some(p) => format!("{}: {}", flag(p.param), p.problem),
            None => cause.to_string(),
        })
        .collect::<Vec<_>>()
        .join(": ")
}

/// The machine-readable reports of a command: `--json FILE` and `--csv FILE`, `-` being
/// standard output (the human-readable table then goes to standard error).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ReportArgs {
    /// Write the full report as JSON to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Write one CSV row per record to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<String>,
}

impl ReportArgs {
    /// The JSON and CSV outputs asked for.
    pub fn outputs(&self) -> (Option<Output>, Option<Output>) {
        (
            self.json.as_deref().map(|p| Output::new("--json", p)),
            self.csv.as_deref().map(|p| Output::new("--csv", p)),
        )
    }

    /// Checks both outputs before any work (see [`super::output::check`]).
    pub fn check(&self, inputs: &[&str]) -> anyhow::Result<()> {
        let (j, c) = self.outputs();
        super::output::check(inputs, &[j, c].into_iter().flatten().collect::<Vec<_>>())
    }

    /// Refuses, before any work, a run of `items` records of `bytes` each that would not fit
    /// on disk where they go: the journal (beside the first report file, or in the temporary
    /// folder) and each report file, places on one file system added up.
    pub fn check_disk(
        &self,
        items: u64,
        bytes: gpu_sudoku::limits::RecordBytes,
        what_helps: &str,
    ) -> anyhow::Result<()> {
        use gpu_sudoku::limits;
        use std::path::PathBuf;
        if self.json.is_none() && self.csv.is_none() {
            return Ok(()); // no records are kept
        }
        let file = |p: &Option<String>| p.as_deref().filter(|p| *p != "-").map(PathBuf::from);
        let (json, csv) = (file(&self.json), file(&self.csv));
        let journal = json
            .clone()
            .or_else(|| csv.clone())
            .unwrap_or_else(std::env::temp_dir);
        let mut places: Vec<(PathBuf, u64)> = vec![(journal, bytes.journal)];
        places.extend(json.map(|p| (p, bytes.json)));
        places.extend(csv.map(|p| (p, bytes.csv)));
        let mut by_fs: Vec<(Option<u64>, PathBuf, u64)> = Vec::new();
        for (p, b) in places {
            let fs = limits::file_system_of(&p);
            match by_fs.iter_mut().find(|e| fs.is_some() && e.0 == fs) {
                Some(e) => e.2 += b,
                None => by_fs.push((fs, p, b)),
            }
        }
        for (_, place, each) in &by_fs {
            limits::check_disk(
                items,
                *each,
                limits::available_disk(place).map(|b| (b, place.as_path())),
                what_helps,
            )?;
        }
        Ok(())
    }

    /// The report paths given (`-` for standard output), JSON first.
    pub fn paths(&self) -> Vec<&str> {
        [&self.json, &self.csv]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect()
    }

    /// Whether a report goes to standard output, so the table must go to standard error.
    pub fn uses_stdout(&self) -> bool {
        [&self.json, &self.csv]
            .into_iter()
            .any(|p| p.as_deref() == Some("-"))
    }

    /// Writes the reports asked for; `json` and `csv` make their text.
    pub fn write(
        &self,
        json: impl FnOnce() -> anyhow::Result<String>,
        csv: impl FnOnce() -> std::io::Result<String>,
    ) -> anyhow::Result<()> {
        let (j, c) = self.outputs();
        if let Some(o) = j {
            o.write(json()?.as_bytes())?;
        }
        if let Some(o) = c {
            o.write(csv()?.as_bytes())?;
        }
        Ok(())
    }

    /// Writes the reports asked for as `json` and `csv` write them (for reports too large to
    /// build in memory).
    pub fn write_streamed(
        &self,
        json: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
        csv: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> anyhow::Result<()> {
        let (j, c) = self.outputs();
        if let Some(o) = j {
            o.write_with(json)?;
        }
        if let Some(o) = c {
            o.write_with(csv)?;
        }
        Ok(())
    }
}

/// Prints the human-readable table: on standard output, or on standard error when a report
/// goes to standard output.
pub fn print_table(reports: &ReportArgs, text: &str) {
    if reports.uses_stdout() {
        super::output::stderr(text);
    } else {
        super::output::stdout(text);
    }
}

/// Standard input can be read once: a command given `-` twice would get nothing the second time.
pub fn refuse_stdin_twice(paths: &[&str]) -> anyhow::Result<()> {
    if paths.iter().filter(|&&p| p == "-").count() > 1 {
        anyhow::bail!("`-` (standard input) is given more than once; it can be read only once");
    }
    Ok(())
}

/// Refuses input files that would share a row label ([`gpu_sudoku::puzzle::file_label`]: the
/// name without folder and extension), naming both: rows keyed by label (compare's, sweep's, and
/// `merge`'s of them) could not tell the files apart.
pub fn refuse_duplicate_labels(paths: &[&str]) -> anyhow::Result<()> {
    use gpu_sudoku::puzzle::file_label;
    for (k, p) in paths.iter().enumerate() {
        if let Some(q) = paths[..k].iter().find(|q| file_label(q) == file_label(p)) {
            if q == p {
                anyhow::bail!("`{p}` is given twice; give each file once");
            }
            anyhow::bail!(
                "`{q}` and `{p}` are both labelled `{}` (a file's rows are labelled by its name \
                 without folder and extension, so file names without extension must differ): \
                 rename one of them, or copy it under a name of its own",
                file_label(p)
            );
        }
    }
    Ok(())
}

/// One line per device on stderr: its share of the instances and its busy time (several
/// devices only).
pub fn report_usage(devices: &[Device], usage: &[job::devices::Usage]) {
    for line in job::devices::usage_lines(devices, usage) {
        errln!("{line}");
    }
}

/// How a run is split and kept: its shard, its journal, its chunks (batch, compare and sweep).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct JobArgs {
    /// Run only shard K of N, counted from 1 (1/N … N/N): a contiguous part of the work items of
    /// about 1/N of the cost; `gpu-sudoku merge` joins the N reports into the unsharded one.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Finish the run a killed command with the same options left in the journal beside
    /// --json (or --csv; a sweep's is beside its --csv): its finished chunks are kept, the
    /// rest is run.
    #[arg(long)]
    pub resume: bool,
    /// Work items per chunk, the unit of the journal (a killed run loses at most one chunk)
    /// [default: 16384 instances for batch, 1024 attempts for compare]; for sweep, settings
    /// per engine call [default: automatic, enough for a few hundred thousand instances on the
    /// GPU, tens of thousands on the CPU].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk: Option<u32>,
}

impl JobArgs {
    /// The chunk size given, or the job's default.
    pub fn chunk(&self, default: usize) -> usize {
        self.chunk.map_or(default, |c| c as usize)
    }
}

/// How puzzle files are read, for every command that reads them (docs/PUZZLES.md, "Formats").
#[derive(clap::Args, Debug, Clone, Default)]
pub struct InputArgs {
    /// Side length (4, 9, 16, 25, 36, 49, 64) when the file's layout leaves it open; otherwise
    /// detected from the first puzzle.
    #[arg(long)]
    pub size: Option<usize>,
    /// File layout; `auto` detects it per file (a `.gz` file is decompressed whatever the
    /// layout).
    #[arg(long, value_parser = choice::<Format>(), default_value_t = Format::Auto)]
    pub format: Format,
    /// CSV: the puzzle column, by header name (any case) or 1-based number; default the first
    /// column whose first value reads as a puzzle. A column named `solution` or `solutions` is
    /// checked and compared with the solved grids.
    #[arg(long)]
    pub column: Option<String>,
}

/// The one puzzle a command works on: a puzzle line, or one puzzle of a file.
#[derive(clap::Args, Debug)]
pub struct OnePuzzle {
    /// A puzzle on one line (`53..7....6..195…`) or a puzzle file (`-` = standard input).
    #[arg(value_name = "PUZZLE_OR_FILE")]
    pub puzzle: String,
    /// Which puzzle of the file (0-based, as `puzzle` in the batch JSON).
    #[arg(long, default_value_t = 0)]
    pub index: usize,
}

/// Puzzles `solve` and `rate` handle at a time: their input streams through in chunks of this
/// many, so memory does not grow with it.
pub const STREAM_CHUNK: usize = 4096;

impl InputArgs {
    /// Reads every file of a run after checking its outputs against them (a bad file fails
    /// before anything runs); standard input at most once, no file without puzzles.
    pub fn read_all(
        &self,
        paths: &[String],
        reports: &ReportArgs,
    ) -> anyhow::Result<Vec<PuzzleFile>> {
        let given: Vec<&str> = paths.iter().map(String::as_str).collect();
        refuse_stdin_twice(&given)?;
        reports.check(&given)?;
        let mut files = Vec::new();
        for path in paths {
            let f = self.read(path)?;
            if f.puzzles.is_empty() {
                anyhow::bail!("{path}: no puzzles in the file");
            }
            files.push(f);
        }
        Ok(files)
    }

    /// A batch's inputs, checked as [`InputArgs::read_all`] checks them: a regular file is
    /// checked whole now and read again window by window as the batch runs (memory does not
    /// grow with it); standard input, a pipe or a FIFO, which cannot be read twice, is held.
    pub fn inputs(
        &self,
        paths: &[String],
        reports: &ReportArgs,
    ) -> anyhow::Result<Vec<gpu_sudoku::job::input::Input>> {
        use gpu_sudoku::job::input::Input;
        let given: Vec<&str> = paths.iter().map(String::as_str).collect();
        refuse_stdin_twice(&given)?;
        reports.check(&given)?;
        let mut inputs = Vec::new();
        for path in paths {
            let regular = path != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_file());
            inputs.push(if regular {
                Input::streamed(path, &self.options())?
            } else {
                Input::Held(self.read(path)?)
            });
        }
        Ok(inputs)
    }

    pub fn options(&self) -> ReadOptions {
        ReadOptions {
            side: self.size,
            format: self.format,
            column: self.column.clone(),
        }
    }

    /// Reads `path` (`-` = stdin) as these options say.
    pub fn read(&self, path: &str) -> Result<PuzzleFile, ParseError> {
        read_puzzles_with(path, &self.options())
    }

    /// Opens `path` (`-` = stdin) to be read as it comes ([`PuzzleReader::next_chunk`]).
    pub fn open(&self, path: &str) -> Result<PuzzleReader<'static>, ParseError> {
        PuzzleReader::open(path, &self.options())
    }

    /// Opens `path` to be read chunk by chunk ([`PuzzleReader::next_chunk`]), in memory that
    /// does not grow with it. A regular file is checked whole first ([`scan_puzzles`]), so a
    /// bad puzzle anywhere fails before any work; standard input, a pipe or a FIFO, which
    /// cannot be read twice, is read as it comes (`None`).
    pub fn stream(&self, path: &str) -> Result<(PuzzleReader<'static>, Option<Scan>), ParseError> {
        let regular = path != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_file());
        let scan = regular
            .then(|| scan_puzzles(path, &self.options()))
            .transpose()?;
        Ok((self.open(path)?, scan))
    }

    /// The one puzzle `which` names: puzzle `index` (0-based) of a file, or the argument itself
    /// as a puzzle line; with where it came from (`FILE:LINE` or `command line`).
    pub fn one(&self, which: &OnePuzzle) -> anyhow::Result<(Grid, String)> {
        use anyhow::{bail, Context};
        let (arg, index) = (which.puzzle.as_str(), which.index);
        if arg == "-" || std::path::Path::new(arg).exists() {
            let f = self.read(arg)?;
            let Some(p) = f.puzzles.get(index) else {
                bail!(
                    "--index {index} is out of range: {arg} holds {} puzzle(s) (0-based index)",
                    f.puzzles.len()
                );
            };
            return Ok((p.grid.clone(), format!("{}:{}", f.path, p.line)));
        }
        let mut ps = parse_str(arg, self.size).with_context(|| {
            format!(
                "{:?} is neither a readable file nor a puzzle line",
                arg.chars().take(40).collect::<String>()
            )
        })?;
        if ps.len() != 1 {
            bail!("give one puzzle, got {}", ps.len());
        }
        if index != 0 {
            bail!("--index only applies to a puzzle file");
        }
        Ok((ps.remove(0).grid, "command line".into()))
    }
}

/// The algorithms `batch` and `trace` run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Algo {
    Ilca,
    Rfss,
}

/// `--max-iterations N`, the one name every iteration cap also answers to: for `batch` and
/// `trace` it is ILCA's `--steps` or RFSS's `--max-generations`, whichever algorithm runs.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MaxIterations {
    /// The iteration cap by its common name: --steps for ILCA, --max-generations for RFSS.
    #[arg(long, value_name = "N", conflicts_with_all = ["steps", "max_generations"])]
    pub max_iterations: Option<u32>,
}

impl MaxIterations {
    /// Sets the running algorithm's own cap from `--max-iterations`, where given.
    pub fn apply(
        &self,
        algo: Algo,
        ilca: &mut super::ilca_args::IlcaArgs,
        rfss: &mut super::rfss_args::RfssArgs,
    ) {
        if let Some(n) = self.max_iterations {
            match algo {
                Algo::Ilca => ilca.steps = Some(n),
                Algo::Rfss => rfss.max_generations = Some(n),
            }
        }
    }
}

/// Refuses the options of the other algorithm instead of ignoring them.
pub fn refuse(given: Vec<&str>, only_for: &str, not_for: &str) -> anyhow::Result<()> {
    if !given.is_empty() {
        anyhow::bail!(
            "{} {} only to --algo {only_for}, not to --algo {not_for}",
            given.join(", "),
            if given.len() == 1 { "applies" } else { "apply" }
        );
    }
    Ok(())
}

/// Exit status when the search gave up on some puzzle (`solve`, `rate` and `cnf`).
pub const GAVE_UP: u8 = 3;

/// A wall-clock limit as every command takes it (`--time-limit 500ms`, `20s`, `2m`, `1h`; a bare
/// number is seconds; 0 is none): [`gpu_sudoku::param::parse_time_limit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLimit(pub Option<std::time::Duration>);

impl TimeLimit {
    pub const fn millis(ms: u64) -> TimeLimit {
        TimeLimit(if ms == 0 {
            None
        } else {
            Some(std::time::Duration::from_millis(ms))
        })
    }

    /// In whole milliseconds, a part of one counted as one (0: no limit).
    pub fn as_millis(&self) -> u64 {
        gpu_sudoku::param::time_limit_millis(self.0)
    }
}

impl std::str::FromStr for TimeLimit {
    type Err = String;
    fn from_str(s: &str) -> Result<TimeLimit, String> {
        gpu_sudoku::param::parse_time_limit(s).map(TimeLimit)
    }
}

impl std::fmt::Display for TimeLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.as_millis() {
            0 => write!(f, "0"),
            ms if ms % 1000 == 0 => write!(f, "{}s", ms / 1000),
            ms => write!(f, "{ms}ms"),
        }
    }
}

/// Search limits per puzzle, shared by `solve` and `rate`.
#[derive(clap::Args, Debug, Clone)]
pub struct SearchLimits {
    /// Give up on a puzzle after this many search nodes (0: no limit); it is then reported as
    /// `line N: gave up after K nodes` (`# line N: …` under `solve --pretty`) and the exit
    /// status is 3. `--max-iterations` is the same, as every iteration cap is spelt.
    #[arg(
        long,
        visible_alias = "max-iterations",
        default_value_t = 10_000_000,
        value_name = "N"
    )]
    pub max_nodes: u64,
    /// Give up on a puzzle after this long: 500ms, 20s, 2m, 1h (a bare number is seconds; 0: no
    /// limit).
    #[arg(long, default_value = "60s", value_name = "DURATION")]
    pub time_limit: TimeLimit,
}

impl SearchLimits {
    /// The default exact solver with these limits.
    pub fn config(&self) -> anyhow::Result<gpu_sudoku::exact::Config> {
        Ok(gpu_sudoku::exact::Config {
            node_limit: (self.max_nodes > 0).then_some(self.max_nodes),
            time_limit: self.time_limit.0,
            ..Default::default()
        })
    }

    /// The exact solver within these limits over `total` puzzles handed to it in chunks, with
    /// a progress bar labelled `what` (on a terminal only) that also shows the nodes searched.
    pub fn classifier(&self, total: usize, what: &str) -> anyhow::Result<Classifier> {
        Ok(Classifier {
            config: self.config()?,
            nodes: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)),
            bar: super::progress::bar(total, what),
            what: what.to_string(),
        })
    }
}

/// The exact solver classifying (none, unique, several) the chunks of a streamed file, with one
/// progress bar for them all ([`SearchLimits::classifier`]).
pub struct Classifier {
    config: gpu_sudoku::exact::Config,
    nodes: std::sync::Arc<std::sync::atomic::AtomicU64>,
    bar: indicatif::ProgressBar,
    what: String,
}

impl Classifier {
    /// Classifies `puzzles` in parallel ([`gpu_sudoku::exact::classify_all`]); `unannounced`:
    /// they were not in the total (standard input, read as it comes).
    pub fn classify(
        &self,
        puzzles: &[gpu_sudoku::puzzle::Puzzle],
        unannounced: bool,
    ) -> Vec<gpu_sudoku::exact::Classified> {
        use std::sync::atomic::{AtomicBool, Ordering};
        if unannounced {
            self.bar.inc_length(puzzles.len() as u64);
        }
        let (pb, what) = (&self.bar, &self.what);
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let ticker = (!pb.is_hidden()).then(|| {
                scope.spawn(|| {
                    while !done.load(Ordering::Relaxed) {
                        let k = self.nodes.load(Ordering::Relaxed);
                        if k > 0 {
                            pb.set_message(format!("{what} ({k} nodes searched)"));
                        }
                        std::thread::park_timeout(std::time::Duration::from_millis(200));
                    }
                })
            });
            let results =
                gpu_sudoku::exact::classify_all(puzzles, self.config, &self.nodes, &|| pb.inc(1));
            done.store(true, Ordering::Relaxed);
            if let Some(t) = ticker {
                t.thread().unpark();
            }
            results
        })
    }

    /// Runs `print` with the bar out of the way (what it prints must not mix with the bar).
    pub fn suspend<T>(&self, print: impl FnOnce() -> T) -> T {
        self.bar.suspend(print)
    }

    /// The work is over: the bar goes.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// `line N: gave up after K nodes (T s)` for a puzzle the search limits stopped, or None when
/// the answer is known.
pub fn gave_up_line(c: &gpu_sudoku::exact::Classified, line: usize) -> Option<String> {
    match c {
        gpu_sudoku::exact::Classified::Known(_) => None,
        gpu_sudoku::exact::Classified::GaveUp { nodes, seconds } => Some(format!(
            "line {line}: gave up after {nodes} nodes ({seconds:.1} s); raise --max-nodes or --time-limit"
        )),
    }
}

/// The figure files a sweep of `swept` can write into `dir`, as outputs to check before work.
pub fn sweep_figure_outputs(
    dir: &std::path::Path,
    swept: &[gpu_sudoku::sweep::Param],
    formats: &[gpu_sudoku::plot::Format],
) -> Vec<super::output::Output> {
    gpu_sudoku::sweep::figures::figure_names(swept, formats)
        .into_iter()
        .map(|name| super::output::Output::new("--figures", &dir.join(name).to_string_lossy()))
        .collect()
}

/// Draws the figures of sweep rows into `dir` (checked before the work) and names each file
/// through `say` (standard output, or standard error when a report takes standard output).
pub fn write_sweep_figures(
    rows: &[gpu_sudoku::sweep::Row],
    dir: &std::path::Path,
    formats: &[gpu_sudoku::plot::Format],
    opts: gpu_sudoku::sweep::figures::Options,
    say: &dyn Fn(&str),
) -> anyhow::Result<()> {
    for (name, bytes) in gpu_sudoku::sweep::figures::render_all(rows, formats, opts)? {
        let path = dir.join(name);
        super::output::Output::new("--figures", &path.to_string_lossy()).write(&bytes)?;
        say(&format!("wrote {}\n", path.display()));
    }
    Ok(())
}

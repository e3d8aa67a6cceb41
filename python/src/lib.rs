//! `gpu_sudoku._native`: the library's calls for the Python package (`python/gpu_sudoku/`),
//! which turns what they return into numpy arrays and pandas frames. Nothing here runs or
//! counts anything itself: it fills the library's requests, waits for its jobs with the
//! interpreter released, and maps its errors to Python's exceptions with the same text.
//!
//! Structured results cross as JSON text (summaries, rows) and flat little-endian byte buffers
//! (per-instance columns and grids), which the Python side reads with `json` and numpy.

use gpu_sudoku::backend::{Backend, Device};
use gpu_sudoku::choice::Choice;
use gpu_sudoku::ilca::presets::{self, Preset};
use gpu_sudoku::ilca::{self, IlcaParams};
use gpu_sudoku::job::batch::{self, Algorithm, Plan, Request};
use gpu_sudoku::job::{batch_table, compare, devices, Events, Keep};
use gpu_sudoku::param::ParamError;
use gpu_sudoku::puzzle::{self, Geometry, Grid, Puzzle, PuzzleFile, ReadOptions};
use gpu_sudoku::report::batch::Summary;
use gpu_sudoku::rfss::{self, RfssParams};
use gpu_sudoku::{exact, generate, interrupt};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

pyo3::create_exception!(
    _native,
    ParseError,
    PyValueError,
    "A puzzle input that cannot be read: `file`, `line` and `column` (1-based; 0 and None \
     when the whole input is at fault) say where, the message what."
);

/// The Python exception for a library error: `ParseError` (with its place), `ValueError` for
/// a parameter, `KeyboardInterrupt` for a run stopped by Ctrl-C, else `RuntimeError`; the text
/// is the command line's.
fn to_py(py: Python<'_>, e: anyhow::Error) -> PyErr {
    if let Some(p) = e.downcast_ref::<puzzle::ParseError>() {
        let err = ParseError::new_err(p.to_string());
        let v = err.value(py);
        let column = p.column;
        let set = || -> PyResult<()> {
            v.setattr("file", &p.file)?;
            v.setattr("line", p.line)?;
            v.setattr("column", column)?;
            v.setattr("message", &p.message)
        };
        return match set() {
            Ok(()) => err,
            Err(e) => e,
        };
    }
    if e.downcast_ref::<ParamError>().is_some() {
        return PyValueError::new_err(format!("{e:#}"));
    }
    if e.downcast_ref::<interrupt::Interrupted>().is_some() {
        return PyKeyboardInterrupt::new_err("interrupted");
    }
    PyRuntimeError::new_err(format!("{e:#}"))
}

fn value_error(e: anyhow::Error) -> PyErr {
    PyValueError::new_err(format!("{e:#}"))
}

/// What a job reports while it runs, read by the waiting Python thread.
#[derive(Default)]
struct Counts {
    total: AtomicU64,
    done: AtomicU64,
}

impl Events for Counts {
    fn total(&self, items: u64) {
        self.total.store(items, Ordering::Relaxed);
    }
    fn advance(&self, items: u64) {
        self.done.fetch_add(items, Ordering::Relaxed);
    }
}

/// Calls running now, from any Python thread: a stop request is forgotten only when the first
/// starts and the last ends, so one call cannot wipe the request that stops another.
static RUNNING: std::sync::Mutex<usize> = std::sync::Mutex::new(0);

/// Counts a call as running while it lives.
struct Running;

impl Running {
    fn start() -> Running {
        let mut n = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        if *n == 0 {
            interrupt::clear();
        }
        *n += 1;
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut n = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        *n -= 1;
        if *n == 0 {
            interrupt::clear();
        }
    }
}

/// Runs `work` on its own thread with the interpreter released. Every 100 ms the calling
/// thread takes the interpreter back to call `progress(done, total)` and to look for a signal:
/// Ctrl-C asks the engines to stop ([`interrupt`]), waits for them (a step or a submission) and
/// raises `KeyboardInterrupt`; nothing the job had in hand is kept. The request is one for the
/// process, as the signal is: every call running then stops.
fn run_released<T: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce(&Counts) -> anyhow::Result<T> + Send,
) -> PyResult<T> {
    let _running = Running::start();
    let counts = Counts::default();
    let outcome = std::thread::scope(|s| {
        let handle = s.spawn(|| work(&counts));
        let mut reported = None;
        loop {
            py.detach(|| {
                for _ in 0..20 {
                    if handle.is_finished() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
            });
            let now = (
                counts.done.load(Ordering::Relaxed),
                counts.total.load(Ordering::Relaxed),
            );
            let called = match progress {
                Some(cb) if reported != Some(now) && now.1 > 0 => {
                    reported = Some(now);
                    cb.call1(now).map(drop)
                }
                _ => Ok(()),
            };
            let stop = called.and_then(|()| py.check_signals());
            if let Err(e) = stop {
                interrupt::request();
                let _ = py.detach(|| handle.join());
                return Err(e);
            }
            if handle.is_finished() {
                break;
            }
        }
        match handle.join() {
            Ok(r) => r.map_err(|e| to_py(py, e)),
            Err(_) => Err(PyRuntimeError::new_err(
                "internal error: the engine panicked",
            )),
        }
    });
    outcome
}

/// Puzzles read from one input, as the library holds them.
#[pyclass(module = "gpu_sudoku._native", frozen)]
struct Puzzles {
    file: PuzzleFile,
}

#[pymethods]
impl Puzzles {
    fn __len__(&self) -> usize {
        self.file.puzzles.len()
    }
    /// The input's name (a path, or `<list>`, `<array>`).
    #[getter]
    fn path(&self) -> &str {
        &self.file.path
    }
    /// The row label the tables use (the file name without its extension).
    #[getter]
    fn label(&self) -> String {
        self.file.label()
    }
    /// Grid side (9 for 9x9).
    #[getter]
    fn side(&self) -> usize {
        self.file.b * self.file.b
    }
    /// Every puzzle's cells, puzzle after puzzle (0 for a blank).
    fn cells<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let all: Vec<u8> = self
            .file
            .puzzles
            .iter()
            .flat_map(|p| p.grid.cells().iter().copied())
            .collect();
        PyBytes::new(py, &all)
    }
    /// Each puzzle's 1-based line in its input.
    fn lines(&self) -> Vec<usize> {
        self.file.puzzles.iter().map(|p| p.line).collect()
    }
}

fn read_options(
    size: Option<usize>,
    format: Option<&str>,
    column: Option<String>,
) -> PyResult<ReadOptions> {
    let format = match format {
        None => Default::default(),
        Some(f) => puzzle::Format::from_name(f).ok_or_else(|| {
            PyValueError::new_err(format!(
                "format: no format `{f}`; formats: {}",
                gpu_sudoku::choice::names::<puzzle::Format>()
            ))
        })?,
    };
    Ok(ReadOptions {
        side: size,
        format,
        column,
    })
}

/// Reads a puzzle file (any format the command line reads, gzip included).
#[pyfunction]
#[pyo3(signature = (path, size=None, format=None, column=None))]
fn read_file(
    py: Python<'_>,
    path: &str,
    size: Option<usize>,
    format: Option<&str>,
    column: Option<String>,
) -> PyResult<Puzzles> {
    let options = read_options(size, format, column)?;
    let file = py
        .detach(|| puzzle::read_puzzles_with(path, &options))
        .map_err(|e| to_py(py, e.into()))?;
    Ok(Puzzles { file })
}

/// Parses `text` as the input `name` (`format="line"`: one puzzle per line, so that line k is
/// puzzle k).
#[pyfunction]
#[pyo3(signature = (text, name, size=None, format=None))]
fn parse_text(
    py: Python<'_>,
    text: &str,
    name: &str,
    size: Option<usize>,
    format: Option<&str>,
) -> PyResult<Puzzles> {
    let options = read_options(size, format, None)?;
    let file = puzzle::read_puzzles_from(name, text.as_bytes(), &options)
        .map_err(|e| to_py(py, e.into()))?;
    Ok(Puzzles { file })
}

/// Puzzles from raw cells (`count` grids of `side`×`side`, 0 for a blank, row by row), named
/// `name` in errors: a value too large or a repeated clue is placed at
/// `name:puzzle:cell` (both 1-based).
#[pyfunction]
fn from_cells(
    py: Python<'_>,
    cells: &[u8],
    count: usize,
    side: usize,
    name: &str,
) -> PyResult<Puzzles> {
    let b = Geometry::box_for_side(side).ok_or_else(|| {
        PyValueError::new_err(format!(
            "a grid's side must be a square (4, 9, 16, 25, 36, 49 or 64), got {side}"
        ))
    })?;
    let area = side * side;
    if cells.len() != count * area {
        return Err(PyValueError::new_err(format!(
            "{count} grids of {side}x{side} need {} cells, got {}",
            count * area,
            cells.len()
        )));
    }
    let mut puzzles = Vec::with_capacity(count);
    for (k, chunk) in cells.chunks(area.max(1)).enumerate() {
        let grid = puzzle::grid_from_cells(name, k + 1, b, chunk.to_vec())
            .map_err(|e| to_py(py, e.into()))?;
        let mut p = Puzzle::new(grid);
        p.line = k + 1;
        puzzles.push(p);
    }
    if puzzles.is_empty() {
        return Err(PyValueError::new_err(format!("{name}: no puzzles")));
    }
    Ok(Puzzles {
        file: PuzzleFile {
            path: name.to_string(),
            b,
            puzzles,
            header: Vec::new(),
        },
    })
}

/// ILCA's parameters: the preset's (Algorithm 1 without one), then those in `given` by their
/// field names, validated.
fn ilca_params(preset: Option<&str>, given: &Bound<'_, PyDict>) -> PyResult<IlcaParams> {
    let preset = preset.map(preset_named).transpose()?;
    let mut p = preset.map_or_else(IlcaParams::default, Preset::params);
    for (key, value) in given.iter() {
        let key: String = key.extract()?;
        match key.as_str() {
            "steps" => p.steps = count("steps", &value)?,
            "lr" => p.lr = real("lr", &value)?,
            "lp" => p.lp = real("lp", &value)?,
            "sr" => p.sr = count("sr", &value)?,
            "restart" => p.restart = count("restart", &value)?,
            "penalty_floor" => p.penalty_floor = real("penalty_floor", &value)?,
            "seed" => p.seed = count("seed", &value)?,
            "share" => p.share = real("share", &value)?,
            "compare" => p.compare = choice("compare", &value)?,
            "tie" => p.tie = choice("tie", &value)?,
            "reset_check" => p.reset_check = choice("reset_check", &value)?,
            "prune" => p.prune = choice("prune", &value)?,
            other => return Err(unexpected(other, "ILCA")),
        }
    }
    p.validate().map_err(|e| {
        let from = preset
            .filter(|_| !given.contains(e.param).unwrap_or(true))
            .map(|pr| {
                format!(
                    " ({} comes from preset {}; pass {}= to change it)",
                    e.param, pr.name, e.param
                )
            })
            .unwrap_or_default();
        PyValueError::new_err(format!("{e}{from}"))
    })?;
    Ok(p)
}

fn rfss_params(given: &Bound<'_, PyDict>) -> PyResult<RfssParams> {
    let mut p = RfssParams::default();
    for (key, value) in given.iter() {
        let key: String = key.extract()?;
        match key.as_str() {
            "max_generations" => p.max_generations = count("max_generations", &value)?,
            "stable_generations" => p.stable_generations = count("stable_generations", &value)?,
            "underflow" => p.underflow = choice("underflow", &value)?,
            "underflow_log2" => p.underflow_log2 = count("underflow_log2", &value)?,
            "enhance" => p.enhancement = choice("enhance", &value)?,
            "stall_generations" => p.stall_generations = count("stall_generations", &value)?,
            other => return Err(unexpected(other, "RFSS")),
        }
    }
    if given.contains("stall_generations")? && p.enhancement == rfss::Enhancement::Off {
        return Err(PyValueError::new_err(
            "stall_generations applies with enhance only (plain RFSS takes no decisions): pass \
             enhance='propagate', 'mrv', 'logic' or 'lookahead', or leave it out",
        ));
    }
    p.validate()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(p)
}

/// A parameter's whole number: a `ValueError` naming it where the value does not fit `T` (a
/// negative count), a `TypeError` where it is not an int.
fn count<T: TryFrom<u64>>(key: &str, value: &Bound<'_, PyAny>) -> PyResult<T> {
    if !value.is_instance_of::<pyo3::types::PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{key}: a whole number is needed, not {value:?}"
        )));
    }
    // The parameters' counts are u32 or u64.
    let max = if T::try_from(u64::MAX).is_ok() {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    value
        .extract::<u64>()
        .ok()
        .and_then(|v| T::try_from(v).ok())
        .ok_or_else(|| {
            PyValueError::new_err(format!("{key}: must be from 0 to {max} (got {value})"))
        })
}

/// A parameter's real number (an int or a float), a `TypeError` where it is neither.
fn real(key: &str, value: &Bound<'_, PyAny>) -> PyResult<f64> {
    value
        .extract::<f64>()
        .map_err(|_| PyTypeError::new_err(format!("{key}: a number is needed, not {value:?}")))
}

fn unexpected(name: &str, algo: &str) -> PyErr {
    PyTypeError::new_err(format!("unexpected keyword argument '{name}' for {algo}"))
}

fn choice<C: Choice>(param: &str, value: &Bound<'_, PyAny>) -> PyResult<C> {
    let name: String = value.extract()?;
    C::from_name(&name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{param}: no value `{name}`; choose one of {}",
            gpu_sudoku::choice::names::<C>()
        ))
    })
}

fn preset_named(name: &str) -> PyResult<&'static Preset> {
    presets::by_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "preset: no preset `{name}`; presets: {}",
            presets::PRESETS
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

fn backend_named(name: &str) -> PyResult<Backend> {
    Backend::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "backend: no backend `{name}`; choose one of {}",
            gpu_sudoku::choice::names::<Backend>()
        ))
    })
}

/// A finished batch: its table, summaries, per-instance columns and reports.
#[pyclass(module = "gpu_sudoku._native", frozen)]
struct BatchDone {
    /// The table `gpu-sudoku batch` prints for the same request.
    #[pyo3(get)]
    table: String,
    /// JSON: a list of each file's summary and, for several files, the overall one.
    #[pyo3(get)]
    summaries: String,
    /// Notes the command line prints on standard error (a CPU fallback, runs cut to one).
    #[pyo3(get)]
    notes: Vec<String>,
    /// Grid side of each file.
    #[pyo3(get)]
    sides: Vec<usize>,
    /// Little-endian u32 columns of the instances, in report order.
    columns: Vec<(&'static str, Vec<u8>)>,
    /// Each file's final grids, instance after instance.
    grids: Vec<Vec<u8>>,
    /// The report, its records in its journal, for the JSON and CSV documents when asked.
    report: std::sync::Mutex<batch::Report>,
}

#[pymethods]
impl BatchDone {
    /// The instance columns: name → bytes of little-endian u32 (`file`, `puzzle`, `line`,
    /// `run`, `solved`, `steps`).
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, bytes) in &self.columns {
            d.set_item(name, PyBytes::new(py, bytes))?;
        }
        Ok(d)
    }
    /// The JSON report (`gpu-sudoku batch --json`), made now from the records.
    fn json(&self, py: Python<'_>) -> PyResult<String> {
        self.document(py, |r, w| r.write_json(w))
    }
    /// The per-instance CSV report (`gpu-sudoku batch --csv`), made now from the records.
    fn csv(&self, py: Python<'_>) -> PyResult<String> {
        self.document(py, |r, w| r.write_csv(w))
    }
    /// File `index`'s final grids (side² bytes each, 0 for a blank).
    fn grids<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyBytes>> {
        let g = self
            .grids
            .get(index)
            .ok_or_else(|| PyValueError::new_err(format!("no file {index}")))?;
        Ok(PyBytes::new(py, g))
    }
}

impl BatchDone {
    fn document(
        &self,
        py: Python<'_>,
        write: impl Fn(&batch::Report, &mut dyn std::io::Write) -> std::io::Result<()> + Send + Sync,
    ) -> PyResult<String> {
        let text = py.detach(|| -> anyhow::Result<String> {
            let report = self.report.lock().unwrap_or_else(|e| e.into_inner());
            let mut bytes = Vec::new();
            write(&report, &mut bytes)?;
            Ok(String::from_utf8(bytes)?)
        });
        text.map_err(|e| to_py(py, e))
    }
}

/// Runs a batch as `gpu-sudoku batch` does, on every adapter `adapter` names (or the one the
/// backend opens), keeping every record.
#[pyfunction]
#[pyo3(name = "batch")]
#[pyo3(signature = (inputs, algo, runs, preset, params, backend, adapter, progress, command))]
#[allow(clippy::too_many_arguments)]
fn run_batch(
    py: Python<'_>,
    inputs: Vec<PyRef<'_, Puzzles>>,
    algo: &str,
    runs: Option<usize>,
    preset: Option<&str>,
    params: &Bound<'_, PyDict>,
    backend: &str,
    adapter: Option<String>,
    progress: Option<&Bound<'_, PyAny>>,
    command: Vec<String>,
) -> PyResult<BatchDone> {
    if runs == Some(0) {
        return Err(PyValueError::new_err("runs: must be at least 1 (got 0)"));
    }
    let mut notes = Vec::new();
    let algorithm = match algo {
        "ilca" => {
            // `portfolio` is the batch's, not a parameter of ILCA's update.
            let params = params.copy()?;
            let portfolio: usize = match params.get_item("portfolio")? {
                Some(v) => {
                    params.del_item("portfolio")?;
                    let n: u32 = count("portfolio", &v)?;
                    if n == 0 {
                        return Err(PyValueError::new_err(
                            "portfolio: must be at least 1 (got 0)",
                        ));
                    }
                    n as usize
                }
                None => 1,
            };
            // So are `pull` and `pull_every`: cooperation between a portfolio's instances.
            let pull = match params.get_item("pull")? {
                Some(v) => {
                    params.del_item("pull")?;
                    let mut pull = gpu_sudoku::ilca::Pull {
                        alpha: v.extract().map_err(|_| {
                            PyValueError::new_err("pull: must be a number (the pull's alpha)")
                        })?,
                        ..Default::default()
                    };
                    if let Some(e) = params.get_item("pull_every")? {
                        params.del_item("pull_every")?;
                        pull.every = count("pull_every", &e)?;
                    }
                    Some(pull)
                }
                None => None,
            };
            if params.contains("pull_every")? {
                return Err(PyValueError::new_err("pull_every: only with pull"));
            }
            let p = ilca_params(preset, &params)?;
            if portfolio > 1 && p.ignores_seed() {
                return Err(PyValueError::new_err(
                    "portfolio: tie='first' ignores the seed, so every instance of a portfolio would be the same run",
                ));
            }
            let default_runs = if portfolio > 1 {
                1
            } else {
                batch::DEFAULT_RUNS
            };
            let asked = runs.unwrap_or(default_runs);
            let runs = p.runs_per_puzzle(asked);
            if runs < asked {
                notes.push("tie='first' ignores the seed: every run of a puzzle would be the same run, so each puzzle runs once".to_string());
            }
            Algorithm::Ilca {
                preset: preset
                    .map(preset_named)
                    .transpose()?
                    .or_else(|| Preset::paper_setting_of(&p))
                    .map(|x| x.name),
                params: p,
                runs,
                portfolio,
                pull,
            }
        }
        "rfss" => {
            if preset.is_some() {
                return Err(PyValueError::new_err("preset applies only to algo='ilca'"));
            }
            if runs.is_some_and(|r| r > 1) {
                notes.push(batch::RFSS_NOTE.to_string());
            }
            Algorithm::Rfss(rfss_params(params)?)
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "algo: no algorithm `{other}`; choose ilca or rfss"
            )))
        }
    };
    let backend = backend_named(backend)?;
    let chunk = (batch::DEFAULT_CHUNK / algorithm.portfolio()).max(1);
    let request = Request {
        files: inputs.iter().map(|p| p.file.clone().into()).collect(),
        algorithm,
        shard: None,
        chunk,
        command,
    };
    drop(inputs);
    let (devices, why_cpu) = py
        .detach(|| devices::open(backend, adapter.as_deref()))
        .map_err(value_error)?;
    notes.extend(why_cpu.map(|w| format!("running on the CPU: {w}")));
    let report = run_released(py, progress, |events| {
        let plan = Plan::new(&request)?;
        plan.check_memory(devices.len())?;
        let keep = Keep {
            records: true,
            beside: None,
            resume: false,
        };
        batch::run(&plan, &devices, &keep, events)
    })?;
    py.detach(|| batch_done(&request, &devices, report, notes))
        .map_err(|e| to_py(py, e))
}

fn batch_done(
    request: &Request,
    devices: &[Device],
    report: batch::Report,
    notes: Vec<String>,
) -> anyhow::Result<BatchDone> {
    let table = batch_table::text(request, devices, &report);
    let labels = batch_table::Rows::new(request).labels;
    let mut summaries: Vec<serde_json::Value> = Vec::new();
    for (label, f) in labels.iter().zip(&report.files) {
        summaries.push(summary_json(label, &f.path, &f.summary())?);
    }
    if report.files.len() > 1 {
        summaries.push(summary_json(
            "overall",
            "",
            &Summary::overall(&report.files),
        )?);
    }
    let sides: Vec<usize> = report.files.iter().map(|f| f.side).collect();
    let names = ["file", "puzzle", "line", "run", "solved", "steps"];
    let mut cols: Vec<Vec<u8>> = vec![Vec::new(); names.len()];
    let mut grids = vec![Vec::new(); report.files.len()];
    report.each_record(&mut |fi, line, r| {
        let values = [
            fi,
            r.puzzle,
            line,
            r.run,
            r.solved as usize,
            r.steps as usize,
        ];
        for (col, v) in cols.iter_mut().zip(values) {
            col.extend_from_slice(&(v as u32).to_le_bytes());
        }
        let n = sides[fi];
        let grid = Geometry::box_for_side(n).and_then(|b| Grid::from_line(b, &r.grid));
        let g = grid.ok_or_else(|| {
            std::io::Error::other(format!(
                "puzzle {} run {}: its final grid is not a {n}x{n} grid",
                r.puzzle, r.run
            ))
        })?;
        grids[fi].extend_from_slice(g.cells());
        Ok(())
    })?;
    Ok(BatchDone {
        table,
        summaries: serde_json::to_string(&summaries)?,
        notes,
        sides,
        columns: names.into_iter().zip(cols).collect(),
        grids,
        report: std::sync::Mutex::new(report),
    })
}

fn summary_json(label: &str, path: &str, s: &Summary) -> anyhow::Result<serde_json::Value> {
    let mut v = serde_json::to_value(s)?;
    if let serde_json::Value::Object(m) = &mut v {
        m.insert("file".into(), label.into());
        m.insert("path".into(), path.into());
    }
    Ok(v)
}

/// A finished comparison: its table, rows and reports.
#[pyclass(module = "gpu_sudoku._native", frozen)]
struct CompareDone {
    #[pyo3(get)]
    table: String,
    /// Notes the command line prints on standard error (a CPU fallback).
    #[pyo3(get)]
    notes: Vec<String>,
    /// JSON: the rows (one per file and algorithm).
    #[pyo3(get)]
    rows: String,
    #[pyo3(get)]
    json: String,
    #[pyo3(get)]
    csv: String,
}

/// Runs `gpu-sudoku compare`'s job: the algorithms `algos` names on every puzzle.
#[pyfunction]
#[pyo3(name = "compare")]
#[pyo3(signature = (inputs, algos, runs, seed, budget_ms, max_iterations, preset, prune, share, stall_generations, backend, adapter, progress, command))]
#[allow(clippy::too_many_arguments)]
fn run_compare(
    py: Python<'_>,
    inputs: Vec<PyRef<'_, Puzzles>>,
    algos: &str,
    runs: usize,
    seed: u64,
    budget_ms: u64,
    max_iterations: Option<u64>,
    preset: Option<&str>,
    prune: Option<&Bound<'_, PyAny>>,
    share: Option<f64>,
    stall_generations: Option<u32>,
    backend: &str,
    adapter: Option<String>,
    progress: Option<&Bound<'_, PyAny>>,
    command: Vec<String>,
) -> PyResult<CompareDone> {
    if runs == 0 {
        return Err(PyValueError::new_err("runs: must be at least 1 (got 0)"));
    }
    let options = compare::algos::Options {
        seed,
        budget_ms,
        max_iterations,
        preset: preset.map(preset_named).transpose()?,
        prune: prune.map(|p| choice("prune", p)).transpose()?,
        share,
        stall_generations,
    };
    let entries = compare::algos::entries(algos, &options).map_err(value_error)?;
    let backend = backend_named(backend)?;
    let (device, why_cpu) = py
        .detach(|| devices::open_one(backend, adapter.as_deref()))
        .map_err(value_error)?;
    let notes = why_cpu.map(|w| format!("running on the CPU: {w}"));
    let request = compare::Request {
        device,
        runs,
        command,
        ..compare::Request::new(
            inputs.iter().map(|p| p.file.clone()).collect(),
            entries,
            &options,
        )
    };
    drop(inputs);
    let report = run_released(py, progress, |events| {
        let plan = compare::Plan::new(&request)?;
        let keep = Keep {
            records: true,
            beside: None,
            resume: false,
        };
        compare::run(&plan, &keep, events)
    })?;
    let done = py.detach(|| -> anyhow::Result<CompareDone> {
        let mut json = Vec::new();
        report.write_json(&mut json)?;
        let mut csv = Vec::new();
        report.write_csv(&mut csv)?;
        let done = CompareDone {
            table: request.device_line().unwrap_or_default() + &compare::table(&report.rows),
            notes: notes.into_iter().collect(),
            rows: serde_json::to_string(&report.rows)?,
            json: String::from_utf8(json)?,
            csv: String::from_utf8(csv)?,
        };
        report.finish()?;
        Ok(done)
    });
    done.map_err(|e| to_py(py, e))
}

/// The exact solver on every puzzle: (solutions: 0, 1 or 2 meaning two or more, the grid of
/// one solution or the puzzle itself when there is none).
#[pyfunction]
fn solve(py: Python<'_>, input: PyRef<'_, Puzzles>) -> PyResult<Vec<(usize, Py<PyBytes>)>> {
    let file = input.file.clone();
    drop(input);
    let out = run_released(py, None, |_| {
        file.puzzles
            .iter()
            .map(|p| {
                interrupt::check()?;
                Ok(match exact::classify(&p.grid) {
                    exact::Solutions::None => (0, p.grid.cells().to_vec()),
                    exact::Solutions::Unique(s) => (1, s.cells().to_vec()),
                    exact::Solutions::Multiple(s) => (2, s.cells().to_vec()),
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    Ok(out
        .into_iter()
        .map(|(n, cells)| (n, PyBytes::new(py, &cells).unbind()))
        .collect())
}

/// `gpu-sudoku rate`'s rows, as JSON: solutions, tier, score, hardest technique and the uses
/// of each technique, per puzzle.
#[pyfunction]
fn rate(py: Python<'_>, input: PyRef<'_, Puzzles>) -> PyResult<String> {
    let file = input.file.clone();
    drop(input);
    run_released(py, None, |_| {
        let classified = file
            .puzzles
            .iter()
            .map(|p| {
                interrupt::check()?;
                Ok(exact::Classified::Known(exact::classify(&p.grid)))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let rows = generate::report::rows(&file.puzzles, &classified, &|| {});
        Ok(serde_json::to_string(&rows)?)
    })
}

/// A generated puzzle's cells, its solution's cells and its extra fields.
type MadePuzzle = (Py<PyBytes>, Py<PyBytes>, String);

/// `gpu-sudoku generate`: `count` puzzles of `model` ("paper" or "rated") and `tier`, as
/// (cells, solution cells, extra fields) each.
#[pyfunction]
#[pyo3(name = "generate")]
#[pyo3(signature = (model, tier, size, count, seed))]
fn run_generate(
    py: Python<'_>,
    model: &str,
    tier: Option<&str>,
    size: usize,
    count: usize,
    seed: u64,
) -> PyResult<Vec<MadePuzzle>> {
    let b = Geometry::box_for_side(size).ok_or_else(|| {
        PyValueError::new_err(format!(
            "size: must be 4, 9, 16, 25, 36, 49 or 64 (got {size})"
        ))
    })?;
    let spec = generate::Spec {
        model: choice("model", &model.into_pyobject(py)?.into_any())?,
        tier: tier
            .map(|t| choice("tier", &t.into_pyobject(py)?.into_any()))
            .transpose()?,
        d: None,
        unique: false,
        b,
        count,
        seed,
    };
    spec.validate().map_err(value_error)?;
    let made = run_released(py, None, |_| generate::generate(&spec, &|| {}))?;
    Ok(made
        .into_iter()
        .map(|g| {
            (
                PyBytes::new(py, g.grid.cells()).unbind(),
                PyBytes::new(py, g.solution.cells()).unbind(),
                g.extra,
            )
        })
        .collect())
}

/// An ILCA run step by step (`gpu-sudoku trace`): every `every`-th step's probabilities
/// (before the step), chosen digits and degrees, then how it ended.
#[pyclass(module = "gpu_sudoku._native", frozen)]
struct TraceDone {
    /// The step numbers kept (1-based).
    #[pyo3(get)]
    steps: Vec<u32>,
    /// Probabilities before each kept step: f32 little-endian, steps × cells × digits.
    probabilities: Vec<u8>,
    /// The digit each cell holds after each kept step: steps × cells.
    states: Vec<u8>,
    /// Each cell's degree (differing neighbours) after each kept step: steps × cells.
    degrees: Vec<u8>,
    #[pyo3(get)]
    solved_at: Option<u32>,
    /// The final grid's cells.
    grid: Vec<u8>,
    #[pyo3(get)]
    side: usize,
}

#[pymethods]
impl TraceDone {
    fn buffers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("probabilities", PyBytes::new(py, &self.probabilities))?;
        d.set_item("states", PyBytes::new(py, &self.states))?;
        d.set_item("degrees", PyBytes::new(py, &self.degrees))?;
        d.set_item("grid", PyBytes::new(py, &self.grid))?;
        Ok(d)
    }
}

#[pyfunction]
#[pyo3(signature = (input, index, run, every, preset, params))]
fn trace(
    py: Python<'_>,
    input: PyRef<'_, Puzzles>,
    index: usize,
    run: usize,
    every: u32,
    preset: Option<&str>,
    params: &Bound<'_, PyDict>,
) -> PyResult<TraceDone> {
    if every == 0 {
        return Err(PyValueError::new_err("every: must be at least 1 (got 0)"));
    }
    let count = input.file.puzzles.len();
    let puzzle = input
        .file
        .puzzles
        .get(index)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "index: {index} is past the last puzzle ({count} in {})",
                input.file.path
            ))
        })?
        .grid
        .clone();
    drop(input);
    let params = ilca_params(preset, params)?;
    run_released(py, None, |_| {
        let side = puzzle.side();
        let mut t = TraceDone {
            steps: Vec::new(),
            probabilities: Vec::new(),
            states: Vec::new(),
            degrees: Vec::new(),
            solved_at: None,
            grid: Vec::new(),
            side,
        };
        let end = ilca::trace::record(&puzzle, &params, index, run, |s| {
            interrupt::check()?;
            if (s.step - 1) % every == 0 || s.info.solved || s.step == params.steps {
                t.steps.push(s.step);
                t.probabilities
                    .extend(s.probabilities.iter().flat_map(|p| p.to_le_bytes()));
                t.states.extend_from_slice(&s.states);
                t.degrees.extend_from_slice(&s.degrees);
            }
            Ok(())
        })?;
        t.solved_at = end.solved_at;
        t.grid = end.grid.cells().to_vec();
        Ok(t)
    })
}

/// Every GPU adapter: (index, name, backend, device type, driver, description).
#[pyfunction]
fn adapters(py: Python<'_>) -> Vec<(usize, String, String, String, String, String)> {
    py.detach(|| {
        gpu_sudoku::gpu::list_adapters()
            .into_iter()
            .enumerate()
            .map(|(i, a)| {
                (
                    i,
                    a.name.clone(),
                    format!("{:?}", a.backend),
                    format!("{:?}", a.device_type),
                    format!("{} {}", a.driver, a.driver_info).trim().to_string(),
                    gpu_sudoku::gpu::describe(&a),
                )
            })
            .collect()
    })
}

/// The presets: (name, what it is).
#[pyfunction]
#[pyo3(name = "presets")]
fn list_presets() -> Vec<(&'static str, &'static str)> {
    presets::PRESETS.iter().map(|p| (p.name, p.about)).collect()
}

/// The defaults the command line's flags have, so that the Python signatures say `None` and
/// take them from here.
#[pyfunction]
fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("batch_runs", batch::DEFAULT_RUNS)?;
    d.set_item("compare_runs", compare::DEFAULT_RUNS)?;
    d.set_item("seed", compare::DEFAULT_SEED)?;
    d.set_item("budget_ms", compare::DEFAULT_BUDGET_MS)?;
    d.set_item("compare_algos", compare::DEFAULT_ALGOS)?;
    Ok(d)
}

/// The one-line format's digit symbols (digit v is `symbols[v - 1]`; `.` is a blank).
#[pyfunction]
fn symbols() -> &'static str {
    std::str::from_utf8(puzzle::SYMBOLS).expect("ASCII")
}

/// The engine's version, as the reports record it.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The build that made this extension (`gpu-sudoku --version`; every JSON report's `build`).
#[pyfunction]
fn build(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let b = gpu_sudoku::build_info::BUILD;
    let d = PyDict::new(py);
    d.set_item("version", b.version)?;
    d.set_item("commit", b.commit)?;
    d.set_item("dirty", b.dirty)?;
    d.set_item("rustc", b.rustc)?;
    d.set_item("wgpu", b.wgpu)?;
    d.set_item("target", b.target)?;
    Ok(d)
}

/// A `--time-limit` text (`500ms`, `2s`, `2m`; a bare number is seconds; 0 is none) in whole
/// milliseconds, a part of one counted as one (0: no limit).
#[pyfunction]
fn time_limit_ms(text: &str) -> PyResult<u64> {
    let limit = gpu_sudoku::param::parse_time_limit(text)
        .map_err(|e| PyValueError::new_err(format!("time_limit: {e}")))?;
    Ok(gpu_sudoku::param::time_limit_millis(limit))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ParseError", m.py().get_type::<ParseError>())?;
    m.add_class::<Puzzles>()?;
    m.add_class::<BatchDone>()?;
    m.add_class::<CompareDone>()?;
    m.add_class::<TraceDone>()?;
    for f in [
        wrap_pyfunction!(read_file, m)?,
        wrap_pyfunction!(parse_text, m)?,
        wrap_pyfunction!(from_cells, m)?,
        wrap_pyfunction!(run_batch, m)?,
        wrap_pyfunction!(run_compare, m)?,
        wrap_pyfunction!(solve, m)?,
        wrap_pyfunction!(rate, m)?,
        wrap_pyfunction!(run_generate, m)?,
        wrap_pyfunction!(trace, m)?,
        wrap_pyfunction!(adapters, m)?,
        wrap_pyfunction!(list_presets, m)?,
        wrap_pyfunction!(version, m)?,
        wrap_pyfunction!(defaults, m)?,
        wrap_pyfunction!(symbols, m)?,
        wrap_pyfunction!(build, m)?,
        wrap_pyfunction!(time_limit_ms, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}

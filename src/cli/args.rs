//! What several subcommands share: argument groups declared once (device), parsers for the
//! library's named options, and the mapping from the library's parameter names to flags.

use super::output::Output;
use gpu_sudoku::backend::{Backend, Device};
use gpu_sudoku::choice::Choice;
use gpu_sudoku::param::ParamError;

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
    /// GPU adapter: index or part of the name from `gpu-sudoku adapters`.
    #[arg(long)]
    pub adapter: Option<String>,
}

impl DeviceArgs {
    /// Opens the device; when `auto` falls back to the CPU, says why on stderr (one line).
    pub fn open(&self) -> anyhow::Result<Device> {
        let (device, note) = Device::open(self.backend, self.adapter.as_deref()).map_err(|e| {
            match &self.adapter {
                Some(a) => e.context(format!("--backend {} --adapter {a}", self.backend)),
                None => e.context(format!("--backend {}", self.backend)),
            }
        })?;
        if let Some(why) = note {
            errln!("{}", fallback_note(&why));
        }
        Ok(device)
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
        csv: impl FnOnce() -> String,
    ) -> anyhow::Result<()> {
        let (j, c) = self.outputs();
        if let Some(o) = j {
            o.write(json()?.as_bytes())?;
        }
        if let Some(o) = c {
            o.write(csv().as_bytes())?;
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

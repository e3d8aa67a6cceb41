//! What several subcommands share: argument groups declared once (device), parsers for the
//! library's named options, and the mapping from the library's parameter names to flags.

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
            eprintln!("{}", fallback_note(&why));
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

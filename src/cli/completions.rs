//! `gpu-sudoku completions SHELL` and `gpu-sudoku man`: shell completions and a man page made
//! from the same clap definitions as the command line itself, so they cannot drift from it.

use super::output::Output;
use anyhow::Result;
use clap::CommandFactory;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Prints the completion script for the shell (e.g. `gpu-sudoku completions bash >
/// ~/.local/share/bash-completion/completions/gpu-sudoku`).
pub fn completions(a: CompletionsArgs) -> Result<ExitCode> {
    let mut cmd = super::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "gpu-sudoku", &mut out);
    super::output::stdout(&String::from_utf8_lossy(&out));
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Write the man page (roff) here instead of standard output (`man -l FILE` shows it).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<String>,
}

/// The man page of `gpu-sudoku` and its subcommands, in roff.
pub fn man(a: ManArgs) -> Result<ExitCode> {
    let mut cmd = super::Cli::command();
    cmd.build();
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut page)?;
    // Every subcommand's usage, description and options, under its own heading.
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        use std::io::Write;
        writeln!(page, ".SH \"GPU-SUDOKU {}\"", sub.get_name().to_uppercase())?;
        let man = clap_mangen::Man::new(sub.clone());
        man.render_synopsis_section(&mut page)?;
        man.render_description_section(&mut page)?;
        man.render_options_section(&mut page)?;
    }
    let out = Output::new("--output", a.output.as_deref().unwrap_or("-"));
    super::output::check(&[], std::slice::from_ref(&out))?;
    out.write(&page)?;
    Ok(ExitCode::SUCCESS)
}

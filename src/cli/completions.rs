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
    use std::io::Write;
    let mut page = Vec::new();
    // One page for everything: clap_mangen's own subcommand list would point to pages
    // `gpu-sudoku-batch(1)` … that are never written, so the list points to sections below.
    let top = clap_mangen::Man::new(cmd.clone());
    top.render_title(&mut page)?;
    top.render_name_section(&mut page)?;
    top.render_synopsis_section(&mut page)?;
    top.render_description_section(&mut page)?;
    top.render_options_section(&mut page)?;
    let subs: Vec<&clap::Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    writeln!(page, ".SH SUBCOMMANDS")?;
    for sub in &subs {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        writeln!(
            page,
            ".TP\n\\fB{}\\fR\n{} (section GPU\\-SUDOKU {} below)",
            roff_text(sub.get_name()),
            roff_text(&about),
            roff_text(&sub.get_name().to_uppercase())
        )?;
    }
    top.render_version_section(&mut page)?;
    // Every subcommand's usage, description and options, under its own heading.
    for sub in subs {
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

/// `text` as roff running text: hyphens and backslashes escaped, and a leading `.` or `'`
/// (which roff would read as a request) guarded.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

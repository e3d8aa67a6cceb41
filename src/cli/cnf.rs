//! `gpu-sudoku cnf PUZZLE`: the puzzle as DIMACS CNF for any SAT solver, and `--decode MODEL`:
//! the solver's answer read back as a grid, verified against the rules and the clues.
//!
//! Exit code: 0 when the CNF was written or the model decoded, 2 when the puzzle has no solution
//! (its singles contradict, or the solver answered UNSATISFIABLE), 3 when the solver gave no
//! answer (UNKNOWN, as `solve` gives up), 1 on an error such as a faulty model.

use super::args::GAVE_UP;
use super::args::{InputArgs, OnePuzzle};
use super::output::Output;
use anyhow::{bail, ensure, Context, Result};
use gpu_sudoku::exact::cnf::{encode, read_model, Answer};
use gpu_sudoku::puzzle::Format;
use std::io::Read;
use std::process::ExitCode;

/// Largest solver output `--decode` reads: far above any model of a 64x64 CNF (262,144
/// variables, about 2.5 MB of literals) with the solver's statistics.
const MODEL_LIMIT: u64 = 64 << 20;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub which: OnePuzzle,
    /// Where the CNF goes (`-`: standard output). `--out` is its older spelling.
    #[arg(short, long, alias = "out", value_name = "FILE", default_value = "-")]
    pub output: String,
    /// Instead of writing the CNF, read a SAT solver's output for it (`-`: standard input; the
    /// SAT competition's `s`/`v` lines or MiniSat's result file) and print the puzzle's grid
    /// it gives, verified against the rules and the clues.
    #[arg(long, value_name = "MODEL", conflicts_with = "output")]
    pub decode: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(a: Args) -> Result<ExitCode> {
    if let Some(model) = &a.decode {
        return decode(&a, model);
    }
    let out = Output::new("--output", &a.output);
    super::output::check(&[&a.which.puzzle], std::slice::from_ref(&out))?;
    let (puzzle, source) = a.input.one(&a.which)?;
    let cnf = match encode(&puzzle) {
        Ok(cnf) => cnf,
        Err(e) => {
            errln!("{source}: no solution (the singles find that {e}); no CNF written");
            return Ok(ExitCode::from(2));
        }
    };
    let n = puzzle.side();
    let open = n * n - cnf.start.clue_count();
    let blanks = n * n - puzzle.clue_count();
    let comments = [
        format!(
            "gpu-sudoku cnf: {source}, {n}x{n}, {blanks} blank cells, {open} open after naked and hidden singles"
        ),
        "one variable per (open cell, digit) the singles leave; each `c map VAR ROW COL DIGIT` line names one (1-based)".into(),
        "clauses: each open cell takes exactly one digit, each digit a row, column or box lacks goes in exactly one of its cells (pairwise at-most-one)".into(),
        format!("read a solver's answer back as a verified grid: {}", decode_command(&a)),
    ];
    let mut clauses = 0;
    out.write_with(|w| {
        clauses = cnf.write_dimacs(w, &comments)?;
        Ok(())
    })?;
    if out.target != super::output::Target::Stdout {
        outln!(
            "{}: {} variables, {clauses} clauses ({n}x{n}, {open} of {blanks} blank cells open after singles)",
            a.output,
            cnf.vars.len(),
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn decode(a: &Args, model: &str) -> Result<ExitCode> {
    ensure!(
        !(model == "-" && a.which.puzzle == "-"),
        "standard input can feed the puzzle or the model, not both: give one of them as a file"
    );
    let name = if model == "-" { "<stdin>" } else { model };
    let text = read_capped(model, name)?;
    let (puzzle, source) = a.input.one(&a.which)?;
    let cnf = match encode(&puzzle) {
        Ok(cnf) => cnf,
        Err(e) => {
            outln!("{source}: no solution (the singles find that {e}); it has no CNF to decode");
            return Ok(ExitCode::from(2));
        }
    };
    let answer = read_model(&text)
        .map_err(|e| anyhow::anyhow!("{name}:{}:{}: {}", e.line, e.column, e.message))?;
    match answer {
        Answer::Sat(lits) => {
            // A model that does not fit may be another puzzle's (no model: nothing to ask).
            let ask = if lits.is_empty() {
                ""
            } else {
                " (is it the answer for this puzzle's CNF?)"
            };
            let grid = cnf
                .decode(&puzzle, &lits)
                .map_err(|e| anyhow::anyhow!("{name}: {e}{ask}"))?;
            outln!("{}", grid.to_line());
            Ok(ExitCode::SUCCESS)
        }
        Answer::Unsat => {
            outln!("{source}: no solution (the SAT solver answered UNSATISFIABLE)");
            Ok(ExitCode::from(2))
        }
        Answer::Unknown => {
            outln!("{source}: the SAT solver gave no answer (UNKNOWN)");
            Ok(ExitCode::from(GAVE_UP))
        }
    }
}

/// The `cnf … --decode MODEL` command for the puzzle `a` names, each argument quoted for the
/// shell where it needs it.
fn decode_command(a: &Args) -> String {
    let mut words = vec![
        "gpu-sudoku".to_string(),
        "cnf".into(),
        quote(&a.which.puzzle),
    ];
    if a.which.index != 0 {
        words.push(format!("--index {}", a.which.index));
    }
    if let Some(size) = a.input.size {
        words.push(format!("--size {size}"));
    }
    if a.input.format != Format::Auto {
        words.push(format!("--format {}", a.input.format));
    }
    if let Some(column) = &a.input.column {
        words.push(format!("--column {}", quote(column)));
    }
    words.push("--decode MODEL".into());
    let command = words.join(" ");
    if a.which.puzzle == "-" {
        format!("{command} (with the same puzzle on standard input)")
    } else {
        command
    }
}

/// `word` as one shell word: as it is when it needs no quoting, else in single quotes.
fn quote(word: &str) -> String {
    let plain = |ch: char| ch.is_ascii_alphanumeric() || "-_./=:,+@%".contains(ch);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The text of `path` (`-`: standard input, called `name` in messages), refused past
/// [`MODEL_LIMIT`] bytes (so `/dev/zero` fails in constant memory).
fn read_capped(path: &str, name: &str) -> Result<String> {
    let mut bytes = Vec::new();
    let reader: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).with_context(|| format!("cannot read --decode {path}"))?)
    };
    reader
        .take(MODEL_LIMIT + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read --decode {name}"))?;
    if bytes.len() as u64 > MODEL_LIMIT {
        bail!(
            "--decode {name} is over {} MiB, more than any SAT solver's answer for a puzzle's CNF",
            MODEL_LIMIT >> 20
        );
    }
    String::from_utf8(bytes).map_err(|e| {
        let ok = std::str::from_utf8(&e.as_bytes()[..e.utf8_error().valid_up_to()])
            .expect("valid up to here");
        let line = ok.matches('\n').count() + 1;
        let column = ok.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        anyhow::anyhow!("{name}:{line}:{column}: not UTF-8 text (a SAT solver's output is ASCII)")
    })
}

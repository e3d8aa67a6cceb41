//! The `gpu-sudoku` command line: a thin layer over the library (`src/cli/`, one module per
//! subcommand).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}

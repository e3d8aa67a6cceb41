fn main() -> std::process::ExitCode {
    gpu_sudoku::cli::main()
}

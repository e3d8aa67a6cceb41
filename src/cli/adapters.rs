use anyhow::Result;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_: Args) -> Result<ExitCode> {
    let all = gpu_sudoku::gpu::list_adapters();
    if all.is_empty() {
        outln!("no GPU adapter found (install a Vulkan driver, e.g. `apt-get install mesa-vulkan-drivers`); the CPU backend still works");
        return Ok(ExitCode::FAILURE);
    }
    for (i, info) in all.iter().enumerate() {
        outln!("{i}: {}", gpu_sudoku::gpu::describe(info));
    }
    Ok(ExitCode::SUCCESS)
}

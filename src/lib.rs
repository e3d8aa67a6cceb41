//! gpu-sudoku: bio-inspired Sudoku solvers (ILCA, RFSS) batched on the GPU, with CPU
//! references that specify every kernel bit for bit.

pub mod baselines;
pub mod cli;
pub mod exact;
pub mod generate;
pub mod gpu;
pub mod ilca;
pub mod plot;
pub mod puzzle;
pub mod report;
pub mod rfss;
pub mod rng;
pub mod sweep;

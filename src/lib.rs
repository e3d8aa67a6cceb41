//! gpu-sudoku: bio-inspired Sudoku solvers (ILCA, RFSS) batched on the GPU, with CPU
//! references that specify every kernel bit for bit.
//!
//! Where things are: [`puzzle`] (grids, reading files), [`ilca`] and [`rfss`] (each algorithm's
//! CPU reference, GPU host and runner beside its shader in `shaders/`), [`backend`] (choosing
//! and opening where engines run), [`gpu`] (device plumbing only), [`exact`] (the exact
//! solver), [`generate`] (puzzle generators and the rater), [`baselines`] (the classic
//! solvers), [`sweep`] (parameter sweeps), [`report`] (results and their tables, JSON and CSV),
//! [`plot`] (figures). The command line lives in the binary (`src/main.rs`, `src/cli/`).

pub mod backend;
pub mod baselines;
pub mod choice;
pub mod exact;
pub mod generate;
pub mod gpu;
pub mod ilca;
pub mod limits;
pub mod param;
pub mod plot;
pub mod puzzle;
pub mod report;
pub mod reproduce;
pub mod rfss;
pub mod rng;
pub mod shard;
pub mod sweep;

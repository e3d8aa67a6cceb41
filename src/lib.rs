//! gpu-sudoku: bio-inspired Sudoku solvers (ILCA, RFSS) batched on the GPU, with CPU
//! references that specify every kernel bit for bit.
//!
//! # A sharded, resumable batch on every adapter (`examples/sharded_batch.rs`)
//!
//! The [`job`] module carries out what the `batch`, `compare` and `sweep` commands do: a typed
//! request in, a typed report out, resumable through a journal, split into shards that
//! [`job::merge`] joins, and run in chunks on every device at once.
//!
//! ```no_run
#![doc = include_str!("../examples/sharded_batch.rs")]
//! ```
//!
//! Where things are: [`puzzle`] (grids, reading files), [`ilca`] and [`rfss`] (each algorithm's
//! CPU reference, GPU host and runner beside its shader in `shaders/`), [`backend`] (choosing
//! and opening where engines run), [`interrupt`] (a stop request the engines poll), [`gpu`]
//! (device plumbing only), [`exact`] (the exact solver), [`generate`] (puzzle generators and the
//! rater), [`baselines`] (the classic solvers), [`sweep`] (parameter sweeps), [`job`] (carrying
//! out batch, compare and sweep runs), [`report`] (results and their tables, JSON and CSV),
//! [`plot`] (figures). The command line lives in the binary (`src/main.rs`, `src/cli/`); the
//! Python package in `python/` (docs/PYTHON.md).
//!
//! The binary needs the default feature `cli` (clap, clap_complete, clap_mangen, indicatif); a
//! program that only uses the library can leave it out, `gpu-sudoku = { path = "…",
//! default-features = false }`, and builds none of them.
//!
//! # Load puzzles, run ILCA on a backend, read the results
//!
//! ```
//! use gpu_sudoku::backend::{Backend, Device};
//! use gpu_sudoku::ilca::{run, Batch, IlcaParams};
//! use gpu_sudoku::puzzle::{parse_str, CLASSIC};
//!
//! // Puzzles from text (or a file: `puzzle::read_puzzles(path, None)`).
//! let puzzles: Vec<_> = parse_str(CLASSIC, None)?.into_iter().map(|p| p.grid).collect();
//! // `Backend::Auto` takes a hardware GPU when there is one; results are the same bits anyway.
//! let (device, _why_cpu) = Device::open(Backend::Cpu, None)?;
//! let params = IlcaParams { lr: 0.05, ..IlcaParams::default() }; // the paper's Table 3 rates
//! let results = run::run(&device, &Batch::runs(&puzzles, &params, 20), &|_| {})?;
//! assert_eq!(results.len(), 20);
//! for r in results.iter().filter(|r| r.solved) {
//!     // Every "solved" is verified against the rules and the clues; `steps` is when.
//!     assert!(r.steps <= params.steps);
//! }
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! # RFSS, and the summaries the reports print
//!
//! ```
//! use gpu_sudoku::backend::Device;
//! use gpu_sudoku::puzzle::{parse_str, CLASSIC};
//! use gpu_sudoku::report::batch::Summary;
//! use gpu_sudoku::rfss::{run, RfssParams};
//!
//! let puzzles: Vec<_> = parse_str(CLASSIC, None)?.into_iter().map(|p| p.grid).collect();
//! let outcomes = run::run(&Device::Cpu, &puzzles, &RfssParams::default(), &|_| {})?;
//! assert!(outcomes[0].solved()); // Horn's fitness sharing solves the classic puzzle
//! let records: Vec<_> = outcomes.iter().enumerate().map(|(i, o)| o.to_instance_result(i)).collect();
//! let s = Summary::of(1, &records, std::time::Duration::from_millis(1));
//! assert_eq!((s.solved, s.solved_pct), (1, 100.0)); // with a 95% interval and TTS99 beside
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod backend;
pub mod baselines;
pub mod build_info;
pub mod choice;
pub mod csv_io;
pub mod exact;
pub mod generate;
pub mod gpu;
pub mod ilca;
pub mod interrupt;
pub mod job;
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

//! Choosing where an RFSS batch runs (CPU reference or GPU kernel), for every command that runs
//! RFSS (`batch --algo rfss`, `rfss`). Same rules as ILCA's runner: `auto` takes a hardware
//! GPU when there is one and otherwise says why it runs on the CPU.

use super::{cpu, gpu, RfssOutcome, RfssParams};
use crate::gpu::{Backend, Engine, Gpu};
use crate::puzzle::Grid;
use anyhow::Result;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// An opened RFSS engine.
pub struct RfssRunner {
    gpu: Option<Gpu>,
    /// Why `auto` fell back to the CPU, if it did (one line, for stderr).
    pub note: Option<String>,
}

impl RfssRunner {
    /// `cpu`: the CPU reference. `gpu`: the GPU or an error saying why not. `auto`: a hardware
    /// GPU when one exists, otherwise the CPU with a [`RfssRunner::note`].
    pub fn open(backend: Backend, adapter: Option<&str>) -> Result<RfssRunner> {
        Ok(match backend {
            Backend::Cpu => RfssRunner {
                gpu: None,
                note: None,
            },
            Backend::Gpu => RfssRunner {
                gpu: Some(Gpu::open(adapter)?),
                note: None,
            },
            Backend::Auto => match Gpu::open_auto(adapter) {
                Ok(g) => RfssRunner {
                    gpu: Some(g),
                    note: None,
                },
                Err(e) => RfssRunner {
                    gpu: None,
                    note: Some(format!(
                        "backend auto: no usable GPU ({e:#}), running on the CPU"
                    )),
                },
            },
        })
    }

    pub fn engine(&self) -> Engine {
        match &self.gpu {
            None => Engine::Cpu,
            Some(g) => Engine::Gpu(g.describe()),
        }
    }

    /// Runs every puzzle once (RFSS is deterministic); outcomes in puzzle order, every
    /// "solved" verified. `progress(finished)` is called as instances finish.
    pub fn run(
        &self,
        puzzles: &[Grid],
        params: &RfssParams,
        progress: &(dyn Fn(usize) + Sync),
    ) -> Result<Vec<RfssOutcome>> {
        params.validate()?;
        match &self.gpu {
            Some(g) => gpu::run_with_progress(g, puzzles, params, &mut |done, _| progress(done)),
            None => {
                let done = AtomicUsize::new(0);
                puzzles
                    .par_iter()
                    .map(|g| {
                        let o = cpu::run_one(g, params);
                        progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                        o
                    })
                    .collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_runner_solves_and_reports_in_puzzle_order() {
        let r = RfssRunner::open(Backend::Cpu, None).unwrap();
        assert_eq!(r.engine(), Engine::Cpu);
        assert!(r.note.is_none());
        let grids: Vec<Grid> = crate::puzzle::parse_str("1.3.3.12.1.343.1\n12....3...4.....", None)
            .unwrap()
            .into_iter()
            .map(|p| p.grid)
            .collect();
        let calls = AtomicUsize::new(0);
        let out = r
            .run(&grids, &RfssParams::default(), &|_| {
                calls.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
        assert!(out[0].solved(), "{:?}", out[0]);
        assert!(matches!(out[1].status, super::super::Status::Unsolvable(_)));
        assert_eq!(calls.load(Ordering::Relaxed), 2);
        let bad = RfssParams {
            max_generations: 0,
            ..Default::default()
        };
        assert!(r.run(&grids, &bad, &|_| {}).is_err());
    }
}

//! Running RFSS on a [`Device`]: the one entry point every command uses (`batch --algo rfss`,
//! `rfss`, `compare`), whatever the backend.

use super::{cpu, gpu, RfssOutcome, RfssParams};
use crate::backend::{Device, Progress};
use crate::puzzle::Grid;
use crate::report::InstanceResult;
use anyhow::Result;
use std::collections::BTreeMap;

/// Runs every puzzle once (RFSS is deterministic) on `device`; outcomes in puzzle order, every
/// "solved" verified, identical on every device.
pub fn run(
    device: &Device,
    puzzles: &[Grid],
    params: &RfssParams,
    progress: Progress,
) -> Result<Vec<RfssOutcome>> {
    run_with(
        device,
        puzzles,
        params,
        &gpu::GpuOptions::default(),
        progress,
    )
}

/// [`run`] with the GPU engine's knobs (which do not change results).
pub fn run_with(
    device: &Device,
    puzzles: &[Grid],
    params: &RfssParams,
    opts: &gpu::GpuOptions,
    progress: Progress,
) -> Result<Vec<RfssOutcome>> {
    params.validate()?;
    match device {
        Device::Cpu => cpu::run(puzzles, params, progress),
        Device::Gpu(g) => gpu::run(g, puzzles, params, opts, progress),
    }
}

/// The shared records of outcomes for puzzles `first..`: one instance per puzzle (see
/// [`RfssOutcome::to_instance_result`]) and each outcome as JSON keyed by puzzle index, the
/// per-puzzle detail every report writes under `rfss`.
pub fn records(
    outcomes: &[RfssOutcome],
    first: usize,
) -> Result<(Vec<InstanceResult>, BTreeMap<usize, serde_json::Value>)> {
    let mut results = Vec::with_capacity(outcomes.len());
    let mut details = BTreeMap::new();
    for (k, o) in outcomes.iter().enumerate() {
        results.push(o.to_instance_result(first + k));
        details.insert(first + k, serde_json::to_value(o)?);
    }
    Ok((results, details))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn cpu_run_solves_and_reports_in_puzzle_order() {
        let grids: Vec<Grid> = crate::puzzle::parse_str("1.3.3.12.1.343.1\n12....3...4.....", None)
            .unwrap()
            .into_iter()
            .map(|p| p.grid)
            .collect();
        let calls = AtomicUsize::new(0);
        let out = run(&Device::Cpu, &grids, &RfssParams::default(), &|k| {
            calls.fetch_add(k, Ordering::Relaxed);
        })
        .unwrap();
        assert!(out[0].solved(), "{:?}", out[0]);
        assert!(matches!(out[1].status, super::super::Status::Unsolvable(_)));
        assert_eq!(calls.load(Ordering::Relaxed), 2);
        let bad = RfssParams {
            max_generations: 0,
            ..Default::default()
        };
        assert!(run(&Device::Cpu, &grids, &bad, &|_| {}).is_err());
    }
}

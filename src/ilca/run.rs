//! Running an ILCA batch on a [`Device`]: the one entry point every command uses (batch, sweep,
//! compare, bench), whatever the backend.

use super::{cpu, gpu, Batch, Instance, Prune};
use crate::backend::{Device, Progress};
use crate::choice::Choice;
use crate::puzzle::Grid;
use crate::report::InstanceResult;
use anyhow::Result;

/// Runs every instance of `batch` on `device`; results in instance order, every "solved"
/// verified, identical on every device.
pub fn run(device: &Device, batch: &Batch, progress: Progress) -> Result<Vec<InstanceResult>> {
    run_with(device, batch, &gpu::GpuOptions::default(), progress)
}

/// [`run`] with the GPU engine's knobs (which do not change results).
pub fn run_with(
    device: &Device,
    batch: &Batch,
    opts: &gpu::GpuOptions,
    progress: Progress,
) -> Result<Vec<InstanceResult>> {
    batch.validate()?;
    let prunes = |i: &Instance| batch.settings[i.setting].prune != Prune::Off;
    if !batch.instances.iter().any(prunes) {
        return run_as_given(device, batch, opts, progress);
    }
    // `--prune`: the instances of each pruning choice run on the puzzles it prunes (`off`: as
    // given); every instance keeps its puzzle index, hence its random key.
    let mut results = vec![None; batch.instances.len()];
    for &prune in Prune::ALL {
        let at: Vec<usize> = (0..batch.instances.len())
            .filter(|&k| batch.settings[batch.instances[k].setting].prune == prune)
            .collect();
        if at.is_empty() {
            continue;
        }
        let pruned: Vec<Grid>;
        let part = Batch {
            puzzles: if prune == Prune::Off {
                batch.puzzles
            } else {
                // Only the puzzles these instances use are pruned (a chunk of a large file
                // touches few of them); the others stay as given, unread.
                let mut used = vec![false; batch.puzzles.len()];
                for &k in &at {
                    used[batch.instances[k].puzzle] = true;
                }
                let on = prune.on();
                pruned = (batch.puzzles.iter().zip(used))
                    .map(|(p, u)| if u { on(p) } else { p.clone() })
                    .collect();
                &pruned
            },
            first_puzzle: batch.first_puzzle,
            // Groups hold only while every instance is in the part (one pruning choice), or
            // when they cooperate: their instances share a setting, so a part has whole groups.
            portfolio: if at.len() == batch.instances.len() || batch.pull.is_some() {
                batch.portfolio
            } else {
                1
            },
            pull: batch.pull,
            settings: batch.settings,
            instances: at.iter().map(|&k| batch.instances[k]).collect(),
        };
        for (k, r) in at
            .into_iter()
            .zip(run_as_given(device, &part, opts, progress)?)
        {
            results[k] = Some(r);
        }
    }
    let results: Vec<InstanceResult> = results.into_iter().flatten().collect();
    // A pruned puzzle holds the original clues, so this cannot fail; it is the promise.
    for r in results.iter().filter(|r| r.solved) {
        let original = &batch.puzzles[r.puzzle];
        crate::puzzle::parse_str(&r.grid, Some(original.side()))?
            .remove(0)
            .grid
            .verify_solution_of(original)
            .map_err(|e| anyhow::anyhow!("internal error: a pruned run solved wrongly: {e}"))?;
    }
    Ok(results)
}

fn run_as_given(
    device: &Device,
    batch: &Batch,
    opts: &gpu::GpuOptions,
    progress: Progress,
) -> Result<Vec<InstanceResult>> {
    match device {
        Device::Cpu => {
            let results = cpu::run(batch, progress);
            crate::interrupt::check()?;
            Ok(results)
        }
        Device::Gpu(g) => gpu::run(g, batch, opts, progress),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ilca::IlcaParams;
    use crate::param::ParamError;

    #[test]
    fn bad_parameters_are_refused_before_running() {
        let g = crate::puzzle::parse_str("1234341221434321", None).unwrap()[0]
            .grid
            .clone();
        let bad = IlcaParams {
            lp: -1.0,
            ..Default::default()
        };
        let e = run(
            &Device::Cpu,
            &Batch::runs(std::slice::from_ref(&g), &bad, 1),
            &|_| {},
        )
        .unwrap_err();
        assert_eq!(e.downcast_ref::<ParamError>().unwrap().param, "lp");
    }
}

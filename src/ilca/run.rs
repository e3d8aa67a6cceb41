//! Running an ILCA batch on a [`Device`]: the one entry point every command uses (batch, sweep,
//! compare, bench), whatever the backend.

use super::{cpu, gpu, Batch, Instance, Prune};
use crate::backend::{Device, Progress};
use crate::exact::place_singles;
use crate::report::InstanceResult;
use anyhow::Result;

/// Runs every instance of `batch` on `device`; results in instance order, every "solved"
/// verified, identical on every device.
pub fn run(device: &Device, batch: &Batch, progress: Progress) -> Result<Vec<InstanceResult>> {
    batch.validate()?;
    if batch.settings.iter().all(|s| s.prune == Prune::Off) {
        return run_as_given(device, batch, progress);
    }
    // `--prune singles`: the engines run on the pruned puzzles, appended after the originals,
    // so the instances of other settings in the batch keep theirs.
    let n = batch.puzzles.len();
    let mut puzzles = batch.puzzles.to_vec();
    puzzles.extend(
        batch
            .puzzles
            .iter()
            .map(|g| place_singles(g).unwrap_or_else(|_| g.clone())),
    );
    let pruned = Batch {
        puzzles: &puzzles,
        settings: batch.settings,
        instances: batch
            .instances
            .iter()
            .map(|i| Instance {
                puzzle: match batch.settings[i.setting].prune {
                    Prune::Off => i.puzzle,
                    Prune::Singles => n + i.puzzle,
                },
                ..*i
            })
            .collect(),
    };
    let mut results = run_as_given(device, &pruned, progress)?;
    for r in &mut results {
        r.puzzle %= n;
        // The pruned puzzle holds the original clues, so this cannot fail; it is the promise.
        if r.solved {
            let grid = crate::puzzle::parse_str(&r.grid, Some(batch.puzzles[r.puzzle].side()))?
                .remove(0)
                .grid;
            grid.verify_solution_of(&batch.puzzles[r.puzzle])
                .map_err(|e| anyhow::anyhow!("internal error: pruned run solved wrongly: {e}"))?;
        }
    }
    Ok(results)
}

fn run_as_given(device: &Device, batch: &Batch, progress: Progress) -> Result<Vec<InstanceResult>> {
    match device {
        Device::Cpu => Ok(cpu::run(batch, progress)),
        Device::Gpu(g) => gpu::run(g, batch, &gpu::GpuOptions::default(), progress),
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

//! Running an ILCA batch on a [`Device`]: the one entry point every command uses (batch, sweep,
//! compare, bench), whatever the backend.

use super::{cpu, gpu, Batch};
use crate::backend::{Device, Progress};
use crate::report::InstanceResult;
use anyhow::Result;

/// Runs every instance of `batch` on `device`; results in instance order, every "solved"
/// verified, identical on every device.
pub fn run(device: &Device, batch: &Batch, progress: Progress) -> Result<Vec<InstanceResult>> {
    batch.validate()?;
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

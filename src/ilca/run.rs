//! Choosing where an ILCA batch runs: the one place that knows the engines. The CLI (and any
//! other caller) goes through [`run_ilca`]; plugging the GPU engine in is a change to
//! [`GPU_ENGINE`] only.

use super::{cpu, IlcaParams};
use crate::gpu::{Backend, Gpu};
use crate::puzzle::Grid;
use crate::report::InstanceResult;
use anyhow::{bail, Result};

/// Signature of a GPU ILCA engine: `runs` runs of every puzzle (instance (p, r) keyed by
/// `rng::instance_key(seed, p, r)`, exactly as [`cpu::run_batch`]), every "solved" verified,
/// `tick` called once per finished instance (or in bulk: what matters is the count).
pub type GpuIlcaEngine = fn(
    gpu: &Gpu,
    puzzles: &[Grid],
    runs: usize,
    params: &IlcaParams,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<InstanceResult>>;

/// The GPU engine (`shaders/ilca.wgsl`), bit-identical to [`cpu::run_batch`].
pub const GPU_ENGINE: Option<GpuIlcaEngine> = Some(crate::gpu::ilca::run_batch);

pub use crate::gpu::Engine;

/// An opened engine, reused for every batch of a command (opening a GPU costs time).
pub struct IlcaRunner {
    engine: Engine,
    gpu: Option<(Gpu, GpuIlcaEngine)>,
    /// Why `auto` fell back to the CPU, if it did (one line, for stderr).
    pub note: Option<String>,
}

impl IlcaRunner {
    /// Opens the engine `backend` asks for. `cpu`: the CPU. `gpu`: the GPU or an error saying
    /// why not. `auto`: the GPU when both the engine and an adapter exist, otherwise the CPU
    /// with a [`IlcaRunner::note`] saying why.
    pub fn open(backend: Backend, adapter: Option<&str>) -> Result<IlcaRunner> {
        Self::open_with(backend, adapter, GPU_ENGINE)
    }

    fn open_with(
        backend: Backend,
        adapter: Option<&str>,
        engine: Option<GpuIlcaEngine>,
    ) -> Result<IlcaRunner> {
        let cpu = |note: Option<String>| IlcaRunner {
            engine: Engine::Cpu,
            gpu: None,
            note,
        };
        match backend {
            Backend::Cpu => Ok(cpu(None)),
            Backend::Gpu => {
                let Some(f) = engine else {
                    bail!("the GPU ILCA engine is not built yet: use --backend cpu (or auto)");
                };
                let gpu = Gpu::open(adapter)?;
                Ok(IlcaRunner {
                    engine: Engine::Gpu(gpu.describe()),
                    gpu: Some((gpu, f)),
                    note: None,
                })
            }
            Backend::Auto => {
                let Some(f) = engine else {
                    return Ok(cpu(Some(
                        "backend auto: the GPU ILCA engine is not built yet, running on the CPU"
                            .into(),
                    )));
                };
                match Gpu::open_auto(adapter) {
                    Ok(gpu) => Ok(IlcaRunner {
                        engine: Engine::Gpu(gpu.describe()),
                        gpu: Some((gpu, f)),
                        note: None,
                    }),
                    Err(e) => Ok(cpu(Some(format!(
                        "backend auto: no usable GPU ({e:#}), running on the CPU"
                    )))),
                }
            }
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Runs `runs` runs of every puzzle; results in (puzzle, run) order.
    pub fn run(
        &self,
        puzzles: &[Grid],
        runs: usize,
        params: &IlcaParams,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<InstanceResult>> {
        params.validate()?;
        if runs == 0 {
            bail!("--runs must be at least 1");
        }
        match &self.gpu {
            None => Ok(cpu::run_batch(puzzles, runs, params, tick)),
            Some((gpu, f)) => f(gpu, puzzles, runs, params, tick),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_backend_without_engine_is_a_clear_error() {
        let e = IlcaRunner::open_with(Backend::Gpu, None, None)
            .err()
            .expect("must fail")
            .to_string();
        assert!(e.contains("the GPU ILCA engine is not built yet"), "{e}");
    }

    #[test]
    fn auto_without_engine_runs_on_the_cpu_and_says_so() {
        let r = IlcaRunner::open_with(Backend::Auto, None, None).unwrap();
        assert_eq!(r.engine(), &Engine::Cpu);
        assert!(r.note.as_deref().unwrap().contains("running on the CPU"));
        let r = IlcaRunner::open_with(Backend::Cpu, None, None).unwrap();
        assert!(r.note.is_none());
    }

    #[test]
    fn zero_runs_and_bad_parameters_are_refused() {
        let r = IlcaRunner::open(Backend::Cpu, None).unwrap();
        let g = crate::puzzle::parse_str("1234341221434321", None).unwrap()[0]
            .grid
            .clone();
        let e = r.run(std::slice::from_ref(&g), 0, &IlcaParams::default(), &|| {});
        assert!(e.unwrap_err().to_string().contains("--runs"));
        let bad = IlcaParams {
            lp: -1.0,
            ..Default::default()
        };
        let e = r.run(std::slice::from_ref(&g), 1, &bad, &|| {});
        assert!(e.unwrap_err().to_string().contains("--lp"));
    }
}

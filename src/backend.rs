//! Where engines run: the user's choice ([`Backend`]), the opened place ([`Device`]), with the
//! reason when `auto` falls back to the CPU, and the progress callback every runner reports
//! through ([`Progress`]).

use crate::gpu::Gpu;
use anyhow::Result;

crate::choice! {
    /// Where to run an engine.
    pub enum Backend {
        /// A hardware GPU when one opens, otherwise the CPU (saying why).
        Auto = "auto",
        /// The CPU reference engine (all cores).
        Cpu = "cpu",
        /// A GPU adapter, software ones (lavapipe) included; fails when none opens.
        Gpu = "gpu",
    }
}

/// Progress of a running batch: called with the number of instances that just finished (so
/// the sum over calls is the batch's instance count). Called from worker threads.
pub type Progress<'a> = &'a (dyn Fn(usize) + Sync);

/// An opened place to run engines on. Clones share the GPU's device, queue and kernels.
#[derive(Clone, Debug)]
pub enum Device {
    /// The CPU reference engines, on every core.
    Cpu,
    Gpu(Box<Gpu>),
}

impl Device {
    /// Opens what `backend` asks for: `cpu` the CPU; `gpu` the GPU `adapter` names (or the
    /// default one), or an error saying why none opens; `auto` likewise when `adapter` names
    /// one, otherwise a hardware GPU when one opens and else the CPU, with a short reason why
    /// (no adapter, or only a software one such as lavapipe, which is slower than the CPU
    /// reference on the same cores).
    pub fn open(backend: Backend, adapter: Option<&str>) -> Result<(Device, Option<String>)> {
        Ok(match (backend, adapter) {
            (Backend::Cpu, _) => (Device::Cpu, None),
            (Backend::Gpu, _) | (Backend::Auto, Some(_)) => {
                (Device::Gpu(Box::new(Gpu::open(adapter)?)), None)
            }
            (Backend::Auto, None) => match Gpu::open(None) {
                Ok(g) if g.info.device_type == wgpu::DeviceType::Cpu => (
                    Device::Cpu,
                    Some(format!(
                        "the only GPU adapter is the software {}, slower than the CPU",
                        g.info.name
                    )),
                ),
                Ok(g) => (Device::Gpu(Box::new(g)), None),
                Err(_) => (Device::Cpu, Some("no GPU adapter found".into())),
            },
        })
    }

    /// "cpu" or "gpu", as [`Backend`] spells them.
    pub fn name(&self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Gpu(_) => "gpu",
        }
    }

    /// The GPU adapter's description; `None` on the CPU.
    pub fn adapter(&self) -> Option<String> {
        self.gpu().map(Gpu::describe)
    }

    pub fn gpu(&self) -> Option<&Gpu> {
        match self {
            Device::Cpu => None,
            Device::Gpu(g) => Some(g.as_ref()),
        }
    }

    /// One line for people: "CPU (16 threads)" or "GPU NVIDIA H100 (Vulkan, DiscreteGpu, driver …)".
    pub fn describe(&self) -> String {
        match self {
            Device::Cpu => format!(
                "CPU ({})",
                crate::report::count(rayon::current_num_threads() as u64, "thread", "threads")
            ),
            Device::Gpu(g) => format!("GPU {}", g.describe()),
        }
    }
}

//! GPU plumbing shared by every kernel: adapter choice, device creation, backend selection.

mod buffers;
mod context;
pub mod ilca;

pub use context::{describe, list_adapters, Gpu};

/// Most loop passes (loop back-edge evaluations, over all loops of a kernel) one invocation may
/// make in one dispatch. Mesa's llvmpipe/lavapipe (gallivm) counts every loop pass of a group of
/// invocations in one counter shared by all loops, starting at 65,535 per dispatch
/// (`LP_MAX_TGSI_LOOP_ITERATIONS`), and when it reaches 0 every loop of that group exits at its
/// next back-edge: the rest of the dispatch silently does not happen. Kernels that loop over
/// many steps in one dispatch (RFSS generations, ILCA time-steps) size their dispatches with
/// [`rounds_within_loop_budget`] so that they stay below this budget (65,535 less a margin), on
/// every adapter, so that results never depend on the driver. Real GPUs have no such counter.
/// See docs/GPU.md and docs/RFSS.md, "Loop budget per dispatch".
pub const LOOP_PASS_BUDGET: u64 = 60_000;

/// Most rounds (time-steps, generations) of a kernel's main loop one dispatch may run, when one
/// invocation makes at most `per_round` loop passes per round and at most `fixed` more in the
/// whole dispatch (loops before and after the main loop, and the main loop's exit test): the
/// largest k with `fixed + k · per_round ≤ LOOP_PASS_BUDGET`; 0 when not even one round fits.
pub fn rounds_within_loop_budget(per_round: u64, fixed: u64) -> u64 {
    LOOP_PASS_BUDGET.saturating_sub(fixed) / per_round.max(1)
}

/// Where an engine runs, as chosen on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The GPU when an adapter exists, otherwise the CPU (saying so).
    Auto,
    /// The CPU reference engine (all cores).
    Cpu,
    /// The GPU; fails clearly when there is no adapter.
    Gpu,
}

/// Where a batch ran (after `--backend auto` made its choice).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    Cpu,
    /// The GPU, with the adapter's description.
    Gpu(String),
}

impl Engine {
    /// "cpu" or "gpu" (as in `--backend`).
    pub fn name(&self) -> &'static str {
        match self {
            Engine::Cpu => "cpu",
            Engine::Gpu(_) => "gpu",
        }
    }
    pub fn adapter(&self) -> Option<&str> {
        match self {
            Engine::Cpu => None,
            Engine::Gpu(a) => Some(a),
        }
    }
}

/// Environment variable that turns a missing adapter in the GPU tests into a failure (set in CI).
pub const REQUIRE_GPU_ENV: &str = "GPU_SUDOKU_REQUIRE_GPU";

/// For tests: the GPU, or `None` with a loud note when the machine has no adapter.
/// Panics when [`REQUIRE_GPU_ENV`] is `1` and no adapter exists.
pub fn gpu_for_tests() -> Option<&'static Gpu> {
    use std::sync::OnceLock;
    static GPU: OnceLock<Option<Gpu>> = OnceLock::new();
    let gpu = GPU.get_or_init(|| match Gpu::open(None) {
        Ok(g) => Some(g),
        Err(e) => {
            if std::env::var(REQUIRE_GPU_ENV).as_deref() == Ok("1") {
                panic!("{REQUIRE_GPU_ENV}=1 but no GPU adapter: {e:#}");
            }
            None
        }
    });
    if gpu.is_none() {
        eprintln!(
            "SKIPPED: no GPU adapter on this machine (install mesa-vulkan-drivers for lavapipe)"
        );
    }
    gpu.as_ref()
}
